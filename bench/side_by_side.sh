#!/usr/bin/env bash
# side_by_side.sh — builds credo's plain-MPI benchmarks with credo, Open MPI and MPICH, runs them
# interleaved, and prints per-size medians side by side; raw and median numbers go to a CSV.
#
# usage: bench/side_by_side.sh [--net] [--offset LIST] [--sweep] [credo-build-dir]
#   --net          network mode: every MPI over TCP on the loopback interface instead of shared memory,
#                  the same benchmarks and tables. credo: CREDO_XPORT=ofi FI_PROVIDER="tcp;ofi_rxm"
#                  FI_TCP_IFACE=lo (a probe, xport_probe.c, must report the ofi transport, else the column
#                  reads "n/a (why)"); Open MPI: --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include
#                  lo; MPICH (ch4:ucx): UCX_TLS=tcp,self UCX_NET_DEVICES=lo. Offsets default to 16 only.
#   --offset LIST  buffer offsets from a page, e.g. 16 or 0,8,16,48 (default 16,0): every benchmark runs
#                  at each, in the same interleaved rounds, and gets one table per offset. 16 is where
#                  malloc puts a large block (what applications see); 0 is page-aligned, as OSU does.
#   --sweep        alignment sweep instead: align.c's latency and bandwidth at every pair of send and
#                  receive offsets 0,1,8,16,24,32,48,63 (SWEEP_OFFSETS) from 2 KiB to 4 MiB, per size the
#                  median, worst and page-aligned pair of each MPI, then a bare memcpy and credo's copy
#                  loop at the same pairs (memcpy_probe.c, no MPI)
# env:   RUNS=N (default 5, 3 with QUICK=1)  QUICK=1 (fewer sizes and iterations)
#        CREDORUN_ARGS="--fc none"  extra credorun options (e.g. to compare flow-control overhead)
#        BENCH_ARGS="--thread-multiple"  extra options for every benchmark program (all three MPIs)
#        MPIS="credo ompi mpich"  BENCHES="pingpong bw bibw msgrate"  subsets to run
#        CREDO_BASE=<build dir of another credo commit>: adds its column ("base") to compare two commits
#        in the same interleaved rounds (MPIS then defaults to "base credo ompi mpich")
#        CREDO_NET_PROVIDER=<libfabric provider> for credo in --net mode (default "tcp;ofi_rxm"; "net" is
#        libfabric 1.17's native TCP endpoint, always kept on lo as well)
#        RUN_TIMEOUT=seconds per launch (default 180)   BENCH_CFLAGS (default "-std=c11 -O2")
#        OMPI_RUN_ARGS / MPICH_RUN_ARGS  extra launcher options for the peers
# Only bash, coreutils, awk and sort: it must run on a bare machine with just the MPIs installed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
offsets=""
sweep=0
net=0
sweep_offsets=${SWEEP_OFFSETS:-0,1,8,16,24,32,48,63}
while [ $# -gt 0 ]; do
  case $1 in
    --offset) offsets=${2:?--offset needs a list}; shift 2 ;;
    --offset=*) offsets=${1#--offset=}; shift ;;
    --sweep) sweep=1; shift ;;
    --net) net=1; shift ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ "$net" = 1 ] && [ "$sweep" = 1 ] && { echo "side_by_side: --sweep measures copies in shared memory; not with --net" >&2; exit 2; }
# Alignment matters to the copies of shared memory; over TCP the kernel copies, so one offset will do.
[ -z "$offsets" ] && { [ "$net" = 1 ] && offsets=16 || offsets=16,0; }
case $offsets in *[!0-9,]*|'') echo "side_by_side: --offset wants numbers separated by commas" >&2; exit 2 ;; esac
offset_list=$(echo "$offsets" | tr , ' ')
noffsets=$(echo $offset_list | wc -w)
credo_build=${1:-}
[ -n "$credo_build" ] && credo_build=$(cd "$credo_build" 2>/dev/null && pwd || echo "$credo_build")
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then runs=${RUNS:-3}; else runs=${RUNS:-5}; fi
base_build=${CREDO_BASE:-}
[ -n "$base_build" ] && base_build=$(cd "$base_build" 2>/dev/null && pwd || echo "$base_build")
if [ -n "$base_build" ]; then mpis=${MPIS:-base credo ompi mpich}; else mpis=${MPIS:-credo ompi mpich}; fi
if [ "$sweep" = 1 ]; then benches=align; offset_list=sweep; noffsets=1; else benches=${BENCHES:-pingpong bw bibw msgrate}; fi
tmo=${RUN_TIMEOUT:-180}
cflags=${BENCH_CFLAGS:--std=c11 -O2}

