#!/usr/bin/env bash
# Builds consumer/ (an outside project) against ember one supported way and runs it, or checks
# that embedding ember leaves a parent project's cache alone.
#   consumer_test.sh find_package|deb_package|add_subdirectory|parent_cache WORK_DIR
# The environment (set by tests/install/CMakeLists.txt) names the trees and compiler settings.
set -euo pipefail
check=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
launcher=()
[[ -n "${CXX_LAUNCHER:-}" ]] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$CXX_LAUNCHER")

# build_consumer BUILD_DIR CMAKE_ARGS...: configures, builds and runs consumer/.
build_consumer() {
  local dir=$1
  shift
  cmake -S "$CONSUMER_SOURCE_DIR" -B "$dir" -G "$CMAKE_GENERATOR" -DCMAKE_CXX_COMPILER="$CXX" \
    "${launcher[@]}" "$@" >"$dir.log" 2>&1 || { cat "$dir.log"; return 1; }
  cmake --build "$dir" -j2 >>"$dir.log" 2>&1 || { tail -n 40 "$dir.log"; return 1; }
  "$dir/consumer"
}

case "$check" in
  find_package)
    # The documented route, on this build tree: nothing is compiled again.
    "$EMBER_SOURCE_DIR/scripts/install.sh" --no-deps --build-dir "$EMBER_BUILD_DIR" \
      --prefix "$work/prefix" 2>"$work/install.log" || { cat "$work/install.log"; exit 1; }
    if grep -q "Building\|Linking" "$EMBER_BUILD_DIR/install.log"; then
      echo "install.sh compiled something:"; cat "$EMBER_BUILD_DIR/install.log"; exit 1
    fi
    # The library alone: headers, the archive, the package config.
    unexpected=$(cd "$work/prefix" && find . -type f | grep -v -E \
      '^\./include/ember/[a-z_]+\.h$|^\./lib/libember\.a$|^\./lib/cmake/ember/ember[A-Za-z-]*\.cmake$' || true)
    [[ -z "$unexpected" ]] || { echo "install.sh installed more than the library: $unexpected"; exit 1; }
    build_consumer "$work/consumer" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
      -DCMAKE_PREFIX_PATH="$work/prefix"
    # Without simdjson's CMake package the error names the Debian package to install.
    if cmake -S "$CONSUMER_SOURCE_DIR" -B "$work/no-simdjson" -G "$CMAKE_GENERATOR" \
         -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON \
         >"$work/no-simdjson.log" 2>&1; then
      echo "configuring without simdjson succeeded"; exit 1
    fi
    grep -q "install libsimdjson-dev" "$work/no-simdjson.log" ||
      { echo "no hint at libsimdjson-dev:"; cat "$work/no-simdjson.log"; exit 1; }
    ;;
  deb_package)
    # cpack packs this build tree's install rules; dpkg-deb -x unpacks the package as dpkg -i
    # would lay it out under /, without needing root or touching the system.
    (cd "$EMBER_BUILD_DIR" && cpack -G DEB -B "$work/package") >"$work/cpack.log" 2>&1 ||
      { cat "$work/cpack.log"; exit 1; }
    deb=$(ls "$work"/package/*.deb)
    [[ "$(dpkg-deb -f "$deb" Package)" == libember-dev ]] || { echo "package name"; exit 1; }
    dpkg-deb -f "$deb" Depends | grep -q libsimdjson-dev ||
      { echo "the package does not depend on libsimdjson-dev"; exit 1; }
    dpkg-deb -c "$deb" >"$work/contents"
    for f in ./usr/include/ember/ember.h ./usr/lib/libember.a ./usr/lib/cmake/ember/emberConfig.cmake \
             ./usr/lib/cmake/ember/emberTargets.cmake; do
      grep -q " $f\$" "$work/contents" || { echo "$f is not in the package:"; cat "$work/contents"; exit 1; }
    done
    dpkg-deb -x "$deb" "$work/root"
    build_consumer "$work/consumer" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
      -DCMAKE_PREFIX_PATH="$work/root/usr"
    ;;
  add_subdirectory)
    # This build's type, compiler and options: the same compile commands, hence ccache hits.
    # shellcheck disable=SC2086
    build_consumer "$work/consumer" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
      -DEMBER_SOURCE_DIR="$EMBER_SOURCE_DIR" $EMBER_FLAGS
    ;;
  parent_cache)
    # The same parent configured without and with ember, build type left empty: ember may add
    # its own EMBER_* options and its dependencies' *_DIR entries, and change nothing else.
    for with in OFF ON; do
      # (CMake would take a build type from the environment as well.)
      env -u CMAKE_BUILD_TYPE cmake -S "$PARENT_SOURCE_DIR" -B "$work/$with" -G "$CMAKE_GENERATOR" -DCMAKE_CXX_COMPILER="$CXX" \
        -DWITH_EMBER=$with -DEMBER_SOURCE_DIR="$EMBER_SOURCE_DIR" >"$work/$with.log" 2>&1 ||
        { cat "$work/$with.log"; exit 1; }
      cmake -N -LA "$work/$with" | grep -v -E '^WITH_EMBER:|^EMBER_SOURCE_DIR:' | sort >"$work/$with.cache"
    done
    grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$work/ON.cache" ||
      { echo "the parent's CMAKE_BUILD_TYPE changed:"; grep '^CMAKE_BUILD_TYPE' "$work/ON.cache"; exit 1; }
    changed=$(comm -23 "$work/OFF.cache" "$work/ON.cache")
    [[ -z "$changed" ]] || { echo "add_subdirectory(ember) changed the parent's cache entries:"; echo "$changed"
                             echo "now:"; comm -13 "$work/OFF.cache" "$work/ON.cache"; exit 1; }
    added=$(comm -13 "$work/OFF.cache" "$work/ON.cache" | grep -v -E '^EMBER_[A-Z_]+:|^[A-Za-z0-9]+_DIR:PATH=' || true)
    [[ -z "$added" ]] || { echo "add_subdirectory(ember) added cache entries not prefixed EMBER_:"; echo "$added"; exit 1; }
    for option in EMBER_BUILD_TESTS EMBER_BUILD_EXAMPLES EMBER_BUILD_BENCH EMBER_INSTALL; do
      grep -q "^$option:BOOL=OFF\$" "$work/ON.cache" ||
        { echo "$option is not OFF in a parent project:"; grep "^$option" "$work/ON.cache"; exit 1; }
    done
    ;;
  *) echo "unknown check $check"; exit 2 ;;
esac
# Passed (every failure above exits): the work tree goes, so that a sanitizer build's copies of
# the library and a second build of ember do not fill the disk. A failure keeps it to look at.
rm -rf "$work"
echo "install.$check: passed"
