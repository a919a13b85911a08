/* rma_fence: one-sided communication with active-target (MPI_Win_fence) synchronization, over
 * windows from MPI_Win_create (user memory) and MPI_Win_allocate. Every rank puts into its right
 * neighbour and gets from its left one (itself with 1 rank): contiguous ints, a strided origin
 * type, a strided target type, both strided with different shapes, a target displacement scaled by
 * disp_unit 4 and by disp_unit 1 (odd byte offsets). MPI_Accumulate from every rank into every rank
 * with MPI_SUM / MPI_MAX / MPI_REPLACE on MPI_INT and MPI_DOUBLE (exact expected values, also a
 * strided origin), two MPI_REPLACEs from one origin (the later wins: accumulate ordering). Zero-count
 * operations and operations on MPI_PROC_NULL change nothing. 1 MiB put and get and a 1 MiB
 * accumulate (rendezvous-sized). Window attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT,
 * _CREATE_FLAVOR, _MODEL), MPI_Win_get_group (MPI_IDENT with the communicator's group), window
 * names, 20 fence epochs in a row with changing values, MPI_Win_free setting MPI_WIN_NULL, windows
 * on a sub-communicator and windows of size 0 on some ranks. Each epoch is "local stores; fence;
 * RMA calls; fence; local loads", so no local access conflicts with a remote one.
 * Open MPI 4.1 passes with --mca osc ucx; its default osc rdma fails MPI_Win_create on
 * communicators of one process and on the sub-communicator windows with size 0 on some ranks. */
#include "mpitest.h"

#define NW 64   /* ints in the put/get window: [0,32) read by gets, [32,64) written by puts */
#define HALF 32
#define NA 8    /* elements per accumulate region */
#define BIG (1 << 20)

/* Ints in the small MPI_Win_allocate windows. MPICH 4.0.2 (ch4) places the windows of ranks that
 * allocate fewer than 16 bytes wrongly: a put to the right neighbour's 8-byte window lands in the
 * origin's own or another rank's window. */
#ifdef MT_REFERENCE_MPICH_402
#define SMALL 4
#else
#define SMALL 2
#endif

static int left, right;

static int val(int r, int i) { return r * 100003 + i * 7 + 11; }

static void free_win(MPI_Win *win) {
    MPI_OK(MPI_Win_free(win));
    CHECK(*win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor, MPI_Comm comm) {
    void *pbase = NULL;
    MPI_Aint *psize = NULL;
    int *pdisp = NULL, *pflavor = NULL, *pmodel = NULL, flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &pbase, &flag));
    CHECK(flag && pbase == base, "MPI_WIN_BASE flag %d value %p expected %p", flag, pbase, base);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &psize, &flag));
    CHECK(flag && psize && *psize == size, "MPI_WIN_SIZE flag %d value %ld expected %ld", flag,
          psize ? (long)*psize : -1L, (long)size);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &pdisp, &flag));
    CHECK(flag && pdisp && *pdisp == disp_unit, "MPI_WIN_DISP_UNIT flag %d value %d expected %d", flag,
          pdisp ? *pdisp : -1, disp_unit);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &pflavor, &flag));
    CHECK(flag && pflavor && *pflavor == flavor, "MPI_WIN_CREATE_FLAVOR flag %d value %d expected %d", flag,
          pflavor ? *pflavor : -1, flavor);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &pmodel, &flag));
    CHECK(flag && pmodel && (*pmodel == MPI_WIN_SEPARATE || *pmodel == MPI_WIN_UNIFIED),
          "MPI_WIN_MODEL flag %d value %d", flag, pmodel ? *pmodel : -1);

    MPI_Group wg, cg;
    int cmp = -1;
    MPI_OK(MPI_Win_get_group(win, &wg));
    MPI_OK(MPI_Comm_group(comm, &cg));
    MPI_OK(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT, "MPI_Group_compare(window group, communicator group) = %d, expected MPI_IDENT", cmp);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&cg));
}

static void check_names(MPI_Win win) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Win_get_name(win, name, &len));
#ifndef OPEN_MPI /* MPI-3.1 6.8: no name is the empty string; Open MPI 4.1 names windows "rdma window 3" */
    CHECK(len == 0 && name[0] == 0, "name of an unnamed window: \"%s\" (%d)", name, len);
