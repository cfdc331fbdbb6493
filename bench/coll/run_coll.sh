#!/usr/bin/env bash
# run_coll.sh — builds the collective benchmarks (coll_lat, overlap) with credo, Open MPI and MPICH, runs them
# interleaved at np 2 and 4, and prints per-size medians side by side with ratios; raw numbers go to a CSV.
#
# usage: bench/coll/run_coll.sh [credo-build-dir]
# env:   RUNS=N (default 3)  QUICK=1 (fewer sizes, iterations and a smaller time budget)
#        NPS="2 4"  MPIS="credo ompi mpich"  BENCHES="coll_lat overlap"  subsets to run
#        LAT_COLLS="barrier,allreduce"  OVERLAP_COLLS="iallreduce"  --coll lists for the two programs
#        LAT_SIZES="8"  OVERLAP_SIZES="1M"  --sizes lists for the two programs (after QUICK's)
#        PT=0  leave out the credo + CREDO_PROGRESS_THREAD=1 column of the overlap benchmark
#        RT=0  leave out the credo + CREDO_PROGRESS_THREAD=1 CREDO_PROGRESS_RT=1 column (the real-time
#              thread; without CAP_SYS_NICE credo warns and that column measures the ordinary thread)
#        CREDORUN_ARGS, OMPI_RUN_ARGS, MPICH_RUN_ARGS  extra launcher options
#        RUN_TIMEOUT=seconds per launch (default 300)   BENCH_CFLAGS (default "-std=c11 -O2")
# Only bash, coreutils and awk, like bench/side_by_side.sh, whose conventions it follows.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
credo_build=${1:-}
[ -n "$credo_build" ] && credo_build=$(cd "$credo_build" 2>/dev/null && pwd || echo "$credo_build")
quick=${QUICK:-0}
runs=${RUNS:-3}
nps=${NPS:-2 4}
mpis=${MPIS:-credo ompi mpich}
benches=${BENCHES:-coll_lat overlap}
pt=${PT:-1}
rt=${RT:-1}
tmo=${RUN_TIMEOUT:-300}
cflags=${BENCH_CFLAGS:--std=c11 -O2}

# Arguments per program. The full set uses the programs' defaults: coll_lat 8 B .. 1 MiB (powers of 4),
# overlap 8 B .. 1 MiB (powers of 8), budget 0.2 / 0.3 s of timed loop per size.
bench_args() {
  local a=""
  if [ "$quick" = 1 ]; then
    case $1 in
      coll_lat) a="--sizes 8,1K,64K,1M --iters 200 --budget 0.05" ;;
      overlap) a="--sizes 8,64K,1M --iters 200 --budget 0.1" ;;
    esac
  fi
  case $1 in
    coll_lat) [ -n "${LAT_COLLS:-}" ] && a="$a --coll $LAT_COLLS"
              [ -n "${LAT_SIZES:-}" ] && a="$a --sizes $LAT_SIZES" ;;
    overlap) [ -n "${OVERLAP_COLLS:-}" ] && a="$a --coll $OVERLAP_COLLS"
             [ -n "${OVERLAP_SIZES:-}" ] && a="$a --sizes $OVERLAP_SIZES" ;;
  esac
  echo "$a"
}

# The functions each program can measure; the ones an MPI lacks are compiled out (-DBCOLL_NO_<fn>).
funcs_coll_lat="MPI_Allreduce MPI_Gather MPI_Scatter MPI_Allgather MPI_Alltoall MPI_Reduce_scatter_block MPI_Scan MPI_Exscan"
funcs_overlap="MPI_Iallreduce MPI_Ibcast MPI_Ialltoall MPI_Ibarrier"

label() { case $1 in credo) echo credo ;; credo_pt) echo credo+PT ;; credo_rt) echo credo+RT ;; ompi) echo "Open MPI" ;; mpich) echo MPICH ;; esac; }

