#!/bin/sh
# tests/boot/pmix_abort.sh — a rank's abort under Open MPI's mpirun (PMIx_Abort) ends the whole job with
# the rank's code. usage: pmix_abort.sh MPIRUN BOOT_PROBE
# Open MPI 4.1.4's mpirun sometimes crashes in its own PMIx server teardown after an abort (SIGSEGV
# in PMIx_server_finalize, exit 139, about 1 run in 20 when several jobs run at once); the job has
# ended by then, so that status is accepted too, as long as the ranks' abort was reported.
mpirun=$1 probe=$2
out=$(timeout 50 "$mpirun" --allow-run-as-root --oversubscribe -n 3 "$probe" --abort 1:7 2>&1)
rc=$?
echo "$out"
echo "$out" | grep -q "^credo: rank 1 aborting: boot_probe was asked to abort" || {
    echo "FAIL: no abort message from rank 1"
    exit 1
}
case $rc in
7) echo "pmix_abort: OK (exit 7)" ;;
139) echo "pmix_abort: OK (the job ended; mpirun crashed in its teardown, a known Open MPI 4.1 fault)" ;;
*) echo "FAIL: exit status $rc, expected the rank's 7"; exit 1 ;;
esac
