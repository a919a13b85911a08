#!/bin/sh
# bind_case.sh PIN EXPECTED_RC STDERR_RE STDOUT_RE LAUNCHER_PROG -- MPIEXEC ARGS...
# Runs MPIEXEC ARGS under the CPU mask PIN gives (2: the first two CPUs of this test's own mask,
# through taskset; all: the mask as it is) and checks it with run_case.sh. In ARGS and the regular
# expressions, @CPUS@ becomes that mask as "a,b,..." (LAUNCHER_PROG cpus N prints it) and @NCPUS@
# its size. Skipped (exit 77) when the mask has fewer than 2 CPUs: binding is then invisible.
set -u
# The test has its CPUs to itself: mpiexec ignores other jobs' CPU records (ctest -j runs other
# tests' jobs at the same time; claims_case.sh tests the records).
export RAILMPI_CPU_CLAIMS=none
pin=$1 rc=$2 err_re=$3 out_re=$4 prog=$5
shift 5
[ "$1" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
case $pin in
  2) cpus=$("$prog" cpus 2) ;;
  all) cpus=$("$prog" cpus) ;;
  *) echo "FAIL: PIN is 2 or all"; exit 2 ;;
esac
ncpus=$(echo "$cpus" | tr ',' '\n' | grep -c .)
if [ "$ncpus" -lt 2 ]; then
  echo "SKIP: this test's affinity mask has $ncpus CPU(s) ($cpus): binding needs at least 2"
  exit 77
fi
sub() { printf '%s\n' "$1" | sed -e "s/@CPUS@/$cpus/g" -e "s/@NCPUS@/$ncpus/g"; }
err_re=$(sub "$err_re")
out_re=$(sub "$out_re")
mpiexec=$1
shift
args=""
for a in "$@"; do args="$args $(sub "$a" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"; done
eval "set -- $args"
if [ "$pin" = 2 ]; then
  exec sh "$here/run_case.sh" "$rc" "$err_re" "$out_re" -- taskset -c "$cpus" "$mpiexec" "$@"
fi
exec sh "$here/run_case.sh" "$rc" "$err_re" "$out_re" -- "$mpiexec" "$@"
