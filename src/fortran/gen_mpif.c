/* src/fortran/gen_mpif.c — build-time generator of mpif.h: prints every integer constant with the
 * value mpi.h gives it and every predefined handle with fpredef.h's number, so the two cannot drift. */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "mpi/fpredef.h"

/* Integer constants of mpi.h, by name: the value is taken from the C definition. */
#define K(name) {#name, (long)(name)},
static const struct {
    const char *name;
    long value;
} constants[] = {
    K(MPI_VERSION) K(MPI_SUBVERSION) K(MPI_SUCCESS)
    K(MPI_ERR_BUFFER) K(MPI_ERR_COUNT) K(MPI_ERR_TYPE) K(MPI_ERR_TAG) K(MPI_ERR_COMM) K(MPI_ERR_RANK)
    K(MPI_ERR_REQUEST) K(MPI_ERR_ROOT) K(MPI_ERR_GROUP) K(MPI_ERR_OP) K(MPI_ERR_TOPOLOGY)
    K(MPI_ERR_DIMS) K(MPI_ERR_ARG) K(MPI_ERR_UNKNOWN) K(MPI_ERR_TRUNCATE) K(MPI_ERR_OTHER)
    K(MPI_ERR_INTERN) K(MPI_ERR_IN_STATUS) K(MPI_ERR_PENDING) K(MPI_ERR_ACCESS) K(MPI_ERR_AMODE)
    K(MPI_ERR_ASSERT) K(MPI_ERR_BAD_FILE) K(MPI_ERR_BASE) K(MPI_ERR_CONVERSION) K(MPI_ERR_DISP)
    K(MPI_ERR_DUP_DATAREP) K(MPI_ERR_FILE_EXISTS) K(MPI_ERR_FILE_IN_USE) K(MPI_ERR_FILE)
    K(MPI_ERR_INFO_KEY) K(MPI_ERR_INFO_NOKEY) K(MPI_ERR_INFO_VALUE) K(MPI_ERR_INFO) K(MPI_ERR_IO)
    K(MPI_ERR_KEYVAL) K(MPI_ERR_LOCKTYPE) K(MPI_ERR_NAME) K(MPI_ERR_NO_MEM) K(MPI_ERR_NOT_SAME)
    K(MPI_ERR_NO_SPACE) K(MPI_ERR_NO_SUCH_FILE) K(MPI_ERR_PORT) K(MPI_ERR_QUOTA) K(MPI_ERR_READ_ONLY)
    K(MPI_ERR_RMA_CONFLICT) K(MPI_ERR_RMA_SYNC) K(MPI_ERR_SERVICE) K(MPI_ERR_SIZE) K(MPI_ERR_SPAWN)
    K(MPI_ERR_UNSUPPORTED_DATAREP) K(MPI_ERR_UNSUPPORTED_OPERATION) K(MPI_ERR_WIN)
    K(MPI_ERR_RMA_RANGE) K(MPI_ERR_RMA_ATTACH) K(MPI_ERR_RMA_SHARED) K(MPI_ERR_RMA_FLAVOR)
    K(MPI_ERR_SESSION) K(MPI_ERR_LASTCODE)
    K(MPI_ANY_SOURCE) K(MPI_PROC_NULL) K(MPI_ROOT) K(MPI_ANY_TAG) K(MPI_UNDEFINED)
    K(MPI_KEYVAL_INVALID) K(MPI_BSEND_OVERHEAD)
    K(MPI_MAX_PROCESSOR_NAME) K(MPI_MAX_ERROR_STRING) K(MPI_MAX_LIBRARY_VERSION_STRING)
    K(MPI_MAX_OBJECT_NAME) K(MPI_MAX_INFO_KEY) K(MPI_MAX_INFO_VAL) K(MPI_MAX_PORT_NAME)
    K(MPI_MAX_PSET_NAME_LEN) K(MPI_MAX_STRINGTAG_LEN) K(MPI_MAX_DATAREP_STRING)
    K(MPI_THREAD_SINGLE) K(MPI_THREAD_FUNNELED) K(MPI_THREAD_SERIALIZED) K(MPI_THREAD_MULTIPLE)
    K(MPI_IDENT) K(MPI_CONGRUENT) K(MPI_SIMILAR) K(MPI_UNEQUAL)
    K(MPI_TAG_UB) K(MPI_HOST) K(MPI_IO) K(MPI_WTIME_IS_GLOBAL) K(MPI_APPNUM) K(MPI_UNIVERSE_SIZE)
    K(MPI_LASTUSEDCODE)
    K(MPI_COMM_TYPE_SHARED) K(MPI_COMM_TYPE_HW_GUIDED) K(MPI_COMM_TYPE_HW_UNGUIDED)
    K(MPI_GRAPH) K(MPI_CART) K(MPI_DIST_GRAPH)
    K(MPI_ORDER_C) K(MPI_ORDER_FORTRAN) K(MPI_DISTRIBUTE_BLOCK) K(MPI_DISTRIBUTE_CYCLIC)
    K(MPI_DISTRIBUTE_NONE) K(MPI_DISTRIBUTE_DFLT_DARG)
    K(MPI_COMBINER_NAMED) K(MPI_COMBINER_DUP) K(MPI_COMBINER_CONTIGUOUS) K(MPI_COMBINER_VECTOR)
    K(MPI_COMBINER_HVECTOR) K(MPI_COMBINER_INDEXED) K(MPI_COMBINER_HINDEXED)
    K(MPI_COMBINER_INDEXED_BLOCK) K(MPI_COMBINER_HINDEXED_BLOCK) K(MPI_COMBINER_STRUCT)
    K(MPI_COMBINER_SUBARRAY) K(MPI_COMBINER_DARRAY) K(MPI_COMBINER_F90_REAL)
    K(MPI_COMBINER_F90_COMPLEX) K(MPI_COMBINER_F90_INTEGER) K(MPI_COMBINER_RESIZED)
    K(MPI_COMBINER_HVECTOR_INTEGER) K(MPI_COMBINER_HINDEXED_INTEGER) K(MPI_COMBINER_STRUCT_INTEGER)
    K(MPI_TYPECLASS_REAL) K(MPI_TYPECLASS_INTEGER) K(MPI_TYPECLASS_COMPLEX)
    K(MPI_LOCK_EXCLUSIVE) K(MPI_LOCK_SHARED)
    K(MPI_MODE_NOCHECK) K(MPI_MODE_NOSTORE) K(MPI_MODE_NOPUT) K(MPI_MODE_NOPRECEDE)
    K(MPI_MODE_NOSUCCEED)
    K(MPI_WIN_BASE) K(MPI_WIN_SIZE) K(MPI_WIN_DISP_UNIT) K(MPI_WIN_CREATE_FLAVOR) K(MPI_WIN_MODEL)
    K(MPI_WIN_FLAVOR_CREATE) K(MPI_WIN_FLAVOR_ALLOCATE) K(MPI_WIN_FLAVOR_DYNAMIC)
    K(MPI_WIN_FLAVOR_SHARED) K(MPI_WIN_SEPARATE) K(MPI_WIN_UNIFIED)
    K(MPI_MODE_RDONLY) K(MPI_MODE_RDWR) K(MPI_MODE_WRONLY) K(MPI_MODE_CREATE) K(MPI_MODE_EXCL)
    K(MPI_MODE_DELETE_ON_CLOSE) K(MPI_MODE_UNIQUE_OPEN) K(MPI_MODE_APPEND) K(MPI_MODE_SEQUENTIAL)
    K(MPI_SEEK_SET) K(MPI_SEEK_CUR) K(MPI_SEEK_END)
};
#undef K

