#!/bin/sh
# sim/experiments/net_speed.sh — simulated cycles per CPU second and peak memory of credosim net and of
# stock Booksim2 on the same configuration (dragonflynew, UGAL as Booksim's, 10/100-cycle links,
# uniform traffic at 0.3 flits/cycle/node, below saturation), k = 2, 3, 4, 6 (72 .. 5,256 nodes);
# plus credosim on the paper's configuration (PAR, pairwise, backlogged, 1 % slow sinks at 8x).
# Booksim at k = 6 runs one short sample period (its cycles/s, not its statistics, are wanted).
# usage: BOOKSIM=/path/to/booksim net_speed.sh [KS]     Output: results/net/speed.csv
. "$(dirname "$0")/net_common.sh"
KS=${1:-"2 3 4 6"}
CSV=$NETOUT/speed.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "tool,k,nodes,config,cycles,cpu_s,cycles_per_s,peak_rss_mb" > "$CSV"
for k in $KS; do
    if [ -x "$BOOKSIM" ]; then
        if [ "$k" -ge 6 ]; then per="sample_period = 200; warmup_periods = 1; max_samples = 2;"
        else per="sample_period = 1000; warmup_periods = 3; max_samples = 10;"; fi
        cat > "$TMP/cfg" <<CFG
topology = dragonflynew; k = $k; n = 1; routing_function = ugal; num_vcs = 3; vc_buf_size = 256;
wait_for_tail_credit = 0; router = iq; vc_allocator = separable_input_first; sw_allocator = separable_input_first;
alloc_iters = 1; credit_delay = 2; routing_delay = 0; vc_alloc_delay = 1; sw_alloc_delay = 1; st_final_delay = 1;
input_speedup = 1; output_speedup = 1; internal_speedup = 2.4; traffic = uniform; packet_size = 16;
injection_rate_uses_flits = 1; injection_rate = 0.3; sim_type = latency; $per sim_count = 1; seed = 1;
CFG
        /usr/bin/time -f "%U %M" -o "$TMP/t" nice -n 19 timeout 1200 "$BOOKSIM" "$TMP/cfg" > "$TMP/log" 2>&1
        cyc=$(awk '/^Time taken is/ { print $4 }' "$TMP/log")
        set -- $(tail -1 "$TMP/t")
        echo "booksim,$k,$(nodes $k),ugal-uniform-0.3,$cyc,$1,$(echo "$cyc $1" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }'),$(echo "$2" | awk '{ printf "%.1f", $1 / 1024 }')" | tee -a "$CSV"
    fi
    for conf in a b; do
        if [ $conf = a ]; then args="--routing ugal --ugal-booksim --traffic uniform --load 0.3 --lat-local 10 --lat-global 100"; name=ugal-uniform-0.3
        else args="--routing par --traffic pairwise --slow 1%:8"; name=par-pairwise-1pct-8x; fi
        /usr/bin/time -f "%U %M" -o "$TMP/t" nice -n 19 "$CREDOSIM" net --quiet --csv "$TMP/c" --topology "$(topo $k)" $args > /dev/null
        set -- $(tail -1 "$TMP/t")
        awk -F, -v k=$k -v n=$(nodes $k) -v name=$name -v rss=$2 'NR == 2 { printf "credosim,%d,%d,%s,%s,%s,%s,%.1f\n", k, n, name, $13, $33, $34, rss / 1024 }' "$TMP/c" | tee -a "$CSV"
    done
done
