#!/bin/bash
# busy_neighbour.sh [BUILD_DIR]: 2-rank osu_latency (0-8 B) beside one busy program (a shell loop
# that never sleeps, so 3 runnable tasks share the 2 cores), for RailMPI as it runs by default
# (ranks bound to a core each), unbound (RAILMPI_BIND=none), unbound spinning 10 ms before a
# wait yields (RAILMPI_SPIN_TIME=10000), Debian's MPICH and Open MPI. Each round runs every implementation once while the same busy loop runs; prints
# one row per round and the medians (us a message, one way). Nothing else should run meanwhile.
#   ROUNDS=N (default 5)  SIZE=8 (largest size)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${ROUNDS:-5}
SIZE=${SIZE:-8}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_busy.XXXXXX")
busy=""
cleanup() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
. "$here/peers.sh"
peer_build "$here/osu_latency.c" osu_latency
impls="rail unbound unbound_spin"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
# one IMPL -> the mean latency over the sizes 0..SIZE
one() {
    local cmd
    case $1 in
    rail) cmd="$build/bin/mpiexec -n 2 $build/bench/osu_latency" ;;
    unbound) cmd="$build/bin/mpiexec -n 2 -genv RAILMPI_BIND none $build/bench/osu_latency" ;;
    unbound_spin) cmd="$build/bin/mpiexec -n 2 -genv RAILMPI_BIND none -genv RAILMPI_SPIN_TIME 10000 $build/bench/osu_latency" ;;
    *) cmd="$(peer_launcher "$1" shm 2) $(peer_binary "$1" osu_latency)" ;;
    esac
    timeout -k 5 60 $cmd -m "$SIZE" </dev/null 2>/dev/null | awk '!/^#/ && NF == 2 { s += $2; n++ } END { if (n) printf "%.3f", s / n }'
}
echo "# busy_neighbour.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), one busy loop beside 2 ranks on $(nproc) cores"
sh -c 'while :; do :; done' &
busy=$!
printf '%-6s' round; for i in $impls; do printf '%13s' "$i"; done; echo
for r in $(seq 1 "$ROUNDS"); do
    printf '%-6s' "$r"
    for i in $impls; do
        v=$(one "$i")
        echo "$v" >>"$work/$i"
        printf '%13s' "${v:--}"
    done
    echo
done
printf '%-6s' median; for i in $impls; do printf '%13s' "$(median <"$work/$i")"; done; echo
