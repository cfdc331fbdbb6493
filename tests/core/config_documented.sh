#!/bin/sh
# tests/core/config_documented.sh — every CREDO_* variable credo_info knows is documented in
# docs/CONFIG.md, and credo_info reflects an environment override and rejects nothing valid.
set -eu
info="$1"; doc="$2"
names=$("$info" | awk -F' = ' '/^CREDO_/{print $1}')
[ -n "$names" ] || { echo "credo_info printed no CREDO_ variables"; exit 1; }
for n in $names; do
  grep -q "\`$n\`" "$doc" || { echo "$n is not documented in docs/CONFIG.md"; exit 1; }
done
v=$(CREDO_FC=dynamic "$info" | awk -F' = ' '$1=="CREDO_FC"{print $2}')
[ "$v" = dynamic ] || { echo "credo_info shows CREDO_FC=$v under CREDO_FC=dynamic"; exit 1; }
w=$(CREDO_SLOT_SIZE=100 "$info" | grep -c '^warning = CREDO_SLOT_SIZE=100') || true
[ "$w" = 1 ] || { echo "an invalid CREDO_SLOT_SIZE was not reported"; exit 1; }
w=$(CREDO_COLL_ALLREDUCE=bogus "$info" | grep -c '^warning = CREDO_COLL_ALLREDUCE=bogus: expected auto, recdbl, ring, rabenseifner or direct') || true
[ "$w" = 1 ] || { echo "an unknown CREDO_COLL_ALLREDUCE algorithm was not reported"; exit 1; }
echo "config: $(echo $names | wc -w) variables documented"
