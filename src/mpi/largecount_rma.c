/* src/mpi/largecount_rma.c — the MPI 4.0 large-count (_c) forms of one-sided communication: window
 * creation with MPI_Aint displacement units, and the transfer calls with MPI_Count counts. */
#include "mpi/largecount.h"
#include "mpi/mpi_impl.h"
#include "mpi/win_impl.h"

/* Windows keep an int displacement unit (win.c exchanges it as one), so a larger unit is refused;
 * a count beyond INT_MAX of a contiguous type becomes one element of a contiguous type, as for
 * point-to-point (largecount.h), and errors are raised through the window's handler. */

static int disp_unit_of(const char *fn, MPI_Comm comm, MPI_Aint disp_unit, int *out)
{
    if (disp_unit > INT_MAX)
        return mpi_error(comm, MPI_ERR_DISP, fn,
                         "disp_unit %lld: credo's windows take at most INT_MAX",
                         (long long)disp_unit);
    *out = disp_unit < 0 ? -1 : (int)disp_unit; /* non-positive: the int form reports it */
    return MPI_SUCCESS;
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win)
{
    MPI_ENTER();
    int du = 0;
    int rc = disp_unit_of("MPI_Win_create_c", comm, disp_unit, &du);
    return rc != MPI_SUCCESS ? rc : PMPI_Win_create(base, size, du, info, comm, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win)
{
    MPI_ENTER();
    int du = 0;
    int rc = disp_unit_of("MPI_Win_allocate_c", comm, disp_unit, &du);
    return rc != MPI_SUCCESS ? rc : PMPI_Win_allocate(size, du, info, comm, baseptr, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win)
{
    MPI_ENTER();
    int du = 0;
    int rc = disp_unit_of("MPI_Win_allocate_shared_c", comm, disp_unit, &du);
    return rc != MPI_SUCCESS ? rc : PMPI_Win_allocate_shared(size, du, info, comm, baseptr, win);
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr)
{
    MPI_ENTER();
    int du = 0;
    int rc = PMPI_Win_shared_query(win, rank, size, disp_unit ? &du : NULL, baseptr);
    if (rc == MPI_SUCCESS && disp_unit != NULL)
        *disp_unit = du;
    return rc;
}

/* lc_arg_of with the window's handler for the count errors. */
static int rma_arg(const char *fn, MPI_Win win, MPI_Count count, MPI_Datatype dt, lc_arg *a)
{
    if (count >= 0 && count <= INT_MAX)
        return lc_arg_of(fn, NULL, count, dt, a);
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0)
        return win_error(win, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!dt_ok(dt))
        return win_error(win, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (!(dt->flags & DT_F_DENSE))
        return win_error(win, MPI_ERR_COUNT, fn,
                         "count %lld exceeds INT_MAX and the datatype is not contiguous "
                         "(credo takes counts beyond INT_MAX of contiguous datatypes only)",
                         (long long)count);
    return lc_arg_of(fn, NULL, count, dt, a);
}

/* Up to three (count, type) pairs converted; the call runs only if all were. */
typedef struct rma_args {
    lc_arg o, r, t;
} rma_args;

static int rma_args_of(const char *fn, MPI_Win win, rma_args *x, MPI_Count oc, MPI_Datatype ot,
                       MPI_Count rc_, MPI_Datatype rt, MPI_Count tc, MPI_Datatype tt)
{
    x->o.tmp = x->r.tmp = x->t.tmp = NULL;
    int rc = rma_arg(fn, win, oc, ot, &x->o);
    if (rc == MPI_SUCCESS)
        rc = rma_arg(fn, win, rc_, rt, &x->r);
    if (rc == MPI_SUCCESS)
        rc = rma_arg(fn, win, tc, tt, &x->t);
    return rc;
}

static int rma_done(rma_args *x, int rc)
{
    lc_arg_done(&x->o);
    lc_arg_done(&x->r);
    lc_arg_done(&x->t);
    return rc;
}

#define ORIGIN x.o.n, x.o.dt
#define RESULT x.r.n, x.r.dt
#define TARGET x.t.n, x.t.dt

int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Put_c", win, &x, origin_count, origin_datatype, 0, MPI_BYTE,
                         target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Put(origin_addr, ORIGIN, target_rank, target_disp, TARGET, win);
    return rma_done(&x, rc);
}

int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Get_c", win, &x, origin_count, origin_datatype, 0, MPI_BYTE,
                         target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Get(origin_addr, ORIGIN, target_rank, target_disp, TARGET, win);
    return rma_done(&x, rc);
}

int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                     MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                     MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Accumulate_c", win, &x, origin_count, origin_datatype, 0, MPI_BYTE,
                         target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Accumulate(origin_addr, ORIGIN, target_rank, target_disp, TARGET, op, win);
    return rma_done(&x, rc);
}

int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Get_accumulate_c", win, &x, origin_count, origin_datatype,
                         result_count, result_datatype, target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Get_accumulate(origin_addr, ORIGIN, result_addr, RESULT, target_rank,
                                 target_disp, TARGET, op, win);
    return rma_done(&x, rc);
}

int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Rput_c", win, &x, origin_count, origin_datatype, 0, MPI_BYTE,
                         target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Rput(origin_addr, ORIGIN, target_rank, target_disp, TARGET, win, request);
    return rma_done(&x, rc);
}

int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Rget_c", win, &x, origin_count, origin_datatype, 0, MPI_BYTE,
                         target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Rget(origin_addr, ORIGIN, target_rank, target_disp, TARGET, win, request);
    return rma_done(&x, rc);
}

int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win, MPI_Request *request)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Raccumulate_c", win, &x, origin_count, origin_datatype, 0,
                         MPI_BYTE, target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Raccumulate(origin_addr, ORIGIN, target_rank, target_disp, TARGET, op, win,
                              request);
    return rma_done(&x, rc);
}

int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request)
{
    MPI_ENTER();
    rma_args x;
    int rc = rma_args_of("MPI_Rget_accumulate_c", win, &x, origin_count, origin_datatype,
                         result_count, result_datatype, target_count, target_datatype);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Rget_accumulate(origin_addr, ORIGIN, result_addr, RESULT, target_rank,
                                  target_disp, TARGET, op, win, request);
    return rma_done(&x, rc);
}

CREDO_PMPI(MPI_Win_create_c)
CREDO_PMPI(MPI_Win_allocate_c)
CREDO_PMPI(MPI_Win_allocate_shared_c)
CREDO_PMPI(MPI_Win_shared_query_c)
CREDO_PMPI(MPI_Put_c)
CREDO_PMPI(MPI_Get_c)
CREDO_PMPI(MPI_Accumulate_c)
CREDO_PMPI(MPI_Get_accumulate_c)
CREDO_PMPI(MPI_Rput_c)
CREDO_PMPI(MPI_Rget_c)
CREDO_PMPI(MPI_Raccumulate_c)
CREDO_PMPI(MPI_Rget_accumulate_c)
