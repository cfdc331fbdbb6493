#!/bin/sh
# tests/hosts/on_host.sh — a launcher's program wrapper that starts each rank on its test host.
# usage (as the program of credorun, mpiexec.hydra, mpirun): on_host.sh PROGRAM [ARGS...]
# environment:
#   NETNS_HOSTS_DIR   the state directory of netns.sh's hosts_up (exported by it)
#   NETNS_HOSTS_MAP   host of each rank, by rank: "0 1 0" puts rank 1 on host 1 and ranks 0, 2 in the
#                     root namespace (host 0); ranks past the end of the list go to host 0
# The rank's number is PMI_RANK (credorun, hydra), else PMIX_RANK or OMPI_COMM_WORLD_RANK (Open MPI).
# Every rank gets FI_TCP_IFACE = its host's test interface (host 0: the bridge), so libfabric's tcp
# provider never uses another interface of the machine. The rank is exec'd in place (nsenter does not
# fork): it keeps its pid, process group and inherited descriptors such as PMI_FD.
rank=${PMI_RANK:-${PMIX_RANK:-${OMPI_COMM_WORLD_RANK:-}}}
[ -n "$rank" ] || { echo "on_host.sh: no PMI_RANK, PMIX_RANK or OMPI_COMM_WORLD_RANK" >&2; exit 2; }
dir=${NETNS_HOSTS_DIR:?on_host.sh: NETNS_HOSTS_DIR is not set (run under netns.sh)}
host=$(echo "${NETNS_HOSTS_MAP:-}" | awk -v r="$rank" '{ print (r + 1 <= NF) ? $(r + 1) : 0 }')
if [ "$host" = 0 ]; then
    FI_TCP_IFACE=$(cat "$dir/root.iface") || exit 2
    export FI_TCP_IFACE
    exec "$@"
fi
[ -s "$dir/host$host.pid" ] || { echo "on_host.sh: rank $rank: no test host $host in $dir" >&2; exit 2; }
FI_TCP_IFACE=$(cat "$dir/host$host.iface") || exit 2
export FI_TCP_IFACE
exec nsenter --target "$(cat "$dir/host$host.pid")" --net --uts --mount --wd="$PWD" -- "$@"
