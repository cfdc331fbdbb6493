#!/bin/sh
# sim/experiments/common.sh — shared helpers of the thesis experiments: find credosim, run one
# configuration and print "finish_ns delayed_pct", render a gnuplot script if gnuplot is present.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$HERE/results}
mkdir -p "$OUT"
if [ -z "$CREDOSIM" ]; then
    for b in "$ROOT"/build-sim "$ROOT"/build; do
        [ -x "$b/bin/credosim" ] && CREDOSIM="$b/bin/credosim" && break
    done
fi
[ -x "$CREDOSIM" ] || { echo "credosim not found: build it or set CREDOSIM" >&2; exit 1; }

# runsim ARGS... -> "finish_ns delayed_pct credit_packets"
runsim() {
    "$CREDOSIM" run --quiet "$@" | awk '
        /^Maximum finishing time/ { t = $(NF-3) }
        /^cluster:/ { for (i = 1; i <= NF; i++) { if ($i == "messages" && $(i-1) == "delayed") d = $(i+2);
                                                   if ($i == "credit" && $(i+1) == "packets") c = $(i+2) }
                      gsub(/[(%,]/, "", d); gsub(/,/, "", c) }
        END { if (t == "") exit 1; print t, d, c }'
}

plot() { # plot SCRIPT: renders with gnuplot when installed
    if command -v gnuplot >/dev/null 2>&1; then (cd "$OUT" && gnuplot "$1"); else echo "gnuplot not installed: skipped $1" >&2; fi
}
