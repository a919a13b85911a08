/* Every predefined operation on the predefined C types it is defined for, through
 * MPI_Allreduce and MPI_Reduce, against a reference computed locally; MINLOC/MAXLOC on every
 * pair type with ties (lowest index wins); MPI_Reduce_local. */
#define _GNU_SOURCE /* before any system header: mpitest.h needs sched_getaffinity */
#include <complex.h>
#include <stdbool.h>

#include "mpitest.h"

#define N 7

/* Rank r contributes v(r, i) = (r * 3 + i) % 5 + 1 (small, so products stay exact). */
static int v(int r, int i) { return (r * 3 + i) % 5 + 1; }

#define CHECK_ARITH(T, DT, FMT)                                                                     \
    do {                                                                                            \
        T in[N], out[N];                                                                            \
        const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};                                 \
        for (int o = 0; o < 4; o++) {                                                               \
            for (int i = 0; i < N; i++) in[i] = (T)v(mt_rank, i);                                   \
            MPI_OK(MPI_Allreduce(in, out, N, DT, ops[o], MPI_COMM_WORLD));                          \
            for (int i = 0; i < N; i++) {                                                           \
                T ref = (T)v(0, i);                                                                 \
                for (int r = 1; r < mt_size; r++) {                                                 \
                    T x = (T)v(r, i);                                                               \
                    ref = o == 0 ? (T)(ref + x) : o == 1 ? (T)(ref * x) : o == 2 ? (ref > x ? ref : x) \
                                                                                 : (ref < x ? ref : x); \
                }                                                                                   \
                CHECK(out[i] == ref, "%s op %d [%d]: " FMT " want " FMT, #DT, o, i, out[i], ref);   \
            }                                                                                       \
        }                                                                                           \
    } while (0)