/* Null handles are 0 in every kind (fhandle.c). */
static const char *const null_handles[] = {
    "MPI_COMM_NULL", "MPI_GROUP_NULL", "MPI_REQUEST_NULL", "MPI_MESSAGE_NULL", "MPI_INFO_NULL",
    "MPI_DATATYPE_NULL", "MPI_OP_NULL", "MPI_ERRHANDLER_NULL", "MPI_WIN_NULL", "MPI_FILE_NULL",
    "MPI_SESSION_NULL",
};

#define NAME_OF(Kind, NAME) #NAME,
static const char *const predefined[] = {CREDO_F_PREDEF(NAME_OF)};
#undef NAME_OF

/* Other names of the same C object have its number (fhandle.c lists each object once). */
static const struct {
    const char *alias, *original;
} aliases[] = {
    {"MPI_LONG_LONG_INT", "MPI_LONG_LONG"},
    {"MPI_C_COMPLEX", "MPI_C_FLOAT_COMPLEX"},
};

/* Procedures of libcredo a program names as arguments (f_attr.c): one EXTERNAL line each. */
static const char *const attr_callbacks[] = {
    "MPI_COMM_NULL_COPY_FN", "MPI_COMM_DUP_FN", "MPI_COMM_NULL_DELETE_FN",
    "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_DUP_FN", "MPI_TYPE_NULL_DELETE_FN",
    "MPI_WIN_NULL_COPY_FN",  "MPI_WIN_DUP_FN",  "MPI_WIN_NULL_DELETE_FN",
    "MPI_NULL_COPY_FN",      "MPI_DUP_FN",      "MPI_NULL_DELETE_FN",
};

