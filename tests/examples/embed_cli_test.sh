#!/usr/bin/env bash
# The embed command line: WORK_DIR is required, each mistake is one line in the program's own
# terms (no uncaught exception, no job run in a directory named after an option), and --help
# lists every option, --ranks included.
#   embed_cli_test.sh EMBED WORK_DIR
set -uo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
# Mistakes are made from here: an option taken for WORK_DIR would leave a directory behind.
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_usage_error "ARGS" "TEXT": exit status 2, exactly one stderr line containing TEXT, no
# stdout (the job did not run) and nothing written here.
expect_usage_error() {
  local args=$1 want=$2 err out status
  # shellcheck disable=SC2086
  out=$(timeout 60 "$bin" $args 2>"$work/stderr")
  status=$?
  err=$(cat "$work/stderr")
  [[ $status -eq 2 ]] || fail "$args: exit status $status, expected 2"
  [[ $(printf '%s\n' "$err" | wc -l) -eq 1 ]] || fail "$args: not one line: $err"
  [[ "$err" == *"$want"* ]] || fail "$args: expected '$want' in: $err"
  [[ -z "$out" ]] || fail "$args: the job ran: $out"
  local written
  written=$(ls -A "$work" | grep -v '^stderr$')
  [[ -z "$written" ]] || fail "$args: wrote $written"
  rm -rf "$work"/* "$work"/.[!.]* 2>/dev/null
}
expect_usage_error "" "embed: WORK_DIR is required (see --help)"
expect_usage_error "--max-docs 5" "embed: WORK_DIR is required"
expect_usage_error "--concurrency 2 --max-docs 5" "embed: WORK_DIR is required"
expect_usage_error "out --max-docs abc" "embed: --max-docs: expected a whole number >= 1, got 'abc'"
expect_usage_error "out --max-docs 1.5" "--max-docs: expected a whole number >= 1, got '1.5'"
expect_usage_error "out --max-docs 99999999999999999999" "got '99999999999999999999' (too large)"
expect_usage_error "out --concurrency 0" "embed: --concurrency: expected a whole number >= 1, got '0'"
expect_usage_error "out --concurrency x7" "--concurrency: expected a whole number >= 1, got 'x7'"
expect_usage_error "out --max-docs" "embed: --max-docs needs a value"
expect_usage_error "out --ranks 0" "embed: --ranks: expected a whole number >= 1, got '0'"
expect_usage_error "out --no-such-option" "embed: unexpected argument --no-such-option"
expect_usage_error "out --no-such-option 3" "embed: unexpected arguments --no-such-option 3"
expect_usage_error "out stray" "embed: unexpected argument stray"

# --help: exit status 0, every option listed, nothing run.
help=$(timeout 60 "$bin" --help 2>&1)
status=$?
[[ $status -eq 0 ]] || fail "--help: exit status $status"
for option in WORK_DIR --max-docs --concurrency --ranks; do
  [[ "$help" == *"$option"* ]] || fail "--help does not list $option: $help"
done
[[ $(ls -A "$work") == "" ]] || fail "--help wrote $(ls -A "$work")"

((failures == 0)) && echo "embed command line: all checks passed"
exit $((failures > 0))
