#!/bin/sh
# hydra_case.sh PROG N: runs the PMI exchange under MPICH's Hydra to prove PmiClient speaks
# Hydra's PMI-1. Exit 77 (skipped) when mpiexec.hydra is not installed.
prog=$1; n=$2
command -v mpiexec.hydra >/dev/null 2>&1 || { echo "mpiexec.hydra not installed: skipped"; exit 77; }
out=$(timeout 20 mpiexec.hydra -n "$n" "$prog" exchange </dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || { echo "FAIL: mpiexec.hydra exit code $rc"; exit 1; }
count=$(echo "$out" | grep -c "exchange ok")
[ "$count" = "$n" ] || { echo "FAIL: $count of $n ranks reported success"; exit 1; }
exit 0
