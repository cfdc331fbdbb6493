/* tests/coll_mpi/basics.c — broad MPI binding checks kept from the bindings author's scratch tests:
 * error classes, derived datatypes, reductions, user ops, communicators and Bsend. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <complex.h>
static int rank, size, fails;
#define EXPECT(c, ...) do { if (!(c)) { fails++; printf("rank %d FAIL line %d: ", rank, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static void test_errors(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, rc;
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_RANK, "rank rc %d", rc);
    rc = MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_TAG, "tag rc %d", rc);
    rc = MPI_Send(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_TAG, "anytag rc %d", rc);
    rc = MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_COUNT, "count rc %d", rc);
    rc = MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_BUFFER, "buf rc %d", rc);
    rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_TYPE, "type rc %d", rc);
    rc = MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL); EXPECT(rc == MPI_ERR_COMM, "comm rc %d", rc);
    rc = MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_RANK, "anysrc send rc %d", rc);
    rc = MPI_Recv(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); EXPECT(rc == MPI_ERR_RANK, "recv rank rc %d", rc);
    MPI_Datatype v; MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    rc = MPI_Send(&x, 1, v, 0, 0, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_TYPE, "uncommitted rc %d", rc);
    MPI_Type_free(&v);
    rc = MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_ROOT, "root rc %d", rc);
    rc = MPI_Allreduce(&x, &x + 1, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_OP, "op rc %d", rc);
    rc = MPI_Wait(NULL, MPI_STATUS_IGNORE); EXPECT(rc == MPI_ERR_REQUEST, "req rc %d", rc);
    char s[MPI_MAX_ERROR_STRING]; int len;
    MPI_Error_string(MPI_ERR_TRUNCATE, s, &len); EXPECT(len > 0 && strstr(s, "trunc"), "errstr %s", s);
    int cls; MPI_Error_class(MPI_ERR_IN_STATUS, &cls); EXPECT(cls == MPI_ERR_IN_STATUS, "class");
    MPI_Errhandler eh; MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh); EXPECT(eh == MPI_ERRORS_RETURN, "geteh"); MPI_Errhandler_free(&eh);
    /* truncation */
    if (size >= 2 && rank < 2) {
        int big[8] = {1,2,3,4,5,6,7,8}, small[4] = {0}, guard[4] = {0};
        (void)guard;
        if (rank == 0) MPI_Send(big, 8, MPI_INT, 1, 3, MPI_COMM_WORLD);
        else { MPI_Status st; rc = MPI_Recv(small, 4, MPI_INT, 0, 3, MPI_COMM_WORLD, &st);
            EXPECT(rc == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE, "trunc rc %d", rc); EXPECT(small[3] == 4, "trunc data"); }
        if (rank == 0) MPI_Send(big, 8, MPI_INT, 1, 4, MPI_COMM_WORLD);
        else { MPI_Request r[2]; MPI_Status st[2]; int y;
            MPI_Irecv(small, 4, MPI_INT, 0, 4, MPI_COMM_WORLD, &r[0]); MPI_Irecv(&y, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &r[1]);
            rc = MPI_Waitall(2, r, st); EXPECT(rc == MPI_ERR_IN_STATUS && st[0].MPI_ERROR == MPI_ERR_TRUNCATE && st[1].MPI_ERROR == MPI_SUCCESS, "waitall trunc %d %d %d", rc, st[0].MPI_ERROR, st[1].MPI_ERROR); }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_vector(void) {
    if (size < 2 || rank > 1) return;
    MPI_Datatype col, col2; /* column of a 4x5 int matrix */
    MPI_Type_vector(4, 1, 5, MPI_INT, &col); MPI_Type_commit(&col);
    int sz; MPI_Aint lb, ext; MPI_Type_size(col, &sz); MPI_Type_get_extent(col, &lb, &ext);
    EXPECT(sz == 16 && lb == 0 && ext == (MPI_Aint)(16 * sizeof(int)), "vector size %d ext %ld", sz, (long)ext);
    MPI_Type_create_resized(col, 0, sizeof(int), &col2); MPI_Type_commit(&col2);
    int m[20], out[20];
    for (int i = 0; i < 20; i++) m[i] = i * 10 + rank;
    if (rank == 0) {
        MPI_Send(m, 2, col2, 1, 1, MPI_COMM_WORLD);            /* columns 0 and 1 */
        MPI_Send(m, 1, col, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Status st; int cnt;
        memset(out, -1, sizeof out);
        MPI_Recv(out, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &cnt); EXPECT(cnt == 8, "count %d", cnt);
        MPI_Get_count(&st, col, &cnt); EXPECT(cnt == 2, "count col %d", cnt);
        int exp[8] = {0, 50, 100, 150, 10, 60, 110, 160};
        for (int i = 0; i < 8; i++) EXPECT(out[i] == exp[i], "vec out[%d]=%d want %d", i, out[i], exp[i]);
        memset(out, -1, sizeof out);
        MPI_Recv(out, 1, col, 0, 2, MPI_COMM_WORLD, &st);  /* non-contig receive */
        for (int i = 0; i < 20; i++) EXPECT(out[i] == ((i % 5 == 0) ? i * 10 : -1), "vec recv out[%d]=%d", i, out[i]);
        MPI_Get_elements(&st, col, &cnt); EXPECT(cnt == 4, "elements %d", cnt);
    }
    /* Irecv with non-contiguous type, sent after the receive is posted and before. */
    if (rank == 1) {
        MPI_Request r; memset(out, -1, sizeof out);
        MPI_Irecv(out, 1, col, 0, 5, MPI_COMM_WORLD, &r);
        MPI_Send(&rank, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < 20; i++) EXPECT(out[i] == ((i % 5 == 0) ? i * 10 : -1), "vec irecv out[%d]=%d", i, out[i]);
    } else {
        int d; MPI_Recv(&d, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request r; MPI_Isend(m, 1, col, 1, 5, MPI_COMM_WORLD, &r);
        m[0] = 12345; /* must not matter once packed? (standard says don't touch; we just check wait) */
        m[0] = 0;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    /* struct type */
    struct { double d; int i; char c; } s[3], s2[3];
    int bl[3] = {1, 1, 1}; MPI_Aint disp[3]; MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, st_t;
    MPI_Get_address(&s[0].d, &disp[0]); MPI_Get_address(&s[0].i, &disp[1]); MPI_Get_address(&s[0].c, &disp[2]);
    disp[2] -= disp[0]; disp[1] -= disp[0]; disp[0] = 0;
    MPI_Type_create_struct(3, bl, disp, ty, &st_t); MPI_Type_commit(&st_t);
    MPI_Type_get_extent(st_t, &lb, &ext); EXPECT(ext == sizeof s[0], "struct extent %ld", (long)ext);
    for (int i = 0; i < 3; i++) { s[i].d = i + 0.5; s[i].i = i * 7; s[i].c = 'a' + i; }
    if (rank == 0) MPI_Send(s, 3, st_t, 1, 9, MPI_COMM_WORLD);
    else { MPI_Recv(s2, 3, st_t, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 3; i++) EXPECT(s2[i].d == i + 0.5 && s2[i].i == i * 7 && s2[i].c == 'a' + i, "struct %d", i); }
    MPI_Type_free(&st_t); MPI_Type_free(&col); MPI_Type_free(&col2);
    EXPECT(col == MPI_DATATYPE_NULL, "free sets null");
}

static void test_reduce(void) {
    for (int root = 0; root < size; root++) {
        int v[3] = {rank + 1, -rank, rank * 2}, r[3] = {0};
        MPI_Reduce(v, r, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root) EXPECT(r[0] == size * (size + 1) / 2 && r[1] == -size * (size - 1) / 2, "reduce sum root %d: %d %d", root, r[0], r[1]);
        long long p = rank + 1, pr = 0;
        MPI_Reduce(rank == root ? MPI_IN_PLACE : &p, rank == root ? &p : NULL, 1, MPI_LONG_LONG, MPI_PROD, root, MPI_COMM_WORLD);
        if (rank == root) { long long f = 1; for (int i = 1; i <= size; i++) f *= i; EXPECT(p == f, "prod %lld", p); (void)pr; }
        double d = rank; MPI_Bcast(&d, 1, MPI_DOUBLE, root, MPI_COMM_WORLD); EXPECT(d == root, "bcast %g", d);
    }
    int mx, mn; MPI_Allreduce(&rank, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); MPI_Allreduce(&rank, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT(mx == size - 1 && mn == 0, "max/min");
    unsigned bits = 1u << rank, bo, ba; MPI_Allreduce(&bits, &bo, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD); MPI_Allreduce(&bits, &ba, 1, MPI_UNSIGNED, MPI_BAND, MPI_COMM_WORLD);
    EXPECT(bo == (1u << size) - 1 && ba == (size == 1 ? 1u : 0u), "bor/band %u %u", bo, ba);
    unsigned char by = 0xF0 | rank, bx; MPI_Allreduce(&by, &bx, 1, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD);
    bool t = true, f = rank == 0, la, lo, lx; MPI_Allreduce(&t, &la, 1, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&f, &lo, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD); MPI_Allreduce(&f, &lx, 1, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD);
    EXPECT(la && lo && lx, "logical");
    struct { double v; int i; } in = {(double)(rank % 2), rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    EXPECT(out.v == (size > 1 ? 1.0 : 0.0) && out.i == (size > 1 ? 1 : 0), "maxloc %g %d", out.v, out.i);
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    EXPECT(out.v == 0.0 && out.i == 0, "minloc %g %d", out.v, out.i);
    double complex z = rank + 1.0 * I, zs; MPI_Allreduce(&z, &zs, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(creal(zs) == size * (size - 1) / 2 && cimag(zs) == size, "complex");
    int big = 0x7fffffff, bs; MPI_Allreduce(&big, &bs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* wraps, no UB */
    int arr[1000], arr2[1000]; for (int i = 0; i < 1000; i++) arr[i] = i + rank;
    MPI_Allreduce(arr, arr2, 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 1000; i++) if (arr2[i] != i * size + size * (size - 1) / 2) { EXPECT(0, "allreduce arr %d", i); break; }
    MPI_Allreduce(MPI_IN_PLACE, arr, 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(arr[5] == arr2[5], "in place");
}

static void cat_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    /* non-commutative: 2x2 matrix product as ints mod 1000 */
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {(a[0]*b[0]+a[1]*b[2]) % 1000, (a[0]*b[1]+a[1]*b[3]) % 1000, (a[2]*b[0]+a[3]*b[2]) % 1000, (a[2]*b[1]+a[3]*b[3]) % 1000};
        memcpy(b, c, sizeof c);
    }
    (void)dt;
}

static void test_userop(void) {
    MPI_Op op; MPI_Op_create(cat_op, 0, &op);
    MPI_Datatype m; MPI_Type_contiguous(4, MPI_INT, &m); MPI_Type_commit(&m);
    int mine[4] = {1, rank + 1, 0, 1}, res[4];
    for (int root = 0; root < size; root++) {
        MPI_Reduce(mine, res, 1, m, op, root, MPI_COMM_WORLD);
        if (rank == root) { int exp[4] = {1, 0, 0, 1}; for (int r = 0; r < size; r++) { int a[4] = {1, r + 1, 0, 1}; cat_op(exp, a, (int[]){1}, NULL); memcpy(exp, a, sizeof a); }
            EXPECT(memcmp(exp, res, sizeof res) == 0, "userop root %d: %d", root, res[1]); }
    }
    MPI_Op_free(&op); MPI_Type_free(&m);
}

static void test_comms(void) {
    MPI_Comm dup, half, none;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int res; MPI_Comm_compare(dup, MPI_COMM_WORLD, &res); EXPECT(res == MPI_CONGRUENT, "congruent");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hr, hs; MPI_Comm_rank(half, &hr); MPI_Comm_size(half, &hs);
    EXPECT(hs == (size + 1 - rank % 2) / 2, "split size %d", hs);
    int sum; MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    int exp = 0; for (int r = rank % 2; r < size; r += 2) exp += r; EXPECT(sum == exp, "split sum %d %d", sum, exp);
    int maxr; MPI_Allreduce(&rank, &maxr, 1, MPI_INT, MPI_MAX, half); EXPECT(hr == 0 ? rank == maxr : 1, "key order");
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
    EXPECT(rank == 0 ? none != MPI_COMM_NULL : none == MPI_COMM_NULL, "undefined split");
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
    /* isolation: message on dup not matched by world */
    if (size >= 2 && rank < 2) {
        int a = 1, b = 2, x, y;
        if (rank == 0) { MPI_Send(&a, 1, MPI_INT, 1, 0, dup); MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); }
        else { MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Recv(&y, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE); EXPECT(x == 2 && y == 1, "isolation"); }
    }
    int *tub, flag; MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tub, &flag); EXPECT(flag && *tub >= 32767, "tag ub");
    MPI_Group g1, g2; MPI_Comm_group(MPI_COMM_WORLD, &g1); MPI_Comm_group(half, &g2);
    int r0 = 0, t; MPI_Group_translate_ranks(g2, 1, &r0, g1, &t);
    EXPECT(t == size - 1 - ((size - 1 - rank % 2) % 2), "translate %d", t);
    MPI_Group_free(&g1); MPI_Group_free(&g2);
    MPI_Comm_free(&dup); MPI_Comm_free(&half);
    EXPECT(dup == MPI_COMM_NULL, "free null");
}

static void test_misc_p2p(void) {
    MPI_Status st; int x = 5, cnt;
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && x == 5, "procnull");
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    /* self send */
    MPI_Request r; int y = 0;
    MPI_Isend(&x, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &r);
    MPI_Probe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st); MPI_Get_count(&st, MPI_INT, &cnt);
    EXPECT(st.MPI_SOURCE == rank && cnt == 1, "probe self");
    MPI_Recv(&y, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(y == 5, "self");
    /* cancel */
    MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r); MPI_Cancel(&r); MPI_Wait(&r, &st);
    int c; MPI_Test_cancelled(&st, &c); EXPECT(c, "cancelled");
    /* Waitany / Testsome with nulls */
    MPI_Request rs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL}; int idx;
    MPI_Waitany(3, rs, &idx, &st); EXPECT(idx == MPI_UNDEFINED, "waitany all null");
    int vals[3];
    for (int i = 0; i < 3; i++) MPI_Irecv(&vals[i], 1, MPI_INT, rank, 100 + i, MPI_COMM_WORLD, &rs[i]);
    for (int i = 2; i >= 0; i--) MPI_Send(&i, 1, MPI_INT, rank, 100 + i, MPI_COMM_WORLD);
    int done = 0, out, ind[3];
    while (done < 3) { MPI_Waitsome(3, rs, &out, ind, MPI_STATUSES_IGNORE); done += out; }
    EXPECT(vals[0] == 0 && vals[2] == 2, "waitsome");
    /* Bsend */
    int bsz = 10 * (100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD); char *bb = malloc(bsz);
    MPI_Buffer_attach(bb, bsz);
    int data[100]; for (int i = 0; i < 100; i++) data[i] = i;
    for (int k = 0; k < 10; k++) MPI_Bsend(data, 100, MPI_INT, rank, 200 + k, MPI_COMM_WORLD);
    for (int k = 0; k < 10; k++) { int in[100]; MPI_Recv(in, 100, MPI_INT, rank, 200 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); EXPECT(in[99] == 99, "bsend"); }
    void *ret; int rsz; MPI_Buffer_detach(&ret, &rsz); EXPECT(ret == bb && rsz == bsz, "detach"); free(bb);
    /* Ssend/Issend to self with Test loop */
    MPI_Issend(&x, 1, MPI_INT, rank, 300, MPI_COMM_WORLD, &r); int flag; MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    EXPECT(!flag, "issend not complete before recv");
    MPI_Recv(&y, 1, MPI_INT, rank, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    do MPI_Test(&r, &flag, MPI_STATUS_IGNORE); while (!flag);
    /* sendrecv_replace ring */
    int v = rank; MPI_Sendrecv_replace(&v, 1, MPI_INT, (rank + 1) % size, 5, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &st);
    EXPECT(v == (rank + size - 1) % size && st.MPI_SOURCE == v, "replace");
    double t0 = MPI_Wtime(); EXPECT(MPI_Wtick() > 0 && t0 > 0, "wtime");
    char name[MPI_MAX_PROCESSOR_NAME]; int nl; MPI_Get_processor_name(name, &nl); EXPECT(nl > 0, "pname");
    char lv[MPI_MAX_LIBRARY_VERSION_STRING]; MPI_Get_library_version(lv, &nl); EXPECT(strstr(lv, "credo") != NULL, "libver");
    void *mem; MPI_Alloc_mem(1000, MPI_INFO_NULL, &mem); MPI_Free_mem(mem);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_errors(); test_vector(); test_reduce(); test_userop(); test_comms(); test_misc_p2p();
    int tot; MPI_Allreduce(&fails, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(tot ? "t1: %d FAILURES\n" : "t1: all ok (%d)\n", tot ? tot : size);
    MPI_Finalize();
    return tot != 0;
}
