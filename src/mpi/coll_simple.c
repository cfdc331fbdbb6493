/* src/mpi/coll_simple.c — Barrier, Bcast, Reduce, Allreduce over point-to-point on each
 * communicator's collective context; stand-ins until the GOAL schedules of src/coll replace them. */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "mpi/op.h"

/* ---- building blocks (comm ranks, collective context, no argument checks) ---- */

static int coll_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    p2p_req *r;
    int rc = mpi_isend(buf, count, dt, dest, tag, comm, comm->ctx + 1, P2P_MODE_STANDARD, &r);
    return rc != MPI_SUCCESS ? rc : mpi_req_wait(r, NULL);
}

static int coll_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    p2p_req *r;
    int rc = mpi_irecv(buf, count, dt, src, tag, comm, comm->ctx + 1, &r);
    return rc != MPI_SUCCESS ? rc : mpi_req_wait(r, NULL);
}

/* Dissemination barrier: ceil(log2 n) rounds of empty messages. */
int mpi_coll_barrier(MPI_Comm comm)
{
    int n = comm->size, me = comm->rank;
    for (int k = 1; k < n; k <<= 1) {
        p2p_req *rr, *sr;
        int rc = mpi_irecv(NULL, 0, MPI_BYTE, (me - k + n) % n, COLL_TAG_BARRIER, comm,
                           comm->ctx + 1, &rr);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = mpi_isend(NULL, 0, MPI_BYTE, (me + k) % n, COLL_TAG_BARRIER, comm, comm->ctx + 1,
                       P2P_MODE_STANDARD, &sr);
        if (rc != MPI_SUCCESS) {
            mpi_req_wait(rr, NULL);
            return rc;
        }
        int rc1 = mpi_req_wait(sr, NULL), rc2 = mpi_req_wait(rr, NULL);
        if (rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS)
            return rc1 != MPI_SUCCESS ? rc1 : rc2;
    }
    return MPI_SUCCESS;
}

