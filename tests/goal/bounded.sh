#!/bin/sh
# tests/goal/bounded.sh — runs one command on a hostile input and checks that it ends quickly, in
# bounded memory, with the expected exit code and a message matching a regular expression.
#   bounded.sh EXIT_CODE REGEX command args...
# The command runs under `ulimit -v` (BOUNDED_VMEM_KB, default 262144 = 256 MiB; skipped when
# CREDO_TEST_SANITIZED=1, as AddressSanitizer reserves terabytes of address space) and `timeout`
# (BOUNDED_SECONDS, default 20); it must also finish within BOUNDED_MAX_SECONDS (default 10).
want_rc=$1
regex=$2
shift 2
vmem=${BOUNDED_VMEM_KB:-262144}
secs=${BOUNDED_SECONDS:-20}
max_secs=${BOUNDED_MAX_SECONDS:-10}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
(
    if [ "${CREDO_TEST_SANITIZED:-0}" != 1 ]; then
        ulimit -v "$vmem" || exit 99
    fi
    exec timeout "$secs" "$@"
) >"$out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
cat "$out"
if [ "$rc" -eq 124 ]; then
    echo "bounded.sh: FAIL: still running after ${secs} s: $*"
    exit 1
fi
if [ "$rc" -ne "$want_rc" ]; then
    echo "bounded.sh: FAIL: exit code $rc, expected $want_rc: $*"
    exit 1
fi
if [ "$took" -gt "$max_secs" ]; then
    echo "bounded.sh: FAIL: took ${took} s (more than ${max_secs} s): $*"
    exit 1
fi
if ! grep -Eq -- "$regex" "$out"; then
    echo "bounded.sh: FAIL: output does not match /$regex/: $*"
    exit 1
fi
# one line: the error is a single clear line, not a cascade
lines=$(grep -c . "$out")
if [ "$want_rc" -ne 0 ] && [ "$lines" -ne 1 ]; then
    echo "bounded.sh: FAIL: expected a one-line message, got $lines lines: $*"
    exit 1
fi
echo "bounded.sh: ok (exit $rc in ${took} s under ${vmem} KiB): $*"
