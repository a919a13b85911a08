/* both_ways_help: large messages both ways (osu_bibw's shape at 16 MiB), where the rank that has
 * read everything sent to it while its own sends still wait for the peer's reads offers to write
 * some of them itself (p2p::Engine's help / write_run / run_written). Rank 0 sends a window of
 * messages of n bytes (WINDOW_BYTES in all, more than one flush reads: Engine::kReadChunk is
 * 64 MiB), each its own buffer, while rank 1 sends one message of `back` bytes: rank 0 is done
 * reading long before rank 1, asks for help and writes the last runs of its sends into rank 1's
 * buffers. Sizes cover whole pages, odd sizes (runs that do not end on a page) and messages
 * handed over whole, partly or not at all; then equal windows both ways. Every byte and status
 * is checked; rank 1's receive buffers are cleared first, so a run nobody wrote shows. */
#include "mpitest.h"

#define MIB (1L << 20)
#define WINDOW_BYTES (160 * MIB)
#define COUNT 48 /* most messages a window */
#define EQUAL_COUNT 19 /* equal windows of 8 MiB and a few pages: 152 MiB and more each way */

static void window(long n, int count, long back, unsigned char *s, unsigned char *r, unsigned seed) {
    const int peer = 1 - mt_rank;
    const long mine = mt_rank == 0 ? n : back, theirs = mt_rank == 0 ? back : n;
    const int sends = mt_rank == 0 ? count : 1, recvs = mt_rank == 0 ? 1 : count;
    MPI_Request rq[2 * COUNT + 2];
    MPI_Status st[2 * COUNT + 2];
    memset(r, 0, (size_t)(recvs * theirs));
    char go = 1;
    for (int i = 0; i < sends; i++) mt_fill(s + i * mine, (size_t)mine, seed + 100u * (unsigned)mt_rank + (unsigned)i);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < recvs; i++)
        MPI_OK(MPI_Irecv(r + i * theirs, (int)theirs, MPI_BYTE, peer, 30 + i, MPI_COMM_WORLD, &rq[i]));
    /* Rank 1 sends only once rank 0's rts's are in (the `go` after them), so that it has their
     * reads queued when rank 0, done reading, offers help. */
    if (mt_rank == 1) MPI_OK(MPI_Recv(&go, 1, MPI_CHAR, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < sends; i++)
        MPI_OK(MPI_Isend(s + i * mine, (int)mine, MPI_BYTE, peer, 30 + i, MPI_COMM_WORLD, &rq[recvs + i]));
    if (mt_rank == 0) MPI_OK(MPI_Send(&go, 1, MPI_CHAR, peer, 99, MPI_COMM_WORLD));
    MPI_OK(MPI_Waitall(recvs + sends, rq, st));
    for (int i = 0; i < recvs; i++) {
        CHECK_STATUS(st[i], peer, 30 + i, MPI_BYTE, (int)theirs);
        long bad = mt_verify(r + i * theirs, (size_t)theirs, seed + 100u * (unsigned)peer + (unsigned)i);
        CHECK(bad < 0, "%d messages of %ld B against %ld B back, message %d of %ld B: byte %ld wrong", count, n,
              back, i, theirs, bad);
    }
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "both_ways_help");
    unsigned char *s = malloc(WINDOW_BYTES + 2 * MIB), *r = malloc(WINDOW_BYTES + 2 * MIB);
    CHECK(s && r, "malloc");
    if (mt_size >= 2 && mt_rank < 2) {
        const long sizes[] = {16 * MIB, 4 * MIB, 4 * MIB + 123, 3 * MIB - 4095, 16 * MIB - 1};
        for (int i = 0; i < 5; i++) {
            long count = WINDOW_BYTES / sizes[i];
            if (count > COUNT) count = COUNT;
            window(sizes[i], (int)count, 2 * MIB, s, r, 10u * (unsigned)i);
            window(sizes[i], 1, 2 * MIB, s, r, 10u * (unsigned)i + 1);
        }
        /* osu_bibw's shape: equal windows both ways, whoever ends first helps. */
        for (int k = 0; k < 4; k++) {
            const int peer = 1 - mt_rank;
            const long n = 8 * MIB + 4096L * k;
            const int count = EQUAL_COUNT;
            MPI_Request rq[2 * EQUAL_COUNT];
            MPI_Status st[2 * EQUAL_COUNT];
            memset(r, 0, (size_t)(count * n));
            for (int i = 0; i < count; i++)
                MPI_OK(MPI_Irecv(r + i * n, (int)n, MPI_BYTE, peer, 40 + i, MPI_COMM_WORLD, &rq[i]));
            for (int i = 0; i < count; i++)
                mt_fill(s + i * n, (size_t)n, 500u + 10u * (unsigned)k + 100u * (unsigned)mt_rank + (unsigned)i);
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            for (int i = 0; i < count; i++)
                MPI_OK(MPI_Isend(s + i * n, (int)n, MPI_BYTE, peer, 40 + i, MPI_COMM_WORLD, &rq[count + i]));
            MPI_OK(MPI_Waitall(2 * count, rq, st));
            for (int i = 0; i < count; i++) {
                CHECK_STATUS(st[i], peer, 40 + i, MPI_BYTE, (int)n);
                long bad = mt_verify(r + i * n, (size_t)n, 500u + 10u * (unsigned)k + 100u * (unsigned)peer + (unsigned)i);
                CHECK(bad < 0, "equal windows of %ld B, message %d: byte %ld wrong", n, i, bad);
            }
        }
    }
    free(s);
    free(r);
    return mt_finish();
}
