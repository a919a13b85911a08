/* short_path: the short-message path of MPI_Send (a frame that fits one ring cell is written
 * straight from the call, without a request) at and around its boundaries, and its order with
 * frames that wait in the device's queue.
 *  1. Every size 0..80 B, each sent three times with one tag (the 2nd and 3rd repeat the
 *     envelope: cached 4-byte header, one cell up to 44 B) and then with a new tag each time
 *     (full 40-byte header, one cell up to 8 B); every byte, the status and a guard checked.
 *  2. Order: rank 0 fills the ring to rank 1 with non-blocking 8 KiB sends (they wait in the
 *     device's queue once the ring is full), then sends 200 small messages with MPI_Send on the
 *     same tag; rank 1 starts receiving only after a barrier and must see every message in the
 *     order it was sent (a small send that went past the queue would arrive first).
 *  3. Pair line: ranks 2k and 2k+1 play ping-pong with 0-60 B messages (up to 48 B go through
 *     the line the pair shares once the other side watches it), the roles swapping every 100 rounds
 *     and the tag every 50 (a full header does not fit the line: the ring takes it); every 7th
 *     round the first side sends a burst after its message: 4 B, 8 KiB (MPI_Isend), 8 B, 100 B,
 *     received with MPI_ANY_TAG. Every message's bytes come from its sequence number in its
 *     direction, so one that overtook another fails the byte check, the count or the tag.
 * Ranks 0 and 1 take part in 1 and 2; other ranks only join the barriers. */
#include "mpitest.h"

#define GUARD 16
#define MAXSZ 80
#define BIG 8192
#define NBIG 96
#define NSMALL 200

static void check_msg(const unsigned char *r, int n, unsigned seed, const MPI_Status *st, int src, int tag) {
    CHECK_STATUS(*st, src, tag, MPI_BYTE, n);
    long bad = mt_verify(r, (size_t)n, seed);
    CHECK(bad < 0, "size %d tag %d: byte %ld is 0x%02x, expected 0x%02x", n, tag, bad, r[bad < 0 ? 0 : bad],
          mt_pat((size_t)(bad < 0 ? 0 : bad), seed));
    for (int g = 0; g < GUARD; g++) CHECK(r[n + g] == 0xEE, "size %d: receive wrote past the message at +%d", n, g);
}

