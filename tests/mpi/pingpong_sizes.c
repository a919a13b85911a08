/* pingpong_sizes [K]: ranks 0 and 1 exchange every size 0, 1, 2, 3, 2^k-1,
 * 2^k, 2^k+1 up to 2^K bytes (default K = 24: 16 MiB) and every size from 960
 * to 1056 (the shm device's largest frame in the cell ring, with a cached
 * 4-byte or a full header, and the first announced ones) in both directions,
 * checking every byte, the status and that nothing past the message is
 * written. Other ranks idle. With one rank, rank 0 sends to itself with
 * Isend/Irecv. */
#include "mpitest.h"

#define GUARD 16

static long maxsz = 1L << 24;

static int sizes[256];
static int nsizes;

static void add_size(long s) {
    if (s < 0 || s > maxsz) return;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] == s) return;
    sizes[nsizes++] = (int)s;
}

static void check_recv(unsigned char *r, int n, unsigned seed, MPI_Status *st, int src, int tag) {
    CHECK_STATUS(*st, src, tag, MPI_BYTE, n);
    long bad = mt_verify(r, (size_t)n, seed);
    CHECK(bad < 0, "size %d: byte %ld is 0x%02x expected 0x%02x", n, bad, r[bad < 0 ? 0 : bad],
          mt_pat((size_t)(bad < 0 ? 0 : bad), seed));
    for (int g = 0; g < GUARD; g++)
        CHECK(r[n + g] == 0xEE, "size %d: receive wrote past message end at +%d", n, g);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "pingpong_sizes");
    int maxk = argc > 1 ? atoi(argv[1]) : 24;
    CHECK(maxk >= 2 && maxk <= 28, "K must be 2..28, not %d", maxk);
    maxsz = 1L << maxk;
    add_size(0);
    add_size(1);
    add_size(2);
    add_size(3);
    for (int k = 2; k <= maxk; k++) {
        add_size((1L << k) - 1);
        add_size(1L << k);
        add_size((1L << k) + 1);
    }
    for (long n = 960; n <= 1056; n++) add_size(n);
    unsigned char *s = malloc((size_t)maxsz + GUARD), *r = malloc((size_t)maxsz + GUARD);
    CHECK(s && r, "malloc");
    if (mt_size == 1) {
        for (int i = 0; i < nsizes; i++) {
            int n = sizes[i];
            mt_fill(s, (size_t)n, (unsigned)i);
            memset(r, 0xEE, (size_t)n + GUARD);
            MPI_Request rq[2];
            MPI_Status st[2];
            MPI_OK(MPI_Irecv(r, n + GUARD, MPI_BYTE, 0, i, MPI_COMM_WORLD, &rq[0]));
            MPI_OK(MPI_Isend(s, n, MPI_BYTE, 0, i, MPI_COMM_WORLD, &rq[1]));
            MPI_OK(MPI_Waitall(2, rq, st));
            check_recv(r, n, (unsigned)i, &st[0], 0, i);
        }
    } else if (mt_rank < 2) {
        int peer = 1 - mt_rank;
        for (int i = 0; i < nsizes; i++) {
            int n = sizes[i];
            MPI_Status st;
            if (mt_rank == 0) {
                mt_fill(s, (size_t)n, (unsigned)i);
                MPI_OK(MPI_Send(s, n, MPI_BYTE, peer, i, MPI_COMM_WORLD));
                memset(r, 0xEE, (size_t)n + GUARD);
                MPI_OK(MPI_Recv(r, n + GUARD, MPI_BYTE, peer, i + 1000, MPI_COMM_WORLD, &st));
                check_recv(r, n, (unsigned)i + 5000u, &st, peer, i + 1000);
            } else {
                memset(r, 0xEE, (size_t)n + GUARD);
                MPI_OK(MPI_Recv(r, n + GUARD, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st));
                check_recv(r, n, (unsigned)i, &st, peer, i);
                mt_fill(s, (size_t)n, (unsigned)i + 5000u);
                MPI_OK(MPI_Send(s, n, MPI_BYTE, peer, i + 1000, MPI_COMM_WORLD));
            }
        }
    }
    free(s);
    free(r);
    return mt_finish();
}
