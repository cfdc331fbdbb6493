/* src/mpi/largecount_coll.c — the MPI 4.0 large-count (_c) forms of the collectives: blocking,
 * non-blocking and persistent, neighbourhood ones included, as calls of the int forms. */
#include <stdlib.h>

#include "mpi/largecount.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"

/* Each collective has one core here taking the form to run; the three public names are one line
 * each. Single counts beyond INT_MAX become one element of a contiguous type (largecount.h), which
 * every collective handles, since senders and receivers only have to agree on type signatures,
 * and a contiguous type of n elements has the signature of n elements. The v and w forms take int
 * arrays inside credo: their counts and displacements must fit in int (MPI_ERR_COUNT otherwise). */

enum { LC_BLOCKING, LC_NONBLOCKING, LC_PERSISTENT };

typedef struct lc_form {
    int kind;
    MPI_Info info;        /* persistent only */
    MPI_Request *req;     /* non-blocking and persistent */
} lc_form;

#define BLOCKING ((lc_form){LC_BLOCKING, MPI_INFO_NULL, NULL})
#define NONBLOCKING(r) ((lc_form){LC_NONBLOCKING, MPI_INFO_NULL, (r)})
#define PERSISTENT(i, r) ((lc_form){LC_PERSISTENT, (i), (r)})

/* The int binding of form f: name (blocking), iname (non-blocking) or name##_init. */
#define BY_FORM(f, name, iname, ...)                                                               \
    ((f).kind == LC_BLOCKING      ? PMPI_##name(__VA_ARGS__)                                       \
     : (f).kind == LC_NONBLOCKING ? PMPI_##iname(__VA_ARGS__, (f).req)                             \
                                  : PMPI_##name##_init(__VA_ARGS__, (f).info, (f).req))

/* A count whose buffer is MPI_IN_PLACE is not used: it is passed on as 0 whatever it is. */
static int lc_arg_buf(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count,
                      MPI_Datatype dt, lc_arg *a)
{
    if (buf == MPI_IN_PLACE) {
        *a = (lc_arg){0, dt, NULL};
        return MPI_SUCCESS;
    }
    return lc_arg_of(fn, comm, count, dt, a);
}

/* Reductions: a user function is called with the datatype the program passed, so a count beyond
 * INT_MAX cannot be handed to it as one element of another type. */
static int lc_arg_red(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                      lc_arg *a)
{
    if (count > INT_MAX && op_live(op) && op->id == OP_USER)
        return mpi_error(comm, MPI_ERR_COUNT, fn,
                         "count %lld exceeds INT_MAX: credo reduces at most INT_MAX elements per "
                         "call with a user-defined operation", (long long)count);
    return lc_arg_of(fn, comm, count, dt, a);
}

/* ---- rooted and symmetric collectives with single counts ---- */

static int bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int root,
                 MPI_Comm comm, lc_form f)
{
    lc_arg a;
    int rc = lc_arg_of(fn, comm, count, dt, &a);
    if (rc == MPI_SUCCESS) {
        rc = BY_FORM(f, Bcast, Ibcast, buf, a.n, a.dt, root, comm);
        lc_arg_done(&a);
    }
    return rc;
}

enum { K_REDUCE, K_ALLREDUCE, K_SCAN, K_EXSCAN, K_RSB };

