#!/bin/bash
# compare.sh [BUILD_DIR]: runs the OSU-style benchmarks (osu_latency, osu_bw,
# osu_bibw) with 2 ranks on RailMPI, Debian's MPICH and Open MPI, over shared
# memory and over TCP (loopback), and prints one table per benchmark and
# transport: size, RailMPI, MPICH, Open MPI, ratio RailMPI/best peer.
#
#   BUILD_DIR  RailMPI build tree (default: ./build); needs bin/mpiexec and
#              bench/osu_*. RailMPI is skipped (with a message) if missing.
#   QUICK=1    one run per point, sizes up to 1 MiB, fewer iterations.
#   RUNS=N     runs per point (default 3; the median is reported).
#   BENCHES="osu_latency osu_bw"  subset (default: all three).
#   TRANSPORTS="shm tcp"          subset.
#
# How each implementation is steered: see bench/peers.sh.
# Latency: microseconds, lower is better. Bandwidth: MB/s, higher is better.
# The ratio column is RailMPI / best peer (so < 1 is better for latency,
# > 1 is better for bandwidth). The whole run takes a few minutes (QUICK=1:
# about a minute).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" 2>/dev/null && pwd || echo "${1:-build}")
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then RUNS=${RUNS:-1}; MAXSZ=1048576; BARGS="-q -m $MAXSZ"; else RUNS=${RUNS:-3}; MAXSZ=4194304; BARGS="-m $MAXSZ"; fi
BENCHES=${BENCHES:-"osu_latency osu_bw osu_bibw"}
# Collective benchmarks: shared memory, 4 ranks and 8 ranks (oversubscribed on small hosts).
COLL_BENCHES=${COLL_BENCHES:-"osu_barrier osu_bcast osu_allreduce osu_alltoall"}
COLL_NPS=${COLL_NPS:-"4 8"}
NP=2
TRANSPORTS=${TRANSPORTS:-"shm tcp"}
TLIMIT=${TLIMIT:-300}

work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

have_rail=0
if [ -x "$build/bin/mpiexec" ]; then
    have_rail=1
    for b in $BENCHES $COLL_BENCHES; do [ -x "$build/bench/$b" ] || have_rail=0; done
fi
[ $have_rail = 1 ] || echo "compare.sh: RailMPI skipped: $build/bin/mpiexec or $build/bench/osu_* not built"

. "$here/peers.sh"
for b in $BENCHES $COLL_BENCHES; do peer_build "$here/$b.c" "$b"; done
[ $have_mpich = 1 ] || echo "compare.sh: MPICH skipped (mpicc.mpich/mpiexec.mpich missing or build failed)"
[ $have_ompi = 1 ] || echo "compare.sh: Open MPI skipped (mpicc.openmpi/mpiexec.openmpi missing or build failed)"

# run_point IMPL TRANSPORT BENCH -> writes $work/IMPL.TRANSPORT.BENCH (size median)
run_point() {
    local impl=$1 tr=$2 b=$3 out="$work/$1.$2.$3"
    : >"$out.all"
    for r in $(seq 1 "$RUNS"); do
        if ! timeout -k 5 "$TLIMIT" $(peer_launcher "$impl" "$tr" "$NP") "$(peer_binary "$impl" "$b")" $BARGS </dev/null \
            >"$out.run$r" 2>"$out.err$r"; then
            echo "compare.sh: $impl/$tr/$b run $r failed:" >&2
            tail -n 5 "$out.err$r" >&2
            continue
        fi
        grep -v '^#' "$out.run$r" | awk 'NF == 2 { print $1, $2 }' >>"$out.all"
    done
    # median per size
    sort -k1,1n -k2,2g "$out.all" | awk '
        { v[$1] = v[$1] " " $2; n[$1]++ }
        END { for (s in v) { split(substr(v[s], 2), a, " "); m = a[int((n[s] + 1) / 2)];
              if (n[s] % 2 == 0) m = (a[n[s] / 2] + a[n[s] / 2 + 1]) / 2; print s, m } }' |
        sort -k1,1n >"$out"
}

