#!/usr/bin/env bash
# tests/boot/launcher_test.sh — credorun's behaviour seen from outside: exit codes, teardown after a
# failing rank, timeouts, output tagging, signals to credorun, cleanup of processes and /dev/shm.
# usage: launcher_test.sh CASE CREDORUN BOOT_PROBE
set -u
case_name=$1 credorun=$2 probe=$3
rnd=$RANDOM
marker="credo-launcher-test-$$-$rnd"
# The bracket keeps grep from matching its own command line.
marker_re="credo-launcher-test-$$-[${rnd:0:1}]${rnd:1}"
tmp=$(mktemp -d)
fails=0

marked_pids() {
    local f
    for f in $(grep -l -a -- "$marker_re" /proc/[0-9]*/cmdline 2>/dev/null); do
        f=${f#/proc/}
        echo "${f%/cmdline}"
    done
}
cleanup() {
    local p
    for p in $(marked_pids); do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { [ "$1" = "$2" ] || fail "exit status $1, expected $2"; }
expect_grep() { grep -qE -- "$1" "$2" || { fail "no line matching '$1' in $2:"; cat "$2"; }; }
now_ms() { date +%s%3N; }

# Polls (up to $2 seconds) until no process carries the marker; fails naming the leftovers.
expect_no_processes() {
    local until=$(($(now_ms) + ${1:-3} * 1000)) left
    while :; do
        left=$(marked_pids)
        [ -z "$left" ] && return 0
        [ "$(now_ms)" -ge "$until" ] && break
        sleep 0.05
    done
    fail "processes left behind: $left"
    for p in $left; do tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline"; echo; done
}
expect_no_shm() {
    local until=$(($(now_ms) + ${2:-3} * 1000))
    while compgen -G "/dev/shm/credo.$1.*" >/dev/null; do
        if [ "$(now_ms)" -ge "$until" ]; then
            fail "shared-memory files left behind: $(echo /dev/shm/credo."$1".*)"
            return
        fi
        sleep 0.05
    done
}
# Waits until the job's ranks have created their /dev/shm files; prints the job id.
wait_for_shm() {
    local crpid=$1 n=$2 i
    for i in $(seq 1 200); do
        set -- /dev/shm/credo.credo-"$crpid"-*
        if [ -e "$1" ] && [ $# -ge "$n" ]; then
            local f=${1#/dev/shm/credo.}
            echo "${f%.*}"
            return 0
        fi
        sleep 0.025
    done
    return 1
}

# Runs credorun, recording status, elapsed ms, stdout and stderr.
run() {
    local t0=$(now_ms)
    "$credorun" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    elapsed=$(($(now_ms) - t0))
}

case $case_name in
exit-status)
    run -n 3 "$probe" --exit-after-finalize 2:5 --marker "$marker"
    expect_rc $rc 5
    expect_grep '^boot_probe: 3 ranks ok' "$tmp/out"
    run -n 2 sh -c 'exit $((PMI_RANK * 4))'
    expect_rc $rc 4
    expect_grep '^credorun: rank 1 \(pid [0-9]+\) exited with code 4 before finalize' "$tmp/err"
    run -np 2 true
    expect_rc $rc 0
    ;;
crash)
    run -n 4 "$probe" --crash 2 --marker "$marker"
    expect_rc $rc 139
    expect_grep '^credorun: rank 2 \(pid [0-9]+\) was killed by signal SIGSEGV, killing the job$' "$tmp/err"
    [ "$(grep -c '^credorun:' "$tmp/err")" = 1 ] || fail "expected exactly one credorun line"
    [ "$elapsed" -lt 2500 ] || fail "job took $elapsed ms to die after the crash"
    expect_no_processes 1
    ;;
nonzero-exit)
    run -n 3 "$probe" --exit 1:3 --marker "$marker"
    expect_rc $rc 3
    expect_grep '^credorun: rank 1 \(pid [0-9]+\) exited with code 3 before finalize, killing the job$' "$tmp/err"
    [ "$elapsed" -lt 2500 ] || fail "job took $elapsed ms to die"
    expect_no_processes 1
    ;;
abort)
    run -n 3 "$probe" --abort 1:7 --marker "$marker"
    expect_rc $rc 7
    expect_grep '^credorun: rank 1 called MPI_Abort with code 7$' "$tmp/err"
    run -n 3 -x CREDO_PMI=2 "$probe" --abort 2:9 --marker "$marker"
    expect_rc $rc 9
    expect_grep '^credorun: rank 2 called MPI_Abort with code 9$' "$tmp/err"
    expect_no_processes 1
    ;;
