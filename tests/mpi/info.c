/* Info objects: set/get/valuelen/nkeys/nthkey/delete/dup/free, MPI_INFO_ENV, Comm_dup_with_info. */
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
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_free(&dup));
    CHECK(info == MPI_INFO_NULL && dup == MPI_INFO_NULL, "freed info not NULL");
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK(n >= 0, "INFO_ENV nkeys %d", n);
    return mt_finish();
}