static int reduction(const char *fn, int kind, const void *sb, void *rb, MPI_Count count,
                     MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, lc_form f)
{
    lc_arg a;
    int rc = lc_arg_red(fn, comm, count, dt, op, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    switch (kind) {
    case K_REDUCE: rc = BY_FORM(f, Reduce, Ireduce, sb, rb, a.n, a.dt, op, root, comm); break;
    case K_ALLREDUCE: rc = BY_FORM(f, Allreduce, Iallreduce, sb, rb, a.n, a.dt, op, comm); break;
    case K_SCAN: rc = BY_FORM(f, Scan, Iscan, sb, rb, a.n, a.dt, op, comm); break;
    case K_EXSCAN: rc = BY_FORM(f, Exscan, Iexscan, sb, rb, a.n, a.dt, op, comm); break;
    default:
        rc = BY_FORM(f, Reduce_scatter_block, Ireduce_scatter_block, sb, rb, a.n, a.dt, op, comm);
        break;
    }
    lc_arg_done(&a);
    return rc;
}

enum { K_GATHER, K_SCATTER, K_ALLGATHER, K_ALLTOALL, K_NALLGATHER, K_NALLTOALL };

/* Gather, Scatter, Allgather, Alltoall and the neighbourhood allgather/alltoall: a send and a
 * receive count, each with its type. */
static int exchange(const char *fn, int kind, const void *sb, MPI_Count sc, MPI_Datatype st,
                    void *rb, MPI_Count rc_, MPI_Datatype rt, int root, MPI_Comm comm, lc_form f)
{
    lc_arg s, r;
    int rc = lc_arg_buf(fn, comm, sb, sc, st, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = lc_arg_buf(fn, comm, rb, rc_, rt, &r)) != MPI_SUCCESS) {
        lc_arg_done(&s);
        return rc;
    }
    switch (kind) {
    case K_GATHER:
        rc = BY_FORM(f, Gather, Igather, sb, s.n, s.dt, rb, r.n, r.dt, root, comm);
        break;
    case K_SCATTER:
        rc = BY_FORM(f, Scatter, Iscatter, sb, s.n, s.dt, rb, r.n, r.dt, root, comm);
        break;
    case K_ALLGATHER:
        rc = BY_FORM(f, Allgather, Iallgather, sb, s.n, s.dt, rb, r.n, r.dt, comm);
        break;
    case K_ALLTOALL:
        rc = BY_FORM(f, Alltoall, Ialltoall, sb, s.n, s.dt, rb, r.n, r.dt, comm);
        break;
    case K_NALLGATHER:
        rc = BY_FORM(f, Neighbor_allgather, Ineighbor_allgather, sb, s.n, s.dt, rb, r.n, r.dt,
                     comm);
        break;
    default:
        rc = BY_FORM(f, Neighbor_alltoall, Ineighbor_alltoall, sb, s.n, s.dt, rb, r.n, r.dt,
                     comm);
        break;
    }
    lc_arg_done(&r);
    lc_arg_done(&s);
    return rc;
}

/* ---- v and w forms: the arrays converted to ints ---- */

/* Up to four int arrays of n entries in one allocation; a persistent request adopts it, since
 * its starts read the arrays again (persist_coll.c keeps the pointers). */
typedef struct lc_vec {
    int *mem;
    int n;
} lc_vec;

static int vec_alloc(const char *fn, MPI_Comm comm, lc_vec *v, int n)
{
    v->n = n;
    v->mem = malloc(4 * (size_t)(n > 0 ? n : 1) * sizeof *v->mem);
    return v->mem ? MPI_SUCCESS : mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
}

/* The k-th array (NULL if src is NULL: the program passed none, and the int form will see none). */
static int vec_counts(const char *fn, MPI_Comm comm, lc_vec *v, int k, const MPI_Count *src,
                      const int **out)
{
    *out = src ? v->mem + (size_t)k * (size_t)v->n : NULL;
    return lc_counts_to_int(fn, comm, "count", v->n, src, v->mem + (size_t)k * (size_t)v->n);
}

static int vec_displs(const char *fn, MPI_Comm comm, lc_vec *v, int k, const MPI_Aint *src,
                      const int **out)
{
    *out = src ? v->mem + (size_t)k * (size_t)v->n : NULL;
    return lc_aints_to_int(fn, comm, v->n, src, v->mem + (size_t)k * (size_t)v->n);
}

/* The end of every v/w core: the arrays go with a persistent request that was created. */
static int vec_done(lc_vec *v, lc_form f, int rc)
{
    if (rc == MPI_SUCCESS && f.kind == LC_PERSISTENT)
        mpi_persist_adopt(*f.req, v->mem);
    else
        free(v->mem);
    return rc;
}

/* Entries of the arrays of a rooted v-form: only the root's are read (remote group's size on an
 * intercommunicator, at MPI_ROOT). */
static int rooted_n(MPI_Comm comm, int root)
{
    if (COMM_IS_INTER(comm))
        return root == MPI_ROOT ? comm->remote_size : 0;
    return comm->rank == root ? comm->size : 0;
}

