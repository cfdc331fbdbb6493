#!/bin/sh
# tests/mpi/expect_fatal.sh — runs an MPI job that must abort: checks a nonzero exit, the absence of
# the test's "NOT FATAL" marker, and a line on stderr matching a regular expression.
# Usage: expect_fatal.sh REGEX LAUNCHER ARGS... (e.g. credorun -n 4 errors_fatal)
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 REGEX COMMAND [ARGS...]" >&2
    exit 2
fi
re=$1
shift
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
echo "--- stdout"; cat "$tmp/out"
echo "--- stderr"; cat "$tmp/err"
echo "--- exit code $rc"
if [ "$rc" -eq 0 ]; then
    echo "FAIL: the job exited 0; an invalid rank under MPI_ERRORS_ARE_FATAL must abort it"
    exit 1
fi
if grep -q "NOT FATAL" "$tmp/out" "$tmp/err"; then
    echo "FAIL: the erroneous call returned instead of aborting the job"
    exit 1
fi
line=$(grep -E -m1 "$re" "$tmp/err")
if [ -z "$line" ]; then
    echo "FAIL: no line on stderr matches: $re"
    exit 1
fi
echo "ok: job aborted with exit code $rc; stderr says: $line"
exit 0
