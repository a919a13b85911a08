/* osu_allreduce: MPI_Allreduce (MPI_SUM on floats) latency, 4 B .. 1 MiB (-m MAX). */
#include "osu_coll.h"
static float *sbuf, *rbuf;
static void op(long sz) { MPI_Allreduce(sbuf, rbuf, (int)(sz / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    sbuf = bench_alloc(1 << 20);
    rbuf = bench_alloc(1 << 20);
    osu_coll_run(argc, argv, "allreduce", 1 << 20, op);
    MPI_Finalize();
    return 0;
}
