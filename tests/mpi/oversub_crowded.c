/* oversub_crowded: the ranks share the cores with busy programs (rank 0 starts one spinning
 * process per core of the machine; with 8 ranks on 2 cores, 3 runnable things a core). Yields then
 * hand the core to a spinning program, so RailMPI's waits sleep right after spinning and every
 * message has to wake its receiver. Checked: a token ring with 4-byte, 16 KiB + 4 and 64 KiB
 * rounds (eager and rendezvous) carries every value through every rank; back-to-back small
 * bcasts from rotating roots and 8-byte allreduces give the right data; a rank waiting 300 ms in
 * MPI_Recv beside the spinning programs uses well under its share of a core (RailMPI only: MPICH
 * and Open MPI busy-poll). RailMPI with more ranks than CPUs (RAILMPI_BIND=auto): each rank is
 * bound to one CPU, in blocks or pairs, when MPI_Init returns, and no longer once the busy programs
 * ran beside it (it lets go at the second long yield of a rank of the node). Optional argv[1]:
 * rounds (default 300). */
#include "mpitest.h" /* first: defines _GNU_SOURCE */

#include <sched.h>
#include <sys/wait.h>

#define BIG 16384 /* ints */

static pid_t hogs[64];
static int nhogs = 0;

static void start_hogs(void) {
    int cores = mt_machine_cpus();
    if (cores > 64) cores = 64;
    for (int i = 0; i < cores; i++) {
        pid_t p = fork();
        CHECK(p >= 0, "fork");
        if (p == 0) {
            /* Rank 0 may be bound to one core: its hogs spread over every core instead. */
            cpu_set_t all;
            CPU_ZERO(&all);
            for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
            sched_setaffinity(0, sizeof all, &all);
            alarm(60); /* never outlives the test */
            for (volatile unsigned long x = 0;; x++) {
            }
        }
        hogs[nhogs++] = p;
    }
}

