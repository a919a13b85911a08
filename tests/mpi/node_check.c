/* node_check: ranks agree on which of them share a node. MPI_Get_processor_name names the
 * rank's host (RAILMPI_NODE when the launcher sets it), and the MPI_COMM_TYPE_SHARED split holds
 * exactly the ranks whose processor name is this rank's. Optional argv[1]: the number of
 * distinct hosts the job must span (checked when given). */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "node_check");
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && (size_t)len == strlen(name), "processor name length %d for \"%s\"", len, name);
    const char *node = getenv("RAILMPI_NODE");
    if (node != NULL && *node != '\0')
        CHECK(strcmp(node, name) == 0, "processor name \"%s\", RAILMPI_NODE \"%s\"", name, node);

    char *names = calloc((size_t)mt_size, MPI_MAX_PROCESSOR_NAME);
    int *mates = malloc(sizeof(int) * (size_t)mt_size);
    CHECK(names != NULL && mates != NULL, "malloc");
    MPI_OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, MPI_COMM_WORLD));

    MPI_Comm shared;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    int shared_size = 0;
    MPI_OK(MPI_Comm_size(shared, &shared_size));
    MPI_OK(MPI_Allgather(&mt_rank, 1, MPI_INT, mates, 1, MPI_INT, shared));
    /* Key 0 keeps the world order: the k-th member is the k-th rank with this name. */
    int k = 0, hosts = 0;
    for (int r = 0; r < mt_size; r++) {
        const char *other = names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        int first = 1;
        for (int q = 0; q < r && first; q++)
            if (strcmp(other, names + (size_t)q * MPI_MAX_PROCESSOR_NAME) == 0) first = 0;
        hosts += first;
        if (strcmp(other, name) != 0) continue;
        CHECK(k < shared_size && mates[k] == r, "rank %d (on \"%s\") is not member %d of the shared split",
              r, other, k);
        k++;
    }
    CHECK(k == shared_size, "shared split has %d ranks, %d ranks are on \"%s\"", shared_size, k, name);
    if (argc > 1) CHECK(hosts == atoi(argv[1]), "job spans %d hosts, expected %s", hosts, argv[1]);
    MPI_OK(MPI_Comm_free(&shared));
    free(names);
    free(mates);
    return mt_finish();
}
