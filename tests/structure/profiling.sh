#!/bin/sh
# Profiling interface: every exported PMPI_X has an MPI_X at the same address (a weak alias), and
# every exported MPI_X function has its PMPI_X.
# Usage: profiling.sh <libmpi.so>
set -u
lib=$1
syms=$(nm -D --defined-only "$lib") || exit 1
bad=0
pmpi=$(echo "$syms" | awk '$2=="T" && $3 ~ /^PMPI_/ {print $1, $3}')
[ -n "$pmpi" ] || { echo "profiling: no PMPI_ symbols in $lib"; exit 1; }
n=0
echo "$pmpi" | while read -r addr name; do
  base=${name#P}
  alias=$(echo "$syms" | awk -v n="$base" '$3==n {print $1, $2}')
  if [ "$alias" != "$addr W" ]; then echo "profiling: $base is not a weak alias of $name (got '$alias')"; exit 1; fi
done || exit 1
for name in $(echo "$syms" | awk '($2=="T" || $2=="W") && $3 ~ /^MPI_/ {print $3}'); do
  echo "$syms" | awk -v n="P$name" '$3==n {found=1} END {exit !found}' || { echo "profiling: $name has no P$name"; exit 1; }
done
echo "profiling: $(echo "$pmpi" | wc -l) PMPI_ entry points, each with its MPI_ weak alias"
