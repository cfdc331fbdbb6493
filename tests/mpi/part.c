/* tests/mpi/part.c — MPI 4.0 partitioned communication: equal and different partition counts,
 * Pready in forward, reverse, random order and by range/list, many epochs with new data,
 * per-partition MPI_Parrived, several requests in flight (init-order matching), derived types,
 * Pready from several threads, PROC_NULL, self, Request_free, errors and size mismatches.
 * Every rank sends to the next rank of a ring and receives from the previous one. */
#include <pthread.h>

#include "testutil.h"

static int rank, size, next, prev;

static int val(int src, int epoch, unsigned salt, int i)
{
    return (int)(((unsigned)src * 1000003u) ^ ((unsigned)epoch * 7919u) ^ (salt * 104729u) ^
                 ((unsigned)i * 2654435761u));
}

static void shuffle(int *a, int n, unsigned *seed)
{
    for (int i = n - 1; i > 0; i--) {
        *seed = *seed * 1103515245u + 12345u;
        int j = (int)((*seed >> 8) % (unsigned)(i + 1));
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

enum { ORD_FWD, ORD_REV, ORD_RANDOM, ORD_RANGE, ORD_LIST, ORD_N };

/* Marks all sp partitions of s ready in the given order. */
static void ready_all(MPI_Request s, int sp, int order, unsigned *seed)
{
    int *perm = tu_xmalloc((size_t)sp * sizeof(int));
    for (int i = 0; i < sp; i++)
        perm[i] = i;
    switch (order) {
    case ORD_FWD:
        for (int i = 0; i < sp; i++)
            MPI_OK(MPI_Pready(i, s));
        break;
    case ORD_REV:
        for (int i = sp - 1; i >= 0; i--)
            MPI_OK(MPI_Pready(i, s));
        break;
    case ORD_RANDOM:
        shuffle(perm, sp, seed);
        for (int i = 0; i < sp; i++)
            MPI_OK(MPI_Pready(perm[i], s));
        break;
    case ORD_RANGE: /* upper half first, then the lower */
        if (sp / 2 < sp)
            MPI_OK(MPI_Pready_range(sp / 2, sp - 1, s));
        if (sp / 2 > 0)
            MPI_OK(MPI_Pready_range(0, sp / 2 - 1, s));
        break;
    default: /* a shuffled list, in two pieces */
        shuffle(perm, sp, seed);
        MPI_OK(MPI_Pready_list(sp / 3, perm, s));
        MPI_OK(MPI_Pready_list(sp - sp / 3, perm + sp / 3, s));
        break;
    }
    free(perm);
}

/* total ints from next/prev as sp send and rp receive partitions, `epochs` times with new data;
 * the receiver polls MPI_Parrived until every partition is in, checking each one's data as soon
 * as it says so. */
static void run_basic(int sp, int rp, int total, int order, int epochs, int tag)
{
    int *sb = tu_xmalloc((size_t)total * sizeof(int)), *rb = tu_xmalloc((size_t)total * sizeof(int));
    MPI_Request r[2];
    MPI_OK(MPI_Precv_init(rb, rp, total / rp, MPI_INT, prev, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Psend_init(sb, sp, total / sp, MPI_INT, next, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    unsigned seed = 12345u + (unsigned)rank * 77u + (unsigned)order;
    int *seen = tu_xmalloc((size_t)rp * sizeof(int));
    for (int e = 0; e < epochs; e++) {
        for (int i = 0; i < total; i++) {
            sb[i] = val(rank, e, (unsigned)tag, i);
            rb[i] = -1;
        }
        if (e % 2)
            MPI_OK(MPI_Startall(2, r));
        else {
            MPI_OK(MPI_Start(&r[1]));
            MPI_OK(MPI_Start(&r[0]));
        }
        ready_all(r[1], sp, (order + e) % ORD_N, &seed);
        memset(seen, 0, (size_t)rp * sizeof(int));
        int left = rp;
        while (left > 0) {
            for (int j = 0; j < rp; j++) {
                if (seen[j])
                    continue;
                int flag = 0;
                MPI_OK(MPI_Parrived(r[0], j, &flag));
                if (!flag)
                    continue;
                seen[j] = 1;
                left--;
                int per = total / rp;
                for (int i = j * per; i < (j + 1) * per; i++)
                    CHECK(rb[i] == val(prev, e, (unsigned)tag, i),
                          "sp %d rp %d epoch %d: partition %d said arrived but int %d is %d", sp,
                          rp, e, j, i, rb[i]);
            }
        }
        MPI_Status st[2];
        MPI_OK(MPI_Waitall(2, r, st));
        for (int i = 0; i < total; i++)
            CHECK(rb[i] == val(prev, e, (unsigned)tag, i), "sp %d rp %d order %d epoch %d: int %d is %d",
                  sp, rp, order, e, i, rb[i]);
        int cnt = -1;
        MPI_OK(MPI_Get_count(&st[0], MPI_INT, &cnt));
        CHECK(st[0].MPI_SOURCE == prev && st[0].MPI_TAG == tag && cnt == total,
              "status source %d tag %d count %d, expected %d %d %d", st[0].MPI_SOURCE,
              st[0].MPI_TAG, cnt, prev, tag, total);
        /* Inactive again: Parrived says 1, a second Wait is a no-op. */
        int flag = 0;
        MPI_OK(MPI_Parrived(r[0], 0, &flag));
        CHECK(flag == 1, "Parrived on an inactive request gave 0");
    }
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "Request_free left a handle");
    free(sb);
    free(rb);
    free(seen);
}

/* Only the first half of the send partitions is made ready until the receiver has seen its first
 * half arrive and checked that its second half has not (no data for it was released yet). */
static void run_staged(int sp, int rp, int total)
{
    int *sb = tu_xmalloc((size_t)total * sizeof(int)), *rb = tu_xmalloc((size_t)total * sizeof(int));
    MPI_Request r[2];
    MPI_OK(MPI_Precv_init(rb, rp, total / rp, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Psend_init(sb, sp, total / sp, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    for (int e = 0; e < 3; e++) {
        for (int i = 0; i < total; i++) {
            sb[i] = val(rank, e, 99, i);
            rb[i] = -1;
        }
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Pready_range(0, sp / 2 - 1, r[1]));
        for (int j = 0; j < rp / 2; j++) {
            int flag = 0;
            while (!flag)
                MPI_OK(MPI_Parrived(r[0], j, &flag));
            int per = total / rp;
            for (int i = j * per; i < (j + 1) * per; i++)
                CHECK(rb[i] == val(prev, e, 99, i), "staged: int %d is %d", i, rb[i]);
        }
        for (int j = rp / 2; j < rp; j++) {
            int flag = -1;
            MPI_OK(MPI_Parrived(r[0], j, &flag));
            CHECK(flag == 0, "staged sp %d rp %d: partition %d arrived before its data was ready",
                  sp, rp, j);
        }
        int t = 0, go = 1;
        CHECK(total / rp * (rp / 2) < total, "staged setup");
        MPI_OK(MPI_Sendrecv(&go, 1, MPI_INT, prev, 77, &t, 1, MPI_INT, next, 77, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        MPI_OK(MPI_Pready_range(sp / 2, sp - 1, r[1]));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < total; i++)
            CHECK(rb[i] == val(prev, e, 99, i), "staged epoch %d: int %d is %d", e, i, rb[i]);
    }
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
    free(sb);
    free(rb);
}

/* Several in flight between the same pair: tags 10, 11, 12 initialized in opposite orders on the
 * two sides, then three with the same tag 20, started in a scrambled order. */
static void run_many(void)
{
    enum { N = 6, TOT = 24 };
    int sb[N][TOT], rb[N][TOT];
    MPI_Request s[N], r[N];
    int stag[N] = {12, 11, 10, 20, 20, 20};
    int rtag[N] = {10, 11, 12, 20, 20, 20};
    for (int k = 0; k < N; k++)
        MPI_OK(MPI_Psend_init(sb[k], 4, TOT / 4, MPI_INT, next, stag[k], MPI_COMM_WORLD,
                              MPI_INFO_NULL, &s[k]));
    for (int k = 0; k < N; k++)
        MPI_OK(MPI_Precv_init(rb[k], 3, TOT / 3, MPI_INT, prev, rtag[k], MPI_COMM_WORLD,
                              MPI_INFO_NULL, &r[k]));
    for (int e = 0; e < 3; e++) {
        /* Send k (tag stag[k], and its rank among the same tag) carries salt stag*10 + order. */
        for (int k = 0; k < N; k++)
            for (int i = 0; i < TOT; i++) {
                sb[k][i] = val(rank, e, (unsigned)(stag[k] * 10 + (k >= 3 ? k - 3 : 0)), i);
                rb[k][i] = -1;
            }
        int sorder[N] = {5, 3, 0, 4, 1, 2}, rorder[N] = {2, 4, 3, 1, 5, 0};
        for (int k = 0; k < N; k++)
            MPI_OK(MPI_Start(&r[rorder[(k + e) % N]]));
        for (int k = 0; k < N; k++) {
            MPI_OK(MPI_Start(&s[sorder[(k + e) % N]]));
            MPI_OK(MPI_Pready_range(0, 3, s[sorder[(k + e) % N]]));
        }
        MPI_OK(MPI_Waitall(N, s, MPI_STATUSES_IGNORE));
        MPI_OK(MPI_Waitall(N, r, MPI_STATUSES_IGNORE));
        for (int k = 0; k < N; k++)
            for (int i = 0; i < TOT; i++)
                CHECK(rb[k][i] == val(prev, e, (unsigned)(rtag[k] * 10 + (k >= 3 ? k - 3 : 0)), i),
                      "many: receive %d (tag %d) epoch %d int %d is %d: matched the wrong send", k,
                      rtag[k], e, i, rb[k][i]);
    }
    for (int k = 0; k < N; k++) {
        MPI_OK(MPI_Request_free(&s[k]));
        MPI_OK(MPI_Request_free(&r[k]));
    }
}

/* A strided type on the send side (every other int), plain ints on the receive side, and a
 * strided type on the receive side with plain ints sent. */
static void run_derived(void)
{
    enum { SP = 4, PER = 6, TOT = SP * PER };
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(PER, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int sb[2 * TOT], rb[TOT], sb2[TOT], rb2[2 * TOT];
    MPI_Request r[4];
    MPI_OK(MPI_Psend_init(sb, SP, 1, vec, next, 30, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Precv_init(rb, 3, TOT / 3, MPI_INT, prev, 30, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Psend_init(sb2, 6, TOT / 6, MPI_INT, next, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    MPI_OK(MPI_Precv_init(rb2, 2, 2, vec, prev, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
    MPI_OK(MPI_Type_free(&vec)); /* the requests keep it */
    for (int e = 0; e < 2; e++) {
        /* vec's extent is 2*PER-1 ints: element k of the send starts at int k*(2*PER-1). */
        for (int i = 0; i < 2 * TOT; i++) {
            sb[i] = val(rank, e, 1000, i);
            rb2[i] = -7;
        }
        for (int i = 0; i < TOT; i++) {
            sb2[i] = val(rank, e, 2000, i);
            rb[i] = -1;
        }
        MPI_OK(MPI_Startall(4, r));
        MPI_OK(MPI_Pready_list(4, (int[]){3, 1, 0, 2}, r[0]));
        for (int i = 5; i >= 0; i--)
            MPI_OK(MPI_Pready(i, r[2]));
        MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        for (int k = 0; k < SP; k++)
            for (int m = 0; m < PER; m++)
                CHECK(rb[k * PER + m] == val(prev, e, 1000, k * (2 * PER - 1) + 2 * m),
                      "derived send: int %d is %d", k * PER + m, rb[k * PER + m]);
        for (int k = 0; k < 4; k++)
            for (int m = 0; m < 2 * PER - 1; m++) {
                int at = k * (2 * PER - 1) + m;
                int want = m % 2 ? -7 : val(prev, e, 2000, k * PER + m / 2);
                CHECK(rb2[at] == want, "derived receive: int %d is %d, expected %d", at, rb2[at], want);
            }
    }
    for (int k = 0; k < 4; k++)
        MPI_OK(MPI_Request_free(&r[k]));
}

/* MPI_Pready from several threads, each its own slice of the partitions, in reverse order. */
enum { TH = 4, TH_PARTS = 32, TH_PER = 5 };
static MPI_Request th_req;
static void *th_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = TH_PARTS - 1 - t; i >= 0; i -= TH)
        MPI_OK(MPI_Pready(i, th_req));
    return NULL;
}

static void run_threads(void)
{
    int sb[TH_PARTS * TH_PER], rb[TH_PARTS * TH_PER];
    MPI_Request rr;
    MPI_OK(MPI_Precv_init(rb, 2, TH_PARTS * TH_PER / 2, MPI_INT, prev, 40, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &rr));
    MPI_OK(MPI_Psend_init(sb, TH_PARTS, TH_PER, MPI_INT, next, 40, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &th_req));
    for (int e = 0; e < 5; e++) {
        for (int i = 0; i < TH_PARTS * TH_PER; i++) {
            sb[i] = val(rank, e, 4000, i);
            rb[i] = -1;
        }
        MPI_OK(MPI_Start(&rr));
        MPI_OK(MPI_Start(&th_req));
        pthread_t th[TH];
        for (int t = 0; t < TH; t++)
            CHECK(pthread_create(&th[t], NULL, th_main, (void *)(intptr_t)t) == 0, "pthread_create");
        MPI_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE)); /* while the threads mark partitions ready */
        for (int t = 0; t < TH; t++)
            pthread_join(th[t], NULL);
        MPI_OK(MPI_Wait(&th_req, MPI_STATUS_IGNORE));
        for (int i = 0; i < TH_PARTS * TH_PER; i++)
            CHECK(rb[i] == val(prev, e, 4000, i), "threads epoch %d: int %d is %d", e, i, rb[i]);
    }
    MPI_OK(MPI_Request_free(&rr));
    MPI_OK(MPI_Request_free(&th_req));
}

/* MPI_PROC_NULL on both sides, a send to self on MPI_COMM_SELF, a pair freed without a start. */
static void run_special(void)
{
    int a[4] = {1, 2, 3, 4}, b[4] = {9, 9, 9, 9};
    MPI_Request s, r;
    MPI_Status st;
    MPI_OK(MPI_Psend_init(a, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(b, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Pready_range(0, 1, s));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && b[0] == 9, "PROC_NULL receive: source %d b[0] %d",
          st.MPI_SOURCE, b[0]);
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));

    /* self: the receive started first, then the send; partitions arrive one by one */
    MPI_OK(MPI_Precv_init(b, 4, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Psend_init(a, 2, 2, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &s));
    for (int e = 0; e < 3; e++) {
        for (int i = 0; i < 4; i++) {
            a[i] = 10 * e + i;
            b[i] = -1;
        }
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Start(&s));
        MPI_OK(MPI_Pready(1, s));
        int f2 = 0, f0 = 1;
        while (!f2)
            MPI_OK(MPI_Parrived(r, 2, &f2));
        MPI_OK(MPI_Parrived(r, 0, &f0));
        CHECK(f0 == 0 && b[2] == 10 * e + 2 && b[3] == 10 * e + 3 && b[0] == -1,
              "self: partition 0 %d, b %d %d %d", f0, b[0], b[2], b[3]);
        MPI_OK(MPI_Pready(0, s));
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&r, &st));
        for (int i = 0; i < 4; i++)
            CHECK(b[i] == 10 * e + i, "self epoch %d: b[%d] = %d", e, i, b[i]);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 3, "self status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    }
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));

    /* never started (MPICH's part/no_start) */
    MPI_OK(MPI_Psend_init(a, 1, 1, MPI_INT, next, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(b, 1, 1, MPI_INT, prev, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));
}

#define EXPECT_CLASS(call, cls)                                                                    \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(tu_class(rc_) == (cls), "%s gave class %d, expected %s", #call, tu_class(rc_), #cls); \
    } while (0)

static void run_errors(void)
{
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)); /* MPI_REQUEST_NULL's */
    int a[8], b[8];
    MPI_Request s, r;
    EXPECT_CLASS(MPI_Precv_init(b, 2, 4, MPI_INT, MPI_ANY_SOURCE, 0, c, MPI_INFO_NULL, &r), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Precv_init(b, 2, 4, MPI_INT, prev, MPI_ANY_TAG, c, MPI_INFO_NULL, &r), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Psend_init(a, -1, 4, MPI_INT, next, 0, c, MPI_INFO_NULL, &s), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Psend_init(a, 2, -4, MPI_INT, next, 0, c, MPI_INFO_NULL, &s), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Psend_init(a, 2, 4, MPI_INT, size, 0, c, MPI_INFO_NULL, &s), MPI_ERR_RANK);
    MPI_OK(MPI_Psend_init(a, 4, 2, MPI_INT, next, 0, c, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(b, 2, 4, MPI_INT, prev, 0, c, MPI_INFO_NULL, &r));
    EXPECT_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST); /* inactive */
    EXPECT_CLASS(MPI_Pready_range(0, 3, s), MPI_ERR_REQUEST);
    for (int i = 0; i < 8; i++) {
        a[i] = val(rank, 0, 5000, i);
        b[i] = -1;
    }
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Start(&r));
    EXPECT_CLASS(MPI_Pready(4, s), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pready(-1, s), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pready_range(2, 1, s), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pready_range(3, 4, s), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pready_list(2, (int[]){0, 9}, s), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST); /* a receive */
    int flag;
    EXPECT_CLASS(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST); /* a send */
    EXPECT_CLASS(MPI_Parrived(r, 2, &flag), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    MPI_OK(MPI_Pready(2, s));
    EXPECT_CLASS(MPI_Pready(2, s), MPI_ERR_ARG); /* twice in one epoch */
    EXPECT_CLASS(MPI_Pready_list(2, (int[]){0, 0}, s), MPI_ERR_ARG); /* twice in the list */
    /* The failed range/list calls above marked nothing except the list's first 0. */
    MPI_OK(MPI_Pready_list(2, (int[]){3, 1}, s));
    EXPECT_CLASS(MPI_Start(&s), MPI_ERR_REQUEST); /* active */
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(b[i] == val(prev, 0, 5000, i), "errors: int %d is %d", i, b[i]);
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));

    /* Total sizes that differ: the receive reports it (MPI_ERR_ARG when the send is shorter,
     * MPI_ERR_TRUNCATE when it is longer); the send completes. */
    for (int k = 0; k < 2; k++) {
        int sn = k ? 8 : 6, rn = k ? 6 : 8;
        MPI_OK(MPI_Psend_init(a, 2, sn / 2, MPI_INT, next, 60, c, MPI_INFO_NULL, &s));
        MPI_OK(MPI_Precv_init(b, 2, rn / 2, MPI_INT, prev, 60, c, MPI_INFO_NULL, &r));
        MPI_OK(MPI_Start(&s));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Pready_range(0, 1, s));
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        EXPECT_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), k ? MPI_ERR_TRUNCATE : MPI_ERR_ARG);
        MPI_OK(MPI_Request_free(&s));
        MPI_OK(MPI_Request_free(&r));
    }
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;

    static const int pairs[][2] = {{8, 8}, {8, 2}, {2, 8}, {1, 16}, {16, 1}, {8, 3}, {3, 8}};
    for (int k = 0; k < (int)(sizeof pairs / sizeof pairs[0]); k++)
        for (int o = 0; o < ORD_N; o++)
            run_basic(pairs[k][0], pairs[k][1], 48, o, 4, 100 + k);
    tu_note("equal and different partition counts, all orders, 4 epochs each");
    run_basic(64, 16, 64 * 2048, ORD_RANDOM, 3, 7); /* 8 KB partitions: rendezvous sizes */
    run_basic(16, 64, 64 * 2048, ORD_REV, 3, 8);
    tu_note("large partitions");
    run_staged(8, 2, 48);
    run_staged(2, 8, 48);
    run_staged(8, 8, 64 * 1024);
    tu_note("Parrived per partition before the rest is ready");
    run_many();
    tu_note("several in flight, init-order matching");
    run_derived();
    tu_note("derived types");
    run_threads();
    tu_note("Pready from %d threads", TH);
    run_special();
    tu_note("PROC_NULL, self, never started");
    run_errors();
    tu_note("errors");
    MPI_OK(MPI_Finalize());
    return 0;
}
