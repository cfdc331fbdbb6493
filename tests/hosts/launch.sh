#!/usr/bin/env bash
# tests/hosts/launch.sh — credorun across test hosts: jobs started from test host 1 with the ssh
# stand-in agent.sh, checked for data, transports, placement, output, exit status, faults and leftovers.
#
# usage: launch.sh CASE CREDORUN XHOST SPIN [STATE]
#   STATE: the file of the ctest fixture hosts.setup (4 hosts); without it the case makes its own.
# Cases:
#   fc-none, fc-static, fc-dynamic  xhost on 2 hosts x 2 ranks under CREDO_FC=<scheme>: exit 0, every
#                  pair's data verified, shm between the ranks of a host and ofi across (credo_peer_transport),
#                  host names as placed, >= 8 MiB over host 2's link, nothing left on any host
#   4hosts         xhost on 4 hosts (1+1+1+1 ranks under each scheme, then 2+2+2+2 with --tree-fanout 1:
#                  a chain of proxies, every fence and line relayed through the ones above)
#   placement      --host a:2,b:2, hostfile (host slots=N and host:N), --map-by node, --ppn, -x, env
#                  forwarding through an agent that passes none, CREDO_NET_IF / CREDO_LAUNCH_AGENT, FI_TCP_IFACE,
#                  --tag-output, the worst rank's exit status with the line naming rank and host
#   fault-rank     a rank on host 2 SIGKILLed mid-job
#   fault-proxy    host 2's proxy SIGKILLed mid-job
#   fault-link     host 2's link cut (ip link set down) mid-job
#   signal         SIGTERM, then SIGINT (Ctrl-C) to credorun mid-job
#   abort          rank 3 (host 2) calls MPI_Abort(5): exit status 5
#                  Each fault: the job ends within 2 s (measured, printed) with one line naming the rank
#                  or host and the cause, and no process or /dev/shm file is left on any host.
#   fault-head     credorun itself SIGKILLed: every host clean within 2 s all the same (the proxies
#                  see their link close, the head's own ranks die with it and its watchdog cleans up)
#   node-aware     xhost_nodeaware (next to XHOST): processor name = host name, MPI_COMM_TYPE_SHARED
#                  and MPI_Win_allocate_shared follow the hosts, with ranks dealt round robin
# Exit 77 (skipped) without namespaces; traffic only on loopback and the test subnet (FI_TCP_IFACE and
# --iface ceth0, and no test host has a route anywhere else).
set -u
case_name=$1 credorun=$2 xhost=$3 spin=$4 state=${5:-}
nodeaware=$(dirname "$xhost")/xhost_nodeaware
here=$(cd "$(dirname "$0")" && pwd)
agent=$here/agent.sh
. "$here/netns.sh"
if [ -n "$state" ]; then
    hosts_attach "$state" || exit $?
else
    hosts_up 4 || exit $?
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/credo-launch.XXXXXX")
cleanup_tmp() { rm -rf "$tmp"; }
trap 'cleanup_tmp; hosts_down' EXIT
export FI_PROVIDER="tcp;ofi_rxm"
# Faults must be seen within 2 s; a loaded 2-core machine (sanitized ranks polling) gets a bit more.
limit_ms=${LAUNCH_FAULT_LIMIT_MS:-2000}
[ -n "${CREDO_TEST_SANITIZED:-}" ] && limit_ms=${LAUNCH_FAULT_LIMIT_MS:-4000}

now_ms() { date +%s%3N; }

# crun ARGS...: credorun on host 1 (the head), through the agent, on ceth0; sets rc, out, err, took_ms.
crun() {
    local t0
    t0=$(now_ms)
    hosts_exec 1 "$credorun" --launch-agent "$agent" --iface ceth0 --timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    took_ms=$(($(now_ms) - t0))
}

show() {
    echo "--- stdout"; head -c 20000 "$tmp/out"
    echo "--- stderr"; head -c 20000 "$tmp/err"
}

# Nothing of the job may remain: in every host's namespace only its holder, and no /dev/shm file.
# Waits up to 3 s for processes that are on their way out.
check_clean() {
    local what=$1 k ns holder left p
    for k in $(seq "$HOSTS_N"); do
        ns=$(cat "$HOSTS_DIR/host$k.ns") holder=$(cat "$HOSTS_DIR/host$k.pid")
        for _ in $(seq 30); do
            left=
            for p in $(ip netns pids "$ns" 2>/dev/null); do
                [ "$p" = "$holder" ] || left="$left $p($(cat "/proc/$p/comm" 2>/dev/null))"
            done
            [ -z "$left" ] && break
            sleep 0.1
        done
        [ -z "$left" ] || fail "$what: processes left on host $k:$left"
        left=$(hosts_exec "$k" ls -A /dev/shm)
        [ -z "$left" ] || fail "$what: files left in host $k's /dev/shm: $left"
    done
}

