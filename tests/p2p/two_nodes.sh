#!/usr/bin/env bash
# tests/p2p/two_nodes.sh — a job whose ranks do not share a node fails at start-up with a message
# that says so (not an opaque shm_open error, and no hang). Rank 1 gets a node of its own the way
# a second machine would look to the transport: its own host name (UTS namespace) and its own
# /dev/shm (mount namespace). A different host name alone, with /dev/shm shared, still runs.
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

# Rank 1 elsewhere: every rank that notices names both hosts; the job ends with an error.
cat >"$tmp/elsewhere.sh" <<'SH'
#!/bin/sh
if [ "$PMI_RANK" = 1 ]; then
    exec unshare --uts --mount sh -c 'hostname credo-other-node && mount -t tmpfs tmpfs /dev/shm && exec "$@"' sh "$@"
fi
exec "$@"
SH
chmod +x "$tmp/elsewhere.sh"
"$credorun" -n 2 --timeout 30 "$tmp/elsewhere.sh" "$prog" 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "exit status $rc, expected a start-up failure (not 0, not a timeout)"
grep -qE "^credo: rank [0-9] runs on host [^ ]+ and rank [0-9] on host [^ ]+: credo's transport is shared memory, so all ranks of a job must run on one node" "$tmp/err" ||
    fail "no message naming the two hosts"
grep -q "credo-other-node" "$tmp/err" || fail "the message does not name rank 1's host"
grep -q "shm_open" "$tmp/err" && fail "an shm_open error instead of the explanation"
[ "$fails" -eq 0 ] || cat "$tmp/err"

# Only the host name differs (containers sharing /dev/shm): the mailboxes attach, the job runs.
cat >"$tmp/renamed.sh" <<'SH'
#!/bin/sh
if [ "$PMI_RANK" = 1 ]; then
    exec unshare --uts sh -c 'hostname credo-other-name && exec "$@"' sh "$@"
fi
exec "$@"
SH
chmod +x "$tmp/renamed.sh"
"$credorun" -n 2 --timeout 60 "$tmp/renamed.sh" "$prog" 10 >"$tmp/out2" 2>"$tmp/err2"
rc=$?
[ "$rc" -eq 0 ] || { fail "a job whose ranks only differ in host name exited $rc"; cat "$tmp/err2"; }

[ "$fails" -eq 0 ] && echo "two_nodes: OK"
exit $((fails > 0))