static int gatherv(const char *fn, const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                   const MPI_Count *rcounts, const MPI_Aint *displs, MPI_Datatype rt, int root,
                   MPI_Comm comm, lc_form f)
{
    COMM_CHECK(fn, comm);
    int n = rooted_n(comm, root);
    lc_vec v;
    lc_arg s;
    const int *rci, *dpi;
    int rc = vec_alloc(fn, comm, &v, n);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = vec_counts(fn, comm, &v, 0, n ? rcounts : NULL, &rci)) != MPI_SUCCESS ||
        (rc = vec_displs(fn, comm, &v, 1, n ? displs : NULL, &dpi)) != MPI_SUCCESS ||
        (rc = lc_arg_buf(fn, comm, sb, sc, st, &s)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    rc = BY_FORM(f, Gatherv, Igatherv, sb, s.n, s.dt, rb, rci, dpi, rt, root, comm);
    lc_arg_done(&s);
    return vec_done(&v, f, rc);
}

static int scatterv(const char *fn, const void *sb, const MPI_Count *scounts,
                    const MPI_Aint *displs, MPI_Datatype st, void *rb, MPI_Count rcount,
                    MPI_Datatype rt, int root, MPI_Comm comm, lc_form f)
{
    COMM_CHECK(fn, comm);
    int n = rooted_n(comm, root);
    lc_vec v;
    lc_arg r;
    const int *sci, *dpi;
    int rc = vec_alloc(fn, comm, &v, n);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = vec_counts(fn, comm, &v, 0, n ? scounts : NULL, &sci)) != MPI_SUCCESS ||
        (rc = vec_displs(fn, comm, &v, 1, n ? displs : NULL, &dpi)) != MPI_SUCCESS ||
        (rc = lc_arg_buf(fn, comm, rb, rcount, rt, &r)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    rc = BY_FORM(f, Scatterv, Iscatterv, sb, sci, dpi, st, rb, r.n, r.dt, root, comm);
    lc_arg_done(&r);
    return vec_done(&v, f, rc);
}

/* Neighbours of comm's topology (0 and 0 without one: the int form reports that). */
static void degrees(MPI_Comm comm, int *in, int *out)
{
    int t = MPI_UNDEFINED, nd = 0, w = 0;
    *in = *out = 0;
    if (PMPI_Topo_test(comm, &t) != MPI_SUCCESS)
        return;
    if (t == MPI_CART && PMPI_Cartdim_get(comm, &nd) == MPI_SUCCESS)
        *in = *out = 2 * nd;
    else if (t == MPI_GRAPH && PMPI_Graph_neighbors_count(comm, comm->rank, in) == MPI_SUCCESS)
        *out = *in;
    else if (t == MPI_DIST_GRAPH)
        PMPI_Dist_graph_neighbors_count(comm, in, out, &w);
}

static int allgatherv(const char *fn, int neighbor, const void *sb, MPI_Count sc,
                      MPI_Datatype st, void *rb, const MPI_Count *rcounts, const MPI_Aint *displs,
                      MPI_Datatype rt, MPI_Comm comm, lc_form f)
{
    COMM_CHECK(fn, comm);
    int n = comm->remote_size, out;
    if (neighbor)
        degrees(comm, &n, &out);
    lc_vec v;
    lc_arg s;
    const int *rci, *dpi;
    int rc = vec_alloc(fn, comm, &v, n);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = vec_counts(fn, comm, &v, 0, rcounts, &rci)) != MPI_SUCCESS ||
        (rc = vec_displs(fn, comm, &v, 1, displs, &dpi)) != MPI_SUCCESS ||
        (rc = lc_arg_buf(fn, comm, sb, sc, st, &s)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    if (neighbor)
        rc = BY_FORM(f, Neighbor_allgatherv, Ineighbor_allgatherv, sb, s.n, s.dt, rb, rci, dpi,
                     rt, comm);
    else
        rc = BY_FORM(f, Allgatherv, Iallgatherv, sb, s.n, s.dt, rb, rci, dpi, rt, comm);
    lc_arg_done(&s);
    return vec_done(&v, f, rc);
}

enum { K_A2AV, K_A2AW, K_NA2AV, K_NA2AW };

/* Alltoallv/w and their neighbourhood forms. Neighbor_alltoallw's int form takes MPI_Aint byte
 * displacements already: those pass through. */
