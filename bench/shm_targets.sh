#!/bin/bash
# shm_targets.sh [BUILD_DIR]: every target row of the shared-memory issue in one run, RailMPI next
# to Debian's MPICH 4.0.2 and Open MPI 4.1.4 (same benchmark sources) and the machine's limits
# measured by bench/limits. Prints one table: target, size, the three implementations, the limit,
# the ratio the target is about, the goal, and whether it is met.
#
#   RUNS=N        runs per point, median reported (default 3; the latency rows by placement want 7
#                 or more, so that each implementation has runs in both placements)
#   TLIMIT=S      time limit per run (default 120 s; MPICH oversubscribed can take minutes)
#   ONLY="lat bw coll oversub startup"   subset of the target groups
#   HC_PAIRS=N    pairs of runs with and without header caching (default 40)
# Ratios: latency/time rows RailMPI / best peer (< 1 is better); bandwidth rows RailMPI / best
# peer (> 1 is better) and RailMPI / limit.
# Each run of a point runs every implementation once, one after the other, so that the slow and
# fast phases of this shared machine (figures move 2-4x within minutes) hit all of them alike.
# The value columns are medians over the runs; a ratio to the best peer is the median over the
# runs of that run's ratio (RailMPI / the best peer of the same run).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
RUNS=${RUNS:-3}
TLIMIT=${TLIMIT:-120}
ONLY=${ONLY:-"lat bw coll oversub startup"}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_targets.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$here/peers.sh"
for b in osu_latency osu_bw osu_bibw osu_allreduce osu_bcast osu_barrier hello_rss oversub_loop idle_wait; do
    [ -x "$build/bench/$b" ] || { echo "shm_targets.sh: $build/bench/$b not built"; exit 1; }
    peer_build "$here/$b.c" "$b"
done
impls="rail"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
echo "# shm_targets.sh: $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), $RUNS run(s) per point" >&2

