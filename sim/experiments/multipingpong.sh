#!/bin/sh
# sim/experiments/multipingpong.sh — thesis E1/E6: 16+16 ranks ping-pong 2 KB between two nodes,
# 1 hop (2 adjacent nodes) and 14 hops (opposite corners of an 8x8 mesh); overhead against no
# flow control for a sweep of slots per process. Output: results/multipingpong.csv + .png
. "$(dirname "$0")/common.sh"
ITERS=${ITERS:-20}
SLOTS=${SLOTS:-"6 8 12 16 24 32 48 64"}
CSV="$OUT/multipingpong.csv"
echo "hops,fc,slots,finish_ns,overhead_pct,delayed_pct" > "$CSV"
for hops in 1 14; do
    if [ $hops = 1 ]; then A="--ranks 32 --topology mesh:2x1x1"; else A="--ranks 1024 --topology mesh:8x8x1"; fi
    set -- $(runsim --pattern farpingpong:2048:$ITERS --ppn 16 $A --fc none); ref=$1
    for fc in static dynamic; do
        for s in $SLOTS; do
            set -- $(runsim --pattern farpingpong:2048:$ITERS --ppn 16 $A --fc $fc --slots $s)
            echo "$hops,$fc,$s,$1,$(echo "$1 $ref" | awk '{printf "%.2f", ($1/$2-1)*100}'),$2" >> "$CSV"
        done
    done
done
cat > "$OUT/multipingpong.gp" <<'GP'
set terminal png size 900,500
set output 'multipingpong.png'
set datafile separator ','
set xlabel 'slots per process'; set ylabel 'overhead vs. no flow control (%)'
set title 'Multi-PingPong 2 KB, 16+16 processes (credosim)'
set key top right
plot for [h in "1 14"] for [f in "static dynamic"] 'multipingpong.csv' using (strcol(1) eq h && strcol(2) eq f ? $3 : 1/0):5 with linespoints title f.' '.h.' hop(s)'
GP
plot multipingpong.gp
cat "$CSV"
