/* src/mpi/errhandler.c — error handlers and error reporting: the predefined handlers, user
 * handlers, Error_string/Error_class, and the one path every binding raises errors through. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

struct credo_errhandler credo_errh_fatal = {ERRH_MAGIC, ERRH_FATAL, 1, NULL};
struct credo_errhandler credo_errh_return = {ERRH_MAGIC, ERRH_RETURN, 1, NULL};
struct credo_errhandler credo_errh_abort = {ERRH_MAGIC, ERRH_ABORT, 1, NULL};

static const char *const err_strings[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid access mode",
    [MPI_ERR_ASSERT] = "invalid assert argument",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO_KEY] = "invalid info key",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_INFO_VALUE] = "invalid info value",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_NAME] = "invalid service name",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments not identical",
    [MPI_ERR_NO_SPACE] = "not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file",
    [MPI_ERR_RMA_CONFLICT] = "conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "wrong RMA synchronization",
    [MPI_ERR_SERVICE] = "invalid service",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_SPAWN] = "spawn error",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_RMA_RANGE] = "RMA target out of range",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_SESSION] = "invalid session",
};

/* Classes and codes the program added (MPI_Add_error_class/_code): numbers MPI_ERR_LASTCODE + 1
 * on, in the order they were added; each knows its class (itself for a class) and its string.
 * They stay after MPI_Finalize, so a program can still print an error it got. */
typedef struct user_err {
    int errclass;
    char *text; /* NULL until MPI_Add_error_string: the empty string */
} user_err;

static user_err *user_errs;
static int n_user_errs, cap_user_errs;

int mpi_error_last_used(void)
{
    return MPI_ERR_LASTCODE + n_user_errs;
}

static user_err *user_err_of(int code)
{
    return code > MPI_ERR_LASTCODE && code <= MPI_ERR_LASTCODE + n_user_errs
               ? &user_errs[code - MPI_ERR_LASTCODE - 1]
               : NULL;
}

static const char *err_text(int code)
{
    if (code >= 0 && code <= MPI_ERR_LASTCODE && err_strings[code] != NULL)
        return err_strings[code];
    user_err *u = user_err_of(code);
    if (u != NULL)
        return u->text != NULL ? u->text : "";
    return NULL;
}

static int add_user_err(const char *fn, int errclass, int *out)
{
    if (out == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "result pointer is NULL");
    if (n_user_errs == cap_user_errs) {
        int cap = cap_user_errs ? 2 * cap_user_errs : 16;
        user_err *t = realloc(user_errs, (size_t)cap * sizeof *t);
        if (t == NULL)
            return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        user_errs = t;
        cap_user_errs = cap;
    }
    int code = MPI_ERR_LASTCODE + 1 + n_user_errs;
    user_errs[n_user_errs++] = (user_err){errclass < 0 ? code : errclass, NULL};
    *out = code;
    return MPI_SUCCESS;
}

int MPI_Add_error_class(int *errorclass)
{
    MPI_ENTER();
    if (!MPI_READY())
        return mpi_not_ready("MPI_Add_error_class");
    return add_user_err("MPI_Add_error_class", -1, errorclass);
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Add_error_code";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    user_err *u = user_err_of(errorclass);
    int is_class = (errorclass >= 0 && errorclass <= MPI_ERR_LASTCODE && err_strings[errorclass] != NULL) ||
                   (u != NULL && u->errclass == errorclass);
    if (!is_class)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "%d is not an error class", errorclass);
    return add_user_err(fn, errorclass, errorcode);
}

int MPI_Add_error_string(int errorcode, const char *string)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Add_error_string";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (string == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "string is NULL");
    user_err *u = user_err_of(errorcode);
    if (u == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "%d is not an error class or code the program added",
                         errorcode);
    size_t n = strnlen(string, MPI_MAX_ERROR_STRING);
    if (n >= MPI_MAX_ERROR_STRING)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "string longer than MPI_MAX_ERROR_STRING - 1");
    char *t = malloc(n + 1);
    if (t == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(t, string, n + 1);
    free(u->text);
    u->text = t;
    return MPI_SUCCESS;
}


