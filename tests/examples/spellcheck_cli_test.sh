#!/usr/bin/env bash
# The spellcheck command line: each mistake is one line in the program's own terms, admission
# errors name the options to change, --corpus names an existing corpus (relative to the caller's
# directory) and wins over SPELLCHECK_CORPUS, the default corpus and scratch files live in the
# build folder, --ranks N runs on N ranks from anywhere on the line, and the summary has the
# lines README.md shows.
#   spellcheck_cli_test.sh SPELLCHECK README.md WORK_DIR BUILD_DIR HAVE_MPI(0|1)
set -uo pipefail
bin=$1 readme=$2 work=$3 build=$4 have_mpi=$5
rm -rf "$work" && mkdir -p "$work/corpus"
printf '%s\n' '{"id":1,"words":2,"text":"helo world"}' '{"id":2,"words":2,"text":"good morning"}' \
  >"$work/corpus/part-0.jsonl"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_usage_error "ARGS" "TEXT": exit status 2 and exactly one stderr line containing TEXT.
expect_usage_error() {
  local args=$1 want=$2 err status
  # shellcheck disable=SC2086
  err=$(timeout 60 "$bin" $args 2>&1 >/dev/null)
  status=$?
  [[ $status -eq 2 ]] || fail "$args: exit status $status, expected 2"
  [[ $(printf '%s\n' "$err" | wc -l) -eq 1 ]] || fail "$args: more than one line: $err"
  [[ "$err" == *"$want"* ]] || fail "$args: expected '$want' in: $err"
  [[ "$err" != *17976931348623157* ]] || fail "$args: prints a 300-digit bound: $err"
}
expect_usage_error "--concurrency 0" "spellcheck: --concurrency: expected a whole number >= 1, got '0'"
expect_usage_error "--concurrency abc" "--concurrency: expected a whole number >= 1, got 'abc'"
expect_usage_error "--concurrency 1.5" "--concurrency: expected a whole number >= 1, got '1.5'"
expect_usage_error "--concurrency 99999999999" "got '99999999999' (too large)"
expect_usage_error "--batch-size 0" "--batch-size: expected a whole number >= 1, got '0'"
expect_usage_error "--files -2" "--files: expected a whole number >= 1, got '-2'"
expect_usage_error "--cpus-per-actor -1" "--cpus-per-actor: expected a number >= 0, got '-1'"
expect_usage_error "--cpus-per-actor inf" "--cpus-per-actor: expected a number >= 0, got 'inf'"
expect_usage_error "--concurrency" "spellcheck: --concurrency needs a value"
expect_usage_error "--no-such-option" "spellcheck: unexpected argument --no-such-option"
expect_usage_error "stray words" "spellcheck: unexpected arguments stray words"
expect_usage_error "--progress=maybe" "spellcheck: --progress: 'maybe' is not a valid value"
expect_usage_error "--ranks 0" "spellcheck: --ranks: expected a whole number >= 1, got '0'"
expect_usage_error "--concurrency 2 --ranks abc" "--ranks: expected a whole number >= 1, got 'abc'"

# --corpus names an existing corpus: a missing one is a one-line error naming it, never made.
expect_usage_error "--corpus $work/no-such-corpus" "spellcheck: --corpus: "
expect_usage_error "--corpus $work/no-such-corpus" "$work/no-such-corpus"
[[ ! -e "$work/no-such-corpus" ]] || fail "--corpus $work/no-such-corpus was made"

# --help: every option, --ranks included, and the default corpus in the build folder.
help=$("$bin" --help 2>&1)
status=$?
[[ $status -eq 0 ]] || fail "--help: exit status $status"
for option in --concurrency --batch-size --cpus-per-actor --corpus --files --wordnet --dict --out \
              --process --session --progress --ranks; do
  [[ "$help" == *"$option"* ]] || fail "--help does not list $option"
done
[[ "$help" == *"$build/spellcheck-corpus"* ]] || fail "--help does not name the default corpus $build/spellcheck-corpus"

# A relative --corpus is taken from the caller's directory.
(cd "$work" && "$bin" --corpus corpus --concurrency 1 --no-progress >/dev/null 2>"$work/stderr")
status=$?
[[ $status -eq 0 ]] || fail "relative --corpus: exit status $status: $(tail -n 3 "$work/stderr")"
grep -q "JsonlScan corpus/\*.jsonl" "$work/stderr" || fail "relative --corpus: not the caller's corpus/"

# Admission: the advice names the command-line options, not the C++ setters.
err=$("$bin" --corpus "$work/corpus" --concurrency 2 --cpus-per-actor 100000 2>&1 >/dev/null)
status=$?
last=$(printf '%s\n' "$err" | tail -n 1)
[[ $status -eq 1 ]] || fail "admission: exit status $status, expected 1"
[[ "$last" == "spellcheck: udf 'speller' asks for 2 actors x 100000 CPU = 200000 CPUs, but "* ]] ||
  fail "admission: unexpected message: $last"
