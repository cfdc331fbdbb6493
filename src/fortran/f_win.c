/* src/fortran/f_win.c — Fortran bindings of one-sided communication and of generalized requests.
 *
 * Sizes and displacements are INTEGER(KIND=MPI_ADDRESS_KIND), C's MPI_Aint. An address handed out
 * (the BASEPTR of MPI_WIN_ALLOCATE, MPI_WIN_ALLOCATE_SHARED and MPI_WIN_SHARED_QUERY, the value of
 * MPI_WIN_BASE) is that integer, as MPI's Fortran binding without TYPE(C_PTR) defines it: the
 * program uses it through a Cray pointer, or TRANSFERs it to a TYPE(C_PTR) for C_F_POINTER. */
#include <stdint.h>

#include "fortran/fbind.h"
#include "mpi/attr.h"

static MPI_Aint f_addr(const void *p) { return (MPI_Aint)(intptr_t)p; }

/* ---- windows ---------------------------------------------------------------------------------- */

void mpi_win_create_(void *base, MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info,
                     MPI_Fint *comm, MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = MPI_WIN_NULL;
    *ierr = MPI_Win_create(f_buf(base), *size, *disp_unit, MPI_Info_f2c(*info),
                           MPI_Comm_f2c(*comm), &w);
    *win = MPI_Win_c2f(w);
}
F_PMPI(win_create)

/* BASEPTR is written only when the call succeeds. */
#define F_WIN_ALLOC(lower, Cname)                                                                  \
    void mpi_##lower##_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,       \
                        MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierr)                          \
    {                                                                                              \
        MPI_Win w = MPI_WIN_NULL;                                                                  \
        void *p = NULL;                                                                            \
        *ierr = Cname(*size, *disp_unit, MPI_Info_f2c(*info), MPI_Comm_f2c(*comm), &p, &w);        \
        *win = MPI_Win_c2f(w);                                                                     \
        if (*ierr == MPI_SUCCESS)                                                                  \
            *baseptr = f_addr(p);                                                                  \
    }                                                                                              \
    F_PMPI(lower)
F_WIN_ALLOC(win_allocate, MPI_Win_allocate)
F_WIN_ALLOC(win_allocate_shared, MPI_Win_allocate_shared)

void mpi_win_shared_query_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit,
                           MPI_Aint *baseptr, MPI_Fint *ierr)
{
    MPI_Aint n = 0;
    int du = 0;
    void *p = NULL;
    *ierr = MPI_Win_shared_query(W(win), *rank, &n, &du, &p);
    if (*ierr != MPI_SUCCESS)
        return;
    *size = n;
    *disp_unit = du;
    *baseptr = f_addr(p);
}
F_PMPI(win_shared_query)

void mpi_win_create_dynamic_(MPI_Fint *info, MPI_Fint *comm, MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = MPI_WIN_NULL;
    *ierr = MPI_Win_create_dynamic(MPI_Info_f2c(*info), MPI_Comm_f2c(*comm), &w);
    *win = MPI_Win_c2f(w);
}
F_PMPI(win_create_dynamic)

void mpi_win_attach_(MPI_Fint *win, void *base, MPI_Aint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Win_attach(W(win), f_buf(base), *size);
}
F_PMPI(win_attach)

void mpi_win_detach_(MPI_Fint *win, const void *base, MPI_Fint *ierr)
{
    *ierr = MPI_Win_detach(W(win), f_buf(base));
}
F_PMPI(win_detach)

/* The handle comes back as MPI_WIN_NULL's integer, 0. */
void mpi_win_free_(MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = W(win);
    *ierr = MPI_Win_free(&w);
    *win = MPI_Win_c2f(w);
}
F_PMPI(win_free)

void mpi_win_get_group_(MPI_Fint *win, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Win_get_group(W(win), &g);
    *group = MPI_Group_c2f(g);
}
F_PMPI(win_get_group)

void mpi_win_set_name_(MPI_Fint *win, const char *win_name, MPI_Fint *ierr, size_t win_name_len)
{
    char *c = f_str_in(win_name, win_name_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_Win_set_name");
        return;
    }
    *ierr = MPI_Win_set_name(W(win), c);
    free(c);
}
F_PMPI(win_set_name)

void mpi_win_get_name_(MPI_Fint *win, char *win_name, MPI_Fint *resultlen, MPI_Fint *ierr,
                       size_t win_name_len)
{
    char c[MPI_MAX_OBJECT_NAME + 1] = "";
    int n = 0;
    *ierr = MPI_Win_get_name(W(win), c, &n);
    f_str_result(win_name, win_name_len, c, n, resultlen);
}
F_PMPI(win_get_name)

/* attr.c gives the value as an integer (src/mpi/attr.h): MPI_WIN_BASE's address, the other
 * predefined keys' values, a user key's value in the form it was set in (a C pointer's address, a
 * Fortran integer's value). */
