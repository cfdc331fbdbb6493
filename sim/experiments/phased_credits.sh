#!/bin/sh
# sim/experiments/phased_credits.sh [RANKS] [REPS] — thesis Fig. 7.4 (E8): rank 0's receive buffer
# following the active group through the phased alltoall (all, 1/4, 1/2, all, 1/2, 1/4, all of the
# ranks; REPS alltoalls of 2 KB per phase, a barrier after each), dynamic flow control, 30 slots per
# process. credosim samples rank 0's src/fc state every SAMPLE_NS of simulated time; the first
# sample after rank 0 finished alltoall k - 1 stands for the state before alltoall k (the thesis
# samples before each alltoall), summarised per sender group (0, n/4), [n/4, n/2), [n/2, n):
# median, min, max, mean and standard deviation of the credits rank 0 has granted each sender
# (the thesis plots median with min/max, its paper mean and standard deviation). Senders on rank
# 0's own node use shared memory, hold no credits and are left out.
# Env: SLOTS (30), FC (dynamic), SAMPLE_NS (default: about 100 samples per alltoall of all ranks).
# Output: results/phased_credits.csv (alltoall, group, senders, median, min, max, mean, sd) + .png;
# results/phased_credits_raw.csv (credosim's samples).
. "$(dirname "$0")/common.sh"
N=${1:-256}; REPS=${2:-10}; SLOTS=${SLOTS:-30}; FC=${FC:-dynamic}; PPN=16
case $N in 1024) TOPO=mesh:4x4x4;; 256) TOPO=mesh:4x4x1;; *) TOPO=flat;; esac
# a 2 KB alltoall of all ranks takes about 0.22 ms per rank in this model (57 ms at 256 ranks)
SAMPLE_NS=${SAMPLE_NS:-$((N * 220000 / 100))}
RAW="$OUT/phased_credits_raw.csv"
CSV="$OUT/phased_credits.csv"
case $CREDOSIM in */*) CREDOSIM=$(cd "$(dirname "$CREDOSIM")" && pwd)/$(basename "$CREDOSIM") ;; esac
# run inside $OUT so that the saved output names the samples' file without this machine's path
(cd "$OUT" && "$CREDOSIM" run --quiet --pattern "phased:2048:$REPS" --ranks "$N" --ppn $PPN --topology $TOPO \
    --fc "$FC" --slots "$SLOTS" --sample-fc "0:$SAMPLE_NS" --sample-out phased_credits_raw.csv) \
    > "$OUT/phased_credits_run.txt" || exit 1

# Rank 0's position in its schedule from its finished operations: phase p has REPS alltoalls of
# 2 (g - 1) operations each (g ranks in the group) and ends with a dissemination barrier of
# 2 ceil(log2 n) operations (src/sim/sim_pattern.c, P_PHASED). As in the thesis, alltoall k gets
# the state before it starts: the first sample taken once rank 0 has finished alltoall k - 1.
awk -F, -v n="$N" -v reps="$REPS" -v ppn=$PPN '
    BEGIN {
        split("1 4 2 1 2 4 1", dv, " ")
        lb = 0; for (d = 1; d < n; d *= 2) lb++
        c = 0; k = 0
        for (p = 1; p <= 7; p++) {
            g = n / dv[p]
            for (i = 0; i < reps; i++) { start[k] = c; c += 2 * (g - 1); k++ }
            c += 2 * lb
        }
        nk = k; want = 0; take = 0; lastt = -1
    }
    NR == 1 { next }
    $1 != lastt {
        lastt = $1; take = 0
        if (want < nk && $2 + 0 >= start[want]) {
            while (want + 1 < nk && start[want + 1] <= $2 + 0) want++
            take = 1; at = want; want++
        }
    }
    take {
        peer = $3 + 0
        if (int(peer / ppn) == 0) next
        grp = peer < n / 4 ? 1 : (peer < n / 2 ? 2 : 3)
        printf "%d,%d,%d\n", at, grp, $4
    }' "$RAW" | sort -t, -k1,1n -k2,2n -k3,3n | awk -F, '
    function flush() {
        if (cnt == 0) return
        m = cnt % 2 ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2
        mean = sum / cnt; var = sumsq / cnt - mean * mean; if (var < 0) var = 0
        printf "%s,%s,%d,%g,%d,%d,%.2f,%.2f\n", px, pg, cnt, m, v[1], v[cnt], mean, sqrt(var)
    }
    BEGIN { print "alltoall,group,n,median,min,max,mean,sd" }
    $1 != px || $2 != pg { flush(); px = $1; pg = $2; cnt = 0; sum = 0; sumsq = 0 }
    { v[++cnt] = $3; sum += $3; sumsq += $3 * $3 }
    END { flush() }' > "$CSV"

Q=$((N / 4))
cat > "$OUT/phased_credits.gp" <<GP
set terminal png size 1000,520
set output 'phased_credits.png'
set datafile separator ','
set xlabel 'alltoall (rank 0; $REPS per phase: all, 1/4, 1/2, all, 1/2, 1/4, all of $N ranks)'
set ylabel 'credits granted by rank 0 (slots)'
set title 'Credit reallocation, $FC flow control, $SLOTS slots per process (credosim; thesis Fig. 7.4)'
set key top left
set xrange [0:$((7 * REPS))]
set for [p=1:6] arrow from p*$REPS, graph 0 to p*$REPS, graph 1 nohead dt 2 lc rgb 'gray'
plot 'phased_credits.csv' using (\$2==1 ? \$1-0.2 : 1/0):4:5:6 with yerrorbars pt 7 ps 0.5 title 'senders 1..$((Q - 1))', \\
     '' using (\$2==2 ? \$1 : 1/0):4:5:6 with yerrorbars pt 7 ps 0.5 title 'senders $Q..$((2 * Q - 1))', \\
     '' using (\$2==3 ? \$1+0.2 : 1/0):4:5:6 with yerrorbars pt 7 ps 0.5 title 'senders $((2 * Q))..$((N - 1))'
GP
plot phased_credits.gp
grep -E "^Maximum|^sampled" "$OUT/phased_credits_run.txt"
# per phase and group, the last alltoall of the phase (its state before it started)
awk -F, -v reps="$REPS" 'NR > 1 && ($1 + 1) % reps == 0 { print }' "$CSV" |
    awk -F, 'BEGIN { print "phase,group: alltoall,group,senders,median,min,max,mean,sd" } { print int($1 / '"$REPS"') "," $2 ": " $0 }' 
