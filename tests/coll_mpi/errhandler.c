/* tests/coll_mpi/errhandler.c — user error handlers and error reporting of the MPI bindings (kept
 * from the bindings author's scratch tests): handlers run, codes and classes come back. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int rank, size, fails, handler_calls;
#define EXPECT(c, ...) do { if (!(c)) { fails++; printf("rank %d FAIL line %d: ", rank, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)
static void myhandler(MPI_Comm *c, int *code, ...) { (void)c; handler_calls++; (void)code; }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* user errhandler on a dup */
    MPI_Comm d; MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Errhandler eh; MPI_Comm_create_errhandler(myhandler, &eh); MPI_Comm_set_errhandler(d, eh); MPI_Errhandler_free(&eh);
    int x = 1, rc = MPI_Send(&x, 1, MPI_INT, size + 1, 0, d);
    EXPECT(rc == MPI_ERR_RANK && handler_calls == 1, "user handler rc %d calls %d", rc, handler_calls);
    MPI_Comm_set_name(d, "mydup"); char nm[MPI_MAX_OBJECT_NAME]; int nl; MPI_Comm_get_name(d, nm, &nl); EXPECT(!strcmp(nm, "mydup"), "name");
    MPI_Comm_free(&d);
    /* Ibsend + buffer overflow error */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Bsend(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_BUFFER, "no buffer rc %d", rc);
    char *bb = malloc(100 + MPI_BSEND_OVERHEAD); MPI_Buffer_attach(bb, 100 + MPI_BSEND_OVERHEAD);
    char msg[100]; memset(msg, rank, 100); MPI_Request r;
    MPI_Ibsend(msg, 100, MPI_CHAR, right, 2, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE);
    char in[100]; MPI_Recv(in, 100, MPI_CHAR, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); EXPECT(in[99] == (char)left, "ibsend");
    void *p; int ps; MPI_Buffer_detach(&p, &ps);
    MPI_Buffer_attach(bb, 50);
    rc = MPI_Bsend(msg, 100, MPI_CHAR, right, 3, MPI_COMM_WORLD); EXPECT(rc == MPI_ERR_BUFFER, "small buffer rc %d", rc);
    MPI_Buffer_detach(&p, &ps); free(bb);
    /* Rsend after barrier-ordered posting */
    MPI_Irecv(&x, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &r); MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(&rank, 1, MPI_INT, right, 4, MPI_COMM_WORLD); MPI_Wait(&r, MPI_STATUS_IGNORE); EXPECT(x == left, "rsend");
    /* Testany/Testall/Request_get_status */
    MPI_Request rs[2]; int a = -1, b = -1, flag, idx;
    MPI_Irecv(&a, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &rs[0]); MPI_Irecv(&b, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &rs[1]);
    MPI_Testall(2, rs, &flag, MPI_STATUSES_IGNORE); EXPECT(!flag, "testall early");
    MPI_Send(&rank, 1, MPI_INT, right, 6, MPI_COMM_WORLD);
    MPI_Status st;
    do MPI_Testany(2, rs, &idx, &flag, &st); while (!flag);
    EXPECT(idx == 1 && st.MPI_TAG == 6 && st.MPI_SOURCE == left, "testany %d", idx);
    MPI_Request_get_status(rs[0], &flag, &st); EXPECT(!flag, "get_status");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD);
    do MPI_Testall(2, rs, &flag, MPI_STATUSES_IGNORE); while (!flag);
    EXPECT(a == left && b == left && rs[0] == MPI_REQUEST_NULL, "testall");
    /* Request_free on a pending non-contiguous receive, then the message arrives */
    MPI_Datatype vt; MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vt); MPI_Type_commit(&vt);
    double dv[6] = {0}, src[6] = {1, 2, 3, 4, 5, 6};
    MPI_Irecv(dv, 1, vt, left, 7, MPI_COMM_WORLD, &r); MPI_Type_free(&vt); /* type freed while in use */
    MPI_Send(src, 3, MPI_DOUBLE, right, 7, MPI_COMM_WORLD); MPI_Wait(&r, &st);
    EXPECT(dv[0] == 1 && dv[2] == 2 && dv[4] == 3 && dv[1] == 0, "vec after free");
    /* Pack / Unpack / indexed */
    int bl[2] = {2, 1}, dp[2] = {0, 4}; MPI_Datatype it; MPI_Type_indexed(2, bl, dp, MPI_INT, &it); MPI_Type_commit(&it);
    int iv[5] = {10, 11, 12, 13, 14}, packsz, pos = 0; MPI_Pack_size(1, it, MPI_COMM_WORLD, &packsz); EXPECT(packsz == 12, "packsize");
    char pb[64]; MPI_Pack(iv, 1, it, pb, 64, &pos, MPI_COMM_WORLD); EXPECT(pos == 12, "pos");
    int ov[3]; pos = 0; MPI_Unpack(pb, 64, &pos, ov, 3, MPI_INT, MPI_COMM_WORLD); EXPECT(ov[0] == 10 && ov[1] == 11 && ov[2] == 14, "unpack");
    MPI_Aint tlb, tex; MPI_Type_get_true_extent(it, &tlb, &tex); EXPECT(tlb == 0 && tex == 20, "true extent");
    MPI_Type_free(&it);
    /* groups */
    MPI_Group g, gi, ge; MPI_Comm_group(MPI_COMM_WORLD, &g); int r0 = 0;
    MPI_Group_incl(g, 1, &r0, &gi); MPI_Group_excl(g, 1, &r0, &ge);
    int s1, s2, gr; MPI_Group_size(gi, &s1); MPI_Group_size(ge, &s2); MPI_Group_rank(gi, &gr);
    EXPECT(s1 == 1 && s2 == size - 1 && gr == (rank == 0 ? 0 : MPI_UNDEFINED), "groups");
    MPI_Group_free(&g); MPI_Group_free(&gi); MPI_Group_free(&ge);
    /* Reduce_local, Op_commutative, get_elements on pairs */
    int la[2] = {1, 2}, lb[2] = {3, 4}; MPI_Reduce_local(la, lb, 2, MPI_INT, MPI_SUM); EXPECT(lb[0] == 4 && lb[1] == 6, "reduce_local");
    int cm; MPI_Op_commutative(MPI_SUM, &cm); EXPECT(cm, "commutative");
    st.credo_count_bytes = 24; int ne; MPI_Get_elements(&st, MPI_2INT, &ne); EXPECT(ne == 6, "elements 2int %d", ne);
    MPI_Get_count(&st, MPI_2INT, &ne); EXPECT(ne == 3, "count 2int %d", ne);
    if (rank != 0) { rc = MPI_Reduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        EXPECT(rc == MPI_ERR_BUFFER, "nonroot in_place %d", rc); }
    /* derived type reduction: contiguous of 2 floats */
    MPI_Datatype f2; MPI_Type_contiguous(2, MPI_FLOAT, &f2); MPI_Type_commit(&f2);
    float fv[4] = {1, 2, 3, 4}, fo[4]; MPI_Allreduce(fv, fo, 2, f2, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(fo[3] == 4.0f * size, "derived reduce");
    MPI_Type_free(&f2);
    int tot; MPI_Allreduce(&fails, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(tot ? "t2: %d FAILURES\n" : "t2: all ok (%d)\n", tot ? tot : size);
    MPI_Finalize();
    return tot != 0;
}
