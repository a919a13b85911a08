#!/bin/bash
# rails.sh [BUILD_DIR]: multi-rail TCP benchmark on two hosts made of network namespaces.
#
# Builds 2 hosts x 2 rails with tools/testhosts/railmpi-testhosts, shapes every rail to RATE
# (default 1gbit = 125 MB/s line rate), then in one run:
#   1. bandwidth (osu_bw non-blocking and -b blocking), bi-directional bandwidth (osu_bibw),
#      4 KiB .. 16 MiB, and 8 B latency (osu_latency): RailMPI on one rail, RailMPI on two rails
#      under every policy, Open MPI 4.1.4 (TCP BTL) on one and on two rails;
#   latency: small-message latency (osu_latency 0..64 B), one rail and two rails under every
#      policy, LAT_ROUNDS rounds interleaved (the configurations take turns, so a noisy moment
#      hits all of them), medians and the ratio two rails / one rail (target <= 1.05);
#   2. failover: osu_bw_timeline streams 1 MiB messages (rank 0 on host 0 to rank 1 on host 1)
#      for DURATION s while rail1 of host CUT_HOST is cut at CUT_AT s and restored at
#      RESTORE_AT s, RailMPI (two rails, default policy) and Open MPI;
#      prints when throughput recovered and draws both runs in one PNG (gnuplot).
# Prints tables with ratios: two rails / one rail, RailMPI / Open MPI (bandwidth: > 1 is better).
#
#   RATE=1gbit    per-rail shaping ("none": unshaped veth)
#   POLICIES="binding round-robin striping epc"
#   MAXSZ=16777216 MINSZ=4096
#   DURATION=16 CUT_AT=4 RESTORE_AT=10   failover run (seconds)
#   CUT_HOST=0                            host whose end of rail1 is cut (0 sender, 1 receiver)
#   CUT_HOW=link                          link: that host's interface set down (a link event on
#                                         that host); switch: its switch port taken off the
#                                         bridge (no host sees a link event: the stall timeout)
#   OUT=bench/results                     where the PNG and raw data go
#   SKIP_OMPI=1                           RailMPI only
#   QUICK=1                               fewer iterations, sizes up to 4 MiB
#   LAT_ROUNDS=9                          rounds of the latency part
#   PARTS="tables latency failover"       which parts to run
# Needs root (network namespaces); installs gnuplot-nox if missing (for the plot only).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
RATE=${RATE:-1gbit}
POLICIES=${POLICIES:-"binding round-robin striping epc"}
MINSZ=${MINSZ:-4096}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then MAXSZ=${MAXSZ:-4194304}; ITER="-q"; else MAXSZ=${MAXSZ:-16777216}; ITER=""; fi
DURATION=${DURATION:-16}
CUT_AT=${CUT_AT:-4}
RESTORE_AT=${RESTORE_AT:-10}
CUT_HOST=${CUT_HOST:-0}
CUT_HOW=${CUT_HOW:-link}
OUT=${OUT:-$root/bench/results}
SKIP_OMPI=${SKIP_OMPI:-0}
PARTS=${PARTS:-"tables latency failover"}
LAT_ROUNDS=${LAT_ROUNDS:-9}
P=${RAILS_PREFIX:-rbench}  # test-host names (two runs at once need different prefixes)
tool=$build/bin/railmpi-testhosts
[ -x "$tool" ] || tool=$root/tools/testhosts/railmpi-testhosts
mpiexec=$build/bin/mpiexec

if [ "$(id -u)" != 0 ]; then echo "rails.sh: needs root (network namespaces)"; exit 1; fi
for b in osu_bw osu_bibw osu_latency osu_bw_timeline; do
  [ -x "$build/bench/$b" ] || { echo "rails.sh: $build/bench/$b not built"; exit 1; }
