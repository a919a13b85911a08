/* Thousands of dup+free and split+free cycles; traffic on the parent and on the child at the same
 * time with the same tags must never mix (context ids never collide). */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "comm_create_free_loop");
    int iters = mt_iters(argc, argv, 2000);
    int right = (mt_rank + 1) % mt_size, left = (mt_rank - 1 + mt_size) % mt_size;
    MPI_Comm keep[8];
    for (int k = 0; k < 8; k++) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &keep[k]));
    for (int i = 0; i < iters; i++) {
        MPI_Comm c;
        if (i % 2 == 0)
            MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        else
            MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &c));
        int cr, cn;
        MPI_OK(MPI_Comm_rank(c, &cr));
        MPI_OK(MPI_Comm_size(c, &cn));
        if (i % 50 == 0 || i < 4) {
            /* parent and child message with the same tag, child first posted, parent first sent */
            int pv = -1, cv = -1, ps = 100000 + i * 64 + mt_rank, cs = 200000 + i * 64 + mt_rank;
            MPI_Request rq[4];
            MPI_OK(MPI_Irecv(&cv, 1, MPI_INT, (cr - 1 + cn) % cn, 9, c, &rq[0]));
            MPI_OK(MPI_Irecv(&pv, 1, MPI_INT, left, 9, keep[i % 8], &rq[1]));
            MPI_OK(MPI_Isend(&ps, 1, MPI_INT, right, 9, keep[i % 8], &rq[2]));
            MPI_OK(MPI_Isend(&cs, 1, MPI_INT, (cr + 1) % cn, 9, c, &rq[3]));
            MPI_Status sts[4];
            MPI_OK(MPI_Waitall(4, rq, sts));
            CHECK(pv == 100000 + i * 64 + left, "iteration %d: parent got %d", i, pv);
            CHECK(cv / 64 == 200000 / 64 + i, "iteration %d: child got %d", i, cv);
        }
        MPI_OK(MPI_Comm_free(&c));
    }
    for (int k = 0; k < 8; k++) MPI_OK(MPI_Comm_free(&keep[k]));
    return mt_finish();
}
