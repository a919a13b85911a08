/* noncontig_send: sends FROM non-contiguous datatypes, which the library moves without packing them
 * on the sender (the device gathers eager frames and rendezvous packets from the runs; a single-copy
 * receiver reads runs of a page or more itself). Types: a vector of 12-byte runs, an indexed type
 * with uneven blocks, a struct with gaps, a resized type with a negative-stride hvector inside, a
 * vector of 8 KiB runs, an indexed type with 100 blocks. Sizes from 100 bytes to 1.5 MB (eager,
 * rendezvous, several packets). Every size goes three ways, NMSG messages each:
 *   0: many outstanding Isend/Issend against pre-posted receives;
 *   1: blocking MPI_Send, received late (unexpected messages);
 *   2: Isend all, received in reverse order.
 * Even messages are received contiguous (MPI_BYTE, compared with MPI_Pack of the source), odd ones
 * with the same type (compared byte for byte, the gaps must stay untouched). Pairs 0<->1, 2<->3,
 * ... both ways; an unpaired rank sends to itself. */
#include "mpitest.h"

enum { NMSG = 6 };

typedef struct {
    const char *name;
    MPI_Datatype type;
    size_t before; /* bytes the type reaches below its buffer pointer (negative offsets) */
} case_t;

typedef struct {
    long elements;
    size_t bytes, span;
    unsigned char *src[NMSG];    /* send buffers (span bytes; the type starts at + before) */
    unsigned char *packed[NMSG]; /* MPI_Pack of each source */
    unsigned char *ref[NMSG];    /* a typed receive buffer after receiving message k */
    unsigned char *rbuf;         /* receive buffer (span bytes, or bytes for contiguous) */
} msgs_t;

static void prepare(msgs_t *m, const case_t *c, long elements, unsigned seed) {
    int tsize;
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_size(c->type, &tsize));
    MPI_OK(MPI_Type_get_extent(c->type, &lb, &extent));
    m->elements = elements;
    m->bytes = (size_t)tsize * (size_t)elements;
    m->span = c->before + (size_t)extent * (size_t)elements + 64;
    m->rbuf = malloc(m->span > m->bytes ? m->span : m->bytes);
    for (int k = 0; k < NMSG; k++) {
        m->src[k] = malloc(m->span);
        m->packed[k] = malloc(m->bytes ? m->bytes : 1);
        m->ref[k] = malloc(m->span);
        mt_fill(m->src[k], m->span, seed * 16u + (unsigned)k);
        int pos = 0;
        MPI_OK(MPI_Pack(m->src[k] + c->before, (int)elements, c->type, m->packed[k], (int)m->bytes, &pos,
                        MPI_COMM_SELF));
        CHECK((size_t)pos == m->bytes, "%s: packed %d bytes, expected %zu", c->name, pos, m->bytes);
        memset(m->ref[k], 0xEE, m->span);
        pos = 0;
        MPI_OK(MPI_Unpack(m->packed[k], (int)m->bytes, &pos, m->ref[k] + c->before, (int)elements, c->type,
                          MPI_COMM_SELF));
    }
}

static void release(msgs_t *m) {
    for (int k = 0; k < NMSG; k++) {
        free(m->src[k]);
        free(m->packed[k]);
        free(m->ref[k]);
    }
    free(m->rbuf);
}

static int tag_of(int way, int k) { return way * 100 + k; }

static MPI_Request start_send(const msgs_t *m, const case_t *c, int way, int k, int to) {
    MPI_Request rq;
    void *b = m->src[k] + c->before;
    if (k % 3 == 1)
        MPI_OK(MPI_Issend(b, (int)m->elements, c->type, to, tag_of(way, k), MPI_COMM_WORLD, &rq));
    else
        MPI_OK(MPI_Isend(b, (int)m->elements, c->type, to, tag_of(way, k), MPI_COMM_WORLD, &rq));
    return rq;
}

