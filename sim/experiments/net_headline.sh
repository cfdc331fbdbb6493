#!/bin/sh
# sim/experiments/net_headline.sh — seed 002's headline: RDRP against the best alternative (the max of
# baseline, FECN/BECN default and aggressive, per permutation) with 1 % slow sinks 2x, 4x, 8x slower,
# at W = 30 and at the best W of the sweep; plus every scheme with no slow node (the cost of each).
# usage: net_headline.sh K [PERMS] [WINDOWS]    (runs net_fig5.sh K PERMS WINDOWS first)
# Output: results/net/headline_kK.csv (the table), headline_kK_noslow.csv (runs with no slow node)
. "$(dirname "$0")/net_common.sh"
K=${1:-3}
PERMS=${2:-3}
WS=${3:-"1 2 4 8 12 16 20 24 30 40 48 64 96 128"}
"$HERE/net_fig5.sh" "$K" "$PERMS" "$WS" > /dev/null || exit 1
NS=$NETOUT/headline_k${K}_noslow.csv
rm -f "$NS"
for seed in $(seq 1 "$PERMS"); do
    for cc in none fecn fecn-aggressive; do
        netpoint "$NS" --topology "$(topo "$K")" --routing par --slow 0:1 --cc $cc --seed "$seed" > /dev/null
    done
    netpoint "$NS" --topology "$(topo "$K")" --routing par --slow 0:1 --transfer rdrp:30 --seed "$seed" > /dev/null
done
T=$(col "$NETOUT/fig5_k$K.csv" throughput)
awk -F, -v t="$T" 'NR > 1 { split($10, x, ":"); if (x[1] == "rdrp") { r[$9 "," x[2]] += $t; n[$9 "," x[2]]++ }
                            else { k = $9 "," $12; if ($t > best[k]) { best[k] = $t; bn[k] = $11 } } }
    END { print "slowdown,best_alternative_mean,alternatives_best_per_perm,rdrp_w30,ratio_w30,best_w,rdrp_best_w,ratio_best_w";
          for (k in best) { split(k, y, ","); b[y[1]] += best[k]; nb[y[1]]++; names[y[1]] = names[y[1]] bn[k] " " }
          for (s = 2; s <= 8; s *= 2) { bw = 0; bv = -1;
              for (k in r) { split(k, y, ","); if (y[1] == s && r[k] / n[k] > bv) { bv = r[k] / n[k]; bw = y[2] } }
              alt = b[s] / nb[s]; w30 = (s ",30" in r) ? r[s ",30"] / n[s ",30"] : 0;
              printf "%d,%.4f,%s,%.4f,%.2f,%s,%.4f,%.2f\n", s, alt, names[s], w30, w30 / alt, bw, bv, bv / alt } }' \
    "$NETOUT/fig5_k$K.csv" > "$NETOUT/headline_k$K.csv"
cat "$NETOUT/headline_k$K.csv"
echo "no slow node (mean over $PERMS permutations):"
awk -F, -v t="$T" 'NR > 1 { k = $10 " " $11; s[k] += $t; n[k]++ } END { for (k in s) printf "  %s: %.4f\n", k, s[k] / n[k] }' "$NS"
