/* noncontig_recv: sends from and receives into non-contiguous datatypes (the library moves them
 * without staging copies where it can: receives scatter into the user's buffer, a single-copy
 * receiver reads the sender's runs): a column block of a matrix (vector), an indexed type with
 * uneven blocks, a struct with gaps, a resized type repeated with a negative-stride hvector inside,
 * an indexed type with 100 blocks (more than a rendezvous request describes). Sizes cover eager, single-copy rendezvous and packet rendezvous; blocking, non-blocking,
 * persistent, mprobe/mrecv, sendrecv, partial receives (message shorter than the buffer), and
 * bytes outside the type's blocks must stay untouched. Pairs 0<->1, 2<->3, ... */
#include "mpitest.h"

enum { NCOLS_MAX = 4096 };

/* Expected content of receive buffer `rb` (n bytes) after receiving `bytes` of pattern `seed`
 * into count elements of type t, starting from a buffer filled with 0xEE: pack the pattern through
 * the type with MPI_Unpack into a reference buffer. */
static void reference(unsigned char *ref, size_t n, size_t before, MPI_Datatype t, size_t bytes, unsigned seed) {
    memset(ref, 0xEE, n);
    unsigned char *packed = malloc(bytes ? bytes : 1);
    mt_fill(packed, bytes, seed);
    int tsize;
    MPI_OK(MPI_Type_size(t, &tsize));
    /* Unpack whole elements, then the partial last one by hand through a bigger count is not
     * possible with MPI_Unpack; so only whole elements are compared by this helper. */
    int whole = tsize ? (int)(bytes / (size_t)tsize) : 0;
    int pos = 0;
    if (whole) MPI_OK(MPI_Unpack(packed, (int)bytes, &pos, ref + before, whole, t, MPI_COMM_SELF));
    free(packed);
}

static void check_same(const unsigned char *a, const unsigned char *b, size_t n, const char *what, size_t bytes) {
    for (size_t i = 0; i < n; i++)
        CHECK(a[i] == b[i], "%s (%zu bytes): byte %zu is %d expected %d", what, bytes, i, a[i], b[i]);
}

typedef struct {
    const char *name;
    MPI_Datatype type;
    size_t before; /* bytes the type reaches below its buffer pointer (negative offsets) */
} case_t;

