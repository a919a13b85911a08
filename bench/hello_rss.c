/* hello_rss: MPI_Init, MPI_Finalize, nothing else: for start-up time (the script times the whole
 * job) and peak memory. Every rank reports its peak resident set size (getrusage ru_maxrss, in
 * KiB) and rank 0 prints "rss_kib_max <largest over ranks>". Builds against any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long mine = ru.ru_maxrss, most = 0;
    MPI_Reduce(&mine, &most, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("rss_kib_max %ld\n", most);
    MPI_Finalize();
    return 0;
}
