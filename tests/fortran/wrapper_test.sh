#!/bin/sh
# tests/fortran/wrapper_test.sh — mpifort (and mpif90, mpif77) as a user runs it: a fixed-form
# mpif.h program and the free-form `use mpi` test built by the wrapper alone, then run.
# usage: wrapper_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" # the compiler writes its .mod files here
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { # what, got, extended regex
    echo "$2" | grep -qE "$3" || fail "$1: '$2' does not match '$3'"
}
for w in mpifort mpif90 mpif77; do
    expect "$w -show" "$("$build/bin/$w" -show x.f90)" ' -I/[^ ]*finclude .*x.f90 -L/.* -lcredo'
done
expect "mpifort --showme:compile" "$("$build/bin/mpifort" --showme:compile)" '^-I/.*include -I/.*finclude'
expect "mpifort -fc=" "$("$build/bin/mpifort" -fc=my-fc -show x.f)" '^my-fc -I'
expect "CREDO_FORTRAN_COMPILER" "$(CREDO_FORTRAN_COMPILER=my-fc "$build/bin/mpifort" -show x.f)" '^my-fc -I'
# CREDO_FC is the flow-control scheme, which a job's environment may well set: not the compiler
expect "CREDO_FC left alone" "$(CREDO_FC=dynamic "$build/bin/mpifort" -show x.f)" '^[^ ]*(gfortran|f95|fort)[^ ]* -I'
# mpif.h, fixed form, one routine called with INTEGER and DOUBLE PRECISION buffers
if "$build/bin/mpifort" -o "$tmp/hello_f" "$src/hello.f" 2>"$tmp/err"; then
    out=$("$build/bin/credorun" -n 3 "$tmp/hello_f") || fail "hello.f failed: $out"
    expect "hello.f" "$out" '^hello.f: the token passed 3 ranks as INTEGER and DOUBLE PRECISION$'
else
    fail "mpifort did not build hello.f: $(cat "$tmp/err")"
fi
# the mpi module, with a C file in the same command
if "$build/bin/mpif90" -o "$tmp/ftest" "$src/fcheck_mod.f90" "$src/ftest_mpi.f90" "$src/fcheck.c" 2>"$tmp/err"; then
    out=$("$build/bin/credorun" -n 3 "$tmp/ftest") || fail "ftest_mpi failed: $out"
    expect "ftest_mpi" "$out" 'all checks passed on 3 ranks'
else
    fail "mpif90 did not build ftest_mpi.f90: $(cat "$tmp/err")"
fi
[ "$fails" = 0 ] && echo "fortran wrapper: all checks passed"
exit "$fails"
