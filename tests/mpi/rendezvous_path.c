/* rendezvous_path EAGER|auto MIN: which protocol moves a message of each size around the shm device's
 * thresholds, seen from outside. Rank 0 posts MPI_Isend and then makes no MPI call for 500 ms;
 * rank 1 has its receive posted and times it. An eager message (size <= EAGER) and a rendezvous
 * the receiver reads itself (single copy: size >= MIN, or with "auto" a lone message up to the
 * whole-read limit) complete while the sender sleeps; a rendezvous in packets or by the shared
 * copy (the sender writes a part) needs the sender's progress, so it completes only after the
 * sleep.
 * Sizes: EAGER-1, EAGER, EAGER+1, the whole-read limit +-1 ("auto", a core per rank) and MIN-1,
 * MIN, MIN+1. MIN: a size, "none" (never single copy) or "auto" (the device's automatic choice:
 * every rendezvous when the job has more ranks than this machine has cores, else none). Every
 * message's bytes are checked. Other ranks idle.
 * Then which sends are eager, seen from the sender: rank 1 makes no MPI call for 300 ms before it
 * receives, while rank 0 tests its send: only an eager send completes (EAGER-1, EAGER, EAGER+1),
 * and with a receive of its own posted first, a send of up to the exchange limit ("auto": 8 KiB
 * with a core per rank, else EAGER).
 * Then the same sizes both ways: rank 1 first starts a rendezvous send of its own to rank 0, which
 * rank 0 receives only after its sleep. While it streams one, a receiver reads a rendezvous
 * message itself from every size on ("auto"; a set MIN: from MIN on, as one way).
 * Each measured send follows a message from rank 1 (a lone send: the eager limit rules). Last,
 * with "auto" EAGER and a core per rank, streams: two sends of one size back to back, the first
 * lone (MPI_Isend), the second part of a stream. A blocking second send (MPI_Send) is eager up to
 * 16 KiB (it returns while the receiver makes no MPI call: 16384 yes, 16385 no); a non-blocking
 * one joins a window while the first, a rendezvous, is in flight: eager only up to the exchange
 * limit (8192 yes, 8193 and 16384 no), above it the shared copy, which a lone message takes only
 * above 16 KiB (received after the sender's sleep: 16384, whose first send the receiver reads
 * whole during it, 16385, 32768). */
#include "mpitest.h"

#define SLEEP_MS 500
#define EARLY_MS 250 /* a completion this soon did not wait for the sender */

static double now_ms(void) { return MPI_Wtime() * 1e3; }

/* 1: completes without the sender's progress; 0: needs it. `whole`: the largest rendezvous the
 * receiver reads whole (0: none). */
static int expect_early(long n, long eager, long whole, long min) {
    return n <= eager || n <= whole || (min > 0 && n >= min);
}

/* A message from rank 1 to rank 0: rank 0's next send to rank 1 is a lone one, not part of a
 * stream of sends (a device may send a stream eagerly up to a higher limit). */
static void lone_next(void) {
    char c = 1;
    if (mt_rank == 1) MPI_OK(MPI_Send(&c, 1, MPI_BYTE, 0, 9, MPI_COMM_WORLD));
    if (mt_rank == 0) MPI_OK(MPI_Recv(&c, 1, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* back: a buffer of `back_n` bytes rank 1 sends to rank 0 at the same time (NULL: one way). */
static void one_size(long n, long eager, long whole, long min, unsigned char *s, unsigned char *r, unsigned seed,
                     unsigned char *back, long back_n) {
    MPI_Request rq, back_rq;
    if (mt_rank == 1) {
        memset(r, 0, (size_t)n);
        if (back) {
            mt_fill(back, (size_t)back_n, seed + 100);
            MPI_OK(MPI_Isend(back, (int)back_n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &back_rq));
        }
        MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq));
    }
    lone_next();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        mt_fill(s, (size_t)n, seed);
        MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq));
        mt_sleep_ms(SLEEP_MS);
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        if (back) {
            MPI_Status st;
            memset(back, 0, (size_t)back_n);
            MPI_OK(MPI_Recv(back, (int)back_n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, 1, 8, MPI_BYTE, (int)back_n);
            long bad = mt_verify(back, (size_t)back_n, seed + 100);
            CHECK(bad < 0, "size %ld, the message back: byte %ld wrong", n, bad);
        }
    } else if (mt_rank == 1) {
        const double t0 = now_ms();
        MPI_Status st;
        MPI_OK(MPI_Wait(&rq, &st));
        const double waited = now_ms() - t0;
        CHECK_STATUS(st, 0, 7, MPI_BYTE, (int)n);
        long bad = mt_verify(r, (size_t)n, seed);
        CHECK(bad < 0, "size %ld: byte %ld wrong", n, bad);
        const int early = waited < EARLY_MS;
        CHECK(early == expect_early(n, eager, whole, min),
              "size %ld (eager limit %ld, read whole up to %ld, single copy from %ld): received after "
              "%.0f ms, expected %s the sender's %d ms without progress",
              n, eager, whole, min, waited, expect_early(n, eager, whole, min) ? "during" : "after", SLEEP_MS);
        if (back) MPI_OK(MPI_Wait(&back_rq, MPI_STATUS_IGNORE));
    }
}