done
mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_rails.XXXXXX")
cleanup() { "$tool" down $P >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$tool" down $P >/dev/null 2>&1
"$tool" up $P 2 2 || { echo "rails.sh: cannot create the test hosts"; exit 1; }
if [ "$RATE" != none ]; then
  for r in 0 1; do "$tool" shape $P $r "$RATE" || exit 1; done
fi
h0=${P}h0
h1=${P}h1
subnet0=$("$tool" exec $P 0 ip -4 -o addr show dev rail0 | awk '{print $4}' | sed 's/\.[0-9]*\//.0\//')

# ---- runners: each prints "size value" lines ----
rail_run() {  # rail_run RAILS POLICY PROGRAM ARGS...
  local rails=$1 policy=$2; shift 2
  timeout 600 "$mpiexec" --launcher netns -hosts $h0,$h1 -ppn 1 -n 2 \
    -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_RAIL_POLICY "$policy" "$@" 2>"$work/err" |
    grep -v '^#' | awk 'NF>=2 {print $1, $2}'
}
ompi_ok=0
if [ "$SKIP_OMPI" != 1 ] && command -v mpicc.openmpi >/dev/null; then
  ompi_ok=1
  for b in osu_bw osu_bibw osu_latency osu_bw_timeline; do
    mpicc.openmpi -O2 -o "$work/$b.ompi" "$here/$b.c" || ompi_ok=0
  done
  printf '%s slots=1\n%s slots=1\n' $h0 $h1 >"$work/hosts"
fi
ompi_run() {  # ompi_run IFACES PROGRAM ARGS...  (Open MPI's mpirun in host 0, orted in host 1 via the agent)
  local ifs=$1 prog=$2; shift 2
  timeout 600 ip netns exec $h0 unshare --uts /bin/sh -c "hostname $h0; exec mpirun.openmpi \
    --allow-run-as-root --oversubscribe --hostfile $work/hosts -np 2 --map-by node \
    --mca plm_rsh_agent $here/rails/netns_agent.sh --mca oob_tcp_if_include $subnet0 \
    --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include $ifs $work/$prog.ompi $*" 2>"$work/err" |
    grep -v '^#' | awk 'NF>=2 {print $1, $2}'
}

# ---- 1. bandwidth and latency tables ----
configs="rail1"
for p in $POLICIES; do configs="$configs $p"; done
[ $ompi_ok = 1 ] && configs="$configs ompi1 ompi2"

measure() {  # measure CONFIG PROGRAM ARGS... > file
  local c=$1; shift
  case $c in
    rail1) rail_run rail0 binding "$build/bench/$1" "${@:2}" ;;
    ompi1) ompi_run rail0 "$@" ;;
    ompi2) ompi_run rail0,rail1 "$@" ;;
    *) rail_run rail0,rail1 "$c" "$build/bench/$1" "${@:2}" ;;
  esac
}

table() {  # table TITLE UNIT FILE-PREFIX
  local title=$1 unit=$2 pre=$3
  echo
  echo "## $title ($unit; RATE=$RATE per rail)"
  local hdr="| size | 1 rail"
  for p in $POLICIES; do hdr="$hdr | 2 rails $p"; done
  [ $ompi_ok = 1 ] && hdr="$hdr | OMPI 1 rail | OMPI 2 rails | best 2-rail / 1 rail | best 2-rail / OMPI 2 rails"
  [ $ompi_ok = 1 ] || hdr="$hdr | best 2-rail / 1 rail"
  echo "$hdr |"
  echo "$hdr |" | sed 's/[^|]\+|/---|/g'
  awk -v pols="$POLICIES" -v ompi=$ompi_ok -v unit="$unit" '
    FNR==1 { f++ }
    { v[f, $1] = $2; if (f == 1) order[n++] = $1 }
    END {
      np = split(pols, pl, " ")
      for (i = 0; i < n; i++) {
        s = order[i]; line = "| " s " | " v[1, s]; best = ""
        for (k = 1; k <= np; k++) {
          x = v[k + 1, s]; line = line " | " x
          if (x != "" && (best == "" || (unit == "us" ? x + 0 < best + 0 : x + 0 > best + 0))) best = x
        }
        r1 = (v[1, s] > 0 && best != "") ? sprintf("%.2f", best / v[1, s]) : "-"
        if (ompi) {
          o1 = v[np + 2, s]; o2 = v[np + 3, s]
          ro = (o2 > 0 && best != "") ? sprintf("%.2f", best / o2) : "-"
          line = line " | " o1 " | " o2 " | " r1 " | " ro
        } else line = line " | " r1
        print line " |"
      }
    }' $(for c in $configs; do echo "$work/$pre.$c"; done)
}

[[ " $PARTS " == *" tables "* ]] || configs=""
for c in $configs; do
  echo "rails.sh: measuring $c ..." >&2
  measure $c osu_bw -s "$MINSZ" -m "$MAXSZ" $ITER >"$work/bw.$c"
  measure $c osu_bw -b -s "$MINSZ" -m "$MAXSZ" $ITER >"$work/bwb.$c"
  measure $c osu_bibw -s "$MINSZ" -m "$MAXSZ" $ITER >"$work/bibw.$c"
  measure $c osu_latency -s 8 -m 8 >"$work/lat.$c"
