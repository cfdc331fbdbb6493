#!/usr/bin/env bash
# tests/hosts/harness_test.sh — the test-host harness itself (netns.sh, agent.sh): names, private
# /dev/shm, no way out of the test subnet, the agent's clean login, link cuts, shaping, second rail, teardown.
#
# usage: harness_test.sh [CREDORUN] ; makes 2 hosts of its own with HOSTS_RAILS=2; 77 without namespaces.
# With CREDORUN, also a job across the two hosts without --iface (every address advertised), and one
# with host 2's first rail cut, which its proxy reaches the head over the second one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
HOSTS_RAILS=2 hosts_up 2 || exit $?
tag=$HOSTS_TAG
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "harness: $*"; }

# TCP from host $1 to host $2's address $3 (rail address), port of a listener there; prints "ok" or why not.
tcp() {
    local pf=$HOSTS_DIR/tcp.$1.$2 lpid port got
    hosts_exec "$2" perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(LocalAddr => $ARGV[0], LocalPort => 0, Listen => 1) or die "listen: $!\n";
        $| = 1; print $s->sockport, "\n"; $SIG{ALRM} = sub { exit 1 }; alarm 4;
        my $c = $s->accept or exit 1; print $c "ok\n";' "$3" >"$pf" &
    lpid=$!
    for _ in $(seq 40); do [ -s "$pf" ] && break; sleep 0.05; done
    port=$(cat "$pf")
    got=$(hosts_exec "$1" perl -MIO::Socket::INET -e '
        my $c = IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => $ARGV[1], Timeout => 2) or do { print "no: $!\n"; exit 0 };
        print scalar <$c>;' "$3" "$port")
    kill "$lpid" 2>/dev/null
    wait "$lpid" 2>/dev/null
    echo "$got"
}

for k in 1 2; do
    [ "$(hosts_exec "$k" hostname)" = "credo-h$k" ] || fail "host $k is not called credo-h$k"
    [ "$(hosts_exec "$k" cat /sys/class/net/ceth0/address 2>/dev/null)" != "" ] || fail "host $k: /sys does not show its own ceth0"
    [ -d "$(hosts_exec "$k" sh -c 'ls -d /sys/fs/cgroup/* 2>/dev/null | head -1')" ] || [ ! -d /sys/fs/cgroup ] ||
        fail "host $k: the cgroup tree is not under its /sys/fs/cgroup"
    [ -z "$(ip -n "credo-h$k-$tag" route show default)" ] || fail "host $k has a default route"
done
ok "host names, own sysfs with the cgroup tree, no default route"

# /dev/shm is the host's own
hosts_exec 1 sh -c 'echo x >/dev/shm/credo-harness-probe'
[ -e /dev/shm/credo-harness-probe ] && fail "host 1's /dev/shm file is visible in the root namespace"
[ -n "$(hosts_exec 2 ls /dev/shm/credo-harness-probe 2>/dev/null)" ] && fail "host 1's /dev/shm file is visible on host 2"
[ -n "$(hosts_exec 1 ls /dev/shm/credo-harness-probe 2>/dev/null)" ] || fail "host 1 does not see its own /dev/shm file"
hosts_exec 1 rm -f /dev/shm/credo-harness-probe
ok "/dev/shm private to each host"

# nothing leaves the test subnet: an address elsewhere (TEST-NET-1, never routed) is unreachable at once
out=$(hosts_exec 1 perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => "192.0.2.1", PeerPort => 9, Timeout => 2) ? print "connected\n" : print "$!\n"')
case $out in *unreachable*) ok "an outside address is unreachable from a host: $out" ;; *) fail "outside address from host 1: '$out'" ;; esac

# both rails carry TCP
[ "$(tcp 1 2 "$(hosts_ip 2)")" = ok ] || fail "no TCP from host 1 to host 2 on rail 1"
ip2=$(cat "$HOSTS_DIR/host2.ip2")
[ "$(tcp 1 2 "$ip2")" = ok ] || fail "no TCP from host 1 to host 2 on rail 2 ($ip2)"
hosts_exec 2 ip -4 -o addr show ceth1 | grep -q " $ip2/" || fail "host 2's ceth1 does not have $ip2"
ok "TCP between the hosts on both rails"

# the agent: host by name, short name and address; ssh options skipped; a login's clean environment
for h in credo-h2 h2 "$(hosts_ip 2)"; do
    got=$(FOO=leak "$here/agent.sh" -x -o BatchMode=yes -p 22 "$h" 'echo "$(hostname) ${FOO:-clean}"')
    [ "$got" = "credo-h2 clean" ] || fail "agent.sh $h: got '$got', expected 'credo-h2 clean'"
