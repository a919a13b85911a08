#!/bin/sh
# claims_case.sh LAUNCHER_PROG MPIEXEC: jobs started while another RailMPI job runs bind their
# ranks to the CPUs it does not hold (RAILMPI_CPU_CLAIMS, here a private folder). Under the first
# two CPUs of the test's mask, A and B: a holder job's one rank takes A; then a 1-rank job binds
# to B, a 2-rank job stays unbound (auto: too few CPUs free), a 3-rank job with RAILMPI_BIND=core
# goes B, A, B, and with RAILMPI_CPU_CLAIMS=none a job binds to A as before. A holder killed
# with SIGKILL leaves its record; the next job drops it and binds to A. Oversubscribed jobs
# (MPI_PROG: self_bind_prog) bind themselves at MPI_Init to the CPUs mpiexec planned: beside a
# 3-rank holder (2 ranks on A, 1 on B, as its record says) a 3-rank job's ranks go B, A, B (3
# ranks on each), without records A, B, A. Skipped (77) on a 1-CPU mask.
set -u
prog=$1 mpiexec=$2 mpi_prog=$3
here=$(cd "$(dirname "$0")" && pwd)
cpus=$("$prog" cpus 2)
case $cpus in
  *,*) ;;
  *) echo "SKIP: this test's affinity mask has one CPU ($cpus)"; exit 77 ;;
esac
a=${cpus%%,*} b=${cpus#*,}
dir=$(mktemp -d) || exit 1
holder=""
stop_holder() {  # SIGNAL: ends the holder mpiexec (first: a rank ended first ends its job), then its rank
  [ -n "$holder" ] || return 0
  kids=$(cat /proc/"$holder"/task/*/children 2>/dev/null)
  kill "-$1" "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  [ -n "$kids" ] && kill -KILL $kids 2>/dev/null
  holder=""
}
trap 'stop_holder KILL; rm -rf "$dir"' EXIT
export RAILMPI_CPU_CLAIMS=$dir
status=0
start_holder() {  # [RANKS]
  taskset -c "$cpus" "$mpiexec" -n "${1:-1}" sleep 60 >/dev/null 2>&1 &
  holder=$!
  for _ in $(seq 1 100); do
    [ -f "$dir/railmpi-cpus.$holder" ] && return 0
    sleep 0.1
  done
  echo "FAIL: no record of the holder job (pid $holder) in $dir"; ls -la "$dir"; exit 1
}
case_() {  # NAME EXPECTED_STDERR EXPECTED_STDOUT MPIEXEC_ARGS...
  name=$1 err=$2 out=$3
  shift 3
  if ! sh "$here/run_case.sh" 0 "$err" "$out" -- taskset -c "$cpus" "$mpiexec" "$@"; then
    echo "FAIL: case $name"; status=1
  fi
}

start_holder
read -r _ held _ <"$dir/railmpi-cpus.$holder"
[ "$held" = "$a" ] || { echo "FAIL: the holder's record says CPUs '$held', expected $a"; status=1; }
case_ free_cpu "other RailMPI jobs' ranks hold CPUs $a: they come last" "binding ok: bound" \
  -v -n 1 "$prog" binding bound "$b,$a"
case_ too_few_free "ranks not bound: RAILMPI_BIND=auto and 2 ranks, but other RailMPI jobs' ranks hold CPUs $a" \
  "binding ok: unbound" -v -n 2 "$prog" binding unbound "$a,$b"
case_ core_held_last "" "binding ok: bound" -n 3 -genv RAILMPI_BIND core "$prog" binding bound "$b,$a"
RAILMPI_CPU_CLAIMS=none case_ claims_off "" "binding ok: bound" -n 1 "$prog" binding bound "$a,$b"
killed=$holder
stop_holder KILL
[ -f "$dir/railmpi-cpus.$killed" ] || { echo "FAIL: a killed mpiexec's record went away by itself"; status=1; }
case_ killed_holder "" "binding ok: bound" -n 1 "$prog" binding bound "$a,$b"
[ -f "$dir/railmpi-cpus.$killed" ] && { echo "FAIL: the killed holder's record is still there"; status=1; }
stop_holder TERM
start_holder 3
read -r _ held ranks <"$dir/railmpi-cpus.$holder"
[ "$held $ranks" = "$a,$b 2,1" ] || [ "$held $ranks" = "$a-$b 2,1" ] ||
  { echo "FAIL: the oversubscribed holder's record says '$held $ranks', expected CPUs $a,$b with 2,1 ranks"; status=1; }
case_ oversubscribed_beside "each binds itself at MPI_Init, in blocks over CPUs $b,$a" "self-bound CPUs: $b $b $a" \
  -v -n 3 "$mpi_prog"
RAILMPI_CPU_CLAIMS=none case_ oversubscribed_claims_off "" "self-bound CPUs: $a $a $b" -n 3 "$mpi_prog"
stop_holder TERM
start_holder
stop_holder TERM
left=$(ls "$dir")
[ "$left" = "railmpi-cpus.lock" ] || { echo "FAIL: records left after every job ended: $left"; status=1; }
exit $status
