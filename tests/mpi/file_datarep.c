/* file_datarep: data representations of file views (MPI_File_set_view's datarep).
 *  - "external32": ints written by every rank land big-endian in the file (checked byte by byte
 *    through a "native" byte view) and read back as they were; a strided memory type too;
 *  - external32 MPI_LONG takes 4 bytes in the file: a view of every other long (a vector, its
 *    stride in elements) puts them 8 bytes apart, MPI_File_get_type_extent says 4 and 12,
 *    get_byte_offset / get_position / get_size agree, a read across the end of the file counts
 *    the longs before it, negative values come back sign-extended;
 *  - a representation of the test's own (MPI_Register_datarep): ints stored as 2-byte
 *    little-endian numbers. Its conversion functions run on every access: collective writes and
 *    reads through a view of 3-int blocks dealt round robin (byte displacements given in file
 *    bytes), with collective buffering forced on and off; write_ordered / read_ordered; the
 *    file checked byte by byte;
 *  - a conversion function returning an error gives MPI_ERR_CONVERSION; registering a name
 *    twice (or "native") MPI_ERR_DUP_DATAREP; an unknown name in set_view
 *    MPI_ERR_UNSUPPORTED_DATAREP; an ordered write where rank 0's extent function fails: rank 0
 *    gets its error, the other ranks' bytes go in, in rank order.
 * Files live in $MT_FILE_DIR (default /tmp), named after the pid of rank 0, deleted at the end. */
#include "mpitest.h"
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static char path[512], self_path[512];

/* ---- the test's representation: MPI_INT as 2-byte little-endian --------------------------- */
static int conversions; /* calls of the two conversion functions */

static int int16_extent(MPI_Datatype type, MPI_Aint *extent, void *extra) {
    (void)extra;
    if (type == MPI_INT) {
        *extent = 2;
        return MPI_SUCCESS;
    }
    int size;
    MPI_Type_size(type, &size);
    *extent = size;
    return MPI_SUCCESS;
}

static int int16_write(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position, void *extra) {
    (void)extra;
    if (type != MPI_INT) return MPI_ERR_TYPE;
    const int *in = (const int *)userbuf + position;
    unsigned char *out = filebuf;
    for (int i = 0; i < count; ++i) {
        out[2 * i] = (unsigned char)(in[i] & 0xff);
        out[2 * i + 1] = (unsigned char)((in[i] >> 8) & 0xff);
    }
    ++conversions;
    return MPI_SUCCESS;
}

static int int16_read(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position, void *extra) {
    (void)extra;
    if (type != MPI_INT) return MPI_ERR_TYPE;
    int *out = (int *)userbuf + position;
    const unsigned char *in = filebuf;
    for (int i = 0; i < count; ++i) out[i] = (int16_t)(uint16_t)(in[2 * i] | (in[2 * i + 1] << 8));
    ++conversions;
    return MPI_SUCCESS;
}

static int failing_write(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position, void *extra) {
    (void)userbuf, (void)type, (void)count, (void)filebuf, (void)position, (void)extra;
    return MPI_ERR_OTHER;
}

/* A representation that cannot lay out doubles. */
static int picky_extent(MPI_Datatype type, MPI_Aint *extent, void *extra) {
    (void)extra;
    if (type == MPI_DOUBLE) return MPI_ERR_OTHER;
    int size;
    MPI_Type_size(type, &size);
    *extent = size;
    return MPI_SUCCESS;
}

/* ---- helpers ------------------------------------------------------------------------------ */
static void byte_view(MPI_File fh) { MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)); }

static void read_bytes(MPI_File fh, MPI_Offset at, unsigned char *out, int n) {
    MPI_Status st;
    MPI_OK(MPI_File_read_at(fh, at, out, n, MPI_BYTE, &st));
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    CHECK(got == n, "read %d bytes at %lld, expected %d", got, (long long)at, n);
}

static long be32(const unsigned char *p) {
    return (long)(int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}

static MPI_File reopen(const char *name, MPI_Comm comm, const char *cb) {
    MPI_Info info = MPI_INFO_NULL;
    if (cb) {
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, "romio_cb_read", cb));
        MPI_OK(MPI_Info_set(info, "romio_cb_write", cb));
    }
    MPI_File fh;
    MPI_OK(MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_File_set_size(fh, 0));
    if (info != MPI_INFO_NULL) MPI_OK(MPI_Info_free(&info));
    return fh;
}

/* ---- external32 ---------------------------------------------------------------------------- */
enum { N = 37 };

