#!/bin/sh
# sim/experiments/net_common.sh — shared helpers of the network-model experiments (issue 30): find
# credosim (common.sh), run one `credosim net` point and append its CSV row, pick topologies by k.
. "$(dirname "$0")/common.sh"
NETOUT=${NETOUT:-$OUT/net}
mkdir -p "$NETOUT"

# topo K -> dragonfly:K,2K,K (balanced: a = 2p = 2h; k = 6 is the paper's 5,256 nodes)
topo() { echo "dragonfly:$1,$(($1 * 2)),$1"; }
nodes() { echo $(($1 * 2 * $1 * (2 * $1 * $1 + 1))); }

# netpoint CSV ARGS... : runs one point (niced), appends its row to CSV (header once); prints the row
netpoint() {
    csv=$1
    shift
    row=$(nice -n 19 "$CREDOSIM" net --quiet --csv - "$@") || { echo "netpoint: credosim net $* failed" >&2; return 1; }
    [ -s "$csv" ] || echo "$row" | head -1 > "$csv"
    echo "$row" | tail -1 | tee -a "$csv"
}

# col CSV NAME -> the column number of NAME in CSV's header
col() { head -1 "$1" | tr ',' '\n' | grep -n "^$2\$" | cut -d: -f1; }

netplot() { (cd "$NETOUT" && if command -v gnuplot >/dev/null 2>&1; then gnuplot "$1"; else echo "gnuplot not installed: skipped $1" >&2; fi) }
