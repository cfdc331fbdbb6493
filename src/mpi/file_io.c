/* src/mpi/file_io.c — MPI-IO data access: explicit offsets, individual and shared file pointers,
 * ordered and split collective forms, the non-blocking and large-count (_c) forms, seeks and positions. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "mpi/file_impl.h"

/* ---- the transfer ---- */

/* Moves n bytes between mem and the file at byte off, retrying short transfers; returns the
 * bytes moved (fewer than n only at the end of file on a read) or -1 with *oserr set. */
static long long rw_bytes(int fd, char *mem, size_t n, MPI_Offset off, int write, int *oserr)
{
    size_t done = 0;
    while (done < n) {
        size_t chunk = n - done < ((size_t)1 << 30) ? n - done : (size_t)1 << 30;
        ssize_t k = write ? pwrite(fd, mem + done, chunk, (off_t)(off + (MPI_Offset)done))
                          : pread(fd, mem + done, chunk, (off_t)(off + (MPI_Offset)done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            *oserr = errno;
            return -1;
        }
        if (k == 0)
            break; /* end of file (reads only: a write of at least one byte never returns 0) */
        done += (size_t)k;
    }
    return (long long)done;
}

/* POSIX record lock (or unlock: type F_UNLCK) over file bytes [first, last). */
static int range_lock(int fd, int type, MPI_Offset first, MPI_Offset last)
{
    struct flock lk;
    memset(&lk, 0, sizeof lk);
    lk.l_type = (short)type;
    lk.l_whence = SEEK_SET;
    lk.l_start = (off_t)first;
    lk.l_len = (off_t)(last - first);
    int rc;
    while ((rc = fcntl(fd, F_SETLKW, &lk)) != 0 && errno == EINTR)
        ;
    return rc;
}

/* `bytes` bytes at mem (contiguous) <-> the view's data starting at data byte pos. The file side
 * walks the filetype's blocks, tile after tile, and moves each run of file-contiguous blocks with
 * one pread/pwrite. Returns an MPI class (errno in *oserr for I/O failures); *done is the bytes
 * moved, fewer than asked only when a read reaches the end of the file. */
static int xfer_view(MPI_File fh, MPI_Offset pos, char *mem, size_t bytes, int write,
                     long long *done, int *oserr)
{
    /* Atomic mode (§13.6.1): one record lock over the whole span, so concurrent conflicting
     * accesses of other ranks see all of this one or none of it. Locks belong to the process, and
     * credo's ranks are processes. */
    MPI_Offset lo = 0, hi = 0;
    if (fh->atomic) {
        lo = file_view_byte(fh, pos);
        hi = file_view_byte(fh, pos + (MPI_Offset)bytes - 1) + 1;
        if (range_lock(fh->fd, write ? F_WRLCK : F_RDLCK, lo, hi) != 0) {
            *oserr = errno;
            return file_errno_class(*oserr);
        }
    }
    MPI_Datatype ft = fh->filetype;
    const dt_block *blk = ft->blocks;
    int nb = ft->nblocks;
    MPI_Offset ext = (MPI_Offset)ft->extent, sz = (MPI_Offset)ft->size;
    MPI_Offset k = pos / sz;
    int b = file_view_block(fh, pos % sz);
    size_t within = (size_t)(pos % sz - fh->prefix[b]);
    size_t rem = bytes;
    int rc = MPI_SUCCESS;
#define TILE_BYTE(k, b) (fh->disp + (k) * ext + (MPI_Offset)blk[b].disp)
#define ADVANCE(m)                                                                                 \
    do {                                                                                           \
        within += (m);                                                                             \
        if (within == blk[b].len) {                                                                \
            within = 0;                                                                            \
            if (++b == nb)                                                                         \
                b = 0, k++;                                                                        \
        }                                                                                          \
    } while (0)
    while (rem > 0) {
        MPI_Offset off = TILE_BYTE(k, b) + (MPI_Offset)within;
        size_t n = blk[b].len - within < rem ? blk[b].len - within : rem;
        ADVANCE(n);
        /* Following blocks (of this tile or the next) that start where the run ends join it. */
        while (n < rem && within == 0 && TILE_BYTE(k, b) == off + (MPI_Offset)n) {
            size_t m = blk[b].len < rem - n ? blk[b].len : rem - n;
            n += m;
            ADVANCE(m);
        }
        long long got = rw_bytes(fh->fd, mem + (bytes - rem), n, off, write, oserr);
        if (got < 0) {
            rc = file_errno_class(*oserr);
            break;
        }
        *done += got;
        rem -= (size_t)got;
        if ((size_t)got < n)
            break;
    }
#undef TILE_BYTE
#undef ADVANCE
    if (fh->atomic)
        range_lock(fh->fd, F_UNLCK, lo, hi);
    return rc;
}

/* count elements of dt in memory at buf <-> the view's data starting at etype offset off_et. The
 * memory side is packed into (or unpacked from) one staging buffer unless dt is dense; under a
 * data representation that converts (external32 or a registered one, file_datarep.c), the staging
 * buffer holds the file representation and file_datarep_convert fills or empties it instead. Returns an
 * MPI class (errno in *oserr for I/O failures, the conversion function's code in *fn_rc); *done
 * is the bytes moved, fewer than asked only when a read reaches the end of the file. */
static int xfer(MPI_File fh, MPI_Offset off_et, void *buf, size_t count, MPI_Datatype dt,
                int write, long long *done, int *oserr, int *fn_rc)
{
    size_t bytes = count * dt->size;
    *done = 0;
    if (bytes == 0)
        return MPI_SUCCESS;
    int convert = file_datarep_converts(fh->rep, write);
    char *mem, *tmp = NULL;
    int rc;
    if ((dt->flags & DT_F_DENSE) && !convert) {
        mem = BUF_AT(buf, dt->lb);
    } else {
        if ((tmp = malloc(bytes)) == NULL)
            return MPI_ERR_NO_MEM;
        if (write && convert) {
            rc = file_datarep_convert(fh->rep, 1, buf, dt, count, tmp, bytes, fn_rc);
            if (rc != MPI_SUCCESS) {
                free(tmp);
                return rc;
            }
        } else if (write) {
            dt_pack(buf, count, dt, tmp);
        }
        mem = tmp;
    }
    rc = xfer_view(fh, off_et * (MPI_Offset)fh->etype->size, mem, bytes, write, done, oserr);
    if (tmp != NULL) {
        if (!write && *done > 0 && convert) {
            int crc = file_datarep_convert(fh->rep, 0, buf, dt, count, tmp, (size_t)*done, fn_rc);
            if (rc == MPI_SUCCESS)
                rc = crc;
        } else if (!write && *done > 0) {
            dt_unpack(tmp, (size_t)*done, count, dt, buf);
        }
        free(tmp);
    }
    return rc;
}

/* The reason an access failed with class rc (what xfer's outputs say). */
static const char *xfer_why(int rc, int oserr, int fn_rc, int write, char *msg, size_t n)
{
    if (oserr != 0)
        return strerror(oserr);
    if (rc == MPI_ERR_CONVERSION)
        snprintf(msg, n, "the data representation's %s conversion function returned %d",
                 write ? "write" : "read", fn_rc);
    else if (rc == MPI_ERR_COUNT)
        snprintf(msg, n, "more than INT_MAX basic elements to convert for an int conversion "
                         "function (register the data representation with "
                         "MPI_Register_datarep_c)");
    else
        snprintf(msg, n, "out of memory");
    return msg;
}

/* ---- argument checks and the common path ---- */

/* Local checks of an access; MPI_SUCCESS or the class, with the reason in *why. */
static int io_check(MPI_File fh, int kind, MPI_Offset offset, MPI_Count count, MPI_Datatype dt,
                    int write, const char **why)
{
    if (count < 0)
        return *why = "negative count", MPI_ERR_COUNT;
    if (!dt_ok(dt))
        return *why = "invalid or uncommitted datatype", MPI_ERR_TYPE;
    /* A _c count: its bytes must fit in a file offset (and so in size_t). */
    if (dt->size != 0 && (unsigned long long)count > (unsigned long long)LLONG_MAX / dt->size)
        return *why = "count times the datatype's size overflows a file offset", MPI_ERR_COUNT;
    int rw = fh->amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (write && rw == MPI_MODE_RDONLY)
        return *why = "file opened MPI_MODE_RDONLY", MPI_ERR_ACCESS;
    if (!write && rw == MPI_MODE_WRONLY)
        return *why = "file opened MPI_MODE_WRONLY", MPI_ERR_ACCESS;
    if ((kind == K_AT || kind == K_INDIV) && (fh->amode & MPI_MODE_SEQUENTIAL))
        return *why = "explicit offsets and individual file pointers are not allowed under "
                      "MPI_MODE_SEQUENTIAL",
               MPI_ERR_UNSUPPORTED_OPERATION;
    if (kind == K_AT && offset < 0)
        return *why = "negative offset", MPI_ERR_ARG;
    /* The data must be whole etypes (§13.4.1: the buffer's type is built from etypes). */
    if (((size_t)count * dt->size) % fh->etype->size != 0)
        return *why = "the data is not a whole number of etypes", MPI_ERR_TYPE;
    if (count > 0 && (*why = file_datarep_mem_problem(fh->rep, dt)) != NULL)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    return MPI_SUCCESS;
}

static void io_status(MPI_Status *st, long long done)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    /* MPI_ERROR is left alone, as the single-status calls of point to point do. */
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->credo_cancelled = 0;
    st->credo_count_bytes = done;
}

