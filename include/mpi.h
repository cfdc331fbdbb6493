/* include/mpi.h — credo's public MPI interface: MPI-3.1 C bindings for the subset credo implements.
 * Handles are pointers to internal structs; predefined handles are the addresses of library objects. */
#ifndef CREDO_MPI_H
#define CREDO_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define CREDO_MPI 1

/* ---- handle and scalar types ------------------------------------------------------------ */

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct credo_comm *MPI_Comm;
typedef struct credo_group *MPI_Group;
typedef struct credo_datatype *MPI_Datatype;
typedef struct credo_op *MPI_Op;
typedef struct credo_errhandler *MPI_Errhandler;
typedef struct credo_request *MPI_Request;
typedef struct credo_message *MPI_Message;
typedef struct credo_info *MPI_Info;

/* The three public fields are the standard's; the credo_ ones are private (used by Get_count,
 * Test_cancelled) and may change. */
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int credo_cancelled;
    long long credo_count_bytes;
} MPI_Status;

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
/* MPI 4.0: the function of MPI_Op_create_c, which gets the element count as an MPI_Count. */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;

/* ---- predefined objects ------------------------------------------------------------------ */

extern struct credo_comm credo_comm_world, credo_comm_self;
#define MPI_COMM_WORLD (&credo_comm_world)
#define MPI_COMM_SELF (&credo_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)

extern struct credo_group credo_group_empty;
#define MPI_GROUP_EMPTY (&credo_group_empty)
#define MPI_GROUP_NULL ((MPI_Group)0)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
/* What a matched probe of MPI_PROC_NULL returns; MPI_Mrecv of it receives nothing at once. */
extern struct credo_message credo_message_no_proc;
#define MPI_MESSAGE_NO_PROC (&credo_message_no_proc)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)

extern struct credo_errhandler credo_errh_fatal, credo_errh_return, credo_errh_abort;
#define MPI_ERRORS_ARE_FATAL (&credo_errh_fatal)
#define MPI_ERRORS_RETURN (&credo_errh_return)
#define MPI_ERRORS_ABORT (&credo_errh_abort)

extern struct credo_op credo_op_max, credo_op_min, credo_op_sum, credo_op_prod, credo_op_land,
    credo_op_band, credo_op_lor, credo_op_bor, credo_op_lxor, credo_op_bxor, credo_op_maxloc,
    credo_op_minloc, credo_op_replace, credo_op_no_op;
#define MPI_MAX (&credo_op_max)
#define MPI_MIN (&credo_op_min)
#define MPI_SUM (&credo_op_sum)
#define MPI_PROD (&credo_op_prod)
#define MPI_LAND (&credo_op_land)
#define MPI_BAND (&credo_op_band)
#define MPI_LOR (&credo_op_lor)
#define MPI_BOR (&credo_op_bor)
#define MPI_LXOR (&credo_op_lxor)
#define MPI_BXOR (&credo_op_bxor)
#define MPI_MAXLOC (&credo_op_maxloc)
#define MPI_MINLOC (&credo_op_minloc)
#define MPI_REPLACE (&credo_op_replace)
#define MPI_NO_OP (&credo_op_no_op)

extern struct credo_datatype credo_dt_char, credo_dt_signed_char, credo_dt_unsigned_char,
    credo_dt_byte, credo_dt_short, credo_dt_unsigned_short, credo_dt_int, credo_dt_unsigned,
    credo_dt_long, credo_dt_unsigned_long, credo_dt_long_long, credo_dt_unsigned_long_long,
    credo_dt_float, credo_dt_double, credo_dt_long_double, credo_dt_wchar, credo_dt_c_bool,
    credo_dt_int8_t, credo_dt_int16_t, credo_dt_int32_t, credo_dt_int64_t, credo_dt_uint8_t,
    credo_dt_uint16_t, credo_dt_uint32_t, credo_dt_uint64_t, credo_dt_c_float_complex,
    credo_dt_c_double_complex, credo_dt_c_long_double_complex, credo_dt_float_int,
    credo_dt_double_int, credo_dt_long_int, credo_dt_2int, credo_dt_short_int,
    credo_dt_long_double_int, credo_dt_aint, credo_dt_offset, credo_dt_count, credo_dt_packed,
    credo_dt_cxx_bool, credo_dt_cxx_float_complex, credo_dt_cxx_double_complex,
    credo_dt_cxx_long_double_complex, credo_dt_f_2real, credo_dt_f_2double_precision,
    credo_dt_f_2integer;
#define MPI_CHAR (&credo_dt_char)
#define MPI_SIGNED_CHAR (&credo_dt_signed_char)
#define MPI_UNSIGNED_CHAR (&credo_dt_unsigned_char)
#define MPI_BYTE (&credo_dt_byte)
#define MPI_SHORT (&credo_dt_short)
#define MPI_UNSIGNED_SHORT (&credo_dt_unsigned_short)
#define MPI_INT (&credo_dt_int)
#define MPI_UNSIGNED (&credo_dt_unsigned)
#define MPI_LONG (&credo_dt_long)
#define MPI_UNSIGNED_LONG (&credo_dt_unsigned_long)
#define MPI_LONG_LONG_INT (&credo_dt_long_long)
#define MPI_LONG_LONG (&credo_dt_long_long)
#define MPI_UNSIGNED_LONG_LONG (&credo_dt_unsigned_long_long)
#define MPI_FLOAT (&credo_dt_float)
#define MPI_DOUBLE (&credo_dt_double)
#define MPI_LONG_DOUBLE (&credo_dt_long_double)
#define MPI_WCHAR (&credo_dt_wchar)
#define MPI_C_BOOL (&credo_dt_c_bool)
#define MPI_INT8_T (&credo_dt_int8_t)
#define MPI_INT16_T (&credo_dt_int16_t)
#define MPI_INT32_T (&credo_dt_int32_t)
#define MPI_INT64_T (&credo_dt_int64_t)
#define MPI_UINT8_T (&credo_dt_uint8_t)
#define MPI_UINT16_T (&credo_dt_uint16_t)
#define MPI_UINT32_T (&credo_dt_uint32_t)
#define MPI_UINT64_T (&credo_dt_uint64_t)
#define MPI_C_COMPLEX (&credo_dt_c_float_complex)
#define MPI_C_FLOAT_COMPLEX (&credo_dt_c_float_complex)
#define MPI_C_DOUBLE_COMPLEX (&credo_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&credo_dt_c_long_double_complex)
#define MPI_FLOAT_INT (&credo_dt_float_int)
#define MPI_DOUBLE_INT (&credo_dt_double_int)
#define MPI_LONG_INT (&credo_dt_long_int)
#define MPI_2INT (&credo_dt_2int)
#define MPI_SHORT_INT (&credo_dt_short_int)
#define MPI_LONG_DOUBLE_INT (&credo_dt_long_double_int)
#define MPI_2REAL (&credo_dt_f_2real)
#define MPI_2DOUBLE_PRECISION (&credo_dt_f_2double_precision)
#define MPI_2INTEGER (&credo_dt_f_2integer)
#define MPI_AINT (&credo_dt_aint)
#define MPI_OFFSET (&credo_dt_offset)
#define MPI_COUNT (&credo_dt_count)
#define MPI_PACKED (&credo_dt_packed)
/* The C++ types, usable from C too (MPI 3.1 3.2.2): bool and std::complex<T> have the layout of
 * _Bool and _Complex T with the compilers credo supports. */
#define MPI_CXX_BOOL (&credo_dt_cxx_bool)
/* Fortran's named types, for C code handling Fortran data (src/mpi/datatype.c) */
extern struct credo_datatype credo_dt_f_integer, credo_dt_f_logical, credo_dt_f_character,
    credo_dt_f_real, credo_dt_f_double_precision, credo_dt_f_complex, credo_dt_f_double_complex,
    credo_dt_f_integer1, credo_dt_f_integer2, credo_dt_f_integer4, credo_dt_f_integer8, credo_dt_f_integer16,
    credo_dt_f_real4, credo_dt_f_real8, credo_dt_f_complex8, credo_dt_f_complex16;
