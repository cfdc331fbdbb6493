#!/usr/bin/env bash
# tests/hosts/two_hosts.sh — jobs whose ranks run on two (and three) hosts: the root namespace and
# test hosts made by netns.sh (own network, host name and /dev/shm each). xhost checks every pair's
# data and prints which transport carries each pair; this script asserts:
#   - CREDO_XPORT=auto, 3 ranks (rank 1 on host 1), 4 ranks (ranks 2, 3 on host 1) and 4 ranks over
#     three hosts (rank 0 root, ranks 1, 3 on host 1, rank 2 on host 2): exit 0, every rank verified
#     its messages with no error, "shm" between ranks of one host, "ofi" across hosts, "self" for
#     itself, the host names as placed, and the cross-host bytes went over the test bridge;
#   - CREDO_XPORT=ofi, 4 ranks (two per host): exit 0, data verified, "ofi" between every two ranks;
#   - CREDO_XPORT=shm across hosts: a start-up failure (not 0, not a timeout) with a one-line
#     explanation naming CREDO_XPORT=shm and the other host, and no shm_open error.
# All ranks get FI_PROVIDER="tcp;ofi_rxm" and (on_host.sh) FI_TCP_IFACE = their host's test link.
# usage: two_hosts.sh CREDORUN XHOST [SEED] ; exit 77 (skipped) without namespaces or veth
set -u
credorun=$1 prog=$2
seed=${3:-${XHOST_SEED:-$(( $(date +%s) % 1000000 * 1000 + $$ % 1000 ))}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
hosts_up 2
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
roothost=$(hostname)
br=$(hosts_iface 0)
echo "two_hosts: seed $seed; root namespace host $roothost on $br $(hosts_ip 0), host 1 $(hosts_ip 1), host 2 $(hosts_ip 2)"

# Job timeouts share a budget that keeps the five jobs inside ctest's TIMEOUT 120 even if they all hang;
# a job may use up to 45 s of it (a loaded machine: ranks poll, and 2 cores may carry 4 ranks and more),
# leaving 8 s for each job after it.
deadline=$(( $(date +%s) + ${XHOST_BUDGET:-105} )) jobs_left=5
next_timeout() {
    local t=$(( deadline - $(date +%s) - 8 * (jobs_left - 1) ))
    jobs_left=$((jobs_left - 1))
    [ "$t" -gt 45 ] && t=45
    [ "$t" -lt 8 ] && t=8
    job_timeout=$t
}

# A job still running shortly before its timeout: every rank's stacks (with gdb), so a hang shows where.
stack_watch() {
    local c p
    for _ in $(seq $(( (job_timeout - 5) * 10 ))); do sleep 0.1; done
    command -v gdb >/dev/null 2>&1 || return 0
    for c in $(pgrep -P $$ -x credorun); do
        for p in $(pgrep -P "$c"); do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = credorun-wdog ] && continue
            echo "=== $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) (pid $p, $(grep -E '^PMI_RANK=' -z "/proc/$p/environ" 2>/dev/null | tr -d '\0'))"
            timeout 10 gdb -p "$p" -batch -ex "thread apply all bt 15" 2>&1 | grep -E '^(#|Thread)'
        done
    done
}

