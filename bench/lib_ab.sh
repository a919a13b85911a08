#!/bin/bash
# lib_ab.sh LIB_A LIB_B PROGRAM [ARGS...]: one OSU-style benchmark of this build against two
# copies of libmpi.so, interleaved: each round runs A once and B once (the binaries find the
# library through LD_LIBRARY_PATH, which their RUNPATH yields to), so a burst of load on this
# shared machine hits both. Prints each round's rows and, per size, the median of A, of B and B/A.
#   BUILD=DIR (default ../build)  NP=N ranks (default 2)  ROUNDS=N (default 5)
#   ENV_A / ENV_B: "NAME=VALUE ..." settings for A / B (LIB_B may equal LIB_A to compare settings)
#   PHASE=1: before each round, bench/handoff_bw (fresh data handed between the cores, 32 KiB), and
#   the summary again for the rounds at or above the median handoff and for those below (on the
#   2-vCPU AMD EPYC guest that figure moved 3-5x from one minute to the next, and ring copies with
#   it, while single copies did not: an A/B of the two reads differently in the two kinds of minute)
# Keep a copy of the library before a change (cp build/lib/libmpi.so.12* /tmp/lib_before/), rebuild,
# then: bash bench/lib_ab.sh /tmp/lib_before build/lib osu_latency -m 128
# Programs with positional arguments too: NP=8 bash bench/lib_ab.sh A B oversub_loop ring 5000
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: lib_ab.sh LIB_A LIB_B PROGRAM [ARGS...]" >&2; exit 2; }
lib_a=$(cd "$1" && pwd)
lib_b=$(cd "$2" && pwd)
prog=$3
shift 3
build=$(cd "${BUILD:-$here/../build}" && pwd)
NP=${NP:-2}
ROUNDS=${ROUNDS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_lib_ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$build/bench/$prog" ] || { echo "lib_ab.sh: $build/bench/$prog not built" >&2; exit 1; }
# run LIB ENV ARGS... -> "size value" lines of one run
run() {
    local lib=$1 settings=$2
    shift 2
    env LD_LIBRARY_PATH="$lib" $settings timeout -k 5 300 "$build/bin/mpiexec" -n "$NP" "$build/bench/$prog" "$@" </dev/null 2>/dev/null |
        grep -v '^#' | awk 'NF == 2'
}
echo "# lib_ab.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); $prog $*, $NP ranks"
echo "# A=$lib_a ${ENV_A:-}; B=$lib_b ${ENV_B:-}"
# Odd rounds run A first, even rounds B first: neither gains from going first.
for r in $(seq 1 "$ROUNDS"); do
    if [ "${PHASE:-0}" = 1 ]; then
        h=$("$build/bench/handoff_bw" 2>/dev/null | awk '$1 == "handoff_MBps" && $2 == 32768 { print $3 }')
        echo "$r ${h:-0}" >>"$work/phase"
        echo "# round $r: handoff_MBps 32768 ${h:-0}"
    fi
    order="A B"
    [ $((r % 2)) = 0 ] && order="B A"
    for w in $order; do
        if [ "$w" = A ]; then run "$lib_a" "${ENV_A:-}" "$@"; else run "$lib_b" "${ENV_B:-}" "$@"; fi |
            sed "s/^/$r $w /" | tee -a "$work/all"
    done
done
# summary FILE: per size, the medians of A and of B over the rounds in FILE, and B/A
summary() {
    awk '{ print $3 }' "$1" | sort -n -u | while read -r size; do
        med() { awk -v s="$size" -v w="$1" '$2 == w && $3 == s { print $4 }' "$2" | sort -g |
            awk '{ v[NR] = $1 } END { if (NR) print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
        a=$(med A "$1")
        b=$(med B "$1")
        awk -v s="$size" -v a="$a" -v b="$b" 'BEGIN { printf "%-10s %12s %12s %8s\n", s, a, b, (a > 0 ? sprintf("%.2f", b / a) : "-") }'
    done
}
echo "# size, median A, median B, B/A"
summary "$work/all"
if [ "${PHASE:-0}" = 1 ] && [ -s "$work/phase" ]; then
    cut -d' ' -f2 "$work/phase" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' >"$work/cut"
    for half in fast slow; do
        awk -v c="$(cat "$work/cut")" -v h=$half 'NR == FNR { if ((h == "fast") == ($2 + 0 >= c + 0)) keep[$1] = 1; next }
            keep[$1]' "$work/phase" "$work/all" >"$work/$half"
        [ -s "$work/$half" ] || continue
        echo "# rounds with handoff $( [ $half = fast ] && echo ">=" || echo "<" ) $(cat "$work/cut") MB/s ($(awk '{ print $1 }' "$work/$half" | sort -u | tr '\n' ' ')): size, median A, median B, B/A"
        summary "$work/$half"
    done
fi