#define MPI_INTEGER (&credo_dt_f_integer)
#define MPI_LOGICAL (&credo_dt_f_logical)
#define MPI_CHARACTER (&credo_dt_f_character)
#define MPI_REAL (&credo_dt_f_real)
#define MPI_DOUBLE_PRECISION (&credo_dt_f_double_precision)
#define MPI_COMPLEX (&credo_dt_f_complex)
#define MPI_DOUBLE_COMPLEX (&credo_dt_f_double_complex)
#define MPI_INTEGER1 (&credo_dt_f_integer1)
#define MPI_INTEGER2 (&credo_dt_f_integer2)
#define MPI_INTEGER4 (&credo_dt_f_integer4)
#define MPI_INTEGER8 (&credo_dt_f_integer8)
#define MPI_INTEGER16 (&credo_dt_f_integer16)
#define MPI_REAL4 (&credo_dt_f_real4)
#define MPI_REAL8 (&credo_dt_f_real8)
#define MPI_COMPLEX8 (&credo_dt_f_complex8)
#define MPI_COMPLEX16 (&credo_dt_f_complex16)
#define MPI_REAL16 MPI_DATATYPE_NULL
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_CXX_FLOAT_COMPLEX (&credo_dt_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX (&credo_dt_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX (&credo_dt_cxx_long_double_complex)

/* ---- constants ---------------------------------------------------------------------------- */

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_BOTTOM ((void *)0)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 64
/* Longest info key and value, terminating NUL included. */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* Bytes of bookkeeping each buffered send needs in the attached buffer, alignment included. */
#define MPI_BSEND_OVERHEAD 48

/* Array storage orders and distributions (MPI_Type_create_subarray / MPI_Type_create_darray). */
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC = 122, MPI_DISTRIBUTE_NONE = 123 };
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Datatype constructors as MPI_Type_get_envelope reports them. F90_* are the types of
 * MPI_Type_create_f90_*; credo never returns the *_INTEGER ones (Fortran's MPI-1 constructors): they
 * exist so that portable switch statements compile. */
enum {
    MPI_COMBINER_NAMED = 1,
    MPI_COMBINER_DUP,
    MPI_COMBINER_CONTIGUOUS,
    MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR,
    MPI_COMBINER_INDEXED,
    MPI_COMBINER_HINDEXED,
    MPI_COMBINER_INDEXED_BLOCK,
    MPI_COMBINER_HINDEXED_BLOCK,
    MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY,
    MPI_COMBINER_DARRAY,
    MPI_COMBINER_F90_REAL,
    MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER,
    MPI_COMBINER_RESIZED,
    MPI_COMBINER_HVECTOR_INTEGER,
    MPI_COMBINER_HINDEXED_INTEGER,
    MPI_COMBINER_STRUCT_INTEGER
};

/* Type classes of MPI_Type_match_size. */
enum { MPI_TYPECLASS_REAL = 1, MPI_TYPECLASS_INTEGER = 2, MPI_TYPECLASS_COMPLEX = 3 };

enum {
    MPI_THREAD_SINGLE = 0,
    MPI_THREAD_FUNNELED = 1,
    MPI_THREAD_SERIALIZED = 2,
    MPI_THREAD_MULTIPLE = 3
};

/* Results of MPI_Comm_compare / MPI_Group_compare. */
enum { MPI_IDENT = 0, MPI_CONGRUENT = 1, MPI_SIMILAR = 2, MPI_UNEQUAL = 3 };

/* Predefined attribute keys (MPI_Comm_get_attr). */
enum {
    MPI_TAG_UB = 1,
    MPI_HOST = 2,
    MPI_IO = 3,
    MPI_WTIME_IS_GLOBAL = 4,
    MPI_APPNUM = 5,
    MPI_UNIVERSE_SIZE = 6,
    MPI_LASTUSEDCODE = 7
};

/* Split types of MPI_Comm_split_type. */
enum { MPI_COMM_TYPE_SHARED = 1, MPI_COMM_TYPE_HW_GUIDED = 2, MPI_COMM_TYPE_HW_UNGUIDED = 3 };

/* Error classes; credo's error codes are the classes themselves. */
enum {
    MPI_SUCCESS = 0,
    MPI_ERR_BUFFER = 1,
    MPI_ERR_COUNT = 2,
    MPI_ERR_TYPE = 3,
    MPI_ERR_TAG = 4,
    MPI_ERR_COMM = 5,
    MPI_ERR_RANK = 6,
    MPI_ERR_REQUEST = 7,
    MPI_ERR_ROOT = 8,
    MPI_ERR_GROUP = 9,
    MPI_ERR_OP = 10,
    MPI_ERR_TOPOLOGY = 11,
    MPI_ERR_DIMS = 12,
    MPI_ERR_ARG = 13,
    MPI_ERR_UNKNOWN = 14,
    MPI_ERR_TRUNCATE = 15,
    MPI_ERR_OTHER = 16,
    MPI_ERR_INTERN = 17,
    MPI_ERR_IN_STATUS = 18,
    MPI_ERR_PENDING = 19,
    MPI_ERR_ACCESS = 20,
    MPI_ERR_AMODE = 21,
    MPI_ERR_ASSERT = 22,
    MPI_ERR_BAD_FILE = 23,
    MPI_ERR_BASE = 24,
    MPI_ERR_CONVERSION = 25,
    MPI_ERR_DISP = 26,
    MPI_ERR_DUP_DATAREP = 27,
    MPI_ERR_FILE_EXISTS = 28,
    MPI_ERR_FILE_IN_USE = 29,
    MPI_ERR_FILE = 30,
    MPI_ERR_INFO_KEY = 31,
    MPI_ERR_INFO_NOKEY = 32,
    MPI_ERR_INFO_VALUE = 33,
    MPI_ERR_INFO = 34,
    MPI_ERR_IO = 35,
    MPI_ERR_KEYVAL = 36,
    MPI_ERR_LOCKTYPE = 37,
    MPI_ERR_NAME = 38,
    MPI_ERR_NO_MEM = 39,
    MPI_ERR_NOT_SAME = 40,
    MPI_ERR_NO_SPACE = 41,
    MPI_ERR_NO_SUCH_FILE = 42,
    MPI_ERR_PORT = 43,
    MPI_ERR_QUOTA = 44,
    MPI_ERR_READ_ONLY = 45,
    MPI_ERR_RMA_CONFLICT = 46,
    MPI_ERR_RMA_SYNC = 47,
    MPI_ERR_SERVICE = 48,
    MPI_ERR_SIZE = 49,
    MPI_ERR_SPAWN = 50,
    MPI_ERR_UNSUPPORTED_DATAREP = 51,
    MPI_ERR_UNSUPPORTED_OPERATION = 52,
    MPI_ERR_WIN = 53,
    MPI_ERR_RMA_RANGE = 54,
    MPI_ERR_RMA_ATTACH = 55,
    MPI_ERR_RMA_SHARED = 56,
    MPI_ERR_RMA_FLAVOR = 57,
    MPI_ERR_SESSION = 58, /* MPI 4.0 */
    MPI_ERR_LASTCODE = 58
};

/* ---- environment ---------------------------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Initialized(int *flag);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Comm_get_parent(MPI_Comm *parent);
int MPI_Pcontrol(const int level, ...);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* ---- process creation and management (MPI 4.0 chapter 11): credo runs a fixed set of ranks, so
 * spawning, ports, the name service and MPI_Comm_join report MPI_ERR_SPAWN or
 * MPI_ERR_UNSUPPORTED_OPERATION at run time (docs/MPI.md); MPI_Comm_disconnect works on any
 * communicator. */
#define MPI_MAX_PORT_NAME 256
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define CREDO_DYNPROC_DECLS(P)                                                                     \
    int P##Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,    \
                      MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);                \
    int P##Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],       \
                               const int array_of_maxprocs[], const MPI_Info array_of_info[],      \
                               int root, MPI_Comm comm, MPI_Comm *intercomm,                       \
                               int array_of_errcodes[]);                                           \
    int P##Open_port(MPI_Info info, char *port_name);                                              \
    int P##Close_port(const char *port_name);                                                      \
    int P##Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,              \
                       MPI_Comm *newcomm);                                                         \
    int P##Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,             \
                        MPI_Comm *newcomm);                                                        \
    int P##Publish_name(const char *service_name, MPI_Info info, const char *port_name);           \
    int P##Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);         \
    int P##Lookup_name(const char *service_name, MPI_Info info, char *port_name);                  \
    int P##Comm_join(int fd, MPI_Comm *intercomm);                                                 \
    int P##Comm_disconnect(MPI_Comm *comm);
