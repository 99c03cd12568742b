#!/usr/bin/env bash
# The main job: builds ember (Release) and spell-checks WordNet's 117,659 glosses with a
# Hunspell dictionary loaded once per actor. Extra arguments go to the example, e.g.
#   ./run.sh --concurrency 2 --batch-size 512 --process
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF >/dev/null
cmake --build build-release -j"$(nproc)" --target spellcheck
exec build-release/examples/spellcheck/spellcheck --corpus build-release/spellcheck-corpus "$@"
