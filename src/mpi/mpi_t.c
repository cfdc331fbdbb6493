/* src/mpi/mpi_t.c — the MPI tools interface: the CREDO_* settings table as read-only control variables,
 * the per-process flow-control counters (credo_fc_stats) as performance variables, and events. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <credo/mpi_t.h>
#include <credo/stats.h>

#include "base/config.h"
#include "mpi/mpi_impl.h" /* CREDO_PMPI */

/* Everything here is off the fast path, so one lock makes the interface safe from any thread. */
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static int t_refcount;

/* Strings (CREDO_FC) are exposed as MPI_CHAR with a fixed count so tools can size buffers once. */
#define CVAR_STRING_COUNT 64

/* ---- performance variables: one row per field of credo_fc_stats ---- */

typedef struct pvar_desc {
    const char *name;
    int var_class;
    size_t offset;  /* into credo_fc_stats */
    const char *doc;
} pvar_desc;

#define PV(field, cls, doc) {"credo_fc_" #field, MPI_T_PVAR_CLASS_##cls, offsetof(credo_fc_stats, field), doc}

static const pvar_desc pvars[] = {
    /* the scheme name is the one non-counter; it is served specially (MPI_CHAR, GENERIC) */
    {"credo_fc_scheme", MPI_T_PVAR_CLASS_GENERIC, offsetof(credo_fc_stats, scheme),
     "flow-control scheme in use: none, static or dynamic (empty before MPI_Init)"},
    PV(mailbox_slots, SIZE, "logical bound on this rank's mailbox occupancy, slots"),
    PV(peak_occupancy, HIGHWATERMARK, "highest mailbox occupancy observed, slots"),
    PV(data_packets_sent, COUNTER, "mailbox packets sent that needed a credit"),
    PV(credit_packets_sent, COUNTER, "explicit credit packets sent"),
    PV(piggybacked_returns, COUNTER, "messages sent that carried returned credits"),
    PV(piggybacked_credits, COUNTER, "credits returned piggybacked on messages"),
    PV(delayed_sends, COUNTER, "sends that found no credit (or no ring room) and were queued"),
    PV(delay_ns, COUNTER, "total time delayed sends spent queued, nanoseconds"),
    PV(unexpected_peak_bytes, HIGHWATERMARK, "highest payload bytes held in unexpected messages"),
    PV(packets_received, COUNTER, "mailbox packets retrieved by this rank"),
    PV(held_peak_slots, HIGHWATERMARK, "highest number of slots charged to unmatched messages"),
    PV(compulsory_requests, COUNTER, "compulsory credit-return requests sent (dynamic scheme)"),
    PV(compulsory_responses, COUNTER, "compulsory credit-return responses sent (dynamic scheme)"),
    PV(credits_stolen, COUNTER, "credits taken back from inactive senders (dynamic scheme)"),
    PV(monitoring_points, COUNTER, "activity monitoring points reached (dynamic scheme)"),
    PV(fc_state_bytes, SIZE, "bytes of flow-control state in this process"),
    PV(spilled_slots, COUNTER, "credits released early to break a matching deadlock"),
    PV(occupancy_samples, COUNTER, "mailbox occupancy samples taken by the owner"),
    PV(occupancy_sum, COUNTER, "sum of the occupancy samples (mean = sum / samples), slots"),
    PV(rndv_prepushed, COUNTER, "rendezvous messages received from the sender's prepush area"),
    PV(rndv_cma_pulls, COUNTER, "rendezvous messages received with one CMA read"),
    PV(rndv_copies, COUNTER, "rendezvous messages received through the pipelined copy"),
    PV(copy_takeovers, COUNTER, "pipelined copies this rank finished by reading the rest (its sender left MPI)"),
};
#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))

/* Before MPI_Init everything reads as zero. After MPI_Finalize the runtime no longer answers and the
 * last snapshot taken stands (counters only grow, so a session's stop there is still consistent). */
static credo_fc_stats last_stats;

static void stats_now(credo_fc_stats *s)
{
    if (credo_fc_stats_get(s) == 0)
        last_stats = *s;
    else
        *s = last_stats;
}

static unsigned long long stat_field(const credo_fc_stats *s, int idx)
{
    uint64_t v;
    memcpy(&v, (const char *)s + pvars[idx].offset, sizeof v);
    return (unsigned long long)v;
}

/* Counters are session-relative (start/stop/reset act on the handle); the others describe the
 * process as a whole and are continuous. */
