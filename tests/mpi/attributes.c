/* Attribute caching: copy callbacks on Comm_dup, delete callbacks on free/delete/replace, MPI-1
 * names, predefined attributes, datatype attributes, user error classes/codes/strings. */
#include "mpitest.h"

static int copies, deletes, last_deleted;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    (void)c; (void)key;
    CHECK(*(int *)extra == 42, "extra_state %d", *(int *)extra);
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int key, void *val, void *extra) {
    (void)c; (void)key; (void)extra;
    deletes++;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}
static int type_deletes, type_copies;
static int type_copy_fn(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag) {
    (void)t; (void)key; (void)extra;
    type_copies++;
    *(void **)out = (void *)((intptr_t)in * 10);
    *flag = 1;
    return MPI_SUCCESS;
}
static int type_delete_fn(MPI_Datatype t, int key, void *val, void *extra) {
    (void)t; (void)key; (void)val; (void)extra;
    type_deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "attributes");
    int extra = 42, key, nocopy, old, flag;
    void *v;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &nocopy, &extra));
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &old, NULL));

    MPI_Comm a, b;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_get_attr(a, key, &v, &flag));
    CHECK(!flag, "attribute set before set_attr");
    MPI_OK(MPI_Comm_set_attr(a, key, (void *)(intptr_t)10));
    MPI_OK(MPI_Comm_set_attr(a, nocopy, (void *)(intptr_t)20));
    MPI_OK(MPI_Attr_put(a, old, (void *)(intptr_t)30));
    MPI_OK(MPI_Comm_set_attr(a, key, (void *)(intptr_t)11)); /* replace: delete of 10 */
    CHECK(deletes == 1 && last_deleted == 10, "replace: deletes %d last %d", deletes, last_deleted);

    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "copies %d", copies);
    MPI_OK(MPI_Comm_get_attr(b, key, &v, &flag));
    CHECK(flag && (intptr_t)v == 12, "copied attr %d %ld", flag, (long)(intptr_t)v);
    MPI_OK(MPI_Comm_get_attr(b, nocopy, &v, &flag));
    CHECK(!flag, "NULL_COPY_FN attribute was copied");
    MPI_OK(MPI_Attr_get(b, old, &v, &flag));
    CHECK(flag && (intptr_t)v == 30, "MPI_DUP_FN attr %d %ld", flag, (long)(intptr_t)v);

    MPI_OK(MPI_Comm_delete_attr(b, key));
    CHECK(deletes == 2 && last_deleted == 12, "delete_attr: deletes %d last %d", deletes, last_deleted);
    MPI_OK(MPI_Comm_get_attr(b, key, &v, &flag));
    CHECK(!flag, "attribute still set after delete");
    MPI_OK(MPI_Comm_free(&b));
    CHECK(deletes == 2, "free of b: deletes %d", deletes);
    /* keyval freed while attributes still use it: they stay until the communicator goes */
    MPI_OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "keyval not invalidated");
    MPI_OK(MPI_Comm_free(&a));
    CHECK(deletes == 4, "free of a: deletes %d", deletes);
    MPI_OK(MPI_Comm_free_keyval(&nocopy));
    MPI_OK(MPI_Keyval_free(&old));

    /* predefined attributes */
    int *p;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p >= 32767, "TAG_UB %d", flag ? *p : -1);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
    CHECK(!flag || *p == 0 || *p == 1, "WTIME_IS_GLOBAL %d", *p);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag));
    CHECK(!flag || *p >= mt_size, "UNIVERSE_SIZE %d", *p);

    /* datatype attributes */
    int tkey;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_fn, &tkey, NULL));
    MPI_OK(MPI_Type_set_attr(MPI_INT, tkey, (void *)(intptr_t)5));
    MPI_OK(MPI_Type_get_attr(MPI_INT, tkey, &v, &flag));
    CHECK(flag && (intptr_t)v == 5, "type attr");
    MPI_OK(MPI_Type_get_attr(MPI_DOUBLE, tkey, &v, &flag));
    CHECK(!flag, "type attr on another type");
    MPI_OK(MPI_Type_delete_attr(MPI_INT, tkey));
    CHECK(type_deletes == 1, "type deletes %d", type_deletes);
    MPI_OK(MPI_Type_free_keyval(&tkey));

    /* derived datatypes: copy callback on Type_dup, delete callback on Type_free */
    MPI_Datatype vec, dup;
    MPI_OK(MPI_Type_create_keyval(type_copy_fn, type_delete_fn, &tkey, NULL));
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_Type_set_attr(vec, tkey, (void *)(intptr_t)7));
    MPI_OK(MPI_Type_dup(vec, &dup));
    CHECK(type_copies == 1, "type copies %d", type_copies);
    MPI_OK(MPI_Type_get_attr(dup, tkey, &v, &flag));
    CHECK(flag && (intptr_t)v == 70, "copied type attr %ld", (long)(intptr_t)v);
    MPI_OK(MPI_Type_free(&dup));
    CHECK(type_deletes == 2, "type deletes after freeing the dup %d", type_deletes);
    MPI_OK(MPI_Type_free(&vec));
    CHECK(type_deletes == 3, "type deletes after freeing the original %d", type_deletes);
    MPI_OK(MPI_Type_free_keyval(&tkey));

    /* user error classes, codes and strings */
    int cls, code, got, len, *last;
    char s[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Add_error_string(code, "my special error"));
    MPI_OK(MPI_Error_class(code, &got));
    CHECK(got == cls, "class of user code %d expected %d", got, cls);
    MPI_OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "my special error") == 0 && len == 16, "user error string '%s'", s);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= cls, "LASTUSEDCODE %d", *last);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS, "call_errhandler");
    return mt_finish();
}
