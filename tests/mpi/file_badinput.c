/* file_badinput: invalid MPI-IO calls return the right error class through the files' default
 * error handler, MPI_ERRORS_RETURN (MPI-3.1 13.7); MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL, so an
 * implementation raising a file error on the communicator aborts the test. Checked:
 *  - MPI_FILE_NULL given to every routine taking a file: MPI_ERR_FILE;
 *  - every data-access routine (explicit offsets, individual and shared pointers; blocking,
 *    nonblocking, collective, split collective, ordered) with count -1 (MPI_ERR_COUNT), with
 *    MPI_DATATYPE_NULL and with an uncommitted datatype (MPI_ERR_TYPE); the explicit-offset
 *    routines with offset -1 (MPI_ERR_ARG);
 *  - MPI_File_seek / seek_shared with a bad whence or to a negative position, set_size /
 *    preallocate / get_byte_offset with a negative argument: MPI_ERR_ARG;
 *  - MPI_File_open with a bad amode (RDONLY|RDWR, WRONLY|RDWR, no access mode, RDONLY|CREATE,
 *    RDONLY|EXCL, RDWR|SEQUENTIAL): MPI_ERR_AMODE; of a missing file or a file in a missing
 *    directory: MPI_ERR_NO_SUCH_FILE (also MPI_File_delete); on MPI_COMM_NULL: MPI_ERR_COMM;
 *  - MPI_File_set_view: datarep "bogus" (MPI_ERR_UNSUPPORTED_DATAREP), a filetype whose size is
 *    not a multiple of the etype's (MPI-3.1 names no class: MPI_ERR_ARG or MPI_ERR_TYPE, both
 *    references say MPI_ERR_ARG), null or uncommitted types (MPI_ERR_TYPE), a negative disp
 *    (MPI_ERR_ARG); a failed set_view leaves the view as it was;
 *  - writes (and set_size, preallocate) on a MPI_MODE_RDONLY file: MPI-3.1 names no class, so
 *    MPI_ERR_READ_ONLY or MPI_ERR_ACCESS (both references say MPI_ERR_READ_ONLY for the plain
 *    writes); reads on a MPI_MODE_WRONLY file: MPI_ERR_ACCESS;
 *  - explicit offsets and seek on a MPI_MODE_SEQUENTIAL file: MPI_ERR_UNSUPPORTED_OPERATION
 *    (shared-pointer reads work there);
 *  - a user handler set on MPI_FILE_NULL is invoked for a failing MPI_File_open.
 * Failed calls change nothing: the file keeps its size and every byte. Where Debian's MPICH 4.0.2
 * or Open MPI 4.1 deviate, an #ifdef says what that reference does. */
#include "mpitest.h"

#define N 16

static char dir[512], path[600];
static int me, np;

#define EXPECT(call, cls) mt_check_error_class((call), (cls), #call)

static void expect_either(int rc, int c1, int c2, const char *what) {
    int cls = -1;
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what);
    MPI_OK(MPI_Error_class(rc, &cls));
    mt_check_error_class(rc, cls == c2 ? c2 : c1, what);
}

static int val(int r, int i) { return r * 100003 + i * 7 + 11; }

