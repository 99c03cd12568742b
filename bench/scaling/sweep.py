#!/usr/bin/python3
"""Scaling of the UDF workloads with actors and pipeline threads, against the C++ limit.

  bench/scaling/sweep.py [--actors 1 2 ... 8] [--threads 1 2] [--repeat 3] [--no-build]

Runs `pipeline` and `cpu-heavy` (bench/compare --quick's inputs) on ember with every pipeline
thread count in --threads and every actor count in --actors, and the hand-written C++ limit
(compare_cpp --strategy limit) with as many threads as ember has actors; checks that every run
computed the same result as the limit; writes bench/results/scaling_sweep.json and one gnuplot
PNG per workload (bench/results/scaling_<workload>.png) with all lines on the same axes.
Times are medians of --repeat runs; the spread (min-max) goes to the JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BUILD = ROOT / "build-bench"
BIN = BUILD / "bench" / "workloads"
DATA = BUILD / "compare-data"
RESULTS = ROOT / "bench" / "results"


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sweep: failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def inputs():
    """The --quick inputs of bench/compare, generated when missing."""
    DATA.mkdir(parents=True, exist_ok=True)
    strings = DATA / "strings-200000.csv"
    if not strings.exists():
        run_plain([BIN / "compare_datagen", "strings", "--rows", 200000, "--out", strings])
    pipeline = DATA / "pipeline-200MB.csv"
    if not pipeline.exists():
        run_plain([BIN / "compare_datagen", "pipeline", "--bytes", 200 << 20, "--out", pipeline])
    return {"pipeline": pipeline, "cpu-heavy": strings}


def run_plain(cmd):
    subprocess.run([str(c) for c in cmd], check=True, capture_output=True)


def measure(workload, path, system, workers, threads, repeat):
    cmd = [BIN / ("compare_ember" if system == "ember" else "compare_cpp")]
    if system != "ember":
        cmd += ["--strategy", "limit"]
    cmd += ["--workload", workload, "--input", path, "--workers", workers, "--repeat", repeat]
    if system == "ember":
        cmd += ["--threads", threads]
    if workload == "cpu-heavy":
        cmd += ["--split-bytes", 4 << 20]
    if workload == "pipeline":
        cmd += ["--out", BUILD / "sweep-out" / system]
    r = run(cmd)
    return r


def same(a, b):
    for k in set(a) | set(b):
        x, y = a.get(k), b.get(k)
        if x is None or y is None:
            return False
        if isinstance(x, int) and isinstance(y, int):
            if x != y:
                return False
        elif abs(x - y) > 1e-9 * max(1.0, abs(x), abs(y)):
            return False
    return True


def plot(workload, points, threads, load):
    RESULTS.mkdir(parents=True, exist_ok=True)
    cols = ["actors", "cpp"] + [f"ember_t{t}" for t in threads]
    lines = [" ".join(str(p[c]) for c in cols) for p in points]
    series = [f"'' using 1:{i + 3} title 'ember, {t} pipeline thread{'s' if t > 1 else ''}' "
              f"lw 2 pt {5 + 2 * i}" for i, t in enumerate(threads)]
    with tempfile.TemporaryDirectory() as tmp:
        dat = Path(tmp) / "data.dat"
        dat.write_text("\n".join(lines) + "\n")
        script = (
            "set terminal pngcairo size 900,560 font 'Sans,11'; set grid; set key top right; "
            "set style data linespoints; "
            f"set output '{RESULTS / ('scaling_' + workload.replace('-', '_') + '.png')}'; "
            f"set title '{workload}: median wall time vs actors ({os.cpu_count()} CPUs, "
            f"load average {load} at the start)'; "
            "set xlabel 'actors (ember) / threads (C++ limit)'; "
            "set ylabel 'wall seconds (median)'; set xtics 1; set yrange [0:*]; "
            f"plot '{dat}' using 1:2 title 'C++ limit (hand-written thread pool)' lw 2 pt 9 dt 2, "
            + ", ".join(series))
        subprocess.run(["gnuplot", "-e", script], check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--actors", type=int, nargs="+", default=list(range(1, 9)))
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workloads", nargs="+", default=["pipeline", "cpu-heavy"])
    p.add_argument("--no-build", action="store_true")
    args = p.parse_args()
    if not args.no_build:
        run_plain(["ninja", "-C", BUILD, "-j2", "compare_ember", "compare_cpp", "compare_datagen"])
    paths = inputs()
    load = Path("/proc/loadavg").read_text().split()[0]
    out = {}
    for workload in args.workloads:
        points = []
        for n in args.actors:
            limit = measure(workload, paths[workload], "cpp", n, 0, args.repeat)
            row = {"actors": n, "cpp": round(statistics.median(limit["times"]), 4),
                   "spread": {"cpp": [min(limit["times"]), max(limit["times"])]}}
            for t in args.threads:
                e = measure(workload, paths[workload], "ember", n, t, args.repeat)
                if not same(e["check"], limit["check"]):
                    sys.exit(f"sweep: {workload} ember ({n} actors, {t} threads) disagrees with "
                             f"the C++ limit: {e['check']} vs {limit['check']}")
                row[f"ember_t{t}"] = round(statistics.median(e["times"]), 4)
                row["spread"][f"ember_t{t}"] = [min(e["times"]), max(e["times"])]
            print(f"{workload:10s} actors={n}: " +
                  ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("actors", "spread")),
                  flush=True)
            points.append(row)
        plot(workload, points, args.threads, load)
        out[workload] = points
    (RESULTS / "scaling_sweep.json").write_text(json.dumps(
        {"repeat": args.repeat, "threads": args.threads, "cpus": os.cpu_count(),
         "load_average_at_start": float(load), "points": out}, indent=2) + "\n")
    print(f"wrote {RESULTS}/scaling_*.png and scaling_sweep.json")


if __name__ == "__main__":
    main()
