#!/bin/sh
# check_exports.sh HEADER LIBRARY LIST: the MPI_ functions mpi.h declares that libmpi.so does not
# export are exactly those LIST names (one per line, # comments): a program calling one of them
# does not link (or, built against MPICH, stops at its first call), so the list is the library's
# known gap, kept honest both ways. A function declared and not exported, or listed and now
# exported, fails the test.
set -u
header=$1 lib=$2 list=$3
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# Prototypes: "RAILMPI_API <return type> MPI_Name(" (typedefs and macros are not functions).
grep -oE 'RAILMPI_API[^;(]*[[:space:]*]MPI_[A-Za-z0-9_]+\(' "$header" | grep -oE 'MPI_[A-Za-z0-9_]+\($' | tr -d '(' |
    sort -u >"$work/declared"
nm -D --defined-only "$lib" | awk '{ print $NF }' | grep '^MPI_' | sort -u >"$work/exported"
grep -v '^#' "$list" | grep -v '^[[:space:]]*$' | sort -u >"$work/listed"
[ -s "$work/declared" ] || { echo "FAIL: no MPI_ function found in $header"; exit 1; }
comm -23 "$work/declared" "$work/exported" >"$work/missing"
status=0
extra=$(comm -23 "$work/missing" "$work/listed")
[ -z "$extra" ] || { echo "FAIL: declared in mpi.h, not exported, not in $list:"; echo "$extra"; status=1; }
done_now=$(comm -13 "$work/missing" "$work/listed")
[ -z "$done_now" ] || { echo "FAIL: listed as not exported in $list, but exported (or not declared):"; echo "$done_now"; status=1; }
echo "declared: $(wc -l <"$work/declared"), exported: $(comm -12 "$work/declared" "$work/exported" | wc -l), not exported (listed): $(wc -l <"$work/missing")"
exit $status
