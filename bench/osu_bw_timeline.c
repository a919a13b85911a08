/* osu_bw_timeline: bandwidth over time, for failover runs. Rank 0 streams
 * messages of one size to rank 1 (a window of MPI_Isend, then MPI_Waitall,
 * again and again) for a fixed duration; rank 1 keeps a window of MPI_Irecv
 * posted and counts the bytes that arrive in each time slot. Rank 1 prints
 * one line per slot: seconds since the start (wall clock, so a script can
 * line the slots up with the moments it cut a link), and MB/s in that slot.
 *
 *   -d SECONDS   duration of the stream (default 20)
 *   -s BYTES     message size (default 1 MiB)
 *   -w N         window of outstanding messages (default 8)
 *   -t MS        slot length in milliseconds (default 100)
 *
 * The first 8 bytes of every message say whether it is the last one. Every
 * message's payload is a pattern derived from its number; rank 1 checks it,
 * so a lost, doubled or corrupted message shows as an error, not as a number.
 * OSU-style, written for RailMPI; builds against any MPI. */
#include "bench_common.h"

#include <stdint.h>
#include <sys/time.h>

#define MAX_WINDOW 64

static double wall_now(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

/* Message n: header {n, last}, then bytes (n * 31 + i) & 0xff from byte 16 on. */
static void fill(unsigned char *buf, long size, uint64_t n, uint64_t last) {
    memcpy(buf, &n, 8);
    memcpy(buf + 8, &last, 8);
    for (long i = 16; i < size; i += 4096) buf[i] = (unsigned char)((n * 31 + (uint64_t)i) & 0xff);
}

static int check(const unsigned char *buf, long size, uint64_t n) {
    uint64_t got;
    memcpy(&got, buf, 8);
    if (got != n) return 0;
    for (long i = 16; i < size; i += 4096)
        if (buf[i] != (unsigned char)((n * 31 + (uint64_t)i) & 0xff)) return 0;
    return 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_need_two(size, rank, "osu_bw_timeline");
    double duration = 20, slot = 0.1;
    long msg = 1 << 20;
    int window = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-d")) duration = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-s")) msg = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-w")) window = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-t")) slot = atof(argv[i + 1]) / 1000.0;
    }
    if (msg < 16) msg = 16;
    if (window < 1) window = 1;
    if (window > MAX_WINDOW) window = MAX_WINDOW;
    unsigned char *bufs[MAX_WINDOW];
    for (int w = 0; w < window; w++) bufs[w] = bench_alloc(msg);
    MPI_Request rq[MAX_WINDOW];

    MPI_Barrier(MPI_COMM_WORLD);
    double start_wall = wall_now();
    double t0 = MPI_Wtime();
    int errors = 0;
    if (rank == 0) {
        uint64_t n = 0;
        int last = 0;
        while (!last) {
            for (int w = 0; w < window; w++) {
                last = (w == window - 1) && (MPI_Wtime() - t0 >= duration);
                fill(bufs[w], msg, n++, (uint64_t)last);
                MPI_Isend(bufs[w], (int)msg, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq[w]);
            }
            MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
        }
    } else if (rank == 1) {
        int nslots = (int)((duration + 600) / slot) + 1; /* generous: a stall stretches the run */
        double *bytes = calloc((size_t)nslots, sizeof(double));
        int used = 0;
        for (int w = 0; w < window; w++) MPI_Irecv(bufs[w], (int)msg, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[w]);
        uint64_t expect = 0;
        int done = 0;
        while (!done) {
            /* Receives complete in posting order (same source and tag): wait on the oldest. */
            for (int w = 0; w < window && !done; w++) {
                MPI_Status st;
                MPI_Wait(&rq[w], &st);
                int got;
                MPI_Get_count(&st, MPI_BYTE, &got);
                int s = (int)((MPI_Wtime() - t0) / slot);
                if (s >= nslots) s = nslots - 1;
                if (s + 1 > used) used = s + 1;
                bytes[s] += got;
                if (got != msg || !check(bufs[w], msg, expect)) {
                    if (errors++ < 5) fprintf(stderr, "osu_bw_timeline: message %llu damaged or out of order\n",
                                              (unsigned long long)expect);
                }
                uint64_t last;
                memcpy(&last, bufs[w] + 8, 8);
                expect++;
                if (last) done = 1;
                else MPI_Irecv(bufs[w], (int)msg, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[w]);
            }
        }
        /* The receives still posted never match: the last message was the sender's final one. */
        for (int w = 0; w < window; w++) {
            if (rq[w] != MPI_REQUEST_NULL) {
                MPI_Cancel(&rq[w]);
                MPI_Wait(&rq[w], MPI_STATUS_IGNORE);
            }
        }
        printf("# osu_bw_timeline: %ld-byte messages, window %d, slot %.0f ms, start %.3f (epoch s)\n", msg, window,
               slot * 1000, start_wall);
        printf("# messages %llu, errors %d\n", (unsigned long long)expect, errors);
        printf("# %-10s %12s\n", "time_s", "MB/s");
        for (int s = 0; s < used; s++) printf("%-12.3f %12.2f\n", (s + 1) * slot, bytes[s] / slot / 1e6);
        fflush(stdout);
        free(bytes);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int w = 0; w < window; w++) free(bufs[w]);
    MPI_Finalize();
    return errors ? 1 : 0;
}
