#!/usr/bin/env bash
# Builds and installs the ember library alone: headers, libember.a and the CMake package config,
# without tests, examples or benchmarks (a Release build in build-install/). Then, in a project
# of yours, find_package(ember CONFIG REQUIRED) finds it with -DCMAKE_PREFIX_PATH=DIR.
#   scripts/install.sh --prefix DIR [--build-dir DIR] [--no-deps]
#   scripts/install.sh --deb [--build-dir DIR] [--no-deps]    a Debian package, libember-dev
# --build-dir installs from another build tree as it is configured, e.g. the build/ that
# ./test.sh made: nothing is rebuilt there.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: $0 --prefix DIR | --deb  [--build-dir DIR] [--no-deps]" >&2
  exit 2
}
prefix="" deb=no deps=yes build=build-install
while (($#)); do
  case "$1" in
    --prefix) (($# >= 2)) || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --build-dir) (($# >= 2)) || usage; build=$2; shift 2 ;;
    --build-dir=*) build=${1#--build-dir=}; shift ;;
    --deb) deb=yes; shift ;;
    --no-deps) deps=no; shift ;;
    *) usage ;;
  esac
done
[[ -n "$prefix" || "$deb" == yes ]] || usage
[[ "$deps" == no ]] || scripts/install-deps.sh --library

configure=()
if [[ ! -f "$build/CMakeCache.txt" || "$build" == build-install ]]; then
  configure=(-- -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF
             -DEMBER_BUILD_BENCH=OFF -DEMBER_INSTALL=ON)
fi
# A log of its own, so that installing from build/ keeps the log of the build ./test.sh ran.
log="$build/install.log"
BUILD_LOG="$log" scripts/build-quietly.sh "$build" "the ember library" ember "${configure[@]}"

if [[ -n "$prefix" ]]; then
  cmake --install "$build" --prefix "$prefix" >>"$log"
  prefix=$(cd "$prefix" && pwd)
  echo "installed ember into $prefix; in your project's CMakeLists.txt:" >&2
  echo "  find_package(ember CONFIG REQUIRED)" >&2
  echo "  target_link_libraries(app PRIVATE ember::ember)" >&2
  echo "and configure it with -DCMAKE_PREFIX_PATH=$prefix" >&2
fi
if [[ "$deb" == yes ]]; then
  (cd "$build" && cpack -G DEB -B "$PWD/package") >>"$log" 2>&1 || {
    echo "cpack failed; the last 40 lines of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  }
  deb=$(ls "$build"/package/*.deb)
  [[ "$deb" == /* ]] || deb="./$deb"  # apt takes a path, not a bare file name
  echo "built $deb; install it with: sudo apt install $deb" >&2
fi