static int pvar_continuous(int idx)
{
    return pvars[idx].var_class != MPI_T_PVAR_CLASS_COUNTER;
}

/* ---- handles and sessions ---- */

#define CVAR_MAGIC 0x63766172u
#define PVAR_MAGIC 0x70766172u
#define SESS_MAGIC 0x73657373u

struct credo_t_cvar_handle {
    unsigned magic;
    int index;
};

struct credo_t_pvar_handle {
    unsigned magic;
    int index;
    struct credo_t_pvar_session *session;
    struct credo_t_pvar_handle *next;
    int started;
    unsigned long long accumulated; /* counter value over earlier start..stop intervals */
    unsigned long long base;        /* raw counter when the current interval started */
};

struct credo_t_pvar_session {
    unsigned magic;
    struct credo_t_pvar_handle *handles;
};

static int nvars_cfg(void)
{
    int n = 0;
    while (credo_config_vars[n].name)
        n++;
    return n;
}

/* The standard's name/length convention: *len in = buffer size, out = length needed with the NUL;
 * a zero length or NULL buffer asks for the length only. */
static void copy_str(const char *src, char *dst, int *len)
{
    if (len == NULL)
        return;
    int need = (int)strlen(src) + 1;
    if (dst != NULL && *len > 0) {
        int n = need <= *len ? need - 1 : *len - 1;
        memcpy(dst, src, (size_t)n);
        dst[n] = '\0';
    }
    *len = need;
}

#define T_ENTER()                                                                                  \
    do {                                                                                           \
        pthread_mutex_lock(&t_lock);                                                               \
        if (t_refcount == 0) {                                                                     \
            pthread_mutex_unlock(&t_lock);                                                         \
            return MPI_T_ERR_NOT_INITIALIZED;                                                      \
        }                                                                                          \
    } while (0)
#define T_RETURN(rc)                                                                               \
    do {                                                                                           \
        pthread_mutex_unlock(&t_lock);                                                             \
        return (rc);                                                                               \
    } while (0)

/* ---- init / finalize ---- */

int MPI_T_init_thread(int required, int *provided)
{
    if (provided == NULL)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&t_lock);
    t_refcount++;
    pthread_mutex_unlock(&t_lock);
    /* the interface itself is locked; what it reads is as thread-safe as the library under it */
    *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    return MPI_SUCCESS;
}

int MPI_T_finalize(void)
{
    T_ENTER();
    t_refcount--;
    T_RETURN(MPI_SUCCESS);
}

/* ---- enumerations: credo defines none ---- */

int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

/* Two categories: every control variable (the CREDO_* settings) and every performance variable
 * (the flow-control and transport counters). Neither has subcategories; the set never changes. */
enum { CAT_CONFIG, CAT_COUNTERS, NCATS };
static const char *const cat_name[NCATS] = {"credo_settings", "credo_counters"};
static const char *const cat_desc[NCATS] = {
    "credo's CREDO_* settings, read once at MPI_Init (docs/CONFIG.md)",
    "credo's flow-control and transport counters of this process (docs/FLOW_CONTROL.md)"};

static int cat_members(int cat)
{
    return cat == CAT_CONFIG ? nvars_cfg() : NPVARS;
}

