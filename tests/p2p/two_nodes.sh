#!/usr/bin/env bash
# tests/p2p/two_nodes.sh — a job whose ranks do not share a node. Rank 1 gets a node of its own the
# way a second machine looks to the transport choice: its own host name (UTS namespace) and its own
# /dev/shm (mount namespace); the network namespace stays shared, so the network transport reaches
# it over loopback (FI_TCP_IFACE=lo for every rank: no other interface carries test traffic).
#   1. CREDO_XPORT=auto: the job runs, rank 1 over the network (libfabric, tcp;ofi_rxm). A credo built
#      without libfabric must instead refuse at start-up with one line saying the network transport
#      is needed (no hang, no shm_open error).
#   2. CREDO_XPORT=shm: refused at start-up with one line naming both nodes and CREDO_XPORT=shm.
#   3. Only the host name differs (containers sharing /dev/shm): the job runs over shared memory,
#      also with CREDO_XPORT=shm.
# Jobs across network namespaces (real addresses, several ranks per host): tests/hosts/two_hosts.sh.
# usage: two_nodes.sh CREDORUN PROGRAM ; exit 77 (skipped) without namespaces
set -u
credorun=$1 prog=$2
if ! unshare --uts --mount sh -c 'hostname credo-test-node && mount -t tmpfs tmpfs /dev/shm' 2>/dev/null; then
    echo "skipped: cannot create UTS and mount namespaces here"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export FI_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=lo

# Rank 1 on a node of its own.
cat >"$tmp/elsewhere.sh" <<'SH'
#!/bin/sh
if [ "$PMI_RANK" = 1 ]; then
    exec unshare --uts --mount sh -c 'hostname credo-other-node && mount -t tmpfs tmpfs /dev/shm && exec "$@"' sh "$@"
fi
exec "$@"
SH
chmod +x "$tmp/elsewhere.sh"

# 1. auto: runs over the network, or (no libfabric in this build) a clear refusal.
f0=$fails
CREDO_XPORT=auto "$credorun" -n 2 --timeout 25 "$tmp/elsewhere.sh" "$prog" 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "two_nodes: rank 1 on another node, CREDO_XPORT=auto: ran"
elif grep -qE "^credo: rank [0-9]+: a job whose ranks run on several nodes needs the network transport" "$tmp/err"; then
    [ "$rc" -ne 124 ] || fail "auto without libfabric: a timeout instead of a start-up failure"
    echo "two_nodes: rank 1 on another node, no network transport in this build: refused ($(grep -m1 "needs the network" "$tmp/err"))"
else
    fail "auto: a job with rank 1 on another node exited $rc"
fi
grep -q "shm_open" "$tmp/err" && fail "auto: an shm_open error"
[ "$fails" -eq "$f0" ] || cat "$tmp/err"

# 2. shared memory only: a one-line refusal that names both nodes, no hang.
f0=$fails
CREDO_XPORT=shm "$credorun" -n 2 --timeout 25 "$tmp/elsewhere.sh" "$prog" 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "shm: exit status $rc, expected a start-up failure (not 0, not a timeout)"
grep -qE "^credo: .*CREDO_XPORT=shm" "$tmp/err" || fail "shm: no line explaining that CREDO_XPORT=shm cannot reach the other node"
grep -E "^credo: .*CREDO_XPORT=shm" "$tmp/err" | grep -q "credo-other-node" || fail "shm: the message does not name rank 1's host"
grep -q "shm_open" "$tmp/err" && fail "shm: an shm_open error instead of the explanation"
[ "$fails" -eq "$f0" ] || cat "$tmp/err"

# 3. Only the host name differs (containers sharing /dev/shm): the mailboxes attach, the job runs
# over shared memory, under auto and with shared memory required.
cat >"$tmp/renamed.sh" <<'SH'
#!/bin/sh
if [ "$PMI_RANK" = 1 ]; then
    exec unshare --uts sh -c 'hostname credo-other-name && exec "$@"' sh "$@"
fi
exec "$@"
SH
chmod +x "$tmp/renamed.sh"
for xport in auto shm; do
    CREDO_XPORT=$xport "$credorun" -n 2 --timeout 25 "$tmp/renamed.sh" "$prog" 10 >"$tmp/out2" 2>"$tmp/err2"
    rc=$?
    [ "$rc" -eq 0 ] || { fail "CREDO_XPORT=$xport: a job whose ranks only differ in host name exited $rc"; cat "$tmp/err2"; }
done

[ "$fails" -eq 0 ] && echo "two_nodes: OK"
exit $((fails > 0))
