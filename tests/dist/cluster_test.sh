#!/usr/bin/env bash
# Runs tests/dist/cluster_app under real mpirun and checks what happened.
#   cluster_test.sh same   APP SCENARIO NP       stdout on NP ranks == stdout without mpirun
#   cluster_test.sh run    APP SCENARIO NP RE... exits 0 on NP ranks; some output line matches
#                                                each RE
#   cluster_test.sh fails  APP SCENARIO NP RE... exits non-zero (not by the timeout); as above
#   cluster_test.sh gpu    APP                   MPMD: EMBER_GPUS=0,1 on rank 1 only
#   cluster_test.sh straggler APP RE...          MPMD: scenario `straggler` on 3 ranks, rank 2
#                                                alone with EMBER_TEST_SLOW_RANK_FACTOR=5 (its UDF
#                                                calls 5 times as slow); as `run` above
#   cluster_test.sh straggler0 APP RE...         the same with rank 0 the slow one
#   cluster_test.sh resume_breaker APP NP RE...  the same for scenario `resume_breaker`
#   cluster_test.sh resume_join APP NP RE...     the same for scenario `resume_join`
#   cluster_test.sh resume APP NP RE...       scenario `resume` on 3 ranks with rank 2 killed
#                                                (it must fail), then again on NP ranks (1:
#                                                without mpirun), which must exit 0; as `run`
#   cluster_test.sh killloop APP KILLS RE...     scenario `resume_loop` run again and again, on 3
#                                                ranks and on 2 by turns, a worker rank SIGKILLed
#                                                at a random moment in each, until KILLS kills
#                                                (a job that completes first is checked with
#                                                `resume_loop_check` and the next starts afresh);
#                                                then to completion on 2 ranks, which must exit 0,
#                                                and checked; as `run`. Each kill must lose at
#                                                most the rows of 4 partitions per rank (those
#                                                the UDF computed that no journaled piece holds)
#   cluster_test.sh killroot APP WHICH RE...     scenario `resume_loop` on 3 ranks with rank 0
#                                                (WHICH=rank0) or mpirun itself (WHICH=mpirun)
#                                                SIGKILLed once 3 pieces are journaled; then on 2
#                                                ranks to completion and the check; as `run`
#   cluster_test.sh s3 APP NPM_DIR SERVER_JS RE...  scenario `s3_write` on 3 ranks against the
#                                                test S3 server (SERVER_JS, on loopback, bucket
#                                                `data`), its endpoint and keys in the
#                                                environment; as `run`, then no multipart upload
#                                                may be left open. Exits 77 (skipped) without
#                                                npm's s3rver in NPM_DIR
#   cluster_test.sh stopped APP LIMIT RE...      3 ranks, EMBER_RANK_TIMEOUT_S=LIMIT; rank 2 gets
#                                                SIGSTOP once its job runs: the job must end
#                                                non-zero within LIMIT + 30 s; as `fails` above
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

kill_tree() {  # kill_tree PID: it and every process below it, SIGKILL
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill -9 "$1" 2>/dev/null
}

