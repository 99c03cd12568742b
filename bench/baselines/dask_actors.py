#!/usr/bin/python3
"""Dask distributed actors on the cpu-heavy and spellcheck workloads.

A LocalCluster of `workers` single-threaded worker processes; one actor per worker
(client.submit(Cls, actor=True, workers=[address])) builds the model once, then every chunk or
file is sent to the actors round-robin and the results gathered in the client. Starting the
cluster is not timed (it is reported in the notes); creating the actors is.

  dask_actors.py --workload cpu-heavy|spellcheck --input PATH [--workers 2] [--repeat 3]
"""
import argparse
import json
import os
import sys
import time

import ngram_embedding
import spell_counter
from result_digest import ResultDigest, print_report
from workload_inputs import corpus_files, read_string_chunks


class NgramActor:
    def __init__(self):
        self.weights = ngram_embedding.make_weights()

    def run(self, chunk):
        ids, texts = chunk
        return ids, [ngram_embedding.score(t, self.weights) for t in texts]


class SpellActor:
    def __init__(self):
        self.counter = spell_counter.SpellCounter()

    def run(self, path):
        ids, typos = [], []
        with open(path, encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                ids.append(doc["id"])
                typos.append(self.counter.count(doc["text"]))
        return ids, typos


def run_once(client, args):
    if args.workload == "cpu-heavy":
        tasks, cls = read_string_chunks(args.input, args.batch_size), NgramActor
    else:
        tasks, cls = corpus_files(args.input), SpellActor
    addresses = sorted(client.scheduler_info()["workers"])
    actors = [client.submit(cls, actor=True, workers=[a]).result() for a in addresses]
    futures = [actors[i % len(actors)].run(t) for i, t in enumerate(tasks)]
    results = [f.result() for f in futures]
    del actors, futures
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", required=True, choices=["cpu-heavy", "spellcheck"])
    p.add_argument("--input", required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=4096)
    args = p.parse_args()
    # Worker processes import this folder's modules by name.
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = here + os.pathsep + os.environ.get("PYTHONPATH", "")
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.wait_for_workers(args.workers, timeout=120)
        startup = time.perf_counter() - t0
        times = []
        for _ in range(args.repeat):
            t1 = time.perf_counter()
            results = run_once(client, args)
            times.append(time.perf_counter() - t1)
    digest = ResultDigest()
    for ids, values in results:
        for key, value in zip(ids, values):
            if args.workload == "spellcheck":
                digest.add(key, float(value), value)
            else:
                digest.add(key, value)
    print_report("dask-actors", args.workload, times, digest.as_dict(),
                 f"cluster start {startup:.2f} s, not timed")


if __name__ == "__main__":
    sys.exit(main())