#endif
    char want[64];
    snprintf(want, sizeof want, "rma_fence window of rank %d", mt_rank);
    MPI_OK(MPI_Win_set_name(win, want));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == (int)strlen(want) && strcmp(name, want) == 0, "window name \"%s\" (%d) expected \"%s\"", name, len,
          want);
    MPI_OK(MPI_Win_set_name(win, "renamed"));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 7 && strcmp(name, "renamed") == 0, "window name after rename \"%s\" (%d)", name, len);
}

/* Region A holds val(me, i) (read by gets), region B is -1 (written by puts). */
static void reset(int *w) {
    for (int i = 0; i < HALF; i++) w[i] = val(mt_rank, i);
    for (int i = HALF; i < NW; i++) w[i] = -1;
}

/* Region B after puts: want[j] for j in [0, HALF), INT32_MIN meaning "untouched" (-1). */
static void check_b(const int *w, const int *want, const char *what) {
    for (int j = 0; j < HALF; j++) {
        int exp = want[j] == INT32_MIN ? -1 : want[j];
        CHECK(w[HALF + j] == exp, "%s: window[%d]=%d expected %d", what, HALF + j, w[HALF + j], exp);
    }
    for (int i = 0; i < HALF; i++) CHECK(w[i] == val(mt_rank, i), "%s: region A changed at %d: %d", what, i, w[i]);
}

