#!/usr/bin/env bash
# tests/net/mixed_wake.sh — runs mixed_wake with rank 1 on a test host (tests/hosts/netns.sh) and
# ranks 0 and 2 in the root namespace, so rank 0 has one network and one shared-memory peer.
# usage: mixed_wake.sh CREDORUN PROG ; exit 77 (skipped) without namespaces or veth
set -u
credorun=$1 prog=$2
hosts=$(cd "$(dirname "$0")/../hosts" && pwd)
. "$hosts/netns.sh"
hosts_up 1
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
FI_PROVIDER="tcp;ofi_rxm" "$credorun" -n 3 --timeout 60 -x NETNS_HOSTS_MAP="0 1 0" -x FI_PROVIDER \
    "$hosts/on_host.sh" "$prog"
