/* src/mpi/file_datarep.c — data representations other than "native": the built-in "internal" and
 * "external32", the ones registered with MPI_Register_datarep(_c), the checks a view makes of one,
 * file extents and the conversion calls. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dt_build.h"
#include "mpi/file_impl.h"

/* MPI 4.0 §14.5.3: registrations cannot be undone; they live until the process ends (the list is
 * reachable from here, so leak checkers do not count it). Entries are only ever prepended, under
 * the big lock. */
static file_datarep *reps;

/* "internal" (§14.5.2) may be any representation the implementation likes; credo's processes all
 * run on one kind of host, so it is the native one under its own name (MPI_File_get_view
 * reports it). */
static int native_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

/* "external32" (§14.5.2): big-endian, IEEE, the sizes of the standard's table, no padding; each
 * basic type's file extent is its external32 size. Views are laid out in native extents (below),
 * so a view or buffer takes only types of the same size in both forms: on LP64 hosts every type
 * but long, unsigned long, wchar_t and the MAXLOC pairs with padding. */
static int ext32_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    return dt_ext32_size(dt, extent) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_TYPE;
}

static file_datarep builtin_reps[] = {
    {.name = "internal", .extent = native_extent},
    {.name = "external32", .extent = ext32_extent, .conv = dt_ext32_file},
};

const file_datarep *file_datarep_find(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_reps / sizeof builtin_reps[0]; i++)
        if (strcmp(builtin_reps[i].name, name) == 0)
            return &builtin_reps[i];
    for (const file_datarep *r = reps; r != NULL; r = r->next)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

static int is_predefined_rep(const char *name)
{
    return strcmp(name, "native") == 0 || strcmp(name, "internal") == 0 ||
           strcmp(name, "external32") == 0;
}

static int register_rep(const char *fn, const char *datarep, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr,
                        MPI_Datarep_conversion_function_c *rd_c,
                        MPI_Datarep_conversion_function_c *wr_c,
                        MPI_Datarep_extent_function *extent, void *extra)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    /* No file is involved: errors go to the handler of MPI_FILE_NULL, as MPI_File_open's do. */
    if (datarep == NULL)
        return file_error(NULL, MPI_ERR_ARG, fn, "datarep is NULL");
    size_t len = strnlen(datarep, MPI_MAX_DATAREP_STRING);
    if (len == 0)
        return file_error(NULL, MPI_ERR_ARG, fn, "datarep is empty");
    if (len == MPI_MAX_DATAREP_STRING)
        return file_error(NULL, MPI_ERR_ARG, fn,
                          "datarep is longer than MPI_MAX_DATAREP_STRING - 1 (%d) characters",
                          MPI_MAX_DATAREP_STRING - 1);
    if (extent == NULL)
        return file_error(NULL, MPI_ERR_ARG, fn, "dtype_file_extent_fn is NULL");
    if (is_predefined_rep(datarep) || file_datarep_find(datarep) != NULL)
        return file_error(NULL, MPI_ERR_DUP_DATAREP, fn,
                          "data representation \"%s\" is %s", datarep,
                          is_predefined_rep(datarep) ? "predefined" : "already registered");
    file_datarep *r = calloc(1, sizeof *r);
    if (r == NULL)
        return file_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(r->name, datarep, len + 1);
    r->rd = rd;
    r->wr = wr;
    r->rd_c = rd_c;
    r->wr_c = wr_c;
    r->extent = extent;
    r->extra = extra;
    r->next = reps;
    reps = r;
    return MPI_SUCCESS;
}

int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    MPI_ENTER();
    return register_rep("MPI_Register_datarep", datarep, read_conversion_fn, write_conversion_fn,
                        NULL, NULL, dtype_file_extent_fn, extra_state);
}

int MPI_Register_datarep_c(const char *datarep,
                           MPI_Datarep_conversion_function_c *read_conversion_fn,
                           MPI_Datarep_conversion_function_c *write_conversion_fn,
                           MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    MPI_ENTER();
    return register_rep("MPI_Register_datarep_c", datarep, NULL, NULL, read_conversion_fn,
                        write_conversion_fn, dtype_file_extent_fn, extra_state);
}

