/* rendezvous_path EAGER MIN: which protocol moves a message of each size around the shm device's
 * thresholds, seen from outside. Rank 0 posts MPI_Isend and then makes no MPI call for 500 ms;
 * rank 1 has its receive posted and times it. An eager message (size <= EAGER) and a rendezvous
 * the receiver reads itself (single copy: size >= MIN) complete while the sender sleeps; a
 * rendezvous in packets needs the sender's progress, so it completes only after the sleep.
 * Sizes: EAGER-1, EAGER, EAGER+1 and MIN-1, MIN, MIN+1. MIN: a size, "none" (never single copy)
 * or "auto" (the device's automatic choice: every rendezvous when the job has more ranks than
 * this machine has cores, else none). Every message's bytes are checked. Other ranks idle. */
#include "mpitest.h"

#define SLEEP_MS 500
#define EARLY_MS 250 /* a completion this soon did not wait for the sender */

static double now_ms(void) { return MPI_Wtime() * 1e3; }

/* 1: completes without the sender's progress; 0: needs it. */
static int expect_early(long n, long eager, long min) { return n <= eager || (min > 0 && n >= min); }

static void one_size(long n, long eager, long min, unsigned char *s, unsigned char *r, unsigned seed) {
    MPI_Request rq;
    if (mt_rank == 1) {
        memset(r, 0, (size_t)n);
        MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        mt_fill(s, (size_t)n, seed);
        MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq));
        mt_sleep_ms(SLEEP_MS);
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else if (mt_rank == 1) {
        const double t0 = now_ms();
        MPI_Status st;
        MPI_OK(MPI_Wait(&rq, &st));
        const double waited = now_ms() - t0;
        CHECK_STATUS(st, 0, 7, MPI_BYTE, (int)n);
        long bad = mt_verify(r, (size_t)n, seed);
        CHECK(bad < 0, "size %ld: byte %ld wrong", n, bad);
        const int early = waited < EARLY_MS;
        CHECK(early == expect_early(n, eager, min),
              "size %ld (eager limit %ld, single copy from %ld): received after %.0f ms, expected %s the "
              "sender's %d ms without progress",
              n, eager, min, waited, expect_early(n, eager, min) ? "during" : "after", SLEEP_MS);
    }
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rendezvous_path");
    CHECK(argc == 3, "usage: rendezvous_path EAGER MIN|none|auto");
    const long eager = atol(argv[1]);
    long min = 0; /* 0: no single copy */
    if (!strcmp(argv[2], "auto")) {
        if (mt_size > mt_machine_cpus()) min = eager + 1;
    } else if (strcmp(argv[2], "none") != 0) {
        min = atol(argv[2]);
    }
    CHECK(eager > 1 && (min == 0 || min > eager), "bad EAGER %ld or MIN %ld", eager, min);
    const long sizes[] = {eager - 1, eager, eager + 1, min - 1, min, min + 1};
    const int nsizes = min > 0 ? 6 : 3;
    const long most = min > 0 ? min + 1 : eager + 1;
    unsigned char *s = malloc((size_t)most), *r = malloc((size_t)most);
    CHECK(s && r, "malloc");
    if (mt_size >= 2) {
        for (int i = 0; i < nsizes; i++) one_size(sizes[i], eager, min, s, r, (unsigned)i);
    }
    free(s);
    free(r);
    return mt_finish();
}