work=$(mktemp -d "${TMPDIR:-/tmp}/credo-coll.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/../results"
stamp=$(date +%Y%m%d-%H%M%S)
csv="$(cd "$here/../results" && pwd)/coll-$stamp.csv"
raw="$work/raw.csv"
: >"$raw"

note() { echo "run_coll: $*" >&2; }
ncpu=$(nproc 2>/dev/null || echo 1)

# --- build -------------------------------------------------------------------------------------------
# Link probe: does this MPI provide <fn>? Taking the address needs both the declaration and the symbol,
# which is exactly what building the benchmark needs.
probe() { # cc fn
  printf '#include <mpi.h>\nint main(void) { void (*volatile p)(void) = (void (*)(void))%s; return p == 0; }\n' "$2" >"$work/probe.c"
  $1 -std=c11 "$work/probe.c" -o "$work/probe" >/dev/null 2>&1
}

declare -A avail cc_of run_of meta missing
for m in $mpis; do
  case $m in
    credo)
      if [ -z "$credo_build" ]; then note "credo: no build dir given, column will be n/a"; continue; fi
      cc="$credo_build/bin/mpicc"; run="$credo_build/bin/credorun"
      if [ ! -x "$cc" ] || [ ! -x "$run" ]; then note "credo: $cc or $run missing, column will be n/a"; continue; fi
      meta[credo]="credo $(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown) credorun args: ${CREDORUN_ARGS:-none}" ;;
    ompi)
      cc=mpicc.openmpi; run=mpirun.openmpi
      if ! command -v $cc >/dev/null || ! command -v $run >/dev/null; then note "Open MPI not installed, skipped"; continue; fi
      meta[ompi]="$($run --version 2>/dev/null | head -1)${OMPI_RUN_ARGS:+ $OMPI_RUN_ARGS}" ;;
    mpich)
      cc=mpicc.mpich; run=mpiexec.mpich
      if ! command -v $cc >/dev/null || ! command -v $run >/dev/null; then note "MPICH not installed, skipped"; continue; fi
      meta[mpich]="MPICH $($run --version 2>/dev/null | awk '/Version:/{print $2; exit}')${MPICH_RUN_ARGS:+ $MPICH_RUN_ARGS}" ;;
    *) note "unknown MPI '$m' in MPIS"; continue ;;
  esac
  cc_of[$m]=$cc; run_of[$m]=$run
  mkdir -p "$work/$m"
  for b in $benches; do
    eval "fl=\$funcs_$b"
    defs=""; miss=""
    for f in $fl; do probe "$cc" "$f" || { defs="$defs -DBCOLL_NO_$f"; miss="$miss $f"; }; done
    if [ -n "$fl" ] && [ "$miss" = " ${fl// / }" ]; then
      missing[$m.$b]=$miss; note "$m: provides none of$miss, $b column will be n/a"; continue
    fi
    [ -n "$miss" ] && missing[$m.$b]=$miss && note "$m: $b built without$miss"
    # shellcheck disable=SC2086
    if $cc $cflags $defs "$here/$b.c" -o "$work/$m/$b" 2>"$work/$m/$b.build.log"; then
      avail[$m.$b]=1
    else
      note "$m: building $b failed, column will be n/a:"; head -5 "$work/$m/$b.build.log" >&2
    fi
  done
done
# credo with the progress thread runs credo's overlap binary; it is a column of its own.
if [ "$pt" = 1 ] && [ -n "${avail[credo.overlap]:-}" ]; then avail[credo_pt.overlap]=1; meta[credo_pt]="${meta[credo]} CREDO_PROGRESS_THREAD=1"; fi
if [ "$rt" = 1 ] && [ -n "${avail[credo.overlap]:-}" ]; then avail[credo_rt.overlap]=1; meta[credo_rt]="${meta[credo]} CREDO_PROGRESS_THREAD=1 CREDO_PROGRESS_RT=1"; fi

