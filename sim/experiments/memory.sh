#!/bin/sh
# sim/experiments/memory.sh — thesis Table 7.1: memory per receiver (flow-control state measured
# by src/fc's state_bytes plus 64-byte mailbox slots): static at 64, dynamic at 16 slots/process.
. "$(dirname "$0")/common.sh"
CSV="$OUT/memory.csv"
echo "ranks,static_mib,dynamic_mib,thesis_static_mb,thesis_dynamic_mb" > "$CSV"
for row in "1024 4 1.14" "4096 16 4.6" "16384 64 18.3" "65536 256 73.3" "262144 1024 293.5"; do
    set -- $row
    s=$("$CREDOSIM" memory --ranks $1 --fc static --slots 64 | awk -F, 'NR==2{print $6}')
    d=$("$CREDOSIM" memory --ranks $1 --fc dynamic --slots 16 | awk -F, 'NR==2{print $6}')
    echo "$1,$s,$d,$2,$3" >> "$CSV"
done
cat "$CSV"
