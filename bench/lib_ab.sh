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
# A change of a few percent on the one-way: ROUNDS=300 bash bench/lib_ab.sh A B osu_latency -m 64
# (about 0.05 s a round), then B A the other way round, and read the whole-run lines at the end.
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
# Whole runs: each run's geometric mean over its sizes; per round the ratio of B's to A's, their
# geometric mean with a standard error (a change of 2-5% on a one-way needs 100-150 rounds: whole
# runs move about 15% from one to the next here). Then by placement (for times, lower is faster):
# runs within 1.3x of the fastest run are "fast", the rest "slow" (on this host a run lands in one or the other, 0.09 or
# 0.17-0.22 us one-way), so B/A compares like with like even when A and B land unevenly.
awk '$4 > 0 { k = $1 " " $2; s[k] += log($4); n[k]++ }
    END {
        for (k in s) { g[k] = exp(s[k] / n[k]); if (min == "" || g[k] < min) min = g[k] }
        for (k in s) {
            split(k, f, " ")
            c = (g[k] < 1.3 * min) ? "fast" : "slow"
            cs[c, f[2]] += log(g[k]); cn[c, f[2]]++
            if (f[2] == "A" && ((f[1] " B") in g)) { d = log(g[f[1] " B"] / g[k]); sd += d; sd2 += d * d; nd++ }
        }
        if (nd > 1) {
            m = sd / nd; se = sqrt((sd2 / nd - m * m) / (nd - 1))
            printf "# whole runs, B/A per round: %.3f (standard error %.3f, %d rounds)\n", exp(m), exp(m) * se, nd
        }
        for (ci = 1; ci <= 2; ci++) {
            c = ci == 1 ? "fast" : "slow"
            if (cn[c, "A"] && cn[c, "B"])
                printf "# %s runs: A %d, geo-mean %.4g; B %d, geo-mean %.4g; B/A %.3f\n", c, cn[c, "A"],
                    exp(cs[c, "A"] / cn[c, "A"]), cn[c, "B"], exp(cs[c, "B"] / cn[c, "B"]),
                    exp(cs[c, "B"] / cn[c, "B"] - cs[c, "A"] / cn[c, "A"])
            else if (cn[c, "A"] + cn[c, "B"])
                printf "# %s runs: A %d, B %d\n", c, cn[c, "A"], cn[c, "B"]
        }
    }' "$work/all"
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