static int alltoallvw(const char *fn, int kind, const void *sb, const MPI_Count *scounts,
                      const MPI_Aint *sdispls, MPI_Datatype st, const MPI_Datatype *sts, void *rb,
                      const MPI_Count *rcounts, const MPI_Aint *rdispls, MPI_Datatype rt,
                      const MPI_Datatype *rts, MPI_Comm comm, lc_form f)
{
    COMM_CHECK(fn, comm);
    int nin = comm->remote_size, nout = comm->remote_size;
    if (kind == K_NA2AV || kind == K_NA2AW)
        degrees(comm, &nin, &nout);
    int n = nin > nout ? nin : nout;
    lc_vec v;
    const int *sci, *sdi = NULL, *rci, *rdi = NULL;
    int rc = vec_alloc(fn, comm, &v, n);
    if (rc != MPI_SUCCESS)
        return rc;
    v.n = nout;
    if ((rc = vec_counts(fn, comm, &v, 0, sb == MPI_IN_PLACE ? NULL : scounts, &sci)) !=
        MPI_SUCCESS)
        return vec_done(&v, f, rc);
    if (kind != K_NA2AW && (rc = vec_displs(fn, comm, &v, 1, sb == MPI_IN_PLACE ? NULL : sdispls,
                                            &sdi)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    /* the receive arrays after the send ones: index by the allocation's n, not nout */
    lc_vec vr = {v.mem + 2 * (size_t)(n > 0 ? n : 1), nin};
    if ((rc = vec_counts(fn, comm, &vr, 0, rcounts, &rci)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    if (kind != K_NA2AW && (rc = vec_displs(fn, comm, &vr, 1, rdispls, &rdi)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    switch (kind) {
    case K_A2AV:
        rc = BY_FORM(f, Alltoallv, Ialltoallv, sb, sci, sdi, st, rb, rci, rdi, rt, comm);
        break;
    case K_A2AW:
        rc = BY_FORM(f, Alltoallw, Ialltoallw, sb, sci, sdi, sts, rb, rci, rdi, rts, comm);
        break;
    case K_NA2AV:
        rc = BY_FORM(f, Neighbor_alltoallv, Ineighbor_alltoallv, sb, sci, sdi, st, rb, rci, rdi,
                     rt, comm);
        break;
    default:
        rc = BY_FORM(f, Neighbor_alltoallw, Ineighbor_alltoallw, sb, sci, sdispls, sts, rb, rci,
                     rdispls, rts, comm);
        break;
    }
    return vec_done(&v, f, rc);
}

static int reduce_scatter(const char *fn, const void *sb, void *rb, const MPI_Count *rcounts,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm, lc_form f)
{
    COMM_CHECK(fn, comm);
    lc_vec v;
    const int *rci;
    int rc = vec_alloc(fn, comm, &v, comm->size);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = vec_counts(fn, comm, &v, 0, rcounts, &rci)) != MPI_SUCCESS)
        return vec_done(&v, f, rc);
    rc = BY_FORM(f, Reduce_scatter, Ireduce_scatter, sb, rb, rci, dt, op, comm);
    return vec_done(&v, f, rc);
}

/* ---- the public names ---- */

#define REQ MPI_Request *request
#define PINFO MPI_Info info, MPI_Request *request

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_ENTER();
    return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, BLOCKING);
}
int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 REQ)
{
    MPI_ENTER();
    return bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, NONBLOCKING(request));
}
int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, PINFO)
{
    MPI_ENTER();
    return bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm,
                 PERSISTENT(info, request));
}

#define RED_ARGS const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, \
                 MPI_Op op
#define RED(fn, kind, root, form)                                                                  \
    MPI_ENTER();                                                                                   \
    return reduction(fn, kind, sendbuf, recvbuf, count, datatype, op, root, comm, form)