void mpi_win_get_attr_(MPI_Fint *win, MPI_Fint *win_keyval, MPI_Aint *attribute_val,
                       MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Aint v = 0;
    int f = 0;
    *ierr = mpi_attr_win_fget(W(win), *win_keyval, &v, &f);
    *flag = f_logical(f);
    if (*ierr == MPI_SUCCESS && f)
        *attribute_val = v;
}
F_PMPI(win_get_attr)

void mpi_win_set_errhandler_(MPI_Fint *win, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Win_set_errhandler(W(win), MPI_Errhandler_f2c(*errhandler));
}
F_PMPI(win_set_errhandler)

void mpi_win_get_errhandler_(MPI_Fint *win, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Win_get_errhandler(W(win), &e);
    *errhandler = MPI_Errhandler_c2f(e);
}
F_PMPI(win_get_errhandler)

/* ---- communication ---------------------------------------------------------------------------- */

/* Put and Get: one origin buffer; the request forms add an output request. */
#define F_PUTGET(lower, Cname, cq)                                                                 \
    void mpi_##lower##_(cq void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,   \
                        MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,      \
                        MPI_Fint *target_datatype, MPI_Fint *win, MPI_Fint *ierr)                  \
    {                                                                                              \
        *ierr = Cname(f_buf(origin_addr), *origin_count, T(origin_datatype), *target_rank,         \
                      *target_disp, *target_count, T(target_datatype), W(win));                    \
    }                                                                                              \
    F_PMPI(lower)
F_PUTGET(put, MPI_Put, const)
F_PUTGET(get, MPI_Get, )

#define F_RPUTGET(lower, Cname, cq)                                                                \
    void mpi_##lower##_(cq void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,   \
                        MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,      \
                        MPI_Fint *target_datatype, MPI_Fint *win, MPI_Fint *request,               \
                        MPI_Fint *ierr)                                                            \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        *ierr = Cname(f_buf(origin_addr), *origin_count, T(origin_datatype), *target_rank,         \
                      *target_disp, *target_count, T(target_datatype), W(win), &r);                \
        *request = MPI_Request_c2f(r);                                                             \
    }                                                                                              \
    F_PMPI(lower)
F_RPUTGET(rput, MPI_Rput, const)
F_RPUTGET(rget, MPI_Rget, )

void mpi_accumulate_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
                     MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
                     MPI_Fint *target_datatype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Accumulate(f_buf(origin_addr), *origin_count, T(origin_datatype), *target_rank,
                           *target_disp, *target_count, T(target_datatype), O(op), W(win));
}
F_PMPI(accumulate)

void mpi_raccumulate_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
                      MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
                      MPI_Fint *target_datatype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *request,
                      MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Raccumulate(f_buf(origin_addr), *origin_count, T(origin_datatype), *target_rank,
                            *target_disp, *target_count, T(target_datatype), O(op), W(win), &r);
    *request = MPI_Request_c2f(r);
}
F_PMPI(raccumulate)

void mpi_get_accumulate_(const void *origin_addr, MPI_Fint *origin_count,
                         MPI_Fint *origin_datatype, void *result_addr, MPI_Fint *result_count,
                         MPI_Fint *result_datatype, MPI_Fint *target_rank, MPI_Aint *target_disp,
                         MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *op,
                         MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Get_accumulate(f_buf(origin_addr), *origin_count, T(origin_datatype),
                               f_buf(result_addr), *result_count, T(result_datatype),
                               *target_rank, *target_disp, *target_count, T(target_datatype),
                               O(op), W(win));
}
F_PMPI(get_accumulate)

void mpi_rget_accumulate_(const void *origin_addr, MPI_Fint *origin_count,
                          MPI_Fint *origin_datatype, void *result_addr, MPI_Fint *result_count,
                          MPI_Fint *result_datatype, MPI_Fint *target_rank, MPI_Aint *target_disp,
                          MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *op,
                          MPI_Fint *win, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Rget_accumulate(f_buf(origin_addr), *origin_count, T(origin_datatype),
                                f_buf(result_addr), *result_count, T(result_datatype),
                                *target_rank, *target_disp, *target_count, T(target_datatype),
                                O(op), W(win), &r);
    *request = MPI_Request_c2f(r);
}
F_PMPI(rget_accumulate)

void mpi_fetch_and_op_(const void *origin_addr, void *result_addr, MPI_Fint *datatype,
                       MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *op, MPI_Fint *win,
                       MPI_Fint *ierr)
{
    *ierr = MPI_Fetch_and_op(f_buf(origin_addr), f_buf(result_addr), T(datatype), *target_rank,
                             *target_disp, O(op), W(win));
}
F_PMPI(fetch_and_op)

void mpi_compare_and_swap_(const void *origin_addr, const void *compare_addr, void *result_addr,
                           MPI_Fint *datatype, MPI_Fint *target_rank, MPI_Aint *target_disp,
                           MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Compare_and_swap(f_buf(origin_addr), f_buf(compare_addr), f_buf(result_addr),
                                 T(datatype), *target_rank, *target_disp, W(win));
}
F_PMPI(compare_and_swap)