# Arguments per benchmark. The full set uses each program's defaults (1 B .. 16 MiB; msgrate 1 B .. 8 KiB).
bench_args() { # bench offset
  # BENCH_ARGS: extra options for every program, e.g. --thread-multiple or --sizes 8
  [ -n "${BENCH_ARGS:-}" ] && echo -n "$BENCH_ARGS "
  if [ "$1" = align ]; then
    if [ "$quick" = 1 ]; then echo "--offsets $sweep_offsets --sizes 2K,16K,64K,256K,1M,4M --iters 200 --windows 10 --window 16"
    else echo "--offsets $sweep_offsets --sizes 2K,4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M --iters 500 --windows 20 --window 16"; fi
    return
  fi
  echo -n "--offset $2 "
  if [ "$quick" = 1 ]; then
    case $1 in
      pingpong) echo "--sizes 1,8,64,1K,8K,64K,1M,4M --iters 2000" ;;
      bw|bibw) echo "--sizes 8,1K,8K,64K,1M,4M --iters 200" ;;
      msgrate) echo "--sizes 1,8,64,512 --iters 200" ;;
    esac
  fi
}

label() { case $1 in credo) echo credo ;; base) echo "credo (base)" ;; ompi) echo "Open MPI" ;; mpich) echo MPICH ;; esac; }

work=$(mktemp -d "${TMPDIR:-/tmp}/credo-sbs.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/results"
stamp=$(date +%Y%m%d-%H%M%S)
csv="$here/results/side_by_side-$stamp.csv"
raw="$work/raw.csv"
: >"$raw"

note() { echo "side_by_side: $*" >&2; }

# The copy speed of an alignment depends on the CPU and the C library (issue 32): record both.
cpu=$(awk -F': ' '/^model name/{m=$2} /^cpu family/{f=$2} /^model\t/{o=$2} /^$/{exit} END{printf "%s, family %s model %s", m, f, o}' /proc/cpuinfo 2>/dev/null)
libc=$(getconf GNU_LIBC_VERSION 2>/dev/null || echo "libc unknown")
# Network mode: the libraries under the TCP paths (fi_info is in libfabric-bin, ucx_info in ucx-utils).
libfabric=""; ucx=""
if [ "$net" = 1 ]; then
  libfabric=$(fi_info --version 2>/dev/null | awk '/^libfabric:/{print "libfabric " $2}')
  [ -z "$libfabric" ] && libfabric=$(dpkg-query -W -f='libfabric ${Version}' libfabric1 2>/dev/null || echo "libfabric unknown")
  ucx=$(ucx_info -v 2>/dev/null | awk '/Library version:/{print "UCX " $NF}')
  [ -z "$ucx" ] && ucx=$(dpkg-query -W -f='UCX ${Version}' libucx0 2>/dev/null || echo "UCX unknown")
fi

# Network mode: each MPI's launcher prefix restricting it to TCP over the loopback interface (never
# eth0: benchmark traffic stays on this machine). Shared-memory mode: nothing.
net_credo=""; net_ompi=""; net_mpich=""
credo_prov=${CREDO_NET_PROVIDER:-tcp;ofi_rxm}
if [ "$net" = 1 ]; then
  net_credo="env CREDO_XPORT=ofi FI_PROVIDER=$credo_prov FI_TCP_IFACE=lo FI_NET_IFACE=lo"
  # Debian's Open MPI defaults to ob1 already (pml ^ucx); say so, so a site default cannot pick ucx.
  net_ompi="--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo"
  # Debian's MPICH is ch4:ucx; without sysv/posix/cma in UCX_TLS only TCP can carry rank to rank.
  net_mpich="env UCX_TLS=tcp,self UCX_NET_DEVICES=lo"
fi
mode_line() { # mpi: how it was told to communicate
  if [ "$net" = 1 ]; then
    case $1 in
      credo|base) echo "CREDO_XPORT=ofi FI_PROVIDER=$credo_prov FI_TCP_IFACE=lo FI_NET_IFACE=lo" ;;
      ompi) echo "$net_ompi" ;;
      mpich) echo "${net_mpich#env }" ;;
    esac
  else echo "default (shared memory)"; fi
}