/* The independent access every form but the ordered one comes down to; *done gets the bytes. */
static int io_run(const char *fn, MPI_File fh, int kind, MPI_Offset offset, void *buf,
                  MPI_Count count, MPI_Datatype dt, int write, long long *done)
{
    *done = 0;
    const char *why = NULL;
    int rc = io_check(fh, kind, offset, count, dt, write, &why);
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "%s", why);
    MPI_Offset n_et = (MPI_Offset)((size_t)count * dt->size / fh->etype->size);
    if (kind == K_INDIV)
        offset = fh->fp;
    else if (kind == K_SHARED)
        /* The shared pointer moves by the amount asked for, also when a read ends early. */
        offset = (MPI_Offset)atomic_fetch_add(&fh->shared->fp, (long long)n_et);
    int oserr = 0, fn_rc = MPI_SUCCESS;
    rc = xfer(fh, offset, buf, (size_t)count, dt, write, done, &oserr, &fn_rc);
    if (kind == K_INDIV)
        fh->fp = offset + *done / (long long)fh->etype->size;
    char msg[200];
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "%s at etype offset %lld: %s", write ? "write" : "read",
                          (long long)offset, xfer_why(rc, oserr, fn_rc, write, msg, sizeof msg));
    return MPI_SUCCESS;
}