stubborn-rank)
    # A rank that ignores SIGTERM still dies: SIGKILL follows about a second later.
    run -n 2 sh -c 'if [ "$PMI_RANK" = 1 ]; then exit 3; fi; trap "" TERM; while :; do sleep 0.1; done' "$marker"
    expect_rc $rc 3
    [ "$elapsed" -lt 2500 ] || fail "stubborn rank survived $elapsed ms"
    expect_no_processes 1
    ;;
timeout)
    run -n 2 --timeout 1 "$probe" --sleep 30 --marker "$marker"
    expect_rc $rc 124
    expect_grep '^credorun: timeout after 1 s, killing the job$' "$tmp/err"
    [ "$elapsed" -lt 4000 ] || fail "--timeout 1 took $elapsed ms"
    expect_no_processes 1
    ;;
tag-output)
    run -n 3 --tag-output "$probe" --lines 50 --marker "$marker"
    expect_rc $rc 0
    grep -vqE '^\[[0-2]\] ' "$tmp/out" && fail "untagged stdout line: $(grep -vE '^\[[0-2]\] ' "$tmp/out" | head -1)"
    for r in 0 1 2; do
        [ "$(grep -c "^\[$r\] out line [0-9]* of rank $r\$" "$tmp/out")" = 50 ] || fail "rank $r: not 50 stdout lines"
        [ "$(grep -c "^\[$r\] err line [0-9]* of rank $r\$" "$tmp/err")" = 50 ] || fail "rank $r: not 50 stderr lines"
        expect_grep "^\[$r\] unterminated $r\$" "$tmp/out"
    done
    ;;
signals)
    for sig in INT TERM HUP; do
        "$credorun" -n 3 "$probe" --shm --sleep 60 --marker "$marker" >"$tmp/out" 2>"$tmp/err" &
        crpid=$!
        jobid=$(wait_for_shm $crpid 3) || { fail "ranks never created their shm files"; kill -KILL $crpid; continue; }
        kill -$sig $crpid
        wait $crpid
        rc=$?
        signum=$(kill -l $sig)
        expect_rc $rc $((128 + signum))
        expect_grep "^credorun: received SIG$sig, killing the job\$" "$tmp/err"
        expect_no_processes 2
        expect_no_shm "$jobid" 0
    done
    ;;
sigkill)
    "$credorun" -n 3 "$probe" --shm --sleep 60 --marker "$marker" >"$tmp/out" 2>"$tmp/err" &
    crpid=$!
    if jobid=$(wait_for_shm $crpid 3); then
        kill -KILL $crpid
        wait $crpid 2>/dev/null
        expect_no_processes 3
        expect_no_shm "$jobid" 3
    else
        fail "ranks never created their shm files"
    fi
    ;;
shm-normal-exit)
    "$credorun" -n 2 "$probe" --shm --marker "$marker" >"$tmp/out" 2>"$tmp/err" &
    crpid=$!
    wait $crpid
    expect_rc $? 0
    expect_no_shm "credo-$crpid-*" 0
    ;;
pmi-garbage)
    # Garbage on PMI_FD gets an error reply, an endless line gets the connection closed; credorun
    # itself carries on and the rank's exit status decides.
    run -n 1 sh -c 'echo "hello there" >&$PMI_FD; head -c 100000 /dev/zero | tr "\0" x >&$PMI_FD; exit 0' "$marker"
    expect_rc $rc 0
    expect_grep "^credorun: rank 0 sent a malformed PMI message 'hello there'" "$tmp/err"
    expect_grep '^credorun: rank 0 sent a PMI message longer than [0-9]+ bytes; closing its PMI connection$' "$tmp/err"
    ;;
barrier-orphan)
    # Rank 1 is not an MPI program: rank 0's fence could never complete, so the job is ended.
    run -n 2 sh -c 'if [ "$PMI_RANK" = 1 ]; then exit 0; fi; exec "$0" --marker "$1"' "$probe" "$marker"
    expect_rc $rc 1
    expect_grep '^credorun: rank 1 \(pid [0-9]+\) exited with code 0 while the others wait in a barrier, killing the job$' "$tmp/err"
    expect_no_processes 1
    ;;
big-job)
    # Many ranks and keys: 100 ranks put 50 keys each (5000 in the KVS) and read their peers'.
    run -n 100 --timeout 60 "$probe" --expect-size 100 --keys 50 --marker "$marker"
    expect_rc $rc 0
    expect_grep '^boot_probe: 100 ranks ok' "$tmp/out"
    ;;
