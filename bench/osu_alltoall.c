/* osu_alltoall: MPI_Alltoall latency, 4 B .. 64 KiB per rank pair (-m MAX). */
#include "osu_coll.h"
static char *sbuf, *rbuf;
static void op(long sz) { MPI_Alltoall(sbuf, (int)sz, MPI_CHAR, rbuf, (int)sz, MPI_CHAR, MPI_COMM_WORLD); }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    sbuf = bench_alloc((long)n << 16);
    rbuf = bench_alloc((long)n << 16);
    osu_coll_run(argc, argv, "alltoall", 1 << 16, op);
    MPI_Finalize();
    return 0;
}
