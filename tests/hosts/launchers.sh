#!/usr/bin/env bash
# tests/hosts/launchers.sh — the same credo binary (xhost) across two test hosts under the other
# launchers: MPICH's mpiexec.hydra, Open MPI's mpirun (both through agent.sh as ssh), and a real Slurm.
#
# usage: launchers.sh CASE XHOST WORKDIR [STATE]
#   hydra          mpiexec.hydra -launcher ssh -launcher-exec agent.sh -hosts credo-h1,credo-h2 -iface ceth0
#                  -n 4 -ppn 2 (PMI-1 over TCP), started on host 1
#   openmpi        mpirun --host credo-h1:2,credo-h2:2 --mca plm_rsh_agent agent.sh (PMIx), started on host 1
#   slurm-pmi2, slurm-pmix
#                  a real Slurm started here: munged (its own key and socket), slurmctld in the root
#                  namespace on the bridge's address, one slurmd per test host under the host's name
#                  (nsenter, not ip netns exec, which remounts /sys and hides the cgroup mounts); waits
#                  until both nodes are idle, runs srun -N 2 -n 4 --mpi=pmi2 (or pmix) and stops
#                  everything. These make their own 2 hosts with a private /tmp each (PMIx's client
#                  directories must not be shared); Slurm's files live in a directory under WORKDIR.
# Every run: exit 0, each rank verified its data, shm between the two ranks of a host, ofi across,
# the host names as placed. 77 (skipped, with the reason) when a launcher or namespaces are missing.
set -u
case_name=$1 xhost=$2 workdir=$3 state=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
agent=$here/agent.sh
. "$here/netns.sh"
skip() { echo "launchers: $case_name skipped: $*"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

case $case_name in
hydra) command -v mpiexec.hydra >/dev/null || skip "mpiexec.hydra not found (Debian package mpich)" ;;
openmpi) command -v mpirun.openmpi >/dev/null || skip "mpirun.openmpi not found (Debian package openmpi-bin)" ;;
slurm-*)
    for t in munged slurmctld slurmd srun sinfo scontrol; do
        command -v "$t" >/dev/null || skip "'$t' not found (Debian packages slurm-wlm, munge)"
    done
    ;;
*) echo "launchers.sh: unknown case '$case_name'" >&2; exit 2 ;;
esac

if [ -n "$state" ] && [ "${case_name#slurm}" = "$case_name" ]; then
    hosts_attach "$state" || exit $?
else
    HOSTS_PRIVATE_TMP=1 hosts_up 2 || exit $?