CREDO_DYNPROC_DECLS(MPI_)
CREDO_DYNPROC_DECLS(PMPI_)

/* ---- errors ----------------------------------------------------------------------------------- */

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);

/* ---- communicators and groups ----------------------------------------------------------------- */

int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_free(MPI_Group *group);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);

/* ---- groups, communicator creation, info objects, attribute caching --------------------------- */

extern struct credo_info credo_info_env;
#define MPI_INFO_ENV (&credo_info_env)

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
/* MPI-1 names of the same callback types (deprecated). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

/* The predefined callbacks are real functions, so programs may also call them. */
MPI_Comm_copy_attr_function credo_comm_null_copy_fn, credo_comm_dup_fn;
MPI_Comm_delete_attr_function credo_comm_null_delete_fn;
#define MPI_COMM_NULL_COPY_FN (&credo_comm_null_copy_fn)
#define MPI_COMM_DUP_FN (&credo_comm_dup_fn)
#define MPI_COMM_NULL_DELETE_FN (&credo_comm_null_delete_fn)
#define MPI_NULL_COPY_FN (&credo_comm_null_copy_fn)
#define MPI_DUP_FN (&credo_comm_dup_fn)
#define MPI_NULL_DELETE_FN (&credo_comm_null_delete_fn)

/* CREDO_COMM_EXT_DECLS(MPI_) and (PMPI_) declare both names of every function of this section. */
#define CREDO_COMM_EXT_DECLS(P)                                                                    \
    int P##Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);                   \
    int P##Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);            \
    int P##Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);              \
    int P##Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);         \
    int P##Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);         \
    int P##Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);                         \
    int P##Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);          \
    int P##Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,                  \
                           MPI_Comm *newcomm);                                                     \
    int P##Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);                    \
    int P##Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);                     \
    int P##Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,                    \
                               MPI_Request *request); /* MPI-4.0 */                                \
    int P##Comm_set_info(MPI_Comm comm, MPI_Info info);                                            \
    int P##Comm_get_info(MPI_Comm comm, MPI_Info *info_used);                                      \
    int P##Info_create(MPI_Info *info);                                                            \
    int P##Info_set(MPI_Info info, const char *key, const char *value);                            \
    int P##Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);         \
    int P##Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);            \
    /* MPI-4.0 */                                                                                  \
    int P##Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);   \
    int P##Info_create_env(int argc, char *argv[], MPI_Info *info);                                \
    int P##Info_get_nkeys(MPI_Info info, int *nkeys);                                              \
    int P##Info_get_nthkey(MPI_Info info, int n, char *key);                                       \
    int P##Info_delete(MPI_Info info, const char *key);                                            \
    int P##Info_dup(MPI_Info info, MPI_Info *newinfo);                                             \
    int P##Info_free(MPI_Info *info);                                                              \
    int P##Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,                      \
                              MPI_Comm_delete_attr_function *comm_delete_attr_fn,                  \
                              int *comm_keyval, void *extra_state);                                \
    int P##Comm_free_keyval(int *comm_keyval);                                                     \
    int P##Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);                     \
    int P##Comm_delete_attr(MPI_Comm comm, int comm_keyval);                                       \
    int P##Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,  \
                         void *extra_state);                                                       \
    int P##Keyval_free(int *keyval);                                                               \
    int P##Attr_put(MPI_Comm comm, int keyval, void *attribute_val);                               \
    int P##Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);                    \
    int P##Attr_delete(MPI_Comm comm, int keyval);
CREDO_COMM_EXT_DECLS(MPI_)

/* ---- point to point --------------------------------------------------------------------------- */

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
/* MPI-4.0 */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request);
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
/* MPI 4.0 partitioned communication (chapter 4) */
int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Pready(int partition, MPI_Request request);
int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request);
int MPI_Parrived(MPI_Request request, int partition, int *flag);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);

/* ---- requests --------------------------------------------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[]);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request);
int MPI_Grequest_complete(MPI_Request request);
/* MPI-4.0 persistent collectives (credo otherwise reports MPI 3.1) */
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request);
int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request);
int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);

/* ---- datatypes -------------------------------------------------------------------------------- */

int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int MPI_Get_address(const void *location, MPI_Aint *address);
/* Removed in MPI 3.0; kept for old programs (src/mpi/removed.c). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_struct(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                    MPI_Datatype *array_of_types, MPI_Datatype *newtype);
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
/* The portable representation (MPI 3.1 4.3): datarep "external32" only. */
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size);

/* Attributes on datatypes (MPI 3.1 6.7.4); keyvals share their numbers with the communicator ones
 * but are only valid on datatypes. */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
MPI_Type_copy_attr_function credo_type_null_copy_fn, credo_type_dup_fn;
MPI_Type_delete_attr_function credo_type_null_delete_fn;
#define MPI_TYPE_NULL_COPY_FN (&credo_type_null_copy_fn)
#define MPI_TYPE_DUP_FN (&credo_type_dup_fn)
#define MPI_TYPE_NULL_DELETE_FN (&credo_type_null_delete_fn)
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state);
int MPI_Type_free_keyval(int *type_keyval);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);

/* ---- reduction operations and basic collectives ----------------------------------------------- */

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op);

/* ---- collectives (blocking and MPI-3 non-blocking) ------------------------------------------ */

#define CREDO_COLL_DECLS(P)                                                                        \
    int P##Ibarrier(MPI_Comm comm, MPI_Request *request);                                          \
    int P##Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,         \
                  MPI_Request *request);                                                           \
    int P##Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,           \
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);                      \
    int P##Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,        \
                      MPI_Op op, MPI_Comm comm, MPI_Request *request);                             \
    int P##Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,        \
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);                  \
    int P##Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,       \
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,                  \
                   MPI_Request *request);                                                          \
    int P##Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,       \
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,    \
                   MPI_Comm comm);                                                                 \
    int P##Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,      \
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,   \
                    MPI_Comm comm, MPI_Request *request);                                          \
    int P##Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,       \
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);                 \
    int P##Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,      \
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,                 \
                    MPI_Request *request);                                                         \
    int P##Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],               \
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,    \
                    int root, MPI_Comm comm);                                                      \
    int P##Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],              \
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,   \
                     int root, MPI_Comm comm, MPI_Request *request);                               \
    int P##Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,     \
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm);                         \
    int P##Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,    \
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);  \
    int P##Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,    \
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,           \
                      MPI_Comm comm);                                                              \
    int P##Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,   \
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,          \
                       MPI_Comm comm, MPI_Request *request);                                       \
    int P##Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,      \
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);                          \
    int P##Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,     \
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);   \
    int P##Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],             \
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],                 \
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);                   \
    int P##Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],            \
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],                \
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,                   \
                      MPI_Request *request);                                                       \
    int P##Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],             \
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],        \
                     const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);          \
    int P##Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],            \
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],       \
                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,          \
                      MPI_Request *request);                                                       \
    int P##Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],              \
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);                        \
    int P##Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],             \
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request); \
    int P##Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,                 \
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);                  \
    int P##Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,                \
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                  \
                                 MPI_Request *request);                                            \
    int P##Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,   \
                MPI_Comm comm);                                                                    \
    int P##Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,  \
                 MPI_Comm comm, MPI_Request *request);                                             \
    int P##Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, \
                  MPI_Comm comm);                                                                  \
    int P##Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,           \
                   MPI_Op op, MPI_Comm comm, MPI_Request *request);
