#!/usr/bin/env bash
# Configures and builds ember targets with the compiler's output in a log file instead of the
# terminal: one progress line on stderr, and the log's tail if the build fails.
#   scripts/build-quietly.sh BUILD_DIR "what is built" TARGET... [-- CMAKE_CONFIGURE_ARGS...]
# Configure arguments apply when given or when BUILD_DIR has never been configured. ccache is
# used when it is installed. Nothing is printed when the targets are already up to date.
# The log is BUILD_DIR/build.log unless BUILD_LOG names another file.
set -euo pipefail
cd "$(dirname "$0")/.."

build=$1 label=$2
shift 2
targets=()
while (($#)) && [[ "$1" != -- ]]; do targets+=("$1"); shift; done
[[ "${1:-}" == -- ]] && shift
configure_args=("$@")
((${#targets[@]})) || { echo "usage: $0 BUILD_DIR LABEL TARGET... [-- CMAKE_ARGS...]" >&2; exit 2; }

mkdir -p "$build"
log="${BUILD_LOG:-$build/build.log}"
: >"$log"

fail() {
  echo "$1; the last 40 lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
}

if ((${#configure_args[@]})) || [[ ! -f "$build/CMakeCache.txt" ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build" -G Ninja "${launcher[@]}" "${configure_args[@]}" >>"$log" 2>&1 ||
    fail "configuring $build failed"
fi

jobs=$(nproc)
message="building $label; log: $log"
start=$SECONDS
announced=no
tty=no
[[ -t 2 ]] && tty=yes
# The message appears with the first compile or link step, so an up-to-date build says nothing;
# on a terminal it counts up in place: "... [37/93]".
set +e
cmake --build "$build" -j"$jobs" --target "${targets[@]}" 2>&1 | {
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    [[ "$line" =~ ^\[([0-9]+/[0-9]+)\]\ (Building|Linking) ]] || continue
    if [[ "$tty" == yes ]]; then
      printf '\r%s [%s]' "$message" "${BASH_REMATCH[1]}" >&2
    elif [[ "$announced" == no ]]; then
      printf '%s' "$message" >&2
    fi
    announced=yes
  done
  [[ "$announced" == yes ]]
}
statuses=("${PIPESTATUS[@]}")
set -e
status=${statuses[0]}
announced=no
((statuses[1] == 0)) && announced=yes
[[ "$tty" == yes && "$announced" == yes ]] && printf '\r\033[K%s' "$message" >&2
if ((status != 0)); then
  [[ "$announced" == yes ]] && echo ": failed" >&2
  fail "the build failed"
fi
[[ "$announced" == yes ]] && echo ": done in $((SECONDS - start)) s" >&2
exit 0
