#!/bin/sh
# sim/experiments/headline.sh — the thesis headline (Fig. 7.12): at 1,024 ranks on the IMB-like suite,
# the smallest buffer at which each scheme stays within 3 % of no flow control, and the plot beside the thesis' points.
# Conditions (docs/SIMULATOR.md, "The headline in one command"): PIO back-pressure of 16 packets, 200 iterations averaged
# like IMB, unexpected messages hold their slots as src/p2p does, the nine kernels that fit the CPU budget
# (alltoall and allgather cost 35-70 CPU-s per iteration at 1,024 ranks). Each scheme gets its own slot sweep,
# dense where it crosses 3 %. Output: results/headline/{imb.csv,imb_avg.csv,crossings.csv,headline.png}.
. "$(dirname "$0")/common.sh"
N=${1:-1024}
DIR=$OUT/headline
STATIC_SLOTS=${STATIC_SLOTS:-"32 48 56 64 72 80 88 92 96 128"}
DYNAMIC_SLOTS=${DYNAMIC_SLOTS:-"4 6 8 10 12 16 32 64"}
KERNELS=${KERNELS:-"barrier reduce sendrecv exchange pingpong allreduce bcast gather scatter"}
export CREDOSIM_NIC_DEPTH=${CREDOSIM_NIC_DEPTH:-16} ITERS=${ITERS:-200} SIMARGS=${SIMARGS:---hold-unexpected} KERNELS CREDOSIM
mkdir -p "$DIR"
if [ -z "$HEADLINE_REPORT_ONLY" ]; then
    mkdir -p "$DIR/static" "$DIR/dynamic"
    # The two schemes run side by side (one core each); each measures its own no-flow-control reference,
    # which is deterministic, so both give the same one.
    OUT=$DIR/static FCS=static SLOTS=$STATIC_SLOTS "$HERE/imb.sh" "$N" > "$DIR/static.log" 2>&1 &
    OUT=$DIR/dynamic FCS=dynamic SLOTS=$DYNAMIC_SLOTS "$HERE/imb.sh" "$N" > "$DIR/dynamic.log" 2>&1
    wait
    for s in static dynamic; do
        [ -s "$DIR/$s/imb_avg.csv" ] || { echo "headline.sh: the $s sweep failed, see $DIR/$s.log" >&2; exit 1; }
    done
    { cat "$DIR/static/imb.csv"; grep -v '^kernel,\|,none,' "$DIR/dynamic/imb.csv"; } > "$DIR/imb.csv"
    rm -rf "$DIR/static" "$DIR/dynamic" "$DIR/static.log" "$DIR/dynamic.log"
fi
OUT=$DIR IMB_REPORT_ONLY=1 "$HERE/imb.sh" "$N" > /dev/null
# Crossing: the smallest slot count from which on (at every larger size measured) the average with faster
# kernels counted as 0 is at most 3 %; over all nine kernels, and without the root-0 reduce, the kernel
# whose unthrottled iterations overlap (the thesis drops unnamed "anomalous" tests).
echo "kernels,fc,crossing_slots,crossing_gib_at_1024,avg_at_crossing_pct" > "$DIR/crossings.csv"
for drop in none reduce; do
    awk -F, -v drop=$drop 'NR > 1 && $2 != "none" && $1 != drop { z[$2","$3] += ($7 > 0 ? $7 : 0); n[$2","$3]++ }
        END { for (k in z) print k "," z[k] / n[k] }' "$DIR/imb.csv" | sort -t, -k1,1 -k2,2nr |
    awk -F, -v label=$([ $drop = none ] && echo all || echo without_reduce) '
        $1 != fc { if (fc != "") out(); fc = $1; ok = 1; best = "" }
        ok && $3 <= 3 { best = $2; avg = $3; next } { ok = 0 }
        function out() { if (best == "") printf "%s,%s,none,,\n", label, fc; else printf "%s,%s,%s,%.2f,%.2f\n", label, fc, best, best * 64 * 1024 * 1024 / 2^30, avg }
        END { out() }' >> "$DIR/crossings.csv"
done
cat > "$DIR/headline.gp" <<GP
set terminal png size 900,520
set output 'headline.png'
set datafile separator ','
set logscale x 2
set xrange [3:160]
set yrange [0:20]
set xlabel 'slots per process (x 1/16 GiB cluster-wide at 1024 processes)'
set ylabel 'average overhead vs. no flow control (%), faster kernels as 0'
set title "Thesis headline at $N processes (credosim): $(echo $KERNELS | wc -w) IMB-like kernels, 2 KB, $ITERS iterations,\\nNIC depth $CREDOSIM_NIC_DEPTH, unexpected messages hold slots. Thesis Fig. 7.12: 3 % at 64 slots static, 16 dynamic" noenhanced
set key top right
plot 'imb_avg.csv' using (strcol(1) eq 'static' ? \$2 : 1/0):6 with linespoints pt 7 lc rgb '#c03020' title 'static (credosim)', \\
     'imb_avg.csv' using (strcol(1) eq 'dynamic' ? \$2 : 1/0):6 with linespoints pt 5 lc rgb '#2050c0' title 'dynamic (credosim)', \\
     '-' using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#c03020' title 'thesis: static within 3 % (64 slots)', \\
     '-' using 1:2 with points pt 4 ps 3 lw 2 lc rgb '#2050c0' title 'thesis: dynamic within 3 % (16 slots)', \\
     3 with lines dt 2 lc rgb 'black' title '3 %'
64,3
e
16,3
e
GP
OUT=$DIR plot headline.gp
cat "$DIR/crossings.csv"