CREDO_COLL_DECLS(MPI_)

/* ---- process topologies and neighbourhood collectives (MPI-3) --------------------------------- */

/* MPI_Topo_test results (or MPI_UNDEFINED: no topology). */
enum { MPI_GRAPH = 1, MPI_CART = 2, MPI_DIST_GRAPH = 3 };

/* Weight arguments of the distributed-graph constructors: no weights, or an empty weight list. */
extern int credo_unweighted, credo_weights_empty;
#define MPI_UNWEIGHTED (&credo_unweighted)
#define MPI_WEIGHTS_EMPTY (&credo_weights_empty)

#define CREDO_TOPO_DECLS(P)                                                                        \
    int P##Dims_create(int nnodes, int ndims, int dims[]);                                         \
    int P##Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],        \
                       int reorder, MPI_Comm *comm_cart);                                          \
    int P##Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);          \
    int P##Cartdim_get(MPI_Comm comm, int *ndims);                                                 \
    int P##Cart_rank(MPI_Comm comm, const int coords[], int *rank);                                \
    int P##Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);                        \
    int P##Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);   \
    int P##Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);                    \
    int P##Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],               \
                    int *newrank);                                                                 \
    int P##Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],       \
                        int reorder, MPI_Comm *comm_graph);                                        \
    int P##Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);                                 \
    int P##Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);         \
    int P##Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);                        \
    int P##Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);            \
    int P##Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],              \
                     int *newrank);                                                                \
    int P##Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],        \
                                      const int sourceweights[], int outdegree,                    \
                                      const int destinations[], const int destweights[],           \
                                      MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);      \
    int P##Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],   \
                             const int destinations[], const int weights[], MPI_Info info,         \
                             int reorder, MPI_Comm *comm_dist_graph);                              \
    int P##Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,                \
                                      int *weighted);                                              \
    int P##Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],                     \
                                int sourceweights[], int maxoutdegree, int destinations[],         \
                                int destweights[]);                                                \
    int P##Topo_test(MPI_Comm comm, int *status);                                                  \
    int P##Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,           \
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm); \
    int P##Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,          \
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, \
                               MPI_Request *request);                                              \
    int P##Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,          \
                               void *recvbuf, const int recvcounts[], const int displs[],          \
                               MPI_Datatype recvtype, MPI_Comm comm);                              \
    int P##Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,         \
                                void *recvbuf, const int recvcounts[], const int displs[],         \
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);       \
    int P##Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,            \
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);  \
    int P##Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,           \
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,  \
                              MPI_Request *request);                                               \
    int P##Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],    \
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],        \
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);          \
    int P##Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],   \
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],       \
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,          \
                               MPI_Request *request);                                              \
    int P##Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],                         \
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],            \
                              void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],     \
                              const MPI_Datatype recvtypes[], MPI_Comm comm);                      \
    int P##Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],                        \
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],           \
                               void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],    \
                               const MPI_Datatype recvtypes[], MPI_Comm comm,                      \
                               MPI_Request *request);
CREDO_TOPO_DECLS(MPI_)

/* ---- MPI 4.0 sessions (src/mpi/session.c) ------------------------------------------------------ */
typedef struct credo_session *MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
typedef void MPI_Session_errhandler_function(MPI_Session *, int *, ...);
#define CREDO_SESSION_DECLS(P)                                                                     \
    int P##Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);          \
    int P##Session_finalize(MPI_Session *session);                                                 \
    int P##Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);            \
    int P##Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,          \
                                char *pset_name);                                                  \
    int P##Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);     \
    int P##Session_get_info(MPI_Session session, MPI_Info *info_used);                             \
    int P##Group_from_session_pset(MPI_Session session, const char *pset_name,                     \
                                   MPI_Group *newgroup);                                           \
    int P##Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,           \
                                  MPI_Errhandler errhandler, MPI_Comm *newcomm);                   \
    int P##Intercomm_create_from_groups(MPI_Group local_group, int local_leader,                   \
                                        MPI_Group remote_group, int remote_leader,                 \
                                        const char *stringtag, MPI_Info info,                      \
                                        MPI_Errhandler errhandler, MPI_Comm *newintercomm);        \
    int P##Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,       \
                                     MPI_Errhandler *errhandler);                                  \
    int P##Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);                 \
    int P##Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);                \
    int P##Session_call_errhandler(MPI_Session session, int errorcode);
CREDO_SESSION_DECLS(MPI_)
CREDO_SESSION_DECLS(PMPI_)

/* ---- profiling interface: every function above under its PMPI_ name ------------------------ */

int PMPI_Init(int *argc, char ***argv);
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int PMPI_Initialized(int *flag);
int PMPI_Finalize(void);
int PMPI_Finalized(int *flag);
int PMPI_Abort(MPI_Comm comm, int errorcode);
int PMPI_Query_thread(int *provided);
int PMPI_Is_thread_main(int *flag);
double PMPI_Wtime(void);
double PMPI_Wtick(void);
int PMPI_Get_processor_name(char *name, int *resultlen);
int PMPI_Comm_get_parent(MPI_Comm *parent);
int PMPI_Pcontrol(const int level, ...);
int PMPI_Get_version(int *version, int *subversion);
int PMPI_Get_library_version(char *version, int *resultlen);
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int PMPI_Free_mem(void *base);
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int PMPI_Errhandler_free(MPI_Errhandler *errhandler);
int PMPI_Error_string(int errorcode, char *string, int *resultlen);
int PMPI_Error_class(int errorcode, int *errorclass);
int PMPI_Add_error_class(int *errorclass);
int PMPI_Add_error_code(int errorclass, int *errorcode);
int PMPI_Add_error_string(int errorcode, const char *string);
int PMPI_Comm_size(MPI_Comm comm, int *size);
int PMPI_Comm_rank(MPI_Comm comm, int *rank);
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int PMPI_Comm_free(MPI_Comm *comm);
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);
int PMPI_Comm_remote_size(MPI_Comm comm, int *size);
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm);
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int PMPI_Group_size(MPI_Group group, int *size);
int PMPI_Group_rank(MPI_Group group, int *rank);
int PMPI_Group_free(MPI_Group *group);
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]);
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
CREDO_COMM_EXT_DECLS(PMPI_)
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status);
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status);
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status);
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request);
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request);
/* MPI 4.0 partitioned communication (chapter 4) */
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Pready(int partition, MPI_Request request);
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request);
int PMPI_Parrived(MPI_Request request, int partition, int *flag);
int PMPI_Buffer_attach(void *buffer, int size);
int PMPI_Buffer_detach(void *buffer_addr, int *size);
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Wait(MPI_Request *request, MPI_Status *status);
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[]);
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[]);
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status);
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[]);
int PMPI_Request_free(MPI_Request *request);
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int PMPI_Cancel(MPI_Request *request);
int PMPI_Test_cancelled(const MPI_Status *status, int *flag);
int PMPI_Status_set_cancelled(MPI_Status *status, int flag);
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int PMPI_Start(MPI_Request *request);
int PMPI_Startall(int count, MPI_Request array_of_requests[]);
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request);
int PMPI_Grequest_complete(MPI_Request request);
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request);
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request);
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
int PMPI_Type_size(MPI_Datatype datatype, int *size);
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype);
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_commit(MPI_Datatype *datatype);
int PMPI_Type_free(MPI_Datatype *datatype);
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int PMPI_Get_address(const void *location, MPI_Aint *address);
int PMPI_Address(void *location, MPI_Aint *address);
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int PMPI_Type_hindexed(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_struct(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                    MPI_Datatype *array_of_types, MPI_Datatype *newtype);
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner);
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm);
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm);
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size);
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state);
int PMPI_Type_free_keyval(int *type_keyval);
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int PMPI_Op_free(MPI_Op *op);
int PMPI_Op_commutative(MPI_Op op, int *commute);
int PMPI_Barrier(MPI_Comm comm);
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm);
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm);
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op);
CREDO_COLL_DECLS(PMPI_)
CREDO_TOPO_DECLS(PMPI_)

