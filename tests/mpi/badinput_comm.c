/* Bad input to group, communicator, topology, attribute and info calls under MPI_ERRORS_RETURN:
 * each returns the right error class. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "badinput_comm");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Group g, world;
    int x, flag;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    mt_check_error_class(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "Comm_dup(COMM_NULL)");
    mt_check_error_class(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM, "Comm_size(COMM_NULL)");
    c = MPI_COMM_WORLD;
    mt_check_error_class(MPI_Comm_free(&c), MPI_ERR_COMM, "Comm_free(WORLD)");
    mt_check_error_class(MPI_Group_size(MPI_GROUP_NULL, &x), MPI_ERR_GROUP, "Group_size(GROUP_NULL)");
    mt_check_error_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP, "Comm_create(GROUP_NULL)");
    int bad[2] = {0, mt_size};
    mt_check_error_class(MPI_Group_incl(world, 2, bad, &g), MPI_ERR_RANK, "Group_incl(out of range)");
    int dims[2] = {mt_size + 1, 1}, periods[2] = {0, 0};
    mt_check_error_class(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_ARG,
                         "Cart_create(too many processes)");
    mt_check_error_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &x, &x), MPI_ERR_TOPOLOGY, "Cart_shift(no topology)");
    mt_check_error_class(MPI_Cartdim_get(MPI_COMM_WORLD, &x), MPI_ERR_TOPOLOGY, "Cartdim_get(no topology)");
    mt_check_error_class(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &x), MPI_ERR_TOPOLOGY, "Graphdims_get(no topology)");
    int d3[2] = {0, 3};
    if (mt_size == 1 || mt_size == 2 || mt_size == 4 || mt_size == 8)
        mt_check_error_class(MPI_Dims_create(mt_size * 3 + 1, 2, d3), MPI_ERR_DIMS, "Dims_create(indivisible)");
    d3[0] = 0;
    mt_check_error_class(MPI_Dims_create(4, -1, d3), MPI_ERR_ARG, "Dims_create(ndims < 0)");
    void *v;
    mt_check_error_class(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag), MPI_ERR_KEYVAL, "Comm_get_attr(bad keyval)");
    int key = 12345;
    mt_check_error_class(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL, "Comm_free_keyval(bad keyval)");
    mt_check_error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL, "Comm_set_attr(TAG_UB)");
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    mt_check_error_class(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY, "Info_set(empty key)");
    char longkey[MPI_MAX_INFO_KEY + 10];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    mt_check_error_class(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY, "Info_set(long key)");
    mt_check_error_class(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY, "Info_delete(absent)");
    char k[MPI_MAX_INFO_KEY + 1];
    mt_check_error_class(MPI_Info_get_nthkey(info, 0, k), MPI_ERR_ARG, "Info_get_nthkey(0 of 0)");
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Group_free(&world));
    return mt_finish();
}
