#!/bin/sh
# run_abi.sh LIBDIR COMMAND... : runs an MPICH-built binary (last argument of
# COMMAND) on RailMPI. First proves with ldd that, with LD_LIBRARY_PATH=LIBDIR,
# the binary's MPI library (libmpich.so.12 / libmpi.so.12) resolves into
# LIBDIR and not to the system MPICH; then execs COMMAND with that
# LD_LIBRARY_PATH. Exit 77 (skip) if the binary was not built.
set -u
libdir=$1
shift
for last in "$@"; do :; done
if [ ! -x "$last" ]; then
    echo "run_abi.sh: $last not built (mpicc.mpich missing?) - skipping"
    exit 77
fi
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
resolved=$(ldd "$last" | grep -E 'lib(mpich|mpi)\.so\.12' | head -n 1)
echo "run_abi.sh: $resolved"
case "$resolved" in
*"$libdir"/*) ;;
*)
    echo "run_abi.sh: FAIL: MPI library of $last does not resolve into $libdir" >&2
    exit 1
    ;;
esac
exec "$@"