static int file_io_blocking(const char *fn, MPI_File fh, int kind, MPI_Offset offset, void *buf,
                            MPI_Count count, MPI_Datatype dt, int write, MPI_Status *st)
{
    FILE_CHECK(fn, fh);
    long long done;
    int rc = io_run(fn, fh, kind, offset, buf, count, dt, write, &done);
    if (rc == MPI_SUCCESS)
        io_status(st, done);
    return rc;
}

/* The non-blocking forms run the access at the call and hand out a completed request: waits
 * and tests report the bytes through its status. */
static int file_io_nonblocking(const char *fn, MPI_File fh, int kind, MPI_Offset offset, void *buf,
                               MPI_Count count, MPI_Datatype dt, int write, MPI_Request *request)
{
    FILE_CHECK(fn, fh);
    if (request == NULL)
        return file_error(fh, MPI_ERR_REQUEST, fn, "request is NULL");
    long long done;
    int rc = io_run(fn, fh, kind, offset, buf, count, dt, write, &done);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_req *r = mpi_req_new(fh->comm, REQ_F_RECV);
    if (r == NULL)
        return file_error(fh, MPI_ERR_NO_MEM, fn, "out of requests");
    /* Source -1 is outside the job: the status says MPI_ANY_SOURCE. */
    r->status.source = -1;
    r->status.tag = MPI_ANY_TAG;
    r->status.error = P2P_OK;
    r->status.cancelled = 0;
    r->status.bytes = (size_t)done;
    p2p_req_complete(r);
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

/* Ordered access (§13.4.4): an exchange of the ranks' sizes gives each its place (the sizes of
 * the ranks before it), rank 0 moves the shared pointer past all of them at once and a second
 * exchange tells everybody where the pointer was. The first exchange also orders the call after
 * every rank's earlier shared-pointer accesses, the second keeps later ones after the move. A
 * rank whose arguments are wrong takes part with size 0, then reports. */
static int io_ordered(const char *fn, MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt,
                      int write, long long *done)
{
    *done = 0;
    const char *why = NULL;
    int local = io_check(fh, K_ORDERED, 0, count, dt, write, &why);
    long long n_et = local == MPI_SUCCESS
                         ? (long long)((size_t)count * dt->size / fh->etype->size)
                         : 0;
    int n = fh->comm->size, me = fh->comm->rank;
    long long *all = malloc((size_t)n * sizeof *all);
    if (all == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory"); /* others would wait */
    int rc = file_allgather64(fh, n_et, all);
    long long before = 0, total = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
        if (r < me)
            before += all[r];
        total += all[r];
    }
    long long base = 0;
    if (rc == MPI_SUCCESS && me == 0)
        base = atomic_fetch_add(&fh->shared->fp, total);
    if (rc == MPI_SUCCESS)
        rc = file_allgather64(fh, base, all);
    base = all[0];
    free(all);
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "exchange failed");
    if (local != MPI_SUCCESS)
        return file_error(fh, local, fn, "%s", why);
    int oserr = 0, fn_rc = MPI_SUCCESS;
    rc = xfer(fh, base + before, buf, (size_t)count, dt, write, done, &oserr, &fn_rc);
    char msg[200];
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "%s at etype offset %lld: %s", write ? "write" : "read",
                          base + before, xfer_why(rc, oserr, fn_rc, write, msg, sizeof msg));
    return MPI_SUCCESS;
}