# Launch command for an MPI at np ranks. Up to one rank per CPU all three bind one rank per core (as in
# side_by_side.sh). Beyond that credorun still binds round robin (rank i on CPU i mod #CPUs, its
# default) and Open MPI gets the same map (--oversubscribe, which also makes its ranks yield when idle,
# and --bind-to core:overload-allowed: ranks 0 and 2 on core 0, 1 and 3 on core 1 at np 4); MPICH is
# left unbound (hydra has no overload switch).
launcher() { # mpi np
  local m=$1 np=$2 bind=1
  [ "$np" -gt "$ncpu" ] && bind=0
  case $m in
    credo) echo "${run_of[credo]} -n $np ${CREDORUN_ARGS:-}" ;;
    credo_pt) echo "env CREDO_PROGRESS_THREAD=1 ${run_of[credo]} -n $np ${CREDORUN_ARGS:-}" ;;
    credo_rt) echo "env CREDO_PROGRESS_THREAD=1 CREDO_PROGRESS_RT=1 ${run_of[credo]} -n $np ${CREDORUN_ARGS:-}" ;;
    ompi) if [ $bind = 1 ]; then b="--bind-to core"; else b="--oversubscribe --bind-to core:overload-allowed"; fi
          echo "env OMPI_MCA_oob_tcp_if_include=lo ${run_of[ompi]} --allow-run-as-root -np $np $b ${OMPI_RUN_ARGS:-}" ;;
    mpich) if [ $bind = 1 ]; then b="-bind-to core"; else b=""; fi
           echo "${run_of[mpich]} -n $np $b ${MPICH_RUN_ARGS:-}" ;;
  esac
}
bindir() { case $1 in credo_pt|credo_rt) echo "$work/credo" ;; *) echo "$work/$1" ;; esac; }

columns=""
for m in credo credo_pt credo_rt ompi mpich; do
  for b in $benches; do [ -n "${avail[$m.$b]:-}" ] && { columns="$columns $m"; break; }; done
done
[ -z "$columns" ] && { note "nothing could be built; nothing to run"; exit 1; }

load=$(cut -d" " -f1 /proc/loadavg 2>/dev/null || echo "?")
note "load average $load on $ncpu CPUs"
if awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l + 0 > n - 0.5) }'; then
  note "WARNING: the machine is busy; expect slow and noisy numbers"
fi

# --- run ---------------------------------------------------------------------------------------------
# Round-robin: per round, per np, per program, every MPI in turn, so drift hits all columns alike.
declare -A dead fails launches
for r in $(seq 1 "$runs"); do
  for np in $nps; do
    for b in $benches; do
      for m in $columns; do
        [ -z "${avail[$m.$b]:-}" ] && continue
        [ -n "${dead[$m.$b.$np]:-}" ] && continue
        echo "[run $r/$runs] np $np $b: $(label "$m")" >&2
        out="$work/$m.$b.$np.$r.out"; err="$work/$m.$b.$np.$r.err"
        # shellcheck disable=SC2046
        (cd "$(bindir "$m")" && timeout -k 10 "$tmo" $(launcher "$m" "$np") "./$b" $(bench_args "$b")) >"$out" 2>"$err"
        rc=$?
        launches[$m]=$(( ${launches[$m]:-0} + 1 ))
        # Complete lines of a crashed run are kept: rank 0 flushes after every size.
        awk -F, -v m="$m" -v r="$r" -v np="$np" 'NF == 4 && $1 !~ /^#/ && $2 ~ /^[0-9]+$/ {
            print "raw," m "," np "," r "," $1 "," $2 "," $3 "," $4 }' "$out" >>"$raw"
        if [ $rc != 0 ]; then
          fails[$m]=$(( ${fails[$m]:-0} + 1 ))
          note "$m $b np $np run $r exited with $rc; last lines of its stderr:"; tail -5 "$err" >&2
          if [ $rc = 124 ] || [ $rc = 137 ]; then dead[$m.$b.$np]=1; note "$m $b np $np timed out; not run again"; fi
        fi
      done
    done
  done
done

# --- medians -----------------------------------------------------------------------------------------
# Group by mpi, np, metric, size; sort values; middle one (mean of the two middle ones for an even count).
med="$work/median.csv"
awk -F, '{print $2 "," $3 "," $5 "," $6 "," $7 "," $8}' "$raw" | sort -t, -k1,1 -k2,2n -k3,3 -k4,4n -k5,5g |
  awk -F, '
    function flush() { if (n) { md = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
                                print "median," g "," n "," x "," md "," unit
                                print "min," g "," n "," x "," v[1] "," unit
                                print "max," g "," n "," x "," v[n] "," unit } }
    { k = $1 "," $2 "," $3 "," $4
      if (k != key) { flush(); key = k; g = $1 "," $2; x = $3 "," $4; n = 0 }
      v[++n] = $5; unit = $6 }
    END { flush() }' >"$med"