# --- build -------------------------------------------------------------------------------------------
# Each MPI gets its own folder; a missing compiler or launcher, or a failed build, leaves the MPI out and
# its column reads "n/a" (with the reason when there is one).
declare -A avail launch meta why
for m in $mpis; do
  case $m in
    credo)
      if [ -z "$credo_build" ]; then note "credo: no build dir given, column will be n/a"; continue; fi
      cc="$credo_build/bin/mpicc"; run="$credo_build/bin/credorun"
      if [ ! -x "$cc" ] || [ ! -x "$run" ]; then note "credo: $cc or $run missing, column will be n/a"; continue; fi
      launch[credo]="${net_credo:+$net_credo }$run -n 2 ${CREDORUN_ARGS:-}"
      meta[credo]="credo $(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown) credorun args: ${CREDORUN_ARGS:-none}" ;;
    base)
      if [ -z "$base_build" ]; then note "base: CREDO_BASE not set, column will be n/a"; continue; fi
      cc="$base_build/bin/mpicc"; run="$base_build/bin/credorun"
      if [ ! -x "$cc" ] || [ ! -x "$run" ]; then note "base: $cc or $run missing, column will be n/a"; continue; fi
      launch[base]="${net_credo:+$net_credo }$run -n 2 ${CREDORUN_ARGS:-}"
      meta[base]="credo $(git -C "$base_build" describe --always --dirty 2>/dev/null || echo unknown) (base)" ;;
    ompi)
      cc=mpicc.openmpi; run=mpirun.openmpi
      if ! command -v $cc >/dev/null || ! command -v $run >/dev/null; then note "Open MPI not installed, skipped"; continue; fi
      # oob over lo: otherwise mpirun advertises the external interface for its own wire-up.
      launch[ompi]="env OMPI_MCA_oob_tcp_if_include=lo $run --allow-run-as-root -np 2 --bind-to core ${net_ompi:+$net_ompi }${OMPI_RUN_ARGS:-}"
      meta[ompi]="$($run --version 2>/dev/null | head -1)${OMPI_RUN_ARGS:+ $OMPI_RUN_ARGS}" ;;
    mpich)
      cc=mpicc.mpich; run=mpiexec.mpich
      if ! command -v $cc >/dev/null || ! command -v $run >/dev/null; then note "MPICH not installed, skipped"; continue; fi
      # hydra does not bind by default; bind like the others so all three see the same placement.
      launch[mpich]="${net_mpich:+$net_mpich }$run -n 2 -bind-to core ${MPICH_RUN_ARGS:-}"
      meta[mpich]="MPICH $($run --version 2>/dev/null | awk '/Version:/{print $2; exit}')${MPICH_RUN_ARGS:+ $MPICH_RUN_ARGS}" ;;
    *) note "unknown MPI '$m' in MPIS"; continue ;;
  esac
  mkdir -p "$work/$m"
  ok=1
  for b in $benches; do
    if ! $cc $cflags "$here/$b.c" -o "$work/$m/$b" 2>"$work/$m/$b.build.log"; then
      note "$m: building $b failed:"; head -5 "$work/$m/$b.build.log" >&2; ok=0
    fi
  done
  # Network mode: credo must really run over its network transport. A credo without CREDO_XPORT=ofi
  # (or without libfabric) would otherwise fail every launch, or quietly run over shared memory.
  if [ $ok = 1 ] && [ "$net" = 1 ] && { [ $m = credo ] || [ $m = base ]; }; then
    if ! $cc $cflags "$here/xport_probe.c" -o "$work/$m/xport_probe" 2>"$work/$m/xport_probe.build.log"; then
      why[$m]="no credo_peer_transport in this libcredo, so no CREDO_XPORT=ofi: $(grep -m1 -E 'error|undefined' "$work/$m/xport_probe.build.log" | cut -c1-120)"
      ok=0
    else
      probe=$(cd "$work/$m" && timeout -k 5 60 ${launch[$m]} ./xport_probe 2>"$work/$m/xport_probe.err")
      rc=$?
      if [ $rc != 0 ]; then
        why[$m]="the probe run failed ($rc): $(grep -m1 -v '^[[:space:]]*$' "$work/$m/xport_probe.err" | cut -c1-160)"
        ok=0
      elif [ "$probe" != "transport ofi" ]; then
        why[$m]="the probe reports '${probe:-nothing}' between ranks 0 and 1, not ofi"
        ok=0
      fi
    fi
  fi
  [ $ok = 1 ] && avail[$m]=1 || note "$m: column will be n/a${why[$m]:+ (${why[$m]})}"
