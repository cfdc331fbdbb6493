#!/bin/sh
# sim/experiments/net_fig1.sh — seed 002 Fig. 1: PAR baseline throughput against the number of slow
# sinks (2x and 8x slower), over PERMS random pairwise permutations (one per seed), showing the spread.
# usage: net_fig1.sh K [PERMS] [SLOW_COUNTS]   (K = 2, 3, 4, 6 -> 72, 342, 1056, 5256 nodes)
# Output: results/net/fig1_kK.csv (one row per run), fig1_kK_summary.csv (mean/min/max), fig1_kK.png
. "$(dirname "$0")/net_common.sh"
K=${1:-3}
PERMS=${2:-10}
N=$(nodes "$K")
# 0 .. 1 % of the nodes, plus the paper's 0.02 / 0.04 / 0.1 % points where they are whole nodes
COUNTS=${3:-$(awk -v n="$N" 'BEGIN { printf "0 1 2"; split("0.001 0.0025 0.005 0.01", f, " ");
                                      last = 2; for (i = 1; i <= 4; i++) { c = int(n * f[i] + 0.5); if (c > last) { printf " %d", c; last = c } } }')}
CSV=$NETOUT/fig1_k$K.csv
rm -f "$CSV"
for s in 2 8; do
    for c in $COUNTS; do
        [ "$c" = 0 ] && [ "$s" != 2 ] && continue # no slow node: one run per seed serves both series
        for seed in $(seq 1 "$PERMS"); do
            netpoint "$CSV" --topology "$(topo "$K")" --routing par --slow "$c:$s" --seed "$seed" > /dev/null
        done
    done
done
T=$(col "$CSV" throughput)
awk -F, -v t="$T" 'NR > 1 { if ($8 == 0) { $9 = 8; add(); $9 = 2 } add() }
    function add() { k = $9 "," $8; v = $t; s[k] += v; n[k]++;
                            if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
    END { print "slowdown,slow_nodes,runs,mean,min,max"; for (k in s) printf "%s,%d,%.4f,%.4f,%.4f\n", k, n[k], s[k] / n[k], lo[k], hi[k] }' \
    "$CSV" | sort -t, -k1,1n -k2,2n > "$NETOUT/fig1_k${K}_summary.csv"
cat "$NETOUT/fig1_k${K}_summary.csv"
cat > "$NETOUT/fig1_k$K.gp" <<GP
set terminal png size 900,500
set output 'fig1_k$K.png'
set datafile separator ','
set xlabel 'slow sinks (of $N nodes)'
set ylabel 'normalized throughput'
set yrange [0:1]
set key top right
set title "seed 002 Fig. 1 at $N nodes: credosim net, PAR, pairwise, $PERMS permutations (mean, min-max)" noenhanced
plot 'fig1_k${K}_summary.csv' using (\$1 == 2 ? \$2 : 1/0):4:5:6 with yerrorlines title '2x slower', \
     'fig1_k${K}_summary.csv' using (\$1 == 8 ? \$2 : 1/0):4:5:6 with yerrorlines title '8x slower', \
     0.59 title 'paper, no slow node (5,256 nodes)' with lines dt 2
GP
netplot "fig1_k$K.gp"
