/* file_collective: collective file access through views of every shape, with collective
 * buffering forced on and off by the hints romio_cb_read / romio_cb_write ("enable", "disable",
 * "automatic": each run of the program checks all three, so two-phase and direct paths both run
 * under every implementation that honours the hints and the results must be the same).
 *  - views of blocks dealt round robin to the ranks, blocks of 1, 3, 8, 100 and 5000 bytes (odd
 *    sizes: domains cut inside blocks), each rank writing 3 tiles plus a partial one with
 *    MPI_File_write_all, read back by MPI_File_read_all and checked byte by byte by every rank,
 *    and the whole file by rank 0 through a byte view;
 *  - holes: a view where each rank owns only half of its block, over a file filled first with a
 *    known pattern: the bytes nobody wrote keep the pattern (a two-phase write must read them
 *    first);
 *  - ranks with nothing to access (count 0 on odd ranks) in the same collective calls;
 *  - a strided memory type (every other int) with a strided view;
 *  - the end of the file inside a rank's data: read_all returns exactly the bytes before it
 *    (MPI_Get_count), 0 for ranks whose data all lie beyond it;
 *  - all of the above again with collective buffering on and the hint cb_buffer_size at 100
 *    bytes: aggregators take their domains in many rounds (windows cut inside blocks).
 * Files live in $MT_FILE_DIR (default /tmp), named after the pid of rank 0, deleted at the end. */
#include "mpitest.h"
#include <unistd.h>

static char path[512];
/* The hint cb_buffer_size, when set: an aggregator's buffer, so small that it takes its domain in
 * many rounds. */
static const char *window;

static unsigned char byte_of(long file_offset) { return (unsigned char)((file_offset * 7 + 3) & 0xff); }

static MPI_File open_with(const char *cb) {
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", cb));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", cb));
    if (window) MPI_OK(MPI_Info_set(info, "cb_buffer_size", window));
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_Info_free(&info));
    return fh;
}

/* A view of `owned` bytes at the start of each rank's `block`-byte block, blocks dealt round robin. */
static void set_round_robin(MPI_File fh, int block, int owned, const char *cb) {
    MPI_Datatype piece, tile;
    MPI_OK(MPI_Type_contiguous(owned, MPI_BYTE, &piece));
    MPI_OK(MPI_Type_create_resized(piece, 0, (MPI_Aint)block * mt_size, &tile));
    MPI_OK(MPI_Type_commit(&tile));
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", cb));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", cb));
    if (window) MPI_OK(MPI_Info_set(info, "cb_buffer_size", window));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)block * mt_rank, MPI_BYTE, tile, "native", info));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Type_free(&tile));
    MPI_OK(MPI_Type_free(&piece));
}

static void byte_view(MPI_File fh) { MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)); }

/* File offset of data byte i of rank r's view. */
static long offset_of(long i, int r, int block, int owned) {
    return (long)block * r + (i / owned) * (long)block * mt_size + i % owned;
}

static void sync_all(MPI_File fh) {
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
}

static void round_robin(const char *cb, int block, int owned, int prefill) {
    MPI_File fh = open_with(cb);
    MPI_OK(MPI_File_set_size(fh, 0));
    const long tiles_bytes = (long)owned * 3 + owned / 2 + 1;  /* 3 tiles and part of a fourth */
    const long span = (long)block * mt_size * 4;
    if (prefill && mt_rank == 0) {
        unsigned char *all = malloc((size_t)span);
        for (long k = 0; k < span; k++) all[k] = 0xEE;
        MPI_OK(MPI_File_write_at(fh, 0, all, (int)span, MPI_BYTE, MPI_STATUS_IGNORE));
        free(all);
    }
    sync_all(fh);
    set_round_robin(fh, block, owned, cb);
    const long mine = (mt_rank % 2 == 1 && block == 8) ? 0 : tiles_bytes;  /* odd ranks idle once */
    unsigned char *out = malloc((size_t)tiles_bytes + 1), *in = malloc((size_t)tiles_bytes + 1);
    for (long i = 0; i < mine; i++) out[i] = byte_of(offset_of(i, mt_rank, block, owned));
    MPI_Status st;
    MPI_OK(MPI_File_write_all(fh, out, (int)mine, MPI_BYTE, &st));
    int n = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == mine, "cb=%s block %d: write_all count %d expected %ld", cb, block, n, mine);
    sync_all(fh);
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(in, 0, (size_t)tiles_bytes);
    MPI_OK(MPI_File_read_all(fh, in, (int)mine, MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == mine, "cb=%s block %d: read_all count %d expected %ld", cb, block, n, mine);
    for (long i = 0; i < mine; i++)
        CHECK(in[i] == out[i], "cb=%s block %d owned %d: byte %ld read %u expected %u", cb, block, owned, i, in[i], out[i]);
    /* The whole file from rank 0: every rank's bytes, and holes as they were. */
    byte_view(fh);
    if (mt_rank == 0) {
        MPI_Offset size = 0;
        MPI_OK(MPI_File_get_size(fh, &size));
        unsigned char *all = malloc((size_t)size + 1);
        MPI_OK(MPI_File_read_at(fh, 0, all, (int)size, MPI_BYTE, &st));
        for (long k = 0; k < size; k++) {
            const int r = (int)((k / block) % mt_size), within = (int)(k % block);
            const long i = (k / ((long)block * mt_size)) * owned + within;
            const int written = within < owned && i < ((r % 2 == 1 && block == 8) ? 0 : tiles_bytes);
            const unsigned char want = written ? byte_of(k) : (prefill ? 0xEE : 0);
#if defined(MT_REFERENCE_MPICH_402) || defined(OPEN_MPI)
            /* Both references fill holes that lie inside the blocks of the view with garbage:
             * MPICH 4.0.2 a byte after a rank's data ending inside a block (block 3, 2 ranks: file
             * byte 20 holds 4 or 255), Open MPI 4.1 with 3 ranks or more the blocks of a rank
             * that wrote nothing (block 8, 3 ranks: byte 34 holds 1). Those holes go unchecked. */
            if (!written && within < owned) continue;
#endif
            CHECK(all[k] == want, "cb=%s block %d owned %d: file byte %ld is %u expected %u (rank %d's %s)", cb, block,
                  owned, k, all[k], want, r, written ? "data" : "hole");
        }
        free(all);
    }
    free(out);
    free(in);
    MPI_OK(MPI_File_close(&fh));
}