/* ---- one-sided communication (RMA) ---------------------------------------------------------- */

typedef struct credo_win *MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0)

typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
MPI_Win_copy_attr_function credo_win_null_copy_fn, credo_win_dup_fn;
MPI_Win_delete_attr_function credo_win_null_delete_fn;
#define MPI_WIN_NULL_COPY_FN (&credo_win_null_copy_fn)
#define MPI_WIN_DUP_FN (&credo_win_dup_fn)
#define MPI_WIN_NULL_DELETE_FN (&credo_win_null_delete_fn)

enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED = 235 };
/* Assertions of the synchronization calls. credo acts on MPI_MODE_NOCHECK only (Win_lock and
 * Win_lock_all take no lock, Win_post sends no notice and Win_start waits for none); the others
 * could save nothing, since every operation completes at its call. */
enum {
    MPI_MODE_NOCHECK = 1024,
    MPI_MODE_NOSTORE = 2048,
    MPI_MODE_NOPUT = 4096,
    MPI_MODE_NOPRECEDE = 8192,
    MPI_MODE_NOSUCCEED = 16384
};
/* Predefined window attribute keys (MPI_Win_get_attr), next to the communicator ones. */
enum {
    MPI_WIN_BASE = 9,
    MPI_WIN_SIZE = 10,
    MPI_WIN_DISP_UNIT = 11,
    MPI_WIN_CREATE_FLAVOR = 12,
    MPI_WIN_MODEL = 13
};
enum {
    MPI_WIN_FLAVOR_CREATE = 1,
    MPI_WIN_FLAVOR_ALLOCATE = 2,
    MPI_WIN_FLAVOR_DYNAMIC = 3,
    MPI_WIN_FLAVOR_SHARED = 4
};
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED = 2 };

/* CREDO_RMA_DECLS(MPI_) and (PMPI_) declare both names of every function of this section. */
#define CREDO_RMA_DECLS(P)                                                                         \
    int P##Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,      \
                      MPI_Win *win);                                                               \
    int P##Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,                \
                        void *baseptr, MPI_Win *win);                                              \
    int P##Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,         \
                               void *baseptr, MPI_Win *win);                                       \
    int P##Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);                         \
    int P##Win_attach(MPI_Win win, void *base, MPI_Aint size);                                     \
    int P##Win_detach(MPI_Win win, const void *base);                                              \
    int P##Win_free(MPI_Win *win);                                                                 \
    int P##Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,                 \
                            void *baseptr);                                                        \
    int P##Win_get_group(MPI_Win win, MPI_Group *group);                                           \
    int P##Win_set_name(MPI_Win win, const char *win_name);                                        \
    int P##Win_get_name(MPI_Win win, char *win_name, int *resultlen);                              \
    int P##Win_set_info(MPI_Win win, MPI_Info info);                                               \
    int P##Win_get_info(MPI_Win win, MPI_Info *info_used);                                         \
    int P##Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,                   \
                                 MPI_Errhandler *errhandler);                                      \
    int P##Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);                             \
    int P##Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);                            \
    int P##Win_call_errhandler(MPI_Win win, int errorcode);                                        \
    int P##Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,                         \
                             MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,    \
                             void *extra_state);                                                   \
    int P##Win_free_keyval(int *win_keyval);                                                       \
    int P##Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);                         \
    int P##Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);              \
    int P##Win_delete_attr(MPI_Win win, int win_keyval);                                           \
    int P##Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,            \
               int target_rank, MPI_Aint target_disp, int target_count,                            \
               MPI_Datatype target_datatype, MPI_Win win);                                         \
    int P##Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, \
               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win); \
    int P##Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,     \
                      int target_rank, MPI_Aint target_disp, int target_count,                     \
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);                       \
    int P##Get_accumulate(const void *origin_addr, int origin_count,                               \
                          MPI_Datatype origin_datatype, void *result_addr, int result_count,       \
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,     \
                          int target_count, MPI_Datatype target_datatype, MPI_Op op,               \
                          MPI_Win win);                                                            \
    int P##Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,         \
                        int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);            \
    int P##Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,  \
                            MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,          \
                            MPI_Win win);                                                          \
    int P##Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,           \
                int target_rank, MPI_Aint target_disp, int target_count,                           \
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);                  \
    int P##Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                 \
                int target_rank, MPI_Aint target_disp, int target_count,                           \
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);                  \
    int P##Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,    \
                       int target_rank, MPI_Aint target_disp, int target_count,                    \
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,                       \
                       MPI_Request *request);                                                      \
    int P##Rget_accumulate(const void *origin_addr, int origin_count,                              \
                           MPI_Datatype origin_datatype, void *result_addr, int result_count,      \
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,    \
                           int target_count, MPI_Datatype target_datatype, MPI_Op op,              \
                           MPI_Win win, MPI_Request *request);                                     \
    int P##Win_fence(int assert, MPI_Win win);                                                     \
    int P##Win_lock(int lock_type, int rank, int assert, MPI_Win win);                             \
    int P##Win_unlock(int rank, MPI_Win win);                                                      \
    int P##Win_lock_all(int assert, MPI_Win win);                                                  \
    int P##Win_unlock_all(MPI_Win win);                                                            \
    int P##Win_flush(int rank, MPI_Win win);                                                       \
    int P##Win_flush_all(MPI_Win win);                                                             \
    int P##Win_flush_local(int rank, MPI_Win win);                                                 \
    int P##Win_flush_local_all(MPI_Win win);                                                       \
    int P##Win_sync(MPI_Win win);                                                                  \
    int P##Win_post(MPI_Group group, int assert, MPI_Win win);                                     \
    int P##Win_start(MPI_Group group, int assert, MPI_Win win);                                    \
    int P##Win_complete(MPI_Win win);                                                              \
    int P##Win_wait(MPI_Win win);                                                                  \
    int P##Win_test(MPI_Win win, int *flag);
CREDO_RMA_DECLS(MPI_)
CREDO_RMA_DECLS(PMPI_)
/* ---- end of one-sided communication (RMA) ---------------------------------------------------- */

/* ---- MPI-IO (src/mpi/file.c, src/mpi/file_io.c) ---------------------------------------------- */

typedef struct credo_file *MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)

