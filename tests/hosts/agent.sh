#!/bin/sh
# tests/hosts/agent.sh — an ssh stand-in for launchers: runs a command "on" a test host of netns.sh.
# usage, as ssh: agent.sh [ssh options] HOST COMMAND... (credorun --launch-agent, mpiexec.hydra
# -launcher ssh -launcher-exec, Open MPI's --mca plm_rsh_agent). HOST is credo-h<k>, h<k> or host k's
# address; the command runs in host k's network, UTS and mount namespaces (its own name and /dev/shm)
# through a shell in the home directory with a clean environment, as a login over ssh would (only HOME,
# PATH, USER, LOGNAME, SHELL, LANG pass), so a launcher that forgets to forward what its ranks need
# fails here as it would between real machines. It execs in place (no process is left in between):
# killing the agent kills the command. Needs NETNS_HOSTS_DIR (exported by netns.sh).
dir=${NETNS_HOSTS_DIR:?agent.sh: NETNS_HOSTS_DIR is not set (run under netns.sh)}
# ssh's options that take an argument; every other option word is a flag.
while [ $# -gt 0 ]; do
    case $1 in
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
    -[bcDEeFIiJLlmOopQRSWw]*) shift ;; # -oBatchMode=yes, -p22
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || { echo "usage: agent.sh [ssh options] HOST COMMAND..." >&2; exit 255; }
host=${1#*@} # user@host
shift
k=
for f in "$dir"/host*.ip; do
    [ -e "$f" ] || continue
    n=${f##*/host}
    n=${n%.ip}
    if [ "$host" = "credo-h$n" ] || [ "$host" = "h$n" ] || [ "$host" = "$(cat "$f")" ]; then k=$n; break; fi
done
[ -n "$k" ] && [ -s "$dir/host$k.pid" ] ||
    { echo "agent.sh: ssh: Could not resolve hostname $host: no such test host in $dir" >&2; exit 255; }
[ $# -ge 1 ] || { echo "agent.sh: $host: no command (interactive logins are not supported)" >&2; exit 255; }
exec nsenter --target "$(cat "$dir/host$k.pid")" --net --uts --mount -- \
    env -i HOME="${HOME:-/}" PATH="${PATH:-/usr/bin:/bin}" USER="${USER:-root}" LOGNAME="${LOGNAME:-root}" \
    SHELL=/bin/sh LANG="${LANG:-C}" /bin/sh -c 'cd 2>/dev/null || cd /; eval "$1"' agent.sh "$*"