int MPI_Reduce_c(RED_ARGS, int root, MPI_Comm comm) { RED("MPI_Reduce_c", K_REDUCE, root, BLOCKING); }
int MPI_Ireduce_c(RED_ARGS, int root, MPI_Comm comm, REQ)
{
    RED("MPI_Ireduce_c", K_REDUCE, root, NONBLOCKING(request));
}
int MPI_Reduce_init_c(RED_ARGS, int root, MPI_Comm comm, PINFO)
{
    RED("MPI_Reduce_init_c", K_REDUCE, root, PERSISTENT(info, request));
}
int MPI_Allreduce_c(RED_ARGS, MPI_Comm comm) { RED("MPI_Allreduce_c", K_ALLREDUCE, 0, BLOCKING); }
int MPI_Iallreduce_c(RED_ARGS, MPI_Comm comm, REQ)
{
    RED("MPI_Iallreduce_c", K_ALLREDUCE, 0, NONBLOCKING(request));
}
int MPI_Allreduce_init_c(RED_ARGS, MPI_Comm comm, PINFO)
{
    RED("MPI_Allreduce_init_c", K_ALLREDUCE, 0, PERSISTENT(info, request));
}
int MPI_Scan_c(RED_ARGS, MPI_Comm comm) { RED("MPI_Scan_c", K_SCAN, 0, BLOCKING); }
int MPI_Iscan_c(RED_ARGS, MPI_Comm comm, REQ)
{
    RED("MPI_Iscan_c", K_SCAN, 0, NONBLOCKING(request));
}
int MPI_Scan_init_c(RED_ARGS, MPI_Comm comm, PINFO)
{
    RED("MPI_Scan_init_c", K_SCAN, 0, PERSISTENT(info, request));
}
int MPI_Exscan_c(RED_ARGS, MPI_Comm comm) { RED("MPI_Exscan_c", K_EXSCAN, 0, BLOCKING); }
int MPI_Iexscan_c(RED_ARGS, MPI_Comm comm, REQ)
{
    RED("MPI_Iexscan_c", K_EXSCAN, 0, NONBLOCKING(request));
}
int MPI_Exscan_init_c(RED_ARGS, MPI_Comm comm, PINFO)
{
    RED("MPI_Exscan_init_c", K_EXSCAN, 0, PERSISTENT(info, request));
}
#undef RED_ARGS
#undef RED

#define RSB_ARGS const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, \
                 MPI_Op op, MPI_Comm comm
#define RSB(fn, form)                                                                              \
    MPI_ENTER();                                                                                   \
    return reduction(fn, K_RSB, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, form)

int MPI_Reduce_scatter_block_c(RSB_ARGS) { RSB("MPI_Reduce_scatter_block_c", BLOCKING); }
int MPI_Ireduce_scatter_block_c(RSB_ARGS, REQ)
{
    RSB("MPI_Ireduce_scatter_block_c", NONBLOCKING(request));
}
int MPI_Reduce_scatter_block_init_c(RSB_ARGS, PINFO)
{
    RSB("MPI_Reduce_scatter_block_init_c", PERSISTENT(info, request));
}
#undef RSB_ARGS
#undef RSB

#define RS_ARGS const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], \
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define RS(fn, form)                                                                               \
    MPI_ENTER();                                                                                   \
    return reduce_scatter(fn, sendbuf, recvbuf, recvcounts, datatype, op, comm, form)

int MPI_Reduce_scatter_c(RS_ARGS) { RS("MPI_Reduce_scatter_c", BLOCKING); }
int MPI_Ireduce_scatter_c(RS_ARGS, REQ) { RS("MPI_Ireduce_scatter_c", NONBLOCKING(request)); }
int MPI_Reduce_scatter_init_c(RS_ARGS, PINFO)
{
    RS("MPI_Reduce_scatter_init_c", PERSISTENT(info, request));
}
#undef RS_ARGS
#undef RS

#define X_ARGS const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
               MPI_Count recvcount, MPI_Datatype recvtype
#define X(fn, kind, root, form)                                                                    \
    MPI_ENTER();                                                                                   \
    return exchange(fn, kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,    \
                    comm, form)

