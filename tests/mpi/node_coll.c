/* Blocking barrier, bcast, reduce and allreduce as RailMPI runs them within one node (through the
 * node's shared region up to RAILMPI_NODE_COLL_LIMIT, 64 KiB by default), checked so that any
 * MPI must pass: floating-point allreduce results bitwise identical on every rank; long runs of
 * back-to-back calls with rotating roots and sizes across the limit, mixed with non-blocking
 * collectives on the same communicator; split, split_type SHARED and duplicated communicators
 * used side by side; more live communicators than the region has slots; communicators created
 * and freed in a loop; a non-commutative user operation (reduced in rank order); a rank that
 * arrives late while the others wait without burning their cores; and a 1000-iteration 8-byte
 * allreduce loop (oversubscribed with 8 ranks on 2 cores); bcasts whose root runs far ahead of a
 * late rank, with sizes on both sides of RailMPI's small-cell limit; allreduces on both sides of
 * the sizes from which RailMPI combines by blocks; reductions around its inline cells' lines. */
#include "mpitest.h"

#include <sys/resource.h>

#define LIMIT 65536 /* RAILMPI_NODE_COLL_LIMIT by default */
#define MAXD (LIMIT / 8 + 8) /* doubles: a little over the limit */

/* Deterministic inputs of rank r, element i, call k: magnitudes over 16 decades so that the
 * order of a floating-point sum changes its rounding. */
static double fp_input(int r, int i, int k) {
    unsigned h = (unsigned)(r * 7919 + i * 104729 + k * 1299709) * 2654435761u;
    double m = (double)(h % 1000003u) / 1000003.0 - 0.5;
    return m * ((double)(1ull << ((h >> 24) % 54)) / (double)(1ull << 27));
}

static double absd(double x) { return x < 0 ? -x : x; }

static long long int_input(int r, int i, int k) { return (long long)((r + 1) * 1000 + i * 7 + k); }

/* Allreduce of doubles: every rank's result is bitwise rank 0's, and close to the exact sum. */
static void fp_allreduce_identical(MPI_Comm comm, int calls) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static double in[MAXD], out[MAXD], first[MAXD];
    const int counts[] = {1, 3, 64, LIMIT / 8, MAXD};
    for (int k = 0; k < calls; k++) {
        const int cnt = counts[k % 5];
        for (int i = 0; i < cnt; i++) in[i] = fp_input(me, i, k);
        const MPI_Op op = k % 3 == 2 ? MPI_MAX : MPI_SUM;
        MPI_OK(MPI_Allreduce(in, out, cnt, MPI_DOUBLE, op, comm));
        memcpy(first, out, sizeof(double) * (size_t)cnt);
        MPI_OK(MPI_Bcast(first, cnt, MPI_DOUBLE, 0, comm));
        CHECK(memcmp(first, out, sizeof(double) * (size_t)cnt) == 0, "call %d count %d: result differs from rank 0's",
              k, cnt);
        for (int i = 0; i < cnt; i++) {
            double ref = fp_input(0, i, k), mag = absd(ref);
            for (int r = 1; r < n; r++) {
                const double x = fp_input(r, i, k);
                ref = op == MPI_MAX ? (x > ref ? x : ref) : ref + x;
                mag += absd(x);
            }
            CHECK(absd(out[i] - ref) <= 1e-12 * mag, "call %d [%d]: %.17g want %.17g", k, i, out[i], ref);
        }
    }
}

/* Back-to-back blocking collectives with rotating roots and sizes across the limit; every third
 * iteration an Iallreduce is started before them and completed after them. */