done
active=""
for m in $mpis; do [ -n "${avail[$m]:-}" ] && active="$active $m"; done
# The hardware floor the ping-pong is read against: no MPI, two processes handing a 64-byte slot back and
# forth on one reused cache line and on a 256-slot ring like credo's mailbox at 2 ranks (ring_floor.c).
# (Shared-memory mode only: it says nothing about TCP.)
floor_bin=""
if [ "$net" = 0 ] && [[ " $benches " == *" pingpong "* ]] && command -v cc >/dev/null &&
   cc $cflags "$here/ring_floor.c" -o "$work/ring_floor" 2>"$work/ring_floor.build.log"; then
  floor_bin="$work/ring_floor"
fi
[ -z "$active" ] && { note "no MPI could be built; nothing to run"; exit 1; }

# Two busy-polling ranks need both cores of this kind of VM; with other load the numbers mostly measure
# the scheduler. Warn, and keep the load average in the CSV so such runs can be recognised later.
load=$(cut -d" " -f1 /proc/loadavg 2>/dev/null || echo "?")
ncpu=$(nproc 2>/dev/null || echo 1)
note "load average $load on $ncpu CPUs"
if awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l + 0 > n - 0.5) }'; then
  note "WARNING: the machine is busy; expect slow and noisy numbers"
fi

# --- run ---------------------------------------------------------------------------------------------
# Round-robin: for each run, each benchmark at each offset is run by credo, Open MPI, MPICH in turn, so
# slow drifts of the machine (other tenants, thermal, page cache) hit all three alike instead of biasing
# one column.
declare -A dead fails launches firsterr
for r in $(seq 1 "$runs"); do
  for b in $benches; do
    for off in $offset_list; do
    [ "$noffsets" -gt 1 ] && tag="@$off" || tag=""
    for m in $active; do
      [ -n "${dead[$m.$b]:-}" ] && continue
      echo "[run $r/$runs] $b: $(label $m)$([ "$off" != sweep ] && echo ", buffers at page + $off")" >&2
      out="$work/$m/$b.$off.$r.out"; err="$work/$m/$b.$off.$r.err"
      (cd "$work/$m" && timeout -k 10 "$tmo" ${launch[$m]} "./$b" $(bench_args $b $off)) >"$out" 2>"$err"
      rc=$?
      launches[$m]=$(( ${launches[$m]:-0} + 1 ))
      # Keep every complete "name,size,value,unit" line, even from a failed run: rank 0 flushes after
      # each size, so the sizes before a crash are valid measurements. With several offsets the
      # metric carries the offset ("latency@16").
      awk -F, -v m="$m" -v r="$r" -v tag="$tag" 'NF == 4 && $1 !~ /^#/ && $2 ~ /^[0-9]+$/ {print "raw," m "," r "," $1 tag "," $2 "," $3 "," $4}' "$out" >>"$raw"
      if [ $rc != 0 ]; then
        fails[$m]=$(( ${fails[$m]:-0} + 1 ))
        [ -z "${firsterr[$m]:-}" ] && firsterr[$m]="$b: $( { grep -m1 -v '^[[:space:]]*$' "$err" || echo "exit status $rc"; } | cut -c1-160)"
        note "$m $b run $r exited with $rc; last lines of its stderr:"; tail -5 "$err" >&2
        # A timeout would cost the same minutes every run, so give up on that pair; a crash is cheap
        # to retry and may be intermittent.
        if [ $rc = 124 ] || [ $rc = 137 ]; then dead[$m.$b]=1; note "$m $b timed out; not run again"; fi
      fi
    done
    done
    if [ "$b" = pingpong ] && [ -n "$floor_bin" ]; then
      echo "[run $r/$runs] hardware floor (no MPI)" >&2
      timeout -k 10 "$tmo" "$floor_bin" --slots 1,256 2>/dev/null |
        awk -F, -v r="$r" 'NF == 4 && $1 == "floor" {print "raw,floor," r ",floor," $2 "," $3 "," $4}' >>"$raw"
    fi
  done
