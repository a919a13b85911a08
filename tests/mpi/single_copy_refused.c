/* single_copy_refused readv|writev|both|readv_rank1: the kernel refuses the single copies after
 * MPI_Init (a seccomp filter makes process_vm_readv, process_vm_writev or both fail with EPERM, as a
 * ptrace policy or a security module would for a peer it no longer lets this rank touch), and
 * every rendezvous still arrives whole, with its status, without a hang. The paths of a refused
 * copy: a whole read that fails goes to the shared copy or to packets; a refused tail read of a
 * shared copy makes the sender stream (its `written` comes first and, when its write failed too,
 * is answered with the extra fin it then waits for); a refused write makes the receiver read the
 * head and send a second fin. Checked: 2 ranks one way (40000 B, 64 KiB, 1 MiB + 13, receive
 * posted or not), both ways at once (1 MiB MPI_Sendrecv; windows of 16 messages of 16 KiB and
 * 32 KiB + 7 each way, read in batches; one way, windows of 40000 B and 64 KiB + 3, shared
 * copies in batches), 2-rank 64 KiB bcasts, 2-rank allreduces of 16-64 KiB, and that the
 * refused calls were made (rank 1 reads, rank 0 writes; the writes only with a core per rank,
 * where large one-way messages go by shared copy; with readv_rank1 only rank 1's reads are
 * refused, so the two ranks' copies fail differently). x86-64 only (the filter's architecture);
 * elsewhere the transfers run without a filter. Other ranks idle. */
#include "mpitest.h"

#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <ucontext.h>
#define REFUSES 1
#else
#define REFUSES 0
#endif

static volatile sig_atomic_t refused_reads, refused_writes;

#if REFUSES
/* The trapped call does not run: it returns -EPERM to the library. */
static void on_sigsys(int sig, siginfo_t *si, void *context) {
    (void)sig;
    ucontext_t *uc = context;
    if (si->si_syscall == SYS_process_vm_readv) refused_reads++;
    if (si->si_syscall == SYS_process_vm_writev) refused_writes++;
    uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

static void refuse(int reads, int writes) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSYS, &sa, NULL) == 0, "sigaction(SIGSYS)");
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, reads ? SECCOMP_RET_TRAP : SECCOMP_RET_ALLOW),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, writes ? SECCOMP_RET_TRAP : SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
    /* every thread of the process (TSYNC), should the library run one */
    CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0, "seccomp: %s",
          strerror(errno));
}
#endif

static unsigned char pattern(long i, unsigned seed) { return (unsigned char)((i * 131 + seed) % 251 + 1); }

static void fill(unsigned char *b, long n, unsigned seed) {
    for (long i = 0; i < n; i++) b[i] = pattern(i, seed);
}

static void expect(const unsigned char *b, long n, unsigned seed, const char *what) {
    for (long i = 0; i < n; i++)
        CHECK(b[i] == pattern(i, seed), "%s, %ld B: byte %ld is %d, expected %d", what, n, i, b[i], pattern(i, seed));
}

/* Rank 0 sends n bytes to rank 1; the receive is posted before the send starts, or after. */
static void one_way(long n, unsigned seed, int posted_first, unsigned char *s, unsigned char *r) {
    if (mt_rank == 1) {
        MPI_Request rq;
        MPI_Status st;
        memset(r, 0, (size_t)n);
        if (posted_first) MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (!posted_first) {
            mt_sleep_ms(20); /* the rts waits unexpected */
            MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq));
        }
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK_STATUS(st, 0, 3, MPI_BYTE, (int)n);
        expect(r, n, seed, posted_first ? "one way, posted first" : "one way, posted late");
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (mt_rank == 0) {
            fill(s, n, seed);
            MPI_OK(MPI_Send(s, (int)n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
        }
    }
}

static void both_ways(long n, unsigned seed, unsigned char *s, unsigned char *r) {
    if (mt_rank > 1) return;
    const int peer = 1 - mt_rank;
    MPI_Status st;
    fill(s, n, seed + (unsigned)mt_rank);
    memset(r, 0, (size_t)n);
    MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, peer, 4, r, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, 4, MPI_BYTE, (int)n);
    expect(r, n, seed + (unsigned)peer, "both ways");
}