static int file_io_ordered(const char *fn, MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt,
                           int write, MPI_Status *st)
{
    FILE_CHECK(fn, fh);
    long long done;
    int rc = io_ordered(fn, fh, buf, count, dt, write, &done);
    if (rc == MPI_SUCCESS)
        io_status(st, done);
    return rc;
}

/* ---- the data access calls and their large-count forms ----
 * Every access call is one call of a shared path that counts in MPI_Count, so each call and its
 * _c form (MPI 4.0 §5.2) are generated together: FILE_IO_PAIR(name, PARAMS, call) defines
 * MPI_File_<name> with PARAMS(int) and MPI_File_<name>_c with PARAMS(MPI_Count), both returning
 * `call` with fn set to the function's own name, and their PMPI_ names. */
#define FILE_IO_PAIR(Name, PARAMS, ...)                                                            \
    int MPI_File_##Name(PARAMS(int))                                                               \
    {                                                                                              \
        MPI_ENTER();                                                                               \
        static const char fn[] = "MPI_File_" #Name;                                                \
        return __VA_ARGS__;                                                                        \
    }                                                                                              \
    int MPI_File_##Name##_c(PARAMS(MPI_Count))                                                     \
    {                                                                                              \
        MPI_ENTER();                                                                               \
        static const char fn[] = "MPI_File_" #Name "_c";                                           \
        return __VA_ARGS__;                                                                        \
    }                                                                                              \
    CREDO_PMPI(MPI_File_##Name)                                                                    \
    CREDO_PMPI(MPI_File_##Name##_c)

/* Parameter lists, by count type T: explicit offset or not, read (void *) or write (const void *),
 * completed by a status, a request, or (split collectives) neither. */
#define P_AT_RD(T) MPI_File fh, MPI_Offset offset, void *buf, T count, MPI_Datatype datatype, MPI_Status *status
#define P_AT_WR(T) MPI_File fh, MPI_Offset offset, const void *buf, T count, MPI_Datatype datatype, MPI_Status *status
#define P_AT_IRD(T) MPI_File fh, MPI_Offset offset, void *buf, T count, MPI_Datatype datatype, MPI_Request *request
#define P_AT_IWR(T) MPI_File fh, MPI_Offset offset, const void *buf, T count, MPI_Datatype datatype, MPI_Request *request
#define P_RD(T) MPI_File fh, void *buf, T count, MPI_Datatype datatype, MPI_Status *status
#define P_WR(T) MPI_File fh, const void *buf, T count, MPI_Datatype datatype, MPI_Status *status
#define P_IRD(T) MPI_File fh, void *buf, T count, MPI_Datatype datatype, MPI_Request *request
#define P_IWR(T) MPI_File fh, const void *buf, T count, MPI_Datatype datatype, MPI_Request *request
#define P_AT_BRD(T) MPI_File fh, MPI_Offset offset, void *buf, T count, MPI_Datatype datatype
#define P_AT_BWR(T) MPI_File fh, MPI_Offset offset, const void *buf, T count, MPI_Datatype datatype
#define P_BRD(T) MPI_File fh, void *buf, T count, MPI_Datatype datatype
#define P_BWR(T) MPI_File fh, const void *buf, T count, MPI_Datatype datatype

/* Explicit offsets. The _all forms are the independent access: credo has no two-phase
 * aggregation, and the standard asks no synchronization of collective data access. */
FILE_IO_PAIR(read_at, P_AT_RD, file_io_blocking(fn, fh, K_AT, offset, buf, count, datatype, 0, status))
FILE_IO_PAIR(read_at_all, P_AT_RD, file_io_blocking(fn, fh, K_AT, offset, buf, count, datatype, 0, status))
FILE_IO_PAIR(write_at, P_AT_WR, file_io_blocking(fn, fh, K_AT, offset, (void *)buf, count, datatype, 1, status))
FILE_IO_PAIR(write_at_all, P_AT_WR, file_io_blocking(fn, fh, K_AT, offset, (void *)buf, count, datatype, 1, status))
FILE_IO_PAIR(iread_at, P_AT_IRD, file_io_nonblocking(fn, fh, K_AT, offset, buf, count, datatype, 0, request))
FILE_IO_PAIR(iread_at_all, P_AT_IRD, file_io_nonblocking(fn, fh, K_AT, offset, buf, count, datatype, 0, request))
FILE_IO_PAIR(iwrite_at, P_AT_IWR, file_io_nonblocking(fn, fh, K_AT, offset, (void *)buf, count, datatype, 1, request))
FILE_IO_PAIR(iwrite_at_all, P_AT_IWR, file_io_nonblocking(fn, fh, K_AT, offset, (void *)buf, count, datatype, 1, request))

/* Individual file pointers. */
FILE_IO_PAIR(read, P_RD, file_io_blocking(fn, fh, K_INDIV, 0, buf, count, datatype, 0, status))
FILE_IO_PAIR(read_all, P_RD, file_io_blocking(fn, fh, K_INDIV, 0, buf, count, datatype, 0, status))
FILE_IO_PAIR(write, P_WR, file_io_blocking(fn, fh, K_INDIV, 0, (void *)buf, count, datatype, 1, status))
FILE_IO_PAIR(write_all, P_WR, file_io_blocking(fn, fh, K_INDIV, 0, (void *)buf, count, datatype, 1, status))
FILE_IO_PAIR(iread, P_IRD, file_io_nonblocking(fn, fh, K_INDIV, 0, buf, count, datatype, 0, request))
FILE_IO_PAIR(iread_all, P_IRD, file_io_nonblocking(fn, fh, K_INDIV, 0, buf, count, datatype, 0, request))
FILE_IO_PAIR(iwrite, P_IWR, file_io_nonblocking(fn, fh, K_INDIV, 0, (void *)buf, count, datatype, 1, request))
FILE_IO_PAIR(iwrite_all, P_IWR, file_io_nonblocking(fn, fh, K_INDIV, 0, (void *)buf, count, datatype, 1, request))

/* The shared file pointer. */
FILE_IO_PAIR(read_shared, P_RD, file_io_blocking(fn, fh, K_SHARED, 0, buf, count, datatype, 0, status))
FILE_IO_PAIR(write_shared, P_WR, file_io_blocking(fn, fh, K_SHARED, 0, (void *)buf, count, datatype, 1, status))
FILE_IO_PAIR(iread_shared, P_IRD, file_io_nonblocking(fn, fh, K_SHARED, 0, buf, count, datatype, 0, request))
FILE_IO_PAIR(iwrite_shared, P_IWR, file_io_nonblocking(fn, fh, K_SHARED, 0, (void *)buf, count, datatype, 1, request))
FILE_IO_PAIR(read_ordered, P_RD, file_io_ordered(fn, fh, buf, count, datatype, 0, status))
FILE_IO_PAIR(write_ordered, P_WR, file_io_ordered(fn, fh, (void *)buf, count, datatype, 1, status))

/* ---- split collectives (§13.4.5): the access runs at _begin, _end reports it ---- */

static int file_split_begin(const char *fn, MPI_File fh, int split, MPI_Offset offset, void *buf,
                            MPI_Count count, MPI_Datatype dt)
{
    FILE_CHECK(fn, fh);
    if (fh->split != SPLIT_NONE)
        return file_error(fh, MPI_ERR_OTHER, fn,
                          "a split collective is already active on this file");
    int write = split == SPLIT_WRITE_AT || split == SPLIT_WRITE || split == SPLIT_WRITE_ORD;
    long long done;
    int rc;
    if (split == SPLIT_READ_ORD || split == SPLIT_WRITE_ORD)
        rc = io_ordered(fn, fh, buf, count, dt, write, &done);
    else
        rc = io_run(fn, fh, split == SPLIT_READ_AT || split == SPLIT_WRITE_AT ? K_AT : K_INDIV,
                    offset, buf, count, dt, write, &done);
    if (rc != MPI_SUCCESS)
        return rc;
    fh->split = split;
    fh->split_done = done;
    return MPI_SUCCESS;
}

static int split_end(const char *fn, MPI_File fh, int split, MPI_Status *st)
{
    FILE_CHECK(fn, fh);
    if (fh->split != split)
        return file_error(fh, MPI_ERR_OTHER, fn, "no matching split collective _begin is active");
    fh->split = SPLIT_NONE;
    io_status(st, fh->split_done);
    return MPI_SUCCESS;
}

/* The _begin forms with their large-count forms (FILE_IO_PAIR above). */
FILE_IO_PAIR(read_at_all_begin, P_AT_BRD, file_split_begin(fn, fh, SPLIT_READ_AT, offset, buf, count, datatype))
FILE_IO_PAIR(write_at_all_begin, P_AT_BWR, file_split_begin(fn, fh, SPLIT_WRITE_AT, offset, (void *)buf, count, datatype))
FILE_IO_PAIR(read_all_begin, P_BRD, file_split_begin(fn, fh, SPLIT_READ, 0, buf, count, datatype))
FILE_IO_PAIR(write_all_begin, P_BWR, file_split_begin(fn, fh, SPLIT_WRITE, 0, (void *)buf, count, datatype))
FILE_IO_PAIR(read_ordered_begin, P_BRD, file_split_begin(fn, fh, SPLIT_READ_ORD, 0, buf, count, datatype))
FILE_IO_PAIR(write_ordered_begin, P_BWR, file_split_begin(fn, fh, SPLIT_WRITE_ORD, 0, (void *)buf, count, datatype))

int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    MPI_ENTER();
    (void)buf;
    return split_end("MPI_File_read_at_all_end", fh, SPLIT_READ_AT, status);
}

int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    MPI_ENTER();
    (void)buf;
    return split_end("MPI_File_write_at_all_end", fh, SPLIT_WRITE_AT, status);
}