/* Rank 0 sends n bytes and tests the send for ALONE_MS while rank 1 makes no MPI call: only an
 * eager send completes. `exchange`: rank 0 has a receive from rank 1 posted first. */
#define ALONE_MS 300
static void sender_alone(long n, int exchange, long limit, unsigned char *s, unsigned char *r) {
    MPI_Request rq, ex_rq;
    char ex = 0;
    lone_next();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        if (exchange) MPI_OK(MPI_Irecv(&ex, 1, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &ex_rq));
        mt_fill(s, (size_t)n, 70);
        MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq));
        int done = 0;
        const double t0 = now_ms();
        while (!done && now_ms() - t0 < ALONE_MS / 2) MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        CHECK(done == (n <= limit),
              "size %ld%s: the send %s without the receiver (eager up to %ld expected)", n,
              exchange ? " with a receive posted" : "", done ? "completed" : "did not complete", limit);
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        if (exchange) MPI_OK(MPI_Wait(&ex_rq, MPI_STATUS_IGNORE));
    } else if (mt_rank == 1) {
        mt_sleep_ms(ALONE_MS);
        memset(r, 0, (size_t)n);
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mt_verify(r, (size_t)n, 70) < 0, "size %ld: wrong bytes", n);
        if (exchange) MPI_OK(MPI_Send(&ex, 1, MPI_BYTE, 0, 6, MPI_COMM_WORLD));
    }
}

/* After a message from rank 1 and a barrier, rank 0 starts two sends of n bytes back to back
 * (bytes of seeds `seed` and seed + 1) and returns 1; other ranks return 0. The first is an
 * MPI_Isend; the second too, or with `blocking` an MPI_Send (rq[1] is then MPI_REQUEST_NULL and
 * *send_ms the time it took). */
static int start_stream(long n, unsigned seed, unsigned char *s, MPI_Request rq[2], int blocking, double *send_ms) {
    lone_next();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank != 0) return 0;
    mt_fill(s, (size_t)n, seed);
    mt_fill(s + n, (size_t)n, seed + 1);
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq[0]));
    if (blocking) {
        const double t0 = now_ms();
        MPI_OK(MPI_Send(s + n, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
        *send_ms = now_ms() - t0;
        rq[1] = MPI_REQUEST_NULL;
    } else {
        MPI_OK(MPI_Isend(s + n, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq[1]));
    }
    return 1;
}

/* Two sends of n bytes back to back from rank 0, then its sleep: the first lone (read whole by the
 * receiver, `first_early`: during the sleep; or the shared copy, which needs the sender: after
 * it), the second streaming: eager or read whole by the receiver (`second_early`), or the shared
 * copy (after the sleep). */
static void stream(long n, int first_early, int second_early, unsigned char *s, unsigned char *r) {
    MPI_Request rq[2];
    if (mt_rank == 1) {
        memset(r, 0, 2 * (size_t)n);
        MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Irecv(r + n, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[1]));
    }
    if (start_stream(n, 50, s, rq, 0, NULL)) {
        mt_sleep_ms(SLEEP_MS);
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    } else if (mt_rank == 1) {
        /* Each completion's own time, whichever comes first. */
        const double t0 = now_ms();
        double took[2];
        for (int k = 0; k < 2; k++) {
            int index = MPI_UNDEFINED;
            MPI_OK(MPI_Waitany(2, rq, &index, MPI_STATUS_IGNORE));
            CHECK(index == 0 || index == 1, "stream of %ld B: MPI_Waitany gave index %d", n, index);
            took[index] = now_ms() - t0;
        }
        const double first = took[0], second = took[1];
        CHECK(mt_verify(r, (size_t)n, 50) < 0 && mt_verify(r + n, (size_t)n, 51) < 0, "stream of %ld B: wrong bytes", n);
        CHECK((second < EARLY_MS) == second_early, "stream of %ld B: the second send arrived after %.0f ms, expected %s",
              n, second, second_early ? "during the sender's sleep (eager or read whole)" : "after it (shared copy)");
        CHECK((first < EARLY_MS) == first_early, "stream of %ld B: the first (lone) send arrived after %.0f ms, "
              "expected %s", n, first, first_early ? "during the sender's sleep (read whole)" : "after it (shared copy)");
    }
}

/* Two sends of n bytes back to back from rank 0 while rank 1 makes no MPI call for ALONE_MS:
 * the second (part of a stream; `blocking`: MPI_Send) completes at once only when eager. */
