#!/bin/bash
# ring_hops.sh [BUILD]: bench/ring_hops (the ring of bench/oversub_loop, timed hop by hop) with
# RailMPI and with Open MPI, one after the other, ROUNDS times (default 3), on NP ranks (default
# 8: more ranks than this machine's cores, as the oversubscribed ring target). Prints each run's
# table. Arguments of ring_hops: ARGS="2000 10" (rounds of the ring, every how many a big one),
# BIG=bytes in the environment.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${ROUNDS:-3}
NP=${NP:-8}
ARGS=${ARGS:-"2000 10"}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_ring_hops.XXXXXX")
trap 'rm -rf "$work"' EXIT
have_mpich=0  # MPICH busy-polls: oversubscribed it takes minutes
. "$here/peers.sh"
[ -x "$build/bench/ring_hops" ] || { echo "ring_hops.sh: $build/bench/ring_hops not built" >&2; exit 1; }
peer_build "$here/ring_hops.c" ring_hops
impls="rail"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
echo "# ring_hops.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); $NP ranks, $(nproc) cores, ring_hops $ARGS"
for round in $(seq 1 "$ROUNDS"); do
    for impl in $impls; do
        echo "## round $round: $impl"
        # shellcheck disable=SC2086
        timeout -k 5 300 $(peer_launcher "$impl" shm "$NP") "$(peer_binary "$impl" ring_hops)" $ARGS </dev/null 2>&1
    done
done
