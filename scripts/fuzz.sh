#!/usr/bin/env bash
# Fuzzes ember's readers with libFuzzer (clang 14, AddressSanitizer + UBSan), in build-fuzz/.
#   scripts/fuzz.sh                           each target for 1 minute
#   scripts/fuzz.sh --minutes 30              each target for 30 minutes
#   scripts/fuzz.sh --seconds 60 --target csv_reader --jobs 2
# Targets (tests/fuzz/<target>_fuzz.cpp): csv_reader, jsonl_reader, csv_split_equivalence.
# Each run starts from tests/fuzz/corpus/<target>/, copied into build-fuzz/corpus/<target>/,
# which keeps what the fuzzer learns from run to run; nothing is written into the source tree.
# Exits non-zero when any target found a crash, leak, UB, hang or out-of-memory, printing the
# reproducer and the command that replays it. A fixed finding goes, minimized, into
# tests/fuzz/regressions/<target>/, which every build's ctest replays from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(csv_reader jsonl_reader csv_split_equivalence parquet_reader arrow_reader)
seconds=60
jobs=1
targets=()
usage() {
  echo "usage: $0 [--minutes N | --seconds S] [--target NAME]... [--jobs 1|2]" >&2
  echo "targets: ${all_targets[*]}" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --minutes) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; seconds=$(($2 * 60)); shift 2 ;;
    --seconds) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; seconds=$2; shift 2 ;;
    --target) [[ " ${all_targets[*]} " == *" ${2:-} "* ]] || usage; targets+=("$2"); shift 2 ;;
    --jobs) [[ "${2:-}" =~ ^[12]$ ]] || usage; jobs=$2; shift 2 ;;
    -h | --help) usage ;;
    *) usage ;;
  esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")
((seconds > 0)) || usage

scripts/install-deps.sh --fuzz
build=build-fuzz
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  "${launcher[@]}" -DEMBER_FUZZ=ON -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_BENCH=OFF \
  -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
binaries=()
for t in "${targets[@]}"; do binaries+=("${t}_fuzz"); done
cmake --build "$build" -j"$(nproc)" --target "${binaries[@]}"

# A UB report must stop the input with a stack, as an ASan report does.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=()
for t in "${targets[@]}"; do
  binary="$PWD/$build/tests/fuzz/${t}_fuzz"
  corpus="$PWD/$build/corpus/$t"
  findings="$PWD/$build/findings/$t"
  logs="$PWD/$build/logs/$t"
  mkdir -p "$corpus" "$findings" "$logs"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/  # the fuzzer's own additions have hash names
  if [[ "$t" == parquet_reader ]]; then
    # Other writers' files too (apache/parquet-testing, nested and malformed ones included):
    # those that fit in -max_len below.
    find tests/data/parquet-testing -name '*.parquet' -size -4097c \
      -exec sh -c 'for f; do cp "$f" "$0/pt-$(basename "$(dirname "$f")")-$(basename "$f")"; done' \
      "$corpus" {} +
  fi
  dict="$PWD/tests/fuzz/dict/csv.dict"
  [[ "$t" == jsonl_* ]] && dict="$PWD/tests/fuzz/dict/json.dict"
  marker="$logs/started"
  touch "$marker"
  # -max_len: a settings byte and a file of up to 4 KiB (up to 256 splits) keep runs fast;
  # -timeout: an input that takes 10 s under the sanitizers is a hang.
  args=(-max_total_time="$seconds" -timeout=10 -max_len=4097 -dict="$dict"
        -artifact_prefix="$findings/" -print_final_stats=1)
  reports=("$logs/fuzz.log")
  if ((jobs > 1)); then
    args+=(-jobs="$jobs" -workers="$jobs")
    rm -f "$logs"/fuzz-*.log
    reports=("$logs"/fuzz-{0..1}.log)  # one per job, in the working directory
    reports=("${reports[@]:0:jobs}")
  fi
  echo "== $t: ${seconds}s, $jobs job(s), log in $logs/" >&2
  rc=0
  (cd "$logs" && "$binary" "${args[@]}" "$corpus" >"$logs/fuzz.log" 2>&1) || rc=$?
  grep -hE '^(Done|stat::peak_rss_mb)' "${reports[@]}" >&2 2>/dev/null || true
  mapfile -t found < <(find "$findings" -type f -newer "$marker" | sort)
  if ((rc != 0 || ${#found[@]})); then
    failed+=("$t")
    echo "!! $t: libFuzzer exited with status $rc; the end of its report:" >&2
    tail -n 60 "${reports[@]}" >&2
    for f in "${found[@]}"; do
      echo "!! reproducer: $f" >&2
      echo "   rerun:    $binary $f" >&2
      echo "   minimize: $binary -minimize_crash=1 -max_total_time=60 -exact_artifact_path=$f.min $f" >&2
      echo "   keep it:  cp $f.min tests/fuzz/regressions/$t/<what-it-shows>" >&2
    done
  fi
done
if ((${#failed[@]})); then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing found nothing in: ${targets[*]}" >&2
