/* f90_types: MPI_Type_create_f90_real / _complex / _integer. Each (p, r) gives the predefined type
 * of the Fortran kind SELECTED_REAL_KIND / SELECTED_INT_KIND picks (its size checked), the same
 * handle again for the same arguments, an envelope of MPI_COMBINER_F90_* with the arguments as its
 * integers; the types carry data between ranks without a commit (checked against MPI_DOUBLE and
 * MPI_INT on the other side) and cannot be freed. Bad input: a range or precision no kind has,
 * both undefined, newtype NULL. */
#include "mpitest.h"

static void check_kind(MPI_Datatype t, int size, int combiner, int p, int r, const char *what) {
    int sz = -1, ni = -1, na = -1, nd = -1, comb = -1, ints[2] = {-9, -9};
    MPI_OK(MPI_Type_size(t, &sz));
    CHECK(sz == size, "%s: size %d, want %d", what, sz, size);
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    const int want_ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    CHECK(comb == combiner && ni == want_ni && na == 0 && nd == 0, "%s: envelope combiner %d ni %d na %d nd %d", what,
          comb, ni, na, nd);
    MPI_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    if (combiner == MPI_COMBINER_F90_INTEGER)
        CHECK(ints[0] == r, "%s: contents r %d want %d", what, ints[0], r);
    else
        CHECK(ints[0] == p && ints[1] == r, "%s: contents %d %d want %d %d", what, ints[0], ints[1], p, r);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "f90_types");
    MPI_Datatype t, again;
    struct { int p, r, size; } reals[] = {{6, MPI_UNDEFINED, 4},  {MPI_UNDEFINED, 37, 4}, {7, MPI_UNDEFINED, 8},
                                          {15, 307, 8},           {MPI_UNDEFINED, 38, 8}, {16, MPI_UNDEFINED, 16},
                                          {33, 4931, 16}};
    for (int i = 0; i < (int)(sizeof reals / sizeof reals[0]); i++) {
#if defined(MT_REFERENCE_MPICH_402) || defined(OPEN_MPI)
        if (reals[i].size == 16) continue; /* built without a 16-byte real kind */
#endif
        char what[64];
        snprintf(what, sizeof what, "f90_real(%d, %d)", reals[i].p, reals[i].r);
        MPI_OK(MPI_Type_create_f90_real(reals[i].p, reals[i].r, &t));
        check_kind(t, reals[i].size, MPI_COMBINER_F90_REAL, reals[i].p, reals[i].r, what);
        MPI_OK(MPI_Type_create_f90_real(reals[i].p, reals[i].r, &again));
        CHECK(again == t, "%s: a second call gave another handle", what);
        snprintf(what, sizeof what, "f90_complex(%d, %d)", reals[i].p, reals[i].r);
        MPI_OK(MPI_Type_create_f90_complex(reals[i].p, reals[i].r, &t));
        check_kind(t, 2 * reals[i].size, MPI_COMBINER_F90_COMPLEX, reals[i].p, reals[i].r, what);
    }
    struct { int r, size; } ints[] = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4}, {10, 8}, {18, 8}};
    for (int i = 0; i < (int)(sizeof ints / sizeof ints[0]); i++) {
        char what[64];
        snprintf(what, sizeof what, "f90_integer(%d)", ints[i].r);
        MPI_OK(MPI_Type_create_f90_integer(ints[i].r, &t));
        check_kind(t, ints[i].size, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, ints[i].r, what);
    }

    /* Data: 3 reals of 15 digits travel as doubles, 2 integers of range 9 as ints. */
    MPI_Datatype real8, int4;
    MPI_OK(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &real8));
    MPI_OK(MPI_Type_create_f90_integer(9, &int4));
    const int peer = mt_partner();
    double dout[3] = {1.5 + mt_rank, -2.25, 1e300}, din[3] = {0, 0, 0};
    int iout[2] = {7 * mt_rank, -1}, iin[2] = {0, 0};
    MPI_Status st;
    int count = -1;
    MPI_OK(MPI_Sendrecv(dout, 3, real8, peer, 1, din, 3, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &st));
    CHECK(din[0] == 1.5 + peer && din[1] == -2.25 && din[2] == 1e300, "reals: %g %g %g", din[0], din[1], din[2]);
    MPI_OK(MPI_Sendrecv(iout, 2, MPI_INT, peer, 2, iin, 2, int4, peer, 2, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, int4, &count));
    CHECK(iin[0] == 7 * peer && iin[1] == -1 && count == 2, "integers: %d %d count %d", iin[0], iin[1], count);

    /* Predefined: not to be freed; bad input. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Datatype keep = real8;
    int rc;
#ifndef MT_REFERENCE_MPICH_402
    rc = MPI_Type_free(&real8); /* MPICH 4.0.2 frees it */
    mt_check_error_class(rc, MPI_ERR_TYPE, "MPI_Type_free of an f90 type");
    CHECK(real8 == keep, "a refused MPI_Type_free changed the handle");
#endif
    (void)keep;
#ifdef MT_REFERENCE_MPICH_402
    const int no_kind = MPI_ERR_OTHER; /* MPICH's class for a kind that does not exist */
#else
    const int no_kind = MPI_ERR_ARG;
#endif
    rc = MPI_Type_create_f90_integer(19, &t);
    mt_check_error_class(rc, no_kind, "f90_integer(19)");
    rc = MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t);
    mt_check_error_class(rc, no_kind, "f90_real(40)");
    rc = MPI_Type_create_f90_complex(MPI_UNDEFINED, 5000, &t);
    mt_check_error_class(rc, no_kind, "f90_complex(r=5000)");
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    rc = MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t);
    mt_check_error_class(rc, MPI_ERR_ARG, "f90_real with p and r undefined");
    rc = MPI_Type_create_f90_real(6, MPI_UNDEFINED, NULL); /* Open MPI 4.1 crashes */
    mt_check_error_class(rc, MPI_ERR_ARG, "f90_real with newtype NULL");
#endif
    return mt_finish();
}