int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    MPI_ENTER();
    (void)buf;
    return split_end("MPI_File_read_all_end", fh, SPLIT_READ, status);
}

int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    MPI_ENTER();
    (void)buf;
    return split_end("MPI_File_write_all_end", fh, SPLIT_WRITE, status);
}

int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    MPI_ENTER();
    (void)buf;
    return split_end("MPI_File_read_ordered_end", fh, SPLIT_READ_ORD, status);
}

int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    MPI_ENTER();
    (void)buf;
    return split_end("MPI_File_write_ordered_end", fh, SPLIT_WRITE_ORD, status);
}

/* ---- positions ---- */

/* The view position (etypes) of the end of the file: the data bytes of the view that lie before
 * it, rounded up to whole etypes, so that a seek to the end and a write add after every byte. */
static int eof_position(MPI_File fh, MPI_Offset *pos, int *oserr)
{
    struct stat sb;
    if (fstat(fh->fd, &sb) != 0) {
        *oserr = errno;
        return file_errno_class(errno);
    }
    MPI_Offset s = (MPI_Offset)sb.st_size, data = 0;
    if (s > fh->disp) {
        MPI_Datatype ft = fh->filetype;
        MPI_Offset t = s - fh->disp, ext = (MPI_Offset)ft->extent;
        MPI_Offset k = t / ext, r = t % ext;
        data = k * (MPI_Offset)ft->size;
        for (int b = 0; b < ft->nblocks && r > ft->blocks[b].disp; b++) {
            MPI_Offset in = r - (MPI_Offset)ft->blocks[b].disp;
            data += in < (MPI_Offset)ft->blocks[b].len ? in : (MPI_Offset)ft->blocks[b].len;
        }
    }
    MPI_Offset et = (MPI_Offset)fh->etype->size;
    *pos = (data + et - 1) / et;
    return MPI_SUCCESS;
}

