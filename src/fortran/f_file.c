/* src/fortran/f_file.c — Fortran bindings of MPI-IO and of the error handlers whose functions
 * are Fortran procedures (communicator, window, file). */
#include "fortran/fbind.h"
#include "mpi/mpi_impl.h"

/* ---- opening, closing, sizes, info ------------------------------------------------------------ */

void mpi_file_open_(MPI_Fint *comm, const char *filename, MPI_Fint *amode, MPI_Fint *info,
                    MPI_Fint *fh, MPI_Fint *ierr, size_t filename_len)
{
    char *c = f_str_in(filename, filename_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_File_open");
        return;
    }
    MPI_File f = MPI_FILE_NULL;
    *ierr = MPI_File_open(MPI_Comm_f2c(*comm), c, *amode, I(info), &f);
    *fh = MPI_File_c2f(f);
    free(c);
}
F_PMPI(file_open)

/* The handle comes back as MPI_FILE_NULL's integer, 0. */
void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr)
{
    MPI_File f = FH(fh);
    *ierr = MPI_File_close(&f);
    *fh = MPI_File_c2f(f);
}
F_PMPI(file_close)

void mpi_file_delete_(const char *filename, MPI_Fint *info, MPI_Fint *ierr, size_t filename_len)
{
    char *c = f_str_in(filename, filename_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_File_delete");
        return;
    }
    *ierr = MPI_File_delete(c, I(info));
    free(c);
}
F_PMPI(file_delete)

void mpi_file_set_size_(MPI_Fint *fh, MPI_Offset *size, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_size(FH(fh), *size);
}
F_PMPI(file_set_size)

void mpi_file_preallocate_(MPI_Fint *fh, MPI_Offset *size, MPI_Fint *ierr)
{
    *ierr = MPI_File_preallocate(FH(fh), *size);
}
F_PMPI(file_preallocate)

void mpi_file_get_size_(MPI_Fint *fh, MPI_Offset *size, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_size(FH(fh), size);
}
F_PMPI(file_get_size)

void mpi_file_get_amode_(MPI_Fint *fh, MPI_Fint *amode, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_amode(FH(fh), amode);
}
F_PMPI(file_get_amode)

void mpi_file_get_group_(MPI_Fint *fh, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_File_get_group(FH(fh), &g);
    *group = MPI_Group_c2f(g);
}
F_PMPI(file_get_group)

void mpi_file_set_info_(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_info(FH(fh), I(info));
}
F_PMPI(file_set_info)

void mpi_file_get_info_(MPI_Fint *fh, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_File_get_info(FH(fh), &i);
    *info_used = MPI_Info_c2f(i);
}
F_PMPI(file_get_info)

/* ---- views ------------------------------------------------------------------------------------ */

void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                        const char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t datarep_len)
{
    char *c = f_str_in(datarep, datarep_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_File_set_view");
        return;
    }
    *ierr = MPI_File_set_view(FH(fh), *disp, T(etype), T(filetype), c, I(info));
    free(c);
}
F_PMPI(file_set_view)

/* DATAREP comes back blank-padded (cut to its length when shorter than the name). */
void mpi_file_get_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                        char *datarep, MPI_Fint *ierr, size_t datarep_len)
{
    char c[MPI_MAX_DATAREP_STRING + 1] = "";
    MPI_Datatype e = MPI_DATATYPE_NULL, f = MPI_DATATYPE_NULL;
    *ierr = MPI_File_get_view(FH(fh), disp, &e, &f, c);
    *etype = MPI_Type_c2f(e);
    *filetype = MPI_Type_c2f(f);
    f_str_out(datarep, datarep_len, c);
}
F_PMPI(file_get_view)

void mpi_file_get_type_extent_(MPI_Fint *fh, MPI_Fint *datatype, MPI_Aint *extent, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_type_extent(FH(fh), T(datatype), extent);
}
F_PMPI(file_get_type_extent)

/* ---- data access ------------------------------------------------------------------------------
 * q is const for the writes (their buffers are C's const void *), empty for the reads. */

/* Individual and shared file pointers, blocking: a status. */
#define F_RW(lower, Cname, q)                                                                      \
    void mpi_##lower##_(MPI_Fint *fh, q void *buf, MPI_Fint *count, MPI_Fint *datatype,            \
                        MPI_Fint *status, MPI_Fint *ierr)                                          \
    {                                                                                              \
        MPI_Status s = {0};                                                                        \
        *ierr = Cname(FH(fh), f_buf(buf), *count, T(datatype), f_status_arg(status, &s));          \
        f_status_back(status, &s);                                                                 \
    }                                                                                              \
    F_PMPI(lower)