static void back_to_back(MPI_Comm comm, int iters) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static long long in[LIMIT / 8 + 4], out[LIMIT / 8 + 4];
    static unsigned char buf[LIMIT + 64];
    const int sizes[] = {0, 1, 8, 100, LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + 64};
    const int counts[] = {0, 1, 2, 63, LIMIT / 8, LIMIT / 8 + 1};
    for (int k = 0; k < iters; k++) {
        const int root = k % n;
        long long nb_in = me + k, nb_out = -1;
        MPI_Request req = MPI_REQUEST_NULL;
        if (k % 3 == 0) MPI_OK(MPI_Iallreduce(&nb_in, &nb_out, 1, MPI_LONG_LONG, MPI_SUM, comm, &req));

        MPI_OK(MPI_Barrier(comm));

        const int bytes = sizes[k % 8];
        if (me == root) mt_fill(buf, (size_t)bytes, (unsigned)k);
        else memset(buf, 0, (size_t)bytes);
        MPI_OK(MPI_Bcast(buf, bytes, MPI_BYTE, root, comm));
        CHECK(mt_verify(buf, (size_t)bytes, (unsigned)k) < 0, "bcast call %d (%d bytes from %d) corrupt", k, bytes,
              root);

        const int cnt = counts[k % 6];
        for (int i = 0; i < cnt; i++) in[i] = int_input(me, i, k);
        MPI_OK(MPI_Allreduce(in, out, cnt, MPI_LONG_LONG, MPI_SUM, comm));
        for (int i = 0; i < cnt; i++) {
            long long ref = 0;
            for (int r = 0; r < n; r++) ref += int_input(r, i, k);
            CHECK(out[i] == ref, "allreduce call %d [%d]: %lld want %lld", k, i, out[i], ref);
        }

        /* In place at the root for small vectors (MPICH 4.0.2 crashes on larger in-place reduces). */
        const int in_place = me == root && cnt < 64;
        for (int i = 0; i < cnt; i++) out[i] = in_place ? in[i] : -1;
        MPI_OK(MPI_Reduce(in_place ? MPI_IN_PLACE : in, out, cnt, MPI_LONG_LONG, MPI_MAX, root, comm));
        if (me == root)
            for (int i = 0; i < cnt; i++)
                CHECK(out[i] == int_input(n - 1, i, k), "reduce call %d [%d]: %lld", k, i, out[i]);

        if (req != MPI_REQUEST_NULL) {
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK(nb_out == (long long)n * (n - 1) / 2 + (long long)n * k, "iallreduce call %d: %lld", k, nb_out);
        }
    }
}

/* a o b = the decimal digits of a followed by those of b: associative, not commutative. */
static void concat(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    long long *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        long long scale = 1;
        for (long long t = b[i]; t > 0; t /= 10) scale *= 10;
        b[i] = a[i] * scale + b[i];
    }
}

static void user_op_in_rank_order(MPI_Comm comm) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    MPI_Op op;
    MPI_OK(MPI_Op_create(concat, 0, &op));
    long long x[2] = {me % 9 + 1, (n - me) % 9 + 1}, y[2] = {0, 0}, want[2] = {0, 0};
    for (int r = 0; r < n; r++) {
        want[0] = want[0] * 10 + r % 9 + 1;
        want[1] = want[1] * 10 + (n - r) % 9 + 1;
    }
    MPI_OK(MPI_Allreduce(x, y, 2, MPI_LONG_LONG, op, comm));
    CHECK(y[0] == want[0] && y[1] == want[1], "user op: %lld %lld want %lld %lld", y[0], y[1], want[0], want[1]);
    MPI_OK(MPI_Reduce(x, y, 2, MPI_LONG_LONG, op, n - 1, comm));
    if (me == n - 1) CHECK(y[0] == want[0] && y[1] == want[1], "user op reduce: %lld", y[0]);
    MPI_OK(MPI_Op_free(&op));
}

/* Bcast of a non-contiguous type (every other int) below the limit. */
static void strided_bcast(MPI_Comm comm) {
    int me;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(100, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    int v[200];
    for (int i = 0; i < 200; i++) v[i] = me == 0 ? i : -1;
    MPI_OK(MPI_Bcast(v, 1, every_other, 0, comm));
    for (int i = 0; i < 200; i++)
        CHECK(v[i] == (i % 2 == 0 || me == 0 ? i : -1), "strided bcast [%d] = %d", i, v[i]);
    MPI_OK(MPI_Type_free(&every_other));
}

/* Bcasts with the root running ahead: the last non-root rank starts 50 ms late, so the root runs
 * as far ahead as RailMPI lets it (255 calls of up to 248 bytes, 15 of more) and then waits, and
 * the late rank catches up through every cell. Sizes on both sides of the small-cell limit (248
 * bytes) and of its first line's data (56) alternate, so small and large calls share the call
 * numbers; every call is checked. */
static void bcast_run_ahead(MPI_Comm comm) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static unsigned char buf[LIMIT];
    const int sizes[] = {8, 247, 248, 249, 0, 64, 56, 57, 1, 248, 1000, 249};
    for (int pass = 0; pass < 2; pass++) {
        const int root = pass == 0 ? 0 : n - 1, late = root == n - 1 ? n - 2 : n - 1;
        MPI_OK(MPI_Barrier(comm));
        if (me == late && late != root) mt_sleep_ms(50);
        for (int k = 0; k < 700; k++) {
            const int bytes = pass == 0 ? sizes[k % 12] : (k % 300 < 290 ? 8 : 249);
            const unsigned seed = (unsigned)(k * 31 + pass);
            if (me == root) mt_fill(buf, (size_t)bytes, seed);
            else memset(buf, 0, (size_t)bytes);
            MPI_OK(MPI_Bcast(buf, bytes, MPI_BYTE, root, comm));
            CHECK(mt_verify(buf, (size_t)bytes, seed) < 0, "run-ahead bcast %d (%d bytes from %d) corrupt", k, bytes,
                  root);
        }
    }
}

