#!/usr/bin/env bash
# Soak test: queries in a loop from several threads with a UDF whose worker crashes at random,
# and writers SIGKILLed at random; after each step the outputs must be the old or the new
# complete set, and no process or shared-memory region may leak.
#   scripts/soak.sh [--minutes N] [--threads T] [--crash-per-mille P]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=10
args=()
while (($#)); do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --threads|--crash-per-mille) args+=("$1" "$2"); shift 2 ;;
    *) echo "usage: $0 [--minutes N] [--threads T] [--crash-per-mille P]" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_NPM_DIR="$PWD/.cache/npm" >/dev/null
cmake --build build -j"$(nproc)" --target ember_soak >/dev/null
exec build/tests/soak/ember_soak --seconds $((minutes * 60)) "${args[@]}"
