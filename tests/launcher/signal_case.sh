#!/bin/sh
# signal_case.sh MPIEXEC PROG MODE: starts 3 ranks that record their pids, sends SIGTERM to
# mpiexec, and checks mpiexec exits 143 and that no rank survives (kill -0 on each pid).
mpiexec=$1; prog=$2; mode=$3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$mpiexec" -n 3 "$prog" "$mode" "$dir" >"$dir/out" 2>"$dir/err" </dev/null &
mpid=$!
i=0
while [ "$(ls "$dir" | grep -c '^pid\.[0-9]*$')" -lt 3 ]; do
  i=$((i + 1))
  if [ $i -gt 100 ]; then echo "FAIL: ranks did not start"; cat "$dir/err"; kill -9 $mpid; exit 1; fi
  sleep 0.05
done
pids=$(cat "$dir"/pid.[0-9]*)
kill -TERM $mpid
wait $mpid
rc=$?
status=0
[ $rc = 143 ] || { echo "FAIL: mpiexec exit code $rc, expected 143"; status=1; }
grep -q "received signal 15" "$dir/err" || { echo "FAIL: no signal message"; status=1; }
for p in $pids; do
  if kill -0 "$p" 2>/dev/null; then echo "FAIL: rank pid $p still alive"; kill -9 "$p"; status=1; fi
done
[ $status = 0 ] || cat "$dir/err"
exit $status
