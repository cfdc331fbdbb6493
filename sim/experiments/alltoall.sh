#!/bin/sh
# sim/experiments/alltoall.sh [256|1024] — thesis E2/E6: alltoall of 2 KB, 16 ranks per node
# (4x4 mesh for 256, 4x4x4 for 1024), overhead and delayed sends against no flow control.
. "$(dirname "$0")/common.sh"
N=${1:-256}
SLOTS=${SLOTS:-"8 16 32 64"}
if [ "$N" = 1024 ]; then TOPO=mesh:4x4x4; else TOPO=mesh:4x4x1; fi
CSV="$OUT/alltoall_$N.csv"
echo "ranks,fc,slots,finish_ns,overhead_pct,delayed_pct,credit_packets" > "$CSV"
set -- $(runsim --pattern alltoall:2048 --ranks $N --ppn 16 --topology $TOPO --fc none); ref=$1
echo "$N,none,0,$ref,0,0,0" >> "$CSV"
for fc in static dynamic; do
    for s in $SLOTS; do
        set -- $(runsim --pattern alltoall:2048 --ranks $N --ppn 16 --topology $TOPO --fc $fc --slots $s)
        echo "$N,$fc,$s,$1,$(echo "$1 $ref" | awk '{printf "%.2f", ($1/$2-1)*100}'),$2,$3" >> "$CSV"
    done
done
cat > "$OUT/alltoall_$N.gp" <<GP
set terminal png size 900,500
set output 'alltoall_$N.png'
set datafile separator ','
set xlabel 'slots per process'; set ylabel '%'
set title 'Alltoall 2 KB, $N processes (credosim): overhead and delayed messages'
plot for [f in "static dynamic"] 'alltoall_$N.csv' using (strcol(2) eq f ? \$3 : 1/0):5 with linespoints title f.' overhead', \
     for [f in "static dynamic"] 'alltoall_$N.csv' using (strcol(2) eq f ? \$3 : 1/0):6 with points title f.' delayed msgs'
GP
plot alltoall_$N.gp
cat "$CSV"
