/* many_outstanding: 10,000 outstanding Isend/Irecv pairs per rank between
 * ring neighbours (right/left; self with one rank), then Waitall; then 200
 * outstanding 64 KiB pairs. Checks order (same tag -> send order), data and
 * every status. */
#include "mpitest.h"

#define N 10000
#define NBIG 200
#define BIGN 16384

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "many_outstanding");
    int left = (mt_rank - 1 + mt_size) % mt_size, right = (mt_rank + 1) % mt_size;
    int *sb = malloc(sizeof(int) * N), *rb = malloc(sizeof(int) * N);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * N);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * N);
    for (int i = 0; i < N; i++) {
        sb[i] = mt_rank * 1000003 + i;
        rb[i] = -1;
    }
    /* Interleave: first half sends are posted before their receives, the
     * second half after, so both expected and unexpected paths are used. */
    for (int i = 0; i < N / 2; i++) MPI_OK(MPI_Isend(&sb[i], 1, MPI_INT, right, i % 100, MPI_COMM_WORLD, &rq[N + i]));
    for (int i = 0; i < N; i++) MPI_OK(MPI_Irecv(&rb[i], 1, MPI_INT, left, i % 100, MPI_COMM_WORLD, &rq[i]));
    for (int i = N / 2; i < N; i++) MPI_OK(MPI_Isend(&sb[i], 1, MPI_INT, right, i % 100, MPI_COMM_WORLD, &rq[N + i]));
    MPI_OK(MPI_Waitall(2 * N, rq, st));
    for (int i = 0; i < 2 * N; i++) CHECK(rq[i] == MPI_REQUEST_NULL, "request %d not freed by Waitall", i);
    for (int i = 0; i < N; i++) {
        CHECK_STATUS(st[i], left, i % 100, MPI_INT, 1);
        CHECK(rb[i] == left * 1000003 + i, "recv %d: got %d expected %d", i, rb[i], left * 1000003 + i);
    }

    int *big = malloc(sizeof(int) * BIGN * NBIG), *bigr = malloc(sizeof(int) * BIGN * NBIG);
    for (int i = 0; i < BIGN * NBIG; i++) {
        big[i] = mt_rank + i;
        bigr[i] = -1;
    }
    for (int i = 0; i < NBIG; i++) {
        MPI_OK(MPI_Irecv(bigr + (size_t)i * BIGN, BIGN, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[i]));
        MPI_OK(MPI_Isend(big + (size_t)i * BIGN, BIGN, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[NBIG + i]));
    }
    MPI_OK(MPI_Waitall(2 * NBIG, rq, st));
    for (int i = 0; i < NBIG; i++) CHECK_STATUS(st[i], left, 7, MPI_INT, BIGN);
    for (int i = 0; i < BIGN * NBIG; i++) CHECK(bigr[i] == left + i, "big element %d: %d", i, bigr[i]);
    free(big);
    free(bigr);
    free(sb);
    free(rb);
    free(rq);
    free(st);
    return mt_finish();
}
