#!/usr/bin/env bash
# Checks that every C++ file in the repository follows .clang-format (clang-format 14, the
# version Debian 12 ships, so that the result does not depend on who runs it).
#   scripts/check-format.sh        report the files that differ; exit 1 if any does
#   scripts/check-format.sh --fix  rewrite them in place
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --format
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp')
if [[ "${1:-}" == --fix ]]; then
  clang-format-14 -i "${files[@]}"
  exit 0
fi
if ! clang-format-14 --dry-run -Werror "${files[@]}"; then
  echo "check-format: the files above differ from .clang-format; scripts/check-format.sh --fix" \
       "rewrites them" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