static void external32_ints(void) {
    MPI_File fh = reopen(path, MPI_COMM_WORLD, NULL);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    MPI_OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(strcmp(rep, "external32") == 0, "get_view says datarep \"%s\"", rep);
    int mine[N];
    for (int i = 0; i < N; ++i) mine[i] = (mt_rank + 1) * 1000003 * (i % 2 ? -1 : 1) + i;
    MPI_Status st;
    MPI_OK(MPI_File_write_at_all(fh, (MPI_Offset)mt_rank * N, mine, N, MPI_INT, &st));
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == N, "write_at_all external32 counted %d ints", got);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Every rank's ints are big-endian in the file. */
    int other = (mt_rank + 1) % mt_size;
    int back[N];
    memset(back, 0, sizeof back);
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)other * N, back, N, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == N, "read_at external32 counted %d ints", got);
    for (int i = 0; i < N; ++i)
        CHECK(back[i] == (other + 1) * 1000003 * (i % 2 ? -1 : 1) + i, "rank %d's int %d read back as %d", other, i,
              back[i]);
    /* A strided memory type (every other int) to and from external32. */
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    MPI_Offset after = (MPI_Offset)mt_size * N + (MPI_Offset)mt_rank * (N / 2);
    MPI_OK(MPI_File_write_at_all(fh, after, mine, 1, every_other, &st));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int spread[N];
    for (int i = 0; i < N; ++i) spread[i] = -7;
    MPI_OK(MPI_File_read_at_all(fh, after, spread, 1, every_other, &st));
    for (int i = 0; i < N; ++i) {
        int want = (i % 2 == 0 && i / 2 < N / 2) ? mine[i] : -7;
        CHECK(spread[i] == want, "strided external32 read: int %d is %d, expected %d", i, spread[i], want);
    }
    MPI_OK(MPI_Type_free(&every_other));
    /* The bytes, through a native byte view. */
    byte_view(fh);
    unsigned char raw[4 * N];
    read_bytes(fh, (MPI_Offset)other * N * 4, raw, 4 * N);
    for (int i = 0; i < N; ++i)
        CHECK(be32(raw + 4 * i) == (other + 1) * 1000003 * (i % 2 ? -1 : 1) + i,
              "rank %d's int %d is %ld in the file's bytes (big-endian)", other, i, be32(raw + 4 * i));
    MPI_Offset size;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == ((MPI_Offset)mt_size * N + (MPI_Offset)mt_size * (N / 2)) * 4, "file size %lld", (long long)size);
    MPI_OK(MPI_File_close(&fh));
}

static void external32_longs(void) {
    MPI_File fh = reopen(self_path, MPI_COMM_SELF, NULL);
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_LONG, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_LONG, every_other, "external32", MPI_INFO_NULL));
    MPI_Aint extent;
    MPI_OK(MPI_File_get_type_extent(fh, MPI_LONG, &extent));
    CHECK(extent == 4, "MPI_LONG's extent in an external32 file is %ld, expected 4", (long)extent);
    MPI_OK(MPI_File_get_type_extent(fh, every_other, &extent));
    CHECK(extent == 12, "vector(2,1,2,MPI_LONG)'s extent in an external32 file is %ld, expected 12", (long)extent);
    long values[4] = {-1, 0x12345678L, -5, 7};
    MPI_Status st;
    MPI_OK(MPI_File_write(fh, values, 4, MPI_LONG, &st));
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_LONG, &got));
    CHECK(got == 4, "write of 4 longs counted %d", got);
    MPI_Offset pos, byte_at;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 4, "position after 4 longs is %lld", (long long)pos);
    MPI_OK(MPI_File_get_byte_offset(fh, 3, &byte_at));
    CHECK(byte_at == 20, "the 4th long of the view is at byte %lld, expected 20", (long long)byte_at);
    MPI_Offset size;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == 24, "file of 4 external32 longs every other is %lld bytes, expected 24", (long long)size);
    long back[6] = {9, 9, 9, 9, 9, 9};
    MPI_OK(MPI_File_read_at(fh, 0, back, 6, MPI_LONG, &st));
    MPI_OK(MPI_Get_count(&st, MPI_LONG, &got));
    CHECK(got == 4, "a read of 6 longs across the end counted %d, expected 4", got);
    for (int i = 0; i < 4; ++i) CHECK(back[i] == values[i], "long %d read back as %ld, expected %ld", i, back[i], values[i]);
    CHECK(back[4] == 9 && back[5] == 9, "a read past the end wrote into the buffer");
    byte_view(fh);
    unsigned char raw[24];
    read_bytes(fh, 0, raw, 24);
    const long at[4] = {0, 8, 12, 20};
    for (int i = 0; i < 4; ++i)
        CHECK(be32(raw + at[i]) == values[i], "long %d is %ld at byte %ld of the file", i, be32(raw + at[i]), at[i]);
    MPI_OK(MPI_Type_free(&every_other));
    MPI_OK(MPI_File_close(&fh));
}