/* Bcasts up to 64 KiB, which RailMPI fills into a cell, in 8 KiB pieces that the others copy as
 * they come when one of them waits already, else whole: sizes at the piece boundaries +-1,
 * rotating roots, back to back (the root runs ahead into the next cells while the others still
 * copy), then with the root 1 ms late (the others wait: pieces); every call checked. */
static void bcast_pieces(MPI_Comm comm) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static unsigned char buf[65536];
    const int sizes[] = {8191, 8192, 8193, 16383, 16384, 16385, 65535, 65536, 30000, 249};
    for (int k = 0; k < 260; k++) {
        const int bytes = sizes[k % 10], root = (k / 10) % n;
        const unsigned seed = (unsigned)(k * 7 + 1);
        if (me == root && k >= 200) mt_sleep_ms(1);
        if (me == root) mt_fill(buf, (size_t)bytes, seed);
        else memset(buf, 0, (size_t)bytes);
        MPI_OK(MPI_Bcast(buf, bytes, MPI_BYTE, root, comm));
        CHECK(mt_verify(buf, (size_t)bytes, seed) < 0, "piecewise bcast %d (%d bytes from %d) corrupt", k, bytes,
              root);
    }
}

/* Allreduce (sum) of `cnt` doubles, fp_input(rank, i, k), in place or not: the result is bitwise
 * rank `root`'s on every rank and close to the exact sum. `what` names the call in messages. */
static void double_sum_checked(MPI_Comm comm, int cnt, int k, int in_place, int root, const char *what) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static double din[8192], dout[8192], dfirst[8192];
    for (int i = 0; i < cnt; i++) din[i] = fp_input(me, i, k);
    if (in_place) memcpy(dout, din, sizeof(double) * (size_t)cnt);
    MPI_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : din, dout, cnt, MPI_DOUBLE, MPI_SUM, comm));
    memcpy(dfirst, dout, sizeof(double) * (size_t)cnt);
    MPI_OK(MPI_Bcast(dfirst, cnt, MPI_DOUBLE, root, comm));
    CHECK(memcmp(dfirst, dout, sizeof(double) * (size_t)cnt) == 0, "%s %d (count %d): result differs from rank %d's",
          what, k, cnt, root);
    for (int i = 0; i < cnt; i++) {
        double ref = 0, mag = 0;
        for (int r = 0; r < n; r++) {
            ref += fp_input(r, i, k);
            mag += absd(fp_input(r, i, k));
        }
        if (absd(dout[i] - ref) > 1e-12 * mag) {
            CHECK(0, "%s %d (count %d) [%d]: %.17g want %.17g", what, k, cnt, i, dout[i], ref);
            break;
        }
    }
}

