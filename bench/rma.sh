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
    printf '%-10s' size; for i in $impls; do printf '%12s' "$i"; done; printf '%12s\n' "rail/best"
    for size in $(awk '{ print $1 }' "$work/$mode.rail" | sort -n | uniq); do
        printf '%-10s' "$size"
        best=""
        for i in $impls; do
            v=$(awk -v s="$size" '$1 == s { print $2 }' "$work/$mode.$i" | median)
            printf '%12s' "${v:--}"
            eval "val_$i=\${v:-}"
            if [ "$i" != rail ] && [ -n "$v" ]; then
                if [ -z "$best" ]; then best=$v
                elif [ "$mode" = put_bw ]; then best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
                else best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b < a ? b : a) }'); fi
            fi
        done
        if [ -n "$best" ] && [ -n "${val_rail:-}" ]; then
            awk -v r="$val_rail" -v b="$best" 'BEGIN { printf "%12.2f\n", r / b }'
        else echo; fi
    done
done
