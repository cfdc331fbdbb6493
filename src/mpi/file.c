/* src/mpi/file.c — MPI-IO file handles: open/close/delete with agreed errors, sizes, group, amode,
 * hints, views (and the map from view offsets to file bytes), atomicity, sync, error handlers. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "mpi/file_impl.h"

/* MPI 3.1 §13.7: the handler of MPI_FILE_NULL is the one new files get and the one errors outside
 * a valid file (MPI_File_open, MPI_File_delete, invalid handles) go through; its default is
 * MPI_ERRORS_RETURN, unlike communicators and windows. */
static MPI_Errhandler file_default_errh = MPI_ERRORS_RETURN;

int file_error(MPI_File fh, int code, const char *fn, const char *fmt, ...)
{
    MPI_Errhandler h = file_ok(fh) ? fh->errh : file_default_errh;
    if (!errh_live(h))
        h = MPI_ERRORS_RETURN;
    if (h->kind == ERRH_RETURN)
        return code;
    if (h->kind == ERRH_USER) {
        /* Stored in the communicator handler's slot like window handlers; cast back. */
        MPI_File f = file_ok(fh) ? fh : MPI_FILE_NULL;
        int e = code;
        ((MPI_File_errhandler_function *)(void (*)(void))h->fn)(&f, &e);
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    mpi_error_abort(code, fn, fmt, ap);
}

int file_errno_class(int err)
{
    switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
    case EBADF: return MPI_ERR_ACCESS; /* EBADF: a write on a read-only descriptor and vice versa */
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG: return MPI_ERR_NO_SPACE;
#ifdef EDQUOT
    case EDQUOT: return MPI_ERR_QUOTA;
#endif
    case ETXTBSY: return MPI_ERR_FILE_IN_USE;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}

/* Internal collectives run on the file's hidden communicator, whose handler returns. */
int file_agree(MPI_Comm comm, int mine, int *first_rank)
{
    int n = comm->size;
    int *all = malloc((size_t)n * sizeof(int));
    if (all == NULL)
        return MPI_ERR_NO_MEM;
    int rc = mpi_coll_allgather_int(comm, &mine, 1, all);
    if (rc == MPI_SUCCESS) {
        for (int r = 0; r < n; r++)
            if (all[r] != MPI_SUCCESS) {
                rc = all[r];
                if (first_rank != NULL)
                    *first_rank = r;
                break;
            }
    }
    free(all);
    return rc;
}

int file_allgather64(MPI_File fh, long long mine, long long *all)
{
    int n = fh->comm->size;
    int *buf = malloc((size_t)n * 2 * sizeof(int));
    if (buf == NULL)
        return MPI_ERR_NO_MEM;
    int two[2] = {(int)(uint32_t)(uint64_t)mine, (int)(uint32_t)((uint64_t)mine >> 32)};
    int rc = mpi_coll_allgather_int(fh->comm, two, 2, buf);
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++)
        all[r] = (long long)((uint64_t)(uint32_t)buf[2 * r] | (uint64_t)(uint32_t)buf[2 * r + 1] << 32);
    free(buf);
    return rc;
}

/* ---- the view's map ---- */

