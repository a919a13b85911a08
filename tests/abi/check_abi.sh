#!/bin/sh
# Check that RailMPI's mpi.h is binary compatible with MPICH's.
#
#   check_abi.sh CC OUR_INCLUDE_DIR MPICH_INCLUDE_DIR SOURCE_DIR WORK_DIR
#
# 1. Every MPI_ constant MPICH's mpi.h/mpio.h define is listed in
#    abi_constants.c (so step 2 covers it).
# 2. abi_constants.c, built against each header, prints identical values,
#    sizes and struct offsets.
# 3. Every function prototype of ours, redeclared after MPICH's header, is
#    accepted by the compiler: C rejects a redeclaration with a different
#    signature, so each of our functions has exactly MPICH's signature.
#    The same is done for the objects the header declares extern.
#
# Exits 77 (ctest: skipped) when MPICH's header is not installed.
set -u

if [ $# -ne 5 ]; then
    echo "usage: $0 CC OUR_INCLUDE_DIR MPICH_INCLUDE_DIR SOURCE_DIR WORK_DIR" >&2
    exit 2
fi
cc=$1 ours=$2 mpich=$3 src=$4 work=$5

if [ ! -f "$mpich/mpi.h" ]; then
    echo "SKIP: MPICH's mpi.h not found in $mpich (install libmpich-dev to run this test)"
    exit 77
fi
if [ ! -f "$ours/mpi.h" ]; then
    echo "FAIL: RailMPI's mpi.h not found in $ours" >&2
    exit 1
fi
mkdir -p "$work" || exit 1
status=0

# --- 1. coverage of MPICH's names ------------------------------------------
# Object-like macros and enum constants named MPI_*, without comments.
list_names() {
    cat "$@" | sed 's,/\*.*\*/,,' | awk '
      /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/ {
          s = $0; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", s)
          n = s; sub(/[^A-Za-z0-9_].*$/, "", n)
          if (substr(s, length(n) + 1) ~ /^\(/) next   # function-like macro
          print n; next
      }
      /enum[ \t]/ && /\{/ { inenum = 1 }
      inenum {
          line = $0; sub(/^.*\{/, "", line); gsub(/\}/, " ", line)
          k = split(line, part, ",")
          for (i = 1; i <= k; i++) {
              t = part[i]; sub(/^[ \t]*/, "", t)
              if (t ~ /^MPI_[A-Z0-9_]+([ \t]*=.*)?$/) { sub(/[ \t=].*$/, "", t); print t }
          }
      }
      inenum && /\}/ { inenum = 0 }
    ' | grep '^MPI_' | grep -v -E '^(MPI_INCLUDED|MPI_FILE_DEFINED|MPI_VERSION|MPI_SUBVERSION)$' \
      | sort -u
}
mpich_headers="$mpich/mpi.h"
[ -f "$mpich/mpio.h" ] && mpich_headers="$mpich_headers $mpich/mpio.h"
# shellcheck disable=SC2086
list_names $mpich_headers > "$work/mpich_names.txt"
missing=0
while read -r name; do
    if ! grep -q "($name)" "$src/abi_constants.c"; then
        echo "FAIL: $name (defined by MPICH) is not checked by abi_constants.c" >&2
        missing=$((missing + 1))
    fi
done < "$work/mpich_names.txt"
[ "$missing" -eq 0 ] || status=1
echo "names defined by MPICH: $(wc -l < "$work/mpich_names.txt"), unchecked: $missing"

# --- 2. values and layouts ------------------------------------------------
for which in ours mpich; do
    eval "inc=\$$which"
    if ! $cc -std=c11 -o "$work/abi_constants_$which" -I"$inc" "$src/abi_constants.c"; then
        echo "FAIL: abi_constants.c does not compile against $inc/mpi.h" >&2
        exit 1
    fi
    "$work/abi_constants_$which" > "$work/abi_constants_$which.txt" || exit 1
done
if diff -u "$work/abi_constants_mpich.txt" "$work/abi_constants_ours.txt"; then
    echo "constants: $(wc -l < "$work/abi_constants_ours.txt") lines identical"
else
    echo "FAIL: values differ (- MPICH, + RailMPI)" >&2
    status=1
fi

# --- 3. function signatures -------------------------------------------------
redecl="$work/redeclare.c"
{
    echo '#include <mpi.h>'
    echo '#define RAILMPI_API'
    grep '^extern RAILMPI_API' "$ours/mpi.h"
    sed -n '/<railmpi-prototypes>/,/<\/railmpi-prototypes>/p' "$ours/mpi.h"
} > "$redecl"
nproto=$(grep -c '^RAILMPI_API [A-Za-z_ ]*[ *]P\{0,1\}MPI' "$redecl")
if [ "$nproto" -lt 700 ]; then
    echo "FAIL: only $nproto prototypes found between the markers of $ours/mpi.h" >&2
    status=1
fi
if $cc -std=c11 -fsyntax-only -Werror -I"$mpich" "$redecl"; then
    echo "prototypes: $nproto declarations agree with MPICH's"
else
    echo "FAIL: some prototypes differ from MPICH's (see compiler errors above)" >&2
    status=1
fi

# Informational: MPICH entry points we do not declare (MPI 4.0, large-count, ...).
sed -n 's/^[A-Za-z_]\{1,\}[ *]\{1,\}\(MPI_[A-Za-z0-9_]*\)(.*/\1/p' "$mpich/mpi_proto.h" 2>/dev/null \
    | sort -u > "$work/mpich_functions.txt"
grep -o '[ *]MPI_[A-Za-z0-9_]*(' "$redecl" | tr -d ' *(' | sort -u > "$work/our_functions.txt"
echo "MPICH functions not declared by RailMPI (informational):" \
    "$(comm -23 "$work/mpich_functions.txt" "$work/our_functions.txt" | wc -l)" \
    "(list in $work/not_declared.txt)"
comm -23 "$work/mpich_functions.txt" "$work/our_functions.txt" > "$work/not_declared.txt"

[ "$status" -eq 0 ] && echo "PASS: mpi.h matches the MPICH ABI"
exit "$status"
