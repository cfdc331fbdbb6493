#!/usr/bin/env bash
# tests/hosts/netns.sh — "other hosts" on one machine, for tests of jobs that span nodes: N test hosts,
# their links (bridge, optional second rail, shaping, cuts), teardown, and the ctest fixture.
#
# Test host k (1..N) is a network namespace credo-h<k>-<tag> joined by a veth pair to a bridge in the
# root namespace, on a private /24 in 10.213.0.0/16 that no route or address of this machine uses
# (bridge .1, host k .(10+k)), with loopback up and IPv6 off on the test links (libfabric's tcp
# provider must not pick a link-local address). Inside every host the link is called ceth0 (ceth1 on
# the second rail), so one interface name (credorun --iface, hydra -iface, FI_TCP_IFACE) fits every
# host, as on a real cluster. A holder process per host keeps a UTS namespace (host name credo-h<k>)
# and a mount namespace with its own tmpfs on /dev/shm (and on /tmp with HOSTS_PRIVATE_TMP=1, which
# srun --mpi=pmix needs), so every process started "on host k" shares host k's name, /dev/shm and
# network, and nothing else: to credo it is another node. No host has a default route: a packet to
# any address outside the test subnet(s) fails inside the host instead of leaving the machine.
# <tag> is the pid of the shell that set the hosts up (of the keeper process for the ctest fixture),
# so parallel runs do not collide.
#
# Sourced (bash):
#   . netns.sh
#   hosts_up N          creates hosts 1..N, checks reachability, installs the teardown trap (EXIT,
#                       INT, TERM, HUP); returns 77 with a message when namespaces, veth or bridges
#                       are not available here (exit 77 = ctest's SKIP_RETURN_CODE), 1 on other failures.
#                       HOSTS_RAILS=2: a second bridge and subnet (ceth1 in every host).
#   hosts_attach STATE  uses the hosts of a running fixture (netns.sh fixture-up); 77 when there are none
#   hosts_exec K CMD... runs CMD on host K (0 = the root namespace) in the foreground
#   hosts_iface K       prints the interface FI_TCP_IFACE must name on host K (0: the bridge)
#   hosts_ip K          prints host K's address (0: the bridge's)
#   hosts_name K        prints host K's host name (0: this machine's)
#   hosts_shape K RATE [LOSS%]  host K's outgoing traffic limited to RATE (tc tbf, e.g. 100mbit) and,
#                       with LOSS, LOSS% of its packets dropped (an nftables numgen rule: this kernel has
#                       no netem); "hosts_shape K off" removes both
#   hosts_link K up|down  cuts (or restores) host K's link: its veth in the root namespace goes down
#   hosts_down          tears everything down (the trap calls it; safe to call twice)
#   HOSTS_DIR           state directory (also for the caller's temporary files: removed at teardown);
#                       exported as NETNS_HOSTS_DIR for on_host.sh and agent.sh
# Run:
#   netns.sh run N CMD...   sets up N hosts, runs CMD with NETNS_HOSTS_DIR exported, tears down;
#                           e.g. netns.sh run 2 credorun --launch-agent agent.sh --host credo-h1:2,credo-h2:2 ...
#   netns.sh fixture-up N STATE   (ctest FIXTURES_SETUP) starts a keeper process that holds N hosts up
#                           until fixture-down (or 30 minutes, HOSTS_KEEP_S) and writes their state
#                           directory to the file STATE; 77 when hosts cannot be made here
#   netns.sh fixture-down STATE   (FIXTURES_CLEANUP) stops the keeper: everything is removed
#   netns.sh check          0 when test hosts can be made here, 77 when not
#   netns.sh reap           removes namespaces and links left by runs whose shell is gone (SIGKILL)
# Ranks go to hosts either through a launcher and agent.sh (an ssh stand-in), or, under a one-host
# launcher, through on_host.sh (NETNS_HOSTS_MAP="host-of-rank-0 host-of-rank-1 ...").

HOSTS_NET_PREFIX=10.213

_hosts_note() { echo "netns.sh: $*" >&2; }

# Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and the tools; 77 when this machine cannot do it.
_hosts_can() {
    local t
    for t in ip unshare nsenter; do
        command -v "$t" >/dev/null 2>&1 || { _hosts_note "skipped: '$t' not found"; return 77; }
    done
    local probe=credo-probe-$$ ok=0
    if ip netns add "$probe" 2>/dev/null; then
        if ip link add "crp0-$$" type veth peer name crp1 netns "$probe" 2>/dev/null; then
            ip link add "crpb-$$" type bridge 2>/dev/null && ok=1
            ip link del "crpb-$$" 2>/dev/null
            ip link del "crp0-$$" 2>/dev/null
        fi
        [ "$ok" = 1 ] && ip netns exec "$probe" unshare --uts --mount sh -c \
            'echo credo-probe >/proc/sys/kernel/hostname && mount -t tmpfs tmpfs /dev/shm' 2>/dev/null || ok=0
        ip netns del "$probe" 2>/dev/null
    fi
    [ "$ok" = 1 ] || { _hosts_note "skipped: cannot create network namespaces, veth pairs, bridges or UTS/mount namespaces here"; return 77; }
    return 0
}

# A /24 no address or route of this machine touches: 10.213.X.0/24, X from the pid onwards. A route
# that covers or lies inside it (other than the default route) or an address in it counts as used.
_hosts_subnet() {
    local x i cand
    x=$(( $$ % 250 + 1 ))
    for i in $(seq 250); do
        cand=$HOSTS_NET_PREFIX.$x
        if [ -z "$(ip -4 route show table all match "$cand.0/24" 2>/dev/null | grep -vE '^(unreachable |blackhole |prohibit )?default')" ] &&
            [ -z "$(ip -4 route show table all root "$cand.0/24" 2>/dev/null)" ] &&
            ! ip -4 -o addr show 2>/dev/null | grep -q " ${cand//./\\.}\\."; then
            echo "$cand"
            return 0
        fi
        x=$(( x % 250 + 1 ))
    done
    return 1
}

hosts_ip() { if [ "$1" = 0 ]; then cat "$HOSTS_DIR/root.ip"; else cat "$HOSTS_DIR/host$1.ip"; fi; }
hosts_iface() { if [ "$1" = 0 ]; then cat "$HOSTS_DIR/root.iface"; else cat "$HOSTS_DIR/host$1.iface"; fi; }
hosts_name() { if [ "$1" = 0 ]; then hostname; else echo "credo-h$1"; fi; }

hosts_exec() {
    local k=$1
    shift
    if [ "$k" = 0 ]; then
        "$@"
    else
        nsenter --target "$(cat "$HOSTS_DIR/host$k.pid")" --net --uts --mount --wd="$PWD" -- "$@"
    fi
}

# TCP from host $2 to a listener on host $1 (what libfabric's tcp provider needs), with perl.
_hosts_tcp_probe() {
    local lip pf lpid port="" got
    lip=$(hosts_ip "$1")
    pf=$HOSTS_DIR/probe.$1.$2
    hosts_exec "$1" perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(LocalAddr => $ARGV[0], LocalPort => 0, Listen => 1, ReuseAddr => 1)
            or die "listen on $ARGV[0]: $!\n";
        $| = 1; print $s->sockport, "\n"; # (stdout: a file of the root namespace; /tmp may be private)
        $SIG{ALRM} = sub { die "no connection within 5 s\n" }; alarm 5;
        my $c = $s->accept or die "accept: $!\n"; print $c "credo-ok\n"; close $c;' "$lip" >"$pf" &
    lpid=$!
    for _ in $(seq 50); do [ -s "$pf" ] && break; sleep 0.1; done
    port=$(cat "$pf" 2>/dev/null)
    got=$(hosts_exec "$2" perl -MIO::Socket::INET -e '
        my $c = IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => $ARGV[1], Timeout => 5)
            or die "connect to $ARGV[0]:$ARGV[1]: $!\n";
        print scalar <$c>;' "$lip" "$port")
    wait "$lpid"
    rm -f "$pf"
    [ "$got" = credo-ok ]
}

# Every host with the root namespace and with host 1, both ways (all of them share one bridge, so
# this covers its ports; every pair would cost 2 N^2 probes).
_hosts_check_reach() {
    local n=$1 k j
    for k in $(seq "$n"); do
        for j in 0 1; do
            [ "$j" = "$k" ] && continue
            if command -v ping >/dev/null 2>&1; then
                hosts_exec "$k" ping -n -q -c 1 -W 2 "$(hosts_ip "$j")" >/dev/null 2>&1 ||
                    { _hosts_note "host $k cannot ping $(hosts_ip "$j") (host $j)"; return 1; }
                hosts_exec "$j" ping -n -q -c 1 -W 2 "$(hosts_ip "$k")" >/dev/null 2>&1 ||
                    { _hosts_note "host $j cannot ping $(hosts_ip "$k") (host $k)"; return 1; }
            fi
            if command -v perl >/dev/null 2>&1; then
                _hosts_tcp_probe "$j" "$k" || { _hosts_note "no TCP from host $k to host $j"; return 1; }
                _hosts_tcp_probe "$k" "$j" || { _hosts_note "no TCP from host $j to host $k"; return 1; }
            fi
        done
    done
}