int file_view_block(MPI_File fh, MPI_Offset w)
{
    /* The last block whose prefix is <= w (blocks are never empty, so it holds byte w). */
    int lo = 0, hi = fh->filetype->nblocks - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (fh->prefix[mid] <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

MPI_Offset file_view_byte(MPI_File fh, MPI_Offset pos)
{
    MPI_Datatype ft = fh->filetype;
    MPI_Offset sz = (MPI_Offset)ft->size;
    MPI_Offset k = pos / sz, w = pos % sz;
    int b = file_view_block(fh, w);
    return fh->disp + k * (MPI_Offset)ft->extent + (MPI_Offset)ft->blocks[b].disp + (w - fh->prefix[b]);
}

/* Installs a view (types already checked); fails only when out of memory. */
static int view_install(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype)
{
    MPI_Offset *prefix = malloc((size_t)filetype->nblocks * sizeof *prefix);
    if (prefix == NULL)
        return MPI_ERR_NO_MEM;
    MPI_Offset sum = 0;
    for (int b = 0; b < filetype->nblocks; b++) {
        prefix[b] = sum;
        sum += (MPI_Offset)filetype->blocks[b].len;
    }
    dt_retain(etype);
    dt_retain(filetype);
    if (fh->etype != NULL)
        dt_release(fh->etype);
    if (fh->filetype != NULL)
        dt_release(fh->filetype);
    free(fh->prefix);
    fh->prefix = prefix;
    fh->disp = disp;
    fh->etype = etype;
    fh->filetype = filetype;
    fh->fp = 0;
    return MPI_SUCCESS;
}

/* ---- open and close ---- */

static void file_destroy(MPI_File f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->shared != NULL)
        munmap(f->shared, sizeof *f->shared);
    if (f->comm != NULL)
        mpi_comm_release(f->comm);
    if (f->errh != NULL && f->errh->kind == ERRH_USER && --f->errh->refcount == 0) {
        f->errh->magic = DEAD_MAGIC;
        mpi_handle_del(f->errh);
        free(f->errh);
    }
    if (f->etype != NULL)
        dt_release(f->etype);
    if (f->filetype != NULL)
        dt_release(f->filetype);
    free(f->prefix);
    free(f->path);
    f->magic = DEAD_MAGIC;
    mpi_handle_del(f);
    free(f);
}

/* MPI 3.1 §13.2.1: exactly one of RDONLY, RDWR, WRONLY; RDONLY excludes CREATE and EXCL;
 * SEQUENTIAL excludes RDWR. */
static const char *amode_problem(int amode)
{
    const int known = MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE |
                      MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                      MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    if (amode & ~known)
        return "unknown bits in amode";
    int rw = amode & (MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY);
    if (rw != MPI_MODE_RDONLY && rw != MPI_MODE_RDWR && rw != MPI_MODE_WRONLY)
        return "amode must hold exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR, MPI_MODE_WRONLY";
    if (rw == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    if (rw == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
    return NULL;
}

/* Every rank opens the file itself (one machine, one file system). Rank 0 goes first: it alone
 * applies MPI_MODE_CREATE and MPI_MODE_EXCL, so that EXCL fails only when the file existed before
 * the call, and it creates the shared file pointer's segment. Each step ends in an exchange of
 * the ranks' outcomes, so every rank returns the same error class (the lowest failing rank's). */
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_open";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return file_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (COMM_IS_INTER(comm))
        return file_error(NULL, MPI_ERR_COMM, fn, "not defined on an intercommunicator");
    if (fh == NULL)
        return file_error(NULL, MPI_ERR_ARG, fn, "fh is NULL");
    *fh = MPI_FILE_NULL;

    int local = MPI_SUCCESS;
    const char *why = NULL;
    if (filename == NULL || filename[0] == '\0')
        local = MPI_ERR_BAD_FILE, why = "filename is NULL or empty";
    else if ((why = amode_problem(amode)) != NULL)
        local = MPI_ERR_AMODE;
    else if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        local = MPI_ERR_INFO, why = "invalid info";

    /* Exchange 1: arguments and the proposals for the hidden communicator's context. */
    int n = comm->size;
    int *all = malloc((size_t)n * 3 * sizeof(int));
    if (all == NULL)
        return file_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int mine[3] = {mpi_ctx_propose(comm->rank == 0), amode, local};
    int rc = mpi_coll_allgather_int(comm, mine, 3, all);
    if (rc != MPI_SUCCESS) {
        free(all);
        return file_error(NULL, rc, fn, "exchange of the open arguments failed");
    }
    uint32_t ctx = 0;
    int err = MPI_SUCCESS, bad = -1;
    for (int r = 0; r < n; r++) {
        const int *a = all + 3 * r;
        if ((uint32_t)a[0] > ctx)
            ctx = (uint32_t)a[0];
        if (err == MPI_SUCCESS && a[2] != MPI_SUCCESS)
            err = a[2], bad = r;
    }
    int same = 1;
    for (int r = 0; r < n; r++)
        same &= all[3 * r + 1] == amode;
    free(all);
    mpi_ctx_settle(ctx, 2);
    if (err != MPI_SUCCESS) {
        if (local != MPI_SUCCESS)
            return file_error(NULL, local, fn, "%s", why);
        return file_error(NULL, err, fn, "invalid arguments on rank %d", bad);
    }
    if (!same)
        return file_error(NULL, MPI_ERR_NOT_SAME, fn, "ranks passed different amodes");

    /* Out of memory here still takes part in the exchanges below, so nobody waits forever. */
    struct credo_file *f = calloc(1, sizeof *f);
    local = MPI_SUCCESS;
    if (f != NULL) {
        f->fd = -1;
        f->magic = FILE_MAGIC;
        mpi_handle_add(f, HK_FILE);
        f->amode = amode;
        f->errh = MPI_ERRORS_RETURN; /* the default handler is taken once the open succeeded */
        f->path = strdup(filename);
        f->comm = mpi_comm_hidden(comm, ctx);
    }
    if (f == NULL || f->path == NULL || f->comm == NULL ||
        mpi_comm_hints_merge(f->comm, info) != MPI_SUCCESS ||
        view_install(f, 0, MPI_BYTE, MPI_BYTE) != MPI_SUCCESS)
        local = MPI_ERR_NO_MEM;

    int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
    char shm_name[256];
    snprintf(shm_name, sizeof shm_name, "/credo.%s.file.%d.%u", credo_rt.jobid, comm->world_of[0],
             ctx);
    /* Exchange 2: rank 0's open and segment; exchange 3: everybody else's. They run on comm (the
     * hidden communicator may be missing when memory ran out). */
    int oserr = 0;
    if (local == MPI_SUCCESS && comm->rank == 0) {
        int cflags = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) |
                     ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
        f->fd = open(filename, cflags | O_CLOEXEC, 0666);
        if (f->fd < 0)
            oserr = errno, local = file_errno_class(errno);
        else if ((f->shared = mpi_shm_map(shm_name, sizeof(file_shared), 1)) == NULL)
            oserr = errno, local = MPI_ERR_NO_MEM;
        /* MPI_MODE_APPEND starts the shared pointer at the end of the file (set before anybody
         * can use it: the others map the segment after exchange 2). */
        struct stat sb;
        if (local == MPI_SUCCESS && (amode & MPI_MODE_APPEND) && fstat(f->fd, &sb) == 0)
            atomic_store(&f->shared->fp, (long long)sb.st_size);
    }
    int first = 0;
    rc = file_agree(comm, comm->rank == 0 ? local : MPI_SUCCESS, &first);
    if (rc == MPI_SUCCESS && comm->rank != 0 && local == MPI_SUCCESS) {
        f->fd = open(filename, flags | O_CLOEXEC);
        if (f->fd < 0)
            oserr = errno, local = file_errno_class(errno);
        else if ((f->shared = mpi_shm_map(shm_name, sizeof(file_shared), 0)) == NULL)
            oserr = errno, local = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS)
        rc = file_agree(comm, local, &first);
    if (comm->rank == 0 && f != NULL && f->shared != NULL)
        shm_unlink(shm_name);
    if (rc != MPI_SUCCESS) {
        if (f != NULL)
            file_destroy(f);
        if (first == comm->rank && oserr != 0)
            return file_error(NULL, rc, fn, "cannot open '%s': %s", filename, strerror(oserr));
        if (first == comm->rank)
            return file_error(NULL, rc, fn, "out of memory");
        return file_error(NULL, rc, fn, "cannot open '%s' on rank %d", filename, first);
    }
    f->errh = file_default_errh;
    if (f->errh->kind == ERRH_USER)
        f->errh->refcount++;

    /* The view is bytes from the start of the file; MPI_MODE_APPEND puts the individual pointer
     * at its end too (§13.2.1). */
    struct stat sb;
    if ((amode & MPI_MODE_APPEND) && fstat(f->fd, &sb) == 0)
        f->fp = (MPI_Offset)sb.st_size;
    *fh = f;
    return MPI_SUCCESS;
}

int MPI_File_close(MPI_File *fh)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_close";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (fh == NULL || !file_ok(*fh))
        return file_error(NULL, MPI_ERR_FILE, fn, "invalid file handle");
    MPI_File f = *fh;
    /* The exchange of the close outcomes also tells rank 0 that everybody's accesses are done
     * before the file can go (DELETE_ON_CLOSE). */
    int local = close(f->fd) == 0 ? MPI_SUCCESS : file_errno_class(errno);
    f->fd = -1;
    int first = 0;
    int rc = file_agree(f->comm, local, &first);
    /* DELETE_ON_CLOSE: rank 0 unlinks, and a barrier makes the file gone at every rank's return. */
    if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE)) {
        if (f->comm->rank == 0)
            unlink(f->path);
        rc = mpi_coll_barrier(f->comm);
    }
    *fh = MPI_FILE_NULL;
    if (rc != MPI_SUCCESS) {
        /* Reported through the file's handler while the handle is still valid; it is gone after
         * the call either way. */
        int e = file_error(f, rc, fn, "closing failed on rank %d", first);
        file_destroy(f);
        return e;
    }
    file_destroy(f);
    return MPI_SUCCESS;
}