/* The position whence + offset names from the current position cur, or -1 with the class set. */
static MPI_Offset seek_target(MPI_File fh, MPI_Offset cur, MPI_Offset offset, int whence, int *cls,
                              int *oserr)
{
    MPI_Offset base = 0; /* eof_position sets it on success; -O2 cannot see that */
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = cur; break;
    case MPI_SEEK_END:
        if ((*cls = eof_position(fh, &base, oserr)) != MPI_SUCCESS)
            return -1;
        break;
    default: *cls = MPI_ERR_ARG; return -1;
    }
    if (base + offset < 0) {
        *cls = MPI_ERR_ARG;
        return -1;
    }
    *cls = MPI_SUCCESS;
    return base + offset;
}

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_seek";
    FILE_CHECK(fn, fh);
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                          "the individual file pointer is not allowed under MPI_MODE_SEQUENTIAL");
    int cls, oserr = 0;
    MPI_Offset to = seek_target(fh, fh->fp, offset, whence, &cls, &oserr);
    if (to < 0)
        return file_error(fh, cls, fn, "%s", oserr ? strerror(oserr)
                                                   : whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR &&
                                                             whence != MPI_SEEK_END
                                                         ? "invalid whence"
                                                         : "the position would be negative");
    fh->fp = to;
    return MPI_SUCCESS;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_position";
    FILE_CHECK(fn, fh);
    if (offset == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "offset is NULL");
    *offset = fh->fp;
    return MPI_SUCCESS;
}