# run NAME XPORT MAP: one job, one rank per entry of MAP (host of each rank); sets rc, out, err.
# Every rank notes its progress on stderr (XHOST_TRACE), shown with the rest when the job fails.
run() {
    local name=$1 xport=$2 map=$3 np wpid t1
    np=$(wc -w <<<"$map")
    next_timeout
    out=$HOSTS_DIR/$name.out err=$HOSTS_DIR/$name.err stacks=$HOSTS_DIR/$name.stacks
    t0=$(date +%s.%N)
    stack_watch >"$stacks" 2>&1 &
    wpid=$!
    NETNS_HOSTS_MAP="$map" FI_PROVIDER="tcp;ofi_rxm" CREDO_XPORT=$xport XHOST_TRACE=1 \
        "$credorun" -n "$np" --timeout "$job_timeout" "$here/on_host.sh" "$prog" "$seed" >"$out" 2>"$err"
    rc=$?
    t1=$(date +%s.%N)
    kill "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

show() {
    echo "--- $1 stdout"; cat "$out"
    echo "--- $1 stderr"; cat "$err"
    [ -s "$stacks" ] && { echo "--- $1: stacks of the ranks $((job_timeout - 5)) s after the start"; cat "$stacks"; }
    return 0
}

# check_job NAME XPORT MAP: a job that must run, with every pair verified and the transports as placed.
check_job() {
    local name=$1 xport=$2 map=$3 before after f0=$fails
    local -a h
    read -ra h <<<"$map"
    local np=${#h[@]} r p want got host
    before=$(cat "/sys/class/net/$br/statistics/rx_bytes")
    run "$name" "$xport" "$map"
    after=$(cat "/sys/class/net/$br/statistics/rx_bytes")
    if [ "$rc" -ne 0 ]; then
        fail "$name: exit status $rc after $took s (timeout $job_timeout s)"
        show "$name"
        return
    fi
    grep -q "FAIL" "$err" && fail "$name: data errors"
    grep -vE "^xhost: rank [0-9]+: .* done at " "$err" | grep -q . && fail "$name: unexpected messages on stderr"
    for ((r = 0; r < np; r++)); do
        grep -qE "^xhost: rank $r verified [1-9][0-9]* messages, 0 errors$" "$out" || fail "$name: rank $r did not verify its messages"
        if [ "${h[r]}" = 0 ]; then host=$roothost; else host=credo-h${h[r]}; fi
        for ((p = 0; p < np; p++)); do
            if [ "$r" = "$p" ]; then want=self
            elif [ "$xport" = ofi ] || [ "${h[r]}" != "${h[p]}" ]; then want=ofi
            else want=shm; fi
            got=$(sed -nE "s/^xhost: rank $r host ([^ ]+) peer $p transport ([^ ]+)$/\1 \2/p" "$out")
            [ "$got" = "$host $want" ] || fail "$name: rank $r (host ${h[r]}) to rank $p (host ${h[p]}): got '${got:-nothing}', expected '$host $want'"
        done
    done
    # Data from the test hosts to the root namespace arrives through the bridge: at least one 8 MiB message.
    case " $map " in
    *" 0 "*) [ $((after - before)) -ge $((8 << 20)) ] ||
        fail "$name: only $((after - before)) bytes arrived over $br" ;;
    esac
    if [ "$fails" -ne "$f0" ]; then show "$name"; else echo "two_hosts: $name ($xport, hosts of ranks: $map): OK in $took s"; fi
}

check_job auto.np3 auto "0 1 0"
check_job auto.np4 auto "0 0 1 1"
check_job auto.3hosts auto "0 1 2 1"
check_job ofi.np4 ofi "0 0 1 1"

# Shared memory only, across hosts: refused at start-up with one line, not a hang.
f0=$fails
run shm.np3 shm "0 1 0"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "shm.np3: exit status $rc after $took s, expected a start-up failure (not 0, not a timeout)"
grep -qE "^credo: .*CREDO_XPORT=shm.*" "$err" || fail "shm.np3: no line explaining that CREDO_XPORT=shm cannot reach the other host"
grep -E "^credo: .*CREDO_XPORT=shm" "$err" | grep -q "credo-h1" || fail "shm.np3: the explanation does not name host credo-h1"
grep -q "shm_open" "$err" && fail "shm.np3: an shm_open error instead of the explanation"
[ "$fails" -eq "$f0" ] && echo "two_hosts: shm.np3 (CREDO_XPORT=shm across hosts) refused: $(grep -m1 -E '^credo: .*CREDO_XPORT=shm' "$err")"
[ "$fails" -eq "$f0" ] || show shm.np3

[ "$fails" -eq 0 ] && echo "two_hosts: OK"
[ "$fails" -eq 0 ] || echo "two_hosts: $fails failures (seed $seed)"
exit $((fails > 0))