/* Receive buffers are per message in way 0 (all posted at once), shared otherwise. */
static unsigned char *recv_buffer(msgs_t *m, int way, int k, unsigned char **own) {
    if (way != 0) return m->rbuf;
    own[k] = malloc(m->span > m->bytes ? m->span : m->bytes);
    return own[k];
}

static MPI_Request start_recv(msgs_t *m, const case_t *c, int way, int k, int from, unsigned char *buf) {
    MPI_Request rq;
    if (k % 2 == 0) {
        MPI_OK(MPI_Irecv(buf, (int)m->bytes, MPI_BYTE, from, tag_of(way, k), MPI_COMM_WORLD, &rq));
    } else {
        memset(buf, 0xEE, m->span);
        MPI_OK(MPI_Irecv(buf + c->before, (int)m->elements, c->type, from, tag_of(way, k), MPI_COMM_WORLD, &rq));
    }
    return rq;
}

static void check_recv(const msgs_t *m, const case_t *c, int way, int k, const unsigned char *buf,
                       const MPI_Status *st) {
    int count;
    if (k % 2 == 0) {
        MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
        CHECK((size_t)count == m->bytes, "%s x %ld way %d msg %d: %d bytes received", c->name, m->elements, way, k,
              count);
        for (size_t i = 0; i < m->bytes; i++)
            CHECK(buf[i] == m->packed[k][i], "%s x %ld way %d msg %d (contiguous): byte %zu is %d expected %d",
                  c->name, m->elements, way, k, i, buf[i], m->packed[k][i]);
    } else {
        MPI_OK(MPI_Get_count(st, c->type, &count));
        CHECK(count == (int)m->elements, "%s x %ld way %d msg %d: %d elements received", c->name, m->elements, way,
              k, count);
        for (size_t i = 0; i < m->span; i++)
            CHECK(buf[i] == m->ref[k][i], "%s x %ld way %d msg %d (typed): byte %zu is %d expected %d", c->name,
                  m->elements, way, k, i, buf[i], m->ref[k][i]);
    }
}

