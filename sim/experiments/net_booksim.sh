#!/bin/sh
# sim/experiments/net_booksim.sh — the outside check of issue 30: stock Booksim2 (dragonflynew, UGAL,
# 3 VCs of 256 flits, iq router at 2.4x internal speedup, 16-flit packets) against credosim net on the
# same configuration, throughput and average packet latency per offered load, uniform and randperm.
# Stock Booksim hard-codes 10-cycle local and 100-cycle global links (DRAGON_LATENCY), so credosim runs
# with --lat-local 10 --lat-global 100 here. Booksim is built outside the project tree (never copied):
#   git clone https://github.com/booksim/booksim2 && make -C booksim2/src   (needs flex, bison)
# usage: BOOKSIM=/path/to/booksim net_booksim.sh [KS] [LOADS] [SEEDS]
# Output: results/net/booksim.csv (one row per tool, k, traffic, load, seed), booksim_k*.png
. "$(dirname "$0")/net_common.sh"
[ -x "$BOOKSIM" ] || { echo "net_booksim.sh: set BOOKSIM to a built booksim binary" >&2; exit 1; }
KS=${1:-"2 3"}
LOADS=${2:-"0.02 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0"}
SEEDS=${3:-"1"}
CSV=$NETOUT/booksim.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "tool,k,nodes,traffic,load,seed,accepted,latency,cpu_s,cycles,stable" > "$CSV"
for k in $KS; do
    for tr in uniform randperm; do
        for load in $LOADS; do
            for seed in $SEEDS; do
                cat > "$TMP/cfg" <<CFG
topology = dragonflynew; k = $k; n = 1; routing_function = ugal; num_vcs = 3; vc_buf_size = 256;
wait_for_tail_credit = 0; router = iq; vc_allocator = separable_input_first; sw_allocator = separable_input_first;
alloc_iters = 1; credit_delay = 2; routing_delay = 0; vc_alloc_delay = 1; sw_alloc_delay = 1; st_final_delay = 1;
input_speedup = 1; output_speedup = 1; internal_speedup = 2.4; traffic = $tr; perm_seed = $seed; packet_size = 16;
injection_rate_uses_flits = 1; injection_rate = $load; sim_type = latency; warmup_periods = 3; sample_period = 1000;
max_samples = 10; sim_count = 1; seed = $seed;
CFG
                /usr/bin/time -f %U -o "$TMP/cpu" nice -n 19 "$BOOKSIM" "$TMP/cfg" > "$TMP/log" 2>&1
                # stable: the Overall section; unstable (past saturation): the last sample's rate
                awk -v k=$k -v n=$(nodes $k) -v tr=$tr -v load=$load -v seed=$seed -v cpu=$(tail -1 "$TMP/cpu") '
                    /Overall Traffic Statistics/ { ov = 1 }
                    /^Packet latency average/ { lat = $5 } /^Accepted flit rate average/ { gsub(/.*= */, ""); acc = $1 }
                    /^Time taken is/ { cyc = $4 }
                    /unstable/ { un = 1 }
                    END { printf "booksim,%d,%d,%s,%s,%s,%.4f,%s,%.2f,%s,%d\n", k, n, tr, load, seed, acc, un ? "" : lat, cpu, cyc, !un }' \
                    "$TMP/log" >> "$CSV"
                # credosim twice: its own UGAL (intermediate group, class VCs) and Booksim's (--ugal-booksim)
                for variant in credosim credosim-bsugal; do
                    extra=""
                    [ $variant = credosim-bsugal ] && extra=--ugal-booksim
                    row=$(nice -n 19 "$CREDOSIM" net --quiet --csv - --topology "$(topo $k)" --routing ugal $extra --traffic $tr \
                          --load $load --seed $seed --lat-local 10 --lat-global 100 --window 1000 --warmup-min 3 --meas-min 10 \
                          --max-cycles 60000 | tail -1)
                    echo "$row" | awk -F, -v v=$variant -v k=$k -v n=$(nodes $k) -v tr=$tr -v load=$load -v seed=$seed '
                        { st = $17 >= 0.95 * load; # past saturation the latency grows with the run: not reported
                          printf "%s,%d,%d,%s,%s,%s,%.4f,%s,%.2f,%s,%d\n", v, k, n, tr, load, seed, $17, st ? $26 : "", $33, $13, st }' >> "$CSV"
                done
                tail -3 "$CSV"
            done
        done
    done
done
for k in $KS; do
    cat > "$NETOUT/booksim_k$k.gp" <<GP
set terminal png size 1000,450
set output 'booksim_k$k.png'
set datafile separator ','
set multiplot layout 1,2 title "dragonflynew k=$k ($(nodes $k) nodes), UGAL, 10/100-cycle links: Booksim2 vs credosim net"
set xlabel 'offered load (flits/cycle/node)'
set ylabel 'accepted (flits/cycle/node)'
set key top left
plot for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'booksim' && \$2 == $k && strcol(4) eq t ? \$5 : 1/0):7 with linespoints title 'Booksim2 '.t, \
     for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim' && \$2 == $k && strcol(4) eq t ? \$5 : 1/0):7 with linespoints dt 2 title 'credosim '.t, \
     for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim-bsugal' && \$2 == $k && strcol(4) eq t ? \$5 : 1/0):7 with linespoints dt 3 title 'credosim --ugal-booksim '.t
set ylabel 'average packet latency (cycles)'
set logscale y
plot for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'booksim' && \$2 == $k && strcol(4) eq t ? \$5 : 1/0):8 with linespoints title 'Booksim2 '.t, \
     for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim' && \$2 == $k && strcol(4) eq t ? \$5 : 1/0):8 with linespoints dt 2 title 'credosim '.t, \
     for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim-bsugal' && \$2 == $k && strcol(4) eq t ? \$5 : 1/0):8 with linespoints dt 3 title 'credosim --ugal-booksim '.t
unset multiplot
GP
    netplot "booksim_k$k.gp"
done
