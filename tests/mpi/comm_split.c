/* Comm_split (colours, keys, p2p and collectives inside), Comm_dup/idup, Comm_compare,
 * names, Comm_split_type shared and MPI_UNDEFINED. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "comm_split");
    MPI_Comm c, d, s;
    int r, n, res;
    /* colour = rank % 3, key = -rank: reversed order inside each colour. */
    int color = mt_rank % 3;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, -mt_rank, &c));
    int expect_n = 0, expect_r = 0;
    for (int i = 0; i < mt_size; i++)
        if (i % 3 == color) {
            expect_n++;
            if (i > mt_rank) expect_r++;
        }
    MPI_OK(MPI_Comm_size(c, &n));
    MPI_OK(MPI_Comm_rank(c, &r));
    CHECK(n == expect_n && r == expect_r, "split size %d rank %d expected %d %d", n, r, expect_n, expect_r);
    /* p2p inside: everyone sends its world rank to its successor. */
    int out = mt_rank, in = -1;
    MPI_Request rq[2];
    MPI_Status st;
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, (r - 1 + n) % n, 3, c, &rq[0]));
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, (r + 1) % n, 3, c, &rq[1]));
    MPI_OK(MPI_Wait(&rq[0], &st));
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK(st.MPI_SOURCE == (r - 1 + n) % n, "status source %d", st.MPI_SOURCE);
    int pred_world = -1, k = 0;
    for (int i = mt_size - 1; i >= 0; i--)
        if (i % 3 == color) {
            if (k == (r - 1 + n) % n) pred_world = i;
            k++;
        }
    CHECK(in == pred_world, "got %d from predecessor expected %d", in, pred_world);
    /* traffic on world at the same time, same tag: must not mix */
    int w = -1, wo = 1000 + mt_rank;
    MPI_OK(MPI_Sendrecv(&wo, 1, MPI_INT, (mt_rank + 1) % mt_size, 3, &w, 1, MPI_INT, (mt_rank - 1 + mt_size) % mt_size,
                        3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == 1000 + (mt_rank - 1 + mt_size) % mt_size, "world got %d", w);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, c));
    int esum = 0;
    for (int i = 0; i < mt_size; i++)
        if (i % 3 == color) esum += i;
    CHECK(sum == esum, "allreduce in split %d expected %d", sum, esum);

    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Comm_compare(c, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare dup %d", res);
    MPI_OK(MPI_Comm_compare(c, c, &res));
    CHECK(res == MPI_IDENT, "compare self %d", res);
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, c, &res));
    CHECK(res == (mt_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare world/split %d", res);
    MPI_OK(MPI_Comm_set_name(d, "my dup"));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Comm_get_name(d, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "name '%s'", name);
    MPI_OK(MPI_Comm_free(&d));

    MPI_Request req;
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "idup request not freed");
    MPI_OK(MPI_Barrier(d));
    MPI_OK(MPI_Comm_free(&d));

    /* reversed world: similar */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &d));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    CHECK(res == (mt_size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare reversed %d", res);
    MPI_OK(MPI_Comm_free(&d));

    /* MPI_UNDEFINED */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0 ? MPI_UNDEFINED : 1, 0, &d));
    if (mt_rank == 0)
        CHECK(d == MPI_COMM_NULL, "UNDEFINED gave a communicator");
    else
        MPI_OK(MPI_Comm_free(&d));

    /* split_type shared: all ranks of the test run on one node */
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mt_rank, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Comm_size(s, &n));
    MPI_OK(MPI_Comm_rank(s, &r));
    CHECK(n == mt_size && r == mt_rank, "shared size %d rank %d", n, r);
    MPI_OK(MPI_Comm_free(&s));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &s));
    CHECK(s == MPI_COMM_NULL, "split_type UNDEFINED gave a communicator");
    MPI_OK(MPI_Comm_free(&c));
    return mt_finish();
}
