#!/bin/sh
# sim/experiments/phased.sh [RANKS] [REPS] — thesis E8: alltoalls among all, 1/4, 1/2, all, 1/2,
# 1/4, all of the ranks (REPS per phase, a barrier after each), 30 slots per process; total time per
# scheme. Output: results/phased.csv
. "$(dirname "$0")/common.sh"
N=${1:-256}; REPS=${2:-5}
case $N in 1024) TOPO=mesh:4x4x4;; 256) TOPO=mesh:4x4x1;; *) TOPO=flat;; esac
CSV="$OUT/phased.csv"
echo "ranks,reps,fc,slots,finish_ns,overhead_pct,delayed_pct" > "$CSV"
set -- $(runsim --pattern phased:2048:$REPS --ranks $N --ppn 16 --topology $TOPO --fc none); ref=$1
for fc in static dynamic; do
    set -- $(runsim --pattern phased:2048:$REPS --ranks $N --ppn 16 --topology $TOPO --fc $fc --slots 30)
    echo "$N,$REPS,$fc,30,$1,$(echo "$1 $ref" | awk '{printf "%.2f", ($1/$2-1)*100}'),$2" >> "$CSV"
done
cat "$CSV"
