/* credo/mpi_t.h — the MPI tools information interface (MPI-3.1 ch. 14, MPI 4.0 §15.3) as credo implements
 * it: control variables = the CREDO_* settings, performance variables = the flow-control counters,
 * events = one source (the process clock) and no event types. */
#ifndef CREDO_MPI_T_H
#define CREDO_MPI_T_H

/* mpi.h includes this header at its end; including it first works too (MPI_Datatype comes from there,
 * and mpi.h's own guard stops the cycle). */
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct credo_t_enum *MPI_T_enum;
typedef struct credo_t_cvar_handle *MPI_T_cvar_handle;
typedef struct credo_t_pvar_handle *MPI_T_pvar_handle;
typedef struct credo_t_pvar_session *MPI_T_pvar_session;

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
/* Stands for every handle of a session in start/stop/reset; never returned by handle_alloc. */
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)

/* Return codes of the MPI_T functions. They are error classes of their own, numbered after the
 * MPI_ERR_* classes of mpi.h so the two ranges never collide. */
enum {
    MPI_T_ERR_MEMORY = 60,
    MPI_T_ERR_NOT_INITIALIZED = 61,
    MPI_T_ERR_CANNOT_INIT = 62,
    MPI_T_ERR_INVALID_INDEX = 63,
    MPI_T_ERR_INVALID_ITEM = 64,
    MPI_T_ERR_INVALID_HANDLE = 65,
    MPI_T_ERR_OUT_OF_HANDLES = 66,
    MPI_T_ERR_OUT_OF_SESSIONS = 67,
    MPI_T_ERR_INVALID_SESSION = 68,
    MPI_T_ERR_CVAR_SET_NOT_NOW = 69,
    MPI_T_ERR_CVAR_SET_NEVER = 70,
    MPI_T_ERR_PVAR_NO_STARTSTOP = 71,
    MPI_T_ERR_PVAR_NO_WRITE = 72,
    MPI_T_ERR_PVAR_NO_ATOMIC = 73,
    MPI_T_ERR_INVALID_NAME = 74,
    MPI_T_ERR_INVALID = 75,
    MPI_T_ERR_NOT_ACCESSIBLE = 76, /* MPI 4.0 */
    MPI_T_ERR_NOT_SUPPORTED = 77   /* MPI 4.0 */
};

enum {
    MPI_T_VERBOSITY_USER_BASIC = 1,
    MPI_T_VERBOSITY_USER_DETAIL = 2,
    MPI_T_VERBOSITY_USER_ALL = 3,
    MPI_T_VERBOSITY_TUNER_BASIC = 4,
    MPI_T_VERBOSITY_TUNER_DETAIL = 5,
    MPI_T_VERBOSITY_TUNER_ALL = 6,
    MPI_T_VERBOSITY_MPIDEV_BASIC = 7,
    MPI_T_VERBOSITY_MPIDEV_DETAIL = 8,
    MPI_T_VERBOSITY_MPIDEV_ALL = 9
};

enum {
    MPI_T_BIND_NO_OBJECT = 0,
    MPI_T_BIND_MPI_COMM = 1,
    MPI_T_BIND_MPI_DATATYPE = 2,
    MPI_T_BIND_MPI_ERRHANDLER = 3,
    MPI_T_BIND_MPI_FILE = 4,
    MPI_T_BIND_MPI_GROUP = 5,
    MPI_T_BIND_MPI_OP = 6,
    MPI_T_BIND_MPI_REQUEST = 7,
    MPI_T_BIND_MPI_WIN = 8,
    MPI_T_BIND_MPI_MESSAGE = 9,
    MPI_T_BIND_MPI_INFO = 10
};

enum {
    MPI_T_SCOPE_CONSTANT = 0,
    MPI_T_SCOPE_READONLY = 1,
    MPI_T_SCOPE_LOCAL = 2,
    MPI_T_SCOPE_GROUP = 3,
    MPI_T_SCOPE_GROUP_EQ = 4,
    MPI_T_SCOPE_ALL = 5,
    MPI_T_SCOPE_ALL_EQ = 6
};

enum {
    MPI_T_PVAR_CLASS_STATE = 0,
    MPI_T_PVAR_CLASS_LEVEL = 1,
    MPI_T_PVAR_CLASS_SIZE = 2,
    MPI_T_PVAR_CLASS_PERCENTAGE = 3,
    MPI_T_PVAR_CLASS_HIGHWATERMARK = 4,
    MPI_T_PVAR_CLASS_LOWWATERMARK = 5,
    MPI_T_PVAR_CLASS_COUNTER = 6,
    MPI_T_PVAR_CLASS_AGGREGATE = 7,
    MPI_T_PVAR_CLASS_TIMER = 8,
    MPI_T_PVAR_CLASS_GENERIC = 9
};

