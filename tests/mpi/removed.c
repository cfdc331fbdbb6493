/* tests/mpi/removed.c — the MPI-1 functions MPI 3.0 removed, kept for old programs: each gives what
 * its replacement gives (address, extent and bounds, hvector/hindexed/struct, error handlers). */
#include "testutil.h"

static int calls;
static void count_errors(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    (void)code;
    calls++;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct {
        char c;
        double d;
        int i[3];
    } s;
    MPI_Aint a_old, a_new, base;
    MPI_OK(MPI_Address(&s.d, &a_old));
    MPI_OK(MPI_Get_address(&s.d, &a_new));
    CHECK(a_old == a_new, "MPI_Address %ld, MPI_Get_address %ld", (long)a_old, (long)a_new);

    /* struct {char; double; int[3]} through MPI_Type_struct, against MPI_Type_create_struct */
    int bl[3] = {1, 1, 3};
    MPI_Aint disp[3];
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t_old, t_new;
    MPI_OK(MPI_Address(&s, &base));
    MPI_OK(MPI_Address(&s.c, &disp[0]));
    MPI_OK(MPI_Address(&s.d, &disp[1]));
    MPI_OK(MPI_Address(&s.i, &disp[2]));
    for (int k = 0; k < 3; k++)
        disp[k] -= base;
    MPI_OK(MPI_Type_struct(3, bl, disp, types, &t_old));
    MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &t_new));
    MPI_Aint ext_old, lb_old, ub_old, lb_new, ext_new;
    int size_old, size_new;
    MPI_OK(MPI_Type_extent(t_old, &ext_old));
    MPI_OK(MPI_Type_lb(t_old, &lb_old));
    MPI_OK(MPI_Type_ub(t_old, &ub_old));
    MPI_OK(MPI_Type_get_extent(t_new, &lb_new, &ext_new));
    MPI_OK(MPI_Type_size(t_old, &size_old));
    MPI_OK(MPI_Type_size(t_new, &size_new));
    CHECK(ext_old == ext_new && lb_old == lb_new && ub_old == lb_new + ext_new &&
              size_old == size_new && size_old == 1 + 8 + 12,
          "struct: extent %ld/%ld lb %ld/%ld ub %ld size %d/%d", (long)ext_old, (long)ext_new,
          (long)lb_old, (long)lb_new, (long)ub_old, size_old, size_new);
    MPI_OK(MPI_Type_free(&t_old));
    MPI_OK(MPI_Type_free(&t_new));

    /* hvector and hindexed: extents as their MPI-2 forms give */
    MPI_OK(MPI_Type_hvector(3, 2, 5 * (MPI_Aint)sizeof(int), MPI_INT, &t_old));
    MPI_OK(MPI_Type_create_hvector(3, 2, 5 * (MPI_Aint)sizeof(int), MPI_INT, &t_new));
    MPI_OK(MPI_Type_extent(t_old, &ext_old));
    MPI_OK(MPI_Type_get_extent(t_new, &lb_new, &ext_new));
    CHECK(ext_old == ext_new && ext_old == 12 * (MPI_Aint)sizeof(int), "hvector extent %ld/%ld",
          (long)ext_old, (long)ext_new);
    MPI_OK(MPI_Type_free(&t_old));
    MPI_OK(MPI_Type_free(&t_new));
    int hb[2] = {1, 2};
    MPI_Aint hd[2] = {4 * (MPI_Aint)sizeof(int), 0};
    MPI_OK(MPI_Type_hindexed(2, hb, hd, MPI_INT, &t_old));
    MPI_OK(MPI_Type_commit(&t_old));
    MPI_OK(MPI_Type_lb(t_old, &lb_old));
    MPI_OK(MPI_Type_ub(t_old, &ub_old));
    CHECK(lb_old == 0 && ub_old == 5 * (MPI_Aint)sizeof(int), "hindexed lb %ld ub %ld",
          (long)lb_old, (long)ub_old);
    /* the type works: a self send of one element */
    int src[5] = {10, 11, 12, 13, 14}, dst[5] = {0};
    MPI_OK(MPI_Sendrecv(src, 1, t_old, 0, 0, dst, 1, t_old, 0, 0, MPI_COMM_SELF,
                        MPI_STATUS_IGNORE));
    CHECK(dst[0] == 10 && dst[1] == 11 && dst[4] == 14 && dst[2] == 0, "hindexed data %d %d %d %d",
          dst[0], dst[1], dst[2], dst[4]);
    MPI_OK(MPI_Type_free(&t_old));

    /* error handlers: create/set/get, and the handler runs */
    MPI_Errhandler eh, got;
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Errhandler_create(count_errors, &eh));
    MPI_OK(MPI_Errhandler_set(c, eh));
    MPI_OK(MPI_Errhandler_get(c, &got));
    CHECK(got == eh, "Errhandler_get returned another handler");
    int v = 0;
    MPI_Send(&v, 1, MPI_INT, -5, 0, c); /* invalid rank: the handler runs */
    CHECK(calls == 1, "user handler ran %d times", calls);
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_free(&c));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("removed: OK\n");
    MPI_Finalize();
    return 0;
}
