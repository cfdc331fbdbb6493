#!/bin/sh
# tests/core/install_test.sh — installs the build into a temporary prefix and uses it as a newcomer
# would, with nothing of the build tree on the way: compiles an unmodified MPI program with the
# installed mpicc and with `pkg-config --cflags --libs credo`, runs both at 2 ranks with the installed
# credorun and checks they loaded the installed libcredo; runs the installed credo_info and credo-goal;
# the installed mpifort when there is one; finally moves the prefix and checks that it still works.
# usage: install_test.sh BUILD_DIR HELLO_C
set -eu
build="$1"; src="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Nothing may reach the build tree's library behind the installed copy's back.
unset LD_LIBRARY_PATH PKG_CONFIG_PATH CREDO_CC || true
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
for f in bin/credocc bin/mpicc bin/mpicxx bin/mpic++ bin/mpifort bin/mpif90 bin/mpif77 bin/credorun bin/mpirun bin/mpiexec bin/credo_info bin/credo-goal include/mpi.h include/mpif.h include/credo/stats.h; do
  [ -e "$tmp/prefix/$f" ] || { echo "install is missing $f"; exit 1; }
done

# Runs PROGRAM at 2 ranks with the installed launcher (or LAUNCHER); it must print the hello line,
# and the dynamic loader must resolve its libcredo to the installed copy.
run_hello() { # what, program[, launcher]
  out=$("${3:-$tmp/prefix/bin/credorun}" -n 2 "$2" 2>&1) || { fail "$1: the program failed: $out"; return; }
  [ "$out" = "hello from 2 ranks, sum 1" ] || fail "$1: unexpected output '$out'"
  lib=$(ldd "$2" | sed -n 's/^[[:space:]]*libcredo\.so\.[0-9]* => \([^ ]*\) .*/\1/p')
  case "$lib" in
    "$tmp/prefix/"*) ;;
    *) fail "$1: the program loads libcredo from '${lib:-nowhere}', not from the installed prefix" ;;
  esac
}

# 1. the installed mpicc
if "$tmp/prefix/bin/mpicc" -O2 -o "$tmp/hello" "$src" 2>"$tmp/cc.err"; then
  run_hello "installed mpicc" "$tmp/hello"
else
  fail "the installed mpicc did not build hello: $(cat "$tmp/cc.err")"
fi
# 2. pkg-config, as a Makefile would use it (credo.pc is in <libdir>/pkgconfig: lib, lib64, ...)
pcfile=$(find "$tmp/prefix" -name credo.pc | head -1)
[ -n "$pcfile" ] || { echo "install is missing credo.pc"; exit 1; }
pcdir=$(dirname "${pcfile#"$tmp/prefix/"}")
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH="$tmp/prefix/$pcdir" pkg-config --cflags --libs credo) || fail "pkg-config does not know credo"
  echo "pkg-config --cflags --libs credo: $flags"
  # shellcheck disable=SC2086
  if cc -O2 -o "$tmp/hello_pc" "$src" $flags 2>"$tmp/cc.err"; then
    run_hello "pkg-config" "$tmp/hello_pc"
  else
    fail "cc \$(pkg-config --cflags --libs credo) did not build hello: $(cat "$tmp/cc.err")"
  fi
else
  echo "pkg-config not found: its part is skipped"
fi
# 3. the installed tools start (they need the installed libcredo)
"$tmp/prefix/bin/credo_info" > "$tmp/info" 2>&1 || fail "the installed credo_info does not run: $(cat "$tmp/info")"
grep -q "^credo version = " "$tmp/info" || fail "the installed credo_info printed no version: $(cat "$tmp/info")"
cat > "$tmp/pp.goal" <<'GOAL'
num_ranks 2

rank 0 {
l1: send 64b to 1 tag 0
l2: recv 64b from 1 tag 1
l2 requires l1
}

rank 1 {
l1: recv 64b from 0 tag 0
l2: send 64b to 0 tag 1
l2 requires l1
}
GOAL
out=$("$tmp/prefix/bin/credo-goal" check "$tmp/pp.goal" 2>&1) || fail "the installed credo-goal does not run: $out"
echo "$out" | grep -q "2 ranks, 4 operations" || fail "credo-goal check: unexpected '$out'"
out=$("$tmp/prefix/bin/credorun" -n 2 "$tmp/prefix/bin/credo-goal" run --reps 2 "$tmp/pp.goal" 2>&1) ||
  fail "the installed credo-goal run failed: $out"