/* osu_bibw's shape: ranks 0 and 1 post `count` receives, then send `count` messages of n bytes,
 * each message its own buffer: the receiver's batched read of them is refused, then each read. */
static void window_both_ways(long n, int count, unsigned seed, unsigned char *s, unsigned char *r) {
    if (mt_rank > 1) return;
    const int peer = 1 - mt_rank;
    MPI_Request rq[64];
    MPI_Status st[64];
    CHECK(count <= 32, "window of %d", count);
    memset(r, 0, (size_t)(count * n));
    for (int w = 0; w < count; w++)
        MPI_OK(MPI_Irecv(r + w * n, (int)n, MPI_BYTE, peer, 30 + w, MPI_COMM_WORLD, &rq[w]));
    for (int w = 0; w < count; w++) {
        fill(s + w * n, n, seed + 3u * (unsigned)mt_rank + (unsigned)w);
        MPI_OK(MPI_Isend(s + w * n, (int)n, MPI_BYTE, peer, 30 + w, MPI_COMM_WORLD, &rq[count + w]));
    }
    MPI_OK(MPI_Waitall(2 * count, rq, st));
    for (int w = 0; w < count; w++) {
        CHECK_STATUS(st[w], peer, 30 + w, MPI_BYTE, (int)n);
        expect(r + w * n, n, seed + 3u * (unsigned)peer + (unsigned)w, "window both ways");
    }
}

/* osu_bw's shape: rank 1 posts `count` receives, rank 0 sends `count` messages of n bytes, each
 * its own buffer, and overwrites them once its sends complete: with a core per rank, shared
 * copies whose batched reads and writes are refused, then each made another way. */
static void window_one_way(long n, int count, unsigned seed, unsigned char *s, unsigned char *r) {
    MPI_Request rq[32];
    MPI_Status st[32];
    CHECK(count <= 32, "window of %d", count);
    if (mt_rank == 1) {
        memset(r, 0, (size_t)(count * n));
        for (int w = 0; w < count; w++)
            MPI_OK(MPI_Irecv(r + w * n, (int)n, MPI_BYTE, 0, 50 + w, MPI_COMM_WORLD, &rq[w]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        for (int w = 0; w < count; w++) {
            fill(s + w * n, n, seed + (unsigned)w);
            MPI_OK(MPI_Isend(s + w * n, (int)n, MPI_BYTE, 1, 50 + w, MPI_COMM_WORLD, &rq[w]));
        }
        MPI_OK(MPI_Waitall(count, rq, MPI_STATUSES_IGNORE));
        memset(s, 0xee, (size_t)(count * n));
    } else if (mt_rank == 1) {
        MPI_OK(MPI_Waitall(count, rq, st));
        for (int w = 0; w < count; w++) {
            CHECK_STATUS(st[w], 0, 50 + w, MPI_BYTE, (int)n);
            expect(r + w * n, n, seed + (unsigned)w, "window one way");
        }
    }
}

static void pair_bcasts(long n, unsigned char *b) {
    MPI_Comm pair;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank < 2 ? 0 : MPI_UNDEFINED, mt_rank, &pair));
    if (pair == MPI_COMM_NULL) return;
    for (unsigned k = 0; k < 5; k++) {
        if (mt_rank == 0) fill(b, n, 40 + k);
        else memset(b, 0, (size_t)n);
        MPI_OK(MPI_Bcast(b, (int)n, MPI_BYTE, 0, pair));
        expect(b, n, 40 + k, "bcast");
    }
    MPI_OK(MPI_Comm_free(&pair));
}

/* 2-rank allreduces large enough for RailMPI's pair_allreduce (each rank reads the other's input
 * for its half and writes its result into the other's receive buffer): with the copies refused,
 * each half still arrives through the node's shared region. Doubles (sums of integers, exact),
 * in place and not, at the pair path's smallest size and above; bytes with BOR, an odd size. */