done
if [ -n "$configs" ]; then
  table "Bandwidth, non-blocking sends (osu_bw)" "MB/s" bw
  table "Bandwidth, blocking sends (osu_bw -b)" "MB/s" bwb
  table "Bi-directional bandwidth (osu_bibw)" "MB/s" bibw
  table "Latency, 8 B (osu_latency)" "us" lat
fi

# ---- latency: interleaved rounds, medians ----
if [[ " $PARTS " == *" latency "* ]]; then
  lat_configs="rail1"
  for p in $POLICIES; do lat_configs="$lat_configs $p"; done
  for round in $(seq 1 "$LAT_ROUNDS"); do
    echo "rails.sh: latency round $round/$LAT_ROUNDS ..." >&2
    for c in $lat_configs; do measure $c osu_latency -s 0 -m 64 >>"$work/latr.$c"; done
  done
  echo
  echo "## Small-message latency (us, one way; median of $LAT_ROUNDS interleaved rounds; RATE=$RATE per rail; load $(cut -d' ' -f1-3 /proc/loadavg))"
  hdr="| size | 1 rail"
  for p in $POLICIES; do hdr="$hdr | 2 rails $p"; done
  echo "$hdr | worst 2 rails / 1 rail |"
  echo "$hdr | worst 2 rails / 1 rail |" | sed 's/[^|]\+|/---|/g'
  for sz in $(awk '{print $1}' "$work/latr.rail1" | sort -un); do
    line="| $sz"; worst=0
    one=$(awk -v s="$sz" '$1 == s {print $2}' "$work/latr.rail1" | sort -g | awk '{a[n++]=$1} END {if (n) print a[int(n/2)]}')
    line="$line | $one"
    for p in $POLICIES; do
      m=$(awk -v s="$sz" '$1 == s {print $2}' "$work/latr.$p" | sort -g | awk '{a[n++]=$1} END {if (n) print a[int(n/2)]}')
      line="$line | $m"
      worst=$(awk -v w="$worst" -v m="$m" -v o="$one" 'BEGIN { r = (o > 0 && m != "") ? m / o : 0; print (r > w ? r : w) }')
    done
    echo "$line | $(printf '%.2f' "$worst") |"
  done
fi
[[ " $PARTS " == *" failover "* ]] || exit 0

