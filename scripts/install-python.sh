#!/usr/bin/env bash
# Builds ember's Python package and installs it into a Python environment, offline, with
# Debian's packages: after it, `import ember` works in that environment.
#   scripts/install-python.sh [--python PYTHON] [--build-dir DIR | --prebuilt DIR]
# PYTHON: the interpreter whose environment gets the package; default: the active virtual
# environment's python ($VIRTUAL_ENV), else /usr/bin/python3. A virtual environment must see
# Debian's NumPy and cloudpickle: make it with
#   /usr/bin/python3 -m venv --system-site-packages ENV
# DIR: an already configured build tree to build the package in (default: build-python, a
# Release build of the library and the package alone). --prebuilt DIR: install the package
# already built in DIR/python without building anything (the tests use it: they run while the
# build tree is in use).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: $0 [--python PYTHON] [--build-dir DIR | --prebuilt DIR]" >&2; exit 2; }
python=""
build=""
prebuilt=no
while (($#)); do
  case "$1" in
    --python) python=${2:?$(usage)}; shift 2 ;;
    --build-dir) build=${2:?$(usage)}; shift 2 ;;
    --prebuilt) build=${2:?$(usage)}; prebuilt=yes; shift 2 ;;
    *) usage ;;
  esac
done
if [[ -z "$python" ]]; then
  if [[ -n "${VIRTUAL_ENV:-}" ]]; then python="$VIRTUAL_ENV/bin/python"; else python=/usr/bin/python3; fi
fi
command -v "$python" >/dev/null || { echo "$0: no Python interpreter at $python" >&2; exit 1; }

export CCACHE_NOHASHDIR=true CCACHE_BASEDIR=
if [[ "$prebuilt" == yes ]]; then
  [[ -d "$build/python/ember" ]] || { echo "$0: no package built in $build/python" >&2; exit 1; }
elif [[ -n "$build" ]]; then
  "$root/scripts/install-deps.sh" --python
  # The tree's own configuration stands: only the package's targets are built.
  [[ -f "$build/CMakeCache.txt" ]] || { echo "$0: $build is no configured build tree" >&2; exit 1; }
  "$root/scripts/build-quietly.sh" "$build" "the Python package" ember_python
else
  "$root/scripts/install-deps.sh" --python
  build="$root/build-python"
  "$root/scripts/build-quietly.sh" "$build" "ember and its Python package (Release)" ember_python \
    -- -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF \
       -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v "$python")"
fi

# The extension is built for one Python version: refuse an interpreter of another.
built=$(ls "$build"/python/ember/_ember.*.so)
tag=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
[[ "$built" == *"$tag" ]] || {
  echo "$0: the package was built as $(basename "$built"), which $python (suffix $tag) cannot" \
       "import; give --python an interpreter of the version the build used" >&2
  exit 1
}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
mkdir -p "$site"
rm -rf "$site/ember"
cp -r "$build/python/ember" "$site/ember"
rm -rf "$site/ember/__pycache__"
(cd / && "$python" -c 'import ember; print("installed ember", ember.__version__, "into", ember.__path__[0])')
