#!/bin/sh
# spam_case.sh MPIEXEC PROG N: every rank writes 2000 lines in pieces; with -l each forwarded
# line must be whole ("[r] spam rank=r line=i xxx end") and none may be lost.
mpiexec=$1; prog=$2; n=$3
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
"$mpiexec" -l -n "$n" "$prog" spam >"$tmp" </dev/null || { echo "FAIL: mpiexec exit code $?"; exit 1; }
bad=$(grep -Evc '^\[([0-9]+)\] spam rank=\1 line=[0-9]+ x+ end$' "$tmp")
total=$(wc -l <"$tmp")
[ "$bad" = 0 ] || { echo "FAIL: $bad mangled lines"; grep -Ev '^\[([0-9]+)\] spam rank=\1 line=[0-9]+ x+ end$' "$tmp" | head; exit 1; }
[ "$total" = $((n * 2000)) ] || { echo "FAIL: $total lines, expected $((n * 2000))"; exit 1; }
exit 0
