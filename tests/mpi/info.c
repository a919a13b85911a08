/* Info objects: set/get/valuelen/nkeys/nthkey/delete/dup/free, MPI_INFO_ENV, Comm_dup_with_info,
 * Comm_set_info / Comm_get_info (RailMPI recognizes no communicator hint: the info in use is
 * empty; the reference MPIs report their own hints, so only the calls are checked there). */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "info");
    MPI_Info info, dup;
    char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, n, len;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "nkeys %d", n);
    MPI_OK(MPI_Info_set(info, "alpha", "1"));
    MPI_OK(MPI_Info_set(info, "beta", "two"));
    MPI_OK(MPI_Info_set(info, "gamma", "three3"));
    MPI_OK(MPI_Info_set(info, "alpha", "one")); /* replace keeps position */
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "nkeys %d", n);
    MPI_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "one") == 0, "alpha='%s'", val);
    MPI_OK(MPI_Info_get(info, "gamma", 6, val, &flag));
    CHECK(flag && strcmp(val, "three3") == 0, "gamma='%s'", val);
    MPI_OK(MPI_Info_get(info, "delta", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(!flag, "delta found");
    MPI_OK(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
    CHECK(flag && len == 6, "valuelen %d", len);
    MPI_OK(MPI_Info_get_valuelen(info, "nope", &len, &flag));
    CHECK(!flag, "valuelen of missing key");
    const char *order[] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) {
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, order[i]) == 0, "nthkey %d = '%s'", i, key);
    }
    MPI_OK(MPI_Info_dup(info, &dup));
    MPI_OK(MPI_Info_delete(info, "beta"));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "nkeys after delete %d", n);
    MPI_OK(MPI_Info_get_nkeys(dup, &n));
    CHECK(n == 3, "dup nkeys %d", n);
    MPI_OK(MPI_Info_get(dup, "beta", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "two") == 0, "dup beta='%s'", val);

    MPI_Comm c;
    MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, dup, &c));
    MPI_OK(MPI_Barrier(c));
    MPI_OK(MPI_Comm_set_info(c, dup));
    MPI_Info used = MPI_INFO_NULL;
    MPI_OK(MPI_Comm_get_info(c, &used));
    CHECK(used != MPI_INFO_NULL && used != dup, "Comm_get_info returned 0x%x", (unsigned)used);
    MPI_OK(MPI_Info_get_nkeys(used, &n));
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(version, &len));
    if (strncmp(version, "RailMPI", 7) == 0) CHECK(n == 0, "Comm_get_info: %d hints in use, want 0", n);
    MPI_OK(MPI_Info_set(used, "mine", "yes")); /* a new object the caller owns */
    MPI_OK(MPI_Info_free(&used));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)); /* MPICH reports a bad info there */
    mt_check_error_class(MPI_Comm_set_info(c, (MPI_Info)0x1c0004d2), MPI_ERR_INFO, "MPI_Comm_set_info made-up info");
    mt_check_error_class(MPI_Comm_get_info(c, NULL), MPI_ERR_ARG, "MPI_Comm_get_info NULL");
#ifdef MT_REFERENCE_MPICH_402
    mt_check_error_class(MPI_Comm_set_info(c, MPI_INFO_NULL), MPI_ERR_ARG, "MPI_Comm_set_info MPI_INFO_NULL");
#else
    mt_check_error_class(MPI_Comm_set_info(c, MPI_INFO_NULL), MPI_ERR_INFO, "MPI_Comm_set_info MPI_INFO_NULL");
#endif
    mt_check_error_class(MPI_Comm_get_info(MPI_COMM_NULL, &used), MPI_ERR_COMM, "MPI_Comm_get_info MPI_COMM_NULL");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_free(&dup));
    CHECK(info == MPI_INFO_NULL && dup == MPI_INFO_NULL, "freed info not NULL");
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK(n >= 0, "INFO_ENV nkeys %d", n);
    return mt_finish();
}
