/* src/fortran/fbind.c — the Fortran bindings' shared conversions (fbind.h), the storage of mpif.h's
 * common blocks, and the bindings of the environment calls (init, finalize, errors, names, time). */
#include "fortran/fbind.h"
#include "mpi/mpi_impl.h"

MPI_Fint credo_bottom_, credo_in_place_, credo_errcodes_ignore_[1], credo_unweighted_[1],
    credo_weights_empty_[1];

int f_no_mem(const char *fn)
{
    return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for the Fortran binding's arrays");
}

int f_reqs_in(struct f_reqs *r, int n, const MPI_Fint *f)
{
    r->v = r->local;
    if (n > F_LOCAL && (r->v = malloc((size_t)n * sizeof *r->v)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        r->v[i] = MPI_Request_f2c(f[i]);
    return 0;
}

void f_reqs_back(struct f_reqs *r, int n, MPI_Fint *f)
{
    for (int i = 0; i < n; i++)
        f[i] = MPI_Request_c2f(r->v[i]);
    if (r->v != r->local)
        free(r->v);
}

int f_stats_in(struct f_stats *s, int n, MPI_Fint *f)
{
    if (f == credo_statuses_ignore_) {
        s->v = MPI_STATUSES_IGNORE;
        return 0;
    }
    s->v = s->local;
    if (n > F_LOCAL && (s->v = malloc((size_t)n * sizeof *s->v)) == NULL)
        return MPI_ERR_NO_MEM;
    /* from the Fortran statuses: MPI_ERROR is left alone where the call does not set it */
    for (int i = 0; i < n; i++)
        memcpy(&s->v[i], f + (size_t)i * MPI_F_STATUS_SIZE, sizeof s->v[i]);
    return 0;
}

void f_stats_back(struct f_stats *s, int n, MPI_Fint *f)
{
    if (s->v == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        memcpy(f + (size_t)i * MPI_F_STATUS_SIZE, &s->v[i], sizeof s->v[i]);
    if (s->v != s->local)
        free(s->v);
}

int f_types_in(MPI_Datatype **out, MPI_Datatype *local, int n, const MPI_Fint *f)
{
    *out = local;
    if (n > F_LOCAL && (*out = malloc((size_t)n * sizeof **out)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        (*out)[i] = MPI_Type_f2c(f[i]);
    return 0;
}

char *f_str_in(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

void f_str_out(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n > len)
        n = len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

void f_str_result(char *dst, size_t len, const char *src, int n, MPI_Fint *resultlen)
{
    f_str_out(dst, len, src);
    *resultlen = (size_t)n < len ? n : (int)len;
}

/* ---- environment ------------------------------------------------------------------------------ */

void mpi_init_(MPI_Fint *ierr) { *ierr = MPI_Init(NULL, NULL); }
F_PMPI(init)

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = MPI_THREAD_SINGLE;
    *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
    *provided = p;
}
F_PMPI(init_thread)

void mpi_finalize_(MPI_Fint *ierr) { *ierr = MPI_Finalize(); }
F_PMPI(finalize)

void mpi_initialized_(MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Initialized(&f);
    *flag = f_logical(f);
}
F_PMPI(initialized)

void mpi_finalized_(MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Finalized(&f);
    *flag = f_logical(f);
}
F_PMPI(finalized)

void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Abort(MPI_Comm_f2c(*comm), *errorcode);
}
F_PMPI(abort)

void mpi_query_thread_(MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = MPI_THREAD_SINGLE;
    *ierr = MPI_Query_thread(&p);
    *provided = p;
}
F_PMPI(query_thread)

void mpi_is_thread_main_(MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Is_thread_main(&f);
    *flag = f_logical(f);
}
F_PMPI(is_thread_main)

void mpi_get_version_(MPI_Fint *version, MPI_Fint *subversion, MPI_Fint *ierr)
{
    *ierr = MPI_Get_version(version, subversion);
}
F_PMPI(get_version)

void mpi_get_processor_name_(char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
    char c[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int n = 0;
    *ierr = MPI_Get_processor_name(c, &n);
    f_str_result(name, name_len, c, n, resultlen);
}
F_PMPI(get_processor_name)

void mpi_get_library_version_(char *version, MPI_Fint *resultlen, MPI_Fint *ierr, size_t version_len)
{
    char c[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int n = 0;
    *ierr = MPI_Get_library_version(c, &n);
    f_str_result(version, version_len, c, n, resultlen);
}
F_PMPI(get_library_version)

void mpi_error_string_(MPI_Fint *errorcode, char *string, MPI_Fint *resultlen, MPI_Fint *ierr,
                       size_t string_len)
{
    char c[MPI_MAX_ERROR_STRING + 1] = "";
    int n = 0;
    *ierr = MPI_Error_string(*errorcode, c, &n);
    f_str_result(string, string_len, c, n, resultlen);
}
F_PMPI(error_string)

void mpi_error_class_(MPI_Fint *errorcode, MPI_Fint *errorclass, MPI_Fint *ierr)
{
    *ierr = MPI_Error_class(*errorcode, errorclass);
}
F_PMPI(error_class)

void mpi_comm_set_errhandler_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_set_errhandler(MPI_Comm_f2c(*comm), MPI_Errhandler_f2c(*errhandler));
}
F_PMPI(comm_set_errhandler)

void mpi_comm_get_errhandler_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Comm_get_errhandler(MPI_Comm_f2c(*comm), &e);
    *errhandler = MPI_Errhandler_c2f(e);
}
F_PMPI(comm_get_errhandler)

void mpi_errhandler_free_(MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_Errhandler_f2c(*errhandler);
    *ierr = MPI_Errhandler_free(&e);
    *errhandler = MPI_Errhandler_c2f(e);
}
F_PMPI(errhandler_free)

/* Fortran functions, not subroutines: DOUBLE PRECISION MPI_WTIME(). */
double mpi_wtime_(void) { return MPI_Wtime(); }
F_PMPI(wtime)
double mpi_wtick_(void) { return MPI_Wtick(); }
F_PMPI(wtick)

/* MPI_PCONTROL(LEVEL): Fortran passes only the level (credo's Pcontrol does nothing with it). */
void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr) { *ierr = MPI_Pcontrol(*level); }
F_PMPI(pcontrol)

void mpi_comm_get_parent_(MPI_Fint *parent, MPI_Fint *ierr)
{
    MPI_Comm p = MPI_COMM_NULL;
    *ierr = MPI_Comm_get_parent(&p);
    *parent = MPI_Comm_c2f(p);
}
F_PMPI(comm_get_parent)

void mpi_comm_disconnect_(MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    *ierr = MPI_Comm_disconnect(&c);
    *comm = MPI_Comm_c2f(c);
}
F_PMPI(comm_disconnect)