/* Binomial tree broadcast rooted at root. */
static int coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int n = comm->size, vr = (comm->rank - root + n) % n, mask = 1, rc;
    while (mask < n) {
        if (vr & mask) {
            rc = coll_recv(buf, count, dt, (vr - mask + root) % n, COLL_TAG_BCAST, comm);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < n) {
            rc = coll_send(buf, count, dt, (vr + mask + root) % n, COLL_TAG_BCAST, comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Gathers n ints from every rank to all (linear gather to rank 0, then broadcast). */
int mpi_coll_allgather_int(MPI_Comm comm, const int *mine, int n, int *all)
{
    int rc = MPI_SUCCESS;
    if (comm->rank == 0) {
        memcpy(all, mine, (size_t)n * sizeof(int));
        for (int r = 1; r < comm->size && rc == MPI_SUCCESS; r++)
            rc = coll_recv(all + (size_t)r * n, n, MPI_INT, r, COLL_TAG_GATHER, comm);
    } else {
        rc = coll_send(mine, n, MPI_INT, 0, COLL_TAG_GATHER, comm);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_bcast(all, n * comm->size, MPI_INT, 0, comm);
}

/* A scratch buffer able to hold count elements of dt laid out as in user memory; *base is the
 * allocation and the result the matching "user" pointer (they differ by the true lower bound). */
static void *scratch(MPI_Datatype dt, int count, void **base)
{
    size_t span = dt_span(dt, (size_t)count);
    *base = malloc(span ? span : 1);
    if (*base == NULL)
        return NULL;
    return BUF_AT(*base, -dt->true_lb);
}

/* Binomial reduction of `input` into recvbuf at root. Commutative ops combine along a tree
 * rooted at root; non-commutative ones along a tree rooted at 0 (which keeps rank order, the
 * lower ranks' partial result always being the left operand) followed by a send to root. */
static int coll_reduce(const void *input, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm comm)
{
    int n = comm->size, me = comm->rank;
    if (n == 1) {
        if (input != recvbuf)
            dt_copy(input, recvbuf, (size_t)count, dt);
        return MPI_SUCCESS;
    }
    int tree_root = op->commute ? root : 0;
    int vr = (me - tree_root + n) % n;
    void *acc_base, *tmp_base;
    void *acc = scratch(dt, count, &acc_base), *tmp = scratch(dt, count, &tmp_base);
    if (acc == NULL || tmp == NULL) {
        free(acc_base);
        free(tmp_base);
        return MPI_ERR_NO_MEM;
    }
    dt_copy(input, acc, (size_t)count, dt);
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            rc = coll_send(acc, count, dt, (vr - mask + tree_root) % n, COLL_TAG_REDUCE, comm);
            break;
        }
        if (vr + mask < n) {
            rc = coll_recv(tmp, count, dt, (vr + mask + tree_root) % n, COLL_TAG_REDUCE, comm);
            if (rc != MPI_SUCCESS)
                break;
            op_apply(op, acc, tmp, count, dt); /* tmp = acc op tmp */
            void *t = acc, *tb = acc_base;
            acc = tmp;
            acc_base = tmp_base;
            tmp = t;
            tmp_base = tb;
        }
    }
    if (rc == MPI_SUCCESS) {
        if (me == tree_root && me == root)
            dt_copy(acc, recvbuf, (size_t)count, dt);
        else if (me == tree_root)
            rc = coll_send(acc, count, dt, root, COLL_TAG_REDUCE, comm);
        else if (me == root)
            rc = coll_recv(recvbuf, count, dt, tree_root, COLL_TAG_REDUCE, comm);
    }
    free(acc_base);
    free(tmp_base);
    return rc;
}

/* ---- bindings ---- */

static int check_comm(const char *fn, MPI_Comm comm)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    return MPI_SUCCESS;
}

static int check_root(const char *fn, int root, MPI_Comm comm)
{
    if (root < 0 || root >= comm->size)
        return mpi_error(comm, MPI_ERR_ROOT, fn, "invalid root %d (communicator size %d)", root,
                         comm->size);
    return MPI_SUCCESS;
}

static int check_op(const char *fn, MPI_Op op, MPI_Datatype dt, MPI_Comm comm)
{
    int rc = op_check(op, dt);
    if (rc == MPI_ERR_OP && (op == NULL || op->magic != OP_MAGIC))
        return mpi_error(comm, rc, fn, "invalid reduction operation");
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "%s is not defined for datatype %s", op_name(op),
                         dt->name ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    int rc = check_comm(fn, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = mpi_coll_barrier(comm);
    return rc == MPI_SUCCESS ? rc : mpi_error(comm, rc, fn, "barrier failed");
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bcast";
    int rc;
    if ((rc = check_comm(fn, comm)) != MPI_SUCCESS ||
        (rc = mpi_check_buf(comm, fn, buffer, count, datatype)) != MPI_SUCCESS ||
        (rc = check_root(fn, root, comm)) != MPI_SUCCESS)
        return rc;
    if (count == 0 || comm->size == 1)
        return MPI_SUCCESS;
    rc = coll_bcast(buffer, count, datatype, root, comm);
    return rc == MPI_SUCCESS ? rc : mpi_error(comm, rc, fn, "broadcast failed");
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    int rc;
    if ((rc = check_comm(fn, comm)) != MPI_SUCCESS ||
        (rc = check_root(fn, root, comm)) != MPI_SUCCESS)
        return rc;
    int at_root = comm->rank == root;
    if (sendbuf == MPI_IN_PLACE && !at_root)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if ((rc = mpi_check_buf(comm, fn, input, count, datatype)) != MPI_SUCCESS ||
        (at_root && (rc = mpi_check_buf(comm, fn, recvbuf, count, datatype)) != MPI_SUCCESS) ||
        (rc = check_op(fn, op, datatype, comm)) != MPI_SUCCESS)
        return rc;
    if (count == 0)
        return MPI_SUCCESS;
    rc = coll_reduce(input, at_root ? recvbuf : NULL, count, datatype, op, root, comm);
    return rc == MPI_SUCCESS ? rc : mpi_error(comm, rc, fn, "reduction failed");
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    int rc;
    if ((rc = check_comm(fn, comm)) != MPI_SUCCESS)
        return rc;
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if ((rc = mpi_check_buf(comm, fn, input, count, datatype)) != MPI_SUCCESS ||
        (rc = mpi_check_buf(comm, fn, recvbuf, count, datatype)) != MPI_SUCCESS ||
        (rc = check_op(fn, op, datatype, comm)) != MPI_SUCCESS)
        return rc;
    if (count == 0)
        return MPI_SUCCESS;
    rc = coll_reduce(input, recvbuf, count, datatype, op, 0, comm);
    if (rc == MPI_SUCCESS && comm->size > 1)
        rc = coll_bcast(recvbuf, count, datatype, 0, comm);
    return rc == MPI_SUCCESS ? rc : mpi_error(comm, rc, fn, "reduction failed");
}

CREDO_PMPI(MPI_Barrier)
CREDO_PMPI(MPI_Bcast)
CREDO_PMPI(MPI_Reduce)
CREDO_PMPI(MPI_Allreduce)