/* Allreduce of `np` DOUBLE_INT pairs with MAXLOC (16-byte elements), checked on every rank. */
static void maxloc_checked(MPI_Comm comm, int np, int k, const char *what) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static struct { double v; int i; } pin[4096], pout[4096];
    for (int i = 0; i < np; i++) {
        pin[i].v = (double)((me * 5 + i + k) % 3);
        pin[i].i = me;
    }
    MPI_OK(MPI_Allreduce(pin, pout, np, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
    for (int i = 0; i < np; i++) {
        int at = 0;
        for (int r = 1; r < n; r++)
            if ((r * 5 + i + k) % 3 > (at * 5 + i + k) % 3) at = r;
        if (pout[i].v != (double)((at * 5 + i + k) % 3) || pout[i].i != at) {
            CHECK(0, "%s %d (count %d) [%d]: (%g, %d) want rank %d", what, k, np, i, pout[i].v, pout[i].i, at);
            break;
        }
    }
}

/* Allreduce sizes around where RailMPI's node path starts to go by blocks, each rank combining one
 * n-th (2 KiB, or 16 KiB when the node has more ranks than CPUs): bytes (BOR of one bit per rank
 * and position, so every size lands, and blocks split at any byte), doubles in odd counts
 * (blocks of unequal lengths; the result bitwise rank 0's on every rank), DOUBLE_INT MAXLOC pairs
 * (16-byte elements), every fourth call in place, and a barrier, bcast or reduce between calls
 * (they share the call numbers a block allreduce takes two of). Every call is checked. */
static void allreduce_blocks(MPI_Comm comm) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static unsigned char bin[65536], bout[65536];
    const int bytes[] = {2047, 2048, 2049, 1, 4099, 16383, 16384, 16385, 65535, 65536, 63};
    const int doubles[] = {255, 256, 257, 2047, 2049, 8191, 3};
    const int pairs[] = {127, 128, 129, 1023, 1025, 4095, 5};
    for (int k = 0; k < 66; k++) {
        const int in_place = k % 4 == 1;
        const int sz = bytes[k % 11];
        for (int i = 0; i < sz; i++) bin[i] = (unsigned char)(1u << ((me + i + k) % 8));
        if (in_place) memcpy(bout, bin, (size_t)sz);
        else memset(bout, 0, (size_t)sz);
        MPI_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : bin, bout, sz, MPI_BYTE, MPI_BOR, comm));
        for (int i = 0; i < sz; i++) {
            unsigned want = 0;
            for (int r = 0; r < n && r < 8; r++) want |= 1u << ((r + i + k) % 8);
            if (bout[i] != want) {
                CHECK(0, "byte allreduce %d (%d bytes%s) [%d]: %#x want %#x", k, sz, in_place ? ", in place" : "", i,
                      bout[i], want);
                break;
            }
        }

        if (k % 3 == 0) MPI_OK(MPI_Barrier(comm));
        double_sum_checked(comm, doubles[k % 7], k, in_place, k % n, "double allreduce");
        maxloc_checked(comm, pairs[k % 7], k, "maxloc allreduce");
        if (k % 3 == 2) {
            long long x = me + k, y = -1;
            MPI_OK(MPI_Reduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, k % n, comm));
            if (me == k % n) CHECK(y == (long long)n * (n - 1) / 2 + (long long)n * k, "reduce %d: %lld", k, y);
        }
    }
}

/* Allreduce and reduce (rotating roots) of sizes around RailMPI's inline cell lines (56 bytes a
 * line, 224 at most): bytes with BOR, doubles summed (bitwise equal on every rank), DOUBLE_INT
 * MAXLOC and LONG_DOUBLE sums (16-byte elements), every fourth call in place. */
static void reductions_inline(MPI_Comm comm) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    static unsigned char bin[256], bout[256];
    static long double lin[16], lout[16];
    const int bytes[] = {0, 1, 55, 56, 57, 111, 112, 113, 167, 168, 169, 223, 224, 225, 8};
    const int doubles[] = {1, 6, 7, 8, 14, 15, 27, 28, 29};
    const int sixteens[] = {1, 3, 4, 13, 14, 15};
    for (int k = 0; k < 45; k++) { /* every size three times, in place or not, rotating roots */
        const int in_place = k % 4 == 1, root = k % n;
        const int sz = bytes[k % 15];
        for (int i = 0; i < sz; i++) bin[i] = (unsigned char)(1u << ((me + i + k) % 8));
        if (in_place) memcpy(bout, bin, (size_t)sz);
        else memset(bout, 0, sizeof bout);
        if (k % 2) {
            MPI_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : bin, bout, sz, MPI_BYTE, MPI_BOR, comm));
        } else {
            MPI_OK(MPI_Reduce(in_place && me == root ? MPI_IN_PLACE : bin, bout, sz, MPI_BYTE, MPI_BOR, root, comm));
        }
        if (k % 2 || me == root) {
            for (int i = 0; i < sz; i++) {
                unsigned want = 0;
                for (int r = 0; r < n && r < 8; r++) want |= 1u << ((r + i + k) % 8);
                if (bout[i] != want) {
                    CHECK(0, "inline %s %d (%d bytes%s) [%d]: %#x want %#x", k % 2 ? "allreduce" : "reduce", k, sz,
                          in_place ? ", in place" : "", i, bout[i], want);
                    break;
                }
            }
            for (int i = sz; i < (int)sizeof bout && !in_place; i++)
                if (bout[i]) {
                    CHECK(0, "inline call %d (%d bytes) wrote byte %d past the count", k, sz, i);
                    break;
                }
        }

        double_sum_checked(comm, doubles[k % 9], k, in_place, root, "inline double allreduce");
        const int np = sixteens[k % 6];
        maxloc_checked(comm, np, k, "inline maxloc allreduce");
        for (int i = 0; i < np; i++) lin[i] = (long double)(me + 1) * (i + k + 1);
        MPI_OK(MPI_Reduce(lin, lout, np, MPI_LONG_DOUBLE, MPI_SUM, root, comm));
        for (int i = 0; i < np && me == root; i++) {
            const long double want = (long double)n * (n + 1) / 2 * (i + k + 1);
            if (lout[i] != want) {
                CHECK(0, "inline long double reduce %d (count %d) [%d]: %Lg want %Lg", k, np, i, lout[i], want);
                break;
            }
        }
    }
}