F_RW(file_read, MPI_File_read, )
F_RW(file_read_all, MPI_File_read_all, )
F_RW(file_write, MPI_File_write, const)
F_RW(file_write_all, MPI_File_write_all, const)
F_RW(file_read_shared, MPI_File_read_shared, )
F_RW(file_write_shared, MPI_File_write_shared, const)
F_RW(file_read_ordered, MPI_File_read_ordered, )
F_RW(file_write_ordered, MPI_File_write_ordered, const)

/* Explicit offsets, blocking. */
#define F_RW_AT(lower, Cname, q)                                                                   \
    void mpi_##lower##_(MPI_Fint *fh, MPI_Offset *offset, q void *buf, MPI_Fint *count,            \
                        MPI_Fint *datatype, MPI_Fint *status, MPI_Fint *ierr)                      \
    {                                                                                              \
        MPI_Status s = {0};                                                                        \
        *ierr = Cname(FH(fh), *offset, f_buf(buf), *count, T(datatype), f_status_arg(status, &s)); \
        f_status_back(status, &s);                                                                 \
    }                                                                                              \
    F_PMPI(lower)
F_RW_AT(file_read_at, MPI_File_read_at, )
F_RW_AT(file_read_at_all, MPI_File_read_at_all, )
F_RW_AT(file_write_at, MPI_File_write_at, const)
F_RW_AT(file_write_at_all, MPI_File_write_at_all, const)

/* Non-blocking: an output request. */
#define F_IRW(lower, Cname, q)                                                                     \
    void mpi_##lower##_(MPI_Fint *fh, q void *buf, MPI_Fint *count, MPI_Fint *datatype,            \
                        MPI_Fint *request, MPI_Fint *ierr)                                         \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        *ierr = Cname(FH(fh), f_buf(buf), *count, T(datatype), &r);                                \
        *request = MPI_Request_c2f(r);                                                             \
    }                                                                                              \
    F_PMPI(lower)
F_IRW(file_iread, MPI_File_iread, )
F_IRW(file_iwrite, MPI_File_iwrite, const)
F_IRW(file_iread_all, MPI_File_iread_all, )
F_IRW(file_iwrite_all, MPI_File_iwrite_all, const)
F_IRW(file_iread_shared, MPI_File_iread_shared, )
F_IRW(file_iwrite_shared, MPI_File_iwrite_shared, const)

#define F_IRW_AT(lower, Cname, q)                                                                  \
    void mpi_##lower##_(MPI_Fint *fh, MPI_Offset *offset, q void *buf, MPI_Fint *count,            \
                        MPI_Fint *datatype, MPI_Fint *request, MPI_Fint *ierr)                     \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        *ierr = Cname(FH(fh), *offset, f_buf(buf), *count, T(datatype), &r);                       \
        *request = MPI_Request_c2f(r);                                                             \
    }                                                                                              \
    F_PMPI(lower)
F_IRW_AT(file_iread_at, MPI_File_iread_at, )
F_IRW_AT(file_iwrite_at, MPI_File_iwrite_at, const)
F_IRW_AT(file_iread_at_all, MPI_File_iread_at_all, )
F_IRW_AT(file_iwrite_at_all, MPI_File_iwrite_at_all, const)

/* Split collectives: the begin calls, and the end calls with the buffer and a status. */
#define F_BEGIN(lower, Cname, q)                                                                   \
    void mpi_##lower##_(MPI_Fint *fh, q void *buf, MPI_Fint *count, MPI_Fint *datatype,            \
                        MPI_Fint *ierr)                                                            \
    {                                                                                              \
        *ierr = Cname(FH(fh), f_buf(buf), *count, T(datatype));                                    \
    }                                                                                              \
    F_PMPI(lower)
F_BEGIN(file_read_all_begin, MPI_File_read_all_begin, )
F_BEGIN(file_write_all_begin, MPI_File_write_all_begin, const)
F_BEGIN(file_read_ordered_begin, MPI_File_read_ordered_begin, )
F_BEGIN(file_write_ordered_begin, MPI_File_write_ordered_begin, const)

#define F_BEGIN_AT(lower, Cname, q)                                                                \
    void mpi_##lower##_(MPI_Fint *fh, MPI_Offset *offset, q void *buf, MPI_Fint *count,            \
                        MPI_Fint *datatype, MPI_Fint *ierr)                                        \
    {                                                                                              \
        *ierr = Cname(FH(fh), *offset, f_buf(buf), *count, T(datatype));                           \
    }                                                                                              \
    F_PMPI(lower)