/* Every other int of memory, through a view of 3-int blocks dealt round robin. */
static void strided_memory(const char *cb) {
    MPI_File fh = open_with(cb);
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_Datatype every_other, piece, tile;
    MPI_OK(MPI_Type_vector(30, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &piece));
    MPI_OK(MPI_Type_create_resized(piece, 0, (MPI_Aint)(3 * sizeof(int)) * mt_size, &tile));
    MPI_OK(MPI_Type_commit(&tile));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)(3 * sizeof(int)) * mt_rank, MPI_INT, tile, "native", MPI_INFO_NULL));
    int out[60], in[60];
    for (int i = 0; i < 60; i++) out[i] = (i % 2) ? -1 : mt_rank * 1000 + i / 2;
    MPI_Status st;
    MPI_OK(MPI_File_write_all(fh, out, 1, every_other, &st));
    sync_all(fh);
    for (int i = 0; i < 60; i++) in[i] = -7;
    MPI_OK(MPI_File_read_at_all(fh, 0, in, 1, every_other, &st));
    int n = -1;
    MPI_OK(MPI_Get_count(&st, every_other, &n));
    CHECK(n == 1, "cb=%s strided memory: read count %d", cb, n);
    for (int i = 0; i < 60; i++) {
        const int want = (i % 2) ? -7 : mt_rank * 1000 + i / 2;
        CHECK(in[i] == want, "cb=%s strided memory: int %d is %d expected %d", cb, i, in[i], want);
    }
    MPI_OK(MPI_Type_free(&tile));
    MPI_OK(MPI_Type_free(&piece));
    MPI_OK(MPI_Type_free(&every_other));
    MPI_OK(MPI_File_close(&fh));
}

/* A file of 10 blocks of 5 bytes, ranks reading through round robin 5-byte blocks: the file ends
 * inside some ranks' data. */
static void end_of_file(const char *cb) {
    MPI_File fh = open_with(cb);
    MPI_OK(MPI_File_set_size(fh, 0));
    const int block = 5, file_bytes = 47;
    if (mt_rank == 0) {
        unsigned char b[47];
        for (int k = 0; k < file_bytes; k++) b[k] = byte_of(k);
        MPI_OK(MPI_File_write_at(fh, 0, b, file_bytes, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    sync_all(fh);
    set_round_robin(fh, block, block, cb);
    unsigned char in[200];
    MPI_Status st;
    MPI_OK(MPI_File_read_all(fh, in, 200, MPI_BYTE, &st));
    int n = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    /* Rank r's bytes before the end: whole blocks r, r+P, ... below 47, and part of the one across it. */
    int want = 0;
    for (long i = 0;; i++) {
        const long k = offset_of(i, mt_rank, block, block);
        if (k >= file_bytes) break;
        CHECK(i < 200, "end of file: runaway");
        want++;
        CHECK(in[i] == byte_of(k), "cb=%s end of file: byte %ld is %u expected %u", cb, i, in[i], byte_of(k));
    }
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    /* MPICH 4.0.2 (collective buffering on) and Open MPI 4.1 report the count requested (200). */
    CHECK(n == want, "cb=%s end of file: read_all count %d expected %d", cb, n, want);
#endif
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "file_collective");
    const char *dir = getenv("MT_FILE_DIR");
    int pid = (int)getpid();
    MPI_OK(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(path, sizeof path, "%s/file_collective_%d.dat", dir ? dir : "/tmp", pid);
    const char *modes[] = {"enable", "disable", "automatic", "enable"};
    const int blocks[] = {1, 3, 8, 100, 5000};
    for (int m = 0; m < 4; m++) {
        if (m == 3) window = "100"; /* two phases in rounds of 100 bytes per aggregator */
        for (int b = 0; b < 5; b++) round_robin(modes[m], blocks[b], blocks[b], 0);
        round_robin(modes[m], 8, 4, 1);     /* holes: half of each block */
        round_robin(modes[m], 100, 37, 1);
        strided_memory(modes[m]);
        end_of_file(modes[m]);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
    return mt_finish();
}
