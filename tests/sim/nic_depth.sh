#!/bin/sh
# tests/sim/nic_depth.sh — credosim's optional PIO back-pressure (CREDOSIM_NIC_DEPTH): unset and 0
# give the default model exactly; a depth paces the senders (no packet lost, fewer delayed sends).
set -eu
sim=$1
args="run --quiet --pattern alltoall:2048:1 --ranks 64 --ppn 16 --topology mesh:2x2x1 --fc static --slots 16"
fail() { echo "FAIL: $*"; exit 1; }
base=$(env -u CREDOSIM_NIC_DEPTH "$sim" $args | grep -v -i "events\|cpu\|wall\|rss\|memory")
zero=$(CREDOSIM_NIC_DEPTH=0 "$sim" $args | grep -v -i "events\|cpu\|wall\|rss\|memory")
[ "$base" = "$zero" ] || fail "CREDOSIM_NIC_DEPTH=0 changed the results"
one=$(CREDOSIM_NIC_DEPTH=1 "$sim" $args)
pk() { echo "$1" | sed -n 's/.*data packets \([0-9]*\).*/\1/p'; }
dl() { echo "$1" | sed -n 's/.*delayed messages \([0-9]*\).*/\1/p'; }
[ -n "$(pk "$base")" ] && [ "$(pk "$base")" = "$(pk "$one")" ] || fail "data packets differ: $(pk "$base") vs $(pk "$one")"
[ "$(dl "$one")" -lt "$(dl "$base")" ] || fail "a NIC depth of 1 should pace senders: delayed $(dl "$one") vs $(dl "$base")"
echo "nic_depth: ok (delayed messages $(dl "$base") -> $(dl "$one"), data packets $(pk "$one"))"
