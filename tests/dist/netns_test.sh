#!/usr/bin/env bash
# Two hosts without two hosts: ranks in two network namespaces that this test creates, joined
# by a veth pair with addresses it assigns; MPI may use that pair only (btl tcp over emb0, and
# its out-of-band channel too), so every batch for rank 2 really crosses a network interface.
# mpirun runs in the first namespace and starts the second "host" through a stand-in for ssh
# that enters the other namespace. The results must equal the local executor's, and rank 2's
# interface must have carried them. The namespaces are removed afterwards; where they are not
# permitted (no root, no CAP_SYS_ADMIN), the test is skipped (exit 77) with a message.
#   netns_test.sh APP
set -uo pipefail
app=$1
a=ember-a-$$ b=ember-b-$$
work=$(mktemp -d "${TMPDIR:-/tmp}/ember-netns.XXXXXX")
cleanup() {
  ip netns del "$a" 2>/dev/null
  ip netns del "$b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if ! ip netns add "$a" 2>"$work/err"; then
  echo "SKIP: network namespaces are not permitted here ('ip netns add' said: $(cat "$work/err"));" \
       "this test needs root or CAP_SYS_ADMIN"
  exit 77
fi
set -e
ip netns add "$b"
ip link add "ea$$" type veth peer name "eb$$"
ip link set "ea$$" netns "$a"
ip link set "eb$$" netns "$b"
ip -n "$a" link set "ea$$" name emb0
ip -n "$b" link set "eb$$" name emb0
ip -n "$a" addr add 10.213.7.1/24 dev emb0
ip -n "$b" addr add 10.213.7.2/24 dev emb0
ip -n "$a" link set emb0 up
ip -n "$b" link set emb0 up
# Loopback inside each namespace: a host's own processes reach their daemon through it.
ip -n "$a" link set lo up
ip -n "$b" link set lo up
set +e
# mpirun's "ssh": runs the command on a host by entering the namespace that owns its address.
cat >"$work/rsh" <<EOS
#!/bin/sh
host=\$1; shift
case \$host in
  10.213.7.1) ns=$a ;;
  10.213.7.2) ns=$b ;;
  *) echo "netns_test: unknown host \$host" >&2; exit 1 ;;
esac
exec ip netns exec \$ns sh -c "\$*"
EOS
chmod +x "$work/rsh"
# Two slots on the first host (ranks 0 and 1), the third rank on the second.
printf '10.213.7.1 slots=2\n10.213.7.2 slots=2\n' >"$work/hosts"
flags=(--oversubscribe --bind-to none --hostfile "$work/hosts" --mca plm_rsh_agent "$work/rsh"
       --mca btl tcp,self --mca btl_tcp_if_include emb0 --mca oob_tcp_if_include emb0)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)

"$app" queries "$work/local" >"$work/local.out" 2>"$work/local.err" || {
  echo "FAIL: the local run failed"; cat "$work/local.err"; exit 1; }
timeout 90 ip netns exec "$a" mpirun "${flags[@]}" -np 3 "$app" queries "$work/dist" \
  >"$work/dist.out" 2>"$work/dist.err"
rc=$?
cat "$work/dist.err"
[[ $rc -eq 124 ]] && { echo "FAIL: mpirun did not finish within 90 s (a hang)"; exit 1; }
[[ $rc -ne 0 ]] && { echo "FAIL: mpirun exited $rc"; exit 1; }
grep -q "actors per rank 1 1 1" "$work/dist.err" || { echo "FAIL: actors not on 3 ranks"; exit 1; }
diff -u "$work/local.out" "$work/dist.out" >"$work/diff" || {
  echo "FAIL: results across the two namespaces differ from the local executor's"
  cat "$work/diff"; exit 1; }
# What rank 2's host received over the veth: MPI's start-up and its share of the batches
# (about 5 KB of int64 and string columns for these queries), so at least 8 KB.
received=$(ip -n "$b" -s -j link show emb0 | grep -o '"rx":{"bytes":[0-9]*' | grep -o '[0-9]*$')
echo "identical results; the second host's interface received ${received:-?} bytes"
if [[ -z "$received" || "$received" -lt 8000 ]]; then
  echo "FAIL: the second namespace's interface carried too little for rank 2's batches"; exit 1
fi