/* ---- a representation of the program's --------------------------------------------------- */
static int value_of(int r, int i) { return (r * 100 + i - 50) * (i % 3 ? 1 : -1); }

static void user_collective(const char *cb) {
    MPI_File fh = reopen(path, MPI_COMM_WORLD, cb);
    /* 3 ints per rank per tile; the tile's extent in file bytes (2 per int). */
    MPI_Datatype three, tile;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &three));
    MPI_OK(MPI_Type_create_resized(three, 0, (MPI_Aint)6 * mt_size, &tile));
    MPI_OK(MPI_Type_commit(&tile));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)6 * mt_rank, MPI_INT, tile, "int16le", MPI_INFO_NULL));
    MPI_Aint extent;
    MPI_OK(MPI_File_get_type_extent(fh, MPI_INT, &extent));
    CHECK(extent == 2, "MPI_INT's extent in an int16le file is %ld", (long)extent);
    enum { M = 13 };
    int mine[M];
    for (int i = 0; i < M; ++i) mine[i] = value_of(mt_rank, i);
    const int before = conversions;
    MPI_Status st;
    MPI_OK(MPI_File_write_all(fh, mine, M, MPI_INT, &st));
    CHECK(conversions > before, "the write conversion function did not run (cb %s)", cb);
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == M, "write_all counted %d ints (cb %s)", got, cb);
    MPI_Offset pos;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == M, "position %lld after %d ints (cb %s)", (long long)pos, M, cb);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int back[M];
    memset(back, 0, sizeof back);
    MPI_OK(MPI_File_read_at_all(fh, 0, back, M, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == M, "read_at_all counted %d ints (cb %s)", got, cb);
    for (int i = 0; i < M; ++i) CHECK(back[i] == mine[i], "int %d read back as %d, expected %d (cb %s)", i, back[i], mine[i], cb);
    /* The file: rank r's int i at 6*(r + size*(i/3)) + 2*(i%3), 2 bytes little-endian. */
    byte_view(fh);
    if (mt_rank == 0) {
        for (int r = 0; r < mt_size; ++r) {
            for (int i = 0; i < M; ++i) {
                unsigned char two[2];
                read_bytes(fh, 6 * (r + (MPI_Offset)mt_size * (i / 3)) + 2 * (i % 3), two, 2);
                int v = (int16_t)(uint16_t)(two[0] | (two[1] << 8));
                CHECK(v == value_of(r, i), "rank %d's int %d is %d in the file (cb %s)", r, i, v, cb);
            }
        }
    }
    MPI_OK(MPI_Type_free(&tile));
    MPI_OK(MPI_Type_free(&three));
    MPI_OK(MPI_File_close(&fh));
}

static void user_ordered(void) {
    MPI_File fh = reopen(path, MPI_COMM_WORLD, NULL);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "int16le", MPI_INFO_NULL));
    int mine[8];
    for (int i = 0; i <= mt_rank % 8; ++i) mine[i] = value_of(mt_rank, i);
    MPI_Status st;
    MPI_OK(MPI_File_write_ordered(fh, mine, mt_rank % 8 + 1, MPI_INT, &st));
    MPI_Offset shared;
    MPI_OK(MPI_File_get_position_shared(fh, &shared));
    MPI_Offset total = 0;
    for (int r = 0; r < mt_size; ++r) total += r % 8 + 1;
    CHECK(shared == total, "shared pointer %lld after write_ordered, expected %lld ints", (long long)shared,
          (long long)total);
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int back[8] = {0};
    MPI_OK(MPI_File_read_ordered(fh, back, mt_rank % 8 + 1, MPI_INT, &st));
    for (int i = 0; i <= mt_rank % 8; ++i)
        CHECK(back[i] == mine[i], "read_ordered int %d is %d, expected %d", i, back[i], mine[i]);
    MPI_Offset size;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == 2 * total, "file of %lld int16le ints is %lld bytes", (long long)total, (long long)size);
    MPI_OK(MPI_File_close(&fh));
}