F_BEGIN_AT(file_read_at_all_begin, MPI_File_read_at_all_begin, )
F_BEGIN_AT(file_write_at_all_begin, MPI_File_write_at_all_begin, const)

#define F_END(lower, Cname, q)                                                                     \
    void mpi_##lower##_(MPI_Fint *fh, q void *buf, MPI_Fint *status, MPI_Fint *ierr)               \
    {                                                                                              \
        MPI_Status s = {0};                                                                        \
        *ierr = Cname(FH(fh), f_buf(buf), f_status_arg(status, &s));                               \
        f_status_back(status, &s);                                                                 \
    }                                                                                              \
    F_PMPI(lower)
F_END(file_read_all_end, MPI_File_read_all_end, )
F_END(file_write_all_end, MPI_File_write_all_end, const)
F_END(file_read_ordered_end, MPI_File_read_ordered_end, )
F_END(file_write_ordered_end, MPI_File_write_ordered_end, const)
F_END(file_read_at_all_end, MPI_File_read_at_all_end, )
F_END(file_write_at_all_end, MPI_File_write_at_all_end, const)

/* ---- file pointers, consistency --------------------------------------------------------------- */

void mpi_file_seek_(MPI_Fint *fh, MPI_Offset *offset, MPI_Fint *whence, MPI_Fint *ierr)
{
    *ierr = MPI_File_seek(FH(fh), *offset, *whence);
}
F_PMPI(file_seek)

void mpi_file_get_position_(MPI_Fint *fh, MPI_Offset *offset, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_position(FH(fh), offset);
}
F_PMPI(file_get_position)

void mpi_file_get_byte_offset_(MPI_Fint *fh, MPI_Offset *offset, MPI_Offset *disp, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_byte_offset(FH(fh), *offset, disp);
}
F_PMPI(file_get_byte_offset)

void mpi_file_seek_shared_(MPI_Fint *fh, MPI_Offset *offset, MPI_Fint *whence, MPI_Fint *ierr)
{
    *ierr = MPI_File_seek_shared(FH(fh), *offset, *whence);
}
F_PMPI(file_seek_shared)

void mpi_file_get_position_shared_(MPI_Fint *fh, MPI_Offset *offset, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_position_shared(FH(fh), offset);
}
F_PMPI(file_get_position_shared)

void mpi_file_set_atomicity_(MPI_Fint *fh, MPI_Fint *flag, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_atomicity(FH(fh), *flag != 0);
}
F_PMPI(file_set_atomicity)

void mpi_file_get_atomicity_(MPI_Fint *fh, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_File_get_atomicity(FH(fh), &f);
    *flag = f_logical(f);
}
F_PMPI(file_get_atomicity)

void mpi_file_sync_(MPI_Fint *fh, MPI_Fint *ierr) { *ierr = MPI_File_sync(FH(fh)); }
F_PMPI(file_sync)

/* ---- file error handlers ---------------------------------------------------------------------- */

/* MPI_FILE_NULL (0) names the default handler of new files, as in C. */
void mpi_file_set_errhandler_(MPI_Fint *file, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_errhandler(FH(file), MPI_Errhandler_f2c(*errhandler));
}
F_PMPI(file_set_errhandler)

void mpi_file_get_errhandler_(MPI_Fint *file, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_File_get_errhandler(FH(file), &e);
    *errhandler = MPI_Errhandler_c2f(e);
}
F_PMPI(file_get_errhandler)

void mpi_file_call_errhandler_(MPI_Fint *fh, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_File_call_errhandler(FH(fh), *errorcode);
}
F_PMPI(file_call_errhandler)

/* ---- error handlers with Fortran procedures ----------------------------------------------------
 * A Fortran handler is SUBROUTINE HANDLER(OBJ, ERROR_CODE), both default INTEGERs by reference;
 * C calls its handler with pointers to the C handle and the code, and a credo errhandler has no
 * room for extra state (errhandler.c keeps only the function). So the C function itself says
 * which Fortran procedure to call: a fixed table of F_ERRH_SLOTS slots, each with its own
 * trampolines (one per object kind, made by F_ERRH_DEFINE), each holding one procedure.
 *
 * Slots are never given back: the C handler's last reference goes inside the library
 * (MPI_Errhandler_free, or the communicator, window or file that held it being freed), which the
 * bindings cannot observe. A procedure keeps the slot it was first given, whatever kind of
 * handler and however many are created with it, so the limit is on distinct procedures: the
 * F_ERRH_SLOTS + 1st fails with MPI_ERR_OTHER. */
typedef void f_errh(MPI_Fint *obj, MPI_Fint *error_code);