done

load_end=$(cut -d" " -f1 /proc/loadavg 2>/dev/null || echo "?")

# --- medians -----------------------------------------------------------------------------------------
# Sort by mpi, metric, size, value; then each group's middle value (mean of the two middle ones for an
# even count). mawk has no asort, hence sort(1).
med="$work/median.csv"
awk -F, '{print $2 "," $4 "," $5 "," $6 "," $7}' "$raw" | sort -t, -k1,1 -k2,2 -k3,3n -k4,4g |
  awk -F, '
    function flush() { if (n) { m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
                                print "median," key_m "," n "," key_x "," key_s "," m "," unit
                                print "min," key_m "," n "," key_x "," key_s "," v[1] "," unit
                                print "max," key_m "," n "," key_x "," key_s "," v[n] "," unit } }
    { k = $1 "," $2 "," $3
      if (k != key) { flush(); key = k; key_m = $1; key_x = $2; key_s = $3; n = 0 }
      v[++n] = $4; unit = $5 }
    END { flush() }' >"$med"

{
  echo "kind,mpi,run,metric,size,value,unit"
  echo "meta,all,,date,,$(date -Iseconds),"
  echo "meta,all,,runs,,$runs,"
  echo "meta,all,,quick,,$quick,"
  echo "meta,all,,loadavg_at_start,,$load,"
  echo "meta,all,,cpu,,\"$cpu\","
  echo "meta,all,,libc,,$libc,"
  echo "meta,all,,mode,,$([ "$net" = 1 ] && echo net || echo shm),"
  [ "$net" = 1 ] && echo "meta,all,,libfabric,,\"$libfabric\"," && echo "meta,all,,ucx,,\"$ucx\","
  echo "meta,all,,loadavg_at_end,,$load_end,"
  echo "meta,all,,offsets,,\"$([ "$sweep" = 1 ] && echo "sweep $sweep_offsets" || echo "$offsets")\","
  for m in $active; do echo "meta,$m,,version,,\"${meta[$m]}\","; echo "meta,$m,,transport,,\"$(mode_line $m)\","
                      echo "meta,$m,,failed_launches,,${fails[$m]:-0},"; done
  for m in $mpis; do
    [ -n "${avail[$m]:-}" ] && continue
    w=${why[$m]:-not built}; echo "meta,$m,,not_run,,\"${w//\"/\'}\","
  done
  cat "$raw" "$med"
} >"$csv"

# --- table -------------------------------------------------------------------------------------------
# One table per metric; a ratio column is credo's median over the peer's median.
table() { # metric title format scale better
  awk -F, -v metric="$1" -v title="$2" -v fmt="$3" -v scale="$4" -v better="$5" '
    function human(s) { if (s >= 1048576 && s % 1048576 == 0) return s / 1048576 "M"
                        if (s >= 1024 && s % 1024 == 0) return s / 1024 "K"; return s }
    function cell(x) { return (x == "") ? "n/a" : sprintf(fmt, x / scale) }
    function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
    $1 == "median" && $4 == metric { val[$2, $5] = $6; if (!($5 in seen)) { seen[$5] = 1; sizes[++ns] = $5 } }
    END {
      if (!ns) exit
      # sizes arrive sorted per MPI; re-sort the union (insertion sort, a few dozen entries).
      for (i = 2; i <= ns; i++) { x = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] + 0 > x + 0; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = x }
      hb = 0; for (i = 1; i <= ns; i++) if (val["base", sizes[i]] != "") hb = 1
      printf "\n%s   (ratio %s 1: credo better)\n", title, better
      if (hb) printf "%8s %12s %12s %11s", "size", "base", "credo", "credo/base"
      else printf "%8s %12s", "size", "credo"
      printf " %12s %12s %11s %11s\n", "Open MPI", "MPICH", "credo/OMPI", "credo/MPICH"
      for (i = 1; i <= ns; i++) {
        s = sizes[i]; c = val["credo", s]; o = val["ompi", s]; p = val["mpich", s]; b = val["base", s]
        if (hb) printf "%8s %12s %12s %11s", human(s), cell(b), cell(c), ratio(c, b)
        else printf "%8s %12s", human(s), cell(c)
        printf " %12s %12s %11s %11s\n", cell(o), cell(p), ratio(c, o), ratio(c, p)
      }
    }' "$med"
}