{
  echo "kind,mpi,np,run,metric,size,value,unit"
  echo "meta,all,,,date,,$(date -Iseconds),"
  echo "meta,all,,,runs,,$runs,"
  echo "meta,all,,,quick,,$quick,"
  echo "meta,all,,,loadavg_at_start,,$load,"
  for m in $columns; do
    echo "meta,$m,,,version,,\"${meta[$m]}\","
    echo "meta,$m,,,failed_launches,,${fails[$m]:-0},"
    for b in $benches; do [ -n "${missing[$m.$b]:-}" ] && echo "meta,$m,,,missing_$b,,\"${missing[$m.$b]# }\","; done
  done
  cat "$raw" "$med"
} >"$csv"

# --- tables ------------------------------------------------------------------------------------------
# table np suffix title fmt cols ratios better: one row per (collective, size) of the metrics ending in
# <suffix> (the suffix is cut off for the row label); cols are MPIs, ratios "a:b" pairs = median a / b.
table() {
  awk -F, -v np="$1" -v suffix="$2" -v title="$3" -v fmt="$4" -v cols="$5" -v ratios="$6" -v better="$7" -v act="$columns" '
    function human(s) { if (s >= 1048576 && s % 1048576 == 0) return s / 1048576 "M"
                        if (s >= 1024 && s % 1024 == 0) return s / 1024 "K"; return s }
    function lab(m) { return m == "credo" ? "credo" : m == "credo_pt" ? "credo+PT" : m == "credo_rt" ? "credo+RT" : m == "ompi" ? "Open MPI" : "MPICH" }
    function short(m) { return m == "credo" ? "credo" : m == "credo_pt" ? "PT" : m == "credo_rt" ? "RT" : m == "ompi" ? "OMPI" : "MPICH" }
    function cell(x) { return (x == "") ? "n/a" : sprintf(fmt, x) }
    function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
    $1 == "median" && $3 == np {
      name = $5
      if (suffix != "") { if (substr(name, length(name) - length(suffix) + 1) != suffix) next
                          name = substr(name, 1, length(name) - length(suffix)) }
      else if (name ~ /_/ && name != "reduce_scatter_block") next
      val[$2, name, $6] = $7
      if (!((name, $6) in seen)) { seen[name, $6] = 1; rows[++nr] = name SUBSEP $6 }
    }
    END {
      if (!nr) exit
      # Collectives in a fixed order, then sizes ascending (insertion sort over a few dozen rows).
      split("barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter_block scan exscan iallreduce ibcast ialltoall ibarrier", ord, " ")
      for (i in ord) rank[ord[i]] = i
      for (i = 1; i <= nr; i++) { split(rows[i], p, SUBSEP); key[i] = sprintf("%03d %012d", rank[p[1]] ? rank[p[1]] : 99, p[2]) }
      for (i = 2; i <= nr; i++) { x = rows[i]; y = key[i]
        for (j = i - 1; j >= 1 && key[j] > y; j--) { rows[j + 1] = rows[j]; key[j + 1] = key[j] }
        rows[j + 1] = x; key[j + 1] = y }
      nc = split(cols, c, " "); nq = split(ratios, q, " ")
      printf "\n%s, np %s   (ratio %s 1: credo better)\n", title, np, better
      printf "%-21s %6s", "collective", "size"
      for (i = 1; i <= nc; i++) printf " %10s", lab(c[i])
      for (i = 1; i <= nq; i++) { split(q[i], ab, ":"); printf " %11s", short(ab[1]) "/" short(ab[2]) }
      printf "\n"
      for (i = 1; i <= nr; i++) {
        split(rows[i], p, SUBSEP); printf "%-21s %6s", p[1], human(p[2])
        for (k = 1; k <= nc; k++) printf " %10s", cell(val[c[k], p[1], p[2]])
        for (k = 1; k <= nq; k++) { split(q[k], ab, ":"); printf " %11s", ratio(val[ab[1], p[1], p[2]], val[ab[2], p[1], p[2]]) }
        printf "\n"
      }
    }' "$med"
}

