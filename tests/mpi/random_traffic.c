/* random_traffic [ROUNDS [SEED]]: point-to-point traffic drawn from a seeded generator, every
 * message checked byte for byte.
 * Every rank draws the same plan from SEED (default 1): each round, each rank sends 0-4 messages
 * to ranks of its choice (itself included), each with a tag of 3, a size from the protocols'
 * boundaries (0, 52-53, 76-77, 112-117, 1 KiB, 6/8/16/32/64 KiB and 1 MiB, each +-1) or random up
 * to 300 KB, a send mode (MPI_Send, MPI_Ssend, MPI_Isend, MPI_Issend) and on either side a
 * contiguous or a strided layout (7-byte blocks 11 bytes apart). The round's receive mode is drawn
 * too:
 *   exact     an MPI_Irecv per message with its source and tag, posted before any send (a receive
 *             may offer more room than the message); blocking sends allowed;
 *   any       MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) once per message, sends nonblocking;
 *   probe     MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG) until a message is there, then MPI_Mrecv
 *             into a buffer of exactly MPI_Get_count's size; sends nonblocking;
 *   anytag    MPI_Irecv(MPI_ANY_SOURCE, tag) per message, posted before any send.
 * Checks: the payload and the status (source, tag, count) of every message; that messages from
 * one source that both match a receive arrive in send order (non-overtaking: in `any` and `probe`
 * every message from a source arrives in its send order, in `anytag` every message of one tag);
 * that the gaps of a strided receive buffer stay untouched. Rank 0 prints the totals. */
#include "mpitest.h"

enum { MAX_PER_RANK = 4, BLOCK = 7, STRIDE = 11, NMODES = 4 };
enum Mode { EXACT, ANY, PROBE, ANYTAG };
static const char *const kModeName[NMODES] = {"exact", "any", "probe", "anytag"};

typedef struct {
    int src, dst, tag, bytes;
    int strided_send, strided_recv, room;  // room: extra bytes the exact receive offers
    int send_mode;                          // 0 MPI_Send, 1 MPI_Ssend, 2 MPI_Isend, 3 MPI_Issend
    unsigned key;                           // seeds the payload
} Msg;

