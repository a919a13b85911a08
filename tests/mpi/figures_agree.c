/* figures_agree: ranks of one node that measure their devices differently still choose the same
 * algorithm for every collective call. Each rank gives itself a different single-copy call cost
 * before MPI_Init (RAILMPI_SHM_CMA_CALL_NS: 300 ns on even ranks, 3000 on odd ones, as the
 * best-of-8 timing at start-up found 0.69 and 1.08 us on two ranks of one job here), and a node of
 * 2 CPUs for 4 ranks (RAILMPI_MACHINE_CPUS=2: oversubscribed on any machine). Where each rank
 * took its own figure, an odd rank sent up to 64 KiB eagerly and an even one up to 32 KiB, and in
 * a 2-rank communicator a 32-64 KiB bcast went through the node region on one rank and by
 * point-to-point on the other: the receiver of the point-to-point bcast took the next
 * collective's message as its data (node_coll: "result differs from rank 0's"), or both waited
 * for ever. Checked: pair and world bcasts of 32 KiB + 1 to 64 KiB with rotating roots, each
 * followed by an allreduce on the same communicator, every byte and sum. */
#include "mpitest.h"

static unsigned char buf[65536];

static void pair_bcasts(MPI_Comm comm, int iters) {
    int me, n;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &n));
    const int sizes[] = {32769, 40000, 49152, 65536};
    for (int k = 0; k < iters; k++) {
        const int bytes = sizes[k % 4] - (k / 4) % 3;
        const int root = k % n;
        const unsigned seed = (unsigned)(k * 131 + n);
        if (me == root) mt_fill(buf, (size_t)bytes, seed);
        else memset(buf, 0xee, (size_t)bytes);
        MPI_OK(MPI_Bcast(buf, bytes, MPI_BYTE, root, comm));
        const long bad = mt_verify(buf, (size_t)bytes, seed);
        CHECK(bad < 0, "bcast %d of %d B from %d (size %d): byte %ld differs", k, bytes, root, n, bad);
        long long x = me + k, sum = 0;
        MPI_OK(MPI_Allreduce(&x, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm));
        CHECK(sum == (long long)n * (n - 1) / 2 + (long long)n * k, "allreduce %d: %lld", k, sum);
    }
}

int main(int argc, char **argv) {
    const char *pmi_rank = getenv("PMI_RANK");
    CHECK(pmi_rank != NULL, "PMI_RANK is not set (run by RailMPI's mpiexec)");
    setenv("RAILMPI_SHM_CMA_CALL_NS", atoi(pmi_rank) % 2 ? "3000" : "300", 1);
    setenv("RAILMPI_MACHINE_CPUS", "2", 1);
    mt_init(&argc, &argv, "figures_agree");
    const int iters = mt_iters(argc, argv, 200);

    MPI_Comm pair;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank / 2, mt_rank, &pair));
    pair_bcasts(pair, iters);
    pair_bcasts(MPI_COMM_WORLD, iters / 4);
    MPI_OK(MPI_Comm_free(&pair));
    return mt_finish();
}
