#!/bin/sh
# rail_stats.sh MPIEXEC PROGRAM [ARGS...]
# Runs PROGRAM on 2 ranks over tcp with two loopback rails and RAILMPI_RAIL_STATS=1, once with
# the striping policy and once with binding, and checks the per-channel summary each rank prints
# on stderr: with striping every rank sent striped parts on both channels; with binding every
# rank sent frames on exactly one channel. Prints "PASS rail_stats" when both hold.
set -u
mpiexec=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM

run() {  # POLICY PROGRAM [ARGS...]
    policy=$1
    shift
    "$mpiexec" --timeout 60 -n 2 -genv RAILMPI_DEVICES tcp -genv RAILMPI_TCP_RAILS 127.0.0.1,127.0.0.2 \
        -genv RAILMPI_RAIL_POLICY "$policy" -genv RAILMPI_RAIL_STATS 1 "$@" >"$out" 2>&1
}

# Lines: "RailMPI rails: rank R channel C (...): frames F bytes B parts P failures X rate ..."
# Prints, per rank, how many channels carried frames and how many carried parts.
count() {
    grep '^RailMPI rails: rank' "$out" | awk '{
        rank = $4; f = 0; p = 0
        for (i = 1; i <= NF; i++) { if ($i == "frames") f = $(i + 1); if ($i == "parts") p = $(i + 1) }
        lines[rank]++
        if (f > 0) used[rank]++
        if (p > 0) striped[rank]++
    } END { for (r in lines) printf "rank %s lines %d used %d striped %d\n", r, lines[r], used[r] + 0, striped[r] + 0 }' | sort
}

check() {  # POLICY WANTED-COUNTS WHAT-WENT-WRONG PROGRAM [ARGS...]
    policy=$1 want=$2 wrong=$3
    shift 3
    if ! run "$policy" "$@"; then cat "$out"; echo "FAIL [rank -] $policy run failed"; exit 1; fi
    cat "$out"
    got=$(count)
    echo "$policy: $got"
    [ "$got" = "$want" ] || { echo "FAIL [rank -] $policy $wrong"; exit 1; }
}

check striping "rank 0 lines 2 used 2 striped 2
rank 1 lines 2 used 2 striped 2" "did not use both rails for parts" "$@"
check binding "rank 0 lines 2 used 1 striped 0
rank 1 lines 2 used 1 striped 0" "used more than one rail" "$@"
echo "PASS rail_stats"
