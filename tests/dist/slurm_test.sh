#!/usr/bin/env bash
# A resumable job under a real Slurm: this test starts its own munged, slurmctld and slurmd (one
# node, 3 CPUs declared; every configuration file, key, socket and state file in a temporary
# directory, removed afterwards, the machine's /etc/slurm and /etc/munge untouched), submits
# tests/dist/cluster_app's `slurm` scenario with `sbatch --requeue` running `srun --mpi=pmix -n 3`,
# requeues the job with `scontrol requeue` once its journal lists finished pieces, and checks that
# the requeued run resumed them (resumed_partitions > 0) and wrote what an uninterrupted run
# writes. `mpirun -np 3` in the batch script instead of srun works as well (Debian's Open MPI has
# Slurm support); srun is what docs/cluster.md shows. Needs root (slurmd starts jobs as their
# user): without it the test is skipped (exit 77) with the reason. As root, Slurm and munge must
# be installed (scripts/install-deps.sh installs them): a missing command fails the test.
#   slurm_test.sh APP
set -uo pipefail
app=$(realpath "$1")
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: slurmd must run as root to start jobs as their user; run the tests as root (CI does)"
  exit 77
fi
for c in munged slurmctld slurmd sbatch srun scontrol sinfo scancel; do
  command -v $c >/dev/null || {
    echo "FAIL: '$c' is missing: scripts/install-deps.sh installs Slurm and munge"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ember-slurm.XXXXXX")
chmod 700 "$work"
pids=()
# The processes with a file or their working directory in this test's directory: its job's
# slurmstepd, batch script and ranks (slurmstepd detaches from slurmd).
own_processes() {
  find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1 -lname "$work*" 2>/dev/null \
    | cut -d/ -f3 | sort -u | grep -vx "$$"
}
# The job's state: PENDING, RUNNING, COMPLETED...
state() { scontrol show job "$(<"$work/jobid")" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
cleanup() {
  # The job first (slurmd ends its steps), then the daemons this test started, by their pids,
  # then whatever of the job outlived them.
  if [[ -s $work/jobid ]]; then
    timeout 10 scancel "$(<"$work/jobid")" 2>/dev/null
    for ((i = 0; i < 50; ++i)); do
      [[ $(state) =~ ^(PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUE.*)$ ]] || break
      sleep 0.1
    done
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for ((i = 0; i < 50; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  for pid in $(own_processes); do kill -9 "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM
fail() {
  echo "FAIL: $*"
  for f in "$work"/job.out "$work"/log/*; do [[ -f $f ]] && { echo "--- $f"; tail -n 40 "$f"; }; done
  exit 1
}

mkdir -p "$work"/{log,state,spool,run,munge} "$work/data"
# Two ports nobody else uses now: a test running beside this one (another build's CI) has its
# own pair.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port) slurmd_port=$(free_port)
[[ $ctld_port != "$slurmd_port" ]] || slurmd_port=$(free_port)

# munge: its own key and socket; Slurm finds the socket through AuthInfo.
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
chmod 400 "$work/munge/key"
munged --force --key-file="$work/munge/key" --socket="$work/munge/sock" \
  --pid-file="$work/munge/pid" --seed-file="$work/munge/seed" --log-file="$work/log/munged.log" \
  || fail "munged did not start"
pids+=("$(<"$work/munge/pid")")

node=$(hostname -s)
export SLURM_CONF=$work/slurm.conf
# No cgroups (a container may not delegate them): processes tracked by their parentage, no task
# binding, no accounting.
cat >"$SLURM_CONF" <<EOF
ClusterName=ember-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
# 3 CPUs declared whatever the machine has: slurmd takes the node's description from here.
SlurmdParameters=config_overrides
MailProg=/bin/true
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=300
PlugStackConfig=$work/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=3 Sockets=1 CoresPerSocket=3 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=ember Nodes=$node Default=YES MaxTime=10 State=UP
EOF
: >"$work/plugstack.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for ((i = 0; i < 300; ++i)); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
  [[ $state == idle || $state == inval* || $state == drain* ]] && break
  sleep 0.1
done
[[ $state == idle ]] || fail "the node never became idle (state '${state:-none}')"
echo "slurm up: node $node idle, slurmctld on port $ctld_port"

# The job: the cluster app's resumable Parquet -> UDF -> Parquet write on 3 ranks, launched by
# srun through PMIx (Debian's Slurm has mpi_pmix, its Open MPI is built against the same PMIx).
# Its first run waits once 3 pieces are journaled, so that the requeue below lands mid-job
# however fast this machine is; the requeued run (SLURM_RESTART_COUNT=1) runs to the end.
data=$work/data
journal=$data/slurm/.out.ember-resume.journal
cat >"$work/job.sh" <<EOS
#!/bin/bash
#SBATCH --ntasks=3 --requeue --open-mode=append
echo "run \${SLURM_RESTART_COUNT:-0} of job \$SLURM_JOB_ID"
exec srun --mpi=pmix -n 3 "$app" slurm "$data"
EOS
# wait_for SECONDS WHAT CONDITION...: polls CONDITION every 0.1 s; fails naming WHAT when the
# time runs out.
wait_for() {
  local limit=$1 what=$2
  shift 2
  for ((i = 0; i < limit * 10; ++i)); do "$@" && return 0; sleep 0.1; done
  fail "$what did not happen within $limit s (job state $(state))"
}
pieces() {
  local n
  n=$(grep -c '^piece ' "$journal" 2>/dev/null)
  echo "${n:-0}"
}
start=$SECONDS
sbatch --parsable -o "$work/job.out" -D "$work" "$work/job.sh" >"$work/jobid" \
  || fail "sbatch refused the job"
wait_for 30 "3 journaled pieces in the first run" eval '(( $(pieces) >= 3 ))'
[[ $(state) == RUNNING ]] || fail "the first run is not running when it should be (state $(state))"
echo "first run: $(pieces) pieces journaled; requeueing job $(<"$work/jobid")"
requeued_at=$(date +%s)
scontrol requeue "$(<"$work/jobid")" || fail "scontrol requeue failed"
# Slurm makes a requeued job eligible again only 120 s later (its BeginTime): once it is
# pending, it may start now. Not within the requeue's own second, though: slurmd revokes the
# first run's credential at that second and refuses every credential of the job created at or
# before it ("Job credential revoked"), so a restart in the same second fails the job.
wait_for 30 "the requeued job pending" eval '[[ $(state) == PENDING ]]'
wait_for 30 "the first run's tasks gone" eval '[[ $(sinfo -h -n "$node" -o %T) == idle ]]'
while (( $(date +%s) <= requeued_at + 1 )); do sleep 0.1; done
scontrol update JobId="$(<"$work/jobid")" StartTime=now || fail "scontrol update StartTime=now failed"
wait_for 60 "the requeued job's end" eval '[[ $(state) =~ ^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY)$ ]]'
echo "job $(<"$work/jobid") $(state) after $((SECONDS - start)) s, restarts:" \
  "$(scontrol show job "$(<"$work/jobid")" | grep -o 'Restarts=[0-9]*')"
[[ $(state) == COMPLETED ]] || fail "the requeued job ended $(state)"
cat "$work/job.out"
for re in "^run 0 of job " "^run 1 of job " \
    "^resumable job on 3 rank\\(s\\): resumed partitions ([1-9]|1[0-9]|2[0-3]), resumed rows [1-9][0-9]*, rows out 12000$" \
    "^resumed rows are the resumed partitions' rows$" \
    "^output equals an uninterrupted run's: 24 files, 12000 rows$" "^staging left: none$"; do
  grep -Eq -- "$re" "$work/job.out" || fail "no line of the job's output matches /$re/"
done
echo "PASS: requeued under Slurm, resumed, output equal to an uninterrupted run's"
