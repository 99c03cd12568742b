#!/usr/bin/env bash
# Builds ember, its tests, examples and benchmarks, and runs every test.
#   ./test.sh [--asan|--tsan] [-DOPTION=VALUE...]
# Extra -D options go to CMake (CI adds -DEMBER_WERROR=ON). The compiler's output goes to
# BUILD/build.log; ccache is used when it is installed, so a second run rebuilds little.
set -euo pipefail
cd "$(dirname "$0")"
usage() { echo "usage: $0 [--asan|--tsan] [-DOPTION=VALUE...]" >&2; exit 2; }
scripts/install-deps.sh
build=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
case "${1:-}" in
  # Sanitizer builds test the library; benchmarks and examples build in the plain run.
  --asan) build=build-asan; flags+=(-DEMBER_ASAN=ON -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF)
          shift ;;
  --tsan) build=build-tsan; flags+=(-DEMBER_TSAN=ON -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF)
          shift ;;
esac
for arg in "$@"; do [[ "$arg" == -D* ]] || usage; done
# ccache keys that do not depend on the build directory: the add_subdirectory install test then
# compiles ember's sources with this build's commands from its own directory and hits the cache.
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR=
# Options a previous run gave (-DEMBER_WERROR=ON) do not stick in the cache unless given again.
scripts/build-quietly.sh "$build" "ember with its tests" all \
  -- "${flags[@]}" -DEMBER_WERROR=OFF -DEMBER_NPM_DIR="$PWD/.cache/npm" "$@"
cd "$build" && ctest --output-on-failure -j"$(nproc)"
