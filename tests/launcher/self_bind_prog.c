/* self_bind_prog: rank 0 prints the CPU every rank runs on after MPI_Init, "self-bound CPUs: 1 0 1"
 * in rank order ("-" for a rank whose mask holds more than one CPU). Used by claims_case.sh to see
 * where oversubscribed ranks bound themselves. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, cpu = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) cpu = c;
    int *all = malloc(sizeof(int) * (size_t)size);
    MPI_Gather(&cpu, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("self-bound CPUs:");
        for (int r = 0; r < size; r++) {
            if (all[r] < 0) printf(" -");
            else printf(" %d", all[r]);
        }
        printf("\n");
    }
    free(all);
    MPI_Finalize();
    return 0;
}