int MPI_File_delete(const char *filename, MPI_Info info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_delete";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (filename == NULL || filename[0] == '\0')
        return file_error(NULL, MPI_ERR_BAD_FILE, fn, "filename is NULL or empty");
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return file_error(NULL, MPI_ERR_INFO, fn, "invalid info");
    if (unlink(filename) != 0) {
        int e = errno;
        return file_error(NULL, file_errno_class(e), fn, "cannot delete '%s': %s", filename,
                          strerror(e));
    }
    return MPI_SUCCESS;
}

/* ---- size ---- */

/* Set_size and preallocate: same size everywhere, rank 0 changes the file, all agree. */
static int size_op(const char *fn, MPI_File fh, MPI_Offset size, int prealloc)
{
    FILE_CHECK(fn, fh);
    int local = MPI_SUCCESS, oserr = 0;
    if (size < 0)
        local = MPI_ERR_ARG;
    else if (fh->amode & MPI_MODE_RDONLY)
        local = MPI_ERR_ACCESS;
    else if (fh->amode & MPI_MODE_SEQUENTIAL)
        local = MPI_ERR_UNSUPPORTED_OPERATION;
    long long *all = malloc((size_t)fh->comm->size * sizeof *all);
    if (all == NULL)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = file_allgather64(fh, size, all);
    for (int r = 0; rc == MPI_SUCCESS && local == MPI_SUCCESS && r < fh->comm->size; r++)
        if (all[r] != size)
            local = MPI_ERR_NOT_SAME;
    free(all);
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "exchange failed");
    if (local == MPI_SUCCESS && fh->comm->rank == 0) {
        if (prealloc) {
            struct stat sb;
            /* posix_fallocate never shrinks; skip it when the file is large enough already. */
            if (fstat(fh->fd, &sb) != 0)
                oserr = errno;
            else if ((MPI_Offset)sb.st_size < size)
                oserr = posix_fallocate(fh->fd, 0, (off_t)size);
        } else if (ftruncate(fh->fd, (off_t)size) != 0) {
            oserr = errno;
        }
        if (oserr != 0)
            local = file_errno_class(oserr);
    }
    int first = 0;
    rc = file_agree(fh->comm, local, &first);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    switch (local) {
    case MPI_ERR_ARG: return file_error(fh, rc, fn, "negative size %lld", (long long)size);
    case MPI_ERR_ACCESS: return file_error(fh, rc, fn, "file opened MPI_MODE_RDONLY");
    case MPI_ERR_UNSUPPORTED_OPERATION:
        return file_error(fh, rc, fn, "not allowed on a file opened MPI_MODE_SEQUENTIAL");
    case MPI_ERR_NOT_SAME: return file_error(fh, rc, fn, "ranks passed different sizes");
    case MPI_SUCCESS: return file_error(fh, rc, fn, "failed on rank %d", first);
    default: return file_error(fh, rc, fn, "%s", strerror(oserr));
    }
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    MPI_ENTER();
    return size_op("MPI_File_set_size", fh, size, 0);
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    MPI_ENTER();
    return size_op("MPI_File_preallocate", fh, size, 1);
}

int MPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_size";
    FILE_CHECK(fn, fh);
    if (size == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "size is NULL");
    struct stat sb;
    if (fstat(fh->fd, &sb) != 0) {
        int e = errno;
        return file_error(fh, file_errno_class(e), fn, "%s", strerror(e));
    }
    *size = (MPI_Offset)sb.st_size;
    return MPI_SUCCESS;
}

/* ---- queries, hints ---- */

int MPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_group";
    FILE_CHECK(fn, fh);
    if (group == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "group is NULL");
    int rc = PMPI_Comm_group(fh->comm, group);
    return rc == MPI_SUCCESS ? rc : file_error(fh, rc, fn, "out of memory");
}

int MPI_File_get_amode(MPI_File fh, int *amode)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_amode";
    FILE_CHECK(fn, fh);
    if (amode == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "amode is NULL");
    *amode = fh->amode;
    return MPI_SUCCESS;
}

/* Hints are kept (MPI_File_get_info returns them) but none changes what credo does. */
int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_set_info";
    FILE_CHECK(fn, fh);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return file_error(fh, MPI_ERR_INFO, fn, "invalid info");
    if (mpi_comm_hints_merge(fh->comm, info) != MPI_SUCCESS)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_info";
    FILE_CHECK(fn, fh);
    if (info_used == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "info_used is NULL");
    if (mpi_info_dup(fh->comm->info, info_used) != MPI_SUCCESS)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