/* Every line fits fixed form (columns 7-72) and free form alike, so one file serves both. */
static void integer(FILE *out, const char *name, long value)
{
    fprintf(out, "      INTEGER %s\n      PARAMETER (%s=%ld)\n", name, name, value);
}

static int predefined_number(const char *name)
{
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (strcmp(predefined[i], name) == 0)
            return (int)i + 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_mpif OUTPUT\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "! mpif.h of credo, generated from mpi.h at build time: do not edit.\n"
                 "! Valid as fixed and as free source form; the mpi module includes it.\n");
    for (size_t i = 0; i < sizeof constants / sizeof *constants; i++)
        integer(out, constants[i].name, constants[i].value);

    /* A Fortran status is MPI_STATUS_SIZE integers; SOURCE, TAG, ERROR are 1-based indices. */
    integer(out, "MPI_STATUS_SIZE", MPI_F_STATUS_SIZE);
    integer(out, "MPI_SOURCE", MPI_F_SOURCE + 1);
    integer(out, "MPI_TAG", MPI_F_TAG + 1);
    integer(out, "MPI_ERROR", MPI_F_ERROR + 1);
    integer(out, "MPI_ADDRESS_KIND", (long)sizeof(MPI_Aint));
    integer(out, "MPI_OFFSET_KIND", (long)sizeof(MPI_Offset));
    integer(out, "MPI_COUNT_KIND", (long)sizeof(MPI_Count));
    integer(out, "MPI_INTEGER_KIND", (long)sizeof(MPI_Fint));
    /* an MPI_Offset, so of that kind */
    fprintf(out, "      INTEGER(KIND=MPI_OFFSET_KIND) MPI_DISPLACEMENT_CURRENT\n"
                 "      PARAMETER (MPI_DISPLACEMENT_CURRENT=%lld)\n",
            (long long)MPI_DISPLACEMENT_CURRENT);
    /* MPI 3.0 §17.1.1: no subarrays as buffers, no ASYNCHRONOUS guarantee (mpif.h and mpi) */
    fprintf(out, "      LOGICAL MPI_SUBARRAYS_SUPPORTED, MPI_ASYNC_PROTECTS_NONBLOCKING\n"
                 "      PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)\n"
                 "      PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)\n");

    for (size_t i = 0; i < sizeof null_handles / sizeof *null_handles; i++)
        integer(out, null_handles[i], 0);
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        integer(out, predefined[i], (long)i + 1);
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
        int n = predefined_number(aliases[i].original);
        if (n == 0) {
            fprintf(stderr, "gen_mpif: alias %s of unknown %s\n", aliases[i].alias, aliases[i].original);
            return 1;
        }
        integer(out, aliases[i].alias, n);
    }

    /* Addresses the bindings recognise: common blocks whose storage is in libcredo. */
    fprintf(out, "      INTEGER MPI_BOTTOM\n      COMMON /CREDO_BOTTOM/ MPI_BOTTOM\n"
                 "      INTEGER MPI_IN_PLACE\n      COMMON /CREDO_IN_PLACE/ MPI_IN_PLACE\n"
                 "      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)\n"
                 "      COMMON /CREDO_STATUS_IGNORE/ MPI_STATUS_IGNORE\n"
                 "      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)\n"
                 "      COMMON /CREDO_STATUSES_IGNORE/ MPI_STATUSES_IGNORE\n"
                 "      INTEGER MPI_ERRCODES_IGNORE(1)\n"
                 "      COMMON /CREDO_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE\n"
                 "      INTEGER MPI_UNWEIGHTED(1)\n      COMMON /CREDO_UNWEIGHTED/ MPI_UNWEIGHTED\n"
                 "      INTEGER MPI_WEIGHTS_EMPTY(1)\n"
                 "      COMMON /CREDO_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY\n");
    fprintf(out, "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK\n      EXTERNAL MPI_WTIME, MPI_WTICK\n"
                 "      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK\n"
                 "      EXTERNAL PMPI_WTIME, PMPI_WTICK\n");
    /* MPI_AINT_ADD and MPI_AINT_DIFF are typed by the mpi module only: programs written for
     * MPICH's mpif.h declare them themselves, and a second declaration would be an error. */
    /* The predefined attribute callbacks (f_attr.c), passed to the create_keyval routines. */
    for (size_t i = 0; i < sizeof attr_callbacks / sizeof *attr_callbacks; i++)
        fprintf(out, "      EXTERNAL %s\n", attr_callbacks[i]);
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