/* Events (MPI 4.0 §15.3.8). credo has one source and no event types, so no registration or
 * instance handle ever exists; the types are here so that tools compile and can ask. */
typedef struct credo_t_event_registration *MPI_T_event_registration;
typedef struct credo_t_event_instance *MPI_T_event_instance;
#define MPI_T_EVENT_REGISTRATION_NULL ((MPI_T_event_registration)0)

typedef enum {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;

typedef enum { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED = 1 } MPI_T_source_order;

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                     void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void *user_data);

/* CREDO_T_DECLS(MPI_) and (PMPI_) declare both names of every MPI_T function (MPI 4.0 §15.3.11: the
 * profiling interface covers the tools interface too). */
#define CREDO_T_DECLS(P)                                                                                        \
    int P##T_init_thread(int required, int *provided);                                                          \
    int P##T_finalize(void);                                                                                    \
    int P##T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);                           \
    int P##T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len);              \
    int P##T_cvar_get_num(int *num_cvar);                                                                       \
    int P##T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,   \
                           MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope);             \
    int P##T_cvar_get_index(const char *name, int *cvar_index);                                                 \
    int P##T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count);        \
    int P##T_cvar_handle_free(MPI_T_cvar_handle *handle);                                                       \
    int P##T_cvar_read(MPI_T_cvar_handle handle, void *buf);                                                    \
    int P##T_cvar_write(MPI_T_cvar_handle handle, const void *buf);                                             \
    int P##T_pvar_get_num(int *num_pvar);                                                                       \
    int P##T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,           \
                           MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,  \
                           int *readonly, int *continuous, int *atomic);                                        \
    int P##T_pvar_get_index(const char *name, int var_class, int *pvar_index);                                  \
    int P##T_pvar_session_create(MPI_T_pvar_session *session);                                                  \
    int P##T_pvar_session_free(MPI_T_pvar_session *session);                                                    \
    int P##T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,                    \
                               MPI_T_pvar_handle *handle, int *count);                                          \
    int P##T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);                           \
    int P##T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);                                  \
    int P##T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);                                   \
    int P##T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);                        \
    int P##T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);                 \
    int P##T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);                                  \
    int P##T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);                   \
    int P##T_category_get_num(int *num_cat);                                                                    \
    int P##T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,             \
                               int *num_cvars, int *num_pvars, int *num_categories);                            \
    int P##T_category_get_index(const char *name, int *cat_index);                                              \
    int P##T_category_get_cvars(int cat_index, int len, int indices[]);                                         \
    int P##T_category_get_pvars(int cat_index, int len, int indices[]);                                         \
    int P##T_category_get_categories(int cat_index, int len, int indices[]);                                    \
    int P##T_category_changed(int *stamp);                                                                      \
    int P##T_category_get_num_events(int cat_index, int *num_events);                                           \
    int P##T_category_get_events(int cat_index, int len, int indices[]);                                        \
    int P##T_source_get_num(int *num_sources);                                                                  \
    int P##T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,            \
                             MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,   \
                             MPI_Info *info);                                                                   \
    int P##T_source_get_timestamp(int source_index, MPI_Count *timestamp);                                      \
    int P##T_event_get_num(int *num_events);                                                                    \
    int P##T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,                         \
                            MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],               \
                            int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, \
                            int *bind);                                                                         \
    int P##T_event_get_index(const char *name, int *event_index);                                               \
    int P##T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,                               \
                                MPI_T_event_registration *event_registration);                                  \
    int P##T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);                 \
    int P##T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used);           \
    int P##T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,    \
                                     MPI_Info info, void *user_data,                                            \
                                     MPI_T_event_cb_function *event_cb_function);                               \
    int P##T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,    \
                                     MPI_Info info);                                                            \
    int P##T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,    \
                                     MPI_Info *info_used);                                                      \
    int P##T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,                    \
                               MPI_T_event_free_cb_function *free_cb_function);                                 \
    int P##T_event_set_dropped_handler(MPI_T_event_registration event_registration,                             \
                                       MPI_T_event_dropped_cb_function *dropped_cb_function);                   \
    int P##T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer);                  \
    int P##T_event_copy(MPI_T_event_instance event_instance, void *buffer);                                     \
    int P##T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp);              \
    int P##T_event_get_source(MPI_T_event_instance event_instance, int *source_index);

CREDO_T_DECLS(MPI_)
CREDO_T_DECLS(PMPI_)

#ifdef __cplusplus
}
#endif
#endif
