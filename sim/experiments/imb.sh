#!/bin/sh
# sim/experiments/imb.sh [RANKS] — thesis E9/E11: IMB-like kernels of 2 KB at 8/16/32/64 slots per
# process (0.5/1/2/4 GB cluster-wide at 1024 ranks); average overhead per scheme against no flow
# control and the smallest buffer within 3 %. Output: results/imb.csv, imb_avg.csv, imb.png
. "$(dirname "$0")/common.sh"
N=${1:-256}
case $N in 1024) TOPO=mesh:4x4x4;; 256) TOPO=mesh:4x4x1;; *) TOPO=flat;; esac
KERNELS=${KERNELS:-"pingpong sendrecv exchange alltoall allgather allreduce bcast reduce gather scatter barrier"}
SLOTS=${SLOTS:-"8 16 32 64"}
CSV="$OUT/imb.csv"
echo "kernel,fc,slots,finish_ns,overhead_pct" > "$CSV"
for k in $KERNELS; do
    if [ $k = barrier ]; then P=barrier:20; else P=$k:2048:4; fi
    set -- $(runsim --pattern $P --ranks $N --ppn 16 --topology $TOPO --fc none); ref=$1
    for fc in static dynamic; do
        for s in $SLOTS; do
            set -- $(runsim --pattern $P --ranks $N --ppn 16 --topology $TOPO --fc $fc --slots $s)
            echo "$k,$fc,$s,$1,$(echo "$1 $ref" | awk '{printf "%.3f", ($1/$2-1)*100}')" >> "$CSV"
        done
    done
done
echo "fc,slots,gib_at_1024,avg_overhead_pct" > "$OUT/imb_avg.csv"
awk -F, 'NR > 1 { s[$2","$3] += $5; c[$2","$3]++ }
     END { for (k in s) { split(k, a, ","); printf "%s,%s,%.2f,%.3f\n", a[1], a[2], a[2]*64*1024*1024/2^30, s[k]/c[k] } }' "$CSV" |
    sort -t, -k1,1 -k2,2n >> "$OUT/imb_avg.csv"
cat > "$OUT/imb.gp" <<'GP'
set terminal png size 900,500
set output 'imb.png'
set datafile separator ','
set logscale x 2
set xlabel 'cluster-wide buffers at 1024 processes (GiB) = 8/16/32/64 slots per process'
set ylabel 'average overhead vs. no flow control (%)'
set title 'IMB-like suite, 2 KB (credosim); thesis Fig. 7.12: static ~4 GB, dynamic ~1 GB at 3 %'
plot for [f in "static dynamic"] 'imb_avg.csv' using (strcol(1) eq f ? $3 : 1/0):4 with linespoints title f, 3 title '3 %' with lines dt 2
GP
plot imb.gp
cat "$OUT/imb_avg.csv"
awk -F, 'NR > 1 && $4 <= 3 && !($1 in best) { best[$1] = $2 } END { for (f in best) printf "%s within 3%%: %s slots/process\n", f, best[f] }' "$OUT/imb_avg.csv"
