/* tests/mpi/dynproc.c — process creation and management: MPI_Comm_disconnect on intra- and
 * intercommunicators, and the clear errors of spawning, ports, names and joins (credo's fixed ranks). */
#include "testutil.h"

/* The error class of a call that must fail, under MPI_ERRORS_RETURN. */
static int err_class(int rc)
{
    CHECK(rc != MPI_SUCCESS, "the call succeeded but must fail");
    int cls = -1;
    MPI_OK(MPI_Error_class(rc, &cls));
    return cls;
}

static void check_unsupported(int rank)
{
    MPI_Comm parent = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a launched rank has a parent");

    int codes[3] = {-7, -7, -7};
    MPI_Comm inter = MPI_COMM_WORLD;
    char *args[] = {"x", NULL};
    int cls = err_class(MPI_Comm_spawn("/bin/true", args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    CHECK(cls == MPI_ERR_SPAWN, "MPI_Comm_spawn: class %d, want MPI_ERR_SPAWN", cls);
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_spawn left intercomm set");
    for (int i = 0; i < 3; i++)
        CHECK(codes[i] == (rank == 0 ? MPI_ERR_SPAWN : -7), "errcode %d is %d at rank %d", i, codes[i], rank);
    cls = err_class(MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                                   MPI_ERRCODES_IGNORE));
    CHECK(cls == MPI_ERR_SPAWN, "MPI_Comm_spawn without codes: class %d", cls);
    int size;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    cls = err_class(MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &inter,
                                   MPI_ERRCODES_IGNORE));
    CHECK(cls == MPI_ERR_ROOT, "MPI_Comm_spawn with root %d: class %d, want MPI_ERR_ROOT", size, cls);
    cls = err_class(MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                                   MPI_ERRCODES_IGNORE));
    CHECK(cls == MPI_ERR_ARG, "MPI_Comm_spawn with intercomm NULL: class %d", cls);

    char *cmds[2] = {"/bin/true", "/bin/false"};
    int maxprocs[2] = {1, 2};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    codes[0] = codes[1] = codes[2] = -7;
    cls = err_class(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                            codes));
    CHECK(cls == MPI_ERR_SPAWN, "MPI_Comm_spawn_multiple: class %d", cls);
    CHECK(codes[2] == (rank == 0 ? MPI_ERR_SPAWN : -7), "spawn_multiple errcode 2 is %d", codes[2]);

    char port[MPI_MAX_PORT_NAME] = "junk";
    cls = err_class(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Open_port: class %d", cls);
    CHECK(port[0] == '\0', "MPI_Open_port left a port name '%s'", port);
    cls = err_class(MPI_Close_port("nothing"));
    CHECK(cls == MPI_ERR_PORT, "MPI_Close_port: class %d", cls);
    MPI_Comm nc = MPI_COMM_WORLD;
    cls = err_class(MPI_Comm_accept("nothing", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &nc));
    CHECK(cls == MPI_ERR_PORT && nc == MPI_COMM_NULL, "MPI_Comm_accept: class %d", cls);
    nc = MPI_COMM_WORLD;
    cls = err_class(MPI_Comm_connect("nothing", MPI_INFO_NULL, 0, MPI_COMM_SELF, &nc));
    CHECK(cls == MPI_ERR_PORT && nc == MPI_COMM_NULL, "MPI_Comm_connect: class %d", cls);
    cls = err_class(MPI_Publish_name("svc", MPI_INFO_NULL, "nothing"));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Publish_name: class %d", cls);
    cls = err_class(MPI_Lookup_name("svc", MPI_INFO_NULL, port));
    CHECK(cls == MPI_ERR_NAME, "MPI_Lookup_name: class %d", cls);
    cls = err_class(MPI_Unpublish_name("svc", MPI_INFO_NULL, "nothing"));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Unpublish_name: class %d", cls);
    cls = err_class(MPI_Lookup_name(NULL, MPI_INFO_NULL, port));
    CHECK(cls == MPI_ERR_ARG, "MPI_Lookup_name(NULL): class %d", cls);
    cls = err_class(MPI_Comm_join(-1, &nc));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION && nc == MPI_COMM_NULL, "MPI_Comm_join: class %d", cls);
}

/* A ring of rendezvous-sized messages completed with MPI_Waitall, then disconnect: the handle goes
 * to MPI_COMM_NULL and the data arrived whole. */
static void check_disconnect_intra(int rank, int size)
{
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    size_t n = 1 << 18;
    unsigned char *out = malloc(n), *in = malloc(n);
    CHECK(out && in, "out of memory");
    for (size_t i = 0; i < n; i++)
        out[i] = tu_pattern_byte(n, rank, 5, i);
    MPI_Request rq[2];
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_OK(MPI_Irecv(in, (int)n, MPI_BYTE, from, 3, dup, &rq[0]));
    MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, to, 3, dup, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Comm_disconnect(&dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle set");
    for (size_t i = 0; i < n; i++)
        CHECK(in[i] == tu_pattern_byte(n, from, 5, i), "byte %zu from rank %d differs", i, from);
    free(out);
    free(in);

    MPI_Comm w = MPI_COMM_WORLD;
    int cls = err_class(MPI_Comm_disconnect(&w));
    CHECK(cls == MPI_ERR_COMM && w == MPI_COMM_WORLD, "disconnecting MPI_COMM_WORLD: class %d", cls);
    MPI_Comm bad = MPI_COMM_NULL;
    cls = err_class(MPI_Comm_disconnect(&bad));
    CHECK(cls == MPI_ERR_COMM, "disconnecting MPI_COMM_NULL: class %d", cls);
}

/* Two halves joined by an intercommunicator exchange one message per pair, then disconnect. */
static void check_disconnect_inter(int rank, int size)
{
    if (size < 2)
        return;
    int half = rank < size / 2 ? 0 : 1;
    MPI_Comm local, inter;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, half, rank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, half ? 0 : size / 2, 7, &inter));
    int lrank, lsize, rsize;
    MPI_OK(MPI_Comm_rank(local, &lrank));
    MPI_OK(MPI_Comm_size(local, &lsize));
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    /* the first min(lsize, rsize) ranks of each half pair up with the same-numbered remote rank */
    if (lrank < (lsize < rsize ? lsize : rsize)) {
        int msg = 1000 + rank, got = -1, want = half ? lrank : size / 2 + lrank;
        MPI_OK(MPI_Sendrecv(&msg, 1, MPI_INT, lrank, 9, &got, 1, MPI_INT, lrank, 9, inter, MPI_STATUS_IGNORE));
        CHECK(got == 1000 + want, "intercomm message %d, want %d", got, 1000 + want);
    }
    MPI_OK(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_disconnect left the intercomm handle set");
    MPI_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        /* under the default MPI_ERRORS_ARE_FATAL the job must end with a message naming the call */
        MPI_Comm inter;
        MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        printf("NOT FATAL\n");
        MPI_Finalize();
        return 0;
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    check_unsupported(rank);
    check_disconnect_intra(rank, size);
    check_disconnect_inter(rank, size);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("dynproc: %d ranks ok\n", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