static void test_put_get(MPI_Win win, int *w, const char *what) {
    int src[2 * HALF], dst[2 * HALF], want[HALF];
    char label[96];
    for (int i = 0; i < 2 * HALF; i++) src[i] = val(mt_rank, 100 + i);

    /* Contiguous: 16 ints to the right neighbour at displacement 32 (disp_unit 4); 16 ints from the
     * left neighbour's region A at displacement 3. */
    reset(w);
    for (int i = 0; i < 2 * HALF; i++) dst[i] = -7;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 16, MPI_INT, right, HALF, 16, MPI_INT, win));
    MPI_OK(MPI_Get(dst, 16, MPI_INT, left, 3, 16, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    snprintf(label, sizeof label, "%s contiguous put", what);
    for (int j = 0; j < HALF; j++) want[j] = j < 16 ? val(left, 100 + j) : INT32_MIN;
    check_b(w, want, label);
    for (int i = 0; i < 2 * HALF; i++)
        CHECK(dst[i] == (i < 16 ? val(left, 3 + i) : -7), "%s contiguous get: dst[%d]=%d", what, i, dst[i]);

    /* Strided origin: every other element of src (vector 8x1 stride 2) into 8 contiguous ints at
     * displacement 36; 8 contiguous ints from the left's displacement 4 into every other element. */
    MPI_Datatype vo, vt, vo2, vt2;
    MPI_OK(MPI_Type_vector(8, 1, 2, MPI_INT, &vo));
    MPI_OK(MPI_Type_commit(&vo));
    reset(w);
    for (int i = 0; i < 2 * HALF; i++) dst[i] = -7;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 1, vo, right, HALF + 4, 8, MPI_INT, win));
    MPI_OK(MPI_Get(dst, 1, vo, left, 4, 8, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    snprintf(label, sizeof label, "%s strided-origin put", what);
    for (int j = 0; j < HALF; j++) want[j] = (j >= 4 && j < 12) ? val(left, 100 + 2 * (j - 4)) : INT32_MIN;
    check_b(w, want, label);
    for (int i = 0; i < 2 * HALF; i++) {
        int exp = (i < 16 && i % 2 == 0) ? val(left, 4 + i / 2) : -7;
        CHECK(dst[i] == exp, "%s strided-origin get: dst[%d]=%d expected %d", what, i, dst[i], exp);
    }

    /* Strided target: 5 contiguous ints into every third int from displacement 33; every third int
     * from the left's displacement 1 into 5 contiguous ints. */
    MPI_OK(MPI_Type_vector(5, 1, 3, MPI_INT, &vt));
    MPI_OK(MPI_Type_commit(&vt));
    reset(w);
    for (int i = 0; i < 2 * HALF; i++) dst[i] = -7;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src + 10, 5, MPI_INT, right, HALF + 1, 1, vt, win));
    MPI_OK(MPI_Get(dst, 5, MPI_INT, left, 1, 1, vt, win));
    MPI_OK(MPI_Win_fence(0, win));
    snprintf(label, sizeof label, "%s strided-target put", what);
    for (int j = 0; j < HALF; j++)
        want[j] = (j >= 1 && j <= 13 && (j - 1) % 3 == 0) ? val(left, 110 + (j - 1) / 3) : INT32_MIN;
    check_b(w, want, label);
    for (int i = 0; i < 2 * HALF; i++) {
        int exp = i < 5 ? val(left, 1 + 3 * i) : -7;
        CHECK(dst[i] == exp, "%s strided-target get: dst[%d]=%d expected %d", what, i, dst[i], exp);
    }

    /* Both strided, different shapes: origin blocks of 2 every 3 (0,1,3,4,6,7,9,10) into target
     * blocks of 4 every 6 (0..3, 6..9) at displacement 40; the get does the reverse. */
    MPI_OK(MPI_Type_vector(4, 2, 3, MPI_INT, &vo2));
    MPI_OK(MPI_Type_vector(2, 4, 6, MPI_INT, &vt2));
    MPI_OK(MPI_Type_commit(&vo2));
    MPI_OK(MPI_Type_commit(&vt2));
    static const int oidx[8] = {0, 1, 3, 4, 6, 7, 9, 10}, tidx[8] = {0, 1, 2, 3, 6, 7, 8, 9};
    reset(w);
    for (int i = 0; i < 2 * HALF; i++) dst[i] = -7;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 1, vo2, right, HALF + 8, 1, vt2, win));
    MPI_OK(MPI_Get(dst, 1, vo2, left, 2, 1, vt2, win));
    MPI_OK(MPI_Win_fence(0, win));
    snprintf(label, sizeof label, "%s strided-both put", what);
    for (int j = 0; j < HALF; j++) want[j] = INT32_MIN;
    for (int k = 0; k < 8; k++) want[8 + tidx[k]] = val(left, 100 + oidx[k]);
    check_b(w, want, label);
    for (int i = 0; i < 2 * HALF; i++) {
        int exp = -7;
        for (int k = 0; k < 8; k++)
            if (oidx[k] == i) exp = val(left, 2 + tidx[k]);
        CHECK(dst[i] == exp, "%s strided-both get: dst[%d]=%d expected %d", what, i, dst[i], exp);
    }
    MPI_OK(MPI_Type_free(&vo));
    MPI_OK(MPI_Type_free(&vt));
    MPI_OK(MPI_Type_free(&vo2));
    MPI_OK(MPI_Type_free(&vt2));

    /* Zero counts and MPI_PROC_NULL: nothing changes, the origin buffer of a get is not written. */
    reset(w);
    for (int i = 0; i < 2 * HALF; i++) dst[i] = -7;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 0, MPI_INT, right, HALF, 0, MPI_INT, win));
    MPI_OK(MPI_Get(dst, 0, MPI_INT, left, 0, 0, MPI_INT, win));
    MPI_OK(MPI_Accumulate(src, 0, MPI_INT, right, HALF, 0, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Put(src, 4, MPI_INT, MPI_PROC_NULL, HALF, 4, MPI_INT, win));
    MPI_OK(MPI_Get(dst, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win));
    MPI_OK(MPI_Accumulate(src, 4, MPI_INT, MPI_PROC_NULL, HALF, 4, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    snprintf(label, sizeof label, "%s zero-count / MPI_PROC_NULL", what);
    for (int j = 0; j < HALF; j++) want[j] = INT32_MIN;
    check_b(w, want, label);
    for (int i = 0; i < 2 * HALF; i++) CHECK(dst[i] == -7, "%s: dst[%d]=%d changed", label, i, dst[i]);
}

static void test_create(void) {
    static int w[NW];
    MPI_Win win;
    MPI_OK(MPI_Win_create(w, sizeof w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(win != MPI_WIN_NULL, "MPI_Win_create gave MPI_WIN_NULL");
    check_attrs(win, w, (MPI_Aint)sizeof w, (int)sizeof(int), MPI_WIN_FLAVOR_CREATE, MPI_COMM_WORLD);
    check_names(win);
    test_put_get(win, w, "Win_create");
    free_win(&win);
}

/* The allocated window has NW ints for test_put_get and 5 * NA more for test_accumulate. */
static int *test_allocate(MPI_Win *win) {
    int *w = NULL;
    const MPI_Aint size = (NW + 5 * NA) * sizeof(int);
    MPI_OK(MPI_Win_allocate(size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, win));
    CHECK(w != NULL && *win != MPI_WIN_NULL, "MPI_Win_allocate gave base %p", (void *)w);
    check_attrs(*win, w, size, (int)sizeof(int), MPI_WIN_FLAVOR_ALLOCATE, MPI_COMM_WORLD);
    test_put_get(*win, w, "Win_allocate");
    return w;
}

/* disp_unit 1: displacements are bytes, including odd ones. The window has 256 bytes for this
 * test and 3 * NA doubles (at byte 256) for test_accumulate. */
#define B1 (256 + 3 * NA * (int)sizeof(double))
static double b1_storage[B1 / sizeof(double)];

static unsigned char *test_disp_unit_1(MPI_Win *winp) {
    unsigned char *b = (unsigned char *)b1_storage;
    MPI_OK(MPI_Win_create(b, B1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, winp));
    MPI_Win win = *winp;
    check_attrs(win, b, B1, 1, MPI_WIN_FLAVOR_CREATE, MPI_COMM_WORLD);
    for (int i = 0; i < 128; i++) b[i] = (unsigned char)(mt_rank * 31 + i);
    for (int i = 128; i < 256; i++) b[i] = 0xEE;
    int src[3] = {val(mt_rank, 1), val(mt_rank, 2), val(mt_rank, 3)}, gi[3] = {0, 0, 0};
    unsigned char cs[5], gc[9];
    for (int i = 0; i < 5; i++) cs[i] = (unsigned char)(200 + mt_rank + i);
    memset(gc, 0xAA, sizeof gc);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 3, MPI_INT, right, 128 + 12, 3, MPI_INT, win)); /* bytes 140..151 */
    MPI_OK(MPI_Put(cs, 5, MPI_UNSIGNED_CHAR, right, 128 + 37, 5, MPI_UNSIGNED_CHAR, win)); /* 165..169 */
    MPI_OK(MPI_Get(gc, 7, MPI_UNSIGNED_CHAR, left, 5, 7, MPI_UNSIGNED_CHAR, win));
    MPI_OK(MPI_Get(gi, 3, MPI_INT, left, 6, 3, MPI_INT, win)); /* ints at a displacement not a multiple of 4 */
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 128; i++)
        CHECK(b[i] == (unsigned char)(mt_rank * 31 + i), "disp_unit 1: byte %d changed to %d", i, b[i]);
    int got[3];
    memcpy(got, b + 140, sizeof got);
    for (int k = 0; k < 3; k++) CHECK(got[k] == val(left, 1 + k), "disp_unit 1: int %d = %d", k, got[k]);
    for (int i = 128; i < 256; i++) {
        if (i >= 140 && i < 152) continue;
        int exp = (i >= 165 && i < 170) ? 200 + left + (i - 165) : 0xEE;
        CHECK(b[i] == exp, "disp_unit 1: byte %d = %d expected %d", i, b[i], exp);
    }
    for (int i = 0; i < 9; i++) {
        int exp = i < 7 ? (unsigned char)(left * 31 + 5 + i) : 0xAA;
        CHECK(gc[i] == exp, "disp_unit 1 get: byte %d = %d expected %d", i, gc[i], exp);
    }
    unsigned char gb[12];
    memcpy(gb, gi, sizeof gb);
    for (int i = 0; i < 12; i++)
        CHECK(gb[i] == (unsigned char)(left * 31 + 6 + i), "disp_unit 1 get of ints at byte 6: byte %d = %d", i,
              gb[i]);
    return b;
}

static int acc_max_contrib(int o, int t, int i) { return ((o * 7 + t) % mt_size) * 100 - 500 + i; }

/* Accumulate from every rank into every rank. Int regions of NA after the NW ints of the allocated
 * window (disp_unit 4): [0] SUM, [1] MAX, [2] MPI_REPLACE of element o by origin o, [3] two
 * MPI_REPLACEs by the left neighbour, [4] SUM with a strided origin type. Doubles at byte 256 of the
 * disp_unit 1 window: [0] SUM, [1] MAX, [2] MPI_REPLACE by the left neighbour. */
#define DD(k) (256 + (MPI_Aint)sizeof(double) * (k)) /* byte displacement of double k */
static void test_accumulate(MPI_Win wini, int *w2, MPI_Win wind, unsigned char *b) {
    int *wi = w2 + NW;
    double *wd = (double *)(void *)(b + 256);
    for (int i = 0; i < NA; i++) {
        wi[i] = mt_rank * 3;
        wi[NA + i] = -1000000;
        wi[2 * NA + i] = -5;
        wi[3 * NA + i] = -6;
        wi[4 * NA + i] = 1;
        wd[i] = 0.125 * mt_rank;
        wd[NA + i] = -1e9;
        wd[2 * NA + i] = -2.5;
    }
    MPI_OK(MPI_Win_fence(0, wini));
    MPI_OK(MPI_Win_fence(0, wind));
    /* Origin buffers stay untouched until the closing fence: one per target where values differ. */
    int s[NA], r1[NA], r2[NA], strided[2 * NA];
    double ds[NA], dr[NA];
    int *m = malloc(sizeof(int) * NA * mt_size), *v = malloc(sizeof(int) * mt_size);
    double *dm = malloc(sizeof(double) * NA * mt_size);
    CHECK(m && v && dm, "malloc");
    for (int i = 0; i < NA; i++) {
        s[i] = mt_rank * 1000 + i + 1;
        ds[i] = 0.5 * mt_rank + 0.25 * i;
    }
    for (int i = 0; i < 2 * NA; i++) strided[i] = i % 2 == 0 ? mt_rank + i / 2 + 1 : 999999;
    for (int t = 0; t < mt_size; t++) {
        for (int i = 0; i < NA; i++) {
            m[t * NA + i] = acc_max_contrib(mt_rank, t, i);
            dm[t * NA + i] = -1.5 * ((mt_rank * 5 + t) % mt_size) + i;
        }
        v[t] = val(mt_rank, t);
        MPI_OK(MPI_Accumulate(s, NA, MPI_INT, t, NW, NA, MPI_INT, MPI_SUM, wini));
        MPI_OK(MPI_Accumulate(m + t * NA, NA, MPI_INT, t, NW + NA, NA, MPI_INT, MPI_MAX, wini));
        if (mt_rank < NA)
            MPI_OK(MPI_Accumulate(v + t, 1, MPI_INT, t, NW + 2 * NA + mt_rank, 1, MPI_INT, MPI_REPLACE, wini));
        MPI_Datatype every2;
        MPI_OK(MPI_Type_vector(NA, 1, 2, MPI_INT, &every2));
        MPI_OK(MPI_Type_commit(&every2));
        MPI_OK(MPI_Accumulate(strided, 1, every2, t, NW + 4 * NA, NA, MPI_INT, MPI_SUM, wini));
        MPI_OK(MPI_Type_free(&every2)); /* freed while the operation may still be pending */
        MPI_OK(MPI_Accumulate(ds, NA, MPI_DOUBLE, t, DD(0), NA, MPI_DOUBLE, MPI_SUM, wind));
        MPI_OK(MPI_Accumulate(dm + t * NA, NA, MPI_DOUBLE, t, DD(NA), NA, MPI_DOUBLE, MPI_MAX, wind));
    }
    for (int i = 0; i < NA; i++) {
        r1[i] = 77;
        r2[i] = val(mt_rank, 50 + i);
        dr[i] = mt_rank + 0.75 * i;
    }
    MPI_OK(MPI_Accumulate(r1, NA, MPI_INT, right, NW + 3 * NA, NA, MPI_INT, MPI_REPLACE, wini));
    MPI_OK(MPI_Accumulate(r2, NA, MPI_INT, right, NW + 3 * NA, NA, MPI_INT, MPI_REPLACE, wini));
    MPI_OK(MPI_Accumulate(dr, NA, MPI_DOUBLE, right, DD(2 * NA), NA, MPI_DOUBLE, MPI_REPLACE, wind));
    MPI_OK(MPI_Win_fence(0, wini));
    MPI_OK(MPI_Win_fence(0, wind));
    int n = mt_size;
    for (int i = 0; i < NA; i++) {
        int es = mt_rank * 3 + 1000 * n * (n - 1) / 2 + n * (i + 1);
        CHECK(wi[i] == es, "int SUM [%d] = %d expected %d", i, wi[i], es);
        int em = -1000000;
        for (int o = 0; o < n; o++)
            if (acc_max_contrib(o, mt_rank, i) > em) em = acc_max_contrib(o, mt_rank, i);
        CHECK(wi[NA + i] == em, "int MAX [%d] = %d expected %d", i, wi[NA + i], em);
        int er = i < n ? val(i, mt_rank) : -5;
        CHECK(wi[2 * NA + i] == er, "int REPLACE by rank [%d] = %d expected %d", i, wi[2 * NA + i], er);
        CHECK(wi[3 * NA + i] == val(left, 50 + i), "second REPLACE [%d] = %d expected %d", i, wi[3 * NA + i],
              val(left, 50 + i));
        int ev = 1 + n * (n - 1) / 2 + n * (i + 1);
        CHECK(wi[4 * NA + i] == ev, "strided-origin SUM [%d] = %d expected %d", i, wi[4 * NA + i], ev);
        double eds = 0.125 * mt_rank + 0.5 * n * (n - 1) / 2 + 0.25 * i * n;
        CHECK(wd[i] == eds, "double SUM [%d] = %.17g expected %.17g", i, wd[i], eds);
        double edm = -1e9;
        for (int o = 0; o < n; o++) {
            double c = -1.5 * ((o * 5 + mt_rank) % n) + i;
            if (c > edm) edm = c;
        }
        CHECK(wd[NA + i] == edm, "double MAX [%d] = %g expected %g", i, wd[NA + i], edm);
        CHECK(wd[2 * NA + i] == left + 0.75 * i, "double REPLACE [%d] = %g expected %g", i, wd[2 * NA + i],
              left + 0.75 * i);
    }
    free(m);
    free(v);
    free(dm);
}

/* 1 MiB put and get (byte pattern), then 1 MiB of int MPI_SUM from both neighbours. */
static void test_large(void) {
    unsigned char *w = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(2 * BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    unsigned char *src = malloc(BIG), *dst = malloc(BIG);
    CHECK(src && dst, "malloc");
    mt_fill(w, BIG, (unsigned)mt_rank);
    memset(w + BIG, 0, BIG);
    mt_fill(src, BIG, 1000u + (unsigned)mt_rank);
    memset(dst, 0, BIG);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, BIG, MPI_BYTE, right, BIG, BIG, MPI_BYTE, win));
    MPI_OK(MPI_Get(dst, BIG, MPI_BYTE, left, 0, BIG, MPI_BYTE, win));
    MPI_OK(MPI_Win_fence(0, win));
    long bad = mt_verify(w + BIG, BIG, 1000u + (unsigned)left);
    CHECK(bad < 0, "1 MiB put: first wrong byte %ld", bad);
    bad = mt_verify(dst, BIG, (unsigned)left);
    CHECK(bad < 0, "1 MiB get: first wrong byte %ld", bad);
    bad = mt_verify(w, BIG, (unsigned)mt_rank);
    CHECK(bad < 0, "1 MiB get: the source region changed at byte %ld", bad);

    const int ni = BIG / (int)sizeof(int);
    int *wi = (int *)(void *)(w + BIG), *ai = (int *)(void *)src;
    for (int k = 0; k < ni; k++) {
        wi[k] = 0;
        ai[k] = k * 3 + mt_rank;
    }
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(ai, ni, MPI_INT, right, BIG, ni, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(ai, ni, MPI_INT, left, BIG, ni, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < ni; k++) {
        int exp = (k * 3 + left) + (k * 3 + right);
        CHECK(wi[k] == exp, "1 MiB accumulate: int %d = %d expected %d", k, wi[k], exp);
    }
    free(src);
    free(dst);
    free_win(&win);
}

/* Fence epochs in a row (default 20, the first argument overrides): put into slot it%2 of the
 * right neighbour, so the local load of one epoch never meets a remote put of the next. */
static void test_many_epochs(int iters) {
    int *w = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(SMALL * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    w[0] = w[1] = -1;
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int it = 0; it < iters; it++) {
        int v = val(mt_rank, it);
        MPI_OK(MPI_Put(&v, 1, MPI_INT, right, it % 2, 1, MPI_INT, win));
        MPI_OK(MPI_Win_fence(it == iters - 1 ? MPI_MODE_NOSUCCEED : 0, win));
        CHECK(w[it % 2] == val(left, it), "epoch %d: slot %d = %d expected %d", it, it % 2, w[it % 2],
              val(left, it));
    }
    free_win(&win);
}

/* A window on the parity sub-communicator where the odd sub-ranks expose nothing (size 0); an
 * allocated window on MPI_COMM_WORLD where the odd ranks expose nothing. */
static void test_subcomm_and_zero_size(void) {
    MPI_Comm sub;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &sub));
    int sr, ns;
    MPI_OK(MPI_Comm_rank(sub, &sr));
    MPI_OK(MPI_Comm_size(sub, &ns));
    static int w[4];
    int exposes = sr % 2 == 0;
    MPI_Win win;
    MPI_OK(MPI_Win_create(exposes ? w : NULL, exposes ? (MPI_Aint)sizeof w : 0, sizeof(int), MPI_INFO_NULL, sub,
                          &win));
    MPI_Aint *psize = NULL;
    int flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &psize, &flag));
    CHECK(flag && *psize == (exposes ? (MPI_Aint)sizeof w : 0), "sub window size %ld", (long)*psize);
    MPI_Group wg, cg;
    int cmp = -1;
    MPI_OK(MPI_Win_get_group(win, &wg));
    MPI_OK(MPI_Comm_group(sub, &cg));
    MPI_OK(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT, "sub window group compare %d", cmp);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&cg));
    w[0] = 0;
    w[1] = -1;
    MPI_OK(MPI_Win_fence(0, win));
    int one = sr + 1;
    for (int t = 0; t < ns; t += 2) MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
    if (!exposes) MPI_OK(MPI_Put(&mt_rank, 1, MPI_INT, sr - 1, 1, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (exposes) {
        CHECK(w[0] == ns * (ns + 1) / 2, "sub window SUM %d expected %d", w[0], ns * (ns + 1) / 2);
        int exp = sr + 1 < ns ? mt_rank + 2 : -1; /* sub-rank sr+1 is world rank mt_rank+2 */
        CHECK(w[1] == exp, "sub window put %d expected %d", w[1], exp);
    }
    free_win(&win);
    MPI_OK(MPI_Comm_free(&sub));

    int *a = NULL;
    int big = mt_rank % 2 == 0;
    MPI_OK(MPI_Win_allocate(big ? SMALL * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win));
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &psize, &flag));
    CHECK(flag && *psize == (big ? (MPI_Aint)(SMALL * sizeof(int)) : 0), "allocated window size %ld", (long)*psize);
    if (big) a[0] = a[1] = 0;
    MPI_OK(MPI_Win_fence(0, win));
    int v = mt_rank + 1;
    for (int t = 0; t < mt_size; t += 2) {
        MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_MAX, win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    if (big)
        CHECK(a[0] == mt_size * (mt_size + 1) / 2 && a[1] == mt_size, "size-0 peers: sum %d max %d", a[0], a[1]);
    free_win(&win);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_fence");
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank - 1 + mt_size) % mt_size;
    test_create();
    MPI_Win w2, w3;
    int *a2 = test_allocate(&w2);
    unsigned char *a3 = test_disp_unit_1(&w3);
    test_accumulate(w2, a2, w3, a3);
    free_win(&w2);
    free_win(&w3);
    test_large();
    test_many_epochs(mt_iters(argc, argv, 20));
    test_subcomm_and_zero_size();
    return mt_finish();
}