# check_xhost NAME MAP: the xhost job that just ran placed rank r on host ${MAP[r]}.
check_xhost() {
    local name=$1 map=$2 f0=$fails r p want got np
    local -a h
    read -ra h <<<"$map"
    np=${#h[@]}
    if [ "$rc" -ne 0 ]; then
        fail "$name: exit status $rc after $took_ms ms"
        show
        return
    fi
    grep -q "FAIL" "$tmp/err" && fail "$name: data errors"
    for ((r = 0; r < np; r++)); do
        grep -qE "^xhost: rank $r verified [1-9][0-9]* messages, 0 errors$" "$tmp/out" || fail "$name: rank $r did not verify its messages"
        for ((p = 0; p < np; p++)); do
            if [ "$r" = "$p" ]; then want=self
            elif [ "${h[r]}" != "${h[p]}" ]; then want=ofi
            else want=shm; fi
            got=$(sed -nE "s/^xhost: rank $r host ([^ ]+) peer $p transport ([^ ]+)$/\1 \2/p" "$tmp/out")
            [ "$got" = "credo-h${h[r]} $want" ] || fail "$name: rank $r (host ${h[r]}) to rank $p (host ${h[p]}): got '${got:-nothing}', expected 'credo-h${h[r]} $want'"
        done
    done
    [ "$fails" -ne "$f0" ] && show
    [ "$fails" -eq "$f0" ] && echo "launch: $name (hosts of ranks: $map): OK in $took_ms ms"
}

link_rx() { cat "/sys/class/net/crv$1-$(cat "$HOSTS_DIR/tag")/statistics/rx_bytes"; }

# A job of spin (runs until killed) in the background; waits until all NP ranks are ready.
spin_start() {
    local np=$1
    shift
    hosts_exec 1 "$credorun" --launch-agent "$agent" --iface ceth0 --timeout 60 "$@" "$spin" 40 >"$tmp/out" 2>"$tmp/err" &
    job=$!
    for _ in $(seq 300); do
        [ "$(grep -c '^spin: ready' "$tmp/out")" -ge "$np" ] && return 0
        kill -0 "$job" 2>/dev/null || break
        sleep 0.05
    done
    fail "$case_name: the spin job did not get ready"
    show
    kill -TERM "$job" 2>/dev/null
    wait "$job"
    return 1
}

# Waits for the job, measures from t_fault, and checks the status, the one line and the leftovers.
spin_end() {
    local want_rc=$1 line_re=$2 t1 ms host_gone_ms=""
    wait "$job"
    rc=$?
    t1=$(now_ms)
    ms=$((t1 - t_fault))
    [ "$rc" = "$want_rc" ] || fail "$case_name: exit status $rc, expected $want_rc"
    [ "$ms" -le "$limit_ms" ] || fail "$case_name: the job took $ms ms to end after the fault (limit $limit_ms ms)"
    grep -qE "$line_re" "$tmp/err" || fail "$case_name: no line matching '$line_re'"
    [ "$(grep -c '^credorun: ' "$tmp/err")" -le 1 ] || fail "$case_name: more than one credorun line"
    check_clean "$case_name"
    # when the last process of the job was gone from every host (check_clean waited for it)
    local all_ms=$(($(now_ms) - t_fault))
    [ "$all_ms" -le "$limit_ms" ] || fail "$case_name: processes remained on some host until $all_ms ms after the fault (limit $limit_ms ms)"
    echo "launch: $case_name: credorun ended $ms ms after the fault (exit $rc), every host clean by $all_ms ms: $(grep -m1 '^credorun: ' "$tmp/err")"
    [ "$fails" -eq 0 ] || show
}

rank_pid() { sed -nE "s/^spin: ready rank $1 host [^ ]+ pid ([0-9]+)$/\1/p" "$tmp/out"; }

case $case_name in
fc-none | fc-static | fc-dynamic)
    fc=${case_name#fc-}
    before=$(link_rx 2)
    crun --host credo-h1:2,credo-h2:2 --fc "$fc" "$xhost"
    after=$(link_rx 2)
    check_xhost "$case_name" "1 1 2 2"
    # the bytes host 2's ranks sent reached host 1 over host 2's link (at least one 8 MiB message)
    [ $((after - before)) -ge $((8 << 20)) ] || fail "$case_name: only $((after - before)) bytes over host 2's link"
    check_clean "$case_name"
    ;;
4hosts)
    for fc in none static dynamic; do
        crun --host credo-h1,credo-h2,credo-h3,credo-h4 -n 4 --fc "$fc" "$xhost"
        check_xhost "4hosts.1+1+1+1.$fc" "1 2 3 4"
    done
    crun --host credo-h1:2,credo-h2:2,credo-h3:2,credo-h4:2 --tree-fanout 1 "$xhost"
    check_xhost "4hosts.2+2+2+2.chain" "1 1 2 2 3 3 4 4"
    check_clean "$case_name"
    ;;
