/* The calls MPI programs make with the standard's sentinel arguments (MPI_STATUSES_IGNORE,
 * MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY, MPI_ERRCODES_IGNORE, MPI_ARGV_NULL, MPI_IN_PLACE, ...) must
 * compile without warnings at -O2 -Wall -Wextra: GCC's -Wstringop-overflow takes an array
 * parameter `MPI_Status s[]` given the address 1 for a zero-sized region (MPICH's own header warns
 * on every MPI_Waitall(n, r, MPI_STATUSES_IGNORE) so), hence pointer parameters in our mpi.h.
 * Compiled only (abi.idioms); never linked or run. */
#include <mpi.h>

int idioms(int argc, char **argv);

int idioms(int argc, char **argv) {
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int idx[2], outcount, flag, value = argc, sum = 0;
    int sources[1] = {0}, destinations[1] = {0};
    MPI_Comm graph, children;
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    MPI_Waitsome(2, r, &outcount, idx, MPI_STATUSES_IGNORE);
    MPI_Testsome(2, r, &outcount, idx, MPI_STATUSES_IGNORE);
    MPI_Waitany(2, r, &outcount, MPI_STATUS_IGNORE);
    MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, MPI_UNWEIGHTED, 1, destinations, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &graph);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, sources, MPI_WEIGHTS_EMPTY, 0, destinations,
                                   MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &children, MPI_ERRCODES_IGNORE);
    MPI_Send(MPI_BOTTOM, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return value + sum;
}
