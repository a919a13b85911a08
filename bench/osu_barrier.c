/* osu_barrier: MPI_Barrier latency (reported as size 0). */
#include "osu_coll.h"
static void op(long sz) { (void)sz; MPI_Barrier(MPI_COMM_WORLD); }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    osu_coll_run(argc, argv, "barrier", -1, op);
    MPI_Finalize();
    return 0;
}
