/* both_ways MODE: whether an eager-sized message goes by the receiver's single copy because its
 * sender waits for a large message too (a posted receive of 6 KiB or more: osu_bibw, exchanges),
 * or through the rings when the device says they are faster (RAILMPI_SHM_BOTH_WAYS_RINGS).
 * Seen from the sender: an eager MPI_Isend completes at once, a single copy only after the
 * receiver has read it, and rank 1 posts its receive only after SLEEP_MS. Sizes: 6 KiB - 1, 6
 * KiB, the eager limit 64 KiB; each one way (rank 0 has no receive posted), both ways (a 64 KiB
 * receive from rank 1 posted first) and beside a small posted receive (4 KiB: not large).
 * MODE "auto": both ways from 6 KiB on go by single copy; "none" (CMA off, or RAILMPI_SHM_CMA_MIN
 * set): always eager; "rings" (RAILMPI_SHM_BOTH_WAYS_RINGS=1, the default eager limits where a
 * process_vm_readv call costs 0.8 us or more): both ways eager up to 32 KiB, 64 KiB by packets
 * (late, as one way: the shared copy, and beside a small posted receive). Then windows both ways (osu_bibw's shape: WINDOW receives posted, WINDOW
 * sends of 5 sizes, each message its own buffer; by single copy the receiver reads a window's
 * messages in one batch), and a stream of STREAM_WINDOWS windows of 8 KiB and of 40000 B (where
 * the device measures both ways, some of them go the way not in use). Every message's bytes and
 * status are checked. Other ranks idle. */
#include "mpitest.h"

#define SLEEP_MS 500
#define LATE_MS 250 /* a send that took this long waited for the receiver */
#define BACK 65536

static double now_ms(void) { return MPI_Wtime() * 1e3; }

/* posted: capacity of the receive rank 0 posts before its send (0: none). */
static void one_case(long n, long posted, int late, unsigned char *s, unsigned char *r, unsigned char *back,
                     unsigned seed) {
    MPI_Request rq, brq;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        if (posted) MPI_OK(MPI_Irecv(back, (int)posted, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &brq));
        mt_fill(s, (size_t)n, seed);
        const double t0 = now_ms();
        MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq));
        int done = 0;
        while (!done) MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        const double took = now_ms() - t0;
        CHECK((took >= LATE_MS) == late,
              "size %ld beside a posted receive of %ld bytes: the send completed after %.0f ms, expected %s "
              "(the receiver posts after %d ms)",
              n, posted, took, late ? "a rendezvous the receiver completes (late)" : "eager (at once)", SLEEP_MS);
        if (posted) {
            MPI_Status st;
            MPI_OK(MPI_Wait(&brq, &st));
            CHECK_STATUS(st, 1, 9, MPI_BYTE, (int)posted);
            long bad = mt_verify(back, (size_t)posted, seed + 100);
            CHECK(bad < 0, "size %ld, the message back: byte %ld wrong", n, bad);
        }
    } else if (mt_rank == 1) {
        mt_sleep_ms(SLEEP_MS);
        MPI_Status st;
        memset(r, 0, (size_t)n);
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, 0, 7, MPI_BYTE, (int)n);
        long bad = mt_verify(r, (size_t)n, seed);
        CHECK(bad < 0, "size %ld: byte %ld wrong", n, bad);
        if (posted) {
            mt_fill(back, (size_t)posted, seed + 100);
            MPI_OK(MPI_Send(back, (int)posted, MPI_BYTE, 0, 9, MPI_COMM_WORLD));
        }
    }
}

#define WINDOW 24
#define WINDOW_MAX 65536

/* Ranks 0 and 1 each post WINDOW receives from the other, then send WINDOW messages of n bytes. */
static void window_case(long n, unsigned char *s, unsigned char *r, unsigned seed) {
    if (mt_rank > 1) return;
    const int peer = 1 - mt_rank;
    MPI_Request rq[2 * WINDOW];
    MPI_Status st[2 * WINDOW];
    memset(r, 0, (size_t)(WINDOW * n));
    for (int w = 0; w < WINDOW; w++)
        MPI_OK(MPI_Irecv(r + w * n, (int)n, MPI_BYTE, peer, 20 + w, MPI_COMM_WORLD, &rq[w]));
    for (int w = 0; w < WINDOW; w++) {
        mt_fill(s + w * n, (size_t)n, seed + 50u * (unsigned)mt_rank + (unsigned)w);
        MPI_OK(MPI_Isend(s + w * n, (int)n, MPI_BYTE, peer, 20 + w, MPI_COMM_WORLD, &rq[WINDOW + w]));
    }
    MPI_OK(MPI_Waitall(2 * WINDOW, rq, st));
    for (int w = 0; w < WINDOW; w++) {
        CHECK_STATUS(st[w], peer, 20 + w, MPI_BYTE, (int)n);
        long bad = mt_verify(r + w * n, (size_t)n, seed + 50u * (unsigned)peer + (unsigned)w);
        CHECK(bad < 0, "window of %ld B, message %d: byte %ld wrong", n, w, bad);
    }
}

#define STREAM_WINDOWS 60

/* Whether a send of n bytes beside a posted receive of `posted` bytes waits for the receiver. */
static int expect_late(const char *mode, long n, long posted) {
    if (!strcmp(mode, "auto")) return posted == BACK && n >= 6144;
    if (!strcmp(mode, "rings")) return n > 32768;
    return 0;
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "both_ways");
    CHECK(argc == 2 && (!strcmp(argv[1], "auto") || !strcmp(argv[1], "none") || !strcmp(argv[1], "rings")),
          "usage: both_ways auto|none|rings");
    const char *mode = argv[1];
    const long sizes[] = {6143, 6144, 65536};
    unsigned char *s = malloc(WINDOW * WINDOW_MAX), *r = malloc(WINDOW * WINDOW_MAX), *back = malloc(BACK);
    CHECK(s && r && back, "malloc");
    if (mt_size >= 2) {
        for (int i = 0; i < 3; i++) {
            const long n = sizes[i];
            one_case(n, 0, expect_late(mode, n, 0), s, r, back, 10u * (unsigned)i);
            one_case(n, BACK, expect_late(mode, n, BACK), s, r, back, 10u * (unsigned)i + 1);
            one_case(n, 4096, expect_late(mode, n, 4096), s, r, back, 10u * (unsigned)i + 2);
        }
        const long window_sizes[] = {6144, 8192, 16384 + 5, 40000, WINDOW_MAX};
        for (int i = 0; i < 5; i++)
            for (int k = 0; k < 3; k++) window_case(window_sizes[i], s, r, 100u * (unsigned)i + 7u * (unsigned)k);
        for (int k = 0; k < STREAM_WINDOWS; k++) {
            window_case(8192, s, r, 1000u + (unsigned)k);
            window_case(40000, s, r, 2000u + (unsigned)k);
        }
    }
    free(s);
    free(r);
    free(back);
    return mt_finish();
}