/* Rank 0's doubles cannot be laid out in the file: its part of an ordered write fails with the
 * extent function's error, and the other ranks' bytes still go in, in rank order (none of them
 * waits for rank 0 forever). */
static void ordered_failing_extent(void) {
    MPI_File fh = reopen(path, MPI_COMM_WORLD, NULL);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "picky", MPI_INFO_NULL));
    MPI_Status st;
    if (mt_rank == 0) {
        double d[2] = {1.0, 2.0};
        int rc = MPI_File_write_ordered(fh, d, 2, MPI_DOUBLE, &st);
        mt_check_error_class(rc, MPI_ERR_OTHER, "MPI_File_write_ordered whose extent function fails");
    } else {
        unsigned char b[4];
        memset(b, mt_rank, sizeof b);
        MPI_OK(MPI_File_write_ordered(fh, b, 4, MPI_BYTE, &st));
        unsigned char back[4];
        read_bytes(fh, 4 * (MPI_Offset)(mt_rank - 1), back, 4);
        for (int i = 0; i < 4; ++i)
            CHECK(back[i] == (unsigned char)mt_rank, "rank %d's byte %d in the file is %d", mt_rank, i, back[i]);
    }
    MPI_Offset shared;
    MPI_OK(MPI_File_get_position_shared(fh, &shared));
    CHECK(shared == 4 * (MPI_Offset)(mt_size - 1), "shared pointer %lld after the ordered write, expected %lld",
          (long long)shared, 4 * (long long)(mt_size - 1));
    MPI_OK(MPI_File_close(&fh));
}

static void bad_input(void) {
    int rc = MPI_Register_datarep("int16le", int16_read, int16_write, int16_extent, NULL);
    mt_check_error_class(rc, MPI_ERR_DUP_DATAREP, "MPI_Register_datarep of a name already defined");
    rc = MPI_Register_datarep("native", int16_read, int16_write, int16_extent, NULL);
    mt_check_error_class(rc, MPI_ERR_DUP_DATAREP, "MPI_Register_datarep(\"native\")");
    rc = MPI_Register_datarep(NULL, int16_read, int16_write, int16_extent, NULL);
    mt_check_error_class(rc, MPI_ERR_ARG, "MPI_Register_datarep(NULL)");
    rc = MPI_Register_datarep("no-extent", int16_read, int16_write, NULL, NULL);
    mt_check_error_class(rc, MPI_ERR_ARG, "MPI_Register_datarep without an extent function");
    MPI_File fh = reopen(self_path, MPI_COMM_SELF, NULL);
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-representation", MPI_INFO_NULL);
    mt_check_error_class(rc, MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view with an unknown datarep");
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "failing", MPI_INFO_NULL));
    int v[3] = {1, 2, 3};
    MPI_Status st;
    rc = MPI_File_write(fh, v, 3, MPI_INT, &st);
    mt_check_error_class(rc, MPI_ERR_CONVERSION, "MPI_File_write whose write conversion fails");
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "file_datarep");
    const char *dir = getenv("MT_FILE_DIR");
    int pid = (int)getpid();
    MPI_OK(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(path, sizeof path, "%s/file_datarep_%d.dat", dir ? dir : "/tmp", pid);
    snprintf(self_path, sizeof self_path, "%s/file_datarep_%d_%d.dat", dir ? dir : "/tmp", pid, mt_rank);
    external32_ints();
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    /* MPICH 4.0.2 and Open MPI 4.1 lay external32 views out with memory extents:
     * MPI_File_get_type_extent(MPI_LONG) gives 8 (MPI-3.1 13.5.2: 4 bytes), and in MPICH the 4th
     * long of this view is at byte 40, not 20. */
    external32_longs();
#endif
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    /* Neither reference takes conversion functions: MPI_Register_datarep returns
     * MPI_ERR_CONVERSION (MPICH 4.0.2: "Read and Write datarep conversions are currently not
     * supported by MPI-IO"; Open MPI 4.1 likewise). */
    MPI_OK(MPI_Register_datarep("int16le", int16_read, int16_write, int16_extent, NULL));
    MPI_OK(MPI_Register_datarep("failing", int16_read, failing_write, int16_extent, NULL));
    user_collective("enable");
    user_collective("disable");
    user_ordered();
    MPI_OK(MPI_Register_datarep("picky", NULL, NULL, picky_extent, NULL));
    ordered_failing_extent();
    bad_input();
#endif

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
    if (access(self_path, F_OK) == 0) MPI_OK(MPI_File_delete(self_path, MPI_INFO_NULL));
    return mt_finish();
}