impls=""
[ $have_rail = 1 ] && impls="$impls rail"
[ $have_mpich = 1 ] && impls="$impls mpich"
[ $have_ompi = 1 ] && impls="$impls ompi"

for tr in $TRANSPORTS; do
    for b in $BENCHES; do
        for impl in $impls; do run_point "$impl" "$tr" "$b"; done
        case $b in
        osu_latency) unit="latency us, lower is better"; dir=low ;;
        osu_bw) unit="MB/s, higher is better"; dir=high ;;
        *) unit="MB/s (both directions), higher is better"; dir=high ;;
        esac
        echo
        echo "== $b over $tr ($unit; median of $RUNS run(s)) =="
        printf '%-10s %12s %12s %12s %14s\n' size RailMPI MPICH "Open MPI" "Rail/bestpeer"
        for impl in rail mpich ompi; do [ -f "$work/$impl.$tr.$b" ] || : >"$work/$impl.$tr.$b"; done
        awk -v dir="$dir" '
            FILENAME ~ /\/rail\./ { r[$1] = $2; sz[$1] = 1 }
            FILENAME ~ /\/mpich\./ { m[$1] = $2; sz[$1] = 1 }
            FILENAME ~ /\/ompi\./ { o[$1] = $2; sz[$1] = 1 }
            END {
                n = 0; for (s in sz) keys[++n] = s + 0
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
                for (i = 1; i <= n; i++) {
                    s = keys[i]; best = ""
                    if (s in m) best = m[s]
                    if (s in o && (best == "" || (dir == "low" ? o[s] < best : o[s] > best))) best = o[s]
                    ratio = "-"
                    if ((s in r) && best != "" && best > 0) ratio = sprintf("%.2f", r[s] / best)
                    printf "%-10s %12s %12s %12s %14s\n", s, (s in r) ? r[s] : "-", (s in m) ? m[s] : "-", (s in o) ? o[s] : "-", ratio
                }
            }' "$work/rail.$tr.$b" "$work/mpich.$tr.$b" "$work/ompi.$tr.$b"
    done
done

# Collective latency (microseconds, lower is better), shared memory, NP ranks.
for NP in $COLL_NPS; do
    for b in $COLL_BENCHES; do
        for impl in $impls; do run_point "$impl" shm "$b"; mv "$work/$impl.shm.$b" "$work/$impl.np$NP.$b"; done
        echo
        echo "== $b on $NP ranks over shm (latency us, lower is better; median of $RUNS run(s)) =="
        printf '%-10s %12s %12s %12s %14s\n' size RailMPI MPICH "Open MPI" "Rail/bestpeer"
        for impl in rail mpich ompi; do [ -f "$work/$impl.np$NP.$b" ] || : >"$work/$impl.np$NP.$b"; done
        awk '
            FILENAME ~ /\/rail\./ { r[$1] = $2; sz[$1] = 1 }
            FILENAME ~ /\/mpich\./ { m[$1] = $2; sz[$1] = 1 }
            FILENAME ~ /\/ompi\./ { o[$1] = $2; sz[$1] = 1 }
            END {
                n = 0; for (s in sz) keys[++n] = s + 0
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
                for (i = 1; i <= n; i++) {
                    s = keys[i]; best = ""
                    if (s in m) best = m[s]
                    if (s in o && (best == "" || o[s] < best)) best = o[s]
                    ratio = "-"
                    if ((s in r) && best != "" && best > 0) ratio = sprintf("%.2f", r[s] / best)
                    printf "%-10s %12s %12s %12s %14s\n", s, (s in r) ? r[s] : "-", (s in m) ? m[s] : "-", (s in o) ? o[s] : "-", ratio
                }
            }' "$work/rail.np$NP.$b" "$work/mpich.np$NP.$b" "$work/ompi.np$NP.$b"
    done
done