static void sizes_part(void) {
    unsigned char s[MAXSZ + GUARD], r[MAXSZ + GUARD];
    int peer = 1 - mt_rank;
    int fresh_tag = 100;
    for (int n = 0; n <= MAXSZ; n++) {
        for (int k = 0; k < 6; k++) {
            int tag = k < 3 ? 7 : fresh_tag++;
            unsigned seed = (unsigned)(n * 16 + k);
            MPI_Status st;
            if (mt_rank == 0) {
                mt_fill(s, (size_t)n, seed);
                MPI_OK(MPI_Send(s, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                memset(r, 0xEE, sizeof r);
                MPI_OK(MPI_Recv(r, n + GUARD, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                check_msg(r, n, seed + 7777u, &st, peer, tag);
            } else {
                memset(r, 0xEE, sizeof r);
                MPI_OK(MPI_Recv(r, n + GUARD, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                check_msg(r, n, seed, &st, peer, tag);
                mt_fill(s, (size_t)n, seed + 7777u);
                MPI_OK(MPI_Send(s, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
            }
        }
    }
}

static void order_part(void) {
    int tag = 3;
    if (mt_rank == 0) {
        unsigned char *big = malloc((size_t)NBIG * BIG);
        CHECK(big != NULL, "malloc");
        MPI_Request rq[NBIG];
        for (int i = 0; i < NBIG; i++) {
            mt_fill(big + (size_t)i * BIG, BIG, (unsigned)i);
            MPI_OK(MPI_Isend(big + (size_t)i * BIG, BIG, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq[i]));
        }
        for (int i = 0; i < NSMALL; i++) {
            int v[4] = {i, i * 3, -i, 12345};
            MPI_OK(MPI_Send(v, 1 + i % 4, MPI_INT, 1, tag, MPI_COMM_WORLD));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Status sts[NBIG];
        MPI_OK(MPI_Waitall(NBIG, rq, sts));
        free(big);
    } else if (mt_rank == 1) {
        unsigned char *r = malloc(BIG);
        CHECK(r != NULL, "malloc");
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < NBIG; i++) {
            MPI_Status st;
            MPI_OK(MPI_Recv(r, BIG, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, 0, tag, MPI_BYTE, BIG);
            long bad = mt_verify(r, BIG, (unsigned)i);
            CHECK(bad < 0, "8 KiB message %d arrived out of order or damaged (byte %ld)", i, bad);
        }
        for (int i = 0; i < NSMALL; i++) {
            int v[4] = {-1, -1, -1, -1};
            MPI_Status st;
            MPI_OK(MPI_Recv(v, 4, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, 0, tag, MPI_INT, 1 + i % 4);
            CHECK(v[0] == i, "small message %d arrived as %d", i, v[0]);
            if (i % 4 >= 1) CHECK(v[1] == i * 3, "small message %d: second int %d", i, v[1]);
        }
        free(r);
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

static void send_seq(unsigned char *buf, int n, int peer, int tag, unsigned *seq, MPI_Request *rq) {
    mt_fill(buf, (size_t)n, 9000u + *seq);
    ++*seq;
    if (rq) MPI_OK(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, rq));
    else MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
}

static void recv_seq(unsigned char *buf, int n, int peer, int tag, unsigned *seq) {
    MPI_Status st;
    memset(buf, 0xEE, (size_t)n + GUARD);
    MPI_OK(MPI_Recv(buf, BIG, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, tag, MPI_BYTE, n);
    long bad = mt_verify(buf, (size_t)n, 9000u + *seq);
    CHECK(bad < 0, "message %u from rank %d (%d B): byte %ld wrong (overtaken or damaged)", *seq, peer, n, bad);
    ++*seq;
}

static void pair_line_part(void) {
    const int peer = mt_rank ^ 1;
    if (peer >= mt_size) return;
    enum { ROUNDS = 3000 };
    unsigned char *s = malloc(BIG), *s2 = malloc(BIG), *r = malloc(BIG + GUARD);
    CHECK(s && s2 && r, "malloc");
    unsigned out = 0, in = 0;
    for (int i = 0; i < ROUNDS; i++) {
        const int first = (i / 100) % 2 == 0 ? (mt_rank & ~1) : (mt_rank | 1);
        const int tag = (i / 50) % 3, burst = i % 7 == 3;
        if (mt_rank == first) {
            send_seq(s, (i * 7) % 113, peer, tag, &out, NULL);
            if (burst) {
                MPI_Request rq;
                send_seq(s, 4, peer, tag, &out, NULL);
                send_seq(s2, BIG, peer, tag, &out, &rq);
                send_seq(s, 8, peer, tag, &out, NULL);
                send_seq(s, 100, peer, tag, &out, NULL);
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            }
            recv_seq(r, i % 113, peer, tag, &in);
        } else {
            recv_seq(r, (i * 7) % 113, peer, tag, &in);
            if (burst) {
                recv_seq(r, 4, peer, tag, &in);
                recv_seq(r, BIG, peer, tag, &in);
                recv_seq(r, 8, peer, tag, &in);
                recv_seq(r, 100, peer, tag, &in);
            }
            send_seq(s, i % 113, peer, tag, &out, NULL);
        }
    }
    free(s);
    free(s2);
    free(r);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "short_path");
    CHECK(mt_size >= 2, "needs 2 ranks, has %d", mt_size);
    if (mt_rank < 2) sizes_part();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    order_part();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    pair_line_part();
    return mt_finish();
}
