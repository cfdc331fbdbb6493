#!/bin/sh
# tests/core/config_values.sh — settings are never misread silently: a value that is empty, has
# blanks around it or is malformed is refused with one line naming the variable, its value and what
# is accepted; a misspelt CREDO_* variable gets one warning naming the closest setting (once per job,
# also at 8 ranks); the settings and the tools' own CREDO_* variables (CREDO_CC, CREDO_CXX,
# CREDO_FORTRAN_COMPILER, the test suite's CREDO_TEST_SANITIZED) are silent.
# usage: config_values.sh CREDO_INFO CREDORUN HELLO
set -u
info="$1"; run="$2"; hello="$3"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Every CREDO_* variable of the caller's environment goes, so only the cases' own are seen.
for v in $(env | sed -n 's/^\(CREDO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# refused 'NAME=value' 'expected text': credo_info's warning line names the variable and the value
# (quoted when blanks surround it) and says what is accepted; MPI_Init stops on it.
refused() {
  out=$(env "$1" "$info" | grep '^warning = ')
  case "$out" in
    "warning = $2") ;;
    *) fail "$1: expected 'warning = $2', got '${out:-no warning}'" ;;
  esac
}
refused 'CREDO_FC=' 'CREDO_FC is set but empty: expected none, static or dynamic (unset it for the default, static)'
refused 'CREDO_SLOT_SIZE=' 'CREDO_SLOT_SIZE is set but empty: expected a power of two from 64 to 4096 (unset it for the default, 64)'
refused 'CREDO_CMA=' 'CREDO_CMA is set but empty: expected 0 or 1 (also no/yes, off/on, false/true) (unset it for the default, 1)'
refused 'CREDO_SLOT_SIZE= 128' 'CREDO_SLOT_SIZE=" 128": blanks around the value; expected a power of two from 64 to 4096'
refused 'CREDO_EAGER_LIMIT=1024 ' 'CREDO_EAGER_LIMIT="1024 ": blanks around the value; expected 0..1m bytes (digits, optionally followed by k, m or g)'
refused 'CREDO_FC= dynamic' 'CREDO_FC=" dynamic": blanks around the value; expected none, static or dynamic'
refused 'CREDO_CMA=2' 'CREDO_CMA=2: expected 0 or 1 (also no/yes, off/on, false/true)'
refused 'CREDO_CMA=Yes' 'CREDO_CMA=Yes: expected 0 or 1 (also no/yes, off/on, false/true)'
refused 'CREDO_EAGER_LIMIT=+64' 'CREDO_EAGER_LIMIT=+64: expected 0..1m bytes (digits, optionally followed by k, m or g)'
refused 'CREDO_CMA_MIN=-1' 'CREDO_CMA_MIN=-1: expected auto or a size in bytes (digits, optionally followed by k, m or g)'
refused 'CREDO_CMA_MIN=99999999999g' 'CREDO_CMA_MIN=99999999999g: expected auto or a size in bytes (digits, optionally followed by k, m or g)'
refused 'CREDO_SPIN_POLLS=1e5' 'CREDO_SPIN_POLLS=1e5: expected an integer from 0 to 2147483647'
refused 'CREDO_COPY=rep' 'CREDO_COPY=rep: expected auto, memcpy or loop'
refused 'CREDO_COLL_BCAST=' 'CREDO_COLL_BCAST is set but empty: expected auto, binomial or scatter_allgather (unset it for the default, auto)'

# The words booleans take, documented in docs/CONFIG.md, read as they say.
for w in yes on true; do
  v=$(env CREDO_CMA=$w "$info" | grep -c '^warning') ; [ "$v" = 0 ] || fail "CREDO_CMA=$w was refused"
done
v=$(env CREDO_PROGRESS_RT=yes "$info" | sed -n 's/^CREDO_PROGRESS_THREAD = //p')
[ "$v" = 1 ] || fail "CREDO_PROGRESS_RT=yes did not read as 1 (CREDO_PROGRESS_THREAD = $v)"

