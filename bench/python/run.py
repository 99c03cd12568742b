#!/usr/bin/python3
"""ember's Python UDFs against what a Python user would otherwise write, measured in one run.

  bench/python/run.py [--quick] [--build-dir DIR] [--repeat N] [--no-dask]

Four workloads, each on ember and on its baseline with the same input and 2 workers, results
checked equal; prints a markdown table of median wall times and ratios (ember / baseline):
  init-heavy   a pure-Python UDF with a 2 s constructor over 64 partitions: ember process
               actors vs ProcessPoolExecutor(initializer=...); at most one construction per actor
  cpu-heavy    hashed character 3-grams in pure Python (bench/baselines/ngram_embedding.py):
               ember process actors vs ProcessPoolExecutor
  batch-overhead  a trivial Python UDF on one process actor, 16-row batches: microseconds per
               batch (the target is a bound, not a ratio to a system)
  numpy-thread a NumPy function over float64 columns on a thread actor vs calling it in a loop
               over the same arrays
init-heavy and cpu-heavy also run on Dask actors (Debian's python3-distributed), the baseline
bench/compare uses. Uses /usr/bin/python3 and the package in build/python.
"""
import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "baselines"))
import ngram_embedding  # noqa: E402

INIT_SECONDS = 2.0
WORKERS = 2


def median_time(fn, repeat):
    return interleaved_medians([fn], repeat)[0]


def interleaved_medians(fns, repeat):
    """Runs the functions in turn, `repeat` rounds, so that each sees the machine as the others
    do: [(median seconds, last result)] in the order given."""
    times = [[] for _ in fns]
    results = [None] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            results[i] = fn()
            times[i].append(time.perf_counter() - t0)
    return [(statistics.median(t), r) for t, r in zip(times, results)]


# ---- init-heavy
class SlowInit:
    def __init__(self):
        time.sleep(INIT_SECONDS)  # loading a model

    def __call__(self, x):
        return x.to_numpy() * 2


_pool_model = None


def _pool_init():
    global _pool_model
    time.sleep(INIT_SECONDS)
    _pool_model = 2


def _pool_double(chunk):
    return [v * _pool_model for v in chunk]