/* ---- extents ---- */

/* The outcome of asking rep's extent function about every predefined type dt is built from. */
enum { EXT_NATIVE, EXT_OTHER, EXT_FAILED, EXT_OPAQUE };

typedef struct ext_walk {
    const file_datarep *rep;
    MPI_Datatype culprit; /* the type that was not native, or whose query failed */
    MPI_Aint got;         /* its file extent, or the extent function's code */
} ext_walk;

static int walk_extents(ext_walk *w, MPI_Datatype dt, int depth)
{
    if (dt->flags & DT_F_PREDEF) {
        MPI_Aint e = 0;
        int rc = w->rep->extent(dt, &e, w->rep->extra);
        w->culprit = dt;
        if (rc != MPI_SUCCESS)
            return w->got = rc, EXT_FAILED;
        if (e != dt->extent)
            return w->got = e, EXT_OTHER;
        return EXT_NATIVE;
    }
    /* Derived types record their constructor (dt_build.h); a chain deeper than any real program
     * builds would be a cycle, which cannot happen, or an unknown type. */
    const dt_contents *c = dt->contents;
    if (c == NULL || depth > 1000) {
        w->culprit = dt;
        return EXT_OPAQUE;
    }
    for (int i = 0; i < c->nd; i++) {
        int k = walk_extents(w, c->types[i], depth + 1);
        if (k != EXT_NATIVE)
            return k;
    }
    return EXT_NATIVE;
}

static const char *type_name(MPI_Datatype dt)
{
    return dt->name != NULL && dt->name[0] != '\0' ? dt->name : "a derived datatype";
}

/* The message for a walk that did not end EXT_NATIVE (class in *cls). */
static const char *walk_problem(const ext_walk *w, int k, const char *whose, int *cls, char *msg,
                                size_t n)
{
    const char *rep = w->rep->name;
    switch (k) {
    case EXT_FAILED:
        *cls = MPI_ERR_CONVERSION;
        snprintf(msg, n, "data representation \"%s\": the extent function returned %d for %s",
                 rep, (int)w->got, type_name(w->culprit));
        break;
    case EXT_OTHER:
        *cls = MPI_ERR_UNSUPPORTED_DATAREP;
        snprintf(msg, n,
                 "data representation \"%s\" gives %s a file extent of %lld bytes, not its native "
                 "%lld (in %s): credo lays out views of data representations other than "
                 "\"native\" in native extents only",
                 rep, type_name(w->culprit), (long long)w->got, (long long)w->culprit->extent,
                 whose);
        break;
    default:
        *cls = MPI_ERR_UNSUPPORTED_DATAREP;
        snprintf(msg, n,
                 "data representation \"%s\": cannot list the basic types of %s (%s) to ask the "
                 "extent function about them",
                 rep, type_name(w->culprit), whose);
        break;
    }
    return msg;
}

const char *file_datarep_view_problem(const file_datarep *rep, MPI_Datatype etype,
                                      MPI_Datatype filetype, int *cls, char *msg, size_t msg_len)
{
    ext_walk w = {rep, NULL, 0};
    int k = walk_extents(&w, etype, 0);
    if (k != EXT_NATIVE)
        return walk_problem(&w, k, "the etype", cls, msg, msg_len);
    k = walk_extents(&w, filetype, 0);
    if (k != EXT_NATIVE)
        return walk_problem(&w, k, "the filetype", cls, msg, msg_len);
    return NULL;
}

const char *file_datarep_mem_problem(const file_datarep *rep, MPI_Datatype dt)
{
    /* A view's types are checked once, at MPI_File_set_view; this runs at every access with a
     * built-in conversion, so the message goes to a per-thread buffer. */
    static _Thread_local char msg[300];
    if (rep == NULL || rep->conv == NULL)
        return NULL;
    ext_walk w = {rep, NULL, 0};
    int k = walk_extents(&w, dt, 0);
    if (k == EXT_NATIVE)
        return NULL;
    int cls;
    return walk_problem(&w, k, "the buffer's datatype", &cls, msg, sizeof msg);
}