typedef void MPI_File_errhandler_function(MPI_File *file, int *error_code, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;

/* Access modes (MPI 3.1 §13.2.1): bits, or-ed together. */
enum {
    MPI_MODE_RDONLY = 2,
    MPI_MODE_RDWR = 8,
    MPI_MODE_WRONLY = 4,
    MPI_MODE_CREATE = 1,
    MPI_MODE_EXCL = 64,
    MPI_MODE_DELETE_ON_CLOSE = 16,
    MPI_MODE_UNIQUE_OPEN = 32,
    MPI_MODE_APPEND = 128,
    MPI_MODE_SEQUENTIAL = 256
};
enum { MPI_SEEK_SET = 600, MPI_SEEK_CUR = 602, MPI_SEEK_END = 604 };
#define MPI_DISPLACEMENT_CURRENT (-54278278LL)
#define MPI_MAX_DATAREP_STRING 128

/* User-defined data representations (MPI 4.0 §14.5.3, MPI_Register_datarep(_c)). */
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void *filebuf, MPI_Offset position,
                                              void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* CREDO_FILE_DECLS(MPI_) and (PMPI_) declare both names of every function of this section. */
#define CREDO_FILE_DECLS(P)                                                                        \
    int P##File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,               \
                     MPI_File *fh);                                                                \
    int P##File_close(MPI_File *fh);                                                               \
    int P##File_delete(const char *filename, MPI_Info info);                                       \
    int P##File_set_size(MPI_File fh, MPI_Offset size);                                           \
    int P##File_preallocate(MPI_File fh, MPI_Offset size);                                        \
    int P##File_get_size(MPI_File fh, MPI_Offset *size);                                          \
    int P##File_get_group(MPI_File fh, MPI_Group *group);                                         \
    int P##File_get_amode(MPI_File fh, int *amode);                                               \
    int P##File_set_info(MPI_File fh, MPI_Info info);                                             \
    int P##File_get_info(MPI_File fh, MPI_Info *info_used);                                       \
    int P##File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,  \
                         const char *datarep, MPI_Info info);                                      \
    int P##File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,                      \
                         MPI_Datatype *filetype, char *datarep);                                   \
    int P##File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,                     \
                        MPI_Datatype datatype, MPI_Status *status);                                \
    int P##File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,                 \
                            MPI_Datatype datatype, MPI_Status *status);                            \
    int P##File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,              \
                         MPI_Datatype datatype, MPI_Status *status);                               \
    int P##File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,          \
                             MPI_Datatype datatype, MPI_Status *status);                           \
    int P##File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,                    \
                         MPI_Datatype datatype, MPI_Request *request);                             \
    int P##File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,             \
                          MPI_Datatype datatype, MPI_Request *request);                            \
    int P##File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,                \
                             MPI_Datatype datatype, MPI_Request *request);                         \
    int P##File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,         \
                              MPI_Datatype datatype, MPI_Request *request);                        \
    int P##File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,                    \
                     MPI_Status *status);                                                          \
    int P##File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,                \
                         MPI_Status *status);                                                      \
    int P##File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,             \
                      MPI_Status *status);                                                         \
    int P##File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,         \
                          MPI_Status *status);                                                     \
    int P##File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,                   \
                      MPI_Request *request);                                                       \
    int P##File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,            \
                       MPI_Request *request);                                                      \
    int P##File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,               \
                          MPI_Request *request);                                                   \
    int P##File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,        \
                           MPI_Request *request);                                                  \
    int P##File_seek(MPI_File fh, MPI_Offset offset, int whence);                                 \
    int P##File_get_position(MPI_File fh, MPI_Offset *offset);                                    \
    int P##File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);                \
    int P##File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,             \
                            MPI_Status *status);                                                   \
    int P##File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,      \
                             MPI_Status *status);                                                  \
    int P##File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,            \
                             MPI_Request *request);                                                \
    int P##File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,     \
                              MPI_Request *request);                                               \
    int P##File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,            \
                             MPI_Status *status);                                                  \
    int P##File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,     \
                              MPI_Status *status);                                                 \
    int P##File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);                          \
    int P##File_get_position_shared(MPI_File fh, MPI_Offset *offset);                             \
    int P##File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,           \
                                  MPI_Datatype datatype);                                          \
    int P##File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);                      \
    int P##File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,    \
                                   MPI_Datatype datatype);                                         \
    int P##File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);               \
    int P##File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);         \
    int P##File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);                         \
    int P##File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);  \
    int P##File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);                  \
    int P##File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);     \
    int P##File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);                     \
    int P##File_write_ordered_begin(MPI_File fh, const void *buf, int count,                      \
                                    MPI_Datatype datatype);                                        \
    int P##File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);              \
    int P##File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);            \
    int P##File_set_atomicity(MPI_File fh, int flag);                                             \
    int P##File_get_atomicity(MPI_File fh, int *flag);                                            \
    int P##File_sync(MPI_File fh);                                                                 \
    int P##File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,               \
                                  MPI_Errhandler *errhandler);                                     \
    int P##File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);                         \
    int P##File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);                        \
    int P##File_call_errhandler(MPI_File fh, int errorcode);                                      \
    int P##Register_datarep(const char *datarep,                                                   \
                            MPI_Datarep_conversion_function *read_conversion_fn,                   \
                            MPI_Datarep_conversion_function *write_conversion_fn,                  \
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
CREDO_FILE_DECLS(MPI_)
CREDO_FILE_DECLS(PMPI_)
/* ---- end of MPI-IO ------------------------------------------------------------------------------ */

/* ---- MPI 4.0 large counts: the _c forms (src/mpi/largecount*.c) ---------------------------- */

/* CREDO_LC_DECLS(MPI_) and (PMPI_) declare both names of every _c function. Counts are MPI_Count,
 * displacements of the v/w collectives MPI_Aint; docs/MPI.md lists what goes beyond INT_MAX. */
#define CREDO_LC_DECLS(P)                                                                          \
    int P##Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,      \
                  MPI_Comm comm);                                                                  \
    int P##Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,     \
                   MPI_Comm comm);                                                                 \
    int P##Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,     \
                   MPI_Comm comm);                                                                 \
    int P##Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,     \
                   MPI_Comm comm);                                                                 \
    int P##Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,          \
                  MPI_Comm comm, MPI_Status *status);                                              \
    int P##Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,     \
                   MPI_Comm comm, MPI_Request *request);                                           \
    int P##Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,    \
                    MPI_Comm comm, MPI_Request *request);                                          \
    int P##Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,    \
                    MPI_Comm comm, MPI_Request *request);                                          \
    int P##Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,    \
                    MPI_Comm comm, MPI_Request *request);                                          \
    int P##Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,         \
                   MPI_Comm comm, MPI_Request *request);                                           \
    int P##Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,   \
                      int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,      \
                      int source, int recvtag, MPI_Comm comm, MPI_Status *status);                 \
    int P##Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,         \
                              int sendtag, int source, int recvtag, MPI_Comm comm,                 \
                              MPI_Status *status);                                                 \
    int P##Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,  \
                       int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,     \
                       int source, int recvtag, MPI_Comm comm, MPI_Request *request);              \
    int P##Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,        \
                               int sendtag, int source, int recvtag, MPI_Comm comm,                \
                               MPI_Request *request);                                              \
    int P##Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,        \
                   MPI_Status *status);                                                            \
    int P##Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,       \
                    MPI_Request *request);                                                         \
    int P##Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, \
                       MPI_Comm comm, MPI_Request *request);                                       \
    int P##Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,         \
                        int tag, MPI_Comm comm, MPI_Request *request);                             \
    int P##Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,         \
                        int tag, MPI_Comm comm, MPI_Request *request);                             \
    int P##Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,         \
                        int tag, MPI_Comm comm, MPI_Request *request);                             \
    int P##Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,     \
                       MPI_Comm comm, MPI_Request *request);                                       \
    int P##Buffer_attach_c(void *buffer, MPI_Count size);                                          \
    int P##Buffer_detach_c(void *buffer_addr, MPI_Count *size);                                    \
    int P##Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);         \
    int P##Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);      \
    int P##Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);      \
    int P##Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,       \
                  MPI_Count outsize, MPI_Count *position, MPI_Comm comm);                          \
    int P##Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,        \
                    MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);                     \
    int P##Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size);  \
    int P##Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,             \
                           MPI_Datatype datatype, void *outbuf, MPI_Count outsize,                 \
                           MPI_Count *position);                                                   \
    int P##Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,            \
                             MPI_Count *position, void *outbuf, MPI_Count outcount,                \
                             MPI_Datatype datatype);                                               \
    int P##Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,    \
                                MPI_Count *size);                                                  \
    int P##Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);        \
    int P##Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,                 \
                         MPI_Datatype oldtype, MPI_Datatype *newtype);                             \
    int P##Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,         \
                                 MPI_Datatype oldtype, MPI_Datatype *newtype);                     \
    int P##Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],                \
                          const MPI_Count array_of_displacements[], MPI_Datatype oldtype,          \
                          MPI_Datatype *newtype);                                                  \
    int P##Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],        \
                                  const MPI_Count array_of_displacements[], MPI_Datatype oldtype,  \
                                  MPI_Datatype *newtype);                                          \
    int P##Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,                     \
                                       const MPI_Count array_of_displacements[],                   \
                                       MPI_Datatype oldtype, MPI_Datatype *newtype);               \
    int P##Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,                    \
                                        const MPI_Count array_of_displacements[],                  \
                                        MPI_Datatype oldtype, MPI_Datatype *newtype);              \
    int P##Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],          \
                                const MPI_Count array_of_displacements[],                          \
                                const MPI_Datatype array_of_types[], MPI_Datatype *newtype);       \
    int P##Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],                     \
                                  const MPI_Count array_of_subsizes[],                             \
                                  const MPI_Count array_of_starts[], int order,                    \
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);                    \
    int P##Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],  \
                                const int array_of_distribs[], const int array_of_dargs[],         \
                                const int array_of_psizes[], int order, MPI_Datatype oldtype,      \
                                MPI_Datatype *newtype);                                            \
    int P##Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,             \
                                 MPI_Datatype *newtype);                                           \
    int P##Type_size_c(MPI_Datatype datatype, MPI_Count *size);                                    \
    int P##Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);             \
    int P##Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,                       \
                                  MPI_Count *true_extent);                                         \
    int P##Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,                     \
                               MPI_Count *num_addresses, MPI_Count *num_large_counts,              \
                               MPI_Count *num_datatypes, int *combiner);                           \
    int P##Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,                      \
                               MPI_Count max_addresses, MPI_Count max_large_counts,                \
                               MPI_Count max_datatypes, int array_of_integers[],                   \
                               MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],   \
                               MPI_Datatype array_of_datatypes[]);                                 \
    int P##Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);                     \
    int P##Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,                      \
                          MPI_Datatype datatype, MPI_Op op);
