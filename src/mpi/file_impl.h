/* src/mpi/file_impl.h — internal layout of an MPI_File (MPI-IO) and what file.c (handles, views,
 * sizes, handlers) and file_io.c (data access) share: checks, error reporting, the view's map. */
#ifndef CREDO_MPI_FILE_IMPL_H
#define CREDO_MPI_FILE_IMPL_H

#include <stdatomic.h>

#include "mpi/mpi_impl.h"

#define FILE_MAGIC 0x46696c65u

/* The shared file pointer (in etypes of the current view) lives in a small shared-memory segment
 * that rank 0 creates at MPI_File_open and every rank maps: all ranks run on one machine, so an
 * atomic fetch-and-add on it is the whole of MPI_File_write_shared's coordination. */
typedef struct file_shared {
    _Atomic long long fp;
} file_shared;

/* A data representation other than "native" (file_datarep.c, §14.5): "internal" and "external32",
 * built in, or one registered with MPI_Register_datarep(_c) (§14.5.3). A registration keeps the
 * int and the _c conversion functions apart (rd/wr or rd_c/wr_c: one pair is NULL, both when the
 * representation converts nothing) and lasts for the life of the process. A built-in one that
 * converts has conv instead: count elements of dt at user to (to_file) or from `bytes` at
 * filebuf. */
typedef struct file_datarep {
    struct file_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;
    MPI_Datarep_conversion_function_c *rd_c, *wr_c;
    MPI_Datarep_extent_function *extent;
    void *extra;
    int (*conv)(int to_file, void *user, MPI_Datatype dt, size_t count, void *filebuf,
                size_t bytes);
} file_datarep;

struct credo_file {
    uint32_t magic;
    int fd;
    int amode;
    MPI_Comm comm;           /* hidden communicator on a fresh context: internal collectives,
                              * the group and the hints (its info) */
    char *path;              /* as given to MPI_File_open, for MPI_MODE_DELETE_ON_CLOSE */
    file_shared *shared;     /* mapped segment of the shared file pointer */
    MPI_Errhandler errh;
    int atomic;              /* MPI_File_set_atomicity */
    /* The view: disp, etype, filetype (both retained unless predefined); prefix[i] is the number
     * of data bytes in the filetype's blocks before block i, for the offset search. */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    MPI_Offset *prefix;
    MPI_Offset fp;           /* individual file pointer, in etypes */
    const file_datarep *rep; /* the view's user data representation, or NULL for "native" */
    int split;               /* the split collective in progress (file_io.c's SPLIT_*), at most
                              * one per handle (§13.4.5) */
    long long split_done;    /* bytes its _begin moved */
};

static inline int file_ok(MPI_File f)
{
    return likely(mpi_handle_live(f, HK_FILE)) && likely(f->magic == FILE_MAGIC);
}

/* Reports `code` raised in `fn` through fh's error handler, or through the default file handler
 * (the one MPI_FILE_NULL carries) when fh is not a valid file. Returns the code when the handler
 * returns. */
int file_error(MPI_File fh, int code, const char *fn, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));

#define FILE_CHECK(fn, fh)                                                                         \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
        if (!file_ok(fh))                                                                          \
            return file_error(NULL, MPI_ERR_FILE, fn, "invalid file handle");                      \
    } while (0)

/* The MPI error class of an errno value from open/pread/pwrite/ftruncate. */
int file_errno_class(int err);

/* The exchange of one error class over the file's communicator: MPI_SUCCESS or the lowest failing
 * rank's class (and that rank in *first_rank, which may be NULL). */
int file_agree(MPI_Comm comm, int mine, int *first_rank);

/* The filetype block that holds data byte w (0 <= w < filetype size) of one filetype copy. */
int file_view_block(MPI_File fh, MPI_Offset w);

/* File byte offset of data byte `pos` of the view (data bytes are those of the filetype's blocks,
 * numbered from the view's start in tiling order). */
MPI_Offset file_view_byte(MPI_File fh, MPI_Offset pos);

/* The exchange of 64-bit values over the file's communicator (an allgather of int pairs): all[r]
 * receives rank r's `mine`. 0 or an MPI error class. */
int file_allgather64(MPI_File fh, long long mine, long long *all);

/* ---- data access (file_io.c) ----
 * Counts are MPI_Count all the way down: the byte counts are size_t, so the int forms and the _c
 * forms take the same path and a _c count beyond INT_MAX needs no detour. */

/* How an access finds its offset. ORDERED is an explicit offset the shared pointer's exchange
 * computed, so it is allowed under MPI_MODE_SEQUENTIAL like the shared pointer itself. */
enum { K_AT, K_INDIV, K_SHARED, K_ORDERED };
/* The split collective in progress on a handle (credo_file.split). */
enum { SPLIT_NONE = 0, SPLIT_READ_AT, SPLIT_WRITE_AT, SPLIT_READ, SPLIT_WRITE, SPLIT_READ_ORD,
       SPLIT_WRITE_ORD };

/* ---- data representations other than "native" (file_datarep.c) ---- */

/* The built-in or registered representation called name, or NULL ("native" is NULL too). */
const file_datarep *file_datarep_find(const char *name);
/* Whether credo can use rep for a view of etype and filetype: NULL, or the problem written into
 * msg (class in *cls): credo lays a view out in native extents, so every basic type of both must
 * have its native extent in rep (the extent function is asked). */
const char *file_datarep_view_problem(const file_datarep *rep, MPI_Datatype etype,
                                      MPI_Datatype filetype, int *cls, char *msg, size_t msg_len);
/* The file extent of datatype under fh's view (MPI_File_get_type_extent): MPI_SUCCESS or the
 * error raised as fn's. */
int file_type_extent(const char *fn, MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
/* Whether an access under rep must convert its data (write: the write function, read: the read
 * function is not MPI_CONVERSION_FN_NULL). */
static inline int file_datarep_converts(const file_datarep *rep, int write)
{
    if (rep == NULL)
        return 0;
    if (rep->conv != NULL)
        return 1;
    return write ? rep->wr != NULL || rep->wr_c != NULL : rep->rd != NULL || rep->rd_c != NULL;
}
/* Whether rep can convert a memory buffer of dt: NULL, or why not (class
 * MPI_ERR_UNSUPPORTED_DATAREP). Only the built-in conversion restricts it: a registered
 * representation's functions see the memory type themselves. */
const char *file_datarep_mem_problem(const file_datarep *rep, MPI_Datatype dt);
/* Runs rep's conversion between count elements of dt at userbuf and filebuf (contiguous, file
 * representation; a read converts only what its `bytes` hold); MPI_SUCCESS, MPI_ERR_COUNT (more
 * than INT_MAX items for an int conversion function), MPI_ERR_CONVERSION (the function failed; its
 * code in *fn_rc) or, for the built-in conversion, MPI_ERR_NO_MEM. */
int file_datarep_convert(const file_datarep *rep, int write, void *userbuf, MPI_Datatype dt,
                         size_t count, void *filebuf, size_t bytes, int *fn_rc);

#endif
