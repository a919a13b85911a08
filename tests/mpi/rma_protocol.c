/* rma_protocol: the boundaries of RailMPI's one-sided protocol (src/rma/window.hpp), checked on
 * data, against any MPI. A request message holds at most 4096 bytes (a 64-byte header, the target
 * region's blocks of 32 bytes, then the data when it fits): puts, accumulates and get_accumulates
 * of 3900..4100 bytes straddle the point where the data leaves the request for a message of its
 * own; a target datatype of 300 blocks makes the request itself too long (it follows as a second
 * message); 1 MiB moves by rendezvous. Every rank targets itself and its right neighbour, in a
 * fence epoch and in a lock_all epoch; an Rput freed with MPI_Request_free before completion. */
#include "mpitest.h"

#define WIN_INTS (1 << 18) /* 1 MiB window */

static int *mem;
static MPI_Win win;

static int value(int writer, int i, int round) { return writer * 1000003 + i * 7 + round; }

/* Put `n` ints from every rank to `target`'s offset `off` (fence epoch), check at the target. */
static void put_sizes(int round) {
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    static const int sizes[] = {0, 1, 975, 976, 977, 990, 1000, 1008, 1024, 4096, 70000, WIN_INTS / 2};
    int *buf = malloc(sizeof(int) * (WIN_INTS / 2));
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        int n = sizes[s];
        for (int i = 0; i < n; ++i) buf[i] = value(mt_rank, i, round + (int)s);
        for (int i = 0; i < WIN_INTS; ++i) mem[i] = -1;
        MPI_OK(MPI_Win_fence(0, win));
        MPI_OK(MPI_Put(buf, n, MPI_INT, right, 3, n, MPI_INT, win));
        MPI_OK(MPI_Win_fence(0, win));
        for (int i = 0; i < n; ++i)
            CHECK(mem[3 + i] == value(left, i, round + (int)s), "put of %d ints: [%d] = %d, expected %d", n, i,
                  mem[3 + i], value(left, i, round + (int)s));
        CHECK(mem[2] == -1 && mem[3 + n] == -1, "put of %d ints wrote outside its region", n);
        /* Get it back from the right neighbour into a fresh buffer. */
        int *back = malloc(sizeof(int) * (size_t)(n + 1));
        MPI_OK(MPI_Get(back, n, MPI_INT, right, 3, n, MPI_INT, win));
        MPI_OK(MPI_Win_fence(0, win));
        for (int i = 0; i < n; ++i)
            CHECK(back[i] == value(mt_rank, i, round + (int)s), "get of %d ints: [%d] = %d", n, i, back[i]);
        free(back);
    }
    free(buf);
}

/* Accumulate and get_accumulate of `n` ints into self and the right neighbour, lock_all epoch. */
static void accumulate_sizes(void) {
    int right = (mt_rank + 1) % mt_size;
    static const int sizes[] = {1, 970, 975, 976, 977, 1000, 1024, 5000, 100000};
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        int n = sizes[s];
        int *ones = malloc(sizeof(int) * (size_t)n), *old = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; ++i) ones[i] = i + 1;
        for (int i = 0; i < WIN_INTS; ++i) mem[i] = 0;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Accumulate(ones, n, MPI_INT, mt_rank, 0, n, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(ones, n, MPI_INT, right, 0, n, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_flush_all(win));
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int expect = 2; /* self and the left neighbour (self twice with one rank) */
        for (int i = 0; i < n; ++i)
            CHECK(mem[i] == expect * (i + 1), "accumulate of %d ints: [%d] = %d, expected %d", n, i, mem[i],
                  expect * (i + 1));
        /* get_accumulate to self: the old values come back, the new ones are in place. */
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
        MPI_OK(MPI_Get_accumulate(ones, n, MPI_INT, old, n, MPI_INT, mt_rank, 0, n, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_unlock(mt_rank, win));
        for (int i = 0; i < n; ++i) {
            CHECK(old[i] == expect * (i + 1), "get_accumulate of %d ints to self: old [%d] = %d", n, i, old[i]);
            CHECK(mem[i] == (expect + 1) * (i + 1), "get_accumulate of %d ints to self: new [%d] = %d", n, i, mem[i]);
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        free(ones);
        free(old);
    }
}

/* A target datatype of 300 separate blocks: the request (64 + 300 * 32 bytes) is a long one. */
static void long_request(void) {
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    enum { BLOCKS = 300 };
    int lens[BLOCKS], displs[BLOCKS], src[2 * BLOCKS];
    for (int b = 0; b < BLOCKS; ++b) {
        lens[b] = 1 + b % 2;
        displs[b] = 5 * b + (b % 3);
    }
    MPI_Datatype scattered;
    MPI_OK(MPI_Type_indexed(BLOCKS, lens, displs, MPI_INT, &scattered));
    MPI_OK(MPI_Type_commit(&scattered));
    int n = 0;
    for (int b = 0; b < BLOCKS; ++b) n += lens[b];
    for (int i = 0; i < n; ++i) src[i] = value(mt_rank, i, 77);
    for (int i = 0; i < WIN_INTS; ++i) mem[i] = -1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, n, MPI_INT, right, 10, 1, scattered, win));
    MPI_OK(MPI_Win_fence(0, win));
    int k = 0;
    for (int b = 0; b < BLOCKS; ++b)
        for (int j = 0; j < lens[b]; ++j, ++k)
            CHECK(mem[10 + displs[b] + j] == value(left, k, 77), "long request put: block %d [%d] = %d", b, j,
                  mem[10 + displs[b] + j]);
    /* Checked before the next epoch's accumulate may land here. */
    MPI_OK(MPI_Win_fence(0, win));
    /* Accumulate through the same type: each element + its origin value. */
    MPI_OK(MPI_Accumulate(src, n, MPI_INT, right, 10, 1, scattered, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    k = 0;
    for (int b = 0; b < BLOCKS; ++b)
        for (int j = 0; j < lens[b]; ++j, ++k)
            CHECK(mem[10 + displs[b] + j] == 2 * value(left, k, 77), "long request accumulate: block %d [%d] = %d", b,
                  j, mem[10 + displs[b] + j]);
    MPI_OK(MPI_Type_free(&scattered));
}

/* An Rput freed before it completes, then a flush: the data is there. */
static void freed_request(void) {
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int v[64];
    for (int i = 0; i < 64; ++i) v[i] = value(mt_rank, i, 5);
    for (int i = 0; i < WIN_INTS; ++i) mem[i] = -1;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Request r;
    MPI_OK(MPI_Rput(v, 64, MPI_INT, right, 100, 64, MPI_INT, win, &r));
#ifdef MT_REFERENCE_MPICH_402
    /* MPICH 4.0.2 refuses MPI_Request_free of an RMA request ("invalid request (kind=12)"). */
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
#else
    MPI_OK(MPI_Request_free(&r));
#endif
    CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 64; ++i)
        CHECK(mem[100 + i] == value(left, i, 5), "freed Rput: [%d] = %d", i, mem[100 + i]);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_protocol");
    MPI_OK(MPI_Win_allocate(sizeof(int) * WIN_INTS, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    put_sizes(0);
    accumulate_sizes();
    long_request();
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    freed_request();
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    mt_finish();
    return 0;
}