echo
echo "credo side-by-side: median of $runs interleaved runs ($(date '+%F %T'))"
echo "  load average at start: $load, at end: $load_end on $ncpu CPUs (above about $((ncpu - 1)) the numbers are unreliable)"
echo "  cpu: $cpu; $libc"
if [ "$net" = 1 ]; then echo "  NETWORK MODE: every MPI over TCP on lo (loopback), no shared memory between the ranks; $libfabric; $ucx"
else echo "  shared-memory mode: each MPI's default on-node path"; fi
if [ "$sweep" = 1 ]; then echo "  alignment sweep: send and receive buffers at every pair of page + {$sweep_offsets}"
else echo "  buffers at page + {$offsets} (16: where malloc puts large blocks; 0: page-aligned, as OSU)"; fi
for m in $active; do
  f=${fails[$m]:-0}; [ "$f" = 0 ] && f="" || f=" -- $f of ${launches[$m]:-0} launches FAILED (see messages above)"
  # Every launch failed: the column is empty; say why instead of pointing at the messages.
  if [ "${fails[$m]:-0}" -gt 0 ] && [ "${fails[$m]:-0}" = "${launches[$m]:-0}" ]; then
    echo "  $(label $m): n/a (every launch failed; first: ${firsterr[$m]:-?})"
  else
    echo "  $(label $m): ${meta[$m]}$f"
  fi
  [ "$net" = 1 ] && echo "      over: $(mode_line $m)"
done
for m in $mpis; do [ -z "${avail[$m]:-}" ] && echo "  $(label $m): n/a (${why[$m]:-not built})"; done
# The sweep: per metric and size, each MPI's median over the offset pairs, its worst pair and its
# page-aligned pair (medians over the runs first).
sweep_table() { # metric title better(<: lower is better)
  awk -F, -v metric="$1" -v title="$2" -v better="$3" -v act="$active" '
    function human(s) { if (s >= 1048576 && s % 1048576 == 0) return s / 1048576 "M"
                        if (s >= 1024 && s % 1024 == 0) return s / 1024 "K"; return s }
    $1 == "median" && index($4, metric "@") == 1 {
      pair = substr($4, length(metric) + 2); k = $2 SUBSEP $5
      n[k]++; v[k, n[k]] = $6; p[k, n[k]] = pair
      if (pair == "0/0") al[k] = $6
      if (!($5 in seen)) { seen[$5] = 1; sizes[++ns] = $5 } }
    END {
      if (!ns) exit
      for (i = 2; i <= ns; i++) { x = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] + 0 > x + 0; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = x }
      nm = split(act, ms, " ")
      printf "\n%s: per MPI the median over the offset pairs, the worst pair (send/receive offsets) and page-aligned 0/0\n", title
      printf "%8s", "size"; for (j = 1; j <= nm; j++) printf " | %-34s", ms[j]; printf "\n"
      for (i = 1; i <= ns; i++) {
        s = sizes[i]; printf "%8s", human(s)
        for (j = 1; j <= nm; j++) {
          k = ms[j] SUBSEP s; c = n[k]
          if (!c) { printf " | %-34s", "n/a"; continue }
          for (a = 1; a <= c; a++) w[a] = v[k, a] + 0
          for (a = 2; a <= c; a++) { x = w[a]; for (b = a - 1; b >= 1 && w[b] > x; b--) w[b + 1] = w[b]; w[b + 1] = x }
          mid = (c % 2) ? w[(c + 1) / 2] : (w[c / 2] + w[c / 2 + 1]) / 2
          worst = v[k, 1]; wp = p[k, 1]
          for (a = 2; a <= c; a++) if ((better == "<" && v[k, a] + 0 > worst + 0) || (better == ">" && v[k, a] + 0 < worst + 0)) { worst = v[k, a]; wp = p[k, a] }
          printf " | %9.4g %9.4g %-6s %7.4g", mid, worst, wp, al[k] }
        printf "\n" } }' "$med"
}