static uint64_t rng_state;
static uint64_t rnd(void) {  // splitmix64
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int draw_size(void) {
    static const int kEdges[] = {0,     1,     2,     7,     8,     52,    53,    63,    64,    65,
                                 76,    77,    112,   116,   117,   128,   1023,  1024,  1025,  2048,
                                 4095,  4096,  4097,  6143,  6144,  6145,  8191,  8192,  8193,  16383,
                                 16384, 16385, 32767, 32768, 32769, 65535, 65536, 65537, 131072, 262145};
    const int n = (int)(sizeof kEdges / sizeof kEdges[0]);
    const uint64_t r = rnd() % 100;
    if (r < 55) return kEdges[rnd() % (uint64_t)n];
    if (r < 85) return (int)(rnd() % 2049);
    if (r < 99) return (int)(rnd() % 300001);
    return (rnd() & 1) ? 1048576 : 1048577;
}

/* Draws round `round`'s messages in send order (by source, then the source's order). */
static int draw_round(int size, int round, Msg *out, int *mode) {
    *mode = (int)(rnd() % NMODES);
    int n = 0;
    for (int s = 0; s < size; s++) {
        const int k = (int)(rnd() % (MAX_PER_RANK + 1));
        for (int j = 0; j < k; j++) {
            Msg m;
            m.src = s;
            m.dst = (int)(rnd() % (uint64_t)size);
            m.tag = (int)(rnd() % 3);
            m.bytes = draw_size();
            m.strided_send = (rnd() % 4) == 0;
            m.strided_recv = *mode == EXACT && (rnd() % 4) == 0;
            if (m.strided_send || m.strided_recv) m.bytes -= m.bytes % BLOCK;
            m.room = *mode == EXACT && !m.strided_recv && (rnd() % 4) == 0 ? (int)(rnd() % 100) : 0;
            m.send_mode = (int)(rnd() % 4);
            if (*mode != EXACT && m.send_mode < 2) m.send_mode += 2;  // receives come after the sends
            m.key = (unsigned)(round * 977 + s * 131 + j * 17) ^ (unsigned)rnd();
            out[n++] = m;
        }
    }
    return n;
}

static MPI_Datatype strided;  // BLOCK bytes, extent STRIDE

/* Span in bytes of `bytes` payload bytes laid out strided (the last block has no gap after). */
static size_t strided_span(int bytes) { return bytes ? (size_t)(bytes / BLOCK - 1) * STRIDE + BLOCK : 0; }

static void pack_strided(unsigned char *dst, const unsigned char *payload, int bytes) {
    for (int b = 0; b < bytes / BLOCK; b++) memcpy(dst + (size_t)b * STRIDE, payload + (size_t)b * BLOCK, BLOCK);
}

/* Checks a received message's payload (contiguous or strided into a buffer that was 0xEE). */
static void check_payload(const Msg *m, const unsigned char *buf, int strided_layout, size_t buf_len, int round) {
    if (!strided_layout) {
        long bad = mt_verify(buf, (size_t)m->bytes, m->key);
        CHECK(bad < 0, "round %d: message %d->%d tag %d %d B: byte %ld wrong", round, m->src, m->dst, m->tag,
              m->bytes, bad);
        for (size_t i = (size_t)m->bytes; i < buf_len; i++)
            CHECK(buf[i] == 0xEE, "round %d: byte %zu after a %d B message was written", round, i, m->bytes);
        return;
    }
    for (size_t i = 0; i < buf_len; i++) {
        const size_t b = i / STRIDE, off = i % STRIDE;
        if (off < BLOCK && b < (size_t)(m->bytes / BLOCK))
            CHECK(buf[i] == mt_pat(b * BLOCK + off, m->key), "round %d: strided message %d->%d %d B: byte %zu wrong",
                  round, m->src, m->dst, m->bytes, b * BLOCK + off);
        else
            CHECK(buf[i] == 0xEE, "round %d: strided message %d->%d %d B: gap byte %zu written", round, m->src, m->dst,
                  m->bytes, i);
    }
}

static void check_status(const Msg *m, const MPI_Status *st, int round) {
    CHECK(st->MPI_SOURCE == m->src, "round %d: status source %d expected %d", round, st->MPI_SOURCE, m->src);
    CHECK(st->MPI_TAG == m->tag, "round %d: status tag %d expected %d (from %d)", round, st->MPI_TAG, m->tag, m->src);
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == m->bytes, "round %d: count %d expected %d (from %d tag %d)", round, count, m->bytes, m->src, m->tag);
}

/* The next message from `src` (with tag `tag`, or any tag when tag < 0) to this rank that is not yet
 * received; marks it received. */
