#!/usr/bin/env bash
# cmake/check_layers.sh — the build's check of the direction of dependency between libcredo's layers:
# no layer may use a symbol that only a higher layer defines (an upward call or data reference).
# usage: check_layers.sh --layer NAME OBJ... --layer NAME OBJ...   (lowest layer first)
# Each layer's defined global symbols and undefined references are read with nm; a reference of
# layer i that layer j > i defines is reported with the object that makes it, and the build fails.
set -u
names=() ; declare -A objs=()
cur=
while [ $# -gt 0 ]; do
    if [ "$1" = --layer ]; then cur=$2; names+=("$cur"); objs[$cur]=; shift 2; continue; fi
    objs[$cur]+="$1"$'\n'; shift
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for n in "${names[@]}"; do
    printf '%s' "${objs[$n]}" | grep . | xargs -r nm -g --defined-only 2>/dev/null | awk 'NF >= 3 {print $3}' | sort -u > "$tmp/$n.def"
    printf '%s' "${objs[$n]}" | grep . | xargs -r nm -u 2>/dev/null | awk '{print $NF}' | sort -u > "$tmp/$n.und"
done
bad=0
for ((i = 0; i < ${#names[@]}; i++)); do
    lo=${names[$i]}
    for ((j = i + 1; j < ${#names[@]}; j++)); do
        hi=${names[$j]}
        for sym in $(comm -12 "$tmp/$lo.und" "$tmp/$hi.def"); do
            who=$(printf '%s' "${objs[$lo]}" | grep . | while read -r o; do nm -u "$o" 2>/dev/null | awk '{print $NF}' | grep -qx "$sym" && basename "$o"; done | tr '\n' ' ')
            echo "credo layers: $lo uses $sym, defined by the higher layer $hi (in: $who)" >&2
            bad=1
        done
    done
done
[ "$bad" = 0 ] || { echo "credo layers: the direction of dependency is base <- boot <- fc <- xport <- p2p <- core <- goal <- coll (docs/ARCHITECTURE.md)" >&2; exit 1; }
exit 0