placement)
    prog='echo "rank $PMI_RANK/$PMI_SIZE host $(hostname) local $MPI_LOCALRANKID/$MPI_LOCALNRANKS if ${FI_TCP_IFACE:-none} foo ${FOO:-unset} netif ${CREDO_NET_IF:-unset}"'
    expect_hosts() { # NAME h0 h1 ...: rank r ran on host credo-h<h_r>
        local name=$1 r=0 h
        shift
        [ "$rc" = 0 ] || { fail "$name: exit status $rc"; show; return; }
        for h in "$@"; do
            grep -qE "^rank $r/$# host credo-h$h " "$tmp/out" || { fail "$name: rank $r not on credo-h$h"; show; }
            r=$((r + 1))
        done
    }
    crun --host credo-h1:2,credo-h2:2 -n 4 -x FOO=bar sh -c "$prog"
    expect_hosts "--host a:2,b:2" 1 1 2 2
    grep -q "^rank 3/4 host credo-h2 local 1/2 if ceth0 foo bar netif unset$" "$tmp/out" ||
        { fail "local rank, FI_TCP_IFACE or -x wrong on host 2"; show; }
    printf '# two syntaxes\ncredo-h1 slots=1\ncredo-h2:3 # Open MPI and hydra\n\n' >"$tmp/hostfile"
    crun --hostfile "$tmp/hostfile" sh -c "$prog"
    expect_hosts "hostfile (slots=1, :3; -n from the slots)" 1 2 2 2
    crun --host credo-h1:2,credo-h2:2 --map-by node -n 4 sh -c "$prog"
    expect_hosts "--map-by node" 1 2 1 2
    crun --host credo-h1,credo-h2,credo-h3 --ppn 2 sh -c "$prog"
    expect_hosts "--ppn 2 over 3 hosts" 1 1 2 2 3 3
    # the head's own host not among them: it runs no rank; Open MPI's spelling of agent and interface
    t0=$(now_ms)
    hosts_exec 1 "$credorun" --mca plm_rsh_agent "$agent" --mca oob_tcp_if_include ceth0 -H credo-h2,credo-h3 \
        -np 2 sh -c "$prog" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    expect_hosts "only other hosts, --mca plm_rsh_agent and oob_tcp_if_include" 2 3
    # the settings from the environment instead of options; credorun passes neither to the ranks
    t0=$(now_ms)
    CREDO_NET_IF=ceth0 CREDO_LAUNCH_AGENT=$agent FOO=env hosts_exec 1 "$credorun" --host credo-h1,credo-h2 -n 2 \
        sh -c "$prog" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    expect_hosts "CREDO_NET_IF, CREDO_LAUNCH_AGENT" 1 2
    grep -q "^rank 1/2 host credo-h2 local 0/1 if ceth0 foo env netif unset$" "$tmp/out" ||
        { fail "CREDO_NET_IF: FI_TCP_IFACE, forwarded environment or CREDO_NET_IF wrong on host 2"; show; }
    # --tag-output: [rank@host], whole lines, nothing lost; stderr stays stderr
    crun --host credo-h1:1,credo-h2:2 --tag-output sh -c 'for i in 1 2 3; do echo "line $i of $PMI_RANK"; done; echo "err $PMI_RANK" >&2'
    [ "$rc" = 0 ] || fail "tag-output: exit status $rc"
    for r in 0 1 2; do
        h=$([ "$r" = 0 ] && echo 1 || echo 2)
        [ "$(grep -c "^\[$r@credo-h$h\] line [123] of $r$" "$tmp/out")" = 3 ] || { fail "tag-output: rank $r's lines"; show; }
        grep -q "^\[$r@credo-h$h\] err $r$" "$tmp/err" || { fail "tag-output: rank $r's stderr line"; show; }
    done
    # much output from a remote rank: every line, in order, none lost at the end
    crun --host credo-h1:1,credo-h2:1 --tag-output sh -c '[ "$PMI_RANK" = 1 ] && seq 1 20000; true'
    [ "$rc" = 0 ] || fail "output volume: exit status $rc"
    [ "$(sed -n 's/^\[1@credo-h2\] //p' "$tmp/out" | tr '\n' ' ')" = "$(seq 1 20000 | tr '\n' ' ')" ] ||
        fail "output volume: rank 1's 20000 lines did not arrive whole and in order ($(grep -c '^\[1@' "$tmp/out") lines)"
    # the worst rank's status, and one line naming rank and host
    crun --host credo-h1:2,credo-h2:2 sh -c 'sleep 0.3; [ "$PMI_RANK" = 3 ] && exit 7; exit 0'
    [ "$rc" = 7 ] || fail "exit status: $rc, expected 7 (rank 3's)"
    grep -qE "^credorun: rank 3 \(pid [0-9]+\) on host credo-h2 exited with code 7" "$tmp/err" ||
        { fail "exit status: no line naming rank 3 on credo-h2"; show; }
    crun --host credo-h1:1,credo-h2:1 sh -c 'exit 0'
    [ "$rc" = 0 ] || fail "all ranks 0: exit status $rc"
    # a rank that is no MPI program, alone on its host, while the others wait in MPI_Init's fence:
    # only the head sees both (the fence begun elsewhere, the exit), and ends the job
    crun --host credo-h1:2,credo-h2:1 sh -c '[ "$PMI_RANK" = 2 ] && exit 0; exec "$0" 5' "$spin"
    [ "$rc" = 1 ] || fail "barrier orphan: exit status $rc, expected 1"
    grep -qE "^credorun: rank 2 \(pid [0-9]+\) on host credo-h2 exited with code 0 while the others wait in a barrier" "$tmp/err" ||
        { fail "barrier orphan: no line naming rank 2 on credo-h2"; show; }
    # an agent that hangs (a host that never answers ssh): the launch timeout ends the job, and the
    # agent is ended with it
    printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 60\n' "$tmp/hang.pid" >"$tmp/hang-agent"
    chmod +x "$tmp/hang-agent"
    t0=$(now_ms)
    hosts_exec 1 "$credorun" --launch-agent "$tmp/hang-agent" --launch-timeout 1 --iface ceth0 \
        --host credo-h1,credo-h2 -n 2 sh -c 'sleep 30' >"$tmp/out" 2>"$tmp/err"
    rc=$? took_ms=$(($(now_ms) - t0))
    [ "$rc" = 255 ] || fail "launch timeout: exit status $rc, expected 255"
    grep -q "^credorun: host credo-h2 (rank 1): the proxy did not connect within 1 s" "$tmp/err" ||
        { fail "launch timeout: no line naming credo-h2"; show; }
    # (1 s of timeout, a tick, the kill; generous, as the machine may be loaded)
    [ "$took_ms" -le 8000 ] || fail "launch timeout: the job took $took_ms ms (--launch-timeout 1)"
    echo "launch: launch timeout (1 s): the job ended after $took_ms ms"
    kill -0 "$(cat "$tmp/hang.pid")" 2>/dev/null && fail "launch timeout: the hanging agent is still there"
    check_clean placement
    [ "$fails" -eq 0 ] && echo "launch: placement, environment, tag-output, exit status, barrier orphan, launch timeout: OK"
    ;;
