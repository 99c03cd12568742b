#!/usr/bin/env bash
# Runs tests/dist/cluster_app under real mpirun and checks what happened.
#   cluster_test.sh same   APP SCENARIO NP       stdout on NP ranks == stdout without mpirun
#   cluster_test.sh run    APP SCENARIO NP RE... exits 0 on NP ranks; some output line matches
#                                                each RE
#   cluster_test.sh fails  APP SCENARIO NP RE... exits non-zero (not by the timeout); as above
#   cluster_test.sh gpu    APP                   MPMD: EMBER_GPUS=0,1 on rank 1 only
# Every mpirun is bounded by `timeout`, so a hang fails the test instead of stalling ctest.
set -uo pipefail
mode=$1 app=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/ember-cluster.XXXXXX")
trap 'rm -rf "$work"' EXIT
flags=(--oversubscribe --bind-to none)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
# Quiet the transport's start-up notices about interfaces the container lacks.
export OMPI_MCA_btl_base_warn_component_unused=0
mpi() { timeout 90 mpirun "${flags[@]}" "$@"; }

check() {  # check RC OUTPUT-FILE WANT(zero|nonzero) REGEX...
  local rc=$1 out=$2 want=$3
  shift 3
  if [[ $rc -eq 124 ]]; then echo "FAIL: mpirun did not finish within 90 s (a hang)"; cat "$out"; exit 1; fi
  if [[ $want == zero && $rc -ne 0 ]]; then echo "FAIL: exit status $rc"; cat "$out"; exit 1; fi
  if [[ $want == nonzero && $rc -eq 0 ]]; then echo "FAIL: exit status 0, expected a failure"; cat "$out"; exit 1; fi
  for re in "$@"; do
    if ! grep -Eq -- "$re" "$out"; then echo "FAIL: no output line matches /$re/"; cat "$out"; exit 1; fi
  done
  cat "$out"
}

case "$mode" in
  same)
    scenario=$3 np=$4
    "$app" "$scenario" "$work/local" >"$work/local.out" 2>"$work/local.err" || {
      echo "FAIL: the local run failed"; cat "$work/local.out" "$work/local.err"; exit 1; }
    mpi -np "$np" "$app" "$scenario" "$work/dist" >"$work/dist.out" 2>"$work/dist.err"
    rc=$?
    cat "$work/dist.err"
    if [[ $rc -ne 0 ]]; then echo "FAIL: mpirun -np $np exited $rc"; cat "$work/dist.out"; exit 1; fi
    if ! diff -u "$work/local.out" "$work/dist.out"; then
      echo "FAIL: results on $np ranks differ from the local executor's"; exit 1
    fi
    echo "identical: $(wc -l <"$work/local.out") lines on $np ranks and locally"
    ;;
  run|fails)
    scenario=$3 np=$4
    shift 4
    mpi -np "$np" "$app" "$scenario" "$work/dist" >"$work/out" 2>&1
    check $? "$work/out" "$([[ $mode == run ]] && echo zero || echo nonzero)" "$@"
    ;;
  gpu)
    # No GPUs anywhere but where -x gives them, whatever this machine has.
    export EMBER_GPUS=
    mpi -np 1 "$app" gpu "$work/dist" : -np 1 -x EMBER_GPUS=0,1 "$app" gpu "$work/dist" \
      : -np 1 "$app" gpu "$work/dist" >"$work/out" 2>&1
    check $? "$work/out" zero "on_gpu actors per rank: 0 2 0" "rank 1: 2 GPUs" \
      "on_gpu: rank 1 x2"

    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
