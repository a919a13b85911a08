/* osu_bcast: MPI_Bcast from rank 0 latency, 4 B .. 1 MiB (-m MAX). */
#include "osu_coll.h"
static char *buf;
static void op(long sz) { MPI_Bcast(buf, (int)sz, MPI_CHAR, 0, MPI_COMM_WORLD); }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    buf = bench_alloc(1 << 20);
    osu_coll_run(argc, argv, "bcast", 1 << 20, op);
    MPI_Finalize();
    return 0;
}