/* Every data-access routine with these arguments fails with class `cls` (or `cls2`). */
static void access_all(MPI_File fh, int explicit_only, MPI_Offset off, int count, MPI_Datatype t, int cls, int cls2,
                       const char *what) {
    int buf[N];
    MPI_Status st;
    MPI_Request rq;
    char w[200];
    for (int i = 0; i < N; i++) buf[i] = -9;
#define X(call)                                                  \
    do {                                                         \
        snprintf(w, sizeof w, "%s: %s", what, #call);            \
        expect_either((call), cls, cls2, w);                     \
    } while (0)
    X(MPI_File_write_at(fh, off, buf, count, t, &st));
    X(MPI_File_read_at(fh, off, buf, count, t, &st));
    X(MPI_File_write_at_all(fh, off, buf, count, t, &st));
    X(MPI_File_read_at_all(fh, off, buf, count, t, &st));
    X(MPI_File_iwrite_at(fh, off, buf, count, t, &rq));
    X(MPI_File_iread_at(fh, off, buf, count, t, &rq));
    X(MPI_File_iwrite_at_all(fh, off, buf, count, t, &rq));
    X(MPI_File_iread_at_all(fh, off, buf, count, t, &rq));
    X(MPI_File_write_at_all_begin(fh, off, buf, count, t));
    X(MPI_File_read_at_all_begin(fh, off, buf, count, t));
    if (!explicit_only) {
        X(MPI_File_write(fh, buf, count, t, &st));
        X(MPI_File_read(fh, buf, count, t, &st));
        X(MPI_File_write_all(fh, buf, count, t, &st));
        X(MPI_File_read_all(fh, buf, count, t, &st));
        X(MPI_File_iwrite(fh, buf, count, t, &rq));
        X(MPI_File_iread(fh, buf, count, t, &rq));
        X(MPI_File_iwrite_all(fh, buf, count, t, &rq));
        X(MPI_File_iread_all(fh, buf, count, t, &rq));
        X(MPI_File_write_all_begin(fh, buf, count, t));
        X(MPI_File_read_all_begin(fh, buf, count, t));
        X(MPI_File_write_shared(fh, buf, count, t, &st));
        X(MPI_File_read_shared(fh, buf, count, t, &st));
        X(MPI_File_iwrite_shared(fh, buf, count, t, &rq));
        X(MPI_File_iread_shared(fh, buf, count, t, &rq));
        X(MPI_File_write_ordered(fh, buf, count, t, &st));
        X(MPI_File_read_ordered(fh, buf, count, t, &st));
        X(MPI_File_write_ordered_begin(fh, buf, count, t));
        X(MPI_File_read_ordered_begin(fh, buf, count, t));
    }
#undef X
    for (int i = 0; i < N; i++) CHECK(buf[i] == -9, "%s: a failed read wrote buf[%d] = %d", what, i, buf[i]);
}

static void test_null_file(void) {
    MPI_File fn = MPI_FILE_NULL;
    MPI_Offset o;
    MPI_Group g;
    MPI_Aint ext;
    int x;
    access_all(MPI_FILE_NULL, 0, 0, 1, MPI_INT, MPI_ERR_FILE, MPI_ERR_FILE, "MPI_FILE_NULL");
    EXPECT(MPI_File_close(&fn), MPI_ERR_FILE);
    EXPECT(MPI_File_seek(fn, 0, MPI_SEEK_SET), MPI_ERR_FILE);
    EXPECT(MPI_File_seek_shared(fn, 0, MPI_SEEK_SET), MPI_ERR_FILE);
    EXPECT(MPI_File_get_position_shared(fn, &o), MPI_ERR_FILE);
    EXPECT(MPI_File_get_size(fn, &o), MPI_ERR_FILE);
    EXPECT(MPI_File_set_size(fn, 0), MPI_ERR_FILE);
    EXPECT(MPI_File_preallocate(fn, 0), MPI_ERR_FILE);
    EXPECT(MPI_File_get_amode(fn, &x), MPI_ERR_FILE);
    EXPECT(MPI_File_get_group(fn, &g), MPI_ERR_FILE);
    EXPECT(MPI_File_set_view(fn, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_FILE);
    EXPECT(MPI_File_set_atomicity(fn, 1), MPI_ERR_FILE);
    EXPECT(MPI_File_get_type_extent(fn, MPI_INT, &ext), MPI_ERR_FILE);
#ifndef MT_REFERENCE_MPICH_402
    /* MPICH 4.0.2 returns MPI_SUCCESS for these four on MPI_FILE_NULL, and MPI_ERR_ARG for sync */
    char rep[MPI_MAX_DATAREP_STRING + 1];
    MPI_Datatype e, f;
    EXPECT(MPI_File_get_position(fn, &o), MPI_ERR_FILE);
    EXPECT(MPI_File_get_byte_offset(fn, 0, &o), MPI_ERR_FILE);
    EXPECT(MPI_File_get_view(fn, &o, &e, &f, rep), MPI_ERR_FILE);
    EXPECT(MPI_File_get_atomicity(fn, &x), MPI_ERR_FILE);
    EXPECT(MPI_File_sync(fn), MPI_ERR_FILE);
#endif
#ifndef OPEN_MPI
    /* Open MPI 4.1 raises these on MPI_COMM_WORLD, whose MPI_ERRORS_ARE_FATAL aborts the job:
     * MPI_ERR_COMM for get_info, MPI_ERR_FILE for set_info */
    MPI_Info info;
    EXPECT(MPI_File_get_info(fn, &info), MPI_ERR_FILE);
    EXPECT(MPI_File_set_info(fn, MPI_INFO_NULL), MPI_ERR_FILE);
#endif
}

static int eh_calls, eh_code;
static MPI_File eh_file;
static void null_handler(MPI_File *f, int *code, ...) {
    eh_calls++;
    eh_file = *f;
    eh_code = *code;
}

static void test_open_errors(void) {
    MPI_File f = MPI_FILE_NULL;
    char missing[700], nodir[700];
    snprintf(missing, sizeof missing, "%s.missing", path);
    snprintf(nodir, sizeof nodir, "%s.nodir/file", path);
    const int bad[] = {MPI_MODE_RDONLY | MPI_MODE_RDWR,  MPI_MODE_WRONLY | MPI_MODE_RDWR,
                       MPI_MODE_RDONLY | MPI_MODE_WRONLY, 0,
                       MPI_MODE_CREATE,                   MPI_MODE_RDONLY | MPI_MODE_CREATE,
                       MPI_MODE_RDONLY | MPI_MODE_EXCL,   MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char w[80];
        snprintf(w, sizeof w, "MPI_File_open with amode %#x", bad[i]);
        mt_check_error_class(MPI_File_open(MPI_COMM_WORLD, path, bad[i], MPI_INFO_NULL, &f), MPI_ERR_AMODE, w);
    }
    EXPECT(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &f), MPI_ERR_NO_SUCH_FILE);
    EXPECT(MPI_File_open(MPI_COMM_WORLD, nodir, MPI_MODE_RDONLY, MPI_INFO_NULL, &f), MPI_ERR_NO_SUCH_FILE);
    EXPECT(MPI_File_open(MPI_COMM_WORLD, nodir, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f),
           MPI_ERR_NO_SUCH_FILE);
    EXPECT(MPI_File_delete(nodir, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    EXPECT(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
#ifndef OPEN_MPI /* Open MPI 4.1 raises MPI_ERR_COMM on MPI_COMM_WORLD (fatal) */
    EXPECT(MPI_File_open(MPI_COMM_NULL, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f), MPI_ERR_COMM);
#endif

    /* open errors go to MPI_FILE_NULL's handler */
    MPI_Errhandler eh;
    MPI_OK(MPI_File_create_errhandler(null_handler, &eh));
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    CHECK(eh_calls == 1 && eh_file == MPI_FILE_NULL && eh_code == rc,
          "MPI_FILE_NULL's handler for a failed open: %d calls, file is MPI_FILE_NULL %d, code %d vs %d", eh_calls,
          eh_file == MPI_FILE_NULL, eh_code, rc);
    mt_check_error_class(rc, MPI_ERR_NO_SUCH_FILE, "failed open with a user handler on MPI_FILE_NULL");
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&eh));
    rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    CHECK(rc != MPI_SUCCESS && eh_calls == 1, "the user handler ran after MPI_ERRORS_RETURN was restored");
}

static void test_rdwr_errors(MPI_File fh) {
    MPI_Datatype unc, six;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc)); /* never committed */
    access_all(fh, 0, 0, -1, MPI_INT, MPI_ERR_COUNT, MPI_ERR_COUNT, "count -1");
    access_all(fh, 0, 0, 1, MPI_DATATYPE_NULL, MPI_ERR_TYPE, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    access_all(fh, 0, 0, 1, unc, MPI_ERR_TYPE, MPI_ERR_TYPE, "uncommitted datatype");
#ifndef OPEN_MPI /* Open MPI 4.1 does not check offsets: pwrite / pread fail, the calls return MPI_SUCCESS */
    access_all(fh, 1, -1, 1, MPI_INT, MPI_ERR_ARG, MPI_ERR_ARG, "offset -1");
#endif
    MPI_Offset o = -1;
    EXPECT(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
#ifdef OPEN_MPI /* Open MPI 4.1: MPI_ERR_OTHER for a negative position and a negative set_size */
    const int neg_class = MPI_ERR_OTHER;
#else
    const int neg_class = MPI_ERR_ARG;
#endif
    EXPECT(MPI_File_seek(fh, -1, MPI_SEEK_SET), neg_class);
    EXPECT(MPI_File_seek(fh, -1, MPI_SEEK_CUR), neg_class);
    EXPECT(MPI_File_set_size(fh, -1), neg_class);
#ifdef MT_REFERENCE_MPICH_402
    /* MPICH 4.0.2 checks the arguments of MPI_File_seek_shared on rank 0 only: with more ranks the
     * others wait in its closing barrier, and the job hangs. It does not check get_byte_offset. */
    if (np == 1)
#endif
    {
        EXPECT(MPI_File_seek_shared(fh, 0, 12345), MPI_ERR_ARG);
#ifndef OPEN_MPI /* Open MPI 4.1 sets the shared pointer to -1; only rank 0 returns an error */
        EXPECT(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
#endif
    }
#ifndef MT_REFERENCE_MPICH_402
    EXPECT(MPI_File_get_byte_offset(fh, -1, &o), MPI_ERR_ARG);
#endif
#ifndef OPEN_MPI /* Open MPI 4.1 accepts a negative size for preallocate and a negative view disp */
    EXPECT(MPI_File_preallocate(fh, -1), MPI_ERR_ARG);
    EXPECT(MPI_File_set_view(fh, -5, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_ARG);
#endif
    MPI_OK(MPI_File_get_position(fh, &o));
    CHECK(o == 0, "failed seeks moved the individual pointer to %lld", (long long)o);
    MPI_OK(MPI_File_get_position_shared(fh, &o));
    CHECK(o == 0, "failed calls moved the shared pointer to %lld", (long long)o);

    /* views */
    MPI_OK(MPI_Type_contiguous(6, MPI_BYTE, &six));
    MPI_OK(MPI_Type_commit(&six));
    EXPECT(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "bogus", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
    expect_either(MPI_File_set_view(fh, 0, MPI_INT, six, "native", MPI_INFO_NULL), MPI_ERR_ARG, MPI_ERR_TYPE,
                  "set_view: 6-byte filetype, 4-byte etype");
    expect_either(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_ARG, MPI_ERR_TYPE,
                  "set_view: filetype MPI_INT, etype MPI_DOUBLE");
    EXPECT(MPI_File_set_view(fh, 0, MPI_INT, unc, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
#ifdef MT_REFERENCE_MPICH_402
    const int null_view = MPI_ERR_ARG; /* MPICH 4.0.2: MPI_ERR_ARG for a null etype or filetype */
#else
    const int null_view = MPI_ERR_TYPE;
#endif
    EXPECT(MPI_File_set_view(fh, 0, MPI_DATATYPE_NULL, MPI_INT, "native", MPI_INFO_NULL), null_view);
    EXPECT(MPI_File_set_view(fh, 0, MPI_INT, MPI_DATATYPE_NULL, "native", MPI_INFO_NULL), null_view);
    MPI_Offset disp = -1;
    MPI_Datatype e = MPI_DATATYPE_NULL, f = MPI_DATATYPE_NULL;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    MPI_OK(MPI_File_get_view(fh, &disp, &e, &f, rep));
    /* still the default view: bytes (the types may be derived copies of MPI_BYTE). Open MPI 4.1
     * keeps the etype MPI_DOUBLE and the filetype MPI_INT of the set_view it rejected. */
    MPI_Datatype ef[2] = {e, f};
    for (int i = 0; i < 2; i++) {
        int size = -1, ni, na, nd, comb;
        MPI_Aint lb = -1, ext = -1;
        MPI_OK(MPI_Type_size(ef[i], &size));
        MPI_OK(MPI_Type_get_extent(ef[i], &lb, &ext));
#ifndef OPEN_MPI
        CHECK(size == 1 && lb == 0 && ext == 1, "failed set_view calls changed the view: %s size %d extent %ld",
              i ? "filetype" : "etype", size, (long)ext);
#endif
        MPI_OK(MPI_Type_get_envelope(ef[i], &ni, &na, &nd, &comb));
        if (comb != MPI_COMBINER_NAMED) MPI_OK(MPI_Type_free(&ef[i]));
    }
    CHECK(disp == 0 && strcmp(rep, "native") == 0, "failed set_view calls changed the view: disp %lld, \"%s\"",
          (long long)disp, rep);
    MPI_Aint ext;
    EXPECT(MPI_File_get_type_extent(fh, MPI_DATATYPE_NULL, &ext), MPI_ERR_TYPE);
    MPI_OK(MPI_Type_free(&six));
    MPI_OK(MPI_Type_free(&unc));
}

static void test_rdonly_errors(void) {
    MPI_File fh = MPI_FILE_NULL;
    int buf[N];
    MPI_Status st;
    MPI_Request rq;
    for (int i = 0; i < N; i++) buf[i] = -7;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
#if defined(MT_REFERENCE_MPICH_402)
    /* MPICH 4.0.2: MPI_ERR_READ_ONLY, but MPI_ERR_IO for the shared-pointer writes and preallocate */
    const int ro = MPI_ERR_READ_ONLY, ro2 = MPI_ERR_READ_ONLY, ro_shared = MPI_ERR_IO, ro_size = MPI_ERR_READ_ONLY,
              ro_prealloc = MPI_ERR_IO;
#elif defined(OPEN_MPI)
    /* Open MPI 4.1: MPI_ERR_READ_ONLY, but MPI_ERR_OTHER for set_size */
    const int ro = MPI_ERR_READ_ONLY, ro2 = MPI_ERR_READ_ONLY, ro_shared = MPI_ERR_READ_ONLY, ro_size = MPI_ERR_OTHER,
              ro_prealloc = MPI_ERR_READ_ONLY;
#else
    const int ro = MPI_ERR_READ_ONLY, ro2 = MPI_ERR_ACCESS, ro_shared = ro, ro_size = ro, ro_prealloc = ro;
#endif
    expect_either(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st), ro, ro2, "write_at on a read-only file");
    expect_either(MPI_File_iwrite_at(fh, 0, buf, 1, MPI_INT, &rq), ro, ro2, "iwrite_at on a read-only file");
    expect_either(MPI_File_write(fh, buf, 1, MPI_INT, &st), ro, ro2, "write on a read-only file");
#ifdef OPEN_MPI
    /* Open MPI 4.1 with 3 or more ranks (fcoll vulcan): the collective writes (also
     * write_ordered) fail in writev with EBADF and return MPI_SUCCESS */
    if (np < 3)
#endif
    {
        expect_either(MPI_File_write_at_all(fh, 0, buf, 1, MPI_INT, &st), ro, ro2, "write_at_all, read-only file");
        expect_either(MPI_File_write_all(fh, buf, 1, MPI_INT, &st), ro, ro2, "write_all on a read-only file");
        expect_either(MPI_File_write_ordered(fh, buf, 1, MPI_INT, &st), ro_shared, ro2, "write_ordered, read-only");
    }
    expect_either(MPI_File_iwrite(fh, buf, 1, MPI_INT, &rq), ro, ro2, "iwrite on a read-only file");
    expect_either(MPI_File_write_shared(fh, buf, 1, MPI_INT, &st), ro_shared, ro2, "write_shared, read-only file");
    expect_either(MPI_File_set_size(fh, 10), ro_size, ro2, "set_size on a read-only file");
#ifdef MT_REFERENCE_MPICH_402
    /* MPICH 4.0.2 checks the access mode on rank 0 only: the others return MPI_SUCCESS while
     * rank 0 enters an allreduce they never join (the job hangs) */
    if (np == 1)
#endif
        expect_either(MPI_File_preallocate(fh, 1 << 20), ro_prealloc, ro2, "preallocate on a read-only file");
    MPI_OK(MPI_File_read_at(fh, me * N * (MPI_Offset)sizeof(int), buf, N, MPI_INT, &st)); /* reads work */
    for (int i = 0; i < N; i++) CHECK(buf[i] == val(me, i), "read-only file: buf[%d] = %d", i, buf[i]);
    MPI_OK(MPI_File_close(&fh));

    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    for (int i = 0; i < N; i++) buf[i] = -7;
    EXPECT(MPI_File_read_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    EXPECT(MPI_File_read(fh, buf, 1, MPI_INT, &st), MPI_ERR_ACCESS);
#ifdef OPEN_MPI
    if (np < 3) /* as above: fcoll vulcan's collective reads return MPI_SUCCESS */
#endif
    {
        EXPECT(MPI_File_read_at_all(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_ACCESS);
        EXPECT(MPI_File_read_all(fh, buf, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    }
    CHECK(buf[0] == -7, "a failed read on a write-only file wrote %d", buf[0]);
    MPI_OK(MPI_File_close(&fh));
}

static void test_sequential(void) {
    MPI_File fh = MPI_FILE_NULL;
    int buf[N];
    MPI_Status st;
    MPI_Request rq;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh));
#ifndef OPEN_MPI /* Open MPI 4.1 allows explicit offsets and seek on a MPI_MODE_SEQUENTIAL file */
    EXPECT(MPI_File_read_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT(MPI_File_read_at_all(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT(MPI_File_iread_at(fh, 0, buf, 1, MPI_INT, &rq), MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
#endif
    (void)rq;
    /* the shared file pointer works: rank order, one block each */
    MPI_OK(MPI_File_read_ordered(fh, buf, N, MPI_INT, &st));
    for (int i = 0; i < N; i++) CHECK(buf[i] == val(me, i), "sequential read_ordered: buf[%d] = %d", i, buf[i]);
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "file_badinput");
    me = mt_rank;
    np = mt_size;
    const char *d = getenv("MT_FILE_DIR");
    snprintf(dir, sizeof dir, "%s", d && *d ? d : "/tmp");
    int jobid = (int)getpid();
    MPI_OK(MPI_Bcast(&jobid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(path, sizeof path, "%s/mt_file_badinput_%d", dir, jobid);

    MPI_Errhandler eh;
    MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's error handler is not MPI_ERRORS_RETURN");
    MPI_OK(MPI_Errhandler_free(&eh));
    test_null_file();

    /* the file: block r holds val(r, 0..N-1) */
    MPI_File fh = MPI_FILE_NULL;
    int buf[N];
    MPI_Status st;
    if (me == 0) (void)MPI_File_delete(path, MPI_INFO_NULL);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    for (int i = 0; i < N; i++) buf[i] = val(me, i);
    MPI_OK(MPI_File_write_at_all(fh, me * N * (MPI_Offset)sizeof(int), buf, N, MPI_INT, &st));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "a new file's error handler is not MPI_ERRORS_RETURN");
    MPI_OK(MPI_Errhandler_free(&eh));
    test_rdwr_errors(fh);
    MPI_OK(MPI_File_close(&fh));

    test_open_errors();
    test_rdonly_errors();
    test_sequential();

    /* nothing changed: size and every block */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_Offset sz = -1;
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == np * N * (MPI_Offset)sizeof(int), "file size %lld after the failed calls, expected %lld",
          (long long)sz, (long long)(np * N * sizeof(int)));
    int *all = malloc((size_t)np * N * sizeof(int));
    CHECK(all != NULL, "malloc");
    MPI_OK(MPI_File_read_at_all(fh, 0, all, np * N, MPI_INT, &st));
    for (int r = 0; r < np; r++)
        for (int i = 0; i < N; i++)
            CHECK(all[r * N + i] == val(r, i), "after the failed calls: block %d int %d = %d", r, i, all[r * N + i]);
    free(all);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
    return mt_finish();
}
