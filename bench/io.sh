#!/bin/bash
# io.sh [BUILD_DIR]: MPI-IO throughput (bench/osu_io) on RailMPI, Debian's MPICH (ROMIO) and Open
# MPI (OMPIO), interleaved: each round runs every implementation once per mode, so a burst of load
# on this shared machine hits them all. Prints per mode: size, the medians (MB/s of all ranks
# together) and RailMPI / best peer (> 1 is better).
#   ROUNDS=N (default 3)  NP=ranks (default 2)  MODES="contig_write contig_read strided_write strided_read"
#   MAX=bytes (default 4194304; strided modes stop at 65536)  BENCH_IO_DIR=folder of the file (/tmp)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${ROUNDS:-3}
NP=${NP:-2}
MODES=${MODES:-"contig_write contig_read strided_write strided_read"}
MAX=${MAX:-4194304}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_io.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$here/peers.sh"
peer_build "$here/osu_io.c" osu_io
impls="rail"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
echo "# io.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds; $NP ranks; $impls; files in ${BENCH_IO_DIR:-/tmp}"
for mode in $MODES; do
    max=$MAX
    case $mode in strided*) [ "$max" -gt 65536 ] && max=65536 ;; esac
    for r in $(seq 1 "$ROUNDS"); do
        for i in $impls; do
            timeout -k 5 300 $(peer_launcher "$i" shm "$NP") "$(peer_binary "$i" osu_io)" "$mode" -m "$max" </dev/null 2>/dev/null |
                awk 'NF == 2 && $1 !~ /^#/ { print $1, $2 }' >>"$work/$mode.$i"
        done
    done
    echo "## $mode (MB/s)"
    medians_table "$work/$mode" 1
done