[[ "$last" == *"; lower --concurrency or --cpus-per-actor" ]] ||
  fail "admission: the advice does not name --concurrency and --cpus-per-actor: $last"
[[ "$last" != *".num_cpus()"* && "$last" != *".concurrency()"* ]] ||
  fail "admission: the advice names C++ setters: $last"

# A default corpus (SPELLCHECK_CORPUS) that cannot be made from WordNet: one line naming the
# file, no abort.
err=$(SPELLCHECK_CORPUS="$work/new-corpus" "$bin" --wordnet "$work/no-wordnet" 2>&1 >/dev/null)
status=$?
[[ $status -eq 1 ]] || fail "--wordnet missing: exit status $status, expected 1"
[[ "$err" == "spellcheck: cannot read $work/no-wordnet/data.noun (install Debian's wordnet-base)" ]] ||
  fail "--wordnet missing: unexpected message: $err"

# SPELLCHECK_CORPUS moves the default corpus; --corpus still wins over it, and may come twice.
out=$(SPELLCHECK_CORPUS="$work/elsewhere" "$bin" --corpus "$work/corpus" --corpus "$work/corpus" \
        --concurrency 1 --no-progress 2>"$work/stderr")
status=$?
[[ $status -eq 0 ]] || fail "--corpus with SPELLCHECK_CORPUS set: exit status $status: $(tail -n 3 "$work/stderr")"
grep -q "JsonlScan $work/corpus/\*.jsonl" "$work/stderr" || fail "--corpus did not win over SPELLCHECK_CORPUS"
[[ ! -e "$work/elsewhere" ]] || fail "SPELLCHECK_CORPUS was used although --corpus was given"

# The summary has exactly the lines of README.md's sample summary, in its order.
readme_labels=$(awk '/^```/{inside=!inside; next} inside && /^documents processed/{found=1}
                     found && inside {print} found && !inside {exit}' "$readme" |
                sed -E 's/  .*//; s/ [0-9].*//')
summary_labels=$(printf '%s\n' "$out" | sed -n '/^documents processed/,$p' | sed -E 's/  .*//; s/ [0-9].*//')
[[ -n "$readme_labels" ]] || fail "README.md has no sample summary starting 'documents processed'"
[[ "$readme_labels" == "$summary_labels" ]] ||
  fail "README.md's sample summary lines differ from the program's:
README: $(echo $readme_labels)
program: $(echo $summary_labels)"

# --session: four queries in one session load each dictionary once for the whole run. Its
# scratch directory (links to each quarter's files) is under the build folder, and removed.
mkdir -p "$work/corpus4"
for k in 0 1 2 3; do
  printf '{"id":%d,"words":2,"text":"helo world"}\n' "$k" >"$work/corpus4/part-$k.jsonl"
done
rm -rf "$build/spellcheck-tmp"
out=$("$bin" --corpus "$work/corpus4" --concurrency 2 --session --no-progress 2>"$work/stderr")
status=$?
[[ $status -eq 0 ]] || fail "--session: exit status $status: $(tail -n 3 "$work/stderr")"
[[ "$out" == *"inits == concurrency  yes (2 == 2)"* ]] || fail "--session: inits != concurrency: $out"
[[ "$out" == *"documents processed   4 in 4 queries, one session"* ]] ||
  fail "--session: not every document was checked: $out"
[[ -d "$build/spellcheck-tmp" ]] || fail "--session: no scratch directory under $build/spellcheck-tmp"
[[ -z "$(ls -A "$build/spellcheck-tmp" 2>/dev/null)" ]] ||
  fail "--session: scratch files left in $build/spellcheck-tmp: $(ls -A "$build/spellcheck-tmp")"

# --ranks N anywhere on the line: the job runs on N ranks (mpirun), each checking its share.
if [[ "$have_mpi" == 1 ]] && command -v mpirun >/dev/null; then
  out=$(OMPI_MCA_btl_base_warn_component_unused=0 timeout 120 \
          "$bin" --corpus "$work/corpus4" --ranks 2 --concurrency 2 --no-progress \
          2>"$work/stderr")
  status=$?
  [[ $status -eq 0 ]] || fail "--ranks 2: exit status $status: $(tail -n 3 "$work/stderr")"
  [[ "$out" == *"inits per rank"* ]] || fail "--ranks 2: not run on 2 ranks: $out"
  [[ "$out" == *"documents processed   4"* ]] || fail "--ranks 2: not every document: $out"
else
  echo "no MPI runner: --ranks 2 not run"
fi

((failures == 0)) && echo "spellcheck command line: all checks passed"
exit $((failures > 0))