CREDO_LC_DECLS(MPI_)
CREDO_LC_DECLS(PMPI_)


/* The collectives, each in its blocking, non-blocking and persistent form. */
#define CREDO_LC_COLL_DECLS(P)                                                                     \
    int P##Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm); \
    int P##Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, \
                    MPI_Request *request);                                                         \
    int P##Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,            \
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);                       \
    int P##Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,    \
                    MPI_Op op, int root, MPI_Comm comm);                                           \
    int P##Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,   \
                     MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);                    \
    int P##Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,                      \
                         MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, \
                         MPI_Request *request);                                                    \
    int P##Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, \
                       MPI_Op op, MPI_Comm comm);                                                  \
    int P##Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,                       \
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);    \
    int P##Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,                   \
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,        \
                            MPI_Request *request);                                                 \
    int P##Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,      \
                  MPI_Op op, MPI_Comm comm);                                                       \
    int P##Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,     \
                   MPI_Op op, MPI_Comm comm, MPI_Request *request);                                \
    int P##Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, \
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);             \
    int P##Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,    \
                    MPI_Op op, MPI_Comm comm);                                                     \
    int P##Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,   \
                     MPI_Op op, MPI_Comm comm, MPI_Request *request);                              \
    int P##Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,                      \
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,           \
                         MPI_Request *request);                                                    \
    int P##Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,         \
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);                \
    int P##Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,        \
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                \
                                   MPI_Request *request);                                          \
    int P##Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,    \
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,            \
                                       MPI_Info info, MPI_Request *request);                       \
    int P##Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],      \
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);                      \
    int P##Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],     \
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                      \
                             MPI_Request *request);                                                \
    int P##Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], \
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,   \
                                 MPI_Request *request);                                            \
    int P##Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,               \
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,           \
                    MPI_Comm comm);                                                                \
    int P##Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,              \
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,          \
                     MPI_Comm comm, MPI_Request *request);                                         \
    int P##Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,          \
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,      \
                         MPI_Comm comm, MPI_Info info, MPI_Request *request);                      \
    int P##Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,              \
                     void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],         \
                     MPI_Datatype recvtype, int root, MPI_Comm comm);                              \
    int P##Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,             \
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],        \
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);       \
    int P##Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,         \
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],    \
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,           \
                          MPI_Request *request);                                                   \
    int P##Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,              \
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,          \
                     MPI_Comm comm);                                                               \
    int P##Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,             \
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,         \
                      MPI_Comm comm, MPI_Request *request);                                        \
    int P##Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,         \
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,     \
                          MPI_Comm comm, MPI_Info info, MPI_Request *request);                     \
    int P##Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],  \
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,                   \
                      MPI_Datatype recvtype, int root, MPI_Comm comm);                             \
    int P##Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], \
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,                  \
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);      \
    int P##Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],                      \
                           const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,          \
                           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,    \
                           MPI_Info info, MPI_Request *request);                                   \
    int P##Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,            \
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);  \
    int P##Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,           \
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,  \
                        MPI_Request *request);                                                     \
    int P##Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,       \
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,             \
                            MPI_Comm comm, MPI_Info info, MPI_Request *request);                   \
    int P##Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,           \
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],      \
                        MPI_Datatype recvtype, MPI_Comm comm);                                     \
    int P##Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,          \
                         void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],     \
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);              \
    int P##Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,      \
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], \
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,                  \
                             MPI_Request *request);                                                \
    int P##Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,             \
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);   \
    int P##Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,            \
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,   \
                       MPI_Request *request);                                                      \
    int P##Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,        \
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,              \
                           MPI_Comm comm, MPI_Info info, MPI_Request *request);                    \
    int P##Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],                          \
                       const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,             \
                       const MPI_Count recvcounts[], const MPI_Aint rdispls[],                     \
                       MPI_Datatype recvtype, MPI_Comm comm);                                      \
    int P##Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],                         \
                        const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,            \
                        const MPI_Count recvcounts[], const MPI_Aint rdispls[],                    \
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);               \
    int P##Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],                     \
                            const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,        \
                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],                \
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,                   \
                            MPI_Request *request);                                                 \
    int P##Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],                          \
                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,    \
                       const MPI_Count recvcounts[], const MPI_Aint rdispls[],                     \
                       const MPI_Datatype recvtypes[], MPI_Comm comm);                             \
    int P##Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],                         \
                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,   \
                        const MPI_Count recvcounts[], const MPI_Aint rdispls[],                    \
                        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);      \
    int P##Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],                     \
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],              \
                            void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], \
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,          \
                            MPI_Request *request);                                                 \
    int P##Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,   \
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,         \
                                MPI_Comm comm);                                                    \
    int P##Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,  \
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,        \
                                 MPI_Comm comm, MPI_Request *request);                             \
    int P##Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,                     \
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,    \
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,          \
                                     MPI_Request *request);                                        \
    int P##Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,  \
                                 void *recvbuf, const MPI_Count recvcounts[],                      \
                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm);   \
    int P##Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, \
                                  void *recvbuf, const MPI_Count recvcounts[],                     \
                                  const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,   \
                                  MPI_Request *request);                                           \
    int P##Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,                    \
                                      MPI_Datatype sendtype, void *recvbuf,                        \
                                      const MPI_Count recvcounts[], const MPI_Aint displs[],       \
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,         \
                                      MPI_Request *request);                                       \
    int P##Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,    \
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,          \
                               MPI_Comm comm);                                                     \
    int P##Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,   \
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,         \
                                MPI_Comm comm, MPI_Request *request);                              \
    int P##Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,                      \
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,     \
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,           \
                                    MPI_Request *request);                                         \
    int P##Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],                 \
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,    \
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],            \
                                MPI_Datatype recvtype, MPI_Comm comm);                             \
    int P##Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],                \
                                 const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,   \
                                 const MPI_Count recvcounts[], const MPI_Aint rdispls[],           \
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);      \
    int P##Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],            \
                                     const MPI_Aint sdispls[], MPI_Datatype sendtype,              \
                                     void *recvbuf, const MPI_Count recvcounts[],                  \
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype,              \
                                     MPI_Comm comm, MPI_Info info, MPI_Request *request);          \
    int P##Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],                 \
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],          \
                                void *recvbuf, const MPI_Count recvcounts[],                       \
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],          \
                                MPI_Comm comm);                                                    \
    int P##Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],                \
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],         \
                                 void *recvbuf, const MPI_Count recvcounts[],                      \
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],         \
                                 MPI_Comm comm, MPI_Request *request);                             \
    int P##Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],            \
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],     \
                                     void *recvbuf, const MPI_Count recvcounts[],                  \
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],     \
                                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
