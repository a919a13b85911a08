/* Reductions with user operations on non-contiguous derived datatypes (vector, struct, indexed):
 * Reduce (every root, in place), Allreduce (in place, large), Reduce_scatter(_block), Scan,
 * Exscan, Reduce_local and the non-blocking forms, Allreduce and Reduce on an intercommunicator, with a commutative sum and a non-commutative
 * (associative) composition of affine maps. The user function checks that it gets the user's
 * datatype and buffers laid out with it; results are compared with a fold in rank order, and the
 * bytes outside the type map of every receive buffer must stay untouched. A predefined operation
 * on a derived type is MPI_ERR_OP. Counts stay small for the per-root Reduce: MPICH 4.0.2 (the
 * reference the tests are validated against) crashes in MPI_Reduce with 300 elements of the vector
 * type, a commutative user op and MPI_IN_PLACE at the root. */
#include "mpitest.h"

enum { kVec, kStruct, kIdx, kLayouts };
enum { kSentinel = 0xA5 };

typedef struct {
    const char *name;
    int nfields;
    int offset[3]; /* bytes */
    int is_double[3];
    MPI_Aint extent;
    MPI_Datatype type;
} Layout;

static Layout layouts[kLayouts] = {
    /* vector(2, 1, 2, MPI_INT): ints 0 and 2 of 3 */
    {"vector", 2, {0, 8, 0}, {0, 0, 0}, 12, MPI_DATATYPE_NULL},
    /* struct {int at 0; double at 8}, extent 16 */
    {"struct", 2, {0, 8, 0}, {0, 1, 0}, 16, MPI_DATATYPE_NULL},
    /* indexed({1, 2}, {0, 3}, MPI_INT): ints 0, 3, 4 of 5 */
    {"indexed", 3, {0, 12, 16}, {0, 0, 0}, 20, MPI_DATATYPE_NULL},
};

static const Layout *layout_of(MPI_Datatype t) {
    for (int i = 0; i < kLayouts; ++i)
        if (layouts[i].type == t) return &layouts[i];
    return NULL;
}

static double get(const Layout *L, const void *buf, int i, int f) {
    const char *p = (const char *)buf + (MPI_Aint)i * L->extent + L->offset[f];
    if (L->is_double[f]) {
        double d;
        memcpy(&d, p, sizeof d);
        return d;
    }
    int v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void set(const Layout *L, void *buf, int i, int f, double v) {
    char *p = (char *)buf + (MPI_Aint)i * L->extent + L->offset[f];
    if (L->is_double[f]) {
        memcpy(p, &v, sizeof v);
    } else {
        int x = (int)v;
        memcpy(p, &x, sizeof x);
    }
}

/* a op b for one element: sum of every field, or (noncommutative) the affine maps t -> x*t + y
 * of fields 0 and 1 composed, a after b (mod 1000), the other fields summed. */
static void combine(int affine, const double *a, double *b, int nfields) {
    if (affine) {
        const long long a0 = (long long)a[0], a1 = (long long)a[1], b0 = (long long)b[0], b1 = (long long)b[1];
        const double x = (double)(a0 * b0 % 1000), y = (double)((a0 * b1 + a1) % 1000);
        b[0] = x;
        b[1] = y;
    } else {
        b[0] += a[0];
        b[1] += a[1];
    }
    for (int f = 2; f < nfields; ++f) b[f] += a[f];
}

static void user_op(int affine, void *in, void *inout, int *len, MPI_Datatype *dt) {
    const Layout *L = layout_of(*dt);
    CHECK(L != NULL, "user op got datatype 0x%x, not the user's derived type", (unsigned)*dt);
    for (int i = 0; i < *len; ++i) {
        double a[3], b[3];
        for (int f = 0; f < L->nfields; ++f) {
            a[f] = get(L, in, i, f);
            b[f] = get(L, inout, i, f);
        }
        combine(affine, a, b, L->nfields);
        for (int f = 0; f < L->nfields; ++f) set(L, inout, i, f, b[f]);
    }
}

static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt) { user_op(0, in, inout, len, dt); }
static void op_affine(void *in, void *inout, int *len, MPI_Datatype *dt) { user_op(1, in, inout, len, dt); }

static double value(int r, int j, int f) { return (double)((r * 131 + j * 17 + f * 7) % 997 + 1); }

/* Buffer of `count` elements, every byte kSentinel, then (fill) rank r's values for elements
 * first .. first+count-1. */
static char *make(const Layout *L, int count, int fill, int r, int first) {
    char *b = malloc((size_t)(count ? count : 1) * (size_t)L->extent);
    memset(b, kSentinel, (size_t)(count ? count : 1) * (size_t)L->extent);
    if (fill)
        for (int i = 0; i < count; ++i)
            for (int f = 0; f < L->nfields; ++f) set(L, b, i, f, value(r, first + i, f));
    return b;
}

/* Checks element i of buf against the fold over ranks lo..hi-1 of element j, and that every byte
 * outside the type map kept its sentinel. */