int MPI_Gather_c(X_ARGS, int root, MPI_Comm comm) { X("MPI_Gather_c", K_GATHER, root, BLOCKING); }
int MPI_Igather_c(X_ARGS, int root, MPI_Comm comm, REQ)
{
    X("MPI_Igather_c", K_GATHER, root, NONBLOCKING(request));
}
int MPI_Gather_init_c(X_ARGS, int root, MPI_Comm comm, PINFO)
{
    X("MPI_Gather_init_c", K_GATHER, root, PERSISTENT(info, request));
}
int MPI_Scatter_c(X_ARGS, int root, MPI_Comm comm)
{
    X("MPI_Scatter_c", K_SCATTER, root, BLOCKING);
}
int MPI_Iscatter_c(X_ARGS, int root, MPI_Comm comm, REQ)
{
    X("MPI_Iscatter_c", K_SCATTER, root, NONBLOCKING(request));
}
int MPI_Scatter_init_c(X_ARGS, int root, MPI_Comm comm, PINFO)
{
    X("MPI_Scatter_init_c", K_SCATTER, root, PERSISTENT(info, request));
}
int MPI_Allgather_c(X_ARGS, MPI_Comm comm) { X("MPI_Allgather_c", K_ALLGATHER, 0, BLOCKING); }
int MPI_Iallgather_c(X_ARGS, MPI_Comm comm, REQ)
{
    X("MPI_Iallgather_c", K_ALLGATHER, 0, NONBLOCKING(request));
}
int MPI_Allgather_init_c(X_ARGS, MPI_Comm comm, PINFO)
{
    X("MPI_Allgather_init_c", K_ALLGATHER, 0, PERSISTENT(info, request));
}
int MPI_Alltoall_c(X_ARGS, MPI_Comm comm) { X("MPI_Alltoall_c", K_ALLTOALL, 0, BLOCKING); }
int MPI_Ialltoall_c(X_ARGS, MPI_Comm comm, REQ)
{
    X("MPI_Ialltoall_c", K_ALLTOALL, 0, NONBLOCKING(request));
}
int MPI_Alltoall_init_c(X_ARGS, MPI_Comm comm, PINFO)
{
    X("MPI_Alltoall_init_c", K_ALLTOALL, 0, PERSISTENT(info, request));
}
int MPI_Neighbor_allgather_c(X_ARGS, MPI_Comm comm)
{
    X("MPI_Neighbor_allgather_c", K_NALLGATHER, 0, BLOCKING);
}
int MPI_Ineighbor_allgather_c(X_ARGS, MPI_Comm comm, REQ)
{
    X("MPI_Ineighbor_allgather_c", K_NALLGATHER, 0, NONBLOCKING(request));
}
int MPI_Neighbor_allgather_init_c(X_ARGS, MPI_Comm comm, PINFO)
{
    X("MPI_Neighbor_allgather_init_c", K_NALLGATHER, 0, PERSISTENT(info, request));
}
int MPI_Neighbor_alltoall_c(X_ARGS, MPI_Comm comm)
{
    X("MPI_Neighbor_alltoall_c", K_NALLTOALL, 0, BLOCKING);
}
int MPI_Ineighbor_alltoall_c(X_ARGS, MPI_Comm comm, REQ)
{
    X("MPI_Ineighbor_alltoall_c", K_NALLTOALL, 0, NONBLOCKING(request));
}
int MPI_Neighbor_alltoall_init_c(X_ARGS, MPI_Comm comm, PINFO)
{
    X("MPI_Neighbor_alltoall_init_c", K_NALLTOALL, 0, PERSISTENT(info, request));
}
#undef X_ARGS
#undef X

#define GV_ARGS const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, \
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype
#define GV(fn, form)                                                                               \
    MPI_ENTER();                                                                                   \
    return gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,  \
                   comm, form)
#define AGV(fn, nb, form)                                                                          \
    MPI_ENTER();                                                                                   \
    return allgatherv(fn, nb, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,          \
                      recvtype, comm, form)

