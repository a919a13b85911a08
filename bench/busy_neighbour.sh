#!/bin/bash
# busy_neighbour.sh [BUILD_DIR]: 2 ranks beside one busy program (a shell loop that never sleeps,
# so 3 runnable tasks share the 2 cores), for RailMPI as it runs by default (ranks bound to a
# core each), unbound (RAILMPI_BIND=none), unbound spinning 10 ms before a wait yields
# (RAILMPI_SPIN_TIME=10000), Debian's MPICH and Open MPI. Two measures:
#   lat  osu_latency, the mean of the sizes 0..SIZE (us a message, one way; waits seldom yield)
#   bw   osu_bw, the mean of 4..64 KiB (MB/s; a sender waiting for room or fins yields)
# Each round runs every implementation once while the same busy loop runs; prints one row per
# round and measure, and the medians. Nothing else should run meanwhile.
#   ROUNDS=N (default 5)  SIZE=8 (largest latency size)  MEASURES="lat bw"
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${ROUNDS:-5}
SIZE=${SIZE:-8}
MEASURES=${MEASURES:-lat bw}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_busy.XXXXXX")
busy=""
cleanup() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
. "$here/peers.sh"
peer_build "$here/osu_latency.c" osu_latency
peer_build "$here/osu_bw.c" osu_bw
impls="rail unbound unbound_spin"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
# one IMPL MEASURE -> the mean over the measure's sizes
one() {
    local cmd prog args filter
    case $2 in
    lat) prog=osu_latency args="-m $SIZE" filter='NF == 2' ;;
    bw) prog=osu_bw args="-m 65536" filter='NF == 2 && $1 >= 4096' ;;
    esac
    case $1 in
    rail) cmd="$build/bin/mpiexec -n 2 $build/bench/$prog" ;;
    unbound) cmd="$build/bin/mpiexec -n 2 -genv RAILMPI_BIND none $build/bench/$prog" ;;
    unbound_spin) cmd="$build/bin/mpiexec -n 2 -genv RAILMPI_BIND none -genv RAILMPI_SPIN_TIME 10000 $build/bench/$prog" ;;
    *) cmd="$(peer_launcher "$1" shm 2) $(peer_binary "$1" $prog)" ;;
    esac
    timeout -k 5 60 $cmd $args </dev/null 2>/dev/null |
        awk "!/^#/ && $filter"' { s += $2; n++ } END { if (n) printf "%.3f", s / n }'
}
echo "# busy_neighbour.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), one busy loop beside 2 ranks on $(nproc) cores"
sh -c 'while :; do :; done' &
busy=$!
printf '%-10s' round; for i in $impls; do printf '%13s' "$i"; done; echo
for r in $(seq 1 "$ROUNDS"); do
    for m in $MEASURES; do
        printf '%-10s' "$r $m"
        for i in $impls; do
            v=$(one "$i" "$m")
            echo "$v" >>"$work/$i.$m"
            printf '%13s' "${v:--}"
        done
        echo
    done
done
for m in $MEASURES; do
    printf '%-10s' "median $m"; for i in $impls; do printf '%13s' "$(median <"$work/$i.$m")"; done; echo
done