/* MPI 4.0 §14.5.2: the extent datatype would take in the file under the current view. A
 * predefined type's is what the extent function says; a derived one's is its native extent when
 * every basic type in it has its native extent in the file (credo computes no other layout). */
int file_type_extent(const char *fn, MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    if (!dt_live(datatype))
        return file_error(fh, MPI_ERR_TYPE, fn, "invalid datatype");
    if (fh->rep == NULL) {
        *extent = datatype->extent; /* "native": the file holds memory's representation */
        return MPI_SUCCESS;
    }
    if (datatype->flags & DT_F_PREDEF) {
        MPI_Aint e = 0;
        int rc = fh->rep->extent(datatype, &e, fh->rep->extra);
        if (rc != MPI_SUCCESS)
            return file_error(fh, MPI_ERR_CONVERSION, fn,
                              "data representation \"%s\": the extent function returned %d for %s",
                              fh->rep->name, rc, type_name(datatype));
        *extent = e;
        return MPI_SUCCESS;
    }
    ext_walk w = {fh->rep, NULL, 0};
    int k = walk_extents(&w, datatype, 0);
    if (k != EXT_NATIVE) {
        int cls = MPI_ERR_UNSUPPORTED_DATAREP;
        char msg[400];
        walk_problem(&w, k, "the datatype", &cls, msg, sizeof msg);
        return file_error(fh, cls, fn, "%s", msg);
    }
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

/* ---- conversions ---- */

/* The basic elements of dt that the first `bytes` bytes of its packed form hold whole (a read that
 * ended early: only those are converted). */
static MPI_Count whole_elems(MPI_Datatype dt, long long bytes)
{
    if (dt->elem_size != 0)
        return (MPI_Count)(bytes / (long long)dt->elem_size);
    /* Mixed sizes: the status query counts elements, and says MPI_UNDEFINED when the bytes end
     * inside one; the bytes of a basic element are few, so step back until they do not. */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    for (long long b = bytes; b > 0 && bytes - b < 64; b--) {
        MPI_Count n = MPI_UNDEFINED;
        st.credo_count_bytes = b;
        if (PMPI_Get_elements_x(&st, dt, &n) == MPI_SUCCESS && n != MPI_UNDEFINED)
            return n;
    }
    return 0;
}

/* The built-in conversion takes whole elements and bytes; a registered one (§14.5.3) counts basic
 * data items (type map entries of the tiled datatype) from position 0: credo converts a whole
 * access in one call, and after a read that ended early only the items the bytes hold whole. */
int file_datarep_convert(const file_datarep *rep, int write, void *userbuf, MPI_Datatype dt,
                         size_t count, void *filebuf, size_t bytes, int *fn_rc)
{
    if (rep->conv != NULL)
        return rep->conv(write, userbuf, dt, count, filebuf, bytes);
    MPI_Count items = write ? (MPI_Count)(count * dt->elems) : whole_elems(dt, (long long)bytes);
    MPI_Datarep_conversion_function_c *fc = write ? rep->wr_c : rep->rd_c;
    MPI_Datarep_conversion_function *fi = write ? rep->wr : rep->rd;
    int rc;
    if (fc != NULL) {
        rc = fc(userbuf, dt, items, filebuf, 0, rep->extra);
    } else {
        if (items > INT_MAX)
            return MPI_ERR_COUNT;
        rc = fi(userbuf, dt, (int)items, filebuf, 0, rep->extra);
    }
    if (rc != MPI_SUCCESS) {
        *fn_rc = rc;
        return MPI_ERR_CONVERSION;
    }
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Register_datarep)
CREDO_PMPI(MPI_Register_datarep_c)