int MPI_Gatherv_c(GV_ARGS, int root, MPI_Comm comm) { GV("MPI_Gatherv_c", BLOCKING); }
int MPI_Igatherv_c(GV_ARGS, int root, MPI_Comm comm, REQ)
{
    GV("MPI_Igatherv_c", NONBLOCKING(request));
}
int MPI_Gatherv_init_c(GV_ARGS, int root, MPI_Comm comm, PINFO)
{
    GV("MPI_Gatherv_init_c", PERSISTENT(info, request));
}
int MPI_Allgatherv_c(GV_ARGS, MPI_Comm comm) { AGV("MPI_Allgatherv_c", 0, BLOCKING); }
int MPI_Iallgatherv_c(GV_ARGS, MPI_Comm comm, REQ)
{
    AGV("MPI_Iallgatherv_c", 0, NONBLOCKING(request));
}
int MPI_Allgatherv_init_c(GV_ARGS, MPI_Comm comm, PINFO)
{
    AGV("MPI_Allgatherv_init_c", 0, PERSISTENT(info, request));
}
int MPI_Neighbor_allgatherv_c(GV_ARGS, MPI_Comm comm)
{
    AGV("MPI_Neighbor_allgatherv_c", 1, BLOCKING);
}
int MPI_Ineighbor_allgatherv_c(GV_ARGS, MPI_Comm comm, REQ)
{
    AGV("MPI_Ineighbor_allgatherv_c", 1, NONBLOCKING(request));
}
int MPI_Neighbor_allgatherv_init_c(GV_ARGS, MPI_Comm comm, PINFO)
{
    AGV("MPI_Neighbor_allgatherv_init_c", 1, PERSISTENT(info, request));
}
#undef GV_ARGS
#undef GV
#undef AGV

#define SV_ARGS const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], \
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, \
                int root, MPI_Comm comm
#define SV(fn, form)                                                                               \
    MPI_ENTER();                                                                                   \
    return scatterv(fn, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, \
                    comm, form)

int MPI_Scatterv_c(SV_ARGS) { SV("MPI_Scatterv_c", BLOCKING); }
int MPI_Iscatterv_c(SV_ARGS, REQ) { SV("MPI_Iscatterv_c", NONBLOCKING(request)); }
int MPI_Scatterv_init_c(SV_ARGS, PINFO) { SV("MPI_Scatterv_init_c", PERSISTENT(info, request)); }
#undef SV_ARGS
#undef SV

#define AV_ARGS const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], \
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], \
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm
#define AV(fn, kind, form)                                                                         \
    MPI_ENTER();                                                                                   \
    return alltoallvw(fn, kind, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,            \
                      recvcounts, rdispls, recvtype, NULL, comm, form)

int MPI_Alltoallv_c(AV_ARGS) { AV("MPI_Alltoallv_c", K_A2AV, BLOCKING); }
int MPI_Ialltoallv_c(AV_ARGS, REQ) { AV("MPI_Ialltoallv_c", K_A2AV, NONBLOCKING(request)); }
int MPI_Alltoallv_init_c(AV_ARGS, PINFO)
{
    AV("MPI_Alltoallv_init_c", K_A2AV, PERSISTENT(info, request));
}
int MPI_Neighbor_alltoallv_c(AV_ARGS) { AV("MPI_Neighbor_alltoallv_c", K_NA2AV, BLOCKING); }
int MPI_Ineighbor_alltoallv_c(AV_ARGS, REQ)
{
    AV("MPI_Ineighbor_alltoallv_c", K_NA2AV, NONBLOCKING(request));
}
int MPI_Neighbor_alltoallv_init_c(AV_ARGS, PINFO)
{
    AV("MPI_Neighbor_alltoallv_init_c", K_NA2AV, PERSISTENT(info, request));
}
#undef AV_ARGS
#undef AV

#define AW_ARGS const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], \
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], \
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define AW(fn, kind, form)                                                                         \
    MPI_ENTER();                                                                                   \
    return alltoallvw(fn, kind, sendbuf, sendcounts, sdispls, NULL, sendtypes, recvbuf,           \
                      recvcounts, rdispls, NULL, recvtypes, comm, form)

int MPI_Alltoallw_c(AW_ARGS) { AW("MPI_Alltoallw_c", K_A2AW, BLOCKING); }
int MPI_Ialltoallw_c(AW_ARGS, REQ) { AW("MPI_Ialltoallw_c", K_A2AW, NONBLOCKING(request)); }
int MPI_Alltoallw_init_c(AW_ARGS, PINFO)
{
    AW("MPI_Alltoallw_init_c", K_A2AW, PERSISTENT(info, request));
}
int MPI_Neighbor_alltoallw_c(AW_ARGS) { AW("MPI_Neighbor_alltoallw_c", K_NA2AW, BLOCKING); }
int MPI_Ineighbor_alltoallw_c(AW_ARGS, REQ)
{
    AW("MPI_Ineighbor_alltoallw_c", K_NA2AW, NONBLOCKING(request));
}
int MPI_Neighbor_alltoallw_init_c(AW_ARGS, PINFO)
{
    AW("MPI_Neighbor_alltoallw_init_c", K_NA2AW, PERSISTENT(info, request));
}
#undef AW_ARGS
#undef AW