# 4. Fortran, when this build made the mpi module: the installed mpifort finds mpif.h and mpi.mod
if [ -e "$tmp/prefix/include/mpi.mod" ]; then
  fsrc="$(dirname "$src")/../fortran"
  "$tmp/prefix/bin/mpifort" -o "$tmp/hello_f" "$fsrc/hello.f"
  (cd "$tmp" && "$tmp/prefix/bin/mpifort" -o "$tmp/ftest" "$fsrc/fcheck_mod.f90" "$fsrc/ftest_mpi.f90" "$fsrc/fcheck.c")
  out=$("$tmp/prefix/bin/mpirun" -n 2 "$tmp/hello_f")
  echo "$out"
  [ "$out" = "hello.f: the token passed 2 ranks as INTEGER and DOUBLE PRECISION" ] || fail "unexpected output from the installed mpifort's program"
  "$tmp/prefix/bin/mpirun" -n 2 "$tmp/ftest" | grep -q "all checks passed on 2 ranks" || fail "the installed mpi module's test failed"
fi

# 5. CMake's find_package(MPI) with -DMPI_HOME=<prefix>: the installed mpicc and the installed
# launcher (FindMPI takes mpiexec from MPI_HOME or else from PATH, whatever MPI_C_COMPILER says)
if command -v cmake >/dev/null; then
  mkdir -p "$tmp/proj"
  cat > "$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(findmpi C)
find_package(MPI REQUIRED COMPONENTS C)
message(STATUS "found: MPI_C_COMPILER=\${MPI_C_COMPILER}")
message(STATUS "found: MPIEXEC_EXECUTABLE=\${MPIEXEC_EXECUTABLE}")
add_executable(hello "$src")
target_link_libraries(hello MPI::MPI_C)
CM
  san=$("$tmp/prefix/bin/mpicc" --showme:link | grep -oE -- '-fsanitize=[^ ]+' || true)
  if cmake -S "$tmp/proj" -B "$tmp/proj/b" -DMPI_HOME="$tmp/prefix" -DCMAKE_EXE_LINKER_FLAGS="$san" > "$tmp/cmake.log" 2>&1 &&
     cmake --build "$tmp/proj/b" >> "$tmp/cmake.log" 2>&1; then
    found_cc=$(sed -n 's/^-- found: MPI_C_COMPILER=//p' "$tmp/cmake.log")
    found_exec=$(sed -n 's/^-- found: MPIEXEC_EXECUTABLE=//p' "$tmp/cmake.log")
    [ "$found_cc" = "$tmp/prefix/bin/mpicc" ] || fail "FindMPI took MPI_C_COMPILER '$found_cc', not the installed mpicc"
    case "$found_exec" in
      "$tmp/prefix/bin/mpiexec"|"$tmp/prefix/bin/mpirun"|"$tmp/prefix/bin/credorun") run_hello "FindMPI" "$tmp/proj/b/hello" "$found_exec" ;;
      *) fail "FindMPI took MPIEXEC_EXECUTABLE '$found_exec', not the installed launcher" ;;
    esac
  else
    fail "a CMake project with find_package(MPI) and MPI_HOME=<prefix> did not configure and build: $(cat "$tmp/cmake.log")"
  fi
fi

# 6. a moved prefix: the tools, the wrapper and pkg-config find the new place
mv "$tmp/prefix" "$tmp/moved"
"$tmp/moved/bin/credo_info" > /dev/null 2>&1 || fail "credo_info does not run from a moved prefix"
if "$tmp/moved/bin/mpicc" -O2 -o "$tmp/hello_mv" "$src" 2>"$tmp/cc.err"; then
  out=$("$tmp/moved/bin/credorun" -n 2 "$tmp/hello_mv" 2>&1) || fail "moved prefix: the mpicc-built program failed: $out"
else
  fail "the mpicc of a moved prefix did not build hello: $(cat "$tmp/cc.err")"
fi
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH="$tmp/moved/$pcdir" pkg-config --cflags credo)
  case "$flags" in *"$tmp/moved/"*) ;; *) fail "pkg-config of a moved prefix says '$flags'" ;; esac
fi

[ "$fails" -eq 0 ] && echo "install: OK"
exit $((fails > 0))