if [ "$sweep" = 1 ]; then
  sweep_table latency "latency, half round trip (us)" "<"
  sweep_table bw "bandwidth, window 16 Isend + ack (MB/s)" ">"
  # The same offset pairs without MPI: glibc memcpy and credo's own loop (bench/memcpy_probe.c with
  # credo's src/xport/copy.c, built with cc).
  if command -v cc >/dev/null && cc $cflags -I"$here/../src" "$here/memcpy_probe.c" "$here/../src/xport/copy.c" \
       -o "$work/memcpy_probe" 2>"$work/memcpy_probe.build.log"; then
    echo
    echo "bare copies at the same pairs, cache-warm (no MPI; GB/s = 10^9 B/s):"
    "$work/memcpy_probe" --offsets "$sweep_offsets" --strategies memcpy,loop --ms 1 | tee "$work/probe.out" | grep '^# '
    awk -F, '$1 == "probe" {print "probe," $2 "," $3 "," $4 "," $5 "," $6 "," $7}' "$work/probe.out" >>"$csv"
  else
    note "memcpy_probe did not build; no bare-copy figures"
  fi
  echo
  echo "raw and median numbers: $csv"
  exit 0
fi

for off in $offset_list; do
  if [ "$noffsets" -gt 1 ]; then tag="@$off"; echo; echo "=== buffers at page + $off ==="; else tag=""; fi
  table latency$tag "latency, half round trip (us)" "%.3f" 1 "<"
  table ppbw$tag "ping-pong bandwidth, size / half RTT (MB/s = 10^6 B/s)" "%.0f" 1 ">"
  table bw$tag "bandwidth, window 64 Isend + ack (MB/s)" "%.0f" 1 ">"
  table bibw$tag "bidirectional bandwidth, window 64 each way (MB/s, both directions)" "%.0f" 1 ">"
  table msgrate$tag "message rate, 1 pair, window 64 (million msg/s)" "%.3f" 1e6 ">"
done

# Headline: the four numbers quoted most often, one line per MPI (and offset).
echo
echo "headline (medians): 8 B latency us | 1 MiB ping-pong MB/s | 1 MiB window bw MB/s | 8 B msg rate M/s"
for off in $offset_list; do
[ "$noffsets" -gt 1 ] && tag="@$off" || tag=""
[ "$noffsets" -gt 1 ] && echo " buffers at page + $off:"
awk -F, -v act="$active" -v t="$tag" '$1 == "median" { v[$2, $4, $5] = $6 }
  function f(x, fmt, s) { return (x == "") ? "n/a" : sprintf(fmt, x / s) }
  END { split("base credo ompi mpich", order, " "); split("base|credo|Open MPI|MPICH", name, "|")
        for (i = 1; i <= 4; i++) { m = order[i]; if (index(" " act " ", " " m " ") == 0) continue
          printf "  %-9s %8s | %8s | %8s | %8s\n", name[i], f(v[m, "latency" t, 8], "%.3f", 1),
                 f(v[m, "ppbw" t, 1048576], "%.0f", 1), f(v[m, "bw" t, 1048576], "%.0f", 1), f(v[m, "msgrate" t, 8], "%.2f", 1e6) } }' "$med"
done
awk -F, '$1 == "median" && $2 == "floor" { v[$5] = $6 }
  END { if (1 in v) printf "  floor     %8.3f us with one reused cache line, %.3f us with a ring of 256 64-byte slots (no MPI, ring_floor.c)\n", v[1], v[256] }' "$med"
# Network mode: TCP over loopback costs several microseconds per message here (about 10 us half round
# trip for Open MPI and MPICH); an 8 B latency under 2 us means the bytes did not cross a socket.
if [ "$net" = 1 ]; then
  awk -F, '$1 == "median" && $4 ~ /^latency(@|$)/ && $5 == 8 && $6 + 0 < 2 {
             printf "  WARNING: %s 8 B latency %.3f us (%s) is shared-memory speed: probably not over TCP\n", $2, $6, $4 }' "$med"
fi
echo
echo "raw and median numbers: $csv"
