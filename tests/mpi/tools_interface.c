/* tools_interface: the MPI tools interface (MPI_T). Generic checks (any MPI): MPI_T_init_thread
 * before MPI_Init and nested, every control and performance variable's info is readable, names
 * map back to their index, categories list valid indices, bad indices and handles give the MPI_T
 * error codes, MPI_T_finalize balances the inits. RailMPI's own variables: every RAILMPI_* setting
 * is a read-only control variable whose text is the value in force (RAILMPI_YIELD_COUNT=123 is set
 * for this test), railmpi_unexpected_messages counts messages received and not matched (3 sent to
 * self, then received), railmpi_yields is a counter that reset brings back to 0. */
#include "mpitest.h"

#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
#define RAILMPI_VARIABLES 1
#endif

static void generic_variables(void) {
    int ncvar = -1, npvar = -1, ncat = -1;
    MPI_OK(MPI_T_cvar_get_num(&ncvar));
    MPI_OK(MPI_T_pvar_get_num(&npvar));
    MPI_OK(MPI_T_category_get_num(&ncat));
    CHECK(ncvar >= 0 && npvar >= 0 && ncat >= 0, "counts %d %d %d", ncvar, npvar, ncat);
    for (int i = 0; i < ncvar; ++i) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, index = -1;
        MPI_Datatype type;
        MPI_T_enum e;
        int rc = MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc, &desc_len, &bind, &scope);
#ifdef OPEN_MPI
        if (rc == MPI_T_ERR_INVALID_INDEX) continue; /* Open MPI 4.1 keeps indices of variables it removed */
#endif
        MPI_OK(rc);
        CHECK(name_len > 1 && (size_t)name_len == strlen(name) + 1, "cvar %d name length %d for '%s'", i, name_len,
              name);
        MPI_OK(MPI_T_cvar_get_index(name, &index));
        CHECK(index == i, "cvar '%s' has index %d, name lookup gave %d", name, i, index);
    }
    for (int i = 0; i < npvar; ++i) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, var_class, bind, ro, cont, atomic, index = -1;
        MPI_Datatype type;
        MPI_T_enum e;
        int rc = MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &e, desc, &desc_len, &bind,
                                     &ro, &cont, &atomic);
#ifdef OPEN_MPI
        /* as for the control variables; some of its performance variables answer MPI_T_ERR_INVALID */
        if (rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID) continue;
#endif
        MPI_OK(rc);
        MPI_OK(MPI_T_pvar_get_index(name, var_class, &index));
        CHECK(index == i, "pvar '%s' has index %d, name lookup gave %d", name, i, index);
    }
    for (int c = 0; c < ncat; ++c) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, nc = -1, np = -1, nsub = -1, index = -1;
        int rc = MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nsub);
#ifdef OPEN_MPI
        if (rc == MPI_T_ERR_INVALID_INDEX) continue; /* as for the variables */
#endif
        MPI_OK(rc);
        CHECK(nc >= 0 && nc <= ncvar && np >= 0 && np <= npvar, "category %d: %d cvars, %d pvars", c, nc, np);
        int *idx = malloc(sizeof(int) * (size_t)(nc + np + 1));
        MPI_OK(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; ++k) CHECK(idx[k] >= 0 && idx[k] < ncvar, "category %d cvar %d", c, idx[k]);
        MPI_OK(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; ++k) CHECK(idx[k] >= 0 && idx[k] < npvar, "category %d pvar %d", c, idx[k]);
        free(idx);
        if (name_len > 1) {
            MPI_OK(MPI_T_category_get_index(name, &index));
            CHECK(index == c, "category '%s' index %d, lookup %d", name, c, index);
        }
    }
    /* Bad input: MPI_T returns its own codes. */
    char name[256], desc[256];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, var_class, bind, scope, ro, cont, atomic, rc;
    MPI_Datatype type;
    MPI_T_enum e;
    rc = MPI_T_cvar_get_info(ncvar, name, &name_len, &verbosity, &type, &e, desc, &desc_len, &bind, &scope);
#ifdef OPEN_MPI
    if (rc == MPI_T_ERR_INVALID) rc = MPI_T_ERR_INVALID_INDEX; /* Open MPI 4.1's answer (MPI-3.1: INVALID_INDEX) */
#endif
    CHECK(rc == MPI_T_ERR_INVALID_INDEX, "cvar index %d past the end: %d", ncvar, rc);
#ifndef OPEN_MPI /* Open MPI 4.1 crashes in MPI_T_pvar_get_info(-1, ...) */
    rc = MPI_T_pvar_get_info(-1, name, &name_len, &verbosity, &var_class, &type, &e, desc, &desc_len, &bind, &ro,
                             &cont, &atomic);
    CHECK(rc == MPI_T_ERR_INVALID_INDEX, "pvar index -1: %d", rc);
#else
    (void)var_class;
    (void)ro;
    (void)cont;
    (void)atomic;
