#!/usr/bin/env bash
# The MPI runner against one machine, measured in the same run, as ratios (medians of 3):
#   (a) the job users run: a Parquet file of 48 row groups -> a latency-bound UDF (20 ms per
#       call) -> Parquet, 6 actors on 3 ranks vs 2 actors on 1 rank (throughput ratio; ideal 3)
#   (b) the spell-check job on 3 ranks vs the local executor with the same 3 actors (time
#       ratio: the network path's overhead on one machine)
#   (c) a 64 MiB batch to an actor on another rank and back over TCP (loopback), against the
#       same query with the actor local: the network path's bandwidth; beside it, the same with
#       every message packed into one buffer first (EMBER_DIST_PACKED_MESSAGES=1, the old path)
#   (d) a straggler: 60 partitions through one actor per rank (20 ms per call) with rank 2's
#       calls 5 times as slow, against the same job with no rank slow (time ratio; partitions
#       handed out as ranks ask, and batches lent to idle ranks' actors at the end, keep it near
#       the ideal 1.36x of three actors one of which works at a fifth of the pace; a fixed split
#       would take 5x); beside it, the slow job with no actor lent (EMBER_DIST_NO_LENDING=1),
#       and with rank 0 the slow rank instead of rank 2
#   (e) rank 0's share of the bytes read and written over all ranks in (a)'s 3-rank runs (each
#       rank reads and writes its own partitions: ideal 1/3)
#   (f) a group-by of 10M rows into 1K, 100K and 10M groups: the local executor; 3 ranks each
#       aggregating its own partitions and exchanging the groups by key (each rank merging its
#       share), with the groups exchanged per second; 3 ranks sending every partition's partial
#       state to rank 0 to merge (EMBER_DIST_NO_EXCHANGE=1, the path before the exchange); and
#       3 ranks sending their rows to rank 0 (EMBER_DIST_GATHER_ROWS=1): time ratios
#   (g) a sort of 10M rows: the local executor; 3 ranks each sorting its partitions and sending
#       them sorted (rank 0 merging); 3 ranks sending their rows unsorted for rank 0 to sort
#       (EMBER_DIST_GATHER_ROWS=1, the path before): time ratios
#   (h) a group-by of 10M rows into 3M groups written to Parquet: the local executor; 3 ranks
#       each writing one key range of the groups; 3 ranks sending their finalized shares to rank
#       0, which writes them all (EMBER_DIST_NO_RANGES=1, the path before): time ratios, and
#       rank 0's share of the bytes written (ideal 1/3)
#   (i) (g)'s sort written to Parquet: the local executor; 3 ranks each keeping its partitions
#       sorted and writing one key range; 3 ranks sending their sorted partitions to rank 0,
#       which merges and writes every row (EMBER_DIST_NO_RANGES=1): time ratios, and rank 0's
#       share of the bytes written
#   (j) a join of 10M fact rows (Parquet, 30 files) with a dimension of 100K to 10M rows
#       (Parquet), then 1,000 groups: the local executor; 3 ranks each reading the dimension
#       whole and building its own hash table (a broadcast join, forced for every size); 3 ranks
#       exchanging both sides by key hash (EMBER_DIST_BROADCAST_JOIN_BYTES=0), with the rows
#       exchanged per second: time ratios, beside the dimension's file bytes, and what the
#       planner picks by itself (docs/cluster.md: by the two sides' bytes)
# Usage: bench/dist/run.sh [--build-dir DIR] [--no-build] [PART...]
#   builds Release in build-bench/ by default; --no-build uses DIR's binaries as they are;
#   PART: a, b, c, d, e, f, g, h, i or j, to run only those (all by default; e runs a's 3-rank job alone)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build="${EMBER_BENCH_BUILD_DIR:-$root/build-bench}"
compile=yes
parts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift ;;
    --no-build) compile=no ;;
    a|b|c|d|e|f|g|h|i|j) parts+=("$1") ;;
    *) echo "usage: $0 [--build-dir DIR] [--no-build] [a|b|c|d|e|f|g|h|i|j...]" >&2; exit 2 ;;
  esac
  shift