static void one_case(const case_t *c, int partner, long elements, int seed) {
    int tsize;
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_size(c->type, &tsize));
    MPI_OK(MPI_Type_get_extent(c->type, &lb, &extent));
    const size_t bytes = (size_t)tsize * (size_t)elements;
    const size_t n = c->before + (size_t)extent * (size_t)elements + 64;
    unsigned char *rbuf = malloc(n), *ref = malloc(n), *src = malloc(n);
    unsigned char *rb = rbuf + c->before; /* what the receive is given */
    /* The sender sends `elements` of the same type from src, whose type bytes hold the pattern. */
    reference(ref, n, c->before, c->type, bytes, (unsigned)seed);
    memcpy(src, ref, n);
    const unsigned char *sb = src + c->before;
    const int sender = mt_rank < partner;
    MPI_Status st;
    for (int mode = 0; mode < 6; mode++) {
        memset(rbuf, 0xEE, n);
        const int tag = 100 + mode;
        if (sender) {
            if (mode == 4) { /* sendrecv: both sides send and receive */
                MPI_OK(MPI_Sendrecv(sb, (int)elements, c->type, partner, tag, rb, (int)elements, c->type, partner, tag,
                                    MPI_COMM_WORLD, &st));
            } else if (mode == 5) { /* partial: half the elements arrive */
                MPI_OK(MPI_Send(sb, (int)(elements / 2), c->type, partner, tag, MPI_COMM_WORLD));
                continue;
            } else {
                MPI_OK(MPI_Send(sb, (int)elements, c->type, partner, tag, MPI_COMM_WORLD));
                continue;
            }
        } else {
            MPI_Request rq;
            MPI_Message msg;
            switch (mode) {
            case 0: MPI_OK(MPI_Recv(rb, (int)elements, c->type, partner, tag, MPI_COMM_WORLD, &st)); break;
            case 1:
                MPI_OK(MPI_Irecv(rb, (int)elements, c->type, partner, tag, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Wait(&rq, &st));
                break;
            case 2:
                MPI_OK(MPI_Recv_init(rb, (int)elements, c->type, partner, tag, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Start(&rq));
                MPI_OK(MPI_Wait(&rq, &st));
                MPI_OK(MPI_Request_free(&rq));
                break;
            case 3:
                MPI_OK(MPI_Mprobe(partner, tag, MPI_COMM_WORLD, &msg, &st));
                MPI_OK(MPI_Imrecv(rb, (int)elements, c->type, &msg, &rq));
                MPI_OK(MPI_Wait(&rq, &st));
                break;
            case 4:
                MPI_OK(MPI_Sendrecv(sb, (int)elements, c->type, partner, tag, rb, (int)elements, c->type, partner, tag,
                                    MPI_COMM_WORLD, &st));
                break;
            case 5: MPI_OK(MPI_Recv(rb, (int)elements, c->type, partner, tag, MPI_COMM_WORLD, &st)); break;
            }
        }
        const size_t got = mode == 5 ? (size_t)(elements / 2) * (size_t)tsize : bytes;
        int count;
        MPI_OK(MPI_Get_count(&st, c->type, &count));
        CHECK(count == (mode == 5 ? (int)(elements / 2) : (int)elements), "%s mode %d: %d elements received", c->name,
              mode, count);
        if (mode == 5) reference(ref, n, c->before, c->type, got, (unsigned)seed);
        char what[96];
        snprintf(what, sizeof what, "%s x %ld mode %d", c->name, elements, mode);
        check_same(rbuf, ref, n, what, got);
        if (mode == 5) reference(ref, n, c->before, c->type, bytes, (unsigned)seed);
    }
    free(rbuf);
    free(ref);
    free(src);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "noncontig_recv");
    const size_t max_bytes = mt_max_bytes(argc, argv, (size_t)256 << 20);
    const int partner = mt_partner();
    if (partner != mt_rank) {
        /* A column block: 64 ints of each of ROWS rows of a ROWS x 8192 int matrix. */
        case_t cases[6];
        MPI_Datatype column;
        MPI_OK(MPI_Type_vector(16, 64, 8192, MPI_INT, &column));
        MPI_OK(MPI_Type_commit(&column));
        cases[0] = (case_t){"vector 16x64 ints stride 8192", column, 0};
        int bl[3] = {3, 1, 7}, disp[3] = {0, 5, 9};
        MPI_Datatype idx;
        MPI_OK(MPI_Type_indexed(3, bl, disp, MPI_DOUBLE, &idx));
        MPI_OK(MPI_Type_commit(&idx));
        cases[1] = (case_t){"indexed doubles", idx, 0};
        int sbl[3] = {1, 3, 2};
        MPI_Aint sdisp[3] = {0, 8, 40};
        MPI_Datatype stypes[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE}, st;
        MPI_OK(MPI_Type_create_struct(3, sbl, sdisp, stypes, &st));
        MPI_OK(MPI_Type_commit(&st));
        cases[2] = (case_t){"struct char,3 int,2 double", st, 0};
        /* Negative stride inside, resized outside: element k's blocks go backwards. */
        MPI_Datatype back, backr;
        MPI_OK(MPI_Type_create_hvector(4, 2, -24, MPI_INT, &back));
        MPI_OK(MPI_Type_create_resized(back, 0, 112, &backr));
        MPI_OK(MPI_Type_commit(&backr));
        cases[3] = (case_t){"resized hvector stride -24", backr, 72};
        /* More blocks than a rendezvous request describes: the sender's device gathers them. */
        int mbl[100], mdisp[100];
        for (int i = 0, at = 0; i < 100; i++) {
            mbl[i] = 1 + i % 3;
            mdisp[i] = at;
            at += mbl[i] + 1 + i % 2;
        }
        MPI_Datatype many;
        MPI_OK(MPI_Type_indexed(100, mbl, mdisp, MPI_INT, &many));
        MPI_OK(MPI_Type_commit(&many));
        cases[4] = (case_t){"indexed 100 blocks", many, 0};
        /* Page-sized runs: single copy goes straight between the two non-contiguous buffers. */
        MPI_Datatype wide;
        MPI_OK(MPI_Type_vector(3, 2048, 3000, MPI_INT, &wide));
        MPI_OK(MPI_Type_commit(&wide));
        cases[5] = (case_t){"vector 3x2048 ints stride 3000", wide, 0};
        const long sizes[] = {1, 3, 64, 1000, 20000};
        int seed = 1;
        for (int c = 0; c < 6; c++) {
            for (int s = 0; s < 5; s++) {
                MPI_Aint lb, ext;
                int tsize;
                MPI_OK(MPI_Type_get_extent(cases[c].type, &lb, &ext));
                MPI_OK(MPI_Type_size(cases[c].type, &tsize));
                long elements = sizes[s];
                if ((size_t)ext * (size_t)elements > ((size_t)256 << 20)) continue;
                if ((size_t)tsize * (size_t)elements > max_bytes) continue;
                one_case(&cases[c], partner, elements, seed++);
            }
        }
        MPI_OK(MPI_Type_free(&column));
        MPI_OK(MPI_Type_free(&idx));
        MPI_OK(MPI_Type_free(&st));
        MPI_OK(MPI_Type_free(&back));
        MPI_OK(MPI_Type_free(&backr));
        MPI_OK(MPI_Type_free(&many));
        MPI_OK(MPI_Type_free(&wide));
    }
    return mt_finish();
}
