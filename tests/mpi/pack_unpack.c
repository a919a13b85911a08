/* MPI_Pack / MPI_Unpack / MPI_Pack_size round trips with derived types, a packed message sent as
 * MPI_PACKED, MPI_Pack_external / MPI_Unpack_external ("external32": big-endian, MPI_LONG is 4
 * bytes) with the byte order checked, datatype queries (extent, true extent, names, envelope and
 * contents, dup). */
#include "mpitest.h"

static void test_pack_roundtrip(void) {
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(5, 2, 4, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int src[40], dst[40];
    for (int i = 0; i < 40; i++) {
        src[i] = mt_rank * 1000 + i;
        dst[i] = -1;
    }
    int psize, dsize;
    MPI_OK(MPI_Pack_size(2, v, MPI_COMM_WORLD, &psize));
    MPI_OK(MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &dsize));
    CHECK(psize >= 80 && dsize >= 8, "Pack_size %d %d", psize, dsize);
    char buf[256];
    int pos = 0;
    double d = 2.5 + mt_rank;
    MPI_OK(MPI_Pack(&d, 1, MPI_DOUBLE, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD));
    MPI_OK(MPI_Pack(src, 2, v, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD));
    int used = pos;
    /* Send the packed bytes as MPI_PACKED to the right neighbour. */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank - 1 + mt_size) % mt_size;
    char rbuf[256];
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(buf, used, MPI_PACKED, right, 1, rbuf, (int)sizeof rbuf, MPI_PACKED, left, 1, MPI_COMM_WORLD,
                        &st));
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_PACKED, &got));
    CHECK(got == used, "packed bytes %d want %d", got, used);
    pos = 0;
    double rd = 0;
    MPI_OK(MPI_Unpack(rbuf, got, &pos, &rd, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    MPI_OK(MPI_Unpack(rbuf, got, &pos, dst, 2, v, MPI_COMM_WORLD));
    CHECK(pos == used, "unpack position %d want %d", pos, used);
    CHECK(rd == 2.5 + left, "unpacked double %g", rd);
    /* vector(5,2,4): extent 18 ints; element i of copy k at k*18 + (i/2)*4 + i%2 */
    for (int i = 0; i < 40; i++) {
        int in = 0;
        for (int k = 0; k < 2; k++)
            for (int b = 0; b < 5; b++)
                for (int e = 0; e < 2; e++)
                    if (i == k * 18 + b * 4 + e) in = 1;
        int want = in ? left * 1000 + i : -1;
        CHECK(dst[i] == want, "unpacked dst[%d]=%d want %d", i, dst[i], want);
    }
    MPI_OK(MPI_Type_free(&v));
}

static void test_external32(void) {
    int32_t i32[2] = {0x01020304, -2};
    double dbl = 1.0; /* 3f f0 00 00 00 00 00 00 */
    long lg = -5;     /* external32 long: 4 bytes ff ff ff fb */
    MPI_Aint sz;
    MPI_OK(MPI_Pack_external_size("external32", 2, MPI_INT, &sz));
    CHECK(sz == 8, "external32 size of 2 ints %ld", (long)sz);
    MPI_OK(MPI_Pack_external_size("external32", 1, MPI_LONG, &sz));
    CHECK(sz == 4, "external32 size of long %ld", (long)sz);
    unsigned char out[64];
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external("external32", i32, 2, MPI_INT, out, sizeof out, &pos));
    MPI_OK(MPI_Pack_external("external32", &dbl, 1, MPI_DOUBLE, out, sizeof out, &pos));
    MPI_OK(MPI_Pack_external("external32", &lg, 1, MPI_LONG, out, sizeof out, &pos));
    CHECK(pos == 20, "external32 position %ld", (long)pos);
    const unsigned char want[20] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
                                    0xff, 0xff, 0xff, 0xfb};
    for (int i = 0; i < 20; i++) CHECK(out[i] == want[i], "external32 byte %d = %02x want %02x", i, out[i], want[i]);
    int32_t r32[2];
    double rd;
    long rl;
    pos = 0;
    MPI_OK(MPI_Unpack_external("external32", out, 20, &pos, r32, 2, MPI_INT));
    MPI_OK(MPI_Unpack_external("external32", out, 20, &pos, &rd, 1, MPI_DOUBLE));
    MPI_OK(MPI_Unpack_external("external32", out, 20, &pos, &rl, 1, MPI_LONG));
    CHECK(r32[0] == 0x01020304 && r32[1] == -2 && rd == 1.0 && rl == -5, "external32 round trip");
    /* A vector of shorts in external32. */
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_SHORT, &v));
    MPI_OK(MPI_Type_commit(&v));
    short s[6] = {0x0102, 0, 0x0304, 0, 0x0506, 0}, rs[6] = {0, 0, 0, 0, 0, 0};
    pos = 0;
    MPI_OK(MPI_Pack_external("external32", s, 1, v, out, sizeof out, &pos));
    CHECK(pos == 6 && out[0] == 1 && out[1] == 2 && out[4] == 5 && out[5] == 6, "external32 vector bytes");
    pos = 0;
    MPI_OK(MPI_Unpack_external("external32", out, 6, &pos, rs, 1, v));
    CHECK(rs[0] == 0x0102 && rs[2] == 0x0304 && rs[4] == 0x0506 && rs[1] == 0, "external32 vector round trip");
    MPI_OK(MPI_Type_free(&v));
}