# Every setting at a valid value, the tools' variables and one typo: exactly the typo is named.
set_all="CREDO_FC=dynamic CREDO_SLOT_SIZE=128 CREDO_SLOTS_PER_PEER=40 CREDO_CREDIT_SLOTS=2 CREDO_FC_REPORT=0
  CREDO_EAGER_LIMIT=1k CREDO_CMA=1 CREDO_CMA_MIN=auto CREDO_COPY_CHUNK=64k CREDO_COPY=loop CREDO_PREPUSH_BYTES=1m
  CREDO_SPIN_POLLS=0 CREDO_YIELD_US=100 CREDO_SEND_BATCH=16 CREDO_DEBUG=0 CREDO_PROGRESS_THREAD=0
  CREDO_PROGRESS_RT=0 CREDO_COLL_BCAST=auto CREDO_COLL_BARRIER=auto CREDO_COLL_REDUCE=auto
  CREDO_COLL_ALLREDUCE=auto CREDO_COLL_GATHER=auto CREDO_COLL_ALLGATHER=auto CREDO_COLL_ALLTOALL=auto
  CREDO_COLL_REDUCE_SCATTER=auto CREDO_XPORT=auto CREDO_NET_EAGER_LIMIT=auto CREDO_RNDV_CHUNK=64k
  CREDO_RNDV_WINDOW=4 CREDO_PMI=1 CREDO_CC=cc CREDO_CXX=c++ CREDO_FORTRAN_COMPILER=gfortran
  CREDO_TEST_SANITIZED=0"
n=$("$info" | grep -c '^CREDO_')
m=$(echo $set_all | wc -w)
[ "$m" = $((n + 4)) ] || fail "the test sets $m variables, credo_info knows $n settings (+4 tools' variables): update set_all"
# shellcheck disable=SC2086
out=$(env $set_all CREDO_SLOTS_PERPEER=40 "$info" | grep '^warning')
[ "$out" = "warning = CREDO_SLOTS_PERPEER is not a credo setting and is ignored (did you mean CREDO_SLOTS_PER_PEER?)" ] ||
  fail "with every setting and one typo: expected the typo's warning alone, got '${out:-no warning}'"
out=$(env CREDO_FC_REPOR=1 CREDO_EAGERLIMIT=64 "$info" | grep '^warning')
exp="warning = CREDO_FC_REPOR is not a credo setting and is ignored (did you mean CREDO_FC_REPORT?)
warning = CREDO_EAGERLIMIT is not a credo setting and is ignored (did you mean CREDO_EAGER_LIMIT?)"
exp2="warning = CREDO_EAGERLIMIT is not a credo setting and is ignored (did you mean CREDO_EAGER_LIMIT?)
warning = CREDO_FC_REPOR is not a credo setting and is ignored (did you mean CREDO_FC_REPORT?)"
[ "$out" = "$exp" ] || [ "$out" = "$exp2" ] || fail "two typos: got '${out:-no warning}'"

# An MPI program at 8 ranks: one warning for the job, and no warning without a typo.
# shellcheck disable=SC2086
out=$(env $set_all CREDO_FC_REPOR=1 "$run" -n 8 --timeout 60 "$hello" 2>&1)
w=$(printf '%s\n' "$out" | grep -c '^credo: warning: CREDO_FC_REPOR is not a credo setting and is ignored (did you mean CREDO_FC_REPORT?)$')
[ "$w" = 1 ] || fail "8 ranks with CREDO_FC_REPOR=1: $w warnings, expected 1; output: $out"
printf '%s\n' "$out" | grep -q '^hello from 8 ranks, sum 28$' || fail "8 ranks with a typo did not run: $out"
# shellcheck disable=SC2086
out=$(env $set_all "$run" -n 8 --timeout 60 "$hello" 2>&1)
[ "$out" = "hello from 8 ranks, sum 28" ] || fail "8 ranks with every setting set: unexpected output '$out'"
# MPI_Init refuses a malformed value with the same line.
out=$(env CREDO_FC= "$run" -n 2 --timeout 60 "$hello" 2>&1) && fail "CREDO_FC= did not stop MPI_Init"
printf '%s\n' "$out" | grep -q '^credo: invalid setting: CREDO_FC is set but empty: expected none, static or dynamic' ||
  fail "CREDO_FC= at MPI_Init: no clear message in '$out'"

[ "$fails" = 0 ] && echo "config values: all cases refused, warned or silent as expected"
exit $((fails != 0))