#endif
    int index;
    rc = MPI_T_cvar_get_index("no such variable, surely", &index);
    CHECK(rc == MPI_T_ERR_INVALID_NAME, "unknown cvar name: %d", rc);
}

#ifdef RAILMPI_VARIABLES
static void read_cvar(const char *name, char *value, int cap) {
    int index = -1, count = -1;
    MPI_T_cvar_handle h;
    MPI_OK(MPI_T_cvar_get_index(name, &index));
    MPI_OK(MPI_T_cvar_handle_alloc(index, NULL, &h, &count));
    CHECK(count > 0 && count <= cap, "%s: count %d", name, count);
    MPI_OK(MPI_T_cvar_read(h, value));
    CHECK((int)strlen(value) + 1 == count, "%s: '%s' is not %d characters with its NUL", name, value, count);
    int rc = MPI_T_cvar_write(h, value);
    CHECK(rc == MPI_T_ERR_CVAR_SET_NEVER, "%s written: %d", name, rc);
    MPI_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not nulled");
}

static unsigned long long read_pvar(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
    unsigned long long v = 0;
    MPI_OK(MPI_T_pvar_read(s, h, &v));
    return v;
}

static void railmpi_variables(void) {
    char value[4096];
    read_cvar("RAILMPI_YIELD_COUNT", value, sizeof value);
    CHECK(strcmp(value, "123") == 0, "RAILMPI_YIELD_COUNT reads '%s' (the test sets 123)", value);
    read_cvar("RAILMPI_NODE_COLL_LIMIT", value, sizeof value);
    CHECK(strcmp(value, "65536") == 0, "RAILMPI_NODE_COLL_LIMIT reads '%s' (default 64K)", value);

    MPI_T_pvar_session s;
    MPI_T_pvar_handle unexpected, yields;
    int iu, iy, count;
    MPI_OK(MPI_T_pvar_session_create(&s));
    MPI_OK(MPI_T_pvar_get_index("railmpi_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL, &iu));
    MPI_OK(MPI_T_pvar_get_index("railmpi_yields", MPI_T_PVAR_CLASS_COUNTER, &iy));
    MPI_OK(MPI_T_pvar_handle_alloc(s, iu, NULL, &unexpected, &count));
    CHECK(count == 1, "count %d", count);
    MPI_OK(MPI_T_pvar_handle_alloc(s, iy, NULL, &yields, &count));
    /* Rank 0 counts while every other rank waits for its token (and so sends nothing to it). */
    if (mt_rank == 0) {
        const unsigned long long before = read_pvar(s, unexpected);
        int msg[3] = {1, 2, 3}, got;
        for (int i = 0; i < 3; ++i) MPI_OK(MPI_Send(&msg[i], 1, MPI_INT, 0, 70 + i, MPI_COMM_SELF));
        CHECK(read_pvar(s, unexpected) == before + 3, "unexpected messages %llu, expected %llu",
              read_pvar(s, unexpected), before + 3);
        for (int i = 0; i < 3; ++i) MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, 70 + i, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        CHECK(read_pvar(s, unexpected) == before, "unexpected messages after the receives %llu",
              read_pvar(s, unexpected));
        for (int r = 1; r < mt_size; ++r) MPI_OK(MPI_Send(&got, 1, MPI_INT, r, 80, MPI_COMM_WORLD));
    } else {
        int token;
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_T_pvar_reset(s, yields));
    CHECK(read_pvar(s, yields) == 0, "yields after reset %llu", read_pvar(s, yields));
    int rc = MPI_T_pvar_reset(s, unexpected);
    CHECK(rc == MPI_T_ERR_PVAR_NO_WRITE, "reset of a level: %d", rc);
    rc = MPI_T_pvar_start(s, yields);
    CHECK(rc == MPI_T_ERR_PVAR_NO_STARTSTOP, "start of a continuous variable: %d", rc);
    MPI_OK(MPI_T_pvar_handle_free(s, &unexpected));
    unsigned long long ignored;
    rc = MPI_T_pvar_read(s, unexpected, &ignored);
    CHECK(rc == MPI_T_ERR_INVALID_HANDLE, "read of a freed handle: %d", rc);
    MPI_OK(MPI_T_pvar_handle_free(s, &yields));
    MPI_OK(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session not nulled");
}
#endif

int main(int argc, char **argv) {
    int provided = -1, ncvar;
    /* Before MPI_Init, twice (nested inits need as many finalizes). */
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided >= MPI_THREAD_SINGLE, "provided %d", provided);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_cvar_get_num(&ncvar));
    mt_init(&argc, &argv, "tools_interface");
    generic_variables();
#ifdef RAILMPI_VARIABLES
    railmpi_variables();
#endif
    MPI_OK(MPI_T_finalize());
    MPI_OK(MPI_T_cvar_get_num(&ncvar)); /* still initialized once */
    MPI_OK(MPI_T_finalize());
    int rc = MPI_T_cvar_get_num(&ncvar);
    CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "after the last MPI_T_finalize: %d", rc);
    return mt_finish();
}
