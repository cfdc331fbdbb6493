#!/bin/sh
# tests/core/wrapper_test.sh — mpicc as build systems use it: the query options of Open MPI's and
# MPICH's wrappers, -cc=, mpicxx for C++, and a CMake project that finds credo through FindMPI.
# usage: wrapper_test.sh BUILD_DIR HELLO_C
set -u
build=$1 hello=$2
mpicc=$build/bin/mpicc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { # what, got, extended regex
    echo "$2" | grep -qE "$3" || fail "$1: '$2' does not match '$3'"
}
expect "--showme:compile" "$("$mpicc" --showme:compile)" '^-I/.*include$'
expect "--showme:link" "$("$mpicc" --showme:link)" '^-L/.* -lcredo -lpthread'
expect "--showme:incdirs" "$("$mpicc" --showme:incdirs)" '^/.*include$'
expect "--showme:libs" "$("$mpicc" --showme:libs)" '^credo pthread$'
expect "-compile_info" "$("$mpicc" -compile_info)" '^[^ ]+ -I/[^ ]*include$'
expect "-link_info" "$("$mpicc" -link_info)" ' -lcredo -lpthread'
expect "-show" "$("$mpicc" -show -O2 prog.c)" '^[^ ]+ -I/[^ ]*include -O2 prog.c -L/.* -lcredo'
"$mpicc" --showme:nothing >/dev/null 2>"$tmp/err" && fail "--showme:nothing succeeded"
grep -q "unknown query" "$tmp/err" || fail "no message for an unknown query"
# -cc= picks the compiler (and is not passed to it)
expect "-cc= -show" "$("$mpicc" -cc=my-cc -show x.c)" '^my-cc -I'
"$mpicc" -cc=gcc -O1 -o "$tmp/hello" "$hello" || fail "mpicc -cc=gcc did not build hello"
# C++: mpicxx (and its other names) wraps the C++ compiler; a C++ program builds and runs
if command -v c++ >/dev/null; then
    expect "mpicxx -show" "$("$build/bin/mpicxx" -show x.cpp)" '^c\+\+ -I/[^ ]*include x.cpp -L/.* -lcredo'
    expect "mpic++ -show" "$("$build/bin/mpic++" -show x.cpp)" '^c\+\+ '
    if "$build/bin/mpicxx" -O1 -o "$tmp/hello_cxx" "$(dirname "$hello")/hello_cxx.cpp"; then
        out=$("$build/bin/credorun" -n 3 "$tmp/hello_cxx") || fail "the C++ hello failed"
        expect "C++ hello" "$out" '^c\+\+ hello from 3 ranks, sum 9$'
    else
        fail "mpicxx did not build the C++ hello"
    fi
fi
# CMake's FindMPI, the way the README says: -DMPI_HOME=<credo's build directory>. FindMPI looks for
# mpiexec first (HINTS MPI_HOME, ENV MPI_HOME, ENV I_MPI_ROOT, then PATH) and only then for the
# compiler, near that mpiexec; MPI_C_COMPILER alone leaves mpiexec to PATH (Open MPI's or MPICH's
# /usr/bin/mpiexec here). With MPI_HOME both must be credo's, and the wrapper's answers must give
# include directories and libraries that build; the program then runs with the MPIEXEC found.
if command -v cmake >/dev/null; then
    mkdir -p "$tmp/proj"
    cat >"$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(findmpi C)
find_package(MPI REQUIRED COMPONENTS C)
message(STATUS "found: MPI_C_COMPILER=\${MPI_C_COMPILER}")
message(STATUS "found: MPIEXEC_EXECUTABLE=\${MPIEXEC_EXECUTABLE}")
add_executable(hello "$hello")
target_link_libraries(hello MPI::MPI_C)
CM
    # A sanitizer build of credo: its programs need the sanitizer runtime first, which FindMPI's
    # link line (libraries only) leaves out, so the project links it itself.
    san=$("$mpicc" --showme:link | grep -oE -- '-fsanitize=[^ ]+' || true)
    if cmake -S "$tmp/proj" -B "$tmp/proj/b" -DMPI_HOME="$build" -DCMAKE_EXE_LINKER_FLAGS="$san" \
        >"$tmp/cmake.log" 2>&1 &&
        cmake --build "$tmp/proj/b" >>"$tmp/cmake.log" 2>&1; then
        grep -q "Found MPI_C: .*libcredo" "$tmp/cmake.log" || fail "FindMPI did not find libcredo: $(grep 'MPI' "$tmp/cmake.log")"
        expect "FindMPI's MPI_C_COMPILER" "$(sed -n 's/^-- found: MPI_C_COMPILER=//p' "$tmp/cmake.log")" "^$build/bin/mpicc\$"
        mpiexec=$(sed -n 's/^-- found: MPIEXEC_EXECUTABLE=//p' "$tmp/cmake.log")
        expect "FindMPI's MPIEXEC_EXECUTABLE" "$mpiexec" "^$build/bin/(mpiexec|mpirun|credorun)\$"
        out=$("$mpiexec" -n 3 "$tmp/proj/b/hello") || fail "the FindMPI build failed to run under $mpiexec"
        expect "FindMPI-built hello" "$out" '^hello from 3 ranks, sum 3$'
    else
        fail "a CMake project with find_package(MPI) did not configure and build"; cat "$tmp/cmake.log"
    fi
fi
[ "$fails" -eq 0 ] && echo "wrapper: OK"
exit $((fails > 0))