/* One way of NMSG messages from `from` to `to` (either may be this rank, or both). */
static void one_way(msgs_t *m, const case_t *c, int way, int from, int to) {
    MPI_Request sends[NMSG], recvs[NMSG];
    MPI_Status st[NMSG];
    unsigned char *own[NMSG] = {0};
    const int sending = mt_rank == from, receiving = mt_rank == to;
    if (receiving && way == 0)
        for (int k = 0; k < NMSG; k++) recvs[k] = start_recv(m, c, way, k, from, recv_buffer(m, way, k, own));
    if (sending) {
        if (way == 1 && !receiving) {
            for (int k = 0; k < NMSG; k++)
                MPI_OK(MPI_Send(m->src[k] + c->before, (int)m->elements, c->type, to, tag_of(way, k), MPI_COMM_WORLD));
        } else {
            for (int k = 0; k < NMSG; k++) sends[k] = start_send(m, c, way, k, to);
        }
    }
    if (receiving) {
        if (way == 0) {
            MPI_OK(MPI_Waitall(NMSG, recvs, st));
            for (int k = 0; k < NMSG; k++) check_recv(m, c, way, k, own[k], &st[k]);
        } else {
            if (!sending) mt_sleep_ms(5); /* let the messages arrive unexpected */
            for (int i = 0; i < NMSG; i++) {
                const int k = way == 2 ? NMSG - 1 - i : i;
                MPI_Request rq = start_recv(m, c, way, k, from, m->rbuf);
                MPI_OK(MPI_Wait(&rq, &st[k]));
                check_recv(m, c, way, k, m->rbuf, &st[k]);
            }
        }
    }
    if (sending && !(way == 1 && !receiving)) {
        MPI_Status sent[NMSG]; /* not MPI_STATUSES_IGNORE: GCC 12 warns about the (MPI_Status *)1 */
        MPI_OK(MPI_Waitall(NMSG, sends, sent));
    }
    for (int k = 0; k < NMSG; k++) free(own[k]);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "noncontig_send");
    const size_t max_bytes = mt_max_bytes(argc, argv, 1500000); /* the tiny-ring variant keeps it short */
    const int partner = mt_partner();
    case_t cases[6];
    MPI_Datatype short_runs, idx, st, back, backr, wide, many;
    MPI_OK(MPI_Type_vector(4, 3, 7, MPI_INT, &short_runs));
    MPI_OK(MPI_Type_commit(&short_runs));
    cases[0] = (case_t){"vector 4x3 ints stride 7", short_runs, 0};
    int bl[3] = {3, 1, 7}, disp[3] = {0, 5, 9};
    MPI_OK(MPI_Type_indexed(3, bl, disp, MPI_DOUBLE, &idx));
    MPI_OK(MPI_Type_commit(&idx));
    cases[1] = (case_t){"indexed doubles", idx, 0};
    int sbl[3] = {1, 3, 2};
    MPI_Aint sdisp[3] = {0, 8, 40};
    MPI_Datatype stypes[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
    MPI_OK(MPI_Type_create_struct(3, sbl, sdisp, stypes, &st));
    MPI_OK(MPI_Type_commit(&st));
    cases[2] = (case_t){"struct char,3 int,2 double", st, 0};
    MPI_OK(MPI_Type_create_hvector(4, 2, -24, MPI_INT, &back));
    MPI_OK(MPI_Type_create_resized(back, 0, 112, &backr));
    MPI_OK(MPI_Type_commit(&backr));
    cases[3] = (case_t){"resized hvector stride -24", backr, 72};
    MPI_OK(MPI_Type_vector(3, 2048, 3000, MPI_INT, &wide));
    MPI_OK(MPI_Type_commit(&wide));
    cases[4] = (case_t){"vector 3x2048 ints stride 3000", wide, 0};
    int mbl[100], mdisp[100];
    for (int i = 0, at = 0; i < 100; i++) {
        mbl[i] = 1 + i % 3;
        mdisp[i] = at;
        at += mbl[i] + 1 + i % 2;
    }
    MPI_OK(MPI_Type_indexed(100, mbl, mdisp, MPI_INT, &many));
    MPI_OK(MPI_Type_commit(&many));
    cases[5] = (case_t){"indexed 100 blocks", many, 0};

    const size_t targets[] = {100, 12000, 60000, 300000, 1500000};
    unsigned seed = 1;
    for (int c = 0; c < 6; c++) {
        int tsize;
        MPI_OK(MPI_Type_size(cases[c].type, &tsize));
        size_t last = 0;
        for (int s = 0; s < 5 && targets[s] <= max_bytes; s++) {
            long elements = (long)(targets[s] / (size_t)tsize);
            if (elements < 1) elements = 1;
            if ((size_t)tsize * (size_t)elements == last) continue; /* same as the last size */
            last = (size_t)tsize * (size_t)elements;
            msgs_t m;
            prepare(&m, &cases[c], elements, seed++);
            for (int way = 0; way < 3; way++) {
                /* Both directions of the pair (the lower rank first); an unpaired rank to itself. */
                const int lo = mt_rank < partner ? mt_rank : partner, hi = mt_rank < partner ? partner : mt_rank;
                one_way(&m, &cases[c], way, lo, hi);
                if (lo != hi) one_way(&m, &cases[c], way, hi, lo);
            }
            release(&m);
        }
    }
    MPI_OK(MPI_Type_free(&short_runs));
    MPI_OK(MPI_Type_free(&idx));
    MPI_OK(MPI_Type_free(&st));
    MPI_OK(MPI_Type_free(&back));
    MPI_OK(MPI_Type_free(&backr));
    MPI_OK(MPI_Type_free(&wide));
    MPI_OK(MPI_Type_free(&many));
    return mt_finish();
}
