#!/usr/bin/env bash
# Builds ember (Release, in build-bench/ as bench/compare does) with the engine benchmarks and
# runs them all, printing one table per benchmark. Every figure is a median over repetitions
# beside a baseline measured in the same run.
# Usage: bench/engine/run.sh [--quick] [--json PATH] [--build-dir DIR] [--only NAME...]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build="${EMBER_BENCH_BUILD_DIR:-$root/build-bench}"
quick=()
json=""
only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --json) json="$2"; shift ;;
    --build-dir) build="$2"; shift ;;
    --only) only+=("$2"); shift ;;
    -h|--help) sed -n 2,5p "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

# Process isolation last: it is the newest part of the engine.
all=(expr_pipeline csv_read csv_stream_rss actor_dispatch process_actor udf_policy)
benches=("${only[@]:-${all[@]}}")
targets=()
for b in "${benches[@]}"; do targets+=("ember_bench_$b"); done

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF \
  -DEMBER_BUILD_EXAMPLES=ON -DEMBER_BUILD_BENCH=ON >/dev/null
ninja -C "$build" -j "${EMBER_BENCH_JOBS:-2}" "${targets[@]}"

json="${json:-$build/bench-engine.jsonl}"
: >"$json"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for b in "${benches[@]}"; do
  # A benchmark that hangs or runs away is cut off rather than holding the machine.
  bin="$build/bench/engine/ember_bench_$b"
  [[ -x "$bin" ]] || bin="$build/bench/$b/ember_bench_$b"
  timeout --kill-after=10 900 "$bin" "${quick[@]}" --json "$json" \
    || { echo "ember_bench_$b failed (exit $?)" >&2; status=1; }
done
echo
echo "JSON lines: $json"
exit "$status"