static const Msg *next_from(const Msg *plan, int n, char *got, int src, int tag) {
    for (int i = 0; i < n; i++) {
        if (plan[i].dst != mt_rank || got[i] || plan[i].src != src) continue;
        if (tag >= 0 && plan[i].tag != tag) continue;
        got[i] = 1;
        return &plan[i];
    }
    return NULL;
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "random_traffic");
    const int rounds = mt_iters(argc, argv, 300);
    const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    MPI_Datatype block;
    MPI_OK(MPI_Type_contiguous(BLOCK, MPI_BYTE, &block));
    MPI_OK(MPI_Type_create_resized(block, 0, STRIDE, &strided));
    MPI_OK(MPI_Type_commit(&strided));
    MPI_OK(MPI_Type_free(&block));

    const int cap = mt_size * MAX_PER_RANK;
    Msg *plan = malloc(sizeof(Msg) * (size_t)cap);
    char *got = malloc((size_t)cap);
    unsigned char **sbuf = calloc((size_t)cap, sizeof(unsigned char *));
    unsigned char **rbuf = calloc((size_t)cap, sizeof(unsigned char *));
    size_t *rlen = calloc((size_t)cap, sizeof(size_t));
    int *rmsg = calloc((size_t)cap, sizeof(int));
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)cap);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)cap);
    MPI_Status *rst = malloc(sizeof(MPI_Status) * (size_t)cap);
    CHECK(plan && got && sbuf && rbuf && rlen && rmsg && sreq && rreq && rst, "out of memory");
    long long messages = 0, bytes = 0, per_mode[NMODES] = {0};
    rng_state = seed;

    for (int round = 0; round < rounds; round++) {
        int mode;
        const int n = draw_round(mt_size, round, plan, &mode);
        memset(got, 0, (size_t)n);
        int ns = 0, nr = 0, max_in = 0;
        // Payloads of this rank's sends, laid out as sent.
        for (int i = 0; i < n; i++) {
            const Msg *m = &plan[i];
            if (m->dst == mt_rank) {
                nr++;
                if (m->bytes > max_in) max_in = m->bytes;
            }
            if (m->src != mt_rank) continue;
            unsigned char *p = malloc((size_t)m->bytes + 1);
            CHECK(p, "out of memory");
            mt_fill(p, (size_t)m->bytes, m->key);
            if (m->strided_send) {
                unsigned char *q = malloc(strided_span(m->bytes) + 1);
                CHECK(q, "out of memory");
                memset(q, 0x55, strided_span(m->bytes) + 1);
                pack_strided(q, p, m->bytes);
                free(p);
                p = q;
            }
            sbuf[i] = p;
        }
        // Exact and anytag receives are posted before any send.
        int posted = 0;
        if (mode == EXACT || mode == ANYTAG) {
            for (int i = 0; i < n; i++) {
                const Msg *m = &plan[i];
                if (m->dst != mt_rank) continue;
                if (mode == EXACT) {
                    rlen[posted] = m->strided_recv ? strided_span(m->bytes) : (size_t)(m->bytes + m->room);
                } else {
                    rlen[posted] = (size_t)max_in;
                }
                rbuf[posted] = malloc(rlen[posted] + 1);
                CHECK(rbuf[posted], "out of memory");
                memset(rbuf[posted], 0xEE, rlen[posted] + 1);
                rmsg[posted] = i;
                if (mode == EXACT && m->strided_recv)
                    MPI_OK(MPI_Irecv(rbuf[posted], m->bytes / BLOCK, strided, m->src, m->tag, MPI_COMM_WORLD,
                                     &rreq[posted]));
                else if (mode == EXACT)
                    MPI_OK(MPI_Irecv(rbuf[posted], m->bytes + m->room, MPI_BYTE, m->src, m->tag, MPI_COMM_WORLD,
                                     &rreq[posted]));
                else
                    MPI_OK(MPI_Irecv(rbuf[posted], max_in, MPI_BYTE, MPI_ANY_SOURCE, m->tag, MPI_COMM_WORLD,
                                     &rreq[posted]));
                posted++;
            }
        }
        // Sends, in plan order.
        for (int i = 0; i < n; i++) {
            const Msg *m = &plan[i];
            if (m->src != mt_rank) continue;
            const int count = m->strided_send ? m->bytes / BLOCK : m->bytes;
            const MPI_Datatype t = m->strided_send ? strided : MPI_BYTE;
            switch (m->send_mode) {
            case 0: MPI_OK(MPI_Send(sbuf[i], count, t, m->dst, m->tag, MPI_COMM_WORLD)); break;
            case 1: MPI_OK(MPI_Ssend(sbuf[i], count, t, m->dst, m->tag, MPI_COMM_WORLD)); break;
            case 2: MPI_OK(MPI_Isend(sbuf[i], count, t, m->dst, m->tag, MPI_COMM_WORLD, &sreq[ns++])); break;
            default: MPI_OK(MPI_Issend(sbuf[i], count, t, m->dst, m->tag, MPI_COMM_WORLD, &sreq[ns++])); break;
            }
        }
        // Receives.
        if (mode == EXACT) {
            MPI_OK(MPI_Waitall(posted, rreq, rst));
            for (int r = 0; r < posted; r++) {
                const Msg *m = &plan[rmsg[r]];
                check_status(m, &rst[r], round);
                check_payload(m, rbuf[r], m->strided_recv, rlen[r], round);
            }
        } else if (mode == ANYTAG) {
            MPI_OK(MPI_Waitall(posted, rreq, rst));
            // Receives of one tag were posted in order: each takes its source's next message of that tag.
            for (int r = 0; r < posted; r++) {
                const int tag = plan[rmsg[r]].tag;
                CHECK(rst[r].MPI_TAG == tag, "round %d: receive for tag %d got tag %d", round, tag, rst[r].MPI_TAG);
                const Msg *m = next_from(plan, n, got, rst[r].MPI_SOURCE, tag);
                CHECK(m != NULL, "round %d: unexpected message from %d tag %d", round, rst[r].MPI_SOURCE, tag);
                check_status(m, &rst[r], round);
                check_payload(m, rbuf[r], 0, rlen[r], round);
            }
        } else {
            unsigned char *buf = malloc((size_t)max_in + 1);
            CHECK(buf, "out of memory");
            for (int r = 0; r < nr; r++) {
                MPI_Status st;
                size_t len = (size_t)max_in;
                memset(buf, 0xEE, (size_t)max_in + 1);
                if (mode == ANY) {
                    MPI_OK(MPI_Recv(buf, max_in, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                } else {
                    int flag = 0, count = -1;
                    MPI_Message msg = MPI_MESSAGE_NULL;
                    while (!flag) MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
                    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                    CHECK(count >= 0 && count <= max_in, "round %d: probed count %d", round, count);
                    len = (size_t)count;
                    MPI_OK(MPI_Mrecv(buf, count, MPI_BYTE, &msg, &st));
                    CHECK(msg == MPI_MESSAGE_NULL, "round %d: MPI_Mrecv left the message handle set", round);
                }
                // Every message from a source matches: they come in its send order.
                const Msg *m = next_from(plan, n, got, st.MPI_SOURCE, -1);
                CHECK(m != NULL, "round %d: unexpected message from %d", round, st.MPI_SOURCE);
                check_status(m, &st, round);
                check_payload(m, buf, 0, len, round);
                bytes += m->bytes;
            }
            free(buf);
        }
        MPI_OK(MPI_Waitall(ns, sreq, MPI_STATUSES_IGNORE));
        for (int r = 0; r < posted; r++) {
            bytes += plan[rmsg[r]].bytes;
            free(rbuf[r]);
        }
        for (int i = 0; i < n; i++) {
            free(sbuf[i]);
            sbuf[i] = NULL;
        }
        messages += nr;
        per_mode[mode] += nr;
        // A wildcard receive of this round must not meet a message of the next one.
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    long long totals[2 + NMODES] = {messages, bytes, per_mode[0], per_mode[1], per_mode[2], per_mode[3]}, sums[2 + NMODES];
    MPI_OK(MPI_Reduce(totals, sums, 2 + NMODES, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        printf("random_traffic: %d rounds, %lld messages, %lld bytes (", rounds, sums[0], sums[1]);
        for (int k = 0; k < NMODES; k++) printf("%s%s %lld", k ? ", " : "", kModeName[k], sums[2 + k]);
        printf(")\n");
        if (mt_size > 1) CHECK(sums[0] > rounds, "only %lld messages in %d rounds", sums[0], rounds);
    }
    MPI_OK(MPI_Type_free(&strided));
    free(plan), free(got), free(sbuf), free(rbuf), free(rlen), free(rmsg), free(sreq), free(rreq), free(rst);
    return mt_finish();
}
