#!/bin/bash
# concurrent_jobs.sh [BUILD_DIR]: JOBS jobs of NP ranks each (bench/compute_job: every rank
# computes alone), started at the same moment, for RailMPI as it runs by default (mpiexec binds
# each job's ranks to CPUs no other running RailMPI job holds, RAILMPI_CPU_CLAIMS), RailMPI with
# RAILMPI_CPU_CLAIMS=none (every job binds from the first CPU, as before), Debian's MPICH and Open
# MPI (default launch options). Prints, per round, each implementation's slowest job's time divided
# by the time of one job alone (measured in the same round): 1.0 when every rank had a core to
# itself. Nothing else should run meanwhile.
#   JOBS=N (default: the CPUs / NP)  NP=N (default 1)  ROUNDS=N (default 3)  ITERS=N (compute_job)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
NP=${NP:-1}
JOBS=${JOBS:-$(( $(nproc) / NP > 1 ? $(nproc) / NP : 2 ))}
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-300000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/railmpi_jobs.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$here/peers.sh"
peer_build "$here/compute_job.c" compute_job
impls="rail rail_claims_off"
[ "$have_mpich" = 1 ] && impls="$impls mpich"
[ "$have_ompi" = 1 ] && impls="$impls ompi"
# launch IMPL -> the command that starts one job
launch() {
    case $1 in
    rail) echo "$build/bin/mpiexec -n $NP $build/bench/compute_job" ;;
    rail_claims_off) echo "env RAILMPI_CPU_CLAIMS=none $build/bin/mpiexec -n $NP $build/bench/compute_job" ;;
    ompi) echo "mpiexec.openmpi --allow-run-as-root --oversubscribe -n $NP $(peer_binary ompi compute_job)" ;;
    *) echo "$(peer_launcher "$1" shm "$NP") $(peer_binary "$1" compute_job)" ;;
    esac
}
seconds() { awk '$1 == "compute_s" { print $2 }' "$@" | sort -g | tail -1; }
echo "# $JOBS jobs of $NP rank(s) at once on $(nproc) CPUs: slowest job / one job alone"
printf '%-6s' round; for i in $impls; do printf ' %16s' "$i"; done; echo
for r in $(seq 1 "$ROUNDS"); do
    printf '%-6s' "$r"
    for i in $impls; do
        cmd=$(launch "$i")
        alone=$(timeout -k 5 120 $cmd "$ITERS" 2>/dev/null | awk '$1 == "compute_s" { print $2 }')
        pids=""
        for j in $(seq 1 "$JOBS"); do
            timeout -k 5 240 $cmd "$ITERS" >"$work/$i.$j" 2>/dev/null </dev/null &
            pids="$pids $!"
        done
        wait $pids
        worst=$(seconds "$work/$i".*)
        if [ -n "$alone" ] && [ -n "$worst" ]; then
            printf ' %16s' "$(awk -v w="$worst" -v a="$alone" 'BEGIN { printf "%.2f (%.2fs)", w / a, a }')"
        else
            printf ' %16s' failed
        fi
        rm -f "$work/$i".*
    done
    echo
done
