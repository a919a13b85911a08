/* vector_columns: non-contiguous messages, the column block of a matrix. Rank 0 and rank 1 each
 * hold a ROWS x 8192 int matrix and bounce the first NCOLS columns (one MPI_Type_vector of ROWS
 * blocks of NCOLS ints, stride 8192) back and forth, NCOLS = 64 .. 4096. Two ways, same data:
 *   datatype  MPI_Send/MPI_Recv with the vector type (the library moves the columns itself);
 *   pack      MPI_Pack into a buffer, send it as MPI_PACKED, MPI_Unpack on arrival (what an
 *             application does by hand when it does not trust the library's datatype path).
 * Prints "ncols bytes datatype_us pack_us" (one-way time per message, half the round trip).
 * The received columns are checked once per size. -r ROWS (default 256), -q fewer iterations.
 * Builds against any MPI. */
#include "bench_common.h"

#define COLS 8192

static int iters_for(long bytes, double scale) {
    int n = bytes <= 65536 ? 400 : bytes <= (1 << 20) ? 100 : 30;
    n = (int)(n * scale);
    return n < 5 ? 5 : n;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_need_two(size, rank, "vector_columns");
    int rows = 256;
    double scale = getenv("BENCH_QUICK") ? 0.2 : 1.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) rows = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-q")) scale = 0.2;
    }
    const size_t cells = (size_t)rows * COLS;
    int *matrix = bench_alloc((long)(cells * sizeof(int)));
    char *packed = bench_alloc((long)(cells * sizeof(int)) + 1024);
    for (size_t i = 0; i < cells; i++) matrix[i] = rank == 0 ? (int)i : -1;
    if (rank == 0) {
        printf("# RailMPI vector-of-columns test: %d x %d int matrix, first NCOLS columns\n", rows, COLS);
        printf("# %-8s %12s %14s %14s\n", "ncols", "bytes", "datatype_us", "pack_us");
        fflush(stdout);
    }
    const int peer = 1 - rank;
    for (int ncols = 64; ncols <= 4096; ncols *= 2) {
        MPI_Datatype column;
        MPI_Type_vector(rows, ncols, COLS, MPI_INT, &column);
        MPI_Type_commit(&column);
        int psize;
        MPI_Pack_size(1, column, MPI_COMM_WORLD, &psize);
        const long bytes = (long)rows * ncols * (long)sizeof(int);
        const int iters = iters_for(bytes, scale), warm = iters / 10 + 2;
        double t[2] = {0, 0};
        for (int way = 0; way < 2; way++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = 0;
            for (int i = 0; i < iters + warm; i++) {
                if (i == warm) t0 = MPI_Wtime();
                if (rank > 1) continue;
                for (int leg = 0; leg < 2; leg++) {
                    const int sending = (leg == 0) == (rank == 0);
                    if (way == 0) {
                        if (sending) MPI_Send(matrix, 1, column, peer, 1, MPI_COMM_WORLD);
                        else MPI_Recv(matrix, 1, column, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else if (sending) {
                        int pos = 0;
                        MPI_Pack(matrix, 1, column, packed, psize, &pos, MPI_COMM_WORLD);
                        MPI_Send(packed, pos, MPI_PACKED, peer, 2, MPI_COMM_WORLD);
                    } else {
                        int pos = 0;
                        MPI_Recv(packed, psize, MPI_PACKED, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Unpack(packed, psize, &pos, matrix, 1, column, MPI_COMM_WORLD);
                    }
                }
            }
            t[way] = (MPI_Wtime() - t0) * 1e6 / iters / 2;
        }
        if (rank == 1) { /* rank 0's columns arrived; the columns never sent are still -1 */
            int bad = 0;
            for (int r = 0; r < rows && !bad; r++)
                for (int c = 0; c < COLS && !bad; c++) {
                    const int v = matrix[(size_t)r * COLS + c];
                    bad = c < ncols ? v != r * COLS + c : (c >= 4096 && v != -1);
                }
            if (bad) {
                fprintf(stderr, "vector_columns: wrong data with %d columns\n", ncols);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        if (rank == 0) {
            printf("%-10d %12ld %14.2f %14.2f\n", ncols, bytes, t[0], t[1]);
            fflush(stdout);
        }
        MPI_Type_free(&column);
    }
    free(matrix);
    free(packed);
    MPI_Finalize();
    return 0;
}