int MPI_T_category_get_num(int *num_cat)
{
    T_ENTER();
    if (num_cat == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *num_cat = NCATS;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                            int *num_pvars, int *num_categories)
{
    T_ENTER();
    if (cat_index < 0 || cat_index >= NCATS)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    copy_str(cat_name[cat_index], name, name_len);
    copy_str(cat_desc[cat_index], desc, desc_len);
    if (num_cvars)
        *num_cvars = cat_index == CAT_CONFIG ? cat_members(CAT_CONFIG) : 0;
    if (num_pvars)
        *num_pvars = cat_index == CAT_COUNTERS ? cat_members(CAT_COUNTERS) : 0;
    if (num_categories)
        *num_categories = 0;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_category_get_index(const char *name, int *cat_index)
{
    T_ENTER();
    if (name == NULL || cat_index == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    for (int c = 0; c < NCATS; c++)
        if (strcmp(cat_name[c], name) == 0) {
            *cat_index = c;
            T_RETURN(MPI_SUCCESS);
        }
    T_RETURN(MPI_T_ERR_INVALID_NAME);
}

/* The first len members of category cat that are variables of category `want` (its indices are
 * simply 0..n-1 of that kind). */
static int cat_list(int cat, int want, int len, int indices[])
{
    if (cat < 0 || cat >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == NULL))
        return MPI_T_ERR_INVALID;
    int n = cat == want ? cat_members(cat) : 0;
    for (int i = 0; i < len && i < n; i++)
        indices[i] = i;
    return MPI_SUCCESS;
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    T_ENTER();
    T_RETURN(cat_list(cat_index, CAT_CONFIG, len, indices));
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    T_ENTER();
    T_RETURN(cat_list(cat_index, CAT_COUNTERS, len, indices));
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    T_ENTER();
    T_RETURN(cat_list(cat_index, NCATS, len, indices)); /* no subcategories */
}

int MPI_T_category_changed(int *stamp)
{
    T_ENTER();
    if (stamp == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *stamp = 0; /* the categories are fixed at build time */
    T_RETURN(MPI_SUCCESS);
}

/* credo has no event types (below), so no category holds one. */
int MPI_T_category_get_num_events(int cat_index, int *num_events)
{
    T_ENTER();
    if (cat_index < 0 || cat_index >= NCATS)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (num_events == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *num_events = 0;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_category_get_events(int cat_index, int len, int indices[])
{
    T_ENTER();
    T_RETURN(cat_list(cat_index, NCATS, len, indices)); /* no events in any category */
}

/* ---- control variables ---- */

static MPI_Datatype cvar_type(int type)
{
    switch (type) {
    case CONFIG_STRING: return MPI_CHAR;
    case CONFIG_SIZE: return MPI_UNSIGNED_LONG_LONG;
    default: return MPI_INT;
    }
}

int MPI_T_cvar_get_num(int *num_cvar)
{
    T_ENTER();
    if (num_cvar == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *num_cvar = nvars_cfg();
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                        MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    T_ENTER();
    if (cvar_index < 0 || cvar_index >= nvars_cfg())
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    const config_var *v = &credo_config_vars[cvar_index];
    copy_str(v->name, name, name_len);
    copy_str(v->doc, desc, desc_len);
    if (verbosity)
        /* the flow-control geometry is what a user tunes; the rest is for tuners */
        *verbosity = strncmp(v->name, "CREDO_FC", 8) == 0 || strcmp(v->name, "CREDO_SLOTS_PER_PEER") == 0
                         ? MPI_T_VERBOSITY_USER_BASIC
                         : MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype)
        *datatype = cvar_type(v->type);
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        /* read once at MPI_Init from the environment; changing them afterwards has no effect */
        *scope = MPI_T_SCOPE_READONLY;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    T_ENTER();
    if (name == NULL || cvar_index == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    for (int i = 0; credo_config_vars[i].name; i++)
        if (strcmp(credo_config_vars[i].name, name) == 0) {
            *cvar_index = i;
            T_RETURN(MPI_SUCCESS);
        }
    T_RETURN(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    T_ENTER();
    if (cvar_index < 0 || cvar_index >= nvars_cfg())
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (handle == NULL || count == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    MPI_T_cvar_handle h = malloc(sizeof *h);
    if (h == NULL)
        T_RETURN(MPI_T_ERR_MEMORY);
    h->magic = CVAR_MAGIC;
    h->index = cvar_index;
    *handle = h;
    *count = credo_config_vars[cvar_index].type == CONFIG_STRING ? CVAR_STRING_COUNT : 1;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    T_ENTER();
    if (handle == NULL || *handle == NULL || (*handle)->magic != CVAR_MAGIC)
        T_RETURN(MPI_T_ERR_INVALID_HANDLE);
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    T_RETURN(MPI_SUCCESS);
}

/* Text to number with config.c's rules (booleans as words, sizes with k/m/g). A value config_load
 * would reject reads as MPI_T_ERR_INVALID: MPI_Init would have stopped on it anyway. */
static int parse_number(int type, const char *s, unsigned long long *out)
{
    if (type == CONFIG_BOOL) {
        static const char *const on[] = {"1", "yes", "true", "on"}, *const off[] = {"0", "no", "false", "off"};
        for (int i = 0; i < 4; i++) {
            if (strcmp(s, on[i]) == 0) {
                *out = 1;
                return 0;
            }
            if (strcmp(s, off[i]) == 0) {
                *out = 0;
                return 0;
            }
        }
        return -1;
    }
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (type == CONFIG_SIZE) {
        int shift = *end == 'k' || *end == 'K'   ? 10
                    : *end == 'm' || *end == 'M' ? 20
                    : *end == 'g' || *end == 'G' ? 30
                                                 : 0;
        if (shift) {
            v <<= shift;
            end++;
        }
    }
    if (*end != '\0' || (type == CONFIG_INT && v > 0x7fffffffull))
        return -1;
    *out = v;
    return 0;
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    T_ENTER();
    if (handle == NULL || handle->magic != CVAR_MAGIC)
        T_RETURN(MPI_T_ERR_INVALID_HANDLE);
    if (buf == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    const config_var *v = &credo_config_vars[handle->index];
    char text[256];
    if (config_value(v->name, text, sizeof text) == NULL)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (v->type == CONFIG_STRING) {
        int len = CVAR_STRING_COUNT;
        copy_str(text, buf, &len);
        T_RETURN(MPI_SUCCESS);
    }
    unsigned long long num;
    if (parse_number(v->type, text, &num) != 0)
        T_RETURN(MPI_T_ERR_INVALID);
    if (v->type == CONFIG_SIZE)
        memcpy(buf, &num, sizeof num);
    else {
        int i = (int)num;
        memcpy(buf, &i, sizeof i);
    }
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    T_ENTER();
    if (handle == NULL || handle->magic != CVAR_MAGIC)
        T_RETURN(MPI_T_ERR_INVALID_HANDLE);
    /* every setting shapes the mailbox or the schemes' state at MPI_Init; none can change later */
    T_RETURN(MPI_T_ERR_CVAR_SET_NEVER);
}

/* ---- performance variables ---- */

int MPI_T_pvar_get_num(int *num_pvar)
{
    T_ENTER();
    if (num_pvar == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *num_pvar = NPVARS;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                        int *readonly, int *continuous, int *atomic)
{
    T_ENTER();
    if (pvar_index < 0 || pvar_index >= NPVARS)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    const pvar_desc *p = &pvars[pvar_index];
    copy_str(p->name, name, name_len);
    copy_str(p->doc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (var_class)
        *var_class = p->var_class;
    if (datatype)
        *datatype = pvar_index == 0 ? MPI_CHAR : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = 1;
    if (continuous)
        *continuous = pvar_continuous(pvar_index);
    if (atomic)
        *atomic = 0;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    T_ENTER();
    if (name == NULL || pvar_index == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    for (int i = 0; i < NPVARS; i++)
        if (strcmp(pvars[i].name, name) == 0 && pvars[i].var_class == var_class) {
            *pvar_index = i;
            T_RETURN(MPI_SUCCESS);
        }
    T_RETURN(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    T_ENTER();
    if (session == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    MPI_T_pvar_session s = calloc(1, sizeof *s);
    if (s == NULL)
        T_RETURN(MPI_T_ERR_MEMORY);
    s->magic = SESS_MAGIC;
    *session = s;
    T_RETURN(MPI_SUCCESS);
}

static int session_ok(MPI_T_pvar_session s)
{
    return s != NULL && s->magic == SESS_MAGIC;
}

static int handle_ok(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    return h != NULL && h != MPI_T_PVAR_ALL_HANDLES && h->magic == PVAR_MAGIC && h->session == s;
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    T_ENTER();
    if (session == NULL || !session_ok(*session))
        T_RETURN(MPI_T_ERR_INVALID_SESSION);
    for (MPI_T_pvar_handle h = (*session)->handles, nx; h; h = nx) {
        nx = h->next;
        h->magic = 0;
        free(h);
    }
    (*session)->magic = 0;
    free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count)
{
    T_ENTER();
    if (!session_ok(session))
        T_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= NPVARS)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (handle == NULL || count == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    MPI_T_pvar_handle h = calloc(1, sizeof *h);
    if (h == NULL)
        T_RETURN(MPI_T_ERR_MEMORY);
    h->magic = PVAR_MAGIC;
    h->index = pvar_index;
    h->session = session;
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = pvar_index == 0 ? (int)sizeof last_stats.scheme : 1;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    T_ENTER();
    if (!session_ok(session))
        T_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (handle == NULL || !handle_ok(session, *handle))
        T_RETURN(MPI_T_ERR_INVALID_HANDLE);
    for (MPI_T_pvar_handle *pp = &session->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*handle)->next;
            break;
        }
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    T_RETURN(MPI_SUCCESS);
}

/* start, stop and reset share one shape: one handle, or every handle of the session. */
enum pvar_op { OP_START, OP_STOP, OP_RESET };

static int apply_op(MPI_T_pvar_handle h, const credo_fc_stats *s, enum pvar_op op, int all)
{
    if (pvar_continuous(h->index)) {
        /* with MPI_T_PVAR_ALL_HANDLES the standard skips the variables the operation does not apply to */
        if (all)
            return MPI_SUCCESS;
        return op == OP_RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
    }
    unsigned long long now = stat_field(s, h->index);
    switch (op) {
    case OP_START:
        if (!h->started) {
            h->base = now;
            h->started = 1;
        }
        break;
    case OP_STOP:
        if (h->started) {
            h->accumulated += now - h->base;
            h->started = 0;
        }
        break;
    case OP_RESET:
        h->accumulated = 0;
        h->base = now;
        break;
    }
    return MPI_SUCCESS;
}

static int pvar_op(MPI_T_pvar_session session, MPI_T_pvar_handle handle, enum pvar_op op)
{
    T_ENTER();
    if (!session_ok(session))
        T_RETURN(MPI_T_ERR_INVALID_SESSION);
    credo_fc_stats s;
    stats_now(&s);
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (MPI_T_pvar_handle h = session->handles; h; h = h->next)
            apply_op(h, &s, op, 1);
        T_RETURN(MPI_SUCCESS);
    }
    if (!handle_ok(session, handle))
        T_RETURN(MPI_T_ERR_INVALID_HANDLE);
    T_RETURN(apply_op(handle, &s, op, 0));
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_op(session, handle, OP_START);
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_op(session, handle, OP_STOP);
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_op(session, handle, OP_RESET);
}

static int read_locked(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf, int reset)
{
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (!handle_ok(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (buf == NULL)
        return MPI_T_ERR_INVALID;
    credo_fc_stats s;
    stats_now(&s);
    if (handle->index == 0) {
        if (reset)
            return MPI_T_ERR_PVAR_NO_WRITE;
        memcpy(buf, s.scheme, sizeof s.scheme);
        ((char *)buf)[sizeof s.scheme - 1] = '\0';
        return MPI_SUCCESS;
    }
    unsigned long long now = stat_field(&s, handle->index), v = now;
    if (!pvar_continuous(handle->index)) {
        v = handle->accumulated + (handle->started ? now - handle->base : 0);
        if (reset) {
            handle->accumulated = 0;
            handle->base = now;
        }
    } else if (reset)
        return MPI_T_ERR_PVAR_NO_WRITE;
    memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    T_ENTER();
    T_RETURN(read_locked(session, handle, buf, 0));
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    T_ENTER();
    T_RETURN(read_locked(session, handle, buf, 1));
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    T_ENTER();
    if (!session_ok(session))
        T_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (!handle_ok(session, handle))
        T_RETURN(MPI_T_ERR_INVALID_HANDLE);
    T_RETURN(MPI_T_ERR_PVAR_NO_WRITE);
}


/* ---- events (MPI 4.0 §15.3.8) ----
 * The standard lets an implementation offer no event types at all, and credo does: its engine has
 * no callback points a tool could hook without costing every message, and what it would report
 * (packets, credits, delays) the performance variables above already count. What it does offer is
 * one event source, the clock of MPI_Wtime (CLOCK_MONOTONIC, in nanoseconds), so a tool can query
 * sources and read timestamps on the same scale the standard defines for event timestamps.
 * Since no event type exists, MPI_T_event_handle_alloc never succeeds, so no registration handle
 * exists; and since no event is ever raised, no instance handle exists either: every call taking
 * one reports MPI_T_ERR_INVALID_HANDLE. */

enum { NSOURCES = 1 };
#define SOURCE_TICKS_PER_SECOND 1000000000LL

static long long source_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * SOURCE_TICKS_PER_SECOND + ts.tv_nsec;
}

int MPI_T_source_get_num(int *num_sources)
{
    T_ENTER();
    if (num_sources == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *num_sources = NSOURCES;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                          MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                          MPI_Info *info)
{
    T_ENTER();
    if (source_index < 0 || source_index >= NSOURCES)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    copy_str("credo", name, name_len);
    copy_str("this process's monotonic clock (the one MPI_Wtime reads), in nanoseconds; credo raises no events",
             desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED; /* one monotonic clock: timestamps never go back */
    if (ticks_per_second)
        *ticks_per_second = SOURCE_TICKS_PER_SECOND;
    if (max_ticks)
        *max_ticks = INT64_MAX; /* nanoseconds since boot in 63 bits: about 292 years */
    if (info) {
        /* a new, empty info object the caller frees with MPI_Info_free: there are no hints to give */
        pthread_mutex_unlock(&t_lock);
        return MPI_Info_create(info) == MPI_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
    }
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    T_ENTER();
    if (source_index < 0 || source_index >= NSOURCES)
        T_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (timestamp == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *timestamp = source_now();
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_event_get_num(int *num_events)
{
    T_ENTER();
    if (num_events == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    *num_events = 0;
    T_RETURN(MPI_SUCCESS);
}

int MPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
                         MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_INDEX); /* no event type has an index */
}

int MPI_T_event_get_index(const char *name, int *event_index)
{
    T_ENTER();
    if (name == NULL || event_index == NULL)
        T_RETURN(MPI_T_ERR_INVALID);
    T_RETURN(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                             MPI_T_event_registration *event_registration)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_INDEX);
}

/* The calls on a registration handle: none is ever valid (see above). */
int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info info)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info *info_used)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                            MPI_T_event_free_cb_function *free_cb_function)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                    MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

/* The calls on an event instance, which only exists inside an event callback: never, here. */
int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

int MPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    T_ENTER();
    T_RETURN(MPI_T_ERR_INVALID_HANDLE);
}

CREDO_PMPI(MPI_T_init_thread)
CREDO_PMPI(MPI_T_finalize)
CREDO_PMPI(MPI_T_enum_get_info)
CREDO_PMPI(MPI_T_enum_get_item)
CREDO_PMPI(MPI_T_category_get_num)
CREDO_PMPI(MPI_T_category_get_info)
CREDO_PMPI(MPI_T_category_get_index)
CREDO_PMPI(MPI_T_category_get_cvars)
CREDO_PMPI(MPI_T_category_get_pvars)
CREDO_PMPI(MPI_T_category_get_categories)
CREDO_PMPI(MPI_T_category_changed)
CREDO_PMPI(MPI_T_category_get_num_events)
CREDO_PMPI(MPI_T_category_get_events)
CREDO_PMPI(MPI_T_cvar_get_num)
CREDO_PMPI(MPI_T_cvar_get_info)
CREDO_PMPI(MPI_T_cvar_get_index)
CREDO_PMPI(MPI_T_cvar_handle_alloc)
CREDO_PMPI(MPI_T_cvar_handle_free)
CREDO_PMPI(MPI_T_cvar_read)
CREDO_PMPI(MPI_T_cvar_write)
CREDO_PMPI(MPI_T_pvar_get_num)
CREDO_PMPI(MPI_T_pvar_get_info)
CREDO_PMPI(MPI_T_pvar_get_index)
CREDO_PMPI(MPI_T_pvar_session_create)
CREDO_PMPI(MPI_T_pvar_session_free)
CREDO_PMPI(MPI_T_pvar_handle_alloc)
CREDO_PMPI(MPI_T_pvar_handle_free)
CREDO_PMPI(MPI_T_pvar_start)
CREDO_PMPI(MPI_T_pvar_stop)
CREDO_PMPI(MPI_T_pvar_reset)
CREDO_PMPI(MPI_T_pvar_read)
CREDO_PMPI(MPI_T_pvar_readreset)
CREDO_PMPI(MPI_T_pvar_write)
CREDO_PMPI(MPI_T_source_get_num)
CREDO_PMPI(MPI_T_source_get_info)
CREDO_PMPI(MPI_T_source_get_timestamp)
CREDO_PMPI(MPI_T_event_get_num)
CREDO_PMPI(MPI_T_event_get_info)
CREDO_PMPI(MPI_T_event_get_index)
CREDO_PMPI(MPI_T_event_handle_alloc)
CREDO_PMPI(MPI_T_event_handle_set_info)
CREDO_PMPI(MPI_T_event_handle_get_info)
CREDO_PMPI(MPI_T_event_register_callback)
CREDO_PMPI(MPI_T_event_callback_set_info)
CREDO_PMPI(MPI_T_event_callback_get_info)
CREDO_PMPI(MPI_T_event_handle_free)
CREDO_PMPI(MPI_T_event_set_dropped_handler)
CREDO_PMPI(MPI_T_event_read)
CREDO_PMPI(MPI_T_event_copy)
CREDO_PMPI(MPI_T_event_get_timestamp)
CREDO_PMPI(MPI_T_event_get_source)