bad-options)
    run -n 2 --fc x true
    expect_rc $rc 2
    expect_grep "^credorun: --fc: expected none, static or dynamic, got 'x'\$" "$tmp/err"
    run -n 0 true
    expect_rc $rc 2
    expect_grep "^credorun: -n: expected a whole number from 1 to [0-9]+, got '0'\$" "$tmp/err"
    run -n 2 ./no-such-program-"$marker"
    expect_rc $rc 127
    expect_grep "^credorun: cannot execute './no-such-program-$marker': No such file or directory\$" "$tmp/err"
    run -n 2
    expect_rc $rc 2
    expect_grep "^credorun: no program given" "$tmp/err"
    run true
    expect_rc $rc 2
    expect_grep "^credorun: missing -n" "$tmp/err"
    run -n 2 --bogus true
    expect_rc $rc 2
    expect_grep "^credorun: unknown option '--bogus'" "$tmp/err"
    run -n 2 --slot-size 12Q true
    expect_rc $rc 2
    expect_grep "^credorun: --slot-size: expected a positive number of bytes, got '12Q'" "$tmp/err"
    run -n 2 --timeout -1 true
    expect_rc $rc 2
    run -n 2 --bind-to socket true
    expect_rc $rc 2
    expect_grep "^credorun: --bind-to: expected core or none, got 'socket'" "$tmp/err"
    run -n
    expect_rc $rc 2
    expect_grep "needs an argument" "$tmp/err"
    run --help
    expect_rc $rc 0
    expect_grep '^usage: credorun -n N' "$tmp/out"
    run --version
    expect_rc $rc 0
    expect_grep '^credorun \(credo\) [0-9]' "$tmp/out"
    expect_no_processes 1
    ;;
env-options)
    run -n 2 --fc static --slot-size 4K --slots-per-peer 8 --credit-slots 16 --fc-report --eager-limit 1M \
        -x CREDO_TEST_VAR=a=b sh -c 'echo "$PMI_RANK/$PMI_SIZE $CREDO_FC $CREDO_SLOT_SIZE $CREDO_SLOTS_PER_PEER $CREDO_CREDIT_SLOTS $CREDO_FC_REPORT $CREDO_EAGER_LIMIT $CREDO_TEST_VAR"' --tag-output
    expect_rc $rc 0
    expect_grep '^0/2 static 4096 8 16 1 1048576 a=b$' "$tmp/out"
    expect_grep '^1/2 static 4096 8 16 1 1048576 a=b$' "$tmp/out"
    # Program arguments that look like options belong to the program.
    run -n 1 sh -c 'echo "$@"' sh --fc bogus -n 7
    expect_rc $rc 0
    expect_grep '^--fc bogus -n 7$' "$tmp/out"
    ;;
compat-options)
    # Options of Open MPI's mpirun and MPICH's mpiexec that job scripts carry (credorun is installed
    # under both names): the harmless ones are accepted, the ones that name other hosts refused.
    run -c 2 --oversubscribe --allow-run-as-root -genvall --map-by core -q -v -genv CREDO_T1 one -env CREDO_T2 "two words" \
        -host "localhost,$(hostname):2" -H localhost:4 -ppn 2 -wdir "$tmp" --mca btl self --report-bindings \
        --bind-to hwthread sh -c 'echo "$PMI_RANK/$PMI_SIZE $CREDO_T1 $CREDO_T2 $(pwd)"'
    expect_rc $rc 0
    expect_grep "^0/2 one two words $tmp\$" "$tmp/out"
    expect_grep "^1/2 one two words $tmp\$" "$tmp/out"
    expect_grep '^credorun: warning: ignoring --mca btl self \(an Open MPI setting\)$' "$tmp/err"
    expect_grep '^credorun: rank 1 bound to CPU [0-9]+$' "$tmp/err"
    # -ppn alone sets the rank count; a hostfile naming only this host is fine.
    printf '# this node\nlocalhost slots=4\n\n%s:2\n' "$(hostname)" >"$tmp/hosts"
    run -ppn 3 -hostfile "$tmp/hosts" sh -c 'echo "$PMI_RANK/$PMI_SIZE"'
    expect_rc $rc 0
    expect_grep '^2/3$' "$tmp/out"
    # "-host" is not "-h" (help, nothing run): before, it printed the usage and exited 0.
    run -n 1 -host localhost sh -c 'echo ran'
    expect_grep '^ran$' "$tmp/out"
    # Other hosts go through the launch agent (here one that fails, so nothing leaves this machine):
    # the job ends with one line naming the host and its ranks. More ranks than this one node holds,
    # with no other host named, are refused before anything starts.
    run -n 2 -host credo-no-such-node --launch-agent false true
    expect_rc $rc 255
    expect_grep "^credorun: host credo-no-such-node \(ranks 0-1\): the launch agent 'false' exited with code 1 before the proxy connected" "$tmp/err"
    printf 'localhost\ncredo-other slots=2\n' >"$tmp/hosts2"
    CREDO_LAUNCH_AGENT=false run -n 2 -machinefile "$tmp/hosts2" true
    expect_rc $rc 255
    expect_grep "^credorun: host credo-other \(rank 1\): the launch agent 'false' exited" "$tmp/err"
    run -n 4 -ppn 2 true
    expect_rc $rc 2
    expect_grep '^credorun: -n 4 at 2 ranks per node needs 2 nodes' "$tmp/err"
    run -n 2 -wdir "$tmp/no-such-dir" true
    expect_rc $rc 2
    expect_grep "^credorun: -wdir: '$tmp/no-such-dir' is not a directory" "$tmp/err"
    run -n 2 -genv CREDO_T1
    expect_rc $rc 2
    expect_grep '^credorun: -genv CREDO_T1: expected NAME VALUE' "$tmp/err"
    ;;
