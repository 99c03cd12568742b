#!/usr/bin/env bash
# The main job: builds the ember library and the spellcheck example (Release; nothing else) and
# spell-checks WordNet's 117,659 glosses with a Hunspell dictionary loaded once per actor.
# Every argument goes to the example unchanged (see ./run.sh --help), e.g.
#   ./run.sh --concurrency 2 --batch-size 512 --process --corpus my-corpus/
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh --run
build=build-release
scripts/build-quietly.sh "$build" "ember and spellcheck (Release)" spellcheck \
  -- -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_BENCH=OFF \
     -DEMBER_BUILD_EXAMPLES=ON
# The corpus lives in the build tree unless --corpus names another directory.
export SPELLCHECK_CORPUS="${SPELLCHECK_CORPUS:-$build/spellcheck-corpus}"
exec "$build/examples/spellcheck/spellcheck" "$@"