int mpi_error(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
{
    if (!comm_ok(comm))
        comm = MPI_COMM_WORLD;
    MPI_Errhandler h = comm->errh;
    if (!errh_live(h))
        h = MPI_ERRORS_ARE_FATAL;
    if (h->kind == ERRH_RETURN)
        return code;
    if (h->kind == ERRH_USER) {
        MPI_Comm c = comm;
        int e = code;
        h->fn(&c, &e);
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    mpi_error_abort(code, fn, fmt, ap);
}

void mpi_error_abort(int code, const char *fn, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fflush(stdout);
    credo_abort(code, "%s: %s", fn, msg);
}

int mpi_not_ready(const char *fn)
{
    /* No job to tell: print the standard's complaint and stop this process. */
    fflush(stdout);
    if (credo_mpi.state == MPI_STATE_NONE)
        fprintf(stderr, "credo: %s called before MPI_Init\n", fn);
    else
        fprintf(stderr, "credo: rank %d: %s called after MPI_Finalize\n", credo_rt.rank, fn);
    exit(1);
}

static int errh_ok(MPI_Errhandler h)
{
    return errh_live(h);
}

static int errh_is_predefined(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_set_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (!errh_ok(errhandler))
        return mpi_error(comm, MPI_ERR_ARG, fn, "invalid error handler");
    if (errhandler->kind == ERRH_USER)
        errhandler->refcount++;
    MPI_Errhandler old = comm->errh;
    comm->errh = errhandler;
    if (old != NULL && old->kind == ERRH_USER && --old->refcount == 0) {
        old->magic = DEAD_MAGIC;
        mpi_handle_del(old);
        free(old);
    }
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_get_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (errhandler == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "errhandler is NULL");
    /* The caller gets a new reference, released by MPI_Errhandler_free. */
    if (comm->errh->kind == ERRH_USER)
        comm->errh->refcount++;
    *errhandler = comm->errh;
    return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_create_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (function == NULL || errhandler == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    struct credo_errhandler *h = mpi_errh_new(function);
    if (h == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *errhandler = h;
    return MPI_SUCCESS;
}

struct credo_errhandler *mpi_errh_new(MPI_Comm_errhandler_function *function)
{
    struct credo_errhandler *h = calloc(1, sizeof *h);
    if (h != NULL) {
        *h = (struct credo_errhandler){ERRH_MAGIC, ERRH_USER, 1, function};
        mpi_handle_add(h, HK_ERRH);
    }
    return h;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_call_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    mpi_error(comm, errorcode, fn, "error %d raised by the application", errorcode);
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Errhandler_free";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (errhandler == NULL || !errh_ok(*errhandler))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid error handler");
    MPI_Errhandler h = *errhandler;
    if (!errh_is_predefined(h) && --h->refcount == 0) {
        h->magic = DEAD_MAGIC;
        mpi_handle_del(h);
        free(h);
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (string == NULL || resultlen == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Error_string", "NULL argument");
    const char *t = err_text(errorcode);
    int n;
    if (t != NULL)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    if (t == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Error_string", "invalid error code %d",
                         errorcode);
    return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
    if (errorclass == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Error_class", "errorclass is NULL");
    if (err_text(errorcode) == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Error_class", "invalid error code %d",
                         errorcode);
    user_err *u = user_err_of(errorcode);
    *errorclass = u != NULL ? u->errclass : errorcode;
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Comm_set_errhandler)
CREDO_PMPI(MPI_Comm_get_errhandler)
CREDO_PMPI(MPI_Comm_create_errhandler)
CREDO_PMPI(MPI_Comm_call_errhandler)
CREDO_PMPI(MPI_Errhandler_free)
CREDO_PMPI(MPI_Error_string)
CREDO_PMPI(MPI_Error_class)
CREDO_PMPI(MPI_Add_error_class)
CREDO_PMPI(MPI_Add_error_code)
CREDO_PMPI(MPI_Add_error_string)
