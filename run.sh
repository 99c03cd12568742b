#!/usr/bin/env bash
# The main job: builds the ember library and the spellcheck example (Release; nothing else) and
# spell-checks WordNet's 117,659 glosses with a Hunspell dictionary loaded once per actor.
# Every argument goes to the example unchanged (see ./run.sh --help), e.g.
#   ./run.sh --concurrency 2 --batch-size 512 --process --corpus my-corpus/
#   ./run.sh --session                    # 4 queries in one session: warm actors
#   ./run.sh --concurrency 3 --ranks 3    # on 3 MPI ranks of this machine (mpirun)
# Paths are taken from the caller's directory; the default corpus is made on first use in
# build-release/spellcheck-corpus.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
"$root/scripts/install-deps.sh" --run
build=build-release
"$root/scripts/build-quietly.sh" "$build" "ember and spellcheck (Release)" spellcheck \
  -- -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_BENCH=OFF \
     -DEMBER_BUILD_EXAMPLES=ON
exec "$root/$build/examples/spellcheck/spellcheck" "$@"
