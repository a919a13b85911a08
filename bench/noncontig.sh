#!/bin/bash
# noncontig.sh [BUILD_DIR]: the vector-of-columns benchmark (bench/vector_columns.c) on RailMPI,
# Debian's MPICH and Open MPI, 2 ranks over shared memory and over tcp (loopback). Prints per
# column count: one-way time of the vector-datatype message and of pack-then-send, for each
# implementation, and the ratios RailMPI datatype / RailMPI pack and RailMPI datatype / best peer
# datatype (< 1 is better). Medians of RUNS rounds (default 3; each round runs every
# implementation once, interleaved). ROWS=256 matrix rows.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
RUNS=${RUNS:-3}
ROWS=${ROWS:-256}
TRANSPORTS=${TRANSPORTS:-"shm tcp"}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_noncontig.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$here/peers.sh"
[ -x "$build/bench/vector_columns" ] || { echo "noncontig.sh: $build/bench/vector_columns not built"; exit 1; }
peer_build "$here/vector_columns.c" vector_columns
impls="rail"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
echo "# noncontig.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), $RUNS run(s), $ROWS rows"
for tr in $TRANSPORTS; do
    # Rounds: every implementation runs once per round, so a noisy moment hits all of them.
    for impl in $impls; do : >"$work/$impl.all"; done
    for _ in $(seq 1 "$RUNS"); do
        for impl in $impls; do
            timeout -k 5 300 $(peer_launcher "$impl" "$tr" 2) "$(peer_binary "$impl" vector_columns)" -r "$ROWS" \
                </dev/null 2>>"$work/errors" | grep -v '^#' | awk 'NF == 4' >>"$work/$impl.all"
        done
    done
    for impl in $impls; do
        for col in 3 4; do
            awk '{ print $1 }' "$work/$impl.all" | sort -nu | while read -r n; do
                echo "$n $(awk -v n="$n" -v c=$col '$1 == n { print $c }' "$work/$impl.all" | median)"
            done >"$work/$impl.$col"
        done
    done
    echo
    echo "## vector of columns over $tr (one-way us, median of $RUNS; ratios < 1 are better)"
    echo "| columns | bytes | RailMPI datatype | RailMPI pack+send | MPICH datatype | MPICH pack | Open MPI datatype | Open MPI pack | Rail datatype / Rail pack | Rail datatype / best peer datatype |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for n in $(awk '{ print $1 }' "$work/rail.3"); do
        bytes=$((n * ROWS * 4))
        v() { awk -v n="$n" '$1 == n { print $2 }' "$work/$1" 2>/dev/null; }
        rd=$(v rail.3); rp=$(v rail.4); md=$(v mpich.3); mp=$(v mpich.4); od=$(v ompi.3); op=$(v ompi.4)
        awk -v n="$n" -v b="$bytes" -v rd="$rd" -v rp="$rp" -v md="$md" -v mp="$mp" -v od="$od" -v op="$op" 'BEGIN {
            best = md; if (od != "" && (best == "" || od + 0 < best + 0)) best = od
            r1 = rp > 0 ? sprintf("%.2f", rd / rp) : "-"
            r2 = best > 0 ? sprintf("%.2f", rd / best) : "-"
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", n, b, rd, rp, md, mp, od, op, r1, r2 }'
    done
done
if [ -s "$work/errors" ]; then echo; echo "(runs printed errors; first lines:)"; head -5 "$work/errors"; fi