# run IMPL NP PROGRAM ARGS... -> stdout of one run ("" on failure or timeout). IMPL may also be
# RailMPI with settings: rail_nocache (RAILMPI_HEADER_CACHE=0), rail_noline
# (RAILMPI_SHM_PAIR_LINE=0), rail_noline_nocache (both), run within the same rounds as the rest.
# With RAIL_LOG=FILE, the runs of RailMPI's defaults (rail) get RAILMPI_VERBOSE=1 and their
# stderr (the ranks' end-of-job lines) is appended to FILE.
run() {
    local impl=$1 np=$2 prog=$3 settings="" err="$work/errors"
    shift 3
    if [ "$impl" = rail ] && [ -n "${RAIL_LOG:-}" ]; then settings="RAILMPI_VERBOSE=1"; err=$RAIL_LOG; fi
    case $impl in
        rail_nocache) impl=rail settings="RAILMPI_HEADER_CACHE=0" ;;
        rail_noline) impl=rail settings="RAILMPI_SHM_PAIR_LINE=0" ;;
        rail_noline_nocache) impl=rail settings="RAILMPI_SHM_PAIR_LINE=0 RAILMPI_HEADER_CACHE=0" ;;
    esac
    env $settings timeout -k 5 "$TLIMIT" $(peer_launcher "$impl" shm "$np") "$(peer_binary "$impl" "$prog")" "$@" \
        </dev/null 2>>"$err"
}
# points NP PROGRAM ARGS...: RUNS runs, each running every implementation once. Lines "key value"
# (size tables: key = size) go to $work/<impl>.<np>.<program>.<run>, the median per key to
# $work/<impl>.<np>.<program>.
points() {
    local np=$1 prog=$2 i n k
    shift 2
    for i in $impls; do : >"$work/$i.$np.$prog.all"; done
    for n in $(seq 1 "$RUNS"); do
        if [ -n "${RUN_HOOK_BEFORE:-}" ]; then "$RUN_HOOK_BEFORE" "$np.$prog.$n"; fi
        for i in $impls; do
            run "$i" "$np" "$prog" "$@" >"$work/raw"
            # osu_latency -P: "# placement_oneway_us BEFORE AFTER" -> <file>.placement
            awk '$2 == "placement_oneway_us" { print $3, $4 }' "$work/raw" >"$work/$i.$np.$prog.$n.placement"
            grep -v '^#' "$work/raw" | awk 'NF == 2' | tee "$work/$i.$np.$prog.$n" >>"$work/$i.$np.$prog.all"
        done
        if [ -n "${RUN_HOOK:-}" ]; then "$RUN_HOOK" "$np.$prog.$n"; fi
    done
    for i in $impls; do
        awk '{ print $1 }' "$work/$i.$np.$prog.all" | sort -u | while read -r k; do
            echo "$k $(awk -v k="$k" '$1 == k { print $2 }' "$work/$i.$np.$prog.all" | median)"
        done >"$work/$i.$np.$prog"
    done
}
value() { awk -v k="$2" '$1 == k { print $2 }' "$work/$1" 2>/dev/null; }
# The placement of each run of NAME's program (osu_latency -P; see bench_placement_probe in
# bench_common.h), classified once after its points: "fast" when both of its probes took at most
# 2.5x the fastest probe of all the program's runs (every implementation's), else "slow" (on the
# 2-vCPU AMD EPYC guest the fast placement's probes took 0.042-0.075 us, the slow one's
# 0.20-0.25). classify_placements NAME -> $work/<impl>.NAME.<n>.class for every run with probes;
# placement IMPL.NAME N -> its class ("" without probes).
classify_placements() {
    local fastest f
    fastest=$(cat "$work"/*."$1".*.placement 2>/dev/null | tr ' ' '\n' | awk '$1 > 0' | sort -g | head -1)
    [ -n "$fastest" ] || return 0
    for f in "$work"/*."$1".*.placement; do
        awk -v f="$fastest" 'NF == 2 { print ($1 > 0 && $2 > 0 && $1 <= 2.5 * f && $2 <= 2.5 * f) ? "fast" : "slow" }' \
            "$f" >"${f%.placement}.class"
    done
}
placement() { cat "$work/$1.$2.class" 2>/dev/null; }
# in_placement NAME KEY CLASS: the median of KEY over the runs of NAME in placement CLASS
in_placement() {
    local n
    for n in $(seq 1 "$RUNS"); do
        [ "$(placement "$1" "$n")" = "$3" ] && value "$1.$n" "$2"
    done | median
}
# runs_in NAME CLASS: how many runs of NAME had placement CLASS; probe_in NAME CLASS: the median
# of their probes
runs_in() {
    local n c=0
    for n in $(seq 1 "$RUNS"); do [ "$(placement "$1" "$n")" = "$2" ] && c=$((c + 1)); done
    echo "$c"
}
probe_in() {
    local n
    for n in $(seq 1 "$RUNS"); do
        [ "$(placement "$1" "$n")" = "$2" ] && tr ' ' '\n' <"$work/$1.$n.placement"
    done | median
}
# peer_ratio low|high NAME KEY: median over the runs of RailMPI's value / the best peer's value in
# the same run (NAME: <np>.<program> of points()).
peer_ratio() {
    local dir=$1 name=$2 key=$3 n
    for n in $(seq 1 "$RUNS"); do
        ratio "$(value "rail.$name.$n" "$key")" \
            "$(best_of "$dir" "$(value "mpich.$name.$n" "$key")" "$(value "ompi.$name.$n" "$key")")"
        echo
    done | awk 'NF' | median | awk '{ printf "%.2f", $1 }'
}

rows="$work/rows"
: >"$rows"
# row TARGET SIZE RAIL MPICH OMPI LIMIT RATIO GOAL MET
row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" >>"$rows"; }
best_of() {  # best_of low|high values... -> best non-empty
    local dir=$1 best=""
    shift
    for v in "$@"; do
        [ -n "$v" ] || continue
        if [ -z "$best" ] || awk -v a="$v" -v b="$best" -v d="$dir" 'BEGIN { exit !(d == "low" ? a < b : a > b) }'; then best=$v; fi
    done
    echo "$best"
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b }'; }
met() {  # met RATIO le|ge GOAL
    [ -n "$1" ] || { echo "-"; return; }
    awk -v r="$1" -v op="$2" -v g="$3" 'BEGIN { print ((op == "le" ? r <= g : r >= g) ? "yes" : "NO") }'
}
peer_values() {  # peer_values FILE-SUFFIX KEY -> "mpich ompi"
    echo "$(value "mpich.$1" "$2")" "$(value "ompi.$1" "$2")"
}

# The cache-line limits, one sample each: appended to $work/cacheline. The latency rows compare
# against the median of the samples taken before and between their runs (5): a single sample
# followed the host's placement of this machine's two CPUs, e.g. 0.022 us once (14:28 UTC
# 2026-11-26) against 0.065-0.080 before and after.
cacheline_sample() {
    "$build/bench/cacheline" >>"$work/cacheline" 2>/dev/null
    "$build/bench/cacheline" 300000 3 >>"$work/cacheline" 2>/dev/null
}
cacheline_hook() { cacheline_sample; }  # RUN_HOOK of points(): one sample after each run
cacheline_limits() {  # -> $cacheline and $two_line: medians of the samples so far
    cacheline=$(awk '/cacheline_oneway_us/ { print $2 }' "$work/cacheline" | median)
    # 64 B of payload and a header take two lines: the hand-over of such a message (no target)
    two_line=$(awk '/cacheline_two_line_message_oneway_us/ { print $2 }' "$work/cacheline" | median)
}
limits() {
    : >"$work/cacheline"
    cacheline_sample
    "$build/bench/copy_limit" >"$work/copy_limit" 2>/dev/null
}
limits
cacheline_limits
cma() { awk -v k="${2:-cma_MBps}" -v s="$1" '$1 == k && $2 == s { print $3 }' "$work/copy_limit"; }
# The single-copy limits again in each run of the bandwidth points, right before its programs
# and right after them (RUN_HOOK_BEFORE and RUN_HOOK of points()): the machine's phase moves the
# copy rates 1.5-2x within minutes (2 ranks, copy_limit cma_bidir_MBps 1 MiB 21.7-27.5 GB/s on one
# day; 16 MiB 17.2-20.9 within ten minutes on another), so a bandwidth row is compared with the
# limit of its own run: the mean of the two samples around it. (osu_bibw 16 MiB on 2026-12-07:
# 0.72-0.87 of the sample after the run in six tables, 0.82 of the mean of the two in one; run
# alone right between two samples, 1.00-1.11 of their mean 8 times at 15:55, and right after one,
# 0.76-0.96 3 times at 17:55: copy_limit keeps the best of 3 short bursts, osu_bibw's 13 windows
# of 1 GiB each way average over the minute's swings and wait for the slower rank at every window's
# end.)
# copy_sample NAME.N -> $work/copy_limit.NAME.N (after) or .NAME.N.before, with the handoff
# bandwidth of fresh data between the cores (handoff_bw: what every copy through a ring is bound
# by, and what swung 3-5x within minutes on the AMD EPYC guest).
copy_sample() {
    "$build/bench/copy_limit" >"$work/copy_limit.$1" 2>/dev/null
    "$build/bench/handoff_bw" >>"$work/copy_limit.$1" 2>/dev/null
}
copy_sample_before() { copy_sample "$1.before"; }
# run_limit NAME.N KEY SIZE [FACTOR]: (FACTOR x) the mean of run N's samples (before and after).
run_limit() {
    cat "$work/copy_limit.$1" "$work/copy_limit.$1.before" 2>/dev/null |
        awk -v k="$2" -v s="$3" -v f="${4:-1}" '$1 == k && $2 == s { t += $3; c++ } END { if (c) print f * t / c }'
}
# run_cma NAME KEY SIZE: the median of the runs' limits; cma_ratio NAME KEY SIZE [FACTOR]: the
# median over the runs of RailMPI's value / (FACTOR x) its run's limit.
run_cma() {
    local n
    for n in $(seq 1 "$RUNS"); do run_limit "$1.$n" "$2" "$3"; done | median
}
cma_ratio() {
    local n
    for n in $(seq 1 "$RUNS"); do
        ratio "$(value "rail.$1.$n" "$3")" "$(run_limit "$1.$n" "$2" "$3" "${4:-1}")"
        echo
    done | awk 'NF' | median | awk '{ printf "%.2f", $1 }'
}

if [[ " $ONLY " == *" lat "* ]]; then
    # The defaults, header caching off, the pair line off (with and without header caching) and
    # the peers, each once in every run, a cache-line sample after each run: run as blocks of
    # RUNS runs one setting after the other, the settings fell into different placements of the
    # two vCPUs (2026-12-06: a block with header caching off 0.09-0.10 us, the defaults' block
    # 0.115-0.124 next to it, where interleaved runs (bench/lib_ab.sh, 60 rounds) had the
    # defaults 0.088 against 0.095-0.104 without header caching).
    impls="rail rail_nocache rail_noline rail_noline_nocache ${impls#rail}" RUN_HOOK=cacheline_hook \
        points 2 osu_latency -m 64 -P
    classify_placements 2.osu_latency
    cacheline_limits
    for s in 0 1 2 4 8 16 32 64; do
        r=$(value rail.2.osu_latency $s); read -r m o <<<"$(peer_values 2.osu_latency $s)"
        q=$(peer_ratio low 2.osu_latency $s)
        row "latency 0-64 B vs best peer (us)" "$s" "$r" "$m" "$o" "$cacheline" "$q" "<= 0.6" "$(met "$q" le 0.6)"
        q=$(ratio "$r" "$cacheline")
        row "latency 0-64 B vs cache-line limit" "$s" "$r" "" "" "$cacheline" "$q" "<= 3" "$(met "$q" le 3)"
    done
    r=$(value rail.2.osu_latency 64)
    row "latency 64 B vs two-line message limit (us)" 64 "$r" "" "" "$two_line" "$(ratio "$r" "$two_line")" "-" "-"
    # The same rows within each placement of the two CPUs: the host moves this machine's two vCPUs
    # between placements whenever they go idle (bench/limits/cacheline 0.045-0.075 us a line or
    # 0.20-0.24 us, and every MPI's latency with it: RailMPI 0.07-0.10 or 0.16-0.18 us at 8 B,
    # Open MPI 0.11-0.15 or 0.36-0.43, 2026-12-02) and keeps it while they stay busy, so a run lands
    # in one, drawn anew at its start, and a run's ratio above may pair two placements. Each run
    # probed its placement (osu_latency -P: a line handed between the ranks before and after the
    # sizes); here the medians of the runs in the fast one and in the slow one, each against the
    # best peer's runs in the same placement and against the line of its own runs.
    for cls in fast slow; do
        what="runs in the $cls placement (RailMPI $(runs_in rail.2.osu_latency $cls)"
        [ "$have_mpich" = 1 ] && what="$what, MPICH $(runs_in mpich.2.osu_latency $cls)"
        [ "$have_ompi" = 1 ] && what="$what, Open MPI $(runs_in ompi.2.osu_latency $cls)"
        what="$what of $RUNS)"
        line=$(probe_in rail.2.osu_latency $cls)
        goal="<= 0.6"; lgoal="<= 3"
        [ $cls = slow ] && { goal="-"; lgoal="-"; }
        for s in 0 1 2 4 8 16 32 64; do
            r=$(in_placement rail.2.osu_latency $s $cls)
            m=$(in_placement mpich.2.osu_latency $s $cls); o=$(in_placement ompi.2.osu_latency $s $cls)
            q=$(ratio "$r" "$(best_of low "$m" "$o")")
            ok="-"; [ "$goal" != "-" ] && ok=$(met "$q" le 0.6)
            row "latency 0-64 B, $what, vs best peer (us)" "$s" "$r" "$m" "$o" "$line" "$q" "$goal" "$ok"
            q=$(ratio "$r" "$line")
            ok="-"; [ "$lgoal" != "-" ] && ok=$(met "$q" le 3)
            row "latency 0-64 B, $what, vs the line of its runs" "$s" "$r" "" "" "$line" "$q" "$lgoal" "$ok"
        done
    done
    # header caching: RailMPI with it (default) / RailMPI without it (RAILMPI_HEADER_CACHE=0), in
    # HC_PAIRS pairs of short runs (default 40, about 0.1 s a pair), one of each right after the
    # other, the order swapped every pair; the ratio is the median of the pairs' ratios, the value
    # columns the medians. The RUNS runs of the points above pair them too, but their few pairs
    # straddled the machine's phases: at e88ae5c, 5 runs gave with / without 1.17-1.25 at 0-8 B
    # (0.18-0.19 us against 0.15), where bench/lib_ab.sh's 60 interleaved pairs minutes later
    # gave 1.00-1.01.
    : >"$work/hc_pairs"
    for n in $(seq 1 "${HC_PAIRS:-40}"); do
        order="rail rail_nocache"; [ $((n % 2)) = 0 ] && order="rail_nocache rail"
        for i in $order; do run "$i" 2 osu_latency -m 32 | grep -v '^#' | awk 'NF == 2' >"$work/hc.$i"; done
        join <(sort "$work/hc.rail") <(sort "$work/hc.rail_nocache") >>"$work/hc_pairs"
    done
    # The issue asks for the gain to be measured at 0-8 B, and sets no figure. There a message
    # takes the one first line of the pair line with either header (a full 40-byte header and up
    # to 12 bytes fit its 52), so the same single line changes hands and the ratio is 1 within the
    # phase of the minute (0.93-0.98 in fast ones, 1.02-1.08 in slow ones, 2026-12-07): reported,
    # with no goal. From 16 B on the full header would need the second line and caching saves it:
    # there the goal is a gain.
    for s in 0 1 2 4 8 16 32; do
        goal="< 1"; [ "$s" -le 8 ] && goal="-"
        r=$(awk -v k=$s '$1 == k { print $2 }' "$work/hc_pairs" | median)
        n=$(awk -v k=$s '$1 == k { print $3 }' "$work/hc_pairs" | median)
        q=$(awk -v k=$s '$1 == k && $3 > 0 { print $2 / $3 }' "$work/hc_pairs" | median | awk '{ printf "%.2f", $1 }')
        ok="-"; [ "$goal" != "-" ] && ok=$(met "$q" le 0.999)
        row "header caching: latency with / without, ${HC_PAIRS:-40} pairs of runs (us; limit column: without)" "$s" "$r" "" "" "$n" "$q" "$goal" "$ok"
    done
    # the same with the pair line off (a full header and up to 12 bytes fit the line, so with it
    # on, 0-8 B take the line either way): the gain of header caching on the cell rings. For
    # reference (no goal): up to 8 B a message takes one 64-byte cell with either header (40 or 4
    # bytes and the cell's own 16), so the same one line changes hands and the ratio is 1 within
    # noise; from 16 B on the full header needs a second cell and caching saves it.
    for s in 0 1 2 4 8 16 32; do
        r=$(value rail_noline.2.osu_latency $s); n=$(value rail_noline_nocache.2.osu_latency $s)
        q=$(ratio "$r" "$n")
        row "header caching, pair line off: latency with / without (us; limit column: without)" "$s" "$r" "" "" "$n" "$q" "-" "-"
    done
    # the pair line: RailMPI with it (default) / without it (RAILMPI_SHM_PAIR_LINE=0)
    for s in 0 1 2 4 8 16 32 64; do
        r=$(value rail.2.osu_latency $s); n=$(value rail_noline.2.osu_latency $s)
        q=$(ratio "$r" "$n")
        row "pair line: latency with / without (us; limit column: without)" "$s" "$r" "" "" "$n" "$q" "-" "-"
    done
    # 4-64 KiB (no target; eager, the shared copy of a lone send above 8 KiB, rendezvous), 20
    # times the iterations: the first lap over a grown packet ring touches its pages once
    points 2 osu_latency -s 4096 -m 65536 -i 20
    for s in 4096 8192 16384 32768 65536; do
        r=$(value rail.2.osu_latency $s); read -r m o <<<"$(peer_values 2.osu_latency $s)"
        row "latency 4-64 KiB vs best peer (us)" "$s" "$r" "$m" "$o" "" "$(peer_ratio low 2.osu_latency $s)" "-" "-"
    done
fi

if [[ " $ONLY " == *" bw "* ]]; then
    : >"$work/bibw_log"
    for b in osu_bw osu_bibw; do
        log=""; [ $b = osu_bibw ] && log="$work/bibw_log"
        RAIL_LOG=$log RUN_HOOK_BEFORE=copy_sample_before RUN_HOOK=copy_sample points 2 $b -s 4096 -m 16777216
        for s in 4096 8192 16384 32768 65536; do
            r=$(value rail.2.$b $s); read -r m o <<<"$(peer_values 2.$b $s)"
            q=$(peer_ratio high 2.$b $s)
            row "$b 4-64 KiB vs best peer (MB/s)" "$s" "$r" "$m" "$o" "" "$q" ">= 1.3" "$(met "$q" ge 1.3)"
        done
        # for reference (no goal): the runs' handoff of fresh 32 KiB blocks between the cores
        row "$b runs: fresh-data handoff between the cores (MB/s)" 32768 "" "" "" \
            "$(run_cma 2.$b handoff_MBps 32768)" "-" "-" "-"
        if [ $b = osu_bw ]; then
            # for reference (no goal): osu_bw's shape without an MPI (handoff_bw's windows of 64
            # blocks through a 4 MiB ring), the consumer copying forward (4 KiB ran at a quarter of
            # its 8 KiB in some minutes) and from each block's end down (as RailMPI's receivers do)
            for key in handoff_window_MBps handoff_window_down_MBps; do
                for s in 4096 8192; do
                    r=$(value rail.2.$b $s); read -r m o <<<"$(peer_values 2.$b $s)"
                    how=forward; [ $key = handoff_window_down_MBps ] && how=downwards
                    row "$b vs a bare window of blocks handed between the cores, copied $how (MB/s)" "$s" \
                        "$r" "$m" "$o" "$(run_cma 2.$b $key $s)" "$(cma_ratio 2.$b $key $s)" "-" "-"
                done
            done
        fi
        if [ $b = osu_bibw ]; then
            # for reference (no goal): the way messages both ways took at the end of each run
            # (the shm device's choice between its rings and single copies, RAILMPI_SHM_BOTH_WAYS_RINGS
            # empty: rank 0's end-of-job line) and how often it changed during the run; osu_bibw
            # 4-64 KiB moved 1.1-3x from one table to the next
            ways=$(sed -n 's/.*rank 0\]: shm: both ways.*: the \(rings\|single copies\) now (\([0-9]*\) switches).*/\1:\2/p' \
                "$work/bibw_log" | awk -F: '{ n[$1]++; sw = sw (sw == "" ? "" : " ") $2 }
                    END { for (k in n) out = out (out == "" ? "" : ", ") n[k] " ended on " k; if (out != "") print out "; switches " sw }')
            row "$b runs: the way both ways at each run's end (rank 0)" "-" "${ways:-none logged}" "" "" "" "-" "-" "-"
            # for reference (no goal): where 64 KiB both ways stands against two single copies
            # at once, the way every implementation here moves it (Open MPI's vader: CMA)
            r=$(value rail.2.$b 65536); read -r m o <<<"$(peer_values 2.$b 65536)"
            row "$b 64 KiB vs two concurrent single copies (MB/s)" 65536 "$r" "$m" "$o" \
                "$(run_cma 2.$b cma_bidir_MBps 65536)" "$(cma_ratio 2.$b cma_bidir_MBps 65536)" "-" "-"
        fi
        for s in 1048576 4194304 16777216; do
            r=$(value rail.2.$b $s); read -r m o <<<"$(peer_values 2.$b $s)"
            # the limit column: the median of the runs' samples; the ratio: the median over the
            # runs of each run's ratio to its own sample
            if [ $b = osu_bw ]; then
                lim=$(run_cma 2.$b cma_MBps $s)
                q=$(cma_ratio 2.$b cma_MBps $s)
                row "$b >= 1 MiB vs single-copy limit (MB/s)" "$s" "$r" "$m" "$o" "$lim" "$q" ">= 0.95" "$(met "$q" ge 0.95)"
            else
                # both directions at once: the limit is two single copies running at the same
                # time on the two cores (copy_limit's cma_bidir_MBps), which share the caches
                # and memory; twice one copy alone, for reference (no goal)
                lim=$(run_cma 2.$b cma_bidir_MBps $s)
                q=$(cma_ratio 2.$b cma_bidir_MBps $s)
                row "$b >= 1 MiB vs two concurrent single copies (MB/s)" "$s" "$r" "$m" "$o" "$lim" "$q" ">= 0.95" "$(met "$q" ge 0.95)"
                lim=$(run_cma 2.$b cma_MBps $s)
                [ -n "$lim" ] && lim=$(awk -v l="$lim" 'BEGIN { print 2 * l }')
                row "$b >= 1 MiB vs twice one single copy alone (MB/s)" "$s" "$r" "$m" "$o" "$lim" "$(cma_ratio 2.$b cma_MBps $s 2)" "-" "-"
            fi
        done
    done
fi

if [[ " $ONLY " == *" coll "* ]]; then
    for np in 2 4; do
        for b in osu_allreduce osu_bcast osu_barrier; do
            points $np $b -m 65536
            sizes="8 64 512 4096 65536"
            [ $b = osu_barrier ] && sizes=0
            for s in $sizes; do
                r=$(value rail.$np.$b $s); read -r m o <<<"$(peer_values $np.$b $s)"
                q=$(peer_ratio low $np.$b $s)
                row "${b#osu_} $np ranks vs best peer (us)" "$s" "$r" "$m" "$o" "" "$q" "<= 0.8" "$(met "$q" le 0.8)"
            done
        done
    done
fi

# The ring's limit, sampled in each run of the ring right after its programs (RUN_HOOK of
# points()): 1000 rounds of 8 hops between bare processes with the ring's payload (every 10th
# round 64 KiB copied by each receiver), and without, the fastest way to wait that
# bench/limits/token_ring knows, with what one switch between two processes on a CPU costs (every
# hop pays one somewhere). The machine's phase moves them 2-3x within minutes (a futex switch
# 2.7-3.1 us, the fastest way 1.8-3.0 us a hop, the yield ways fastest in one minute and the futex
# ways in the next), so each run's ring is compared with its own sample.
# token_ring_sample NAME.N -> $work/token_ring.NAME.N
token_ring_sample() { "$build/bench/token_ring" >"$work/token_ring.$1" 2>/dev/null; }
# ring_limit KEY: the median of KEY over the runs' samples; ring_ratio IMPL KEY [FACTOR]: the median
# over the runs of (FACTOR x) IMPL's ring / its run's KEY (FACTOR 0.5 and IMPL the best peer: the
# goal's time against the limit; under 1, the goal is faster than bare processes can pass the token)
ring_limit() {
    local n
    for n in $(seq 1 "$RUNS"); do value "token_ring.8.oversub_loop.$n" "$1"; done | median
}
ring_ratio() {
    local n v lim
    for n in $(seq 1 "$RUNS"); do
        lim=$(value "token_ring.8.oversub_loop.$n" "$2")
        if [ "$1" = peer ]; then
            v=$(best_of low "$(value "mpich.8.oversub_loop.$n" ring_s)" "$(value "ompi.8.oversub_loop.$n" ring_s)")
        else
            v=$(value "$1.8.oversub_loop.$n" ring_s)
        fi
        [ -n "$v" ] && ratio "$(awk -v a="$v" -v f="${3:-1}" 'BEGIN { print f * a }')" "$lim"
        echo
    done | awk 'NF' | median | awk '{ printf "%.2f", $1 }'
}
if [[ " $ONLY " == *" oversub "* ]]; then
    for mode in allreduce ring; do
        hook=""
        [ $mode = ring ] && hook=token_ring_sample
        RUN_HOOK=$hook points 8 oversub_loop $mode 1000
        r=$(value rail.8.oversub_loop ${mode}_s); m=$(value mpich.8.oversub_loop ${mode}_s)
        o=$(value ompi.8.oversub_loop ${mode}_s)
        [ -z "$m" ] && [ "$have_mpich" = 1 ] && m="timeout"
        q=$(peer_ratio low 8.oversub_loop ${mode}_s)
        lim=""
        [ $mode = ring ] && lim=$(ring_limit token_ring_payload_best_s_per_1000_rounds)
        row "8 ranks on $(nproc) cores: 1000 x $mode (s)" "8" "$r" "$m" "$o" "$lim" "$q" "<= 0.5" "$(met "$q" le 0.5)"
        [ $mode = ring ] && [ -n "$lim" ] || continue
        lim0=$(ring_limit token_ring_best_s_per_1000_rounds)
        row "8 ranks on $(nproc) cores: 1000 x ring vs a bare token ring with its payload, each run's own (s)" "8" "$r" "$m" "$o" "$lim" "$(ring_ratio rail token_ring_payload_best_s_per_1000_rounds)" "-" "-"
        row "8 ranks on $(nproc) cores: 1000 x ring vs a bare token ring, no payload, each run's own (s)" "8" "$r" "$m" "$o" "$lim0" "$(ring_ratio rail token_ring_best_s_per_1000_rounds)" "-" "-"
        row "8 ranks on $(nproc) cores: the ring goal's time (0.5 x the best peer) vs a bare token ring with its payload, each run's own (s)" "8" "" "" "" "$lim" "$(ring_ratio peer token_ring_payload_best_s_per_1000_rounds 0.5)" "-" "-"
        for k in syscall switch_yield switch_futex; do
            row "8 ranks on $(nproc) cores: bare token ring's $k (us; limit column: median of the runs' samples)" "-" "" "" "" "$(ring_limit token_ring_${k}_us)" "-" "-" "-"
        done
    done
    for i in $impls; do run "$i" 8 idle_wait 2 | awk '$1 == "wait_cpu_fraction" { print $2 }' >"$work/$i.idle"; done
    r=$(cat "$work/rail.idle"); m=$(cat "$work/mpich.idle" 2>/dev/null); o=$(cat "$work/ompi.idle" 2>/dev/null)
    row "8 ranks: CPU share of a rank waiting 2 s in MPI_Recv" "-" "$r" "$m" "$o" "" "$r" "near 0" "$(met "$r" le 0.1)"
fi

if [[ " $ONLY " == *" startup "* ]]; then
    for i in $impls; do : >"$work/$i.start.all"; : >"$work/$i.rss.all"; done
    for _ in $(seq 1 $((RUNS + 2))); do
        for i in $impls; do
            # Only the job is timed (and the time limit's wrapper): the command is put together
            # first and bash's clock read, where run()'s command substitutions and a date process
            # at each end added 10-15 ms to every implementation's figure.
            local_launcher=$(peer_launcher "$i" shm 2)
            local_binary=$(peer_binary "$i" hello_rss)
            t0=$EPOCHREALTIME
            timeout -k 5 "$TLIMIT" $local_launcher "$local_binary" </dev/null 2>>"$work/errors" >"$work/$i.hello"
            t1=$EPOCHREALTIME
            awk '$1 == "rss_kib_max" { print $2 }' "$work/$i.hello" >>"$work/$i.rss.all"
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d\n", (b - a) * 1000 }' >>"$work/$i.start.all"
        done
    done
    for i in $impls; do
        median <"$work/$i.start.all" >"$work/$i.start"
        median <"$work/$i.rss.all" | awk '{ printf "%.1f\n", $1 / 1024 }' >"$work/$i.rss"
    done
    r=$(cat "$work/rail.start"); m=$(cat "$work/mpich.start" 2>/dev/null); o=$(cat "$work/ompi.start" 2>/dev/null)
    row "start-up, 2-rank hello, whole job (ms)" "-" "$r" "$m" "$o" "" "$(ratio "$r" "$(best_of low "$m" "$o")")" "<= 30 ms" "$(met "$r" le 30)"
    r=$(cat "$work/rail.rss"); m=$(cat "$work/mpich.rss" 2>/dev/null); o=$(cat "$work/ompi.rss" 2>/dev/null)
    row "peak RSS per rank, hello (MB)" "-" "$r" "$m" "$o" "" "$(ratio "$r" "$(best_of low "$m" "$o")")" "<= 6 MB" "$(met "$r" le 6)"
fi

echo "| target | size (B) / ranks | RailMPI | MPICH | Open MPI | limit | ratio | goal | met |"
echo "|---|---|---|---|---|---|---|---|---|"
cat "$rows"
if [ -s "$work/errors" ]; then
    echo
    echo "(failed or timed-out runs left messages; first lines:)"
    head -5 "$work/errors"
fi
