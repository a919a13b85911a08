/* shared_copy MIN|none|auto: which rendezvous messages, one way, the two ranks copy together
 * (the receiver reads the second half itself while the sender writes the first half into the
 * receiver's buffer), seen from outside, at MIN-1, MIN, MIN+1 and at larger odd sizes.
 * Rank 1 posts its receive and sends rank 0 a byte (so the send is a lone one, not a stream);
 * rank 0 posts MPI_Isend, sleeps 100 ms without MPI calls, then waits.
 * Rank 1 calls MPI_Test until its request completes or the last byte of its buffer is there
 * without the request complete (the receiver read the tail when it matched). Then it makes no MPI
 * call and watches the first byte of its buffer: the sender, in MPI_Wait, writes the head there.
 * Shared: the tail came first and the head came with no receiver call. Any other path (eager,
 * packets, one whole single copy) completes in MPI_Test with no such moment: packets fill the
 * buffer from the front, a whole read completes in the call that matched.
 * MIN: "auto" is 16385 with a core per rank (the device's threshold: every rendezvous above the
 * automatic whole-read limit of a lone send, 16384; 12305 B is read whole) and none with more ranks
 * than cores (every rendezvous is then read whole). Every message's bytes and status are checked; other ranks idle.
 * Last, a truncated receive of a shared-size message: MPI_ERR_TRUNCATE and the first bytes. */
#include "mpitest.h"

#define LIMIT_S 20.0 /* no phase may take longer */

static unsigned char pattern(long i, unsigned seed) { return (unsigned char)((i * 131 + seed) % 251 + 1); }

/* A message from rank 1 to rank 0: rank 0's next send to rank 1 is a lone one (a stream of
 * sends may go eagerly up to a higher limit). */
static void lone_next(void) {
    char c = 1;
    if (mt_rank == 1) MPI_OK(MPI_Send(&c, 1, MPI_BYTE, 0, 9, MPI_COMM_WORLD));
    if (mt_rank == 0) MPI_OK(MPI_Recv(&c, 1, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* 1: moved by a shared copy; 0: some other path. */
static int one_size(long n, unsigned seed, unsigned char *s, volatile unsigned char *r) {
    int shared = 0;
    MPI_Request rq;
    if (mt_rank == 1) {
        memset((void *)r, 0, (size_t)n);
        MPI_OK(MPI_Irecv((void *)r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq));
    }
    lone_next();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        for (long i = 0; i < n; i++) s[i] = pattern(i, seed);
        MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq));
        mt_sleep_ms(100);
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else if (mt_rank == 1) {
        MPI_Status st;
        int done = 0;
        const double t0 = MPI_Wtime();
        for (;;) {
            MPI_OK(MPI_Test(&rq, &done, &st));
            if (done || r[n - 1] != 0) break;
            CHECK(MPI_Wtime() - t0 < LIMIT_S, "size %ld: neither complete nor the tail read after %.0f s", n, LIMIT_S);
        }
        if (!done) {
            /* the tail is here: no MPI call from now until the head shows */
            CHECK(r[n - 1] == pattern(n - 1, seed), "size %ld: last byte %d before completion, expected %d", n,
                  r[n - 1], pattern(n - 1, seed));
            const double t1 = MPI_Wtime();
            while (r[0] == 0) {
                CHECK(MPI_Wtime() - t1 < LIMIT_S, "size %ld: tail read, but no head written by the sender in %.0f s", n,
                      LIMIT_S);
            }
            shared = 1;
            MPI_OK(MPI_Wait(&rq, &st));
        }
        CHECK_STATUS(st, 0, 7, MPI_BYTE, (int)n);
        for (long i = 0; i < n; i++)
            CHECK(r[i] == pattern(i, seed), "size %ld (%s): byte %ld is %d, expected %d", n,
                  shared ? "shared copy" : "other path", i, r[i], pattern(i, seed));
    }
    MPI_OK(MPI_Bcast(&shared, 1, MPI_INT, 1, MPI_COMM_WORLD));
    return shared;
}

/* A shared-size message into a smaller receive: truncated, its first bytes delivered. */
static void truncated(long n, unsigned char *s, unsigned char *r) {
    const long cap = n / 2 + 1;
    if (mt_rank == 0) {
        for (long i = 0; i < n; i++) s[i] = pattern(i, 99);
        MPI_OK(MPI_Send(s, (int)n, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
    } else if (mt_rank == 1) {
        MPI_Status st;
        memset(r, 0, (size_t)n);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        const int rc = MPI_Recv(r, (int)cap, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        int cls = 0;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "size %ld into %ld bytes: error class %d, expected MPI_ERR_TRUNCATE", n, cap, cls);
        for (long i = 0; i < cap; i++) CHECK(r[i] == pattern(i, 99), "truncated: byte %ld wrong", i);
        CHECK(r[cap] == 0, "truncated: byte %ld written past the receive", cap);
    }
    lone_next();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "shared_copy");
    CHECK(argc == 2, "usage: shared_copy MIN|none|auto");
    long min = 0; /* 0: never */
    if (!strcmp(argv[1], "auto")) {
        if (mt_size <= mt_machine_cpus()) min = 16385;
    } else if (strcmp(argv[1], "none") != 0) {
        min = atol(argv[1]);
    }
    const long probe = min > 0 ? min : 32769;
    const long sizes[] = {probe - 1, probe, probe + 1, 3 * 4096 + 17, 1048576 + 13, 4 * 1048576 + 4095};
    const long most = 4 * 1048576 + 4096 + probe;
    unsigned char *s = malloc((size_t)most), *r = malloc((size_t)most);
    CHECK(s && r, "malloc");
    if (mt_size >= 2) {
        for (int i = 0; i < 6; i++) {
            const long n = sizes[i];
            /* the sender writes whole pages of the first half: nothing below two pages */
            const int expect = min > 0 && n >= min && n >= 8192;
            const int got = one_size(n, (unsigned)i, s, r);
            if (mt_rank == 0)
                CHECK(got == expect, "size %ld (shared copy from %ld): %s, expected %s", n, min,
                      got ? "shared copy" : "another path", expect ? "a shared copy" : "another path");
        }
        truncated(probe + 4096, s, r);
    }
    free(s);
    free(r);
    return mt_finish();
}