int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_byte_offset";
    FILE_CHECK(fn, fh);
    if (disp == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "disp is NULL");
    if (offset < 0)
        return file_error(fh, MPI_ERR_ARG, fn, "negative offset %lld", (long long)offset);
    *disp = file_view_byte(fh, offset * (MPI_Offset)fh->etype->size);
    return MPI_SUCCESS;
}

/* Collective: the arguments must agree; rank 0 moves the pointer, and the exchange of its
 * outcome keeps everybody's later shared accesses after the move. */
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_seek_shared";
    FILE_CHECK(fn, fh);
    int n = fh->comm->size;
    long long *all = malloc((size_t)n * 2 * sizeof *all);
    if (all == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory"); /* others would wait */
    int rc = file_allgather64(fh, offset, all);
    if (rc == MPI_SUCCESS)
        rc = file_allgather64(fh, whence, all + n);
    int local = MPI_SUCCESS, oserr = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++)
        if (all[r] != offset || all[n + r] != whence)
            local = MPI_ERR_NOT_SAME;
    free(all);
    if (rc != MPI_SUCCESS)
        return file_error(fh, rc, fn, "exchange failed");
    if (local == MPI_SUCCESS && fh->comm->rank == 0) {
        MPI_Offset to = seek_target(fh, atomic_load(&fh->shared->fp), offset, whence, &local,
                                    &oserr);
        if (to >= 0)
            atomic_store(&fh->shared->fp, (long long)to);
    }
    int first = 0;
    rc = file_agree(fh->comm, local, &first);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (rc == MPI_ERR_NOT_SAME)
        return file_error(fh, rc, fn, "ranks passed different offsets or whence");
    return file_error(fh, rc, fn, "%s", oserr ? strerror(oserr) : "invalid whence or negative position");
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_position_shared";
    FILE_CHECK(fn, fh);
    if (offset == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "offset is NULL");
    *offset = (MPI_Offset)atomic_load(&fh->shared->fp);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_File_read_at_all_end)
CREDO_PMPI(MPI_File_write_at_all_end)
CREDO_PMPI(MPI_File_read_all_end)
CREDO_PMPI(MPI_File_write_all_end)
CREDO_PMPI(MPI_File_read_ordered_end)
CREDO_PMPI(MPI_File_write_ordered_end)
CREDO_PMPI(MPI_File_seek)
CREDO_PMPI(MPI_File_get_position)
CREDO_PMPI(MPI_File_get_byte_offset)
CREDO_PMPI(MPI_File_seek_shared)
CREDO_PMPI(MPI_File_get_position_shared)
