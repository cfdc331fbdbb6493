#!/usr/bin/env bash
# tests/stress/long.sh — the long form of the stress test: every flow-control scheme at np 3 and np 8,
# STRESS_SECONDS each (default 1800), one after the other, then the totals. Usage:
#   tests/stress/long.sh <build-dir>        (make stress-long; STRESS_SECONDS, STRESS_NPS, STRESS_SCHEMES)
# Each run's output goes to <build-dir>/stress-long/<scheme>.np<N>.log; the exit status is non-zero if
# any run found a corrupt message or failed, and its seed is in its log.
set -u
build=${1:?usage: long.sh <build-dir>}
secs=${STRESS_SECONDS:-1800}
nps=${STRESS_NPS:-3 8}
schemes=${STRESS_SCHEMES:-static dynamic none}
out="$build/stress-long"
mkdir -p "$out"
status=0
for fc in $schemes; do
  for np in $nps; do
    log="$out/$fc.np$np.log"
    echo "stress-long: $fc np $np for $secs s -> $log"
    CREDO_FC=$fc "$build/bin/credorun" -n "$np" --timeout $((secs + 600)) "$build/bin/stress" --seconds "$secs" >"$log" 2>&1
    rc=$?
    grep -E '^stress: (np|[0-9]+ rounds|rendezvous|OK|FAILED)' "$log" | sed "s/^/  /"
    if [ $rc -ne 0 ]; then
      echo "  FAILED (exit $rc)"
      status=1
    fi
  done
done
exit $status