# wait_ranks JOB NP: waits for the background job JOB (an `mpi` of NP ranks, each of which
# wrote its pid to $work/pids/rankR) and sets rc to its exit status. The ranks are what is
# tested: when every one of them has ended and mpirun still runs 20 s later (Open MPI's runtime
# can stall tearing down a job whose rank was killed while it connected at start-up), mpirun
# is ended and `stalled` says so. rc 124: a rank still ran at mpi's limit; `alive_ranks` then
# lists them.
wait_ranks() {
  local job=$1 np=$2 r pid since=
  stalled=no alive_ranks=
  while kill -0 "$job" 2>/dev/null; do
    alive_ranks=
    for ((r = 0; r < np; ++r)); do
      pid=$(cat "$work/pids/rank$r" 2>/dev/null) || { alive_ranks+="rank $r: no pid yet; "; continue; }
      if kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid") != Z* ]]; then
        alive_ranks+="rank $r: $(ps -o pid=,stat=,etime=,args= -p "$pid"); "
      fi
    done
    if [[ -n $alive_ranks ]]; then since=; elif [[ -z $since ]]; then since=$SECONDS; fi
    if [[ -n $since ]] && ((SECONDS - since >= 20)); then stalled=yes; kill_tree "$job"; break; fi
    sleep 0.1
  done
  wait "$job"
  rc=$?
  [[ $stalled == yes ]] && rc=137
}

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
    # stdout and stderr apart, then one after the other: a line of one is never cut by a
    # write to the other, however the ranks' output interleaves.
    mpi -np "$np" "$app" "$scenario" "$work/dist" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    cat "$work/stdout" "$work/stderr" >"$work/out"
    check $rc "$work/out" "$([[ $mode == run ]] && echo zero || echo nonzero)" "$@"
    ;;
  gpu)
    # No GPUs anywhere but where -x gives them, whatever this machine has.
    export EMBER_GPUS=
    mpi -np 1 "$app" gpu "$work/dist" : -np 1 -x EMBER_GPUS=0,1 "$app" gpu "$work/dist" \
      : -np 1 "$app" gpu "$work/dist" >"$work/out" 2>&1
    check $? "$work/out" zero "on_gpu actors per rank: 0 2 0" "rank 1: 2 GPUs" \
      "on_gpu: rank 1 x2"

    ;;
  straggler | straggler0)
    mode=$1
    shift 2
    # No rank slow but the one that -x makes so, whatever this environment has: rank 2, or
    # rank 0 (straggler0).
    unset EMBER_TEST_SLOW_RANK_FACTOR
    if [[ $mode == straggler ]]; then
      mpi -np 2 "$app" straggler "$work/dist" \
        : -np 1 -x EMBER_TEST_SLOW_RANK_FACTOR=5 "$app" straggler "$work/dist" \
        >"$work/stdout" 2>"$work/stderr"
    else
      mpi -np 1 -x EMBER_TEST_SLOW_RANK_FACTOR=5 "$app" straggler "$work/dist" \
        : -np 2 "$app" straggler "$work/dist" >"$work/stdout" 2>"$work/stderr"
    fi
    rc=$?
    cat "$work/stdout" "$work/stderr" >"$work/out"
    check $rc "$work/out" zero "$@"
    ;;
  stopped)
    limit=$3
    shift 3
    export EMBER_RANK_TIMEOUT_S=$limit
    # A job with a stopped rank may not end on timeout's SIGTERM: SIGKILL follows, so that a
    # hang fails below with the job's output rather than at ctest's timeout without it.
    timeout -k 10 90 mpirun "${flags[@]}" -np 3 -x EMBER_RANK_TIMEOUT_S "$app" hung "$work" \
      >"$work/out" 2>&1 &
    job=$!
    # Whatever happens below, no rank of this job outlives the test (a stopped one included).
    leftovers() {
      for f in "$work"/pids/rank*; do
        [[ -f $f ]] || continue
        pid=$(<"$f")
        if kill -0 "$pid" 2>/dev/null; then kill -CONT "$pid"; kill -9 "$pid"; fi
      done 2>/dev/null
    }
    trap 'leftovers; rm -rf "$work"' EXIT
    for ((i = 0; i < 600; ++i)); do
      [[ -f $work/started-rank2 ]] && break
      if ! kill -0 "$job" 2>/dev/null; then echo "FAIL: the job ended before rank 2 started"; cat "$work/out"; exit 1; fi
      sleep 0.1
    done
    [[ -f $work/started-rank2 ]] || { echo "FAIL: rank 2 never started its work"; cat "$work/out"; exit 1; }
    stopped=$(<"$work/pids/rank2")
    kill -STOP "$stopped"
    echo "stopped rank 2 (pid $stopped)"
    start=$SECONDS
    wait "$job"
    rc=$?
    took=$((SECONDS - start))
    echo "the job ended ${took} s after rank 2 stopped, exit status $rc"
    if ((rc != 124 && took > limit + 30)); then echo "FAIL: over $((limit + 30)) s"; cat "$work/out"; exit 1; fi
    # Every rank ended with mpirun (the stopped one as well).
    for f in "$work"/pids/rank*; do
      pid=$(<"$f")
      for ((i = 0; i < 50; ++i)); do
        kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid") != Z* ]] || break
        sleep 0.1
      done
      if kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid") != Z* ]]; then
        echo "FAIL: ${f##*/} (pid $pid) outlived mpirun"; cat "$work/out"; exit 1
      fi
    done
    check "$rc" "$work/out" nonzero "$@"
    ;;
  resume|resume_breaker|resume_join)
    np=$3
    shift 3
    scenario=$mode dir=resume
    [[ $mode == resume_breaker ]] && dir=breaker
    [[ $mode == resume_join ]] && dir=join
    # Rank 2 kills itself once the journal lists a few pieces: mpirun ends the job.
    EMBER_TEST_KILL_RANK=2 mpi -np 3 "$app" "$scenario" "$work" >"$work/killed.out" 2>&1
    rc=$?
    if [[ $rc -eq 0 || $rc -eq 124 ]]; then
      echo "FAIL: the job with rank 2 killed exited $rc"; cat "$work/killed.out"; exit 1
    fi
    journal=$work/$dir/.out.ember-resume.journal
    # What the killed job left, checked with the rerun's output below.
    {
      echo "killed on 3 ranks (exit status $rc): $(grep -c '^piece ' "$journal") pieces journaled"
      # Partition 1 starts on rank 1 (the first ones go round robin): its pieces, journaled by
      # rank 0.
      echo "pieces of partition 1 (run on rank 1) journaled: $(grep -c '^piece 1 ' "$journal")"
      echo "breaker result journaled: $(grep -c '^breaker ' "$journal")"
    } >"$work/killed.info"
    if [[ $np -eq 1 ]]; then
      timeout 90 "$app" "$scenario" "$work" >"$work/stdout" 2>"$work/stderr"
    else
      mpi -np "$np" "$app" "$scenario" "$work" >"$work/stdout" 2>"$work/stderr"
    fi
    rc=$?
    cat "$work/killed.info" "$work/stdout" "$work/stderr" >"$work/out"
    check $rc "$work/out" zero "$@"
    ;;
  killloop)
    kills=$3
    shift 3
    journal=$work/loop/.out.ember-resume.journal
    log=$work/loop/udf-rows.log
    pieces() { local n; n=$(grep -c '^piece ' "$journal" 2>/dev/null); echo "${n:-0}"; }
    # Output rows journaled, and rows the UDF computed (its log), so far in the current job.
    kept() { awk '$1 == "piece" { s += $4 } END { print s + 0 }' "$journal" 2>/dev/null || echo 0; }
    computed() { awk '{ s += $1 } END { print s + 0 }' "$log" 2>/dev/null || echo 0; }
    # The bound on a kill's loss (checkpoint_rows 0): every partition running on a rank (at most
    # 4 with 2 pipeline threads) loses its rows, 200 each.
    start=$SECONDS killed=0 jobs=0 run=0 worst=0 stalls=0
    while ((killed < kills)); do
      kept_before=$(kept) computed_before=$(computed)
      ((run < 4 * kills)) || { echo "FAIL: $run runs, only $killed killed"; exit 1; }
      np=$((run % 2 ? 2 : 3))
      victim=$((1 + RANDOM % (np - 1)))  # a worker rank
      rm -rf "$work/pids"
      mpi -np "$np" "$app" resume_loop "$work" >"$work/run$run.out" 2>&1 &
      job=$!
      for ((i = 0; i < 300; ++i)); do [[ -s $work/pids/rank$victim ]] && break; sleep 0.05; done
      # A random moment from the rank's start: in MPI's start-up, the actors', or the
      # partitions' (a fresh job takes about 2 s on 3 ranks).
      sleep "$((RANDOM % 2)).$((RANDOM % 10))$((RANDOM % 10))"
      sent=no
      kill -9 "$(cat "$work/pids/rank$victim" 2>/dev/null)" 2>/dev/null && sent=yes
      wait_ranks "$job" "$np"
      if [[ $rc -eq 124 ]]; then
        echo "FAIL: run $run hung"; cat "$work/run$run.out"; echo "$alive_ranks"; exit 1
      fi
      if [[ $stalled == yes ]]; then
        stalls=$((stalls + 1))
        echo "run $run: every rank had ended, mpirun had not 20 s later; it was ended"
      fi
      if [[ $rc -eq 0 ]]; then
        # Completed before its kill: its output is checked, and the next job starts afresh.
        timeout 90 "$app" resume_loop_check "$work" >>"$work/checks" 2>&1 ||
          { echo "FAIL: job $jobs's output"; cat "$work/checks" "$work/run$run.out"; exit 1; }
        jobs=$((jobs + 1))
        echo "run $run on $np ranks: job $jobs completed before its kill; output checked"
        rm -rf "$work/loop/out" "$log"
      elif [[ $sent == yes ]]; then
        killed=$((killed + 1))
        lost=$(($(computed) - computed_before - ($(kept) - kept_before)))
        bound=$((np * 4 * 200))
        ((lost > worst)) && worst=$lost
        echo "run $run on $np ranks, rank $victim killed: exit status $rc, $(pieces) pieces" \
          "journaled, $lost rows computed and lost (bound $bound)"
        if ((lost < 0 || lost > bound)); then
          echo "FAIL: run $run lost $lost rows, past the bound of $bound"; exit 1
        fi
      else
        echo "FAIL: run $run failed unkilled"; cat "$work/run$run.out"; exit 1
      fi
      run=$((run + 1))
    done
    # The last job, killed, completes on 2 ranks.
    mpi -np 2 "$app" resume_loop "$work" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    if [[ $rc -eq 0 ]]; then
      timeout 90 "$app" resume_loop_check "$work" >>"$work/checks" 2>&1
      rc=$?
      jobs=$((jobs + 1))
    fi
    echo "$killed kills in $run runs; $jobs jobs completed, each output checked;" \
      "at most $worst rows lost by a kill; mpirun outlived its ranks $stalls times;" \
      "$((SECONDS - start)) s in all" >>"$work/stdout"
    cat "$work/stdout" "$work/stderr" "$work/checks" >"$work/out"
    check $rc "$work/out" zero "$@"
    if grep -q DIFFERS "$work/checks"; then echo "FAIL: an output differs"; exit 1; fi
    ;;
  killroot)
    which=$3
    shift 3
    journal=$work/loop/.out.ember-resume.journal
    rm -rf "$work/pids"
    timeout -s KILL 90 mpirun "${flags[@]}" -np 3 "$app" resume_loop "$work" \
      >"$work/killed.out" 2>&1 &
    job=$!
    for ((i = 0; i < 100; ++i)); do mpirun_pid=$(pgrep -P "$job" mpirun) && break; sleep 0.05; done
    for ((i = 0; i < 600; ++i)); do
      [[ $(grep -c '^piece ' "$journal" 2>/dev/null) -ge 3 ]] && break
      kill -0 "$job" 2>/dev/null || break
      sleep 0.05
    done
    ranks=$(cat "$work"/pids/rank* 2>/dev/null)
    if [[ $which == mpirun ]]; then kill -9 "$mpirun_pid"; else kill -9 "$(<"$work/pids/rank0")"; fi
    wait "$job"
    rc=$?
    # No rank outlives the job (a rank that did would still hold the journal's lock).
    for pid in $ranks; do
      for ((i = 0; i < 100; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then
        echo "FAIL: rank pid $pid outlived the killed job"; kill -9 "$pid"; cat "$work/killed.out"; exit 1
      fi
    done
    echo "$which killed on 3 ranks (exit status $rc): $(grep -c '^piece ' "$journal") pieces journaled"
    if [[ $rc -eq 0 ]]; then echo "FAIL: the job completed before its kill"; cat "$work/killed.out"; exit 1; fi
    mpi -np 2 "$app" resume_loop "$work" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    if [[ $rc -eq 0 ]]; then
      timeout 90 "$app" resume_loop_check "$work" >>"$work/stdout" 2>>"$work/stderr"
      rc=$?
    fi
    cat "$work/stdout" "$work/stderr" >"$work/out"
    check $rc "$work/out" zero "$@"
    ;;
  s3)
    npm=$3 server=$4
    shift 4
    if [[ ! -d $npm/node_modules/s3rver ]]; then echo "SKIP: npm s3rver is not installed in $npm"; exit 77; fi
    mkdir -p "$work/s3"
    # The server exits when its stdin (this script's end of the pipe) closes.
    coproc S3 { exec node --openssl-legacy-provider "$server" "$npm" "$work/s3" data 2>"$work/s3.err"; }
    read -r -t 30 ports <&"${S3[0]}" || { echo "FAIL: the S3 server did not start"; cat "$work/s3.err"; exit 1; }
    proxy=$(sed -E 's/.*"proxy": *([0-9]+).*/\1/' <<<"$ports")
    export AWS_ENDPOINT_URL=http://127.0.0.1:$proxy AWS_ACCESS_KEY_ID=S3RVER \
      AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
    mpi -np 3 "$app" s3_write "$work/dist" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    cat "$work/stdout" "$work/stderr" >"$work/out"
    /usr/bin/python3 -c "import sys, urllib.request; print('server: ' + urllib.request.urlopen(sys.argv[1]).read().decode())" \
      "$AWS_ENDPOINT_URL/__control" >>"$work/out"
    check $rc "$work/out" zero "$@" '"open_uploads":0'
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