_hosts_ipv6_off() { # interface, in the current network namespace
    [ -e "/proc/sys/net/ipv6/conf/$1/disable_ipv6" ] && echo 1 >"/proc/sys/net/ipv6/conf/$1/disable_ipv6"
    return 0
}

# Removes everything of run <tag>: processes in its namespaces (holders, stray ranks), links, names.
_hosts_remove_tag() {
    local tag=$1 ns l p
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^credo-(h[0-9]+|probe)-$tag\$"); do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    done
    for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^(crv[0-9]+|crw[0-9]+|crbr|crbs|crp0|crpb)-$tag\$"); do
        ip link del "$l" 2>/dev/null
    done
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^credo-(h[0-9]+|probe)-$tag\$"); do
        ip netns del "$ns" 2>/dev/null
    done
}

hosts_reap() {
    local tag
    for tag in $( { ip netns list 2>/dev/null | awk '{print $1}' | sed -nE 's/^credo-(h[0-9]+|probe)-([0-9]+)$/\2/p'
                    ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
                        sed -nE 's/^(crv[0-9]+|crw[0-9]+|crbr|crbs|crp0|crpb)-([0-9]+)$/\2/p'; } | sort -u); do
        [ "$tag" = "${HOSTS_TAG:-}" ] && continue
        kill -0 "$tag" 2>/dev/null && continue # its shell still runs
        _hosts_note "removing leftovers of run $tag"
        _hosts_remove_tag "$tag"
    done
    local d
    for d in "${TMPDIR:-/tmp}"/credo-hosts.*; do
        [ -f "$d/tag" ] || continue
        tag=$(cat "$d/tag")
        [ "$tag" = "${HOSTS_TAG:-}" ] || kill -0 "$tag" 2>/dev/null || rm -rf "$d"
    done
}

hosts_down() {
    [ -n "${HOSTS_TAG:-}" ] || return 0
    local k
    for k in $(seq "${HOSTS_N:-0}"); do
        [ -s "$HOSTS_DIR/host$k.pid" ] && kill -KILL "$(cat "$HOSTS_DIR/host$k.pid")" 2>/dev/null
    done
    _hosts_remove_tag "$HOSTS_TAG"
    [ -n "${HOSTS_DIR:-}" ] && rm -rf "$HOSTS_DIR"
    HOSTS_TAG=
}

# rail R (1 or 2) of host K: veth crv<K>/crw<K> in the root namespace, ceth0/ceth1 inside, on bridge BR.
_hosts_link_up() {
    local k=$1 rail=$2 br=$3 subnet=$4 ns=credo-h$1-$HOSTS_TAG veth inner
    if [ "$rail" = 1 ]; then veth=crv$k-$HOSTS_TAG inner=ceth0; else veth=crw$k-$HOSTS_TAG inner=ceth1; fi
    ip link add "$veth" type veth peer name "$inner" netns "$ns" &&
        _hosts_ipv6_off "$veth" &&
        ip link set "$veth" master "$br" &&
        ip link set "$veth" up &&
        ip -n "$ns" addr add "$subnet.$((10 + k))/24" dev "$inner" &&
        ip -n "$ns" link set "$inner" up
}

_hosts_bridge() { # name subnet
    ip link add "$1" type bridge && _hosts_ipv6_off "$1" && ip addr add "$2.1/24" dev "$1" && ip link set "$1" up
}

