#!/bin/sh
# sim/experiments/net_fig4.sh — seed 002 Fig. 4: baseline (PAR, one big transfer) against FECN/BECN with
# the default and the aggressive parameters, over the number of slow sinks, for sinks 2x, 4x, 8x slower.
# usage: net_fig4.sh K [PERMS] [SLOW_COUNTS]
# Output: results/net/fig4_kK.csv (one row per run), fig4_kK_summary.csv (mean/min/max), fig4_kK.png
. "$(dirname "$0")/net_common.sh"
K=${1:-3}
PERMS=${2:-3}
N=$(nodes "$K")
COUNTS=${3:-$(awk -v n="$N" 'BEGIN { printf "0 1"; split("0.0025 0.005 0.01", f, " ");
                                      last = 1; for (i = 1; i <= 3; i++) { c = int(n * f[i] + 0.5); if (c > last) { printf " %d", c; last = c } } }')}
CSV=$NETOUT/fig4_k$K.csv
rm -f "$CSV"
for cc in none fecn fecn-aggressive; do
    for s in 2 4 8; do
        for c in $COUNTS; do
            [ "$c" = 0 ] && [ "$s" != 2 ] && continue # no slow node: one run serves the three panels
            for seed in $(seq 1 "$PERMS"); do
                netpoint "$CSV" --topology "$(topo "$K")" --routing par --slow "$c:$s" --cc $cc --seed "$seed" > /dev/null
            done
        done
    done
done
T=$(col "$CSV" throughput)
awk -F, -v t="$T" 'NR > 1 { if ($8 == 0) { $9 = 4; add(); $9 = 8; add(); $9 = 2 } add() }
    function add() { k = $11 "," $9 "," $8; v = $t; s[k] += v; n[k]++;
                     if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
    END { print "cc,slowdown,slow_nodes,runs,mean,min,max"; for (k in s) printf "%s,%d,%.4f,%.4f,%.4f\n", k, n[k], s[k] / n[k], lo[k], hi[k] }' \
    "$CSV" | sort -t, -k1,1 -k2,2n -k3,3n > "$NETOUT/fig4_k${K}_summary.csv"
cat "$NETOUT/fig4_k${K}_summary.csv"
cat > "$NETOUT/fig4_k$K.gp" <<GP
set terminal png size 1200,420
set output 'fig4_k$K.png'
set datafile separator ','
set multiplot layout 1,3 title "seed 002 Fig. 4 at $N nodes (credosim net, PAR, pairwise, $PERMS permutations, min/mean/max)"
set xlabel 'slow sinks'
set ylabel 'normalized throughput'
set yrange [0:0.8]
do for [s in "2 4 8"] {
  set title s.'x slower sinks'
  plot for [c in "none fecn fecn-aggressive"] 'fig4_k${K}_summary.csv' using (strcol(1) eq c && \$2 == s ? \$3 : 1/0):5:6:7 with yerrorlines title c
}
unset multiplot
GP
netplot "fig4_k$K.gp"
