#!/bin/sh
# sim/experiments/net_fig5.sh — seed 002 Fig. 5: RDRP throughput against the window W (gets of one
# 16-flit packet outstanding per receiver) with 1 % slow sinks 2x, 4x, 8x slower; W = 0 rows are the
# best alternative of the same permutation (max of baseline, FECN/BECN default and aggressive).
# usage: net_fig5.sh K [PERMS] [WINDOWS]
# Output: results/net/fig5_kK.csv, fig5_kK_summary.csv (mean per W), fig5_kK.png
. "$(dirname "$0")/net_common.sh"
K=${1:-3}
PERMS=${2:-3}
WS=${3:-"1 2 4 8 12 16 20 24 30 40 48 64 96 128"}
N=$(nodes "$K")
CSV=$NETOUT/fig5_k$K.csv
rm -f "$CSV"
for s in 2 4 8; do
    for seed in $(seq 1 "$PERMS"); do
        for w in $WS; do
            netpoint "$CSV" --topology "$(topo "$K")" --routing par --slow "1%:$s" --transfer rdrp:$w --seed "$seed" > /dev/null
        done
        for cc in none fecn fecn-aggressive; do
            netpoint "$CSV" --topology "$(topo "$K")" --routing par --slow "1%:$s" --cc $cc --seed "$seed" > /dev/null
        done
    done
done
T=$(col "$CSV" throughput)
# per slowdown and W: mean over permutations; "best" = per permutation the max over the three alternatives
awk -F, -v t="$T" 'NR > 1 { split($10, x, ":"); if (x[1] == "rdrp") { k = $9 "," x[2]; s[k] += $t; n[k]++ }
                            else { b = $9 "," $12; if ($t > best[b]) best[b] = $t } }
    END { for (b in best) { split(b, y, ","); s[y[1] ",0"] += best[b]; n[y[1] ",0"]++ }
          print "slowdown,W,runs,mean"; for (k in s) printf "%s,%d,%.4f\n", k, n[k], s[k] / n[k] }' \
    "$CSV" | sort -t, -k1,1n -k2,2n > "$NETOUT/fig5_k${K}_summary.csv"
cat "$NETOUT/fig5_k${K}_summary.csv"
cat > "$NETOUT/fig5_k$K.gp" <<GP
set terminal png size 900,500
set output 'fig5_k$K.png'
set datafile separator ','
set logscale x 2
set xlabel 'W (outstanding one-packet gets per receiver)'
set ylabel 'normalized throughput'
set yrange [0:0.8]
set key bottom right
set title "seed 002 Fig. 5 at $N nodes (credosim net, PAR, 1 % slow sinks, $PERMS permutations); dashed: best alternative; paper: best W near 30 at 8x" noenhanced
plot for [s in "2 4 8"] 'fig5_k${K}_summary.csv' using (\$1 == s && \$2 > 0 ? \$2 : 1/0):4 with linespoints title s.'x RDRP', \
     for [s in "2 4 8"] 'fig5_k${K}_summary.csv' using (\$1 == s && \$2 == 0 ? 1 : 1/0):4:(128):(0) with vectors nohead dt 2 title s.'x best alternative'
GP
netplot "fig5_k$K.gp"