# ---- 2. failover ----
echo
echo "## Failover: rail1 of host $CUT_HOST cut ($CUT_HOW) at ${CUT_AT}s, restored at ${RESTORE_AT}s; 1 MiB messages, ${DURATION}s"
cut_rail1() {  # cut_rail1 down|up
  if [ "$CUT_HOW" = switch ]; then
    if [ "$1" = down ]; then ip -n ${P}sw link set r1h$CUT_HOST nomaster; else ip -n ${P}sw link set r1h$CUT_HOST master br1; fi
  else
    "$tool" link $P "$CUT_HOST" 1 "$1"
  fi
}
cut_run() {  # cut_run NAME COMMAND...   -> $work/tl.NAME (time MB/s), $work/ev.NAME (epoch of cut, restore)
  local name=$1; shift
  ( sleep "$CUT_AT"; date +%s.%N >"$work/cut.$name"; cut_rail1 down
    sleep $(echo "$RESTORE_AT - $CUT_AT" | bc); date +%s.%N >"$work/restore.$name"; cut_rail1 up ) &
  local cutter=$!
  local t_start
  t_start=$(date +%s.%N)
  "$@" >"$work/tlraw.$name" 2>"$work/tlerr.$name"
  local rc=$?
  wait $cutter 2>/dev/null
  cut_rail1 up >/dev/null 2>&1
  local start
  start=$(awk '/start/ {for (i = 1; i <= NF; i++) if ($i == "start") print $(i + 1)}' "$work/tlraw.$name")
  [ -n "$start" ] || start=$t_start
  awk -v s="$start" -v c="$(cat "$work/cut.$name")" -v r="$(cat "$work/restore.$name")" \
    'BEGIN { printf "%.3f %.3f\n", c - s, r - s }' >"$work/ev.$name"
  grep -v '^#' "$work/tlraw.$name" | awk 'NF>=2 {print $1, $2}' >"$work/tl.$name"
  echo "  $name: exit code $rc, $(grep -c . "$work/tl.$name") slots, $(grep '^# messages' "$work/tlraw.$name")"
  sed 's/^/    /' "$work/tlerr.$name" | head -12
  cp "$work/tl.$name" "$OUT/failover_$name.dat"
}
recovery() {  # recovery NAME LINE: when throughput was back (sustained over half a second)
  local name=$1 line=$2
  read -r cut restore <"$work/ev.$name"
  awk -v cut="$cut" -v restore="$restore" -v line="$line" -v name="$name" '
    { t[n] = $1; v[n] = $2; n++ }
    # mean of the slots in (from, from + 0.5 s]
    function mean(from,   i, s, k) { s = 0; k = 0; for (i = 0; i < n; i++) if (t[i] > from && t[i] <= from + 0.5) { s += v[i]; k++ } return k ? s / k : 0 }
    END {
      before = 0; nb = 0
      for (i = 0; i < n; i++) if (t[i] > 1 && t[i] <= cut) { before += v[i]; nb++ }
      if (nb) before /= nb
      back1 = -1; back2 = -1; during = 0; nd = 0
      for (i = 0; i < n; i++) {
        if (t[i] > cut + 0.5 && t[i] <= restore) { during += v[i]; nd++ }
        if (back1 < 0 && t[i] > cut && t[i] + 0.5 <= restore && mean(t[i]) >= 0.9 * line) back1 = t[i] - cut
        if (back2 < 0 && t[i] > restore && mean(t[i]) >= 0.9 * before) back2 = t[i] - restore
      }
      if (nd) during /= nd
      printf "| %s | %.0f | %.0f | %s | %s |\n", name, before, during,
        back1 < 0 ? "never" : sprintf("%.1f s", back1), back2 < 0 ? "never" : sprintf("%.1f s", back2)
    }' "$work/tl.$name"
}
line_rate=$(echo "$RATE" | awk '/gbit/ {print $1 * 125; next} /mbit/ {print $1 / 8; next} {print 0}')
cut_run railmpi timeout $((DURATION + 60)) "$mpiexec" --launcher netns -hosts $h0,$h1 -ppn 1 -n 2 \
  -genv RAILMPI_TCP_RAILS rail0,rail1 "$build/bench/osu_bw_timeline" -d "$DURATION"
[ $ompi_ok = 1 ] && cut_run openmpi timeout $((DURATION + 60)) ip netns exec $h0 unshare --uts /bin/sh -c \
  "hostname $h0; exec mpirun.openmpi --allow-run-as-root --oversubscribe --hostfile $work/hosts -np 2 \
   --map-by node --mca plm_rsh_agent $here/rails/netns_agent.sh --mca oob_tcp_if_include $subnet0 \
   --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include rail0,rail1 $work/osu_bw_timeline.ompi -d $DURATION"
echo
echo "| run | MB/s before cut | MB/s while cut (from 0.5 s after) | >= 90% of one rail ($line_rate MB/s line), sustained 0.5 s, after the cut | back to 90% of the two-rail speed after the restore |"
echo "|---|---|---|---|---|"
recovery railmpi "$line_rate"
[ $ompi_ok = 1 ] && recovery openmpi "$line_rate"

if ! command -v gnuplot >/dev/null; then sh "$root/scripts/install-deps.sh" gnuplot-nox >/dev/null 2>&1; fi
if command -v gnuplot >/dev/null; then
  read -r cut restore <"$work/ev.railmpi"
  plots="'$work/tl.railmpi' using 1:2 with lines lw 2 title 'RailMPI (2 rails)'"
  [ $ompi_ok = 1 ] && plots="$plots, '$work/tl.openmpi' using 1:2 with lines lw 2 title 'Open MPI 4.1.4 (2 rails)'"
  gnuplot <<EOF
set terminal pngcairo size 1000,500 noenhanced
set output '$OUT/rails_failover.png'
set title 'Bandwidth over time, 2 hosts x 2 rails ($RATE each): rail1 of host $CUT_HOST cut ($CUT_HOW) at ${CUT_AT}s, restored at ${RESTORE_AT}s'
set xlabel 'time (s)'
set ylabel 'MB/s (100 ms slots)'
set yrange [0:*]
set arrow from $cut, graph 0 to $cut, graph 1 nohead dt 2 lc rgb 'red'
set arrow from $restore, graph 0 to $restore, graph 1 nohead dt 2 lc rgb 'dark-green'
set key top right
plot $plots
EOF
  echo
  echo "plot: $OUT/rails_failover.png"
else
  echo "rails.sh: gnuplot not available; no plot (data in $OUT/failover_*.dat)"
fi
