#!/usr/bin/env bash
# tests/net/rma_hosts.sh — one-sided communication across hosts: mpit_rma_stress (every operation
# and synchronization, byte-verified against its model) with ranks on two hosts made by
# tests/hosts/netns.sh (own network, host name and /dev/shm each). Asserts, for 3 ranks with rank 1
# on host 1 and for 4 ranks two per host: exit 0, all three window flavors done, "shm" between ranks
# of one host and "ofi" across hosts (so windows mix both paths: shared memory and CMA on a host,
# network RMA and requests across), and MPI_Win_allocate_shared over the hosts refused; and the
# 4-rank job once more with CREDO_XPORT=ofi ("ofi" between all: the network within a host too).
# usage: rma_hosts.sh CREDORUN RMA_STRESS [SEED] ; exit 77 (skipped) without namespaces or veth
set -u
credorun=$1 prog=$2
seed=${3:-${RMA_STRESS_SEED:-$(( $(date +%s) % 1000000 * 1000 + $$ % 1000 ))}}
here=$(cd "$(dirname "$0")" && pwd)
hostsdir=$here/../hosts
. "$hostsdir/netns.sh"
hosts_up 1
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
roothost=$(hostname)
echo "rma_hosts: seed $seed; root namespace $roothost, host 1 $(hosts_ip 1)"

# job NAME XPORT MAP ARGS...: one run, rank r on host ${MAP[r]}; checks the outcome and transports.
job() {
    local name=$1 xport=$2 map=$3 out=$HOSTS_DIR/$1.out err=$HOSTS_DIR/$1.err r p want got host f0=$fails
    shift 3
    local -a h
    read -ra h <<<"$map"
    local np=${#h[@]} t0=$SECONDS
    NETNS_HOSTS_MAP="$map" FI_PROVIDER="tcp;ofi_rxm" CREDO_XPORT=$xport RMA_STRESS_TRANSPORTS=1 \
        "$credorun" -n "$np" --timeout 35 "$hostsdir/on_host.sh" "$prog" "$@" >"$out" 2>"$err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "$name: exit status $rc"
    grep -q "^ok: dynamic:" "$out" || fail "$name: the dynamic-window rounds did not finish"
    grep -q "^ok: MPI_Win_allocate_shared across .* refused" "$out" || fail "$name: MPI_Win_allocate_shared over two hosts not refused"
    for ((r = 0; r < np; r++)); do
        if [ "${h[r]}" = 0 ]; then host=$roothost; else host=credo-h${h[r]}; fi
        for ((p = 0; p < np; p++)); do
            if [ "$r" = "$p" ]; then want=self
            elif [ "$xport" = ofi ] || [ "${h[r]}" != "${h[p]}" ]; then want=ofi
            else want=shm; fi
            got=$(sed -nE "s/^rma_stress: rank $r host ([^ ]+) peer $p transport ([^ ]+)$/\1 \2/p" "$out")
            [ "$got" = "$host $want" ] || fail "$name: rank $r to rank $p: got '${got:-nothing}', expected '$host $want'"
        done
    done
    if [ "$fails" -ne "$f0" ]; then
        echo "--- $name stdout"; cat "$out"; echo "--- $name stderr"; cat "$err"
    else
        echo "rma_hosts: $name ($xport, hosts of ranks: $map): OK in $((SECONDS - t0)) s"
    fi
}

job np3 auto "0 1 0" "$seed" 6
job np4 auto "0 0 1 1" "$((seed + 1))" 6
job np4.ofi ofi "0 0 1 1" "$((seed + 2))" 6

[ "$fails" -eq 0 ] && echo "rma_hosts: OK"
[ "$fails" -eq 0 ] || echo "rma_hosts: $fails failures (seed $seed)"
exit $((fails > 0))
