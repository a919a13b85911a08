/* osu_io MODE [-m MAX] [-s MIN]: MPI-IO throughput of all ranks together (MB/s), one line per
 * size "<size> <MB/s>". The file is in $BENCH_IO_DIR (default /tmp), made and deleted by the run;
 * the data stay in the page cache, so the figures measure the library's path to the file system,
 * not a disk. Every timed pass is one collective call per rank, between barriers; best of the
 * iterations.
 *   contig_write / contig_read   each rank its own SIZE-byte block (MPI_File_write_at_all /
 *                                read_at_all at rank * SIZE)
 *   strided_write / strided_read a view of SIZE-byte blocks dealt round robin to the ranks (block
 *                                k of the file belongs to rank k mod P: a resized vector as
 *                                filetype); each rank moves 4 MiB through it (MPI_File_write_all /
 *                                read_all; SIZE from 8 B)
 * BENCH_IO_CB=enable|disable|automatic: the hints romio_cb_read and romio_cb_write (collective
 * buffering) at open and in every view. Builds against any MPI. */
#include "bench_common.h"
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "contig_write";
    bench_opts o = bench_parse(argc - 1, argv + 1);
    const int strided = !strncmp(mode, "strided", 7);
    const int writing = strstr(mode, "write") != NULL;
    const long per_rank = 4 << 20;
    const char *dir = getenv("BENCH_IO_DIR");
    char path[512];
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/osu_io_%d.dat", dir ? dir : "/tmp", pid);
    long max = o.max, min = o.min ? o.min : (strided ? 8 : 4096);
    char *buf = malloc(strided ? per_rank : max);
    memset(buf, rank + 1, strided ? per_rank : max);
    MPI_File fh;
    MPI_Info hints = MPI_INFO_NULL;
    const char *cb = getenv("BENCH_IO_CB");
    if (cb && *cb) {
        MPI_Info_create(&hints);
        MPI_Info_set(hints, "romio_cb_read", cb);
        MPI_Info_set(hints, "romio_cb_write", cb);
    }
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, hints,
                      &fh) != MPI_SUCCESS) {
        if (rank == 0) fprintf(stderr, "osu_io: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("# osu_io %s, %d ranks, MB/s of all ranks together\n", mode, size);
    for (long s = min; s <= max; s *= 2) {
        MPI_Datatype ft = MPI_DATATYPE_NULL;
        long bytes = strided ? per_rank : s;
        if (strided) {
            MPI_Datatype block;
            MPI_Type_contiguous((int)s, MPI_BYTE, &block);
            MPI_Type_create_resized(block, 0, (MPI_Aint)s * size, &ft);
            MPI_Type_commit(&ft);
            MPI_Type_free(&block);
            MPI_File_set_view(fh, (MPI_Offset)s * rank, MPI_BYTE, ft, "native", hints);
        }
        /* The file holds the data before a read is timed. */
        if (!writing) {
            if (strided) MPI_File_write_at_all(fh, 0, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE);
            else MPI_File_write_at_all(fh, (MPI_Offset)rank * s, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        int iters = (int)(20 * o.iter_scale) + 1;
        double best = 1e30;
        for (int i = 0; i < iters; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Status st;
            MPI_Offset at = strided ? 0 : (MPI_Offset)rank * s;
            if (writing) MPI_File_write_at_all(fh, at, buf, (int)bytes, MPI_BYTE, &st);
            else MPI_File_read_at_all(fh, at, buf, (int)bytes, MPI_BYTE, &st);
            MPI_Barrier(MPI_COMM_WORLD);
            double t = MPI_Wtime() - t0;
            int n = 0;
            MPI_Get_count(&st, MPI_BYTE, &n);
            if (n != bytes) {
                fprintf(stderr, "osu_io: rank %d moved %d of %ld bytes\n", rank, n, bytes);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (t < best) best = t;
        }
        if (rank == 0) printf("%ld %.1f\n", s, (double)bytes * size / best / 1e6);
        if (strided) {
            MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
            MPI_Type_free(&ft);
        }
    }
    MPI_File_close(&fh);
    if (hints != MPI_INFO_NULL) MPI_Info_free(&hints);
    free(buf);
    MPI_Finalize();
    return 0;
}
