#!/usr/bin/env bash
# Builds ember and runs every test. Usage: ./test.sh [--asan|--tsan]
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
build=build
flags=()
case "${1:-}" in
  # Sanitizer builds test the library; benchmarks and examples build in the plain run.
  --asan) build=build-asan; flags=(-DEMBER_ASAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
                                   -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF) ;;
  --tsan) build=build-tsan; flags=(-DEMBER_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
                                   -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF) ;;
  "") flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  *) echo "usage: $0 [--asan|--tsan]" >&2; exit 2 ;;
esac
cmake -S . -B "$build" -G Ninja "${flags[@]}" -DEMBER_NPM_DIR="$PWD/.cache/npm" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build" && ctest --output-on-failure -j"$(nproc)"