/* ---- views ---- */

/* Local checks of a view; NULL or the problem (class in *cls). */
static const char *view_problem(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                MPI_Datatype filetype, const char *datarep, MPI_Info info, int *cls,
                                const file_datarep **rep, char *msg, size_t msg_len)
{
    *rep = NULL;
    *cls = MPI_ERR_TYPE;
    if (!dt_ok(etype))
        return "etype is not a valid committed datatype";
    if (!dt_ok(filetype))
        return "filetype is not a valid committed datatype";
    if (etype->size == 0)
        return "etype has size 0";
    if (filetype->size == 0 || filetype->size % etype->size != 0)
        return "the filetype's size is not a positive multiple of the etype's";
    /* §13.3: a filetype's displacements are non-negative and non-decreasing, so its blocks
     * (type-map order) must not step back or overlap; the view's map relies on it. */
    MPI_Aint end = 0;
    for (int b = 0; b < filetype->nblocks; b++) {
        if (filetype->blocks[b].disp < end)
            return "the filetype's displacements are negative, decreasing or overlapping";
        end = filetype->blocks[b].disp + (MPI_Aint)filetype->blocks[b].len;
    }
    /* Copies of the filetype sit extent apart: its data may span at most one extent. */
    if (filetype->extent <= 0 || end - filetype->blocks[0].disp > filetype->extent)
        return "the filetype's data spans more than its extent (tiles would overlap)";
    *cls = MPI_ERR_UNSUPPORTED_DATAREP;
    if (datarep == NULL)
        return "datarep is NULL";
    /* §14.5: "native", "internal", "external32" and the representations registered with
     * MPI_Register_datarep, as far as file_datarep.c can lay them out. */
    if (strcmp(datarep, "native") != 0) {
        if ((*rep = file_datarep_find(datarep)) == NULL) {
            snprintf(msg, msg_len, "data representation \"%.*s\" is not supported (credo has "
                     "\"native\", \"internal\", \"external32\" and the ones registered "
                     "with MPI_Register_datarep)", MPI_MAX_DATAREP_STRING, datarep);
            return msg;
        }
        const char *why = file_datarep_view_problem(*rep, etype, filetype, cls, msg, msg_len);
        if (why != NULL)
            return why;
    }
    *cls = MPI_ERR_ARG;
    if (disp == MPI_DISPLACEMENT_CURRENT && !(fh->amode & MPI_MODE_SEQUENTIAL))
        return "MPI_DISPLACEMENT_CURRENT outside MPI_MODE_SEQUENTIAL";
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        return "negative displacement";
    *cls = MPI_ERR_INFO;
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return "invalid info";
    return NULL;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_set_view";
    FILE_CHECK(fn, fh);
    int local = MPI_SUCCESS;
    const file_datarep *rep = NULL;
    char msg[400];
    const char *why = view_problem(fh, disp, etype, filetype, datarep, info, &local, &rep, msg,
                                   sizeof msg);
    if (why == NULL)
        local = MPI_SUCCESS;
    /* One exchange: local problems, and the etype sizes, which must agree (§13.3). */
    int n = fh->comm->size;
    long long *all = malloc((size_t)n * sizeof *all);
    if (all == NULL)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    long long mine = local != MPI_SUCCESS ? -(long long)local : (long long)etype->size;
    int rc = file_allgather64(fh, mine, all);
    int err = MPI_SUCCESS, bad = -1;
    for (int r = 0; rc == MPI_SUCCESS && r < n && err == MPI_SUCCESS; r++)
        if (all[r] < 0)
            err = (int)-all[r], bad = r;
    for (int r = 0; rc == MPI_SUCCESS && err == MPI_SUCCESS && r < n; r++)
        if (all[r] != all[0])
            err = MPI_ERR_NOT_SAME, bad = r;
    free(all);
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "exchange failed");
    if (err != MPI_SUCCESS) {
        if (local != MPI_SUCCESS)
            return file_error(fh, local, fn, "%s", why);
        return file_error(fh, err, fn, err == MPI_ERR_NOT_SAME ? "etype sizes differ (rank %d)"
                                                               : "invalid view on rank %d", bad);
    }
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        /* The shared pointer's byte position in the old view: the same at every rank, read
         * after the exchange (everybody's earlier accesses are done) and before the reset. */
        long long sp = atomic_load(&fh->shared->fp);
        disp = file_view_byte(fh, sp * (MPI_Offset)fh->etype->size);
    }
    if (view_install(fh, disp, etype, filetype) != MPI_SUCCESS)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    fh->rep = rep;
    if (mpi_comm_hints_merge(fh->comm, info) != MPI_SUCCESS)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    /* The shared pointer restarts at 0 too: rank 0 resets it between two barriers, so nobody
     * still reads the old value and nobody moves it before the reset. */
    rc = mpi_coll_barrier(fh->comm);
    if (rc == MPI_SUCCESS && fh->comm->rank == 0)
        atomic_store(&fh->shared->fp, 0);
    if (rc == MPI_SUCCESS)
        rc = mpi_coll_barrier(fh->comm);
    return rc == MPI_SUCCESS ? rc : file_error(fh, rc, fn, "barrier failed");
}

