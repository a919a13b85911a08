/* ring_hops [ROUNDS [EVERY]]: where the time of bench/oversub_loop's ring goes, hop by hop.
 * The ranks pass a token ROUNDS times (default 2000) around the ring, as oversub_loop's ring does:
 * 8 B, and every EVERY-th round (default 10; 0: never) a big message (BIG bytes, environment
 * variable, default 65536). Each rank reads CLOCK_MONOTONIC (one clock for every process of the
 * machine) when it starts a send, when the send returns and when its receive returns. Rank 0
 * prints, for the small rounds and for the big ones, per hop k->k+1:
 *   hop   from the start of k's send to the end of k+1's receive (median, mean, 90th percentile)
 *   send  how long k's MPI_Send took (median): a sender preempted by the rank it woke, or one
 *         that waits for its receiver (rendezvous), returns late
 * and "ring_s_per_1000_rounds <seconds>". The first round is left out.
 * RING_HOPS_DUMP=PATH (environment): each rank also writes its marks to PATH.<rank> ("# rank R pid
 * P", then "round send_start send_end recv_end" in CLOCK_MONOTONIC microseconds), to line up with
 * `perf record -k CLOCK_MONOTONIC`. Builds against any MPI; bench/ring_hops.sh runs it with RailMPI
 * and Open MPI side by side. */
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and prints its median, mean and 90th percentile. */
static void print_spread(const char *what, double *v, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    qsort(v, (size_t)n, sizeof *v, by_value);
    printf(" %s med %.2f mean %.2f p90 %.2f", what, v[n / 2], sum / n, v[n * 9 / 10]);
}

enum { SEND_START, SEND_END, RECV_END, MARKS };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    const int every = argc > 2 ? atoi(argv[2]) : 10;
    const int big = getenv("BIG") ? atoi(getenv("BIG")) : 65536;
    if (size < 2 || rounds < 2 || big < 8) {
        if (rank == 0) fprintf(stderr, "ring_hops: needs 2 ranks or more, 2 rounds or more, BIG >= 8\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc((size_t)big, 1);
    double *marks = calloc((size_t)rounds * MARKS, sizeof(double));
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < rounds; i++) {
        const int n = (every > 0 && i % every == 0) ? big : 8;
        double *m = marks + (size_t)i * MARKS;
        if (rank == 0) {
            buf[0] = (char)i;
            m[SEND_START] = now_us();
            MPI_Send(buf, n, MPI_BYTE, right, i, MPI_COMM_WORLD);
            m[SEND_END] = now_us();
            MPI_Recv(buf, n, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            m[RECV_END] = now_us();
            bad += buf[0] != (char)(i + size - 1);
        } else {
            MPI_Recv(buf, n, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            m[RECV_END] = now_us();
            buf[0]++;
            m[SEND_START] = now_us();
            MPI_Send(buf, n, MPI_BYTE, right, i, MPI_COMM_WORLD);
            m[SEND_END] = now_us();
        }
    }
    const char *dump = getenv("RING_HOPS_DUMP");
    if (dump && *dump) {
        char name[4096];
        snprintf(name, sizeof name, "%s.%d", dump, rank);
        FILE *f = fopen(name, "w");
        if (f) {
            fprintf(f, "# rank %d pid %ld\n", rank, (long)getpid());
            for (int i = 0; i < rounds; i++) {
                const double *m = marks + (size_t)i * MARKS;
                fprintf(f, "%d %.3f %.3f %.3f\n", i, m[SEND_START], m[SEND_END], m[RECV_END]);
            }
            fclose(f);
        }
    }
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)rounds * MARKS * (size_t)size) : NULL;
    MPI_Gather(marks, rounds * MARKS, MPI_DOUBLE, all, rounds * MARKS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int bad_sum = 0;
    MPI_Reduce(&bad, &bad_sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const double *first = all, *last = all + (size_t)(rounds - 1) * MARKS;
        printf("ring_s_per_1000_rounds %.4f\n", (last[RECV_END] - first[SEND_START]) / rounds * 1e-3);
        double *hop = malloc(sizeof(double) * (size_t)rounds), *send = malloc(sizeof(double) * (size_t)rounds);
        for (int is_big = 0; is_big <= 1; is_big++) {
            int any = 0;
            for (int k = 0; k < size; k++) {
                const double *a = all + (size_t)k * rounds * MARKS;
                const double *b = all + (size_t)((k + 1) % size) * rounds * MARKS;
                int n = 0;
                for (int i = 1; i < rounds; i++) {
                    if ((every > 0 && i % every == 0) != is_big) continue;
                    hop[n] = b[(size_t)i * MARKS + RECV_END] - a[(size_t)i * MARKS + SEND_START];
                    send[n] = a[(size_t)i * MARKS + SEND_END] - a[(size_t)i * MARKS + SEND_START];
                    n++;
                }
                if (n == 0) continue;
                if (!any) printf("%d B hops (us):\n", is_big ? big : 8);
                any = 1;
                printf("  %d->%d", k, (k + 1) % size);
                print_spread("hop", hop, n);
                qsort(send, (size_t)n, sizeof *send, by_value);
                printf("  send med %.2f\n", send[n / 2]);
            }
        }
        free(hop);
        free(send);
        if (bad_sum) printf("# %d wrong tokens\n", bad_sum);
    }
    free(all);
    free(marks);
    free(buf);
    MPI_Finalize();
    return bad_sum ? 1 : 0;
}