CREDO_PMPI(MPI_Bcast_c)
CREDO_PMPI(MPI_Ibcast_c)
CREDO_PMPI(MPI_Bcast_init_c)
CREDO_PMPI(MPI_Reduce_c)
CREDO_PMPI(MPI_Ireduce_c)
CREDO_PMPI(MPI_Reduce_init_c)
CREDO_PMPI(MPI_Allreduce_c)
CREDO_PMPI(MPI_Iallreduce_c)
CREDO_PMPI(MPI_Allreduce_init_c)
CREDO_PMPI(MPI_Scan_c)
CREDO_PMPI(MPI_Iscan_c)
CREDO_PMPI(MPI_Scan_init_c)
CREDO_PMPI(MPI_Exscan_c)
CREDO_PMPI(MPI_Iexscan_c)
CREDO_PMPI(MPI_Exscan_init_c)
CREDO_PMPI(MPI_Reduce_scatter_block_c)
CREDO_PMPI(MPI_Ireduce_scatter_block_c)
CREDO_PMPI(MPI_Reduce_scatter_block_init_c)
CREDO_PMPI(MPI_Reduce_scatter_c)
CREDO_PMPI(MPI_Ireduce_scatter_c)
CREDO_PMPI(MPI_Reduce_scatter_init_c)
CREDO_PMPI(MPI_Gather_c)
CREDO_PMPI(MPI_Igather_c)
CREDO_PMPI(MPI_Gather_init_c)
CREDO_PMPI(MPI_Scatter_c)
CREDO_PMPI(MPI_Iscatter_c)
CREDO_PMPI(MPI_Scatter_init_c)
CREDO_PMPI(MPI_Allgather_c)
CREDO_PMPI(MPI_Iallgather_c)
CREDO_PMPI(MPI_Allgather_init_c)
CREDO_PMPI(MPI_Alltoall_c)
CREDO_PMPI(MPI_Ialltoall_c)
CREDO_PMPI(MPI_Alltoall_init_c)
CREDO_PMPI(MPI_Neighbor_allgather_c)
CREDO_PMPI(MPI_Ineighbor_allgather_c)
CREDO_PMPI(MPI_Neighbor_allgather_init_c)
CREDO_PMPI(MPI_Neighbor_alltoall_c)
CREDO_PMPI(MPI_Ineighbor_alltoall_c)
CREDO_PMPI(MPI_Neighbor_alltoall_init_c)
CREDO_PMPI(MPI_Gatherv_c)
CREDO_PMPI(MPI_Igatherv_c)
CREDO_PMPI(MPI_Gatherv_init_c)
CREDO_PMPI(MPI_Allgatherv_c)
CREDO_PMPI(MPI_Iallgatherv_c)
CREDO_PMPI(MPI_Allgatherv_init_c)
CREDO_PMPI(MPI_Neighbor_allgatherv_c)
CREDO_PMPI(MPI_Ineighbor_allgatherv_c)
CREDO_PMPI(MPI_Neighbor_allgatherv_init_c)
CREDO_PMPI(MPI_Scatterv_c)
CREDO_PMPI(MPI_Iscatterv_c)
CREDO_PMPI(MPI_Scatterv_init_c)
CREDO_PMPI(MPI_Alltoallv_c)
CREDO_PMPI(MPI_Ialltoallv_c)
CREDO_PMPI(MPI_Alltoallv_init_c)
CREDO_PMPI(MPI_Neighbor_alltoallv_c)
CREDO_PMPI(MPI_Ineighbor_alltoallv_c)
CREDO_PMPI(MPI_Neighbor_alltoallv_init_c)
CREDO_PMPI(MPI_Alltoallw_c)
CREDO_PMPI(MPI_Ialltoallw_c)
CREDO_PMPI(MPI_Alltoallw_init_c)
CREDO_PMPI(MPI_Neighbor_alltoallw_c)
CREDO_PMPI(MPI_Ineighbor_alltoallw_c)
CREDO_PMPI(MPI_Neighbor_alltoallw_init_c)
