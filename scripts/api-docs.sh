#!/usr/bin/env bash
# Builds the API reference (HTML) from the public headers with doxygen (docs/Doxyfile). Any
# doxygen warning fails it, a public name without a /// comment among them, and so does an
# enum value or concept without one (scripts/api_docs_check.py: doxygen does not warn of
# those); CI runs it.
#   scripts/api-docs.sh            into build/api-reference/html
#   scripts/api-docs.sh OUT_DIR    into OUT_DIR/html
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/build/api-reference}")  # before the cd: relative to the caller
cd "$root"
{ command -v doxygen && [[ -x /usr/bin/python3 ]]; } >/dev/null || scripts/install-deps.sh --docs

# A page of a name that lost its comment must not survive from an earlier run.
rm -rf "$out/html" "$out/xml"
mkdir -p "$out"
version=$(sed -nE 's/^project\(ember VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
# Later settings win: the output folder and the version come from here, the rest from the file.
if ! { cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = \"$out\""; echo "PROJECT_NUMBER = $version"; } |
    doxygen -; then
  echo "api-docs: fix the doxygen warnings above (an undocumented name needs a /// comment)" >&2
  exit 1
fi
if ! /usr/bin/python3 scripts/api_docs_check.py "$out/xml"; then
  echo "api-docs: give the names above a /// (or ///<) comment" >&2
  exit 1
fi
echo "api-docs: $out/html/index.html"
