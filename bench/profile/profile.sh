#!/usr/bin/env bash
# Profiles one bench/compare workload on ember and on the hand-written C++ limit and attributes
# their CPU time to pipeline stages (CSV read, filter, projection, gather/dispatch, UDF,
# join-back, CSV write): `perf record -g` with DWARF call stacks, then perf_stages.py.
# Usage: bench/profile/profile.sh [--workload pipeline|cpu-heavy] [--repeat N] [--out DIR]
# Writes, per system, perf.data, report.txt (`perf report --stdio`), stacks.folded (for a flame
# graph) and stages.md; prints both stage tables. Needs linux-perf (Debian) and a build-bench/
# from bench/compare (run it once first); inputs are bench/compare --quick's. Without a working
# `perf record` (no perf_event access) it falls back to `valgrind --tool=callgrind`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build="${EMBER_BENCH_BUILD_DIR:-$root/build-bench}"
workload=pipeline
repeat=3
out="$build/profile"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --workload) workload="$2"; shift ;;
    --repeat) repeat="$2"; shift ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

bin="$build/bench/workloads"
data="$build/compare-data"
case "$workload" in
  pipeline) input="$data/pipeline-200MB.csv"; extra=(--out "$out/csv-out") ;;
  cpu-heavy) input="$data/strings-200000.csv"; extra=(--split-bytes $((4 << 20))) ;;
  *) echo "workload must be pipeline or cpu-heavy" >&2; exit 2 ;;
esac
[[ -f "$input" ]] || { echo "missing $input: run bench/compare --quick once" >&2; exit 1; }
command -v perf >/dev/null || apt-get install -y linux-perf >/dev/null || true

mkdir -p "$out"
for system in ember cpp-limit; do
  dir="$out/$workload-$system"
  mkdir -p "$dir"
  if [[ $system == ember ]]; then
    cmd=("$bin/compare_ember")
  else
    cmd=("$bin/compare_cpp" --strategy limit)
  fi
  cmd+=(--workload "$workload" --workers 2 --input "$input" --repeat "$repeat" "${extra[@]}")
  if perf record -F 999 --call-graph dwarf,16384 -o "$dir/perf.data" -- "${cmd[@]}" \
    >"$dir/run.json" 2>"$dir/perf.log"; then
    perf report -i "$dir/perf.data" --stdio --no-children --sort dso,sym 2>/dev/null \
      >"$dir/report.txt"
    perf script -i "$dir/perf.data" 2>/dev/null \
      | "$root/bench/profile/perf_stages.py" --folded "$dir/stacks.folded" >"$dir/stages.md"
  else
    echo "perf record failed ($(tail -1 "$dir/perf.log")); using callgrind" >&2
    valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "${cmd[@]}" \
      >"$dir/run.json" 2>"$dir/valgrind.log"
    callgrind_annotate --inclusive=yes "$dir/callgrind.out" >"$dir/report.txt"
    echo "(callgrind: see report.txt, inclusive instruction counts)" >"$dir/stages.md"
  fi
  echo "== $workload on $system: $(head -c 120 "$dir/run.json")"
  cat "$dir/stages.md"
  echo
done
