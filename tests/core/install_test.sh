#!/bin/sh
# tests/core/install_test.sh — installs the build into a temporary prefix, compiles an unmodified MPI
# program with the installed mpicc and runs it with the installed mpirun: the user's path end to end.
set -eu
build="$1"; src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
for f in bin/credocc bin/mpicc bin/mpicxx bin/mpic++ bin/credorun bin/mpirun bin/credo_info include/mpi.h include/credo/stats.h lib/pkgconfig/credo.pc; do
  [ -e "$tmp/prefix/$f" ] || { echo "install is missing $f"; exit 1; }
done
"$tmp/prefix/bin/mpicc" -O2 -o "$tmp/hello" "$src"
out=$("$tmp/prefix/bin/mpirun" -n 3 "$tmp/hello")
echo "$out"
[ "$out" = "hello from 3 ranks, sum 3" ] || { echo "unexpected output from the installed toolchain"; exit 1; }