#define CHECK_BITS(T, DT)                                                                           \
    do {                                                                                            \
        T in[N], out[N];                                                                            \
        const MPI_Op ops[] = {MPI_BAND, MPI_BOR, MPI_BXOR};                                         \
        for (int o = 0; o < 3; o++) {                                                               \
            for (int i = 0; i < N; i++) in[i] = (T)(v(mt_rank, i) * 37 + mt_rank);                  \
            MPI_OK(MPI_Reduce(in, out, N, DT, ops[o], mt_size - 1, MPI_COMM_WORLD));                \
            if (mt_rank == mt_size - 1)                                                             \
                for (int i = 0; i < N; i++) {                                                       \
                    T ref = (T)(v(0, i) * 37);                                                      \
                    for (int r = 1; r < mt_size; r++) {                                             \
                        T x = (T)(v(r, i) * 37 + r);                                                \
                        ref = o == 0 ? (T)(ref & x) : o == 1 ? (T)(ref | x) : (T)(ref ^ x);         \
                    }                                                                               \
                    CHECK(out[i] == ref, "%s bit op %d [%d]", #DT, o, i);                           \
                }                                                                                   \
        }                                                                                           \
    } while (0)

#define CHECK_LOGICAL(T, DT)                                                                        \
    do {                                                                                            \
        T in[N], out[N];                                                                            \
        const MPI_Op ops[] = {MPI_LAND, MPI_LOR, MPI_LXOR};                                         \
        for (int o = 0; o < 3; o++) {                                                               \
            for (int i = 0; i < N; i++) in[i] = (T)((v(mt_rank, i) + i) % 3 == 0);                  \
            MPI_OK(MPI_Allreduce(in, out, N, DT, ops[o], MPI_COMM_WORLD));                          \
            for (int i = 0; i < N; i++) {                                                           \
                int ref = (v(0, i) + i) % 3 == 0;                                                   \
                for (int r = 1; r < mt_size; r++) {                                                 \
                    int x = (v(r, i) + i) % 3 == 0;                                                 \
                    ref = o == 0 ? (ref && x) : o == 1 ? (ref || x) : (ref != x);                   \
                }                                                                                   \
                CHECK(!!out[i] == ref, "%s logical op %d [%d]", #DT, o, i);                         \
            }                                                                                       \
        }                                                                                           \
    } while (0)

#define CHECK_LOC(V, DT)                                                                            \
    do {                                                                                            \
        struct { V val; int idx; } in[N], out[N];                                                   \
        for (int i = 0; i < N; i++) { in[i].val = (V)(v(mt_rank, i) % 3); in[i].idx = mt_rank * 10 + i; } \
        const MPI_Op ops[] = {MPI_MINLOC, MPI_MAXLOC};                                              \
        for (int o = 0; o < 2; o++) {                                                               \
            MPI_OK(MPI_Allreduce(in, out, N, DT, ops[o], MPI_COMM_WORLD));                          \
            for (int i = 0; i < N; i++) {                                                           \
                V best = (V)(v(0, i) % 3);                                                          \
                int bi = i;                                                                         \
                for (int r = 1; r < mt_size; r++) {                                                 \
                    V x = (V)(v(r, i) % 3);                                                         \
                    if (o == 0 ? x < best : x > best) { best = x; bi = r * 10 + i; }                \
                }                                                                                   \
                CHECK(out[i].val == best && out[i].idx == bi, "%s loc op %d [%d]: idx %d want %d", #DT, o, i, \
                      out[i].idx, bi);                                                              \
            }                                                                                       \
        }                                                                                           \
    } while (0)

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "coll_ops");
    CHECK_ARITH(char, MPI_CHAR, "%d");
    CHECK_ARITH(signed char, MPI_SIGNED_CHAR, "%d");
    CHECK_ARITH(unsigned char, MPI_UNSIGNED_CHAR, "%u");
    CHECK_ARITH(short, MPI_SHORT, "%d");
    CHECK_ARITH(unsigned short, MPI_UNSIGNED_SHORT, "%u");
    CHECK_ARITH(int, MPI_INT, "%d");
    CHECK_ARITH(unsigned, MPI_UNSIGNED, "%u");
    CHECK_ARITH(long, MPI_LONG, "%ld");
    CHECK_ARITH(unsigned long, MPI_UNSIGNED_LONG, "%lu");
    CHECK_ARITH(long long, MPI_LONG_LONG, "%lld");
    CHECK_ARITH(unsigned long long, MPI_UNSIGNED_LONG_LONG, "%llu");
    CHECK_ARITH(int8_t, MPI_INT8_T, "%d");
    CHECK_ARITH(int16_t, MPI_INT16_T, "%d");
    CHECK_ARITH(int32_t, MPI_INT32_T, "%d");
    CHECK_ARITH(int64_t, MPI_INT64_T, "%ld");
    CHECK_ARITH(uint8_t, MPI_UINT8_T, "%u");
    CHECK_ARITH(uint16_t, MPI_UINT16_T, "%u");
    CHECK_ARITH(uint32_t, MPI_UINT32_T, "%u");
    CHECK_ARITH(uint64_t, MPI_UINT64_T, "%lu");
    CHECK_ARITH(MPI_Aint, MPI_AINT, "%ld");
    CHECK_ARITH(float, MPI_FLOAT, "%g");
    CHECK_ARITH(double, MPI_DOUBLE, "%g");
    CHECK_ARITH(long double, MPI_LONG_DOUBLE, "%Lg");
    CHECK_BITS(int, MPI_INT);
    CHECK_BITS(unsigned char, MPI_BYTE);
    CHECK_BITS(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CHECK_BITS(uint16_t, MPI_UINT16_T);
    CHECK_LOGICAL(int, MPI_INT);
    CHECK_LOGICAL(bool, MPI_C_BOOL);
    CHECK_LOGICAL(long, MPI_LONG);
    CHECK_LOC(int, MPI_2INT);
    CHECK_LOC(float, MPI_FLOAT_INT);
    CHECK_LOC(double, MPI_DOUBLE_INT);
    CHECK_LOC(long, MPI_LONG_INT);
    CHECK_LOC(short, MPI_SHORT_INT);
    CHECK_LOC(long double, MPI_LONG_DOUBLE_INT);
    /* Complex: SUM and PROD. */
    {
        double _Complex in[N], out[N];
        for (int i = 0; i < N; i++) in[i] = v(mt_rank, i) + (mt_rank % 2) * I;
        MPI_OK(MPI_Allreduce(in, out, N, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < N; i++) {
            double _Complex ref = 0;
            for (int r = 0; r < mt_size; r++) ref += v(r, i) + (r % 2) * I;
            CHECK(out[i] == ref, "complex sum [%d]", i);
        }
        MPI_OK(MPI_Allreduce(in, out, N, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
        for (int i = 0; i < N; i++) {
            double _Complex ref = 1;
            for (int r = 0; r < mt_size; r++) ref *= v(r, i) + (r % 2) * I;
            double _Complex d = out[i] - ref; /* exact for these small integers */
            CHECK(creal(d) * creal(d) + cimag(d) * cimag(d) < 1e-18 * (creal(ref) * creal(ref) + cimag(ref) * cimag(ref)) + 1e-30,
                  "complex prod [%d]", i);
        }
        float _Complex fi = 1.0f + 2.0f * I, fo = 3.0f - 1.0f * I;
        MPI_OK(MPI_Reduce_local(&fi, &fo, 1, MPI_C_FLOAT_COMPLEX, MPI_PROD));
        CHECK(fo == (1.0f + 2.0f * I) * (3.0f - 1.0f * I), "reduce_local complex prod");
    }
    /* MPI_Reduce_local on a few combinations. */
    {
        int a[3] = {1, 5, 9}, b[3] = {4, 4, 4};
        MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
        CHECK(b[0] == 4 && b[1] == 5 && b[2] == 9, "reduce_local max");
        MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_BXOR));
        CHECK(b[0] == 5 && b[1] == 0 && b[2] == 0, "reduce_local bxor");
    }
    return mt_finish();
}
