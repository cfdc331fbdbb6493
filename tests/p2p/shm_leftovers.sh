#!/usr/bin/env bash
# tests/p2p/shm_leftovers.sh — a job that ends with MPI_Abort or a crashing rank leaves nothing in
# /dev/shm under a launcher that does not clean up after credo (MPICH's mpiexec.hydra kills the other
# ranks wherever they are, possibly before they have unlinked their mailbox's name).
# usage: shm_leftovers.sh MPIEXEC SHM_CRASH [RUNS_PER_CASE]
# Cases: abort and segv at np 4 and 8, the failing rank changing from run to run. The job id of a
# hydra job is its kvs name, kvs_<pid of mpiexec>_..., so a job's files are /dev/shm/credo.kvs_<pid>_*.
set -u
mpiexec=$1 prog=$2 runs=${3:-6}
fails=0 total=0
for np in 4 8; do
    for kind in abort segv; do
        for i in $(seq 1 "$runs"); do
            rank=$(((i * 3) % np))
            # Started directly (no timeout(1) in between), so $! is mpiexec's pid; MPIEXEC_TIMEOUT
            # is hydra's own limit.
            MPIEXEC_TIMEOUT=60 "$mpiexec" -n "$np" "$prog" "$kind" "$rank" >/dev/null 2>&1 &
            pid=$!
            wait "$pid"
            rc=$?
            total=$((total + 1))
            left=$(compgen -G "/dev/shm/credo.kvs_${pid}_*")
            if [ -n "$left" ]; then
                echo "FAIL: np $np $kind at rank $rank (exit $rc) left:" $left
                rm -f $left
                fails=$((fails + 1))
            fi
        done
    done
done
echo "$fails of $total jobs left files in /dev/shm"
[ "$fails" -eq 0 ] && echo "shm_leftovers: OK"
exit $((fails > 0))
