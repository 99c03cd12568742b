#!/usr/bin/env bash
# The main job: builds the ember library and the spellcheck example (Release; nothing else) and
# spell-checks WordNet's 117,659 glosses with a Hunspell dictionary loaded once per actor.
# Every argument goes to the example unchanged (see ./run.sh --help), e.g.
#   ./run.sh --concurrency 2 --batch-size 512 --process --corpus my-corpus/
# (`./run.sh --session` checks the corpus in 4 queries in one session: warm actors), except a
# leading `--ranks N`, which runs it on N MPI ranks of this machine (mpirun), e.g.
#   ./run.sh --ranks 3 --concurrency 3
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh --run
build=build-release
scripts/build-quietly.sh "$build" "ember and spellcheck (Release)" spellcheck \
  -- -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_BENCH=OFF \
     -DEMBER_BUILD_EXAMPLES=ON
# The corpus lives in the build tree unless --corpus names another directory.
export SPELLCHECK_CORPUS="${SPELLCHECK_CORPUS:-$build/spellcheck-corpus}"
ranks=1
if [[ "${1:-}" == --ranks ]]; then
  [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --ranks: expected a whole number >= 1, got '${2:-}'" >&2; exit 2; }
  ranks=$2
  shift 2
fi
if ((ranks == 1)); then
  exec "$build/examples/spellcheck/spellcheck" "$@"
fi
# The same binary on every rank: rank 0 runs the job, the others host speller actors. Ranks
# may outnumber this machine's cores (--oversubscribe); mpirun refuses root without its flag.
flags=(--oversubscribe --bind-to none)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
# The corpus path must be the same on every rank: make it absolute.
export SPELLCHECK_CORPUS="$(realpath -m "$SPELLCHECK_CORPUS")"
exec mpirun "${flags[@]}" -np "$ranks" "$build/examples/spellcheck/spellcheck" "$@"