/* ---- synchronization -------------------------------------------------------------------------- */

void mpi_win_fence_(MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_fence(*assert, W(win));
}
F_PMPI(win_fence)

void mpi_win_lock_(MPI_Fint *lock_type, MPI_Fint *rank, MPI_Fint *assert, MPI_Fint *win,
                   MPI_Fint *ierr)
{
    *ierr = MPI_Win_lock(*lock_type, *rank, *assert, W(win));
}
F_PMPI(win_lock)

void mpi_win_lock_all_(MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_lock_all(*assert, W(win));
}
F_PMPI(win_lock_all)

/* The calls on one target rank and a window. */
#define F_WIN_RANK(lower, Cname)                                                                   \
    void mpi_##lower##_(MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr)                             \
    {                                                                                              \
        *ierr = Cname(*rank, W(win));                                                              \
    }                                                                                              \
    F_PMPI(lower)
F_WIN_RANK(win_unlock, MPI_Win_unlock)
F_WIN_RANK(win_flush, MPI_Win_flush)
F_WIN_RANK(win_flush_local, MPI_Win_flush_local)

/* The calls on a window alone. */
#define F_WIN_ONLY(lower, Cname)                                                                   \
    void mpi_##lower##_(MPI_Fint *win, MPI_Fint *ierr) { *ierr = Cname(W(win)); }                  \
    F_PMPI(lower)
F_WIN_ONLY(win_unlock_all, MPI_Win_unlock_all)
F_WIN_ONLY(win_flush_all, MPI_Win_flush_all)
F_WIN_ONLY(win_flush_local_all, MPI_Win_flush_local_all)
F_WIN_ONLY(win_sync, MPI_Win_sync)
F_WIN_ONLY(win_complete, MPI_Win_complete)
F_WIN_ONLY(win_wait, MPI_Win_wait)

void mpi_win_post_(MPI_Fint *group, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_post(G(group), *assert, W(win));
}
F_PMPI(win_post)

void mpi_win_start_(MPI_Fint *group, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_start(G(group), *assert, W(win));
}
F_PMPI(win_start)

void mpi_win_test_(MPI_Fint *win, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Win_test(W(win), &f);
    *flag = f_logical(f);
}
F_PMPI(win_test)

/* ---- generalized requests --------------------------------------------------------------------- */

/* The Fortran callbacks, gfortran convention (every argument by reference). */
typedef void f_greq_query(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierr);
typedef void f_greq_free(MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void f_greq_cancel(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierr);

/* A request's C extra state: its three procedures and the program's EXTRA_STATE. The callbacks
 * get the program's own variable, as with MPICH and Open MPI (MPICH's greqf test has free_fn
 * change it and reads the change after the wait): the variable must outlive the request. The
 * record is freed by the free trampoline, which greq.c runs exactly once per request, after the
 * last query and cancel (greq_free, from MPI_Grequest_complete or from the request's release). */
struct fgreq {
    f_greq_query *query;
    f_greq_free *free;
    f_greq_cancel *cancel;
    MPI_Aint *extra;
};

/* The C status is copied to a Fortran status and back (the Fortran array is only 4-byte
 * aligned); the procedure's IERROR is the callback's return. */
static int greq_query_tr(void *extra_state, MPI_Status *status)
{
    const struct fgreq *g = extra_state;
    MPI_Fint f[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;
    memcpy(f, status, sizeof *status);
    g->query(g->extra, f, &ierr);
    memcpy(status, f, sizeof *status);
    return ierr;
}

static int greq_free_tr(void *extra_state)
{
    struct fgreq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel_tr(void *extra_state, int complete)
{
    const struct fgreq *g = extra_state;
    MPI_Fint c = f_logical(complete), ierr = MPI_SUCCESS;
    g->cancel(g->extra, &c, &ierr);
    return ierr;
}

void mpi_grequest_start_(f_greq_query *query_fn, f_greq_free *free_fn, f_greq_cancel *cancel_fn,
                         MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierr)
{
    struct fgreq *g = malloc(sizeof *g);
    if (g == NULL) {
        *ierr = f_no_mem("MPI_Grequest_start");
        return;
    }
    *g = (struct fgreq){query_fn, free_fn, cancel_fn, extra_state};
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Grequest_start(greq_query_tr, greq_free_tr, greq_cancel_tr, g, &r);
    if (*ierr != MPI_SUCCESS) {
        free(g);
        return;
    }
    *request = MPI_Request_c2f(r);
}
F_PMPI(grequest_start)

void mpi_grequest_complete_(MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Grequest_complete(MPI_Request_f2c(*request));
}
F_PMPI(grequest_complete)

void mpi_win_call_errhandler_(MPI_Fint *win, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Win_call_errhandler(MPI_Win_f2c(*win), *errorcode);
}
F_PMPI(win_call_errhandler)