echo
echo "credo collectives side by side: median of $runs interleaved runs ($(date '+%F %T'))"
echo "  load average at start: $load on $ncpu CPUs (above about $((ncpu - 1)) the numbers are unreliable;"
echo "  np above $ncpu is oversubscribed: no binding, and polling ranks then wait for scheduler ticks)"
for m in $columns; do
  f=${fails[$m]:-0}; [ "$f" = 0 ] && f="" || f=" -- $f of ${launches[$m]:-0} launches FAILED (see messages above)"
  echo "  $(label "$m"): ${meta[$m]}$f"
  for b in $benches; do [ -n "${missing[$m.$b]:-}" ] && echo "    $b without:${missing[$m.$b]} (n/a)"; done
done
for m in $mpis; do case " $columns " in *" $m "*) ;; *) echo "  $(label "$m"): n/a (not built)" ;; esac; done

for np in $nps; do
  case " $benches " in *" coll_lat "*)
    table "$np" "" "collective latency, average over ranks (us)" "%.2f" "credo ompi mpich" "credo:ompi credo:mpich" "<" ;; esac
  case " $benches " in *" overlap "*)
    table "$np" "_overlap" "overlap % = 100 (1 - (t_overall - t_compute) / t_pure)" "%.1f" "credo credo_pt credo_rt ompi mpich" "credo_pt:ompi credo_rt:ompi credo_rt:mpich" ">"
    table "$np" "_pure" "non-blocking collective alone, post + Wait (t_pure, us)" "%.2f" "credo credo_pt credo_rt ompi mpich" "credo:ompi credo_rt:ompi credo:mpich" "<"
    table "$np" "_overall" "post + compute for t_pure + Wait (t_overall, us)" "%.2f" "credo credo_pt credo_rt ompi mpich" "credo_pt:ompi credo_rt:ompi credo_rt:mpich" "<"
    table "$np" "_compute" "compute loop alone while the collective runs (t_compute, us)" "%.2f" "credo credo_pt credo_rt ompi mpich" "" "<" ;; esac
done

# Acceptance: Barrier and 8 B Allreduce at most Open MPI's, Iallreduce 1 MiB overlap with the progress
# thread at least 80 %, at every np.
echo
echo "acceptance (medians): barrier us | allreduce 8 B us | iallreduce 1 MiB overlap % (credo: with PT / with RT)"
awk -F, -v nps="$nps" '$1 == "median" { v[$2, $3, $5, $6] = $7 }
  function f(x, fmt) { return (x == "") ? "n/a" : sprintf(fmt, x) }
  function verdict(ok, a, b) { return (a == "" || b == "") ? "n/a" : ok ? "PASS" : "FAIL" }
  END {
    n = split(nps, npl, " ")
    for (i = 1; i <= n; i++) { np = npl[i]
      cb = v["credo", np, "barrier", 0]; ob = v["ompi", np, "barrier", 0]
      ca = v["credo", np, "allreduce", 8]; oa = v["ompi", np, "allreduce", 8]
      co = v["credo_pt", np, "iallreduce_overlap", 1048576]; cr = v["credo_rt", np, "iallreduce_overlap", 1048576]
      best = (cr != "" && (co == "" || cr + 0 > co + 0)) ? cr : co
      printf "  np %s: credo %8s | %8s | %6s / %6s    Open MPI %8s | %8s | %6s    MPICH %8s | %8s | %6s\n", np,
        f(cb, "%.2f"), f(ca, "%.2f"), f(co, "%.1f"), f(cr, "%.1f"),
        f(ob, "%.2f"), f(oa, "%.2f"), f(v["ompi", np, "iallreduce_overlap", 1048576], "%.1f"),
        f(v["mpich", np, "barrier", 0], "%.2f"), f(v["mpich", np, "allreduce", 8], "%.2f"), f(v["mpich", np, "iallreduce_overlap", 1048576], "%.1f")
      printf "        barrier <= Open MPI: %s   allreduce 8 B <= Open MPI: %s   iallreduce 1 MiB overlap >= 80 %% with a progress thread: %s\n",
        verdict(cb + 0 <= ob + 0, cb, ob), verdict(ca + 0 <= oa + 0, ca, oa), verdict(best + 0 >= 80, best, best)
    } }' "$med"
echo
echo "raw and median numbers: $csv"
