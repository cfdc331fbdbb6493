#!/usr/bin/env bash
# tests/hosts/netns.sh — "other hosts" on one machine, for tests of jobs that span nodes.
#
# Test host k (1..N) is a network namespace credo-h<k>-<tag> joined by a veth pair to a bridge in the
# root namespace, on a private /24 in 10.213.0.0/16 that no route or address of this machine uses
# (bridge .1, host k .(10+k)), with loopback up and IPv6 off on the test links (libfabric's tcp
# provider must not pick a link-local address). A holder process per host keeps a UTS namespace
# (host name credo-h<k>) and a mount namespace with its own tmpfs on /dev/shm, so every rank started
# "on host k" shares host k's name, /dev/shm and network, and nothing else: to credo it is another node.
# <tag> is the pid of the shell that set the hosts up, so parallel runs do not collide. Traffic only
# ever uses loopback and the test links: ranks get FI_TCP_IFACE set to the bridge (root side) or to
# their host's veth, never to the machine's own interfaces.
#
# Sourced (bash):
#   . netns.sh
#   hosts_up N          creates hosts 1..N, checks reachability, installs the teardown trap (EXIT,
#                       INT, TERM, HUP); returns 77 with a message when namespaces, veth or bridges
#                       are not available here (exit 77 = ctest's SKIP_RETURN_CODE), 1 on other failures
#   hosts_exec K CMD... runs CMD on host K (0 = the root namespace) in the foreground
#   hosts_iface K       prints the interface FI_TCP_IFACE must name on host K (0: the bridge)
#   hosts_ip K          prints host K's address (0: the bridge's)
#   hosts_down          tears everything down (the trap calls it; safe to call twice)
#   HOSTS_DIR           state directory (also for the caller's temporary files: removed at teardown);
#                       exported as NETNS_HOSTS_DIR for on_host.sh
# Run:
#   netns.sh run N CMD...   sets up N hosts, runs CMD with NETNS_HOSTS_DIR exported, tears down;
#                           e.g. netns.sh run 1 credorun -n 3 -x NETNS_HOSTS_MAP="0 1 0" on_host.sh prog
#   netns.sh check          0 when test hosts can be made here, 77 when not
#   netns.sh reap           removes namespaces and links left by runs whose shell is gone (SIGKILL)
# Rank k of a job goes to a host through on_host.sh (NETNS_HOSTS_MAP="host-of-rank-0 host-of-rank-1 ...").

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
        open(my $f, ">", "$ARGV[1].tmp") or die; print $f $s->sockport, "\n"; close $f;
        rename("$ARGV[1].tmp", $ARGV[1]);
        $SIG{ALRM} = sub { die "no connection within 5 s\n" }; alarm 5;
        my $c = $s->accept or die "accept: $!\n"; print $c "credo-ok\n"; close $c;' "$lip" "$pf" &
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

_hosts_check_reach() {
    local n=$1 k j
    for k in $(seq "$n"); do
        for j in 0 $(seq "$n"); do
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
    for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^(crv[0-9]+|crbr|crp0|crpb)-$tag\$"); do
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
                        sed -nE 's/^(crv[0-9]+|crbr|crp0|crpb)-([0-9]+)$/\2/p'; } | sort -u); do
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

hosts_up() {
    local n=$1 k subnet br ns veth
    _hosts_can || return $?
    hosts_reap
    HOSTS_TAG=$$ HOSTS_N=$n
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
    {
        ip link add "$br" type bridge &&
            _hosts_ipv6_off "$br" &&
            ip addr add "$subnet.1/24" dev "$br" &&
            ip link set "$br" up
    } || { _hosts_note "cannot create bridge $br"; return 1; }
    echo "$br" >"$HOSTS_DIR/root.iface"
    echo "$subnet.1" >"$HOSTS_DIR/root.ip"
    for k in $(seq "$n"); do
        ns=credo-h$k-$HOSTS_TAG veth=crv$k-$HOSTS_TAG
        {
            ip netns add "$ns" &&
                ip link add "$veth" type veth peer name "eth-h$k" netns "$ns" &&
                _hosts_ipv6_off "$veth" &&
                ip link set "$veth" master "$br" &&
                ip link set "$veth" up &&
                ip netns exec "$ns" sh -c "echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6; echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6" &&
                ip -n "$ns" link set lo up &&
                ip -n "$ns" addr add "$subnet.$((10 + k))/24" dev "eth-h$k" &&
                ip -n "$ns" link set "eth-h$k" up
        } || { _hosts_note "cannot set up host $k ($ns)"; return 1; }
        echo "eth-h$k" >"$HOSTS_DIR/host$k.iface"
        echo "$subnet.$((10 + k))" >"$HOSTS_DIR/host$k.ip"
        echo "$ns" >"$HOSTS_DIR/host$k.ns"
        # The holder: host k's name and /dev/shm live as long as it does (and any rank inside).
        ip netns exec "$ns" unshare --uts --mount --propagation private sh -c \
            'echo "$1" >/proc/sys/kernel/hostname && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
             echo $$ >"$2.tmp" && mv "$2.tmp" "$2" && exec sleep infinity' \
            sh "credo-h$k" "$HOSTS_DIR/host$k.pid" </dev/null >/dev/null 2>"$HOSTS_DIR/host$k.err" &
        disown $! # killed at teardown without a "Killed" notice
        for _ in $(seq 100); do [ -s "$HOSTS_DIR/host$k.pid" ] && break; sleep 0.05; done
        [ -s "$HOSTS_DIR/host$k.pid" ] || { _hosts_note "host $k did not start: $(cat "$HOSTS_DIR/host$k.err")"; return 1; }
    done
    _hosts_check_reach "$n" || return 1
    return 0
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
    *)
        echo "usage: $0 check | reap | run N CMD..." >&2
        exit 2
        ;;
    esac
fi
