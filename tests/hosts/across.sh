#!/usr/bin/env bash
# tests/hosts/across.sh — runs one of the suite's MPI test programs with its ranks spread over test
# hosts (credorun from host 1, agent.sh as ssh), for the hosts.across.* variants of tests/hosts.
#
# usage: across.sh STATE CREDORUN HOSTS SCHEME NP PROGRAM [ARGS...]
#   STATE   the fixture's state file (hosts.setup); 77 when there are no test hosts
# The NP ranks are cut into HOSTS blocks as even as possible (the first hosts take the extra ranks)
# on credo-h1..credo-h<HOSTS>, under CREDO_FC=SCHEME, with every rank's libfabric on the test link
# (--iface ceth0). Passes when the program's own checks pass (exit 0), bytes crossed host 2's link
# during the run (the job really spanned the hosts), and nothing of the job is left on any host.
set -u
[ $# -ge 6 ] || { echo "usage: across.sh STATE CREDORUN HOSTS SCHEME NP PROGRAM [ARGS...]" >&2; exit 2; }
state=$1 credorun=$2 nh=$3 scheme=$4 np=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
hosts_attach "$state" || exit $?
export FI_PROVIDER="tcp;ofi_rxm"
[ "$nh" -le "$HOSTS_N" ] || { echo "across: needs $nh hosts, the fixture has $HOSTS_N"; exit 77; }
hostlist=
for k in $(seq "$nh"); do
    n=$((np / nh + (k <= np % nh ? 1 : 0)))
    [ "$n" -gt 0 ] && hostlist=$hostlist${hostlist:+,}credo-h$k:$n
done
rx() { cat "/sys/class/net/crv2-$(cat "$HOSTS_DIR/tag")/statistics/rx_bytes"; }
before=$(rx)
hosts_exec 1 "$credorun" --launch-agent "$here/agent.sh" --iface ceth0 --host "$hostlist" -n "$np" --fc "$scheme" \
    --timeout 150 "$@"
rc=$?
after=$(rx)
fails=0
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc"; fails=1; }
if [ "$np" -gt 1 ] && [ $((after - before)) -le 0 ]; then
    echo "FAIL: no byte crossed host 2's link: the job did not span the hosts"
    fails=1
fi
# nothing left on either host (processes on their way out get 3 s)
for k in $(seq "$nh"); do
    ns=$(cat "$HOSTS_DIR/host$k.ns") holder=$(cat "$HOSTS_DIR/host$k.pid")
    for _ in $(seq 30); do
        left=
        for p in $(ip netns pids "$ns" 2>/dev/null); do [ "$p" = "$holder" ] || left="$left $p"; done
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -z "$left" ] || { echo "FAIL: processes left on host $k:$left"; fails=1; }
    left=$(hosts_exec "$k" ls -A /dev/shm)
    [ -z "$left" ] || { echo "FAIL: files left in host $k's /dev/shm: $left"; fails=1; }
done
[ "$fails" = 0 ] && echo "across: $(basename "$1") on $hostlist under $scheme: OK ($((after - before)) bytes over host 2's link)"
exit "$fails"
