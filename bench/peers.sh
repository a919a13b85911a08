# peers.sh: sourced by the comparison scripts. How RailMPI, Debian's MPICH and Open MPI are
# started and built for a side-by-side run on one node.
#   peer_build SRC NAME WORK   builds WORK/NAME.mpich and WORK/NAME.ompi from one source; sets
#                              have_mpich / have_ompi to 0 when a peer is missing or fails
#   peer_launcher IMPL TRANSPORT NP   prints the command prefix (IMPL rail|mpich|ompi,
#                              TRANSPORT shm|tcp)
#   peer_binary IMPL NAME      the program for IMPL (RailMPI: $build/bench/NAME)
# Needs $build (RailMPI build tree) and $work (scratch folder).
#
# How each implementation is steered:
#   RailMPI  shm: bin/mpiexec -n NP (default devices shm,tcp)
#            tcp: bin/mpiexec -n NP -genv RAILMPI_DEVICES tcp
#   MPICH    Debian's MPICH 4.0.2 is ch4:ucx. shm: defaults (UCX picks shared memory).
#            tcp: -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES lo (UCX's TCP transport on
#            loopback; without UCX_NET_DEVICES=lo UCX may refuse the loopback interface).
#   Open MPI shm: --mca pml ob1 --mca btl self,vader; tcp: --mca pml ob1 --mca btl self,tcp
#            (pml ob1 so the btl choice is honoured even when the UCX pml is available).
have_mpich=${have_mpich:-1}
have_ompi=${have_ompi:-1}
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || have_mpich=0
command -v mpicc.openmpi >/dev/null && command -v mpiexec.openmpi >/dev/null || have_ompi=0

peer_build() {
    local src=$1 name=$2
    if [ "$have_mpich" = 1 ]; then
        mpicc.mpich -O2 -o "$work/$name.mpich" "$src" 2>"$work/build.log" || { cat "$work/build.log"; have_mpich=0; }
    fi
    if [ "$have_ompi" = 1 ]; then
        mpicc.openmpi -O2 -o "$work/$name.ompi" "$src" 2>"$work/build.log" || { cat "$work/build.log"; have_ompi=0; }
    fi
}

peer_launcher() {
    case "$1.$2" in
    rail.shm) echo "$build/bin/mpiexec -n $3" ;;
    rail.tcp) echo "$build/bin/mpiexec -n $3 -genv RAILMPI_DEVICES tcp" ;;
    mpich.shm) echo "mpiexec.mpich -n $3" ;;
    mpich.tcp) echo "mpiexec.mpich -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES lo -n $3" ;;
    ompi.shm) echo "mpiexec.openmpi --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -n $3" ;;
    ompi.tcp) echo "mpiexec.openmpi --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,tcp -n $3" ;;
    esac
}

peer_binary() {
    case "$1" in
    rail) echo "$build/bench/$2" ;;
    mpich) echo "$work/$2.mpich" ;;
    ompi) echo "$work/$2.ompi" ;;
    esac
}

# Median of the numbers on stdin (one per line); empty input prints nothing.
median() {
    sort -g | awk '{ a[n++] = $1 } END { if (n) print (n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2) }'
}

# medians_table FILE_PREFIX HIGHER: the rows "<size> <value>" of FILE_PREFIX.<impl> for every impl
# of $impls, as one table: size, each implementation's median, and RailMPI / the best peer (the
# highest value when HIGHER is 1, e.g. bandwidth; else the lowest, e.g. latency).
medians_table() {
    local prefix=$1 higher=$2 size i v best
    printf '%-10s' size; for i in $impls; do printf '%12s' "$i"; done; printf '%12s\n' "rail/best"
    for size in $(awk '{ print $1 }' "$prefix.rail" | sort -n | uniq); do
        printf '%-10s' "$size"
        best=""
        for i in $impls; do
            v=$(awk -v s="$size" '$1 == s { print $2 }' "$prefix.$i" 2>/dev/null | median)
            printf '%12s' "${v:--}"
            eval "val_$i=\${v:-}"
            if [ "$i" != rail ] && [ -n "$v" ]; then
                if [ -z "$best" ]; then best=$v
                else best=$(awk -v a="$best" -v b="$v" -v h="$higher" 'BEGIN { print ((h ? b > a : b < a) ? b : a) }'); fi
            fi
        done
        if [ -n "$best" ] && [ -n "${val_rail:-}" ]; then
            awk -v r="$val_rail" -v b="$best" 'BEGIN { printf "%12.2f\n", r / b }'
        else echo; fi
    done
}
