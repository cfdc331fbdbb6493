#!/bin/sh
# tests/sim/sample_fc.sh — credosim --sample-fc: sampling rank 0's flow-control state changes no
# result, every sample is src/fc's real state (the intended quotas of the 63 senders sum to the data
# region, granted credits never exceed it), the dynamic scheme's quotas move and the static ones do
# not, and bad uses get clear errors.
set -eu
sim=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/credo-sample.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
args="run --quiet --pattern phased:2048:2 --ranks 64 --ppn 16 --slots 30"
results() { grep -v -i "^events\|^sampled"; }

for fc in dynamic static; do
    plain=$("$sim" $args --fc $fc | results)
    sampled=$("$sim" $args --fc $fc --sample-fc 0:200000 --sample-out "$tmp/$fc.csv")
    [ "$plain" = "$(echo "$sampled" | results)" ] || fail "$fc: sampling changed the results"
    n=$(echo "$sampled" | sed -n 's/^sampled: .*, \([0-9]*\) samples, .*/\1/p')
    [ -n "$n" ] && [ "$n" -ge 50 ] || fail "$fc: expected at least 50 samples, got '$n'"
    [ "$(head -1 "$tmp/$fc.csv")" = "t_ns,ops_finished,peer,granted,intended,owed,credits" ] || fail "$fc: CSV header"
    # 63 peers per sample; (64 - 1) x (30 - 2) = 1764 data slots
    awk -F, -v n="$n" -v fc=$fc '
        NR == 1 { next }
        $1 != t { if (NR > 2) check(); if ($1 + 0 < t + 0 || $2 + 0 < f + 0) bad = "time or finished operations went back";
                  t = $1; f = $2; si = 0; sg = 0; cnt = 0; samples++ }
        { si += $5; sg += $4; cnt++; if ($5 > 28) moved = 1 }
        function check() { if (cnt != 63) bad = "sample at " t " has " cnt " peers";
                           if (si != 1764) bad = "intended quotas sum to " si " at " t;
                           if (sg > 1764) bad = "granted " sg " > 1764 at " t }
        END { check(); if (samples != n) bad = samples " samples in the file, " n " reported";
              if (fc == "dynamic" && !moved) bad = "no dynamic quota ever moved";
              if (fc == "static" && moved) bad = "a static quota moved";
              if (bad != "") { print "FAIL: " fc ": " bad; exit 1 } }' "$tmp/$fc.csv" || exit 1
done

expect_err() { # expect_err REGEX ARGS...: credosim must fail with a message matching REGEX
    re=$1; shift
    if out=$("$sim" "$@" 2>&1); then fail "credosim $* should have failed"; fi
    echo "$out" | grep -q -- "$re" || fail "credosim $*: expected '$re', got: $out"
}
expect_err "go together" $args --fc dynamic --sample-fc 0:1000
expect_err "expected RANK:NS" $args --fc dynamic --sample-fc 0 --sample-out "$tmp/x.csv"
expect_err "expected RANK:NS" $args --fc dynamic --sample-fc 0:0 --sample-out "$tmp/x.csv"
expect_err "expected RANK:NS" $args --fc dynamic --sample-fc 0:-5 --sample-out "$tmp/x.csv"
expect_err "rank 64 is not below 64 ranks" $args --fc dynamic --sample-fc 64:1000 --sample-out "$tmp/x.csv"
expect_err "give --fc" run --quiet --pattern barrier --ranks 8 --sample-fc 0:1000 --sample-out "$tmp/x.csv"
expect_err "sample-out /nonexistent" $args --fc dynamic --sample-fc 0:1000 --sample-out /nonexistent/dir/x.csv
echo "sample_fc: ok"