fault-rank)
    spin_start 4 --host credo-h1:2,credo-h2:2 || exit 1
    p=$(rank_pid 3)
    t_fault=$(now_ms)
    kill -KILL "$p"
    spin_end 137 "^credorun: rank 3 \(pid $p\) on host credo-h2 was killed by signal SIGKILL"
    ;;
fault-proxy)
    spin_start 4 --host credo-h1:2,credo-h2:2 || exit 1
    ns=$(cat "$HOSTS_DIR/host2.ns")
    proxy=
    for p in $(ip netns pids "$ns"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = credorun ] && grep -qz -- '^--proxy$' "/proc/$p/cmdline" && proxy=$p
    done
    [ -n "$proxy" ] || { fail "no proxy process on host 2"; kill -TERM "$job"; wait "$job"; exit 1; }
    t_fault=$(now_ms)
    kill -KILL "$proxy"
    # (closed, or reset when the killed proxy left unread pings in its socket)
    spin_end 255 "^credorun: host credo-h2 \(ranks 2-3\): proxy lost: connection (closed|lost: Connection reset by peer)"
    ;;
fault-link)
    spin_start 4 --host credo-h1:2,credo-h2:2 || exit 1
    trap 'hosts_link 2 up; cleanup_tmp; hosts_down' EXIT
    t_fault=$(now_ms)
    hosts_link 2 down
    spin_end 255 "^credorun: host credo-h2 \(ranks 2-3\): proxy lost: no answer for 1.0 s"
    hosts_link 2 up
    ;;
