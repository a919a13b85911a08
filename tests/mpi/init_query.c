/* init_query: MPI_Init_thread and the environment queries. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_name = "init_query";
    mt_arm_watchdog();
    int flag = -1;
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 0, "Initialized true before MPI_Init_thread");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized true before MPI_Init_thread");
    int provided = -1;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
              MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
          "thread level constants not monotonic");
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided = %d", provided);
    int q = -1;
    MPI_OK(MPI_Query_thread(&q));
    CHECK(q == provided, "Query_thread %d != provided %d", q, provided);
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized false after init");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized true before finalize");
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "Is_thread_main false on the main thread");

    char name[MPI_MAX_PROCESSOR_NAME + 1], name2[MPI_MAX_PROCESSOR_NAME + 1];
    int len = -1, len2 = -1;
    memset(name, 'x', sizeof name);
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (size_t)len == strlen(name), "processor name length %d", len);
    MPI_OK(MPI_Get_processor_name(name2, &len2));
    CHECK(len2 == len && strcmp(name, name2) == 0, "processor name not stable");

    int ver = -1, sub = -1;
    MPI_OK(MPI_Get_version(&ver, &sub));
    CHECK(ver == MPI_VERSION && sub == MPI_SUBVERSION, "Get_version %d.%d but mpi.h says %d.%d", ver, sub,
          MPI_VERSION, MPI_SUBVERSION);
    CHECK(ver > 3 || (ver == 3 && sub >= 1), "MPI version %d.%d < 3.1", ver, sub);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (size_t)len == strlen(lib), "library version length %d",
          len);
    if (mt_rank == 0) {
        /* first line only */
        char *nl = strchr(lib, '\n');
        if (nl) *nl = 0;
        printf("init_query: MPI %d.%d, thread level provided %d, library: %s\n", ver, sub, provided, lib);
    }

    double tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 1.0, "Wtick %g", tick);
    double prev = MPI_Wtime();
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        CHECK(t >= prev, "Wtime went backwards: %.9f < %.9f", t, prev);
        prev = t;
    }
    double t0 = MPI_Wtime();
    mt_sleep_ms(20);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 5.0, "20 ms sleep measured as %.6f s", dt);

    int r = -1, s = -1;
    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &s));
    CHECK(r == 0 && s == 1, "COMM_SELF rank %d size %d", r, s);
    CHECK(mt_rank >= 0 && mt_rank < mt_size, "WORLD rank %d size %d", mt_rank, mt_size);
    int one = 1, sum = 0, rsum = 0, rmax = -1;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(&mt_rank, &rsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(&mt_rank, &rmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(sum == mt_size && rsum == mt_size * (mt_size - 1) / 2 && rmax == mt_size - 1,
          "ranks not 0..size-1 (sum %d rsum %d max %d)", sum, rsum, rmax);
    const char *env = getenv("MT_EXPECT_SIZE");
    if (env) CHECK(atoi(env) == mt_size, "size %d, expected %s", mt_size, env);

    int codes[6] = {MPI_SUCCESS, MPI_ERR_RANK, MPI_ERR_TAG, MPI_ERR_TRUNCATE, MPI_ERR_COMM, MPI_ERR_OTHER};
    char es[MPI_MAX_ERROR_STRING], es0[MPI_MAX_ERROR_STRING];
    es0[0] = 0;
    for (int i = 0; i < 6; i++) {
        int cls = -1;
        len = -1;
        MPI_OK(MPI_Error_class(codes[i], &cls));
        CHECK(cls == codes[i], "Error_class(%d) = %d", codes[i], cls);
        MPI_OK(MPI_Error_string(codes[i], es, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(es), "Error_string(%d) length %d",
              codes[i], len);
        if (i == 0) strcpy(es0, es);
        else CHECK(strcmp(es, es0) != 0, "Error_string(%d) same as for MPI_SUCCESS", codes[i]);
    }
    CHECK(MPI_ERR_LASTCODE >= MPI_ERR_OTHER && MPI_SUCCESS == 0, "error constants");

    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default WORLD errhandler is not MPI_ERRORS_ARE_FATAL");
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler after set is not MPI_ERRORS_RETURN");
    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not null the handle");
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default SELF errhandler is not MPI_ERRORS_ARE_FATAL");
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "errhandler not restored");
    MPI_OK(MPI_Errhandler_free(&eh));

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "Finalized false after MPI_Finalize");
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized false after MPI_Finalize");
    if (mt_rank == 0) printf("PASS init_query\n");
    return 0;
}