static void pair_allreduces(int reads, int writes) {
    const int refused_before = refused_reads + refused_writes;
    MPI_Comm pair;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank < 2 ? 0 : MPI_UNDEFINED, mt_rank, &pair));
    if (pair == MPI_COMM_NULL) return;
    enum { MOST = 8192 };
    static double in[MOST], out[MOST];
    const int counts[] = {2048, 5000, 8192};
    for (int c = 0; c < 3; c++) {
        for (int in_place = 0; in_place <= 1; in_place++) {
            const int n = counts[c];
            for (int i = 0; i < n; i++) {
                in[i] = (double)(i * 3 + mt_rank * 1000 + c);
                out[i] = in_place ? in[i] : -1;
            }
            MPI_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_DOUBLE, MPI_SUM, pair));
            for (int i = 0; i < n; i++)
                CHECK(out[i] == (double)(i * 6 + 1000 + 2 * c), "allreduce of %d doubles%s: element %d is %g, expected %d",
                      n, in_place ? " in place" : "", i, out[i], i * 6 + 1000 + 2 * c);
            if (!in_place)
                for (int i = 0; i < n; i++) CHECK(in[i] == (double)(i * 3 + mt_rank * 1000 + c), "send buffer changed");
        }
    }
    static unsigned char bin[16385], bout[16385];
    for (int i = 0; i < 16385; i++) {
        bin[i] = (unsigned char)(1u << ((i + mt_rank) % 8));
        bout[i] = 0;
    }
    MPI_OK(MPI_Allreduce(bin, bout, 16385, MPI_BYTE, MPI_BOR, pair));
    for (int i = 0; i < 16385; i++) {
        const unsigned char want = (unsigned char)((1u << (i % 8)) | (1u << ((i + 1) % 8)));
        CHECK(bout[i] == want, "allreduce BOR of 16385 bytes: byte %d is %d, expected %d", i, bout[i], want);
    }
    MPI_OK(MPI_Comm_free(&pair));
    /* with a core per rank and a call taken to cost under 0.8 us (RAILMPI_SHM_CMA_CALL_NS; the
     * region's cells are faster where it costs more) the pair path was taken: the refused copies
     * were its own */
    const char *call_ns = getenv("RAILMPI_SHM_CMA_CALL_NS");
    if (REFUSES && (reads || writes) && mt_size <= mt_machine_cpus() && call_ns && atoi(call_ns) < 800)
        CHECK(refused_reads + refused_writes > refused_before, "the allreduces made no single copy");
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "single_copy_refused");
    CHECK(argc == 2 && (!strcmp(argv[1], "readv") || !strcmp(argv[1], "writev") || !strcmp(argv[1], "both") ||
                        !strcmp(argv[1], "readv_rank1")),
          "usage: single_copy_refused readv|writev|both|readv_rank1");
    /* readv_rank1: only rank 1's reads are refused (the two ranks' copies fail differently) */
    const int one = !strcmp(argv[1], "readv_rank1");
    const int reads = strcmp(argv[1], "writev") != 0 && (!one || mt_rank == 1);
    const int writes = strcmp(argv[1], "readv") != 0 && !one;
#if REFUSES
    if (reads || writes) refuse(reads, writes);
#endif
    const long most = 1048576 + 13;
    unsigned char *s = malloc((size_t)most), *r = malloc((size_t)most);
    CHECK(s && r, "malloc");
    if (mt_size >= 2) {
        const long sizes[] = {40000, 65536, 1048576 + 13};
        for (int i = 0; i < 3; i++)
            for (int posted_first = 1; posted_first >= 0; posted_first--)
                one_way(sizes[i], (unsigned)(i * 2 + posted_first), posted_first, s, r);
        both_ways(1048576, 20, s, r);
        window_both_ways(16384, 16, 60, s, r);
        window_both_ways(32768 + 7, 16, 61, s, r);
        window_one_way(40000, 16, 62, s, r);
        window_one_way(65536 + 3, 12, 63, s, r);
        pair_bcasts(65536, r);
        pair_allreduces(reads, writes);
#if REFUSES
        /* The library's figures: single copy on (the probe at MPI_Init passed); with a core per
         * rank large one-way messages are shared copies (the sender writes), else read whole. */
        if (mt_rank == 1 && reads) CHECK(refused_reads > 0, "rank 1 made no process_vm_readv");
        if (mt_rank == 0 && writes && mt_size <= mt_machine_cpus())
            CHECK(refused_writes > 0, "rank 0 made no process_vm_writev");
        if (!reads) CHECK(refused_reads == 0, "process_vm_readv refused %d times", (int)refused_reads);
        if (!writes) CHECK(refused_writes == 0, "process_vm_writev refused %d times", (int)refused_writes);
#endif
    }
    free(s);
    free(r);
    return mt_finish();
}
