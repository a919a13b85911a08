/* bsend: MPI_Buffer_attach, several MPI_Bsend / MPI_Ibsend sent before the
 * receiver posts anything, MPI_Buffer_detach returns the attached buffer and
 * size (after delivery); a Bsend larger than the attached buffer, and a
 * Bsend with no buffer attached, fail with error class MPI_ERR_BUFFER under
 * MPI_ERRORS_RETURN. Pairs; an unpaired rank uses itself. */
#include "mpitest.h"

#define NB 8
#define NI 4
#define MLEN 1000 /* ints */

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "bsend");
    int p = mt_partner();
    int psz = 0;
    MPI_OK(MPI_Pack_size(MLEN, MPI_INT, MPI_COMM_WORLD, &psz));
    int bsize = (NB + NI) * (psz + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));

    int *msgs = malloc(sizeof(int) * MLEN * (NB + NI));
    for (int m = 0; m < NB + NI; m++)
        for (int i = 0; i < MLEN; i++) msgs[m * MLEN + i] = mt_rank * 100000 + m * 1000 + i;
    for (int m = 0; m < NB; m++) MPI_OK(MPI_Bsend(msgs + m * MLEN, MLEN, MPI_INT, p, m, MPI_COMM_WORLD));
    MPI_Request rq[NI];
    for (int m = NB; m < NB + NI; m++)
        MPI_OK(MPI_Ibsend(msgs + m * MLEN, MLEN, MPI_INT, p, m, MPI_COMM_WORLD, &rq[m - NB]));
    /* Ibsend completes locally once buffered: Waitall must not need the receiver */
    MPI_OK(MPI_Waitall(NI, rq, MPI_STATUSES_IGNORE));
    /* the user buffer may be reused right away */
    for (int i = 0; i < MLEN * (NB + NI); i++) msgs[i] = -7;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int *r = malloc(sizeof(int) * MLEN);
    for (int m = NB + NI - 1; m >= 0; m--) { /* reverse tag order */
        MPI_Status st;
        MPI_OK(MPI_Recv(r, MLEN, MPI_INT, p, m, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, m, MPI_INT, MLEN);
        for (int i = 0; i < MLEN; i++)
            CHECK(r[i] == p * 100000 + m * 1000 + i, "message %d element %d = %d", m, i, r[i]);
    }
    void *det = NULL;
    int detsize = -1;
    MPI_OK(MPI_Buffer_detach(&det, &detsize));
    CHECK(det == bbuf && detsize == bsize, "Buffer_detach returned %p/%d, attached %p/%d", det, detsize,
          (void *)bbuf, bsize);

    /* errors */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int big[4000];
    for (int i = 0; i < 4000; i++) big[i] = i;
    int rc = MPI_Bsend(big, 4000, MPI_INT, p, 900, MPI_COMM_WORLD);
    mt_check_error_class(rc, MPI_ERR_BUFFER, "Bsend with no buffer attached");
    int small = 1000 + MPI_BSEND_OVERHEAD;
    char *sbuf = malloc((size_t)small);
    MPI_OK(MPI_Buffer_attach(sbuf, small));
    rc = MPI_Bsend(big, 4000, MPI_INT, p, 901, MPI_COMM_WORLD);
    mt_check_error_class(rc, MPI_ERR_BUFFER, "Bsend of 16000 B into a 1000 B buffer");
    /* a message that fits still works after the failure */
    int one = 42 + mt_rank, got = 0;
    MPI_OK(MPI_Bsend(&one, 1, MPI_INT, p, 902, MPI_COMM_WORLD));
    MPI_Status st;
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, p, 902, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, p, 902, MPI_INT, 1);
    CHECK(got == 42 + p, "small Bsend after error: %d", got);
    MPI_OK(MPI_Buffer_detach(&det, &detsize));
    CHECK(det == sbuf && detsize == small, "second detach returned %p/%d", det, detsize);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 0;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failed Bsend delivered a message (source %d tag %d)", st.MPI_SOURCE, st.MPI_TAG);
    free(sbuf);
    free(bbuf);
    free(msgs);
    free(r);
    return mt_finish();
}
