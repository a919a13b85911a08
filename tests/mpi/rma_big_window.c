/* rma_big_window [MiB]: an MPI_Win_allocate window of MiB (default 64) per rank, every byte
 * written by its owner, one put into the last byte of the right neighbour's window between fences,
 * checked. Run by small_dev_shm.sh under a /dev/shm too small for the node's shared segment: the
 * window then stays in private memory (operations as messages) instead of failing or dying of
 * SIGBUS at the first touch of a page the file system has no room for. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_big_window");
    const MPI_Aint bytes = (MPI_Aint)(argc > 1 ? atoi(argv[1]) : 64) << 20;
    char *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0x5a, (size_t)bytes);
    MPI_OK(MPI_Win_fence(0, win));
    const char v = (char)(mt_rank + 1);
    MPI_OK(MPI_Put(&v, 1, MPI_CHAR, (mt_rank + 1) % mt_size, bytes - 1, 1, MPI_CHAR, win));
    MPI_OK(MPI_Win_fence(0, win));
    const char expected = (char)((mt_rank + mt_size - 1) % mt_size + 1);
    CHECK(base[bytes - 1] == expected, "last byte %d, expected %d", base[bytes - 1], expected);
    CHECK(base[0] == 0x5a && base[bytes / 2] == 0x5a, "the owner's bytes changed");
    MPI_OK(MPI_Win_free(&win));
    return mt_finish();
}