mpmd)
    # "-n 2 A : -n 1 B": one job of 3 ranks, B's rank numbered after A's, each program its own argv.
    run -n 2 sh -c 'echo "A $PMI_RANK/$PMI_SIZE $0"' first : -n 1 sh -c 'echo "B $PMI_RANK/$PMI_SIZE $0"' second
    expect_rc $rc 0
    expect_grep '^A 0/3 first$' "$tmp/out"
    expect_grep '^A 1/3 first$' "$tmp/out"
    expect_grep '^B 2/3 second$' "$tmp/out"
    run -n 1 true : echo
    expect_rc $rc 2
    expect_grep "^credorun: program 2 after ':' must start with -n N \\(got 'echo'\\)" "$tmp/err"
    run -n 1 true : -n 2
    expect_rc $rc 2
    expect_grep "^credorun: no program given for -n 2 after ':'" "$tmp/err"
    # A program that cannot be executed is named, whichever it is.
    run -n 1 true : -n 1 ./no-such-program-"$marker"
    expect_rc $rc 127
    expect_grep "^credorun: cannot execute './no-such-program-$marker'" "$tmp/err"
    ;;
bind)
    ncpu=$(nproc)
    run -n "$ncpu" --bind-to core sh -c 'echo "$PMI_RANK $(sed -n "s/^Cpus_allowed_list:\t*//p" /proc/self/status)"'
    expect_rc $rc 0
    [ "$(wc -l <"$tmp/out")" = "$ncpu" ] || fail "expected $ncpu lines"
    while read -r r cpus; do
        [[ "$cpus" =~ ^[0-9]+$ ]] || fail "rank $r bound to '$cpus', expected one CPU"
    done <"$tmp/out"
    [ "$(cut -d' ' -f2 "$tmp/out" | sort -u | wc -l)" = "$ncpu" ] || fail "ranks share CPUs: $(cat "$tmp/out")"
    # Oversubscribed: still one CPU each by default, round robin (rank i and rank i + ncpu share).
    run -n "$((ncpu * 2))" sh -c 'echo "$PMI_RANK $(sed -n "s/^Cpus_allowed_list:\t*//p" /proc/self/status)"'
    expect_rc $rc 0
    sort -n "$tmp/out" >"$tmp/sorted"
    for r in $(seq 0 $((ncpu - 1))); do
        a=$(awk -v r=$r '$1 == r {print $2}' "$tmp/sorted")
        b=$(awk -v r=$((r + ncpu)) '$1 == r {print $2}' "$tmp/sorted")
        [[ "$a" =~ ^[0-9]+$ ]] || fail "oversubscribed rank $r bound to '$a', expected one CPU"
        [ "$a" = "$b" ] || fail "ranks $r and $((r + ncpu)) should share a CPU: '$a' vs '$b'"
    done
    [ "$(cut -d' ' -f2 "$tmp/out" | sort -u | wc -l)" = "$ncpu" ] || fail "oversubscribed ranks should use every CPU: $(cat "$tmp/out")"
    # --bind-to none leaves them alone
    mine=$(sed -n 's/^Cpus_allowed_list:\t*//p' /proc/self/status)
    run -n "$((ncpu + 1))" --bind-to none sh -c 'sed -n "s/^Cpus_allowed_list:\t*//p" /proc/self/status'
    expect_rc $rc 0
    [ "$(sort -u "$tmp/out")" = "$mine" ] || fail "--bind-to none ranks should not be bound: $(cat "$tmp/out")"
    ;;
*)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
[ $fails = 0 ] && echo "PASS: $case_name"
exit $((fails > 0))