static void test_queries(void) {
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "name of MPI_INT '%s'", name);
    MPI_OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0, "name of MPI_DOUBLE '%s'", name);
    MPI_Datatype v, r, d;
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v));
    MPI_OK(MPI_Type_get_name(v, name, &len));
    CHECK(len == 0 && name[0] == 0, "derived type has an empty name, got '%s'", name);
    MPI_OK(MPI_Type_set_name(v, "column"));
    MPI_OK(MPI_Type_get_name(v, name, &len));
    CHECK(strcmp(name, "column") == 0 && len == 6, "set name '%s'", name);
    MPI_Aint lb, ext, tlb, text;
    MPI_OK(MPI_Type_get_extent(v, &lb, &ext));
    CHECK(lb == 0 && ext == (2 * 5 + 2) * 8, "vector extent %ld %ld", (long)lb, (long)ext);
    MPI_OK(MPI_Type_create_resized(v, -16, 200, &r));
    MPI_OK(MPI_Type_get_extent(r, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent(r, &tlb, &text));
    CHECK(lb == -16 && ext == 200 && tlb == 0 && text == 96, "resized %ld %ld %ld %ld", (long)lb, (long)ext,
          (long)tlb, (long)text);
    MPI_Count clb, cext, csz;
    MPI_OK(MPI_Type_get_extent_x(r, &clb, &cext));
    MPI_OK(MPI_Type_get_true_extent_x(r, &clb, &cext));
    MPI_OK(MPI_Type_size_x(r, &csz));
    CHECK(clb == 0 && cext == 96 && csz == 48, "_x queries");
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
    int ints[3];
    MPI_Datatype types[1];
    MPI_OK(MPI_Type_get_contents(v, 3, 0, 1, ints, NULL, types));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && types[0] == MPI_DOUBLE, "vector contents");
    MPI_OK(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1, "resized envelope");
    MPI_Aint addrs[2];
    MPI_OK(MPI_Type_get_contents(r, 0, 2, 1, NULL, addrs, types));
    CHECK(addrs[0] == -16 && addrs[1] == 200, "resized contents");
    /* The inner derived type comes back as a new type the caller frees. */
    MPI_OK(MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR, "inner combiner %d", comb);
    MPI_OK(MPI_Type_free(&types[0]));
    MPI_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
    MPI_OK(MPI_Type_commit(&v));
    MPI_OK(MPI_Type_dup(v, &d));
    MPI_OK(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "dup envelope");
    int sz;
    MPI_OK(MPI_Type_size(d, &sz));
    CHECK(sz == 48, "dup size %d", sz);
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&r));
    /* The dup is committed and still works after the original is freed. */
    double a[12], b[12];
    for (int i = 0; i < 12; i++) {
        a[i] = i;
        b[i] = -1;
    }
    char buf[128];
    int pos = 0;
    MPI_OK(MPI_Pack(a, 1, d, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD));
    pos = 0;
    MPI_OK(MPI_Unpack(buf, 48, &pos, b, 1, d, MPI_COMM_WORLD));
    CHECK(b[0] == 0 && b[1] == 1 && b[2] == -1 && b[5] == 5 && b[11] == 11, "dup pack round trip");
    MPI_OK(MPI_Type_free(&d));
    /* Subarray / darray queries. */
    int gs[2] = {10, 12}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 1};
    MPI_Datatype da;
    MPI_OK(MPI_Type_create_darray(2, 1, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &da));
    MPI_OK(MPI_Type_size(da, &sz));
    MPI_OK(MPI_Type_get_extent(da, &lb, &ext));
    CHECK(sz == 5 * 12 * 4 && lb == 0 && ext == 120 * 4, "darray size %d extent %ld", sz, (long)ext);
    MPI_OK(MPI_Type_get_envelope(da, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * 2 + 4, "darray envelope");
    MPI_OK(MPI_Type_free(&da));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "pack_unpack");
    test_pack_roundtrip();
    test_external32();
    test_queries();
    return mt_finish();
}