done
"$here/agent.sh" credo-h9 true 2>/dev/null
[ $? = 255 ] || fail "agent.sh to a host that does not exist: not exit 255 (as ssh)"
ok "agent.sh: names, options, clean environment, 255 for an unknown host"

# a cut link, restored
hosts_link 2 down
case $(tcp 1 2 "$(hosts_ip 2)") in ok) fail "TCP to host 2 with its link down" ;; esac
hosts_link 2 up
for _ in $(seq 20); do [ "$(tcp 1 2 "$(hosts_ip 2)")" = ok ] && break; sleep 0.2; done
[ "$(tcp 1 2 "$(hosts_ip 2)")" = ok ] || fail "no TCP to host 2 after its link came back"
ok "hosts_link down cuts host 2 off, up restores it"

# credorun without --iface: the head advertises the addresses of both rails, the proxy tries them in turn
if [ -n "${1:-}" ]; then
    out=$(hosts_exec 1 "$1" --launch-agent "$here/agent.sh" --host credo-h1,credo-h2 -n 2 sh -c 'echo "rank $PMI_RANK on $(hostname)"' 2>&1)
    [ "$(echo "$out" | sort | tr '\n' ' ')" = "rank 0 on credo-h1 rank 1 on credo-h2 " ] ||
        fail "credorun without --iface: got '$out'"
    hosts_link 2 down # host 2's first rail: only the head's second address is reachable from there
    out=$(hosts_exec 1 "$1" --launch-agent "$here/agent.sh" --host credo-h1,credo-h2 -n 2 sh -c 'echo "rank $PMI_RANK on $(hostname)"' 2>&1)
    hosts_link 2 up
    [ "$(echo "$out" | sort | tr '\n' ' ')" = "rank 0 on credo-h1 rank 1 on credo-h2 " ] ||
        fail "credorun without --iface, host 2's first rail cut: got '$out'"
    ok "credorun without --iface: every address advertised, the second rail used when the first is cut"
fi

# shaping: a tbf on host 2's link, and off again
hosts_shape 2 20mbit || fail "hosts_shape 2 20mbit failed"
tc -n "credo-h2-$tag" qdisc show dev ceth0 | grep -q "tbf .*rate 20Mbit" || fail "no tbf of 20 Mbit/s on host 2's link"
if command -v nft >/dev/null 2>&1; then
    hosts_shape 2 20mbit 30 || fail "hosts_shape 2 20mbit 30 failed"
    ip netns exec "credo-h2-$tag" nft list ruleset | grep -q "numgen random mod 100 < 30" || fail "no loss rule on host 2"
    # host 2 sends 40 UDP datagrams to host 1 (no handshake, no retransmission: TCP connections through
    # 30 % loss took seconds each, and five of them ran this test into its timeout under ASan): the
    # chance that the rule drops none is 0.7^40, about 6e-7
    hosts_exec 2 perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => 9, Proto => "udp") or die "udp: $!\n";
        send($s, "x" x 32, 0) for 1 .. 40;' "$(hosts_ip 1)" || fail "host 2 could not send UDP datagrams"
    dropped=$(ip netns exec "credo-h2-$tag" nft list ruleset | sed -nE 's/.*counter packets ([0-9]+).*/\1/p')
    [ "${dropped:-0}" -gt 0 ] || fail "the loss rule dropped none of 40 datagrams from host 2"
    echo "harness: 30% loss on host 2's link dropped ${dropped:-0} of 40 datagrams"
else
    echo "harness: packet loss not tested: nft (nftables) is not installed"
fi
hosts_shape 2 off
tc -n "credo-h2-$tag" qdisc show dev ceth0 | grep -q tbf && fail "tbf still on host 2's link after 'off'"
ok "hosts_shape rate (and loss with nft), and off"

# teardown leaves nothing
hosts_down
trap - EXIT
[ -z "$(ip netns list | grep -- "-$tag\$")" ] || fail "namespaces left after hosts_down: $(ip netns list | grep -- "-$tag\$")"
[ -z "$(ip -o link show | grep -E "(crv[0-9]+|crw[0-9]+|crbr|crbs)-$tag")" ] || fail "links left after hosts_down"
ok "hosts_down removed every namespace and link"
[ "$fails" -eq 0 ] && echo "harness: OK"
exit $((fails > 0))
