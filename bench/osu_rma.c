/* osu_rma MODE [options]: one-sided communication between ranks 0 and 1 of a window made by
 * MPI_Win_allocate (others idle), in the style of the OSU one-sided benchmarks; options in
 * bench_common.h. Rank 1 waits in MPI_Barrier while rank 0 works in a passive-target epoch.
 *   put_lat  MPI_Put of SIZE bytes then MPI_Win_flush, repeated in one lock epoch (us per put)
 *   get_lat  MPI_Get then MPI_Win_flush (us per get)
 *   acc_lat  MPI_Accumulate (MPI_SUM on MPI_INT, sizes from 4) then MPI_Win_flush (us)
 *   fop_lat  MPI_Fetch_and_op (MPI_SUM on one MPI_LONG) then MPI_Win_flush (us; size 8 only)
 *   put_bw   64 MPI_Puts then MPI_Win_flush (MB/s)
 *   fence    both ranks: MPI_Put of SIZE bytes from rank 0 between two MPI_Win_fence (us per epoch)
 * BENCH_WIN_CREATE=1: the window is MPI_Win_create over the program's memory instead. */
#include "bench_common.h"

enum { WINDOW = 64 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_need_two(size, rank, "osu_rma");
    const char *mode = argc > 1 ? argv[1] : "put_lat";
    bench_opts o = bench_parse(argc - 1, argv + 1);
    const int acc = !strcmp(mode, "acc_lat"), fop = !strcmp(mode, "fop_lat"), bw = !strcmp(mode, "put_bw");
    const int fence = !strcmp(mode, "fence"), get = !strcmp(mode, "get_lat");
    if (fop) o.max = 8;
    long win_bytes = bw ? o.max * WINDOW : o.max;
    char *local = bench_alloc(bw ? o.max * WINDOW : o.max);
    char *base;
    MPI_Win win;
    const char *create = getenv("BENCH_WIN_CREATE");
    if (create && atoi(create) > 0) {
        base = bench_alloc(win_bytes);
        MPI_Win_create(base, win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    }
    memset(base, 0, (size_t)win_bytes);
    if (rank == 0) {
        printf("# RailMPI OSU-style one-sided test: %s, %s\n", mode,
               create && atoi(create) > 0 ? "MPI_Win_create" : "MPI_Win_allocate");
        printf("# %-10s %16s\n", "Size", bw ? "Bandwidth (MB/s)" : "Latency (us)");
        fflush(stdout);
    }
    for (long sz = bench_first_size(&o, !acc && !fop) < 4 && (acc || fop) ? (fop ? 8 : 4) : bench_first_size(&o, !acc && !fop);
         sz <= o.max; sz = sz ? sz * 2 : 1) {
        int iters = bench_iters(sz, o.iter_scale, bw ? 1000 : 10000, bw ? 100 : 1000);
        if (bw && sz > 65536) iters /= 4;
        int warm = iters / 10 + 2;
        double t0 = 0, t = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (fence) {
            MPI_Win_fence(0, win);
            for (int i = 0; i < iters + warm; i++) {
                if (i == warm) t0 = MPI_Wtime();
                if (rank == 0) MPI_Put(local, (int)sz, MPI_CHAR, 1, 0, (int)sz, MPI_CHAR, win);
                MPI_Win_fence(0, win);
            }
            t = MPI_Wtime() - t0;
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        } else if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            long result = 0, one = 1;
            for (int i = 0; i < iters + warm; i++) {
                if (i == warm) t0 = MPI_Wtime();
                if (bw) {
                    for (int k = 0; k < WINDOW; k++)
                        MPI_Put(local + k * sz, (int)sz, MPI_CHAR, 1, k * sz, (int)sz, MPI_CHAR, win);
                } else if (get) {
                    MPI_Get(local, (int)sz, MPI_CHAR, 1, 0, (int)sz, MPI_CHAR, win);
                } else if (acc) {
                    MPI_Accumulate(local, (int)(sz / 4), MPI_INT, 1, 0, (int)(sz / 4), MPI_INT, MPI_SUM, win);
                } else if (fop) {
                    MPI_Fetch_and_op(&one, &result, MPI_LONG, 1, 0, MPI_SUM, win);
                } else {
                    MPI_Put(local, (int)sz, MPI_CHAR, 1, 0, (int)sz, MPI_CHAR, win);
                }
                MPI_Win_flush(1, win);
            }
            t = MPI_Wtime() - t0;
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            if (bw) printf("%-12ld %16.2f\n", sz, (double)sz * WINDOW * iters / t / 1e6);
            else printf("%-12ld %16.3f\n", sz, t * 1e6 / iters);
            fflush(stdout);
        }
    }
    MPI_Win_free(&win);
    if (create && atoi(create) > 0) free(base);
    free(local);
    MPI_Finalize();
    return 0;
}
