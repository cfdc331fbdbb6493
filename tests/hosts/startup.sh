#!/usr/bin/env bash
# tests/hosts/startup.sh — start-up time across test hosts: credorun against mpiexec.hydra and Open
# MPI's mpirun, the same credo program, runs interleaved (a measurement, not a test).
#
# usage: startup.sh SPIN HOSTS RANKS_PER_HOST [RUNS]
#   SPIN: tests/hosts' xhost_spin (run as "xhost_spin 0": MPI_Init, a barrier, one token round, finalize).
# Makes HOSTS test hosts, starts every launcher from host 1 with agent.sh as ssh, and prints for each
# launcher the median and the range, over RUNS (default 5) runs, of the time from the launcher's start
# to its exit: what a user waits for an empty MPI job ("mpi"), and for a job of /bin/true ("true":
# the launcher's own cost, without MPI_Init). A failed run is reported and not counted.
# STARTUP_CREDORUN_OPTS: more credorun options (e.g. "--bind-to none", to compare with unbound peers).
set -u
spin=$1 nh=$2 ppn=$3 runs=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
credorun=$(dirname "$spin")/credorun
agent=$here/agent.sh
. "$here/netns.sh"
hosts_up "$nh" || exit $?
export FI_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=ceth0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np=$((nh * ppn))
list=$(for k in $(seq "$nh"); do printf 'credo-h%d,' "$k"; done)
list=${list%,}
slots=$(for k in $(seq "$nh"); do printf 'credo-h%d:%d,' "$k" "$ppn"; done)
slots=${slots%,}
now_ms() { date +%s%3N; }
declare -A times
one() { # NAME COMMAND...
    local name=$1 t0 rc
    shift
    t0=$(now_ms)
    hosts_exec 1 "$@" >"$HOSTS_DIR/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && { [ "${name%.true}" != "$name" ] || grep -q "spin: done" "$HOSTS_DIR/out"; }; then
        times[$name]="${times[$name]:-} $(($(now_ms) - t0))"
    else
        echo "startup: $name run failed (exit $rc): $(tail -2 "$HOSTS_DIR/out" | tr '\n' ' ')"
    fi
}
for _ in $(seq "$runs"); do
    for what in mpi true; do
        if [ "$what" = mpi ]; then prog=("$spin" 0); else prog=(/bin/true); fi
        one "credorun.$what" "$credorun" --launch-agent "$agent" --iface ceth0 --host "$slots" ${STARTUP_CREDORUN_OPTS:-} "${prog[@]}"
        command -v mpiexec.hydra >/dev/null &&
            one "mpiexec.hydra.$what" mpiexec.hydra -launcher ssh -launcher-exec "$agent" -hosts "$list" -iface ceth0 \
                -n "$np" -ppn "$ppn" "${prog[@]}"
        command -v mpirun.openmpi >/dev/null &&
            one "mpirun.openmpi.$what" mpirun.openmpi --host "$slots" --mca plm_rsh_agent "$agent" \
                --mca oob_tcp_if_include ceth0 -x FI_PROVIDER -x FI_TCP_IFACE -np "$np" "${prog[@]}"
    done
done
echo "startup: $nh hosts x $ppn ranks, $runs runs each, interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for name in credorun.mpi mpiexec.hydra.mpi mpirun.openmpi.mpi credorun.true mpiexec.hydra.true mpirun.openmpi.true; do
    [ -n "${times[$name]:-}" ] || continue
    read -ra v <<<"$(tr ' ' '\n' <<<"${times[$name]}" | grep . | sort -n | tr '\n' ' ')"
    echo "startup: $name: median ${v[$(( ${#v[@]} / 2 ))]} ms, range ${v[0]}-${v[-1]} ms (${#v[@]} runs)"
done