static void stream_sender_alone(long n, int blocking, int eager, unsigned char *s, unsigned char *r) {
    MPI_Request rq[2];
    double send_ms = 0;
    if (start_stream(n, 80, s, rq, blocking, &send_ms)) {
        int done = blocking && send_ms < ALONE_MS / 2;
        const double t0 = now_ms();
        while (!blocking && !done && now_ms() - t0 < ALONE_MS / 2) MPI_OK(MPI_Test(&rq[1], &done, MPI_STATUS_IGNORE));
        CHECK(done == eager, "stream of %ld B: the second send (%s) %s without the receiver (%s expected)", n,
              blocking ? "MPI_Send" : "MPI_Isend", done ? "completed" : "did not complete",
              eager ? "eager" : "a rendezvous");
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    } else if (mt_rank == 1) {
        mt_sleep_ms(ALONE_MS);
        memset(r, 0, 2 * (size_t)n);
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(r + n, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mt_verify(r, (size_t)n, 80) < 0 && mt_verify(r + n, (size_t)n, 81) < 0, "stream of %ld B: wrong bytes", n);
    }
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rendezvous_path");
    CHECK(argc == 3, "usage: rendezvous_path EAGER|auto MIN|none|auto");
    /* "auto": the device's automatic limits. With a core per rank (the shared copy takes what is
     * above): a lone send eager up to 6 KiB, read whole by the receiver up to 16 KiB, a send while
     * a receive is posted eager up to 8 KiB; else 32 KiB and no whole read. */
    /* "auto_costly" (run with RAILMPI_SHM_CMA_CALL_NS of 800 or more, a core per rank): a
     * process_vm_readv call costs too much for a lone message's read, which is eager up to
     * 16 KiB then (sends with receives posted too), and oversubscribed every send is eager up to
     * 64 KiB; only the one-way sizes and lone sends are checked. */
    const int costly = !strcmp(argv[1], "auto_costly");
    const int auto_eager = costly || !strcmp(argv[1], "auto");
    const int core_each = mt_size <= mt_machine_cpus();
    const long eager = auto_eager ? (core_each ? (costly ? 16384 : 6144) : (costly ? 65536 : 32768)) : atol(argv[1]);
    const long whole = auto_eager && core_each && !costly ? 16384 : 0;
    const long exchange = auto_eager && core_each && !costly ? 8192 : eager;
    long min = 0, both_min = 0; /* 0: no single copy (one way, both ways) */
    if (!strcmp(argv[2], "auto")) {
        if (!core_each) min = eager + 1;
        both_min = eager + 1;
    } else if (strcmp(argv[2], "none") != 0) {
        min = both_min = atol(argv[2]);
    }
    CHECK(eager > 1 && (min == 0 || min > eager), "bad EAGER %ld or MIN %ld", eager, min);
    long sizes[9];
    int nsizes = 0;
    const long around[] = {eager, whole, min};
    for (int k = 0; k < 3; k++)
        if (around[k] > 0)
            for (long d = -1; d <= 1; d++) sizes[nsizes++] = around[k] + d;
    /* A stream with "auto" and a core per rank: eager up to 16 KiB (blocking sends; a window of
     * non-blocking ones: the exchange limit, then the shared copy), then the shared copy. */
    const long stream_eager = 16384, stream_most = 2 * stream_eager;
    long most = 2 * stream_most;
    for (int i = 0; i < nsizes; i++) most = sizes[i] > most ? sizes[i] : most;
    const long back_n = 4 * eager + 1; /* a rendezvous message */
    unsigned char *s = malloc((size_t)most), *r = malloc((size_t)most), *back = malloc((size_t)back_n);
    CHECK(s && r && back, "malloc");
    if (mt_size >= 2) {
        for (int i = 0; i < nsizes; i++) one_size(sizes[i], eager, whole, min, s, r, (unsigned)i, NULL, 0);
        for (long n = eager - 1; n <= eager + 1; n++) sender_alone(n, 0, eager, s, r);
        if (exchange > eager)
            for (long n = exchange - 1; n <= exchange + 1; n++) sender_alone(n, 1, exchange, s, r);
        for (int i = 0; i < nsizes && !costly; i++)
            one_size(sizes[i], eager, whole, both_min, s, r, 10u + (unsigned)i, back, back_n);
        if (auto_eager && core_each && !costly) {
            for (long n = stream_eager; n <= stream_eager + 1; n++) stream_sender_alone(n, 1, n <= stream_eager, s, r);
            for (long n = exchange; n <= exchange + 1; n++) stream_sender_alone(n, 0, n <= exchange, s, r);
            stream_sender_alone(stream_eager, 0, 0, s, r);
            stream(stream_eager, 1, 0, s, r);
            stream(stream_eager + 1, 0, 0, s, r);
            stream(stream_most, 0, 0, s, r);
        }
    }
    free(s);
    free(r);
    free(back);
    return mt_finish();
}