static void expect(const char *what, const Layout *L, const char *buf, int count, int first, int lo, int hi,
                   int affine) {
    for (int i = 0; i < count; ++i) {
        double acc[3];
        for (int f = 0; f < L->nfields; ++f) acc[f] = value(lo, first + i, f);
        for (int r = lo + 1; r < hi; ++r) {
            /* acc = acc op a_r: inout is the right operand */
            double a[3], b[3];
            for (int f = 0; f < L->nfields; ++f) {
                a[f] = acc[f];
                b[f] = value(r, first + i, f);
            }
            combine(affine, a, b, L->nfields);
            for (int f = 0; f < L->nfields; ++f) acc[f] = b[f];
        }
        for (int f = 0; f < L->nfields; ++f)
            CHECK(get(L, buf, i, f) == acc[f], "%s %s count %d: element %d field %d is %g, expected %g", what,
                  L->name, count, i, f, get(L, buf, i, f), acc[f]);
        for (MPI_Aint byte = 0; byte < L->extent; ++byte) {
            int in_map = 0;
            for (int f = 0; f < L->nfields; ++f)
                in_map |= byte >= L->offset[f] && byte < L->offset[f] + (L->is_double[f] ? 8 : 4);
            if (!in_map)
                CHECK((unsigned char)buf[(MPI_Aint)i * L->extent + byte] == kSentinel,
                      "%s %s: byte %ld of element %d outside the type map was written", what, L->name, (long)byte,
                      i);
        }
    }
}

static void untouched(const char *what, const Layout *L, const char *buf, int count) {
    for (MPI_Aint b = 0; b < (MPI_Aint)count * L->extent; ++b)
        CHECK((unsigned char)buf[b] == kSentinel, "%s %s: rank 0's recvbuf was written", what, L->name);
}

static void wait_busy(MPI_Request *rq) {
    int done = 0;
    volatile double work = 0;
    while (!done) {
        for (int k = 0; k < 100; ++k) work += k; /* other work between tests */
        MPI_OK(MPI_Test(rq, &done, MPI_STATUS_IGNORE));
    }
}