int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_view";
    FILE_CHECK(fn, fh);
    if (disp == NULL || etype == NULL || filetype == NULL || datarep == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    /* §13.3: derived types come back as new handles the program frees. */
    MPI_Datatype e = fh->etype, t = fh->filetype;
    if (!(e->flags & DT_F_PREDEF) && PMPI_Type_dup(fh->etype, &e) != MPI_SUCCESS)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    if (!(t->flags & DT_F_PREDEF) && PMPI_Type_dup(fh->filetype, &t) != MPI_SUCCESS) {
        if (e != fh->etype)
            PMPI_Type_free(&e);
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *disp = fh->disp;
    *etype = e;
    *filetype = t;
    strcpy(datarep, fh->rep != NULL ? fh->rep->name : "native");
    return MPI_SUCCESS;
}

int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_type_extent";
    FILE_CHECK(fn, fh);
    if (extent == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "extent is NULL");
    MPI_Count e = 0;
    int rc = file_type_extent(fn, fh, datatype, &e);
    if (rc == MPI_SUCCESS)
        *extent = (MPI_Aint)e;
    return rc;
}

int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_type_extent_c";
    FILE_CHECK(fn, fh);
    if (extent == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "extent is NULL");
    return file_type_extent(fn, fh, datatype, extent);
}

/* ---- consistency ---- */

/* Atomic mode takes a POSIX record lock over the bytes each access spans (file_io.c). Both
 * calls are collective; the flag must agree. */
int MPI_File_set_atomicity(MPI_File fh, int flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_set_atomicity";
    FILE_CHECK(fn, fh);
    int n = fh->comm->size;
    long long *all = malloc((size_t)n * sizeof *all);
    if (all == NULL)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = file_allgather64(fh, flag != 0, all);
    int same = 1;
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++)
        same &= all[r] == (flag != 0);
    free(all);
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "exchange failed");
    if (!same)
        return file_error(fh, MPI_ERR_NOT_SAME, fn, "ranks passed different flags");
    fh->atomic = flag != 0;
    return MPI_SUCCESS;
}

