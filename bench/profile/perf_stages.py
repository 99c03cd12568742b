#!/usr/bin/python3
"""Folds `perf script` call stacks and attributes each sample to a pipeline stage.

  perf script -i perf.data | bench/profile/perf_stages.py --folded out.folded

Prints a markdown table (stage, samples, share of CPU) on stdout. A sample belongs to the
first stage, in the order of STAGES, whose pattern matches any frame of its stack: the UDF's
own frames win over the actor pool that called it, the pool stage's over the driver, and so on.
The folded file (one `frame;frame;... count` line per distinct stack, root first) feeds any
flame-graph renderer.
"""
import argparse
import collections
import re
import sys

STAGES = [
    ("UDF (the n-gram score itself)", r"NgramEmbedding::(score|operator\(\))|crc32|UdfHolder<"),
    ("join-back (results to passthrough columns)", r"PoolStage::(next_ready|assemble|complete)"),
    ("gather/dispatch (pool stage, actor hand-off)",
     r"PoolStage::|ActorPool|ThreadActor|ActorPoolOperator|call_udf|UdfCall"),
    ("filter", r"FilterOperator|Batch::filter|Column::filter"),
    ("projection", r"ProjectOperator|FusedProgram"),
    ("CSV write", r"CsvWriter|FileSink|AtomicFile|write_csv|open_partition_writer"),
    ("CSV read", r"Csv|csv_|ChunkedFile|index_plain_records|FileScanSource|read_csv"),
    ("driver, scheduler (moving batches between operators)", r"PartitionDriver|TaskScheduler"),
    ("result check (outside the timed runs)", r"digest_pipeline_output|ResultDigest"),
    # The hand-written limit program: one function per step, for its own table.
    ("C++ limit: read", r"read_range"),
    ("C++ limit: parse, filter, project, format, write", r"cpp_pipeline|process_line"),
]


def samples(lines):
    """Yields each sample's frames, leaf first, as bare function names."""
    frames = []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if frames:
                yield frames
            frames = []
            continue
        if line[0] not in " \t":
            frames = []  # the sample's header line
            continue
        parts = line.strip().split(" ", 1)
        if len(parts) == 2:
            name = re.sub(r"\+0x[0-9a-f]+ .*$| \(.*\)$", "", parts[1])
            frames.append(name)
    if frames:
        yield frames


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--folded", help="write folded stacks here")
    args = p.parse_args()
    rules = [(name, re.compile(pat)) for name, pat in STAGES]
    by_stage = collections.Counter()
    folded = collections.Counter()
    total = 0
    for frames in samples(sys.stdin):
        total += 1
        folded[";".join(reversed(frames))] += 1
        stage = "other (kernel, allocator, startup)"
        for name, rx in rules:
            if any(rx.search(f) for f in frames):
                stage = name
                break
        by_stage[stage] += 1
    if args.folded:
        with open(args.folded, "w") as f:
            for stack, n in folded.most_common():
                f.write(f"{stack} {n}\n")
    print("| stage | samples | share of CPU |")
    print("|---|---|---|")
    for stage, n in by_stage.most_common():
        print(f"| {stage} | {n} | {100.0 * n / max(total, 1):.1f}% |")
    print(f"| total | {total} | 100% |")


if __name__ == "__main__":
    main()