hosts_up() {
    local n=$1 k subnet subnet2="" br ns
    _hosts_can || return $?
    hosts_reap
    HOSTS_TAG=${HOSTS_TAG_PID:-$$} HOSTS_N=$n
    HOSTS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/credo-hosts.XXXXXX") || return 1
    export NETNS_HOSTS_DIR=$HOSTS_DIR
    trap 'hosts_down' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    subnet=$(_hosts_subnet) || { _hosts_note "no free /24 in $HOSTS_NET_PREFIX.0.0/16"; return 1; }
    br=crbr-$HOSTS_TAG
    echo "$n" >"$HOSTS_DIR/n"
    echo "$HOSTS_TAG" >"$HOSTS_DIR/tag"
    _hosts_bridge "$br" "$subnet" || { _hosts_note "cannot create bridge $br"; return 1; }
    echo "$br" >"$HOSTS_DIR/root.iface"
    echo "$subnet.1" >"$HOSTS_DIR/root.ip"
    if [ "${HOSTS_RAILS:-1}" = 2 ]; then
        subnet2=$(_hosts_subnet) || { _hosts_note "no second free /24 in $HOSTS_NET_PREFIX.0.0/16"; return 1; }
        _hosts_bridge "crbs-$HOSTS_TAG" "$subnet2" || { _hosts_note "cannot create bridge crbs-$HOSTS_TAG"; return 1; }
        echo "crbs-$HOSTS_TAG" >"$HOSTS_DIR/root.iface2"
        echo "$subnet2.1" >"$HOSTS_DIR/root.ip2"
    fi
    for k in $(seq "$n"); do
        ns=credo-h$k-$HOSTS_TAG
        {
            ip netns add "$ns" &&
                ip netns exec "$ns" sh -c "echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6; echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6" &&
                ip -n "$ns" link set lo up &&
                _hosts_link_up "$k" 1 "$br" "$subnet" &&
                { [ -z "$subnet2" ] || _hosts_link_up "$k" 2 "crbs-$HOSTS_TAG" "$subnet2"; }
        } || { _hosts_note "cannot set up host $k ($ns)"; return 1; }
        echo ceth0 >"$HOSTS_DIR/host$k.iface"
        echo "$subnet.$((10 + k))" >"$HOSTS_DIR/host$k.ip"
        [ -n "$subnet2" ] && echo "$subnet2.$((10 + k))" >"$HOSTS_DIR/host$k.ip2"
        echo "$ns" >"$HOSTS_DIR/host$k.ns"
        # The holder: host k's name, /dev/shm (and /tmp) live as long as it does (and any process inside).
        # Its pid goes out on stdout (a file opened before /tmp may be covered), in one write. Not `ip
        # netns exec`, whose fresh /sys hides the cgroup mounts (slurmd then refuses to start): the
        # holder mounts a sysfs of its own network namespace (/sys/class/net shows the host's links)
        # and moves the machine's cgroup tree onto it.
        nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation private sh -c \
            'echo "$1" >/proc/sys/kernel/hostname && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
             if [ -d /sys/fs/cgroup ] && mkdir /dev/shm/.cg && mount --rbind /sys/fs/cgroup /dev/shm/.cg; then
                 mount -t sysfs sysfs /sys && { mount --move /dev/shm/.cg /sys/fs/cgroup || umount -l /dev/shm/.cg; } &&
                     rmdir /dev/shm/.cg
             else
                 rmdir /dev/shm/.cg 2>/dev/null; mount -t sysfs sysfs /sys
             fi &&
             { [ "$2" != 1 ] || mount -t tmpfs -o mode=1777 tmpfs /tmp; } &&
             echo $$ && exec sleep infinity' \
            sh "credo-h$k" "${HOSTS_PRIVATE_TMP:-0}" </dev/null >"$HOSTS_DIR/host$k.pid" 2>"$HOSTS_DIR/host$k.err" &
        disown $! # killed at teardown without a "Killed" notice
        for _ in $(seq 100); do [ -s "$HOSTS_DIR/host$k.pid" ] && break; sleep 0.05; done
        [ -s "$HOSTS_DIR/host$k.pid" ] || { _hosts_note "host $k did not start: $(cat "$HOSTS_DIR/host$k.err")"; return 1; }
    done
    _hosts_check_reach "$n" || return 1
    return 0
}

# The hosts of a running fixture: STATE holds its directory. No teardown trap: the fixture owns them.
hosts_attach() {
    local d
    d=$(cat "$1" 2>/dev/null)
    if [ -z "$d" ] || [ ! -s "$d/tag" ] || ! kill -0 "$(cat "$d/tag")" 2>/dev/null; then
        _hosts_note "skipped: no test hosts (the fixture hosts.setup did not make them: see its output)"
        return 77
    fi
    HOSTS_DIR=$d HOSTS_N=$(cat "$d/n") HOSTS_TAG=
    export NETNS_HOSTS_DIR=$HOSTS_DIR
    return 0
}