static void stop_hogs(void) {
    for (int i = 0; i < nhogs; i++) {
        kill(hogs[i], SIGKILL);
        waitpid(hogs[i], NULL, 0);
    }
    nhogs = 0;
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void ring(int rounds) {
    static int buf[BIG];
    const int left = (mt_rank - 1 + mt_size) % mt_size, right = (mt_rank + 1) % mt_size;
    for (int round = 0; round < rounds; round++) {
        const int n = round % 10 == 0 ? BIG : round % 10 == 5 ? 4097 : 1;
        MPI_Status st;
        if (mt_rank == 0) {
            for (int i = 0; i < n; i++) buf[i] = round + i;
            MPI_OK(MPI_Send(buf, n, MPI_INT, right, round, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(buf, n, MPI_INT, left, round, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, round, MPI_INT, n);
            CHECK(buf[0] == round + mt_size - 1, "round %d: token %d want %d", round, buf[0], round + mt_size - 1);
        } else {
            MPI_OK(MPI_Recv(buf, n, MPI_INT, left, round, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, round, MPI_INT, n);
            CHECK(buf[0] == round + mt_rank - 1, "round %d: token %d want %d", round, buf[0], round + mt_rank - 1);
            buf[0]++;
            MPI_OK(MPI_Send(buf, n, MPI_INT, right, round, MPI_COMM_WORLD));
        }
        for (int i = 1; i < n; i++) CHECK(buf[i] == round + i, "round %d: payload[%d] = %d", round, i, buf[i]);
    }
}

static void collectives(int rounds) {
    for (int k = 0; k < rounds; k++) {
        long long v[8];
        const int root = k % mt_size;
        for (int i = 0; i < 8; i++) v[i] = mt_rank == root ? (long long)k * 100 + i : -1;
        MPI_OK(MPI_Bcast(v, 1 + k % 8, MPI_LONG_LONG, root, MPI_COMM_WORLD));
        for (int i = 0; i < 1 + k % 8; i++) CHECK(v[i] == (long long)k * 100 + i, "bcast %d [%d] = %lld", k, i, v[i]);
        double x = (double)(mt_rank + k), y = 0;
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CHECK(y == (double)mt_size * k + (double)mt_size * (mt_size - 1) / 2, "allreduce %d: %g", k, y);
    }
}

static int own_cpus(int *first) {
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
    *first = -1;
    for (int c = 0; c < CPU_SETSIZE && *first < 0; c++)
        if (CPU_ISSET(c, &set)) *first = c;
    return CPU_COUNT(&set);
}

/* Whether this job's ranks bind themselves: RailMPI, RAILMPI_BIND=auto, more ranks than CPUs. */
static int binds_itself(void) {
    int len;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(version, &len));
    const char *mode = getenv("RAILMPI_BIND");
    const int cpus = mt_machine_cpus();
    return strncmp(version, "RailMPI", 7) == 0 && (mode == NULL || strcmp(mode, "auto") == 0) && cpus >= 2 &&
           mt_size > cpus;
}

/* The position of rank r's CPU among c CPUs for n ranks: blocks of consecutive ranks, the first
 * n % c CPUs taking one rank more (the counts of round robin); pairs of consecutive ranks dealt
 * round robin when each CPU gets the same even number of 4 or more. */
static int block_of(int r, int n, int c) {
    const int q = n / c, extra = n % c;
    if (extra == 0 && q >= 4 && q % 2 == 0) return r / 2 % c;
    return r < extra * (q + 1) ? r / (q + 1) : extra + (r - extra * (q + 1)) / q;
}

/* Right after MPI_Init (no wait yet, so no yield could have let go): each rank on one CPU, ranks
 * of one position on the same CPU and ranks of different positions on different ones. */
static void bound_in_blocks(int count, int cpu) {
    const int cpus = mt_machine_cpus();
    int mine[2] = {count, cpu}, *all = malloc(sizeof(int) * 2 * (size_t)mt_size);
    MPI_OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        for (int r = 0; r < mt_size; r++) {
            CHECK(all[2 * r] == 1, "rank %d: %d CPUs in its mask after MPI_Init, want 1", r, all[2 * r]);
            for (int q = 0; q < r; q++) {
                const int same_position = block_of(q, mt_size, cpus) == block_of(r, mt_size, cpus);
                CHECK(same_position == (all[2 * r + 1] == all[2 * q + 1]),
                      "ranks %d and %d on CPUs %d and %d, positions %d and %d", q, r, all[2 * q + 1], all[2 * r + 1],
                      block_of(q, mt_size, cpus), block_of(r, mt_size, cpus));
            }
        }
    }
    free(all);
}

static void waiting_costs_little_cpu(void) {
    int len, token = 0;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(version, &len));
    const int railmpi = strncmp(version, "RailMPI", 7) == 0;
    if (mt_size < 2) return;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        mt_sleep_ms(300);
        for (int r = 1; r < mt_size; r++) MPI_OK(MPI_Send(&r, 1, MPI_INT, r, 7, MPI_COMM_WORLD));
        return;
    }
    const double c0 = cpu_seconds(), w0 = MPI_Wtime();
    MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const double cpu = cpu_seconds() - c0, wall = MPI_Wtime() - w0;
    CHECK(token == mt_rank, "token %d", token);
    if (railmpi) CHECK(cpu < 0.2 * wall, "waited %.3f s beside busy programs and used %.3f s of CPU", wall, cpu);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "oversub_crowded");
    const int rounds = mt_iters(argc, argv, 300);
    int cpu, count = own_cpus(&cpu);
    const int self_bound = binds_itself();
    if (self_bound) bound_in_blocks(count, cpu);
    if (mt_rank == 0) start_hogs();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_size > 1) ring(rounds);
    collectives(rounds);
    if (self_bound) {
        count = own_cpus(&cpu);
        CHECK(count == mt_machine_cpus(), "%d CPUs in the mask after the busy programs ran, want %d", count,
              mt_machine_cpus());
    }
    waiting_costs_little_cpu();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) stop_hogs();
    mt_finish();
    return 0;
}