CREDO_LC_COLL_DECLS(MPI_)
CREDO_LC_COLL_DECLS(PMPI_)

/* One-sided communication: displacement units are MPI_Aint, counts MPI_Count. */
#define CREDO_LC_RMA_DECLS(P)                                                                      \
    int P##Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,              \
                        MPI_Comm comm, MPI_Win *win);                                              \
    int P##Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,         \
                          void *baseptr, MPI_Win *win);                                            \
    int P##Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,  \
                                 void *baseptr, MPI_Win *win);                                     \
    int P##Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,          \
                              void *baseptr);                                                      \
    int P##Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,    \
                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,                    \
                 MPI_Datatype target_datatype, MPI_Win win);                                       \
    int P##Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,          \
                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,                    \
                 MPI_Datatype target_datatype, MPI_Win win);                                       \
    int P##Accumulate_c(const void *origin_addr, MPI_Count origin_count,                           \
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,       \
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,           \
                        MPI_Win win);                                                              \
    int P##Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,                       \
                            MPI_Datatype origin_datatype, void *result_addr,                       \
                            MPI_Count result_count, MPI_Datatype result_datatype,                  \
                            int target_rank, MPI_Aint target_disp, MPI_Count target_count,         \
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);                 \
    int P##Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,   \
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,                   \
                  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);                \
    int P##Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,         \
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,                   \
                  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);                \
    int P##Raccumulate_c(const void *origin_addr, MPI_Count origin_count,                          \
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,      \
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,          \
                         MPI_Win win, MPI_Request *request);                                       \
    int P##Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,                      \
                             MPI_Datatype origin_datatype, void *result_addr,                      \
                             MPI_Count result_count, MPI_Datatype result_datatype,                 \
                             int target_rank, MPI_Aint target_disp, MPI_Count target_count,        \
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,                 \
                             MPI_Request *request);
CREDO_LC_RMA_DECLS(MPI_)
CREDO_LC_RMA_DECLS(PMPI_)

/* MPI-IO (MPI 4.0 chapter 14): counts MPI_Count, the type extent MPI_Count. */
#define CREDO_LC_FILE_DECLS(P)                                                                     \
    int P##File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,              \
                          MPI_Datatype datatype, MPI_Status *status);                              \
    int P##File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,          \
                              MPI_Datatype datatype, MPI_Status *status);                          \
    int P##File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,       \
                           MPI_Datatype datatype, MPI_Status *status);                             \
    int P##File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,   \
                               MPI_Datatype datatype, MPI_Status *status);                         \
    int P##File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,             \
                           MPI_Datatype datatype, MPI_Request *request);                           \
    int P##File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,      \
                            MPI_Datatype datatype, MPI_Request *request);                          \
    int P##File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,         \
                               MPI_Datatype datatype, MPI_Request *request);                       \
    int P##File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,  \
                                MPI_Datatype datatype, MPI_Request *request);                      \
    int P##File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,             \
                       MPI_Status *status);                                                        \
    int P##File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,         \
                           MPI_Status *status);                                                    \
    int P##File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,      \
                        MPI_Status *status);                                                       \
    int P##File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,  \
                            MPI_Status *status);                                                   \
    int P##File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,            \
                        MPI_Request *request);                                                     \
    int P##File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,     \
                         MPI_Request *request);                                                    \
    int P##File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,        \
                            MPI_Request *request);                                                 \
    int P##File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, \
                             MPI_Request *request);                                                \
    int P##File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,      \
                              MPI_Status *status);                                                 \
    int P##File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count,                      \
                               MPI_Datatype datatype, MPI_Status *status);                         \
    int P##File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,     \
                               MPI_Request *request);                                              \
    int P##File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count,                     \
                                MPI_Datatype datatype, MPI_Request *request);                      \
    int P##File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,     \
                               MPI_Status *status);                                                \
    int P##File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count,                     \
                                MPI_Datatype datatype, MPI_Status *status);                        \
    int P##File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,    \
                                    MPI_Datatype datatype);                                        \
    int P##File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf,              \
                                     MPI_Count count, MPI_Datatype datatype);                      \
    int P##File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);  \
    int P##File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,                   \
                                  MPI_Datatype datatype);                                          \
    int P##File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count,                      \
                                     MPI_Datatype datatype);                                       \
    int P##File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,               \
                                      MPI_Datatype datatype);                                      \
    int P##File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);          \
    int P##Register_datarep_c(const char *datarep,                                                 \
                              MPI_Datarep_conversion_function_c *read_conversion_fn,               \
                              MPI_Datarep_conversion_function_c *write_conversion_fn,              \
                              MPI_Datarep_extent_function *dtype_file_extent_fn,                   \
                              void *extra_state);
CREDO_LC_FILE_DECLS(MPI_)
CREDO_LC_FILE_DECLS(PMPI_)
/* ---- end of the large-count forms -------------------------------------------------------------- */

/* ---- handle conversion between C and Fortran (MPI 4.0 §19.3.4-19.3.5) ---------------------------
 * The integers are the handles of credo's Fortran bindings (mpif.h, the mpi module): every handle
 * converts to a positive MPI_Fint and back, the predefined ones to the fixed numbers of mpif.h;
 * each kind's null handle converts to 0, and an integer that no c2f call returned converts to the
 * null handle. */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
extern MPI_Fint *credo_f_status_ignore, *credo_f_statuses_ignore;
#define MPI_F_STATUS_IGNORE (credo_f_status_ignore)
#define MPI_F_STATUSES_IGNORE (credo_f_statuses_ignore)
#define CREDO_F2C_DECLS(P)                                                                         \
    MPI_Fint P##Comm_c2f(MPI_Comm comm);                                                           \
    MPI_Comm P##Comm_f2c(MPI_Fint comm);                                                           \
    MPI_Fint P##Type_c2f(MPI_Datatype datatype);                                                   \
    MPI_Datatype P##Type_f2c(MPI_Fint datatype);                                                   \
    MPI_Fint P##Group_c2f(MPI_Group group);                                                        \
    MPI_Group P##Group_f2c(MPI_Fint group);                                                        \
    MPI_Fint P##Request_c2f(MPI_Request request);                                                  \
    MPI_Request P##Request_f2c(MPI_Fint request);                                                  \
    MPI_Fint P##Op_c2f(MPI_Op op);                                                                 \
    MPI_Op P##Op_f2c(MPI_Fint op);                                                                 \
    MPI_Fint P##Info_c2f(MPI_Info info);                                                           \
    MPI_Info P##Info_f2c(MPI_Fint info);                                                           \
    MPI_Fint P##Errhandler_c2f(MPI_Errhandler errhandler);                                         \
    MPI_Errhandler P##Errhandler_f2c(MPI_Fint errhandler);                                         \
    MPI_Fint P##Message_c2f(MPI_Message message);                                                  \
    MPI_Message P##Message_f2c(MPI_Fint message);                                                  \
    MPI_Fint P##Win_c2f(MPI_Win win);                                                              \
    MPI_Win P##Win_f2c(MPI_Fint win);                                                              \
    MPI_Fint P##File_c2f(MPI_File file);                                                           \
    MPI_File P##File_f2c(MPI_Fint file);                                                           \
    MPI_Fint P##Session_c2f(MPI_Session session);                                                  \
    MPI_Session P##Session_f2c(MPI_Fint session);                                                  \
    int P##Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);                             \
    int P##Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
CREDO_F2C_DECLS(MPI_)
CREDO_F2C_DECLS(PMPI_)

#ifdef __cplusplus
}
#endif

/* The MPI tools interface (MPI_T_*) is declared in its own header. */
#include <credo/mpi_t.h>

#endif
