/* sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace ring shifts (periodic,
 * several sizes up to 1 MiB, ANY_SOURCE/ANY_TAG on the receive side) and a
 * non-periodic shift where the ends talk to MPI_PROC_NULL. */
#include "mpitest.h"

#define MAXN (256 * 1024)

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "sendrecv");
    int left = (mt_rank - 1 + mt_size) % mt_size, right = (mt_rank + 1) % mt_size;
    int sizes[5] = {0, 1, 100, 5000, MAXN};
    int *sb = malloc(sizeof(int) * MAXN), *rb = malloc(sizeof(int) * MAXN);
    MPI_Status st;
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        for (int rep = 0; rep < 5; rep++) {
            for (int i = 0; i < n; i++) sb[i] = mt_rank * 7 + i + rep;
            /* rep%3: 0 explicit, 1 ANY_SOURCE, 2 ANY_TAG (never both: with both, a
             * Sendrecv_replace message from the right neighbour could match) */
            int src = (rep % 3 == 1) ? MPI_ANY_SOURCE : left, tag = (rep % 3 == 2) ? MPI_ANY_TAG : 40 + k;
            MPI_OK(MPI_Sendrecv(sb, n, MPI_INT, right, 40 + k, rb, MAXN, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, 40 + k, MPI_INT, n);
            for (int i = 0; i < n; i++) CHECK(rb[i] == left * 7 + i + rep, "Sendrecv n=%d element %d", n, i);
            /* replace: shift the other way */
            for (int i = 0; i < n; i++) sb[i] = mt_rank * 11 + i - rep;
            MPI_OK(MPI_Sendrecv_replace(sb, n, MPI_INT, left, 60 + k, right, 60 + k, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, right, 60 + k, MPI_INT, n);
            for (int i = 0; i < n; i++)
                CHECK(sb[i] == right * 11 + i - rep, "Sendrecv_replace n=%d element %d: %d", n, i, sb[i]);
        }
    }
    /* non-periodic shift to the right */
    {
        int dst = mt_rank + 1 < mt_size ? mt_rank + 1 : MPI_PROC_NULL;
        int src = mt_rank > 0 ? mt_rank - 1 : MPI_PROC_NULL;
        int v = 500 + mt_rank, r = -3;
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, dst, 7, &r, 1, MPI_INT, src, 7, MPI_COMM_WORLD, &st));
        if (src == MPI_PROC_NULL) {
            CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
            CHECK(r == -3, "receive from MPI_PROC_NULL wrote the buffer");
        } else {
            CHECK_STATUS(st, src, 7, MPI_INT, 1);
            CHECK(r == 500 + src, "non-periodic shift value %d", r);
        }
        int w = 900 + mt_rank;
        MPI_OK(MPI_Sendrecv_replace(&w, 1, MPI_INT, src, 8, dst, 8, MPI_COMM_WORLD, &st));
        if (dst == MPI_PROC_NULL) {
            CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
            CHECK(w == 900 + mt_rank, "replace from MPI_PROC_NULL changed the buffer");
        } else {
            CHECK_STATUS(st, dst, 8, MPI_INT, 1);
            CHECK(w == 900 + dst, "non-periodic replace value %d", w);
        }
    }
    free(sb);
    free(rb);
    return mt_finish();
}