done
((${#parts[@]})) || parts=(a b c d e f g h i j)
part() { [[ " ${parts[*]} " == *" $1 "* ]]; }
if [[ $compile == yes ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF \
    -DEMBER_BUILD_EXAMPLES=ON -DEMBER_BUILD_BENCH=ON >/dev/null
  ninja -C "$build" -j "${EMBER_BENCH_JOBS:-2}" ember_bench_dist spellcheck >/dev/null
fi
bench="$build/bench/dist/ember_bench_dist"
speller="$build/examples/spellcheck/spellcheck"
flags=(--oversubscribe --bind-to none --mca btl tcp,self)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
mpi() { timeout 300 mpirun "${flags[@]}" "$@"; }
median() { sort -g | sed -n 2p; }
result() { grep '^result ' | cut -d' ' -f2; }
share() { grep '^share ' | cut -d' ' -f2; }
wall() { grep '^wall time' | awk '{print $3}'; }
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

# (a) and (e) share the 3-rank runs; every run writes its input and output under pq_dir, and
# each run's bytes per rank (stderr) go to a log, the last run's kept.
pq_dir="$build/dist-bench-parquet"
if part a; then
a_local=$(for i in 1 2 3; do "$bench" parquet 2 "$pq_dir" 2>"$build/parquet-local.log" | result; done | median)
fi
if part a || part e; then
pq_runs=$(for i in 1 2 3; do mpi -np 3 "$bench" parquet 6 "$pq_dir" 2>"$build/parquet.log"; done)
a_dist=$(result <<<"$pq_runs" | median)
fi
if part a; then
echo "(a) Parquet -> UDF (20 ms per call) -> Parquet: 2 actors on 1 rank $a_local rows/s, 6 actors on 3 ranks $a_dist rows/s"
echo "    ratio $(echo "$a_dist / $a_local" | bc -l | xargs printf '%.2f')x (target >= 2.8x)"
fi

if part b; then
corpus="$build/spellcheck-corpus"
export SPELLCHECK_CORPUS="$corpus"
"$speller" --concurrency 3 --cpus-per-actor 0.5 --no-progress >/dev/null 2>&1  # writes the corpus once
b_local=$(for i in 1 2 3; do "$speller" --concurrency 3 --cpus-per-actor 0.5 --no-progress 2>/dev/null | wall; done | median)
b_dist=$(for i in 1 2 3; do mpi -np 3 "$speller" --concurrency 3 --cpus-per-actor 0.5 --no-progress 2>/dev/null | wall; done | median)
echo "(b) spell-check, 3 actors: local $b_local s, 3 ranks $b_dist s"
echo "    ratio $(echo "$b_dist / $b_local" | bc -l | xargs printf '%.2f')x (target <= 1.3x)"
fi

if part c; then
# The actor fits only on rank 1 (EMBER_CPUS=4; ranks 0 and 2 have 1 CPU).
c_local=$(for i in 1 2 3; do EMBER_CPUS=4 "$bench" transfer | result; done | median)
c_dist=$(for i in 1 2 3; do
  mpi -np 1 -x EMBER_CPUS=1 "$bench" transfer : -np 1 -x EMBER_CPUS=4 "$bench" transfer \
    : -np 1 -x EMBER_CPUS=1 "$bench" transfer | result; done | median)
c_packed=$(for i in 1 2 3; do
  mpi -x EMBER_DIST_PACKED_MESSAGES=1 -np 1 -x EMBER_CPUS=1 "$bench" transfer \
    : -np 1 -x EMBER_CPUS=4 "$bench" transfer : -np 1 -x EMBER_CPUS=1 "$bench" transfer \
    | result; done | median)
gbps() { echo "2 * 64 * 1.048576 / 1000 / ($1 - $c_local)" | bc -l | xargs printf '%.2f'; }
echo "(c) 64 MiB batch: actor local $c_local s, actor on rank 1 $c_dist s (packed first: $c_packed s)"
echo "    network path: $(gbps "$c_dist") GB/s both ways (target >= 1 GB/s); packed first: $(gbps "$c_packed") GB/s"
fi

if part d; then
# No rank slow but the one that -x makes so, whatever this environment has. One line per run
# on stderr says how many partitions each rank ran; the last run's of each kind is shown.
unset EMBER_BENCH_SLOW_RANK_FACTOR
d_log="$build/straggler.log"
d_even=$(for i in 1 2 3; do mpi -np 3 "$bench" straggler 2>"$d_log.even" | result; done | median)
d_slow=$(for i in 1 2 3; do
  mpi -np 2 "$bench" straggler : -np 1 -x EMBER_BENCH_SLOW_RANK_FACTOR=5 "$bench" straggler \
    2>"$d_log.slow" | result; done | median)
echo "(d) straggler, 60 partitions: no rank slow $d_even s ($(grep -m1 '^partitions per rank' "$d_log.even")), rank 2 5x slow $d_slow s ($(grep -m1 '^partitions per rank' "$d_log.slow"); $(grep -m1 "^batches on other ranks' idle actors" "$d_log.slow"))"
d_own=$(for i in 1 2 3; do
  mpi -np 2 -x EMBER_DIST_NO_LENDING=1 "$bench" straggler : -np 1 -x EMBER_DIST_NO_LENDING=1 \
    -x EMBER_BENCH_SLOW_RANK_FACTOR=5 "$bench" straggler 2>/dev/null | result; done | median)
echo "    ratio $(echo "$d_slow / $d_even" | bc -l | xargs printf '%.2f')x (target <= 1.5x; ideal 1.36x, a fixed split 5x)"
echo "    with no idle actor lent (EMBER_DIST_NO_LENDING=1, the path before): $d_own s, ratio $(echo "$d_own / $d_even" | bc -l | xargs printf '%.2f')x"
d_zero=$(for i in 1 2 3; do
  mpi -np 1 -x EMBER_BENCH_SLOW_RANK_FACTOR=5 "$bench" straggler : -np 2 "$bench" straggler \
    2>"$d_log.zero" | result; done | median)
echo "    rank 0 the slow one (it paces what it takes for itself): $d_zero s ($(grep -m1 '^partitions per rank' "$d_log.zero")), ratio $(echo "$d_zero / $d_even" | bc -l | xargs printf '%.2f')x"
fi

if part e; then
echo "(e) Parquet job on 3 ranks: rank 0's share of the bytes read and written $(share <<<"$pq_runs" | median | xargs printf '%.3f') (last run: $(grep -m1 '^bytes read+written per rank' "$build/parquet.log"))"
echo "    (target <= 0.4; ideal 0.333)"
fi

if part f; then
for groups in 1000 100000 10000000; do
f_local=$(for i in 1 2 3; do "$bench" groupby $groups | result; done | median)
f_runs=$(for i in 1 2 3; do mpi -np 3 "$bench" groupby $groups | tr '\n' ' '; echo; done)
f_exchange=$(echo "$f_runs" | awk '{print $4}' | median)
f_shuffled=$(echo "$f_runs" | awk '{print $2}' | median)
f_partial=$(for i in 1 2 3; do mpi -x EMBER_DIST_NO_EXCHANGE=1 -np 3 "$bench" groupby $groups | result; done | median)
f_rows=$(for i in 1 2 3; do mpi -x EMBER_DIST_GATHER_ROWS=1 -np 3 "$bench" groupby $groups | result; done | median)
echo "(f) group-by, 10M rows into $groups groups: local $f_local s; 3 ranks exchanging groups $f_exchange s ($f_shuffled groups exchanged, $(echo "$f_shuffled / $f_exchange" | bc -l | xargs printf '%.0f') a second); partial states to rank 0 $f_partial s; rows to rank 0 $f_rows s"
echo "    exchange / local: $(echo "$f_exchange / $f_local" | bc -l | xargs printf '%.2f')x; exchange / states to rank 0: $(echo "$f_exchange / $f_partial" | bc -l | xargs printf '%.2f')x; exchange / rows to rank 0: $(echo "$f_exchange / $f_rows" | bc -l | xargs printf '%.2f')x"
done
fi

if part g; then
g_local=$(for i in 1 2 3; do "$bench" sort | result; done | median)
g_sorted=$(for i in 1 2 3; do mpi -np 3 "$bench" sort | result; done | median)
g_rows=$(for i in 1 2 3; do mpi -x EMBER_DIST_GATHER_ROWS=1 -np 3 "$bench" sort | result; done | median)
echo "(g) sort, 10M rows: local $g_local s; 3 ranks sorting their partitions $g_sorted s; rows to rank 0 unsorted $g_rows s"
echo "    sorted on each rank / local: $(echo "$g_sorted / $g_local" | bc -l | xargs printf '%.2f')x; sorted on each rank / rows to rank 0: $(echo "$g_sorted / $g_rows" | bc -l | xargs printf '%.2f')x"
fi

if part h; then
h_dir=$(mktemp -d)
h_local=$(for i in 1 2 3; do "$bench" groupwrite 3000000 "$h_dir/out" | result; done | median)
h_runs=$(for i in 1 2 3; do mpi -np 3 "$bench" groupwrite 3000000 "$h_dir/out" | tr '\n' ' '; echo; done)
h_ranges=$(echo "$h_runs" | awk '{print $4}' | median)
h_share=$(echo "$h_runs" | awk '{print $2}' | median)
h_rank0=$(for i in 1 2 3; do mpi -x EMBER_DIST_NO_RANGES=1 -np 3 "$bench" groupwrite 3000000 "$h_dir/out" | result; done | median)
rm -rf "$h_dir"
echo "(h) group-by of 10M rows into 3M groups written to Parquet: local $h_local s; 3 ranks each writing a key range $h_ranges s (rank 0's share of the bytes written $(printf '%.3f' "$h_share")); rank 0 writing every group $h_rank0 s"
echo "    by key range / rank 0 writing: $(echo "$h_ranges / $h_rank0" | bc -l | xargs printf '%.2f')x; by key range / local: $(echo "$h_ranges / $h_local" | bc -l | xargs printf '%.2f')x"
fi

if part i; then
i_dir=$(mktemp -d)
i_local=$(for i in 1 2 3; do "$bench" sortwrite "$i_dir/out" | result; done | median)
i_runs=$(for i in 1 2 3; do mpi -np 3 "$bench" sortwrite "$i_dir/out" | tr '\n' ' '; echo; done)
i_ranges=$(echo "$i_runs" | awk '{print $4}' | median)
i_share=$(echo "$i_runs" | awk '{print $2}' | median)
i_rank0=$(for i in 1 2 3; do mpi -x EMBER_DIST_NO_RANGES=1 -np 3 "$bench" sortwrite "$i_dir/out" | result; done | median)
rm -rf "$i_dir"
echo "(i) sort of 10M rows written to Parquet: local $i_local s; 3 ranks each writing a key range $i_ranges s (rank 0's share of the bytes written $(printf '%.3f' "$i_share")); rank 0 merging and writing every row $i_rank0 s"
echo "    by key range / rank 0 writing: $(echo "$i_ranges / $i_rank0" | bc -l | xargs printf '%.2f')x; by key range / local: $(echo "$i_ranges / $i_local" | bc -l | xargs printf '%.2f')x"
fi

if part j; then
j_dir="$build/dist-bench-join"  # the inputs, written once and kept for later runs
for rows in 100000 1000000 3000000 5000000 10000000; do
j_bytes=$("$bench" joinprep "$j_dir" $rows | result)
j_local=$(for i in 1 2 3; do "$bench" join "$j_dir" $rows | result; done | median)
j_broadcast=$(for i in 1 2 3; do
  mpi -x EMBER_DIST_BROADCAST_JOIN_BYTES=1099511627776 -np 3 "$bench" join "$j_dir" $rows | result; done | median)
j_runs=$(for i in 1 2 3; do
  mpi -x EMBER_DIST_BROADCAST_JOIN_BYTES=0 -np 3 "$bench" join "$j_dir" $rows | tr '\n' ' '; echo; done)
j_exchange=$(echo "$j_runs" | awk '{print $4}' | median)
j_shuffled=$(echo "$j_runs" | awk '{print $2}' | median)
j_runs=$(for i in 1 2 3; do mpi -np 3 "$bench" join "$j_dir" $rows | tr '\n' ' '; echo; done)
j_default=$(echo "$j_runs" | awk '{print $4}' | median)
j_picked=$(echo "$j_runs" | awk 'NR == 1 {print ($2 > 5000000 ? "exchange" : "broadcast")}')
echo "(j) join, 10M fact rows with a dimension of $rows rows ($(echo "$j_bytes / 1048576" | bc -l | xargs printf '%.1f') MiB of Parquet), then 1,000 groups: local $j_local s; 3 ranks each reading the dimension whole $j_broadcast s; 3 ranks exchanging both sides by key $j_exchange s ($j_shuffled rows exchanged, $(echo "$j_shuffled / $j_exchange" | bc -l | xargs printf '%.0f') a second)"
echo "    broadcast / local: $(echo "$j_broadcast / $j_local" | bc -l | xargs printf '%.2f')x; exchange / local: $(echo "$j_exchange / $j_local" | bc -l | xargs printf '%.2f')x; exchange / broadcast: $(echo "$j_exchange / $j_broadcast" | bc -l | xargs printf '%.2f')x; the planner's own pick: $j_picked, $j_default s"
done
fi
