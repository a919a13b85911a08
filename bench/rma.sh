#!/bin/bash
# rma.sh [BUILD_DIR]: one-sided communication (bench/osu_rma) with 2 ranks over shared memory on
# RailMPI, Debian's MPICH and Open MPI, interleaved: each round runs every implementation once per
# mode, so a burst of load on this shared machine hits them all. Prints per mode: size, the
# medians, and RailMPI / best peer (latency: < 1 is better; put_bw: > 1 is better).
#   ROUNDS=N (default 3)  MODES="put_lat get_lat acc_lat fop_lat put_bw fence"  MAX=bytes (65536)
#   BENCH_WIN_CREATE=1: windows over the program's memory (MPI_Win_create) instead of MPI_Win_allocate
# Peers as bench/peers.sh starts them (Open MPI: Debian's default one-sided component).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${ROUNDS:-3}
MODES=${MODES:-"put_lat get_lat acc_lat fop_lat put_bw fence"}
MAX=${MAX:-65536}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_rma.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$here/peers.sh"
peer_build "$here/osu_rma.c" osu_rma
impls="rail"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
export BENCH_WIN_CREATE=${BENCH_WIN_CREATE:-0}
echo "# rma.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds; $impls; BENCH_WIN_CREATE=$BENCH_WIN_CREATE"
for mode in $MODES; do
    for r in $(seq 1 "$ROUNDS"); do
        for i in $impls; do
            timeout -k 5 120 $(peer_launcher "$i" shm 2) "$(peer_binary "$i" osu_rma)" "$mode" -m "$MAX" </dev/null 2>/dev/null |
                awk 'NF == 2 && $1 !~ /^#/ { print $1, $2 }' >>"$work/$mode.$i"
        done
    done
    echo "## $mode ($( [ "$mode" = put_bw ] && echo MB/s || echo us ))"
    medians_table "$work/$mode" "$( [ "$mode" = put_bw ] && echo 1 || echo 0 )"
done