signal)
    for sig in TERM INT; do # (INT: Ctrl-C at a terminal)
        spin_start 4 --host credo-h1:2,credo-h2:2 || exit 1
        head=$(pgrep -P "$job" -x credorun || echo "$job") # hosts_exec: nsenter execs credorun in place
        t_fault=$(now_ms)
        kill "-$sig" "$head"
        spin_end $((128 + $(kill -l "$sig"))) "^credorun: received SIG$sig, killing the job"
    done
    ;;
abort)
    hosts_exec 1 "$credorun" --launch-agent "$agent" --iface ceth0 --timeout 60 --host credo-h1:2,credo-h2:2 \
        "$nodeaware" abort 3 5 >"$tmp/out" 2>"$tmp/err" &
    job=$!
    wait "$job"
    rc=$? t1=$(now_ms)
    # timed from the moment rank 3 called MPI_Abort (its wall clock: the same on every test host)
    t_fault=$(sed -nE 's/^nodeaware: rank 3 aborting at ([0-9]+) ms$/\1/p' "$tmp/out")
    [ -n "$t_fault" ] || { fail "abort: rank 3 did not say when it aborted"; show; t_fault=$t1; }
    ms=$((t1 - t_fault))
    [ "$rc" = 5 ] || fail "abort: exit status $rc, expected 5"
    [ "$ms" -le "$limit_ms" ] || fail "abort: the job took $ms ms to end after MPI_Abort (limit $limit_ms ms)"
    grep -qE "^credorun: rank 3 on host credo-h2 called MPI_Abort with code 5" "$tmp/err" || { fail "abort: no line naming rank 3 on credo-h2"; show; }
    [ "$(grep -c '^credorun: ' "$tmp/err")" -le 1 ] || fail "abort: more than one credorun line"
    check_clean abort
    all_ms=$(($(now_ms) - t_fault))
    [ "$all_ms" -le "$limit_ms" ] || fail "abort: processes remained on some host until $all_ms ms after MPI_Abort"
    echo "launch: abort: credorun ended $ms ms after MPI_Abort (exit $rc), every host clean by $all_ms ms"
    ;;
fault-head)
    spin_start 4 --host credo-h1:2,credo-h2:2 || exit 1
    head=$(pgrep -P "$job" -x credorun || echo "$job")
    t_fault=$(now_ms)
    kill -KILL "$head"
    wait "$job"
    check_clean "$case_name"
    all_ms=$(($(now_ms) - t_fault))
    [ "$all_ms" -le "$limit_ms" ] || fail "$case_name: processes remained on some host until $all_ms ms after the fault (limit $limit_ms ms)"
    echo "launch: $case_name: credorun SIGKILLed, every host clean by $all_ms ms"
    ;;
node-aware)
    crun --host credo-h1:2,credo-h2:2,credo-h3:1 --map-by node -n 5 "$nodeaware"
    [ "$rc" = 0 ] || { fail "node-aware: exit status $rc"; show; }
    # round robin: ranks 0 3 on h1, 1 4 on h2, 2 on h3
    for want in "0 credo-h1 2" "1 credo-h2 2" "2 credo-h3 1" "3 credo-h1 2" "4 credo-h2 2"; do
        set -- $want
        grep -qx "nodeaware: rank $1 host $2 node-size $3 ok" "$tmp/out" || { fail "node-aware: rank $1 (host $2, node of $3) not ok"; show; }
    done
    check_clean "$case_name"
    [ "$fails" -eq 0 ] && echo "launch: node-aware: processor names, shared communicators and shared windows follow the hosts"
    ;;
*)
    echo "launch.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
[ "$fails" -eq 0 ] || echo "launch: $case_name: $fails failures"
exit $((fails > 0))
