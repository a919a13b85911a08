/* Shared helpers for the RailMPI MPI integration tests (tests/mpi).
 * Each test is a self-checking MPI program: on any failure it prints
 * "FAIL [rank R] <test> file:line: ..." to stderr and aborts the job with a
 * non-zero exit; on success rank 0 prints "PASS <test>" after MPI_Finalize. */
#ifndef RAILMPI_TESTS_MPITEST_H
#define RAILMPI_TESTS_MPITEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep, alarm with -std=c11 */
#endif
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int mt_rank = -1;
static int mt_size = 0;
static const char *mt_name = "?";

static __attribute__((unused)) void mt_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
static __attribute__((unused)) void mt_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
    fprintf(stderr, "FAIL [rank %d] %s %s:%d: (%s) ", mt_rank, mt_name, file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    int ini = 0, fin = 0;
    MPI_Initialized(&ini);
    MPI_Finalized(&fin);
    if (ini && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

/* CHECK(cond, fmt, ...): fmt is mandatory. */
#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) mt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);    \
    } while (0)

#define MPI_OK(call)                                                              \
    do {                                                                          \
        int mt_rc_ = (call);                                                      \
        if (mt_rc_ != MPI_SUCCESS) {                                              \
            char mt_s_[MPI_MAX_ERROR_STRING];                                     \
            int mt_l_ = 0;                                                        \
            mt_s_[0] = 0;                                                         \
            MPI_Error_string(mt_rc_, mt_s_, &mt_l_);                              \
            mt_fail(__FILE__, __LINE__, #call, "returned %d (%s)", mt_rc_, mt_s_); \
        }                                                                         \
    } while (0)

static __attribute__((unused)) void mt_watchdog(int sig) {
    (void)sig;
    char buf[128];
    int n = snprintf(buf, sizeof buf, "FAIL [rank %d] %s: watchdog timeout (test hung)\n", mt_rank, mt_name);
    if (n > 0) {
        ssize_t w = write(2, buf, (size_t)n);
        (void)w;
    }
    _exit(2);
}

/* Per-process watchdog: MT_TIMEOUT seconds (default 50, 0 disables) so a hung
 * rank reports itself before the launcher's own timeout. */
static __attribute__((unused)) void mt_arm_watchdog(void) {
    const char *e = getenv("MT_TIMEOUT");
    int secs = e ? atoi(e) : 50;
    if (secs > 0) {
        signal(SIGALRM, mt_watchdog);
        alarm((unsigned)secs);
    }
}

static __attribute__((unused)) void mt_init(int *argc, char ***argv, const char *name) {
    mt_name = name;
    mt_arm_watchdog();
    MPI_OK(MPI_Init(argc, argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
}

/* CPUs the ranks on this machine share: RAILMPI_MACHINE_CPUS, which RailMPI's mpiexec sets (a rank
 * it bound to a core sees one CPU in its own mask), else this process's affinity mask. */
static __attribute__((unused)) int mt_machine_cpus(void) {
    const char *given = getenv("RAILMPI_MACHINE_CPUS");
    if (given != NULL && atoi(given) > 0) return atoi(given);
    cpu_set_t cpus;
    return sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
}

static __attribute__((unused)) int mt_finish(void) {
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    if (mt_rank == 0) {
        printf("PASS %s\n", mt_name);
        fflush(stdout);
    }
    return 0;
}

/* Optional first command-line argument: an iteration count overriding the
 * test's default (used by run_mpich.sh to shorten runs under a busy-polling
 * reference MPI when oversubscribed). */
static __attribute__((unused)) int mt_iters(int argc, char **argv, int dflt) {
    if (argc > 1 && atoi(argv[1]) > 0) return atoi(argv[1]);
    return dflt;
}

/* Option "-m BYTES": the largest message a test sends (the sanitizer build's runs are shorter),
 * else `dflt`. */
static __attribute__((unused)) size_t mt_max_bytes(int argc, char **argv, size_t dflt) {
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-m")) return (size_t)atol(argv[i + 1]);
    return dflt;
}

/* Checks source, tag and element count of a status. */
#define CHECK_STATUS(st, src, tag, dtype, count)                                             \
    do {                                                                                     \
        int mt_c_ = -12345;                                                                  \
        MPI_OK(MPI_Get_count(&(st), (dtype), &mt_c_));                                       \
        CHECK((st).MPI_SOURCE == (src), "status.MPI_SOURCE=%d expected %d", (st).MPI_SOURCE, \
              (int)(src));                                                                   \
        CHECK((st).MPI_TAG == (tag), "status.MPI_TAG=%d expected %d", (st).MPI_TAG, (int)(tag)); \
        CHECK(mt_c_ == (count), "MPI_Get_count=%d expected %d", mt_c_, (int)(count));        \
    } while (0)

/* Byte pattern depending on position and a seed. */
static inline unsigned char mt_pat(size_t i, unsigned seed) {
    return (unsigned char)((i * 131u + (i >> 9) + seed * 29u + 7u) & 0xffu);
}

static __attribute__((unused)) void mt_fill(void *buf, size_t n, unsigned seed) {
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++) p[i] = mt_pat(i, seed);
}

/* Returns index of the first mismatching byte, or -1. */
static __attribute__((unused)) long mt_verify(const void *buf, size_t n, unsigned seed) {
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_pat(i, seed)) return (long)i;
    return -1;
}

static __attribute__((unused)) void mt_sleep_ms(int ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Partner for pairwise tests: 0<->1, 2<->3, ...; an unpaired last rank (odd
 * size, including size 1) is its own partner. */
static __attribute__((unused)) int mt_partner(void) {
    int p = mt_rank ^ 1;
    return p < mt_size ? p : mt_rank;
}

static __attribute__((unused)) void mt_check_error_class(int rc, int expected, const char *what) {
    int cls = -1;
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, expected error class %d", what, expected);
    MPI_OK(MPI_Error_class(rc, &cls));
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    s[0] = 0;
    MPI_OK(MPI_Error_string(rc, s, &len));
    CHECK(cls == expected, "%s: error class %d expected %d (code %d: %s)", what, cls, expected, rc, s);
    CHECK(len > 0 && (size_t)len == strlen(s), "%s: error string empty or length mismatch (%d)", what,
          len);
}

#endif
