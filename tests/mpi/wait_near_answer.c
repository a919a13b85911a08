/* wait_near_answer: ranks blocked in MPI_Recv from a rank that is away from MPI for 300 ms give
 * their CPUs away. With more ranks than CPUs, a wait across CPUs polls instead of yielding while
 * the rank it waits for is at most one hand-over from answering and every rank of its CPU waits
 * too (progress::Engine::spin_while_answer_near), for at most 30 us a wait: here rank 2 sleeps
 * outside MPI and every other rank waits for it, so every such wait begins that way. Each waiting
 * rank's CPU time over its wait stays under a quarter of the wait (RailMPI only: another MPI may
 * poll); the message's bytes and status are checked everywhere. Then ROUNDS rounds of a token
 * with a 4 KiB payload around the ranks (the waits the spin shortens), checked at every hop. */
#include "mpitest.h"

#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BYTES 4096

static double cpu_seconds(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

static int is_railmpi(void) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_OK(MPI_Get_library_version(version, &len));
    return strstr(version, "RailMPI") != NULL;
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "wait_near_answer");
    const int rounds = mt_iters(argc, argv, 2000);
    if (mt_size < 3) return mt_finish();
    unsigned char *buf = malloc(BYTES);
    CHECK(buf != NULL, "malloc");
    MPI_Status st;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 2) {
        const struct timespec away = {0, 300 * 1000 * 1000};
        nanosleep(&away, NULL);
        for (int r = 0; r < mt_size; r++) {
            if (r == 2) continue;
            mt_fill(buf, BYTES, (unsigned)r);
            MPI_OK(MPI_Send(buf, BYTES, MPI_BYTE, r, 5, MPI_COMM_WORLD));
        }
    } else {
        const double cpu0 = cpu_seconds(), t0 = MPI_Wtime();
        MPI_OK(MPI_Recv(buf, BYTES, MPI_BYTE, 2, 5, MPI_COMM_WORLD, &st));
        const double cpu = cpu_seconds() - cpu0, wall = MPI_Wtime() - t0;
        CHECK_STATUS(st, 2, 5, MPI_BYTE, BYTES);
        long bad = mt_verify(buf, BYTES, (unsigned)mt_rank);
        CHECK(bad < 0, "rank 2's message: byte %ld wrong", bad);
        CHECK(wall > 0.2, "the wait took %.3f s: rank 2 sent before it woke", wall);
        if (is_railmpi())
            CHECK(cpu < 0.25 * wall, "the wait for rank 2 took %.3f s of CPU in %.3f s", cpu, wall);
    }
    const int left = (mt_rank + mt_size - 1) % mt_size, right = (mt_rank + 1) % mt_size;
    for (int i = 0; i < rounds; i++) {
        if (mt_rank != 0) {
            MPI_OK(MPI_Recv(buf, BYTES, MPI_BYTE, left, i % 100, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, i % 100, MPI_BYTE, BYTES);
            long bad = mt_verify(buf, BYTES, (unsigned)(i * mt_size + left));
            CHECK(bad < 0, "round %d from rank %d: byte %ld wrong", i, left, bad);
        }
        mt_fill(buf, BYTES, (unsigned)(i * mt_size + mt_rank));
        MPI_OK(MPI_Send(buf, BYTES, MPI_BYTE, right, i % 100, MPI_COMM_WORLD));
        if (mt_rank == 0) {
            MPI_OK(MPI_Recv(buf, BYTES, MPI_BYTE, left, i % 100, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, i % 100, MPI_BYTE, BYTES);
            long bad = mt_verify(buf, BYTES, (unsigned)(i * mt_size + left));
            CHECK(bad < 0, "round %d from rank %d: byte %ld wrong", i, left, bad);
        }
    }
    free(buf);
    return mt_finish();
}
