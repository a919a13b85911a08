#!/bin/bash
# oversub_ab.sh BUILD_A [BUILD_B]: the oversubscribed targets (bench/oversub_loop ring and
# allreduce, 8 ranks) for two RailMPI builds and Open MPI, interleaved: each round runs every
# implementation once, so a burst of load on this shared machine hits them all. Prints one row
# per round (values of one row are comparable) and the medians.
#   ROUNDS=N (default 9)  MODES="ring allreduce"  NP=8  ITERS=1000
#   ENV_A / ENV_B: "NAME=VALUE ..." settings for build A / B (e.g. ENV_B="RAILMPI_SPIN_COUNT=0")
#   BUSY=N (default 0): N busy loops (shell loops that never sleep) run beside every round
# BUILD_B may equal BUILD_A to compare settings. A build's bench/oversub_loop runs with that
# build's mpiexec and libraries.
set -u
here=$(cd "$(dirname "$0")" && pwd)
a=$(cd "$1" && pwd)
b=$(cd "${2:-$1}" && pwd)
ROUNDS=${ROUNDS:-9}
MODES=${MODES:-"ring allreduce"}
NP=${NP:-8}
ITERS=${ITERS:-1000}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_ab.XXXXXX")
busy=""
cleanup() { [ -n "$busy" ] && kill $busy 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
build=$a
. "$here/peers.sh"
have_mpich=0  # MPICH busy-polls: oversubscribed it takes minutes
peer_build "$here/oversub_loop.c" oversub_loop
genv() { for kv in $1; do printf -- '-genv %s %s ' "${kv%%=*}" "${kv#*=}"; done; }
# one IMPL MODE -> seconds
one() {
    case $1 in
    A) timeout -k 5 120 "$a/bin/mpiexec" -n "$NP" $(genv "${ENV_A:-}") "$a/bench/oversub_loop" "$2" "$ITERS" ;;
    B) timeout -k 5 120 "$b/bin/mpiexec" -n "$NP" $(genv "${ENV_B:-}") "$b/bench/oversub_loop" "$2" "$ITERS" ;;
    ompi) timeout -k 5 120 $(peer_launcher ompi shm "$NP") "$(peer_binary ompi oversub_loop)" "$2" "$ITERS" ;;
    esac </dev/null 2>/dev/null | awk -v k="$2_s" '$1 == k { print $2 }'
}
impls="A B"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
echo "# oversub_ab.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); A=$a ${ENV_A:-}; B=$b ${ENV_B:-}; ${BUSY:-0} busy loops"
for _ in $(seq 1 "${BUSY:-0}"); do
    sh -c 'while :; do :; done' &
    busy="$busy $!"
done
for mode in $MODES; do
    echo "## $mode, $NP ranks on $(nproc) cores, $ITERS iterations (s)"
    printf '%-6s' round; for i in $impls; do printf '%10s' "$i"; done; echo
    for r in $(seq 1 "$ROUNDS"); do
        printf '%-6s' "$r"
        for i in $impls; do v=$(one "$i" "$mode"); echo "$v" >>"$work/$mode.$i"; printf '%10s' "${v:--}"; done
        echo
    done
    printf '%-6s' median; for i in $impls; do printf '%10s' "$(median <"$work/$mode.$i")"; done; echo
done