static void run(const Layout *L, int count, int affine, int nb, MPI_Comm comm) {
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Op op;
    MPI_OK(MPI_Op_create(affine ? op_affine : op_sum, !affine, &op));
    MPI_Datatype t = L->type;
    MPI_Request rq;

    /* Allreduce, and in place */
    char *s = make(L, count, 1, me, 0), *r = make(L, count, 0, me, 0);
    if (nb) {
        MPI_OK(MPI_Iallreduce(s, r, count, t, op, comm, &rq));
        wait_busy(&rq);
    } else {
        MPI_OK(MPI_Allreduce(s, r, count, t, op, comm));
    }
    expect("allreduce", L, r, count, 0, 0, n, affine);
    free(r);
    r = make(L, count, 1, me, 0);
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, r, count, t, op, comm));
    expect("allreduce in place", L, r, count, 0, 0, n, affine);
    free(r);

    /* Reduce at every root (in place at the root every other time) */
    for (int root = 0; root < n; ++root) {
        const int in_place = root % 2 == 1 && me == root;
        r = make(L, count, in_place, me, 0);
        if (nb) {
            MPI_OK(MPI_Ireduce(in_place ? MPI_IN_PLACE : s, r, count, t, op, root, comm, &rq));
            wait_busy(&rq);
        } else {
            MPI_OK(MPI_Reduce(in_place ? MPI_IN_PLACE : s, r, count, t, op, root, comm));
        }
        if (me == root) expect("reduce", L, r, count, 0, 0, n, affine);
        else untouched("reduce (non-root recvbuf)", L, r, count);
        free(r);
    }

    /* Scan and Exscan */
    r = make(L, count, 0, me, 0);
    if (nb) {
        MPI_OK(MPI_Iscan(s, r, count, t, op, comm, &rq));
        wait_busy(&rq);
    } else {
        MPI_OK(MPI_Scan(s, r, count, t, op, comm));
    }
    expect("scan", L, r, count, 0, 0, me + 1, affine);
    free(r);
    r = make(L, count, 0, me, 0);
    if (nb) {
        MPI_OK(MPI_Iexscan(s, r, count, t, op, comm, &rq));
        wait_busy(&rq);
    } else {
        MPI_OK(MPI_Exscan(s, r, count, t, op, comm));
    }
    if (me == 0) untouched("exscan", L, r, count);
    else expect("exscan", L, r, count, 0, 0, me, affine);
    free(r);
    free(s);

    /* Reduce_scatter_block: count elements per rank; Reduce_scatter: k % 3 + count per rank k */
    s = make(L, n * count, 1, me, 0);
    r = make(L, count, 0, me, 0);
    if (nb) {
        MPI_OK(MPI_Ireduce_scatter_block(s, r, count, t, op, comm, &rq));
        wait_busy(&rq);
    } else {
        MPI_OK(MPI_Reduce_scatter_block(s, r, count, t, op, comm));
    }
    expect("reduce_scatter_block", L, r, count, me * count, 0, n, affine);
    free(r);
    free(s);
    int *counts = malloc(sizeof(int) * (size_t)n), total = 0, first = 0;
    for (int k = 0; k < n; ++k) {
        counts[k] = k % 3 + count;
        if (k < me) first += counts[k];
        total += counts[k];
    }
    s = make(L, total, 1, me, 0);
    r = make(L, counts[me], 0, me, 0);
    if (nb) {
        MPI_OK(MPI_Ireduce_scatter(s, r, counts, t, op, comm, &rq));
        wait_busy(&rq);
    } else {
        MPI_OK(MPI_Reduce_scatter(s, r, counts, t, op, comm));
    }
    expect("reduce_scatter", L, r, counts[me], first, 0, n, affine);
    free(r);
    free(s);
    free(counts);

    /* Reduce_local: inoutbuf = inbuf op inoutbuf, ranks 0 and 1's values */
    if (n >= 2) {
        char *a = make(L, count, 1, 0, 0), *b = make(L, count, 1, 1, 0);
        MPI_OK(MPI_Reduce_local(a, b, count, t, op));
        expect("reduce_local", L, b, count, 0, 0, 2, affine);
        free(a);
        free(b);
    }
    MPI_OK(MPI_Op_free(&op));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "reduce_user_derived");
    MPI_Comm comm;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));

    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &layouts[kVec].type));
    {
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 8};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_OK(MPI_Type_create_struct(2, bl, disp, types, &layouts[kStruct].type));
    }
    {
        int bl[2] = {1, 2}, disp[2] = {0, 3};
        MPI_Datatype idx;
        MPI_OK(MPI_Type_indexed(2, bl, disp, MPI_INT, &idx));
        /* extent 5 ints */
        MPI_OK(MPI_Type_create_resized(idx, 0, 20, &layouts[kIdx].type));
        MPI_OK(MPI_Type_free(&idx));
    }
    for (int i = 0; i < kLayouts; ++i) {
        MPI_OK(MPI_Type_commit(&layouts[i].type));
        MPI_Aint lb, ext;
        MPI_OK(MPI_Type_get_extent(layouts[i].type, &lb, &ext));
        CHECK(ext == layouts[i].extent, "%s extent %ld", layouts[i].name, (long)ext);
    }

    const int counts[] = {0, 1, 5, 100};
    for (int l = 0; l < kLayouts; ++l)
        for (int c = 0; c < 4; ++c)
            for (int affine = 0; affine < 2; ++affine)
                for (int nb = 0; nb < 2; ++nb) run(&layouts[l], counts[c], affine, nb, comm);

    /* Large: more than one chunk of the library's typed scratch memory. */
    {
        const Layout *L = &layouts[kVec];
        const int big = 100000;
        MPI_Op op;
        MPI_OK(MPI_Op_create(op_affine, 0, &op));
        char *s = make(L, big, 1, mt_rank, 0), *r = make(L, big, 0, mt_rank, 0);
        MPI_OK(MPI_Allreduce(s, r, big, L->type, op, comm));
        expect("allreduce large", L, r, big, 0, 0, mt_size, 1);
        free(s);
        free(r);
        MPI_OK(MPI_Op_free(&op));
    }

    /* Intercommunicator (low half / high half): Allreduce gives the remote group's fold; Reduce
     * to local rank 0 of the low group (MPI_ROOT there, MPI_PROC_NULL in the rest of its group). */
    if (mt_size >= 2) {
        const Layout *L = &layouts[kStruct];
        const int h = mt_size / 2, low = mt_rank < h, count = 7;
        MPI_Comm local, inter;
        MPI_Op op;
        MPI_OK(MPI_Op_create(op_sum, 1, &op));
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? h : 0, 8, &inter));
        char *s = make(L, count, 1, mt_rank, 0), *r = make(L, count, 0, mt_rank, 0);
        MPI_OK(MPI_Allreduce(s, r, count, L->type, op, inter));
        expect("inter allreduce", L, r, count, 0, low ? h : 0, low ? mt_size : h, 0);
        free(r);
        r = make(L, count, 0, mt_rank, 0);
        const int root = low ? (mt_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_OK(MPI_Reduce(s, r, count, L->type, op, root, inter));
        if (root == MPI_ROOT) expect("inter reduce", L, r, count, 0, h, mt_size, 0);
        else untouched("inter reduce (not the root)", L, r, count);
        free(s);
        free(r);
        MPI_OK(MPI_Op_free(&op));
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&local));
    }

    /* A predefined operation on a derived type: MPI_ERR_OP. */
    {
        char *s = make(&layouts[kVec], 2, 1, mt_rank, 0), *r = make(&layouts[kVec], 2, 0, mt_rank, 0);
        int rc = MPI_Allreduce(s, r, 2, layouts[kVec].type, MPI_SUM, comm), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "MPI_SUM on a vector type: class %d, expected MPI_ERR_OP", cls);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        rc = MPI_Reduce_local(s, r, 2, layouts[kStruct].type, MPI_MAX);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "Reduce_local MPI_MAX on a struct type: class %d, expected MPI_ERR_OP", cls);
        free(s);
        free(r);
    }

    for (int i = 0; i < kLayouts; ++i) MPI_OK(MPI_Type_free(&layouts[i].type));
    MPI_OK(MPI_Comm_free(&comm));
    mt_finish();
    return 0;
}