int MPI_File_get_atomicity(MPI_File fh, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_atomicity";
    FILE_CHECK(fn, fh);
    if (flag == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "flag is NULL");
    *flag = fh->atomic;
    return MPI_SUCCESS;
}

/* fsync, then a barrier: the "sync-barrier-sync" of §13.6.1 needs no more on one machine. */
int MPI_File_sync(MPI_File fh)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_sync";
    FILE_CHECK(fn, fh);
    int oserr = 0;
    int local = MPI_SUCCESS;
    if (fsync(fh->fd) != 0)
        oserr = errno, local = file_errno_class(oserr);
    int first = 0;
    int rc = file_agree(fh->comm, local, &first);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (local != MPI_SUCCESS)
        return file_error(fh, rc, fn, "fsync: %s", strerror(oserr));
    return file_error(fh, rc, fn, "failed on rank %d", first);
}

/* ---- error handlers ---- */

int MPI_File_create_errhandler(MPI_File_errhandler_function *function, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_create_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (function == NULL || errhandler == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    struct credo_errhandler *h =
        mpi_errh_new((MPI_Comm_errhandler_function *)(void (*)(void))function);
    if (h == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *errhandler = h;
    return MPI_SUCCESS;
}

/* MPI_FILE_NULL is a valid argument of the three below: it names the default handler. */
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_set_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (file != MPI_FILE_NULL && !file_ok(file))
        return file_error(NULL, MPI_ERR_FILE, fn, "invalid file handle");
    if (!errh_live(errhandler))
        return file_error(file, MPI_ERR_ARG, fn, "invalid error handler");
    MPI_Errhandler *slot = file != MPI_FILE_NULL ? &file->errh : &file_default_errh;
    if (errhandler->kind == ERRH_USER)
        errhandler->refcount++;
    MPI_Errhandler old = *slot;
    *slot = errhandler;
    if (old->kind == ERRH_USER && --old->refcount == 0) {
        old->magic = DEAD_MAGIC;
        mpi_handle_del(old);
        free(old);
    }
    return MPI_SUCCESS;
}

int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (file != MPI_FILE_NULL && !file_ok(file))
        return file_error(NULL, MPI_ERR_FILE, fn, "invalid file handle");
    if (errhandler == NULL)
        return file_error(file, MPI_ERR_ARG, fn, "errhandler is NULL");
    MPI_Errhandler h = file != MPI_FILE_NULL ? file->errh : file_default_errh;
    if (h->kind == ERRH_USER)
        h->refcount++; /* released by MPI_Errhandler_free */
    *errhandler = h;
    return MPI_SUCCESS;
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_call_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (fh != MPI_FILE_NULL && !file_ok(fh))
        return file_error(NULL, MPI_ERR_FILE, fn, "invalid file handle");
    file_error(fh, errorcode, fn, "error %d raised by the application", errorcode);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_File_open)
CREDO_PMPI(MPI_File_close)
CREDO_PMPI(MPI_File_delete)
CREDO_PMPI(MPI_File_set_size)
CREDO_PMPI(MPI_File_preallocate)
CREDO_PMPI(MPI_File_get_size)
CREDO_PMPI(MPI_File_get_group)
CREDO_PMPI(MPI_File_get_amode)
CREDO_PMPI(MPI_File_set_info)
CREDO_PMPI(MPI_File_get_info)
CREDO_PMPI(MPI_File_set_view)
CREDO_PMPI(MPI_File_get_view)
CREDO_PMPI(MPI_File_get_type_extent)
CREDO_PMPI(MPI_File_get_type_extent_c)
CREDO_PMPI(MPI_File_set_atomicity)
CREDO_PMPI(MPI_File_get_atomicity)
CREDO_PMPI(MPI_File_sync)
CREDO_PMPI(MPI_File_create_errhandler)
CREDO_PMPI(MPI_File_set_errhandler)
CREDO_PMPI(MPI_File_get_errhandler)
CREDO_PMPI(MPI_File_call_errhandler)