hosts_shape() {
    local k=$1 rate=$2 loss=${3:-} ns
    ns=$(cat "$HOSTS_DIR/host$k.ns") || return 1
    ip -n "$ns" link set ceth0 up 2>/dev/null # (tc needs nothing else)
    tc -n "$ns" qdisc del dev ceth0 root 2>/dev/null
    ip netns exec "$ns" sh -c 'command -v nft >/dev/null && nft delete table inet credo_shape' 2>/dev/null
    [ "$rate" = off ] && return 0
    tc -n "$ns" qdisc add dev ceth0 root tbf rate "$rate" burst 64kb latency 100ms ||
        { _hosts_note "host $k: tc tbf rate $rate failed"; return 1; }
    if [ -n "$loss" ]; then
        command -v nft >/dev/null 2>&1 || { _hosts_note "host $k: packet loss needs nft (nftables), not found"; return 1; }
        ip netns exec "$ns" nft -f - <<EOF2 || { _hosts_note "host $k: nftables loss rule failed"; return 1; }
table inet credo_shape {
    chain out { type filter hook output priority 0; policy accept; oifname "ceth0" numgen random mod 100 < $loss counter drop; }
}
EOF2
    fi
}

hosts_link() {
    ip link set "crv$1-$(cat "$HOSTS_DIR/tag")" "$2"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    case "${1:-}" in
    check)
        _hosts_can
        exit $?
        ;;
    reap)
        _hosts_can >/dev/null 2>&1 || exit 0
        hosts_reap
        exit 0
        ;;
    run)
        [ $# -ge 3 ] || { echo "usage: $0 run N CMD..." >&2; exit 2; }
        n=$2
        shift 2
        hosts_up "$n" || exit $?
        _hosts_note "hosts 1..$n up (bridge $(hosts_iface 0) $(hosts_ip 0); host 1 $(hosts_iface 1) $(hosts_ip 1)); NETNS_HOSTS_DIR=$HOSTS_DIR"
        "$@"
        exit $?
        ;;
    fixture-up)
        [ $# -eq 3 ] || { echo "usage: $0 fixture-up N STATE" >&2; exit 2; }
        rm -f "$3"
        _hosts_can || exit $?
        # The keeper (its own session, so ctest does not wait for it) holds the hosts; its pid is their tag.
        setsid bash "$0" keep "$2" "$3" </dev/null >"$3.log" 2>&1 &
        for _ in $(seq 300); do
            if grep -q '^ready ' "$3" 2>/dev/null; then
                sed -n 's/^ready //p' "$3" >"$3.tmp" && mv "$3.tmp" "$3"
                _hosts_note "fixture: $2 hosts up in $(cat "$3")"
                exit 0
            fi
            grep -q '^failed' "$3" 2>/dev/null && break
            sleep 0.1
        done
        cat "$3.log" >&2
        rc=$(sed -n 's/^failed //p' "$3" 2>/dev/null)
        rm -f "$3"
        exit "${rc:-1}"
        ;;
    keep)
        HOSTS_TAG_PID=$$
        hosts_up "$2"
        rc=$?
        if [ "$rc" -ne 0 ]; then echo "failed $rc" >"$3"; exit "$rc"; fi
        echo "ready $HOSTS_DIR" >"$3"
        sleep "${HOSTS_KEEP_S:-1800}" &
        sp=$!
        trap 'kill "$sp" 2>/dev/null; exit 143' TERM
        wait "$sp"
        exit 0
        ;;
    fixture-down)
        [ $# -eq 2 ] || { echo "usage: $0 fixture-down STATE" >&2; exit 2; }
        d=$(cat "$2" 2>/dev/null)
        rm -f "$2" "$2.log"
        [ -n "$d" ] && [ -s "$d/tag" ] || exit 0
        tag=$(cat "$d/tag")
        kill -TERM "$tag" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$tag" 2>/dev/null || break; sleep 0.1; done
        HOSTS_TAG= hosts_reap
        if ip netns list 2>/dev/null | grep -q -- "-$tag\$"; then
            _hosts_note "fixture: namespaces of run $tag still there after teardown"
            exit 1
        fi
        exit 0
        ;;
    *)
        echo "usage: $0 check | reap | run N CMD... | fixture-up N STATE | fixture-down STATE" >&2
        exit 2
        ;;
    esac
fi