enum { F_ERRH_SLOTS = 64 };
static f_errh *f_errh_fn[F_ERRH_SLOTS]; /* under the big lock */
static int f_errh_used;

/* Calls the Fortran procedure of slot n with the object's integer handle and a copy of the code;
 * the code it may set is handed back to C (which does not read it). */
static void f_errh_call(int n, MPI_Fint obj, int *error_code)
{
    MPI_Fint e = *error_code;
    f_errh_fn[n](&obj, &e);
    *error_code = e;
}

#define F_ERRH_DEFINE(a, b)                                                                        \
    static void comm_errh_tr_##a##b(MPI_Comm *comm, int *error_code, ...)                          \
    {                                                                                              \
        f_errh_call((a) * 8 + (b), MPI_Comm_c2f(*comm), error_code);                               \
    }                                                                                              \
    static void win_errh_tr_##a##b(MPI_Win *win, int *error_code, ...)                             \
    {                                                                                              \
        f_errh_call((a) * 8 + (b), MPI_Win_c2f(*win), error_code);                                 \
    }                                                                                              \
    static void file_errh_tr_##a##b(MPI_File *file, int *error_code, ...)                          \
    {                                                                                              \
        f_errh_call((a) * 8 + (b), MPI_File_c2f(*file), error_code);                               \
    }
#define F_ERRH_ENTRY(a, b) {comm_errh_tr_##a##b, win_errh_tr_##a##b, file_errh_tr_##a##b},
#define F_ERRH_ROW(X, a) X(a, 0) X(a, 1) X(a, 2) X(a, 3) X(a, 4) X(a, 5) X(a, 6) X(a, 7)
#define F_ERRH_ALL(X)                                                                              \
    F_ERRH_ROW(X, 0) F_ERRH_ROW(X, 1) F_ERRH_ROW(X, 2) F_ERRH_ROW(X, 3) F_ERRH_ROW(X, 4)           \
    F_ERRH_ROW(X, 5) F_ERRH_ROW(X, 6) F_ERRH_ROW(X, 7)

F_ERRH_ALL(F_ERRH_DEFINE)

static const struct {
    MPI_Comm_errhandler_function *comm;
    MPI_Win_errhandler_function *win;
    MPI_File_errhandler_function *file;
} f_errh_tr[F_ERRH_SLOTS] = {F_ERRH_ALL(F_ERRH_ENTRY)};
_Static_assert(sizeof f_errh_tr / sizeof f_errh_tr[0] == F_ERRH_SLOTS, "one trampoline per slot");

/* The slot of procedure f (a new one the first time), or -1 when the table is full. */
static int f_errh_slot(f_errh *f)
{
    for (int i = 0; i < f_errh_used; i++)
        if (f_errh_fn[i] == f)
            return i;
    if (f_errh_used == F_ERRH_SLOTS)
        return -1;
    f_errh_fn[f_errh_used] = f;
    return f_errh_used++;
}

enum f_errh_kind { FE_COMM, FE_WIN, FE_FILE };

static int create_errhandler(enum f_errh_kind kind, f_errh *function, MPI_Fint *errhandler)
{
    static const char *const fn[] = {"MPI_Comm_create_errhandler", "MPI_Win_create_errhandler",
                                     "MPI_File_create_errhandler"};
    MPI_ENTER();
    if (!MPI_READY())
        return mpi_not_ready(fn[kind]);
    int n = f_errh_slot(function);
    if (n < 0)
        return mpi_error(NULL, MPI_ERR_OTHER, fn[kind],
                         "the Fortran bindings hold at most %d distinct error handler procedures "
                         "(src/fortran/f_file.c, F_ERRH_SLOTS)",
                         F_ERRH_SLOTS);
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    int rc = kind == FE_COMM  ? MPI_Comm_create_errhandler(f_errh_tr[n].comm, &e)
             : kind == FE_WIN ? MPI_Win_create_errhandler(f_errh_tr[n].win, &e)
                              : MPI_File_create_errhandler(f_errh_tr[n].file, &e);
    *errhandler = MPI_Errhandler_c2f(e);
    return rc;
}

void mpi_comm_create_errhandler_(f_errh *function, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = create_errhandler(FE_COMM, function, errhandler);
}
F_PMPI(comm_create_errhandler)

void mpi_win_create_errhandler_(f_errh *function, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = create_errhandler(FE_WIN, function, errhandler);
}
F_PMPI(win_create_errhandler)

void mpi_file_create_errhandler_(f_errh *function, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = create_errhandler(FE_FILE, function, errhandler);
}
F_PMPI(file_create_errhandler)
