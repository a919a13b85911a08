#!/bin/sh
# The layer rule: a layer includes only headers of the layers below it.
# Usage: layering.sh <source root>
set -u
root=$1
fail=0
# folder : include prefixes it must not use
rules="
src/base:runtime/ device/ mcm/ progress/ p2p/ core/ coll/ rma/ api/
src/runtime:device/ mcm/ progress/ p2p/ core/ coll/ rma/ api/
src/device:runtime/ mcm/ progress/ p2p/ core/ coll/ rma/ api/ mpi.h
src/mcm:runtime/ progress/ p2p/ core/ coll/ rma/ api/ mpi.h
src/progress:runtime/ p2p/ core/ coll/ rma/ api/ mpi.h
src/p2p:runtime/ core/ coll/ rma/ api/ device/shm/ device/tcp/ device/self/ mpi.h
src/core:runtime/ coll/ rma/ api/ device/shm/ device/tcp/ device/self/
src/coll:runtime/ rma/ api/ device/shm/ device/tcp/ device/self/
src/rma:runtime/ coll/ api/ device/shm/ device/tcp/ device/self/ mpi.h
src/io:runtime/ device/ mcm/ progress/ p2p/ core/ coll/ rma/ api/ mpi.h
src/api:device/shm/ device/tcp/ device/self/
"
echo "$rules" | while IFS=: read -r dir banned; do
  [ -n "$dir" ] || continue
  for prefix in $banned; do
    hits=$(grep -rnE "^#include [\"<]$prefix" "$root/$dir" 2>/dev/null)
    if [ -n "$hits" ]; then
      echo "layering: $dir must not include $prefix:"
      echo "$hits"
      echo x >> "${TMPDIR:-/tmp}/layering.$$"
    fi
  done
done
if [ -f "${TMPDIR:-/tmp}/layering.$$" ]; then rm -f "${TMPDIR:-/tmp}/layering.$$"; exit 1; fi
echo "layering: every layer includes only layers below it"
