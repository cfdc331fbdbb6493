#!/bin/sh
# tests/core/install_test.sh — installs the build into a temporary prefix, compiles an unmodified MPI
# program with the installed mpicc and runs it with the installed mpirun: the user's path end to end.
set -eu
build="$1"; src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
for f in bin/credocc bin/mpicc bin/mpicxx bin/mpic++ bin/mpifort bin/mpif90 bin/mpif77 bin/credorun bin/mpirun bin/credo_info include/mpi.h include/mpif.h include/credo/stats.h lib/pkgconfig/credo.pc; do
  [ -e "$tmp/prefix/$f" ] || { echo "install is missing $f"; exit 1; }
done
"$tmp/prefix/bin/mpicc" -O2 -o "$tmp/hello" "$src"
out=$("$tmp/prefix/bin/mpirun" -n 3 "$tmp/hello")
echo "$out"
[ "$out" = "hello from 3 ranks, sum 3" ] || { echo "unexpected output from the installed toolchain"; exit 1; }
# Fortran, when this build made the mpi module: the installed mpifort finds mpif.h and mpi.mod
if [ -e "$tmp/prefix/include/mpi.mod" ]; then
  fsrc="$(dirname "$src")/../fortran"
  "$tmp/prefix/bin/mpifort" -o "$tmp/hello_f" "$fsrc/hello.f"
  (cd "$tmp" && "$tmp/prefix/bin/mpifort" -o "$tmp/ftest" "$fsrc/fcheck_mod.f90" "$fsrc/ftest_mpi.f90" "$fsrc/fcheck.c")
  out=$("$tmp/prefix/bin/mpirun" -n 2 "$tmp/hello_f")
  echo "$out"
  [ "$out" = "hello.f: the token passed 2 ranks as INTEGER and DOUBLE PRECISION" ] || { echo "unexpected output from the installed mpifort's program"; exit 1; }
  "$tmp/prefix/bin/mpirun" -n 2 "$tmp/ftest" | grep -q "all checks passed on 2 ranks" || { echo "the installed mpi module's test failed"; exit 1; }
fi
