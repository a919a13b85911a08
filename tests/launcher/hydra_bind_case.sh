#!/bin/sh
# hydra_bind_case.sh PROG N WORDS: runs PROG (an MPI program) on N ranks under MPICH's Hydra with
# `-bind-to core` and RAILMPI_VERBOSE=1, and checks that every rank's binding line ends in
# "N ranks on this machine, C CPUs: WORDS", C being the number of distinct CPUs Hydra bound the
# ranks to: a rank bound to one CPU by a launcher other than mpiexec (no RAILMPI_MACHINE_CPUS)
# counts the CPUs of all the machine's ranks, not its own one. Exit 77 (skipped) without
# mpiexec.hydra or with fewer than 2 CPUs in this test's mask.
prog=$1; n=$2; words=$3
command -v mpiexec.hydra >/dev/null 2>&1 || { echo "mpiexec.hydra not installed: skipped"; exit 77; }
cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "SKIP: $cpus CPU(s) in this test's mask"; exit 77; }
out=$(env -u RAILMPI_MACHINE_CPUS timeout 30 mpiexec.hydra -bind-to core -n "$n" -genv RAILMPI_VERBOSE 1 "$prog" </dev/null 2>&1)
rc=$?
lines=$(echo "$out" | grep -E "^RailMPI\[rank [0-9]+\]: binding: ")
echo "$lines"
[ $rc = 0 ] || { echo "$out" | tail -20; echo "FAIL: mpiexec.hydra exit code $rc"; exit 1; }
count=$(echo "$lines" | grep -c .)
[ "$count" = "$n" ] || { echo "FAIL: $count binding lines for $n ranks"; exit 1; }
bound=$(echo "$lines" | sed -n 's/.*: binding: bound to CPU \([0-9]*\);.*/\1/p' | sort -u | grep -c .)
[ "$(echo "$lines" | grep -c ': binding: bound to CPU ')" = "$n" ] || { echo "SKIP: Hydra did not bind every rank to one CPU"; exit 77; }
want="$n ranks on this machine, $bound CPUs: $words\$"
bad=$(echo "$lines" | grep -Evc -- "$want")
[ "$bad" = 0 ] || { echo "FAIL: $bad line(s) do not end in /$want/"; exit 1; }
exit 0
