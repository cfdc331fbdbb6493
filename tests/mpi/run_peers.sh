#!/bin/sh
# tests/mpi/run_peers.sh — builds the MPI tests with another MPI (Open MPI or MPICH) and runs them, to
# check the tests themselves and compare behaviour. Usage: run_peers.sh openmpi|mpich [OUTDIR]
# Known peer results (Open MPI 4.1.4, MPICH 4.0.2 on Debian 12) are listed at the end of this file.
set -u
peer=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-${TMPDIR:-/tmp}/credo-mpi-peers-$peer}
case $peer in
openmpi) cc=mpicc.openmpi ;;
mpich) cc=mpicc.mpich ;;
*)
    echo "usage: $0 openmpi|mpich [OUTDIR]" >&2
    exit 2 ;;
esac
mkdir -p "$out" || exit 2
# No -Werror: gcc 12 warns falsely about MPI_STATUSES_IGNORE in MPICH's header.
flags="-O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-stringop-overflow"
for t in match held truncate modes requests commtypes sizes ring flood errors errors_fatal; do
    $cc $flags -o "$out/$t" "$here/$t.c" || exit 1
done

pass=0
failed=""
check() { # name command args...
    name=$1
    shift
    if timeout 300 sh -c "$(printf '%s ' "$@")" >"$out/$name.log" 2>&1; then
        pass=$((pass + 1))
        echo "PASS $name"
    else
        failed="$failed $name"
        echo "FAIL $name (log: $out/$name.log)"
        grep -m3 -E "FAIL|error" "$out/$name.log"
    fi
}
# The launcher command line for N ranks, and the same wrapped in a time limit.
run_str() {
    case $peer in
    openmpi) echo "mpirun.openmpi --allow-run-as-root --oversubscribe -np $1" ;;
    mpich) echo "mpiexec.mpich -n $1" ;;
    esac
}
runcmd() { n=$1; shift; echo "timeout 240 $(run_str "$n") $*"; }
check match.np4 $(runcmd 4 "$out/match")
check held.np4 $(runcmd 4 "$out/held")
check truncate.np2 $(runcmd 2 "$out/truncate")
check modes.np3 $(runcmd 3 "$out/modes")
check requests.np4 $(runcmd 4 "$out/requests")
check commtypes.np5 $(runcmd 5 "$out/commtypes")
check sizes.np2 $(runcmd 2 "$out/sizes")
for n in 1 2 3 8 16; do check ring.np$n $(runcmd $n "$out/ring"); done
check errors.np2 $(runcmd 2 "$out/errors")
check errors_fatal.np4 sh "$here/expect_fatal.sh" MPI_Send $(run_str 4) "$out/errors_fatal"
# Flood with the credo bound: peers buffer unexpected eager messages, so the bound is expected to
# fail; the log shows their RSS. (MPICH's ranks spin on 2 cores: use --count 2000 there.)
count=20000
[ "$peer" = mpich ] && count=2000
check flood.np8.bounded $(runcmd 8 "$out/flood" --count $count --max-rss-mib 64)
grep -h "RSS" "$out/flood.np8.bounded.log"
echo "$peer: $pass passed; failed:${failed:- none}"
[ -z "$failed" ]

# Known results when written:
# - Open MPI 4.1.4: truncate fails (vader's CMA single-copy path writes a truncated rendezvous message
#   past the receive buffer; passes with --mca btl_vader_single_copy_mechanism none); flood's RSS
#   bound fails (about 344 MiB). Everything else passes.
# - MPICH 4.0.2: everything passes. flood runs with --count 2000 only (busy-polling ranks on 2 cores
#   make the full run take minutes); its rank 0 RSS was 55-72 MiB for 13 MiB flooded, so the bound
#   there is borderline. match skips one PROC_NULL status check for MPICH < 4.2 (pmodels/mpich issue
#   6805); errors_fatal occasionally loses the aborting rank's stderr.