/* A communicator's bcasts must never see what an earlier, freed communicator left in the node
 * slot it gets again: comm A makes 300 bcasts and is freed; comm B makes 299 allreduces, so its
 * call 300 is a bcast with the same call number as A's last one. */
static void bcast_after_freed_communicator(void) {
    MPI_Comm a, b;
    int v = 0;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    for (int k = 1; k <= 300; k++) {
        v = mt_rank == 0 ? 1000 + k : -1;
        MPI_OK(MPI_Bcast(&v, 1, MPI_INT, 0, a));
        CHECK(v == 1000 + k, "comm A bcast %d: %d", k, v);
    }
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    for (int k = 1; k < 300; k++) {
        int x = 1, y = 0;
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, b));
        CHECK(y == mt_size, "comm B allreduce %d: %d", k, y);
    }
    v = mt_rank == 0 ? 7 : -1;
    MPI_OK(MPI_Bcast(&v, 1, MPI_INT, 0, b));
    CHECK(v == 7, "comm B bcast 300: %d (comm A's last was 1300)", v);
    MPI_OK(MPI_Comm_free(&b));
}

/* The others wait ~1 s for a late rank 0 in a barrier; their CPU time must stay well below (checked
 * on RailMPI only: MPICH and Open MPI busy-poll by default). */
static void late_rank_costs_no_cpu(MPI_Comm comm) {
    int me, len;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(version, &len));
    const int railmpi = strncmp(version, "RailMPI", 7) == 0;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Barrier(comm));
    struct timespec c0, c1;
    const double w0 = MPI_Wtime();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (me == 0) mt_sleep_ms(1000);
    MPI_OK(MPI_Barrier(comm));
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    const double wall = MPI_Wtime() - w0;
    const double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
    if (me != 0 && railmpi) CHECK(cpu < 0.3 * wall, "waited %.3f s in a barrier and used %.3f s of CPU", wall, cpu);
}

/* RailMPI maps a node slot's large cells at their first use, all at once: 32 bcasts and 32
 * allreduces of 64 KiB on a new communicator of one node then take (almost) no page faults in
 * any rank (measured 0-4 in each; without that, 2 ranks took 66-80: the root faults each page
 * of the first 16 bcast cells it writes, the others one per 64 KiB they read).
 * Checked on RailMPI with node collectives up to 64 KiB (the default) only. */