fi
tmp=$(mktemp -d "$workdir/credo-launchers.XXXXXX")
daemons=()
stop_all() {
    local p
    for p in "${daemons[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        local alive=0
        for p in "${daemons[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for p in "${daemons[@]}"; do kill -KILL "$p" 2>/dev/null; done
    [ -n "${LAUNCHERS_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
    hosts_down
}
trap stop_all EXIT
export FI_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=ceth0

check_xhost() {
    local name=$1 r p want got hr hp
    if [ "$rc" -ne 0 ]; then
        fail "$name: exit status $rc"
        echo "--- output"; head -c 20000 "$tmp/out"
        return
    fi
    grep -q "FAIL" "$tmp/out" && fail "$name: data errors"
    for r in 0 1 2 3; do
        grep -qE "^xhost: rank $r verified [1-9][0-9]* messages, 0 errors$" "$tmp/out" || fail "$name: rank $r did not verify its messages"
        hr=$((r / 2 + 1))
        for p in 0 1 2 3; do
            hp=$((p / 2 + 1))
            if [ "$r" = "$p" ]; then want=self; elif [ "$hr" != "$hp" ]; then want=ofi; else want=shm; fi
            got=$(sed -nE "s/^xhost: rank $r host ([^ ]+) peer $p transport ([^ ]+)$/\1 \2/p" "$tmp/out")
            [ "$got" = "credo-h$hr $want" ] || fail "$name: rank $r to rank $p: got '${got:-nothing}', expected 'credo-h$hr $want'"
        done
    done
    [ "$fails" -eq 0 ] && echo "launchers: $name: 4 ranks on credo-h1 and credo-h2, data verified, shm within and ofi across hosts"
    [ "$fails" -eq 0 ] || { echo "--- output"; head -c 20000 "$tmp/out"; }
}

start_slurm() {
    local d=$tmp me br port1 port2 k
    me=$(hostname)
    br=$(hosts_ip 0)
    # two free ports above the ephemeral range's start; the kernel tells us by binding port 0
    read -r port1 port2 < <(perl -MIO::Socket::INET -e 'my @s = map { IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0) } 1..2; print join(" ", map { $_->sockport } @s), "\n"')
    export SLURM_CONF=$d/slurm.conf
    mkdir -p "$d/ctld" && chmod 700 "$d"
    dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$d/munge.key"
    munged --force --socket="$d/munge.sock" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
        --log-file="$d/munged.log" --seed-file="$d/munged.seed" 2>"$d/munged.err" ||
        skip "munged does not start here: $(cat "$d/munged.err")"
    for _ in $(seq 50); do [ -s "$d/munged.pid" ] && break; sleep 0.1; done
    daemons+=("$(cat "$d/munged.pid")")
    cat >"$d/slurm.conf" <<EOF
ClusterName=credotest
SlurmctldHost=$me($br)
SlurmctldPort=$port1
SlurmdPort=$port2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool-%n
SlurmdPidFile=$d/slurmd-%n.pid
SlurmdLogFile=$d/slurmd-%n.log
SlurmctldPidFile=$d/slurmctld.pid
SlurmctldLogFile=$d/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
NodeName=credo-h1 NodeAddr=$(hosts_ip 1) CPUs=2 State=UNKNOWN
NodeName=credo-h2 NodeAddr=$(hosts_ip 2) CPUs=2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    slurmctld -i -f "$d/slurm.conf" 2>"$d/slurmctld.err" || skip "slurmctld does not start: $(cat "$d/slurmctld.err")"
    for _ in $(seq 50); do [ -s "$d/slurmctld.pid" ] && break; sleep 0.1; done
    [ -s "$d/slurmctld.pid" ] || skip "slurmctld did not start: $(tail -3 "$d/slurmctld.log" 2>/dev/null)"
    daemons+=("$(cat "$d/slurmctld.pid")")
    for k in 1 2; do
        mkdir -p "$d/spool-credo-h$k"
        hosts_exec "$k" slurmd -N "credo-h$k" -f "$d/slurm.conf" 2>"$d/slurmd-$k.err" ||
            skip "slurmd on credo-h$k does not start: $(cat "$d/slurmd-$k.err")"
    done
    for k in 1 2; do
        for _ in $(seq 50); do [ -s "$d/slurmd-credo-h$k.pid" ] && break; sleep 0.1; done
        [ -s "$d/slurmd-credo-h$k.pid" ] || skip "slurmd on credo-h$k did not start: $(tail -3 "$d/slurmd-credo-h$k.log" 2>/dev/null)"
        daemons+=("$(cat "$d/slurmd-credo-h$k.pid")")
    done
    for _ in $(seq 200); do
        [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$')" = 2 ] && return 0
        sleep 0.1
    done
    skip "the Slurm nodes did not become idle within 20 s: $(sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' '); slurmctld: $(tail -3 "$d/slurmctld.log" | tr '\n' ' ')"
}

case $case_name in
hydra)
    hosts_exec 1 timeout 90 mpiexec.hydra -launcher ssh -launcher-exec "$agent" -hosts credo-h1,credo-h2 -iface ceth0 \
        -n 4 -ppn 2 "$xhost" >"$tmp/out" 2>&1
    rc=$?
    check_xhost "mpiexec.hydra"
    ;;
openmpi)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 hosts_exec 1 timeout 90 mpirun.openmpi \
        --host credo-h1:2,credo-h2:2 --mca plm_rsh_agent "$agent" --mca oob_tcp_if_include ceth0 \
        -x FI_PROVIDER -x FI_TCP_IFACE ${LSAN_OPTIONS:+-x LSAN_OPTIONS} -np 4 "$xhost" >"$tmp/out" 2>&1
    rc=$?
    check_xhost "Open MPI's mpirun"
    ;;
slurm-pmi2 | slurm-pmix)
    mpi=${case_name#slurm-}
    start_slurm # (sets SLURM_CONF first: without it, Slurm's commands look the configuration up in DNS)
    srun --mpi=list 2>&1 | grep -qw "$mpi" || skip "this Slurm has no --mpi=$mpi plugin: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
    timeout 90 srun -N 2 -n 4 --mpi="$mpi" "$xhost" >"$tmp/out" 2>&1
    rc=$?
    check_xhost "srun -N 2 -n 4 --mpi=$mpi"
    ;;
esac
[ "$fails" -eq 0 ] || echo "launchers: $case_name: $fails failures"
exit $((fails > 0))
