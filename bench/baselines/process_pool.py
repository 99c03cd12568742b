#!/usr/bin/python3
"""Python's ProcessPoolExecutor(initializer=...) on the cpu-heavy and spellcheck workloads.

The initializer builds the model once per worker process (the standard way to amortise an
expensive init in the standard library). Each timed run creates the pool (so the inits are
counted, as ember's are), maps the work, and collects every row's result in the parent.

  process_pool.py --workload cpu-heavy|spellcheck --input PATH [--workers 2] [--repeat 3]
"""
import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

import ngram_embedding
import spell_counter
from result_digest import ResultDigest, print_report
from workload_inputs import corpus_files, read_string_chunks

_model = None  # one per worker process, built by the initializer


def _init_ngram():
    global _model
    _model = ngram_embedding.make_weights()


def _score_chunk(chunk):
    ids, texts = chunk
    return ids, [ngram_embedding.score(t, _model) for t in texts]


def _init_speller():
    global _model
    _model = spell_counter.SpellCounter()


def _count_file(path):
    ids, typos = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            ids.append(doc["id"])
            typos.append(_model.count(doc["text"]))
    return ids, typos


def run_once(args):
    if args.workload == "cpu-heavy":
        tasks = read_string_chunks(args.input, args.batch_size)
        init, fn = _init_ngram, _score_chunk
    else:
        tasks = corpus_files(args.input)
        init, fn = _init_speller, _count_file
    with ProcessPoolExecutor(max_workers=args.workers, initializer=init) as pool:
        return list(pool.map(fn, tasks))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", required=True, choices=["cpu-heavy", "spellcheck"])
    p.add_argument("--input", required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=4096)
    args = p.parse_args()
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        results = run_once(args)
        times.append(time.perf_counter() - t0)
    digest = ResultDigest()
    for ids, values in results:
        for key, value in zip(ids, values):
            if args.workload == "spellcheck":
                digest.add(key, float(value), value)
            else:
                digest.add(key, value)
    print_report("python-processpool", args.workload, times, digest.as_dict())


if __name__ == "__main__":
    main()