static void large_calls_take_no_page_faults(MPI_Comm shared) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, n_shared;
    MPI_OK(MPI_Get_library_version(version, &len));
    MPI_OK(MPI_Comm_size(shared, &n_shared));
    const char *limit = getenv("RAILMPI_NODE_COLL_LIMIT"), *devices = getenv("RAILMPI_DEVICES");
    if (strncmp(version, "RailMPI", 7) != 0 || limit != NULL || (devices && !strstr(devices, "shm")) || n_shared < 2)
        return;
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(shared, &c));
    static long long a[8192], b[8192];
    for (int i = 0; i < 8192; i++) a[i] = i + mt_rank;
    MPI_OK(MPI_Bcast(a, (int)sizeof a, MPI_BYTE, 0, c));        /* first use of each kind: */
    MPI_OK(MPI_Allreduce(a, b, 8192, MPI_LONG_LONG, MPI_MAX, c)); /* faults allowed here */
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    for (int k = 0; k < 32; k++) {
        for (int i = 0; i < 8192; i++) a[i] = k * 3 + i;
        MPI_OK(MPI_Bcast(a, (int)sizeof a, MPI_BYTE, k % n_shared, c));
        for (int i = 0; i < 8192; i++) CHECK(a[i] == k * 3 + i, "bcast %d: a[%d] = %lld", k, i, a[i]);
        MPI_OK(MPI_Allreduce(a, b, 8192, MPI_LONG_LONG, MPI_SUM, c));
        CHECK(b[8191] == (long long)n_shared * (k * 3 + 8191), "allreduce %d: %lld", k, b[8191]);
    }
    getrusage(RUSAGE_SELF, &r1);
    const long faults = r1.ru_minflt - r0.ru_minflt;
#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer faults in shadow pages of its own (20-25 here) */
    CHECK(faults < 16, "64 calls of 64 KiB took %ld page faults", faults);
#else
    (void)faults;
#endif
    MPI_OK(MPI_Comm_free(&c));
}

static void suite(MPI_Comm comm, int iters) {
    fp_allreduce_identical(comm, iters / 4);
    back_to_back(comm, iters);
    user_op_in_rank_order(comm);
    strided_bcast(comm);
    bcast_run_ahead(comm);
    bcast_pieces(comm);
    allreduce_blocks(comm);
    reductions_inline(comm);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "node_coll");
    const int iters = mt_iters(argc, argv, 400);

    suite(MPI_COMM_WORLD, iters);

    /* Split by parity: two disjoint communicators created by one call. */
    MPI_Comm half, shared, dup;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_size - mt_rank, &half));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    suite(half, iters / 4);
    suite(shared, iters / 4);
    /* Interleaved use of several communicators sharing the ranks. */
    for (int k = 0; k < iters / 4; k++) {
        long long a = mt_rank, b = 0, c = 0;
        MPI_OK(MPI_Allreduce(&a, &b, 1, MPI_LONG_LONG, MPI_SUM, dup));
        MPI_OK(MPI_Allreduce(&a, &c, 1, MPI_LONG_LONG, MPI_SUM, half));
        CHECK(b == (long long)mt_size * (mt_size - 1) / 2, "dup allreduce %lld", b);
        long long hs = 0;
        for (int r = mt_rank % 2; r < mt_size; r += 2) hs += r;
        CHECK(c == hs, "half allreduce %lld want %lld", c, hs);
        MPI_OK(MPI_Barrier(shared));
    }
    late_rank_costs_no_cpu(shared);
    large_calls_take_no_page_faults(shared);
    bcast_after_freed_communicator();

    /* More live communicators than the node region has slots (64). */
    enum { MANY = 70 };
    MPI_Comm many[MANY];
    for (int i = 0; i < MANY; i++) {
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &many[i]));
        int x = i + mt_rank, y = 0;
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, many[i]));
        CHECK(y == i * mt_size + mt_size * (mt_size - 1) / 2, "communicator %d: %d", i, y);
    }
    for (int i = MANY - 1; i >= 0; i--) {
        MPI_OK(MPI_Barrier(many[i]));
        MPI_OK(MPI_Comm_free(&many[i]));
    }
    /* Created and freed in a loop: slots come back. */
    for (int i = 0; i < 300; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, i % 3 == 0 ? 0 : mt_rank % 2, mt_rank, &c));
        int x = 1, y = 0;
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c));
        int sz;
        MPI_OK(MPI_Comm_size(c, &sz));
        CHECK(y == sz, "loop %d: %d want %d", i, y, sz);
        MPI_OK(MPI_Comm_free(&c));
    }

    /* 1000 back-to-back 8-byte allreduces. */
    for (int k = 0; k < 1000; k++) {
        double x = (double)(mt_rank + k), y = 0;
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CHECK(y == (double)mt_size * (mt_size - 1) / 2 + (double)mt_size * k, "8 B allreduce %d: %g", k, y);
    }

    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_free(&shared));
    MPI_OK(MPI_Comm_free(&dup));
    return mt_finish();
}