def init_heavy(ember, rows, repeat):
    udf = ember.cls(SlowInit, returns=ember.int64(), concurrency=WORKERS, isolation="process")
    df = ember.range(rows, partitions=64)

    def run_ember():
        res = df.select(udf()("id").alias("v")).execute()
        return sum(res.table.column("v").to_numpy().tolist()), res.stats.udfs[0].inits

    def run_pool():
        chunks = [list(range(p * rows // 64, (p + 1) * rows // 64)) for p in range(64)]
        with ProcessPoolExecutor(WORKERS, initializer=_pool_init) as pool:
            return sum(sum(c) for c in pool.map(_pool_double, chunks))

    t_ember, (total, inits) = median_time(run_ember, repeat)
    t_pool, expected = median_time(run_pool, repeat)
    assert total == expected, (total, expected)
    assert inits <= WORKERS, inits
    return [("init-heavy (2 s constructor, 64 partitions)", t_ember, "ProcessPoolExecutor",
             t_pool, 1.1, "inits %d" % inits)]


# ---- cpu-heavy
class NgramScore:
    def __init__(self):
        self.weights = ngram_embedding.make_weights()

    def __call__(self, text):
        return [ngram_embedding.score(t, self.weights) for t in text.to_pylist()]


_weights = None


def _ngram_init():
    global _weights
    _weights = ngram_embedding.make_weights()


def _ngram_chunk(texts):
    return [ngram_embedding.score(t, _weights) for t in texts]


def texts(rows):
    words = ["ember", "actor", "stateful", "batch", "inference", "python", "arrow", "query"]
    return [" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(4 + i % 9))
            for i in range(rows)]


def cpu_heavy(ember, rows, repeat):
    data = texts(rows)
    udf = ember.cls(NgramScore, returns=ember.float64(), concurrency=WORKERS,
                    isolation="process", batch_size=4096)
    df = ember.from_pydict({"text": data}, partitions=8)

    def run_ember():
        return df.select(udf()("text").alias("s")).collect().column("s").to_numpy().sum()

    def run_pool():
        chunks = [data[i:i + 4096] for i in range(0, rows, 4096)]
        with ProcessPoolExecutor(WORKERS, initializer=_ngram_init) as pool:
            return sum(sum(c) for c in pool.map(_ngram_chunk, chunks))

    t_ember, got = median_time(run_ember, repeat)
    t_pool, expected = median_time(run_pool, repeat)
    assert abs(got - expected) < 1e-6 * max(1.0, abs(expected)), (got, expected)
    return [("cpu-heavy (pure-Python 3-grams, %d rows)" % rows, t_ember, "ProcessPoolExecutor",
             t_pool, 1.1, "")]


# ---- the same two workloads on Dask actors (Debian's python3-distributed)
class DaskInitActor:
    def __init__(self):
        time.sleep(INIT_SECONDS)

    def run(self, chunk):
        return [v * 2 for v in chunk]


class DaskNgramActor:
    def __init__(self):
        import ngram_embedding as model  # the workers' PYTHONPATH has bench/baselines
        self.model = model
        self.weights = model.make_weights()

    def run(self, texts):
        return [self.model.score(t, self.weights) for t in texts]


def dask_rows(ember_rows, init_rows, text_rows, repeat):
    """Dask actors (one per worker process, created inside the timing as ember's actors are;
    the cluster's start is not timed) on init-heavy and cpu-heavy: extra rows for the table."""
    os.environ["PYTHONPATH"] = (os.path.join(ROOT, "bench", "baselines") + os.pathsep +
                                os.environ.get("PYTHONPATH", ""))
    from distributed import Client, LocalCluster
    data = texts(text_rows)
    chunks = {"init": [list(range(p * init_rows // 64, (p + 1) * init_rows // 64))
                       for p in range(64)],
              "cpu": [data[i:i + 4096] for i in range(0, text_rows, 4096)]}
    out = []
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.wait_for_workers(WORKERS, timeout=120)
        addresses = sorted(client.scheduler_info()["workers"])
        for key, cls in (("init", DaskInitActor), ("cpu", DaskNgramActor)):
            def run():
                actors = [client.submit(cls, actor=True, workers=[a]).result()
                          for a in addresses]
                futures = [actors[i % len(actors)].run(c) for i, c in enumerate(chunks[key])]
                return sum(sum(f.result()) for f in futures)
            t, _ = median_time(run, repeat)
            name, t_ember = ember_rows[0 if key == "init" else 1][:2]
            out.append((name, t_ember, "Dask actors", t, 1.1, ""))
    return out


# ---- per-batch overhead of a process actor
class Identity:
    def __call__(self, x):
        return x


def batch_overhead(ember, batches, repeat):
    udf = ember.cls(Identity, returns=ember.int64(), isolation="process", batch_size=16)
    df = ember.range(batches * 16)
    warm = ember.Session()
    df.select(udf()("id")).collect(session=warm)  # the worker starts outside the timing

    def run():
        return df.select(udf()("id")).execute(session=warm).stats.udfs[0].batches

    t, n = median_time(run, repeat)
    warm.close()
    per_batch_us = t / n * 1e6
    return [("process actor, trivial UDF: µs per 16-row batch", per_batch_us, "bound",
             100.0, 1.0, "%d batches" % n)]


# ---- NumPy on a thread actor
def transform(x):
    import numpy as np
    return np.sqrt(np.abs(x)) * 2.0 + 1.0


class NumpyTransform:
    def __call__(self, x):
        return transform(x.to_numpy())


def numpy_thread(ember, rows, repeat):
    import numpy as np
    arrays = [np.random.default_rng(p).normal(size=rows // 8) for p in range(8)]
    df = ember.from_table(ember.from_pydict({"x": np.concatenate(arrays)}).collect(), 8)
    udf = ember.cls(NumpyTransform, returns=ember.float64(), batch_size=1 << 16)

    # Both sides sum the function's results (the loop chunk by chunk, ember in the engine):
    # neither keeps the 16M results.
    def run_ember():
        return df.select(udf()("x").alias("y")).agg(ember.col("y").sum().alias("s")) \
            .collect().to_pydict()["s"][0]

    def run_loop():
        total = 0.0
        for a in arrays:
            for i in range(0, len(a), 1 << 16):
                total += transform(a[i:i + (1 << 16)]).sum()
        return total

    # A run takes tens of milliseconds: 11 rounds at least, the two sides taking turns.
    rounds = max(repeat, 11)
    (t_ember, got), (t_loop, expected) = interleaved_medians([run_ember, run_loop], rounds)
    assert abs(got - expected) < 1e-6 * abs(expected), (got, expected)
    return [("NumPy UDF over float64, thread actor (%d rows)" % rows, t_ember,
             "the function in a loop", t_loop, 1.2, "medians of %d interleaved runs" % rounds)]


# glibc gives the top of its heap back to the system once more than 128 KiB is free there, so a
# loop whose NumPy temporaries (512 KiB each here) are freed and allocated again faults their
# pages in on every call, or does not, depending on what else sits on the heap: the same loop
# took 0.035 s or 0.12 s from one run to the next. Trimming is turned off for the whole
# benchmark (both sides) so that its figures repeat.
_STEADY_MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}


def main():
    if any(os.environ.get(k) != v for k, v in _STEADY_MALLOC.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **_STEADY_MALLOC})
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller inputs, fewer runs")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--repeat", type=int, default=None)
    p.add_argument("--no-dask", action="store_true", help="leave out the Dask actors baseline")
    args = p.parse_args()
    sys.path.insert(0, os.path.join(args.build_dir, "python"))
    import ember
    repeat = args.repeat or (1 if args.quick else 3)
    rows = []
    rows += init_heavy(ember, 1 << 16, repeat)
    rows += cpu_heavy(ember, 50_000 if args.quick else 200_000, repeat)
    rows += batch_overhead(ember, 2000 if args.quick else 10_000, repeat)
    rows += numpy_thread(ember, 4_000_000 if args.quick else 16_000_000, repeat)
    if not args.no_dask:
        rows += dask_rows(rows, 1 << 16, 50_000 if args.quick else 200_000, repeat)
    print("| workload | ember | baseline | baseline figure | ratio | target | note |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for name, ours, base_name, base, target, note in rows:
        ratio = ours / base
        unit = "µs" if "µs" in name else "s"
        ok = ratio <= target
        failed += not ok
        print("| %s | %.3f %s | %s | %.3f %s | %.2f | ≤ %.1f%s | %s |" % (
            name, ours, unit, base_name, base, unit, ratio, target, "" if ok else " MISSED", note))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
