/* src/mpi/mpi_impl.h — internal layout of credo's MPI objects (communicators, datatypes, requests)
 * and the helpers the MPI binding files share: argument checks, error reporting, typed p2p. */
#ifndef CREDO_MPI_IMPL_H
#define CREDO_MPI_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "core/progress_thread.h"
#include "mpi.h"
#include "p2p/p2p.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Magic numbers tell a live object from one being built or torn down (comm_create.c's idup) once
 * the handle registry (below, "handle validation") has said the address is an object of the kind;
 * freeing an object overwrites its magic. */
#define COMM_MAGIC 0x436f6d6du
#define GROUP_MAGIC 0x47727570u
#define DT_MAGIC 0x44747970u
#define OP_MAGIC 0x4f705f5fu
#define ERRH_MAGIC 0x45727248u
#define MSG_MAGIC 0x4d736721u
#define DEAD_MAGIC 0xdeadbeefu

/* p2p accepts any non-negative int tag. */
#define CREDO_TAG_UB 0x7fffffff

/* ---- the progress thread's big lock (src/core/progress_thread.h) ----
 * Every MPI entry point that can reach p2p holds it for its whole body. */
#define MPI_ENTER() CREDO_LOCK_ENTER()

/* Each file ends with CREDO_PMPI(MPI_X) for the functions it defines: PMPI_X is the same code, so a
 * profiling library can define MPI_X and call PMPI_X. */
#define CREDO_PMPI(fn) extern __typeof__(fn) P##fn __attribute__((alias(#fn)));

/* ---- process state ---- */

enum { MPI_STATE_NONE = 0, MPI_STATE_READY = 1, MPI_STATE_DONE = 2 };

/* The runtime (state READY) serves the world model (MPI_Init .. MPI_Finalize) and every open MPI 4.0
 * session (session.c); it shuts down when the last of them ends, and cannot start again. */
enum { MPI_WORLD_NONE = 0, MPI_WORLD_ACTIVE = 1, MPI_WORLD_DONE = 2 };

typedef struct credo_mpi_state {
    int state;            /* enum above */
    int world;            /* MPI_WORLD_*: the world model's own state, for MPI_Initialized/Finalized */
    int sessions;         /* sessions initialized and not yet finalized */
    int thread_level;     /* provided */
    uint32_t next_ctx;    /* lowest context id this process has not used (ids only grow) */
    int job_size;         /* credo_rt.size, cached */
} credo_mpi_state;

/* Hidden for the same reason as p2p's engine: direct addressing on every MPI entry. */
extern credo_mpi_state credo_mpi __attribute__((visibility("hidden")));

#define MPI_READY() likely(credo_mpi.state == MPI_STATE_READY)

/* buf + off without pointer arithmetic on a possibly NULL (zero-count) buffer. */
#define BUF_AT(buf, off) ((void *)((uintptr_t)(buf) + (uintptr_t)(off)))

/* ---- objects ---- */

struct credo_errhandler {
    uint32_t magic;
    int kind;                            /* enum errh_kind */
    int refcount;                        /* user handlers only */
    MPI_Comm_errhandler_function *fn;
};
enum errh_kind { ERRH_FATAL, ERRH_RETURN, ERRH_ABORT, ERRH_USER };

struct credo_comm {
    uint32_t magic;
    uint32_t ctx;          /* point-to-point context; ctx + 1 carries this comm's collectives */
    int rank;
    int size;
    int *world_of;         /* comm rank -> job rank */
    int *comm_of;          /* job rank -> comm rank or -1 (size credo_mpi.job_size) */
    MPI_Errhandler errh;
    int refcount;          /* the handle plus pending requests: a freed comm outlives them */
    int predefined;
    char name[MPI_MAX_OBJECT_NAME];
    coll_comm coll;        /* GOAL schedules of this comm's collectives, on context ctx + 1 */
    struct credo_attr *attrs; /* cached user attributes, newest first (attr.c) */
    MPI_Info info;         /* hints set by the user (info.c), NULL if none */
    struct credo_topo *topo; /* process topology (topo.c) or NULL */
    /* Point-to-point addresses remote_size ranks through world_of/comm_of. For an intracommunicator
     * those are its own members (remote_size == size, local NULL). For an intercommunicator
     * (intercomm.c) they are the remote group, while size and rank are the local group's, and
     * `local` is a hidden intracommunicator of the local group on context ctx + 2 that carries
     * the local phases of the collectives (intercoll.c); ctx + 1 carries their messages between
     * the groups. */
    int remote_size;
    struct credo_comm *local;
    /* Intercommunicators: non-blocking collectives started so far (intercoll.c), the same count
     * at every member of both groups since all start them in the same order; it tells apart the
     * messages of several such collectives in flight at once. */
    uint32_t nbc_seq;
};

/* 1 for an intercommunicator (comm must be valid). */
#define COMM_IS_INTER(comm) unlikely((comm)->local != NULL)

/* For calls the standard or credo limits to intracommunicators: reports MPI_ERR_COMM. */
#define INTRA_CHECK(fn, comm)                                                                      \
    do {                                                                                           \
        if (COMM_IS_INTER(comm))                                                                   \
            return mpi_error(comm, MPI_ERR_COMM, fn, "not defined on an intercommunicator");       \
    } while (0)

struct credo_group {
    uint32_t magic;
    int size;
    int rank;              /* this process' rank in the group or MPI_UNDEFINED */
    int predefined;
    int *world_of;
};

/* A datatype is a flattened list of byte blocks for one element, plus its bounds. */
typedef struct dt_block {
    MPI_Aint disp;
    size_t len;
} dt_block;

/* STICKY: lb and ub are explicit markers (set by resized, subarray, darray, or inherited from a
 * component): they override the data's bounds in any type built from this one. NAME_OWNED: name
 * was set by MPI_Type_set_name and is freed with the type. */
enum {
    DT_F_PREDEF = 1,
    DT_F_COMMITTED = 2,
    DT_F_DENSE = 4,
    DT_F_STICKY = 8,
    DT_F_NAME_OWNED = 16
};

struct credo_datatype {
    uint32_t magic;
    uint16_t flags;        /* DT_F_*; DENSE: count elements are one run of count*size bytes at lb */
    int16_t basic;         /* enum credo_basic of every element (op.h), or B_NONE if mixed */
    size_t size;
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    int nblocks;
    const dt_block *blocks;
    size_t elem_size;      /* size of the basic elements if all are the same size, else 0 */
    size_t elems;          /* basic elements per element */
    size_t align;          /* strictest alignment of the basic elements (struct padding) */
    int refcount;          /* derived: the handle, pending requests and types built from it */
    const char *name;
    struct dt_contents *contents; /* constructor arguments (dt_build.h); NULL for predefined */
};

struct credo_op {
    uint32_t magic;
    int id;                /* enum credo_op_id (op.h); OP_USER for MPI_Op_create */
    int commute;
    int predefined;
    MPI_User_function *fn;
};
/* A pending reduction keeps a user op alive past MPI_Op_free; no-ops for predefined ops. */
void op_retain(MPI_Op op);
void op_release(MPI_Op op);

/* ---- requests: an MPI_Request is a p2p_req; the MPI bits live in its upper fields ----
 * upper          MPI_Comm (maps the status' job-rank source back to a comm rank)
 * upper_data[0]  REQ_F_* flags | (uint64_t)count << 32
 * upper_data[1]  MPI_Datatype (packed requests only)
 * upper_data[2]  user buffer (packed receives)
 * upper_data[3]  temporary pack buffer (packed requests)
 * A persistent request (persist.c) is a generic request whose upper_data[1] is its struct
 * mpi_persist; each MPI_Start runs one operation under it. While inactive it is complete (done
 * = 1) with REQ_F_INACTIVE set, and the wait/test family treats it like MPI_REQUEST_NULL. */
enum {
    REQ_F_PROC_NULL = 1,   /* completed at once; status says PROC_NULL */
    REQ_F_PACKED = 2,      /* owns a temporary buffer (and a datatype reference) */
    REQ_F_RECV = 4,
    REQ_F_PERSIST = 8,     /* persistent: finishing it makes it inactive, never frees it */
    REQ_F_INACTIVE = 16,   /* persistent and not started (or finished since) */
    REQ_F_GREQ = 32,       /* generalized request (greq.c): status and freeing by callbacks */
    REQ_F_PART = 64        /* partitioned (part.c), with REQ_F_PERSIST: started and freed there */
};

#define REQ_COMM(r) ((MPI_Comm)(r)->upper)
/* Ties a request to its communicator; mpi_comm_release undoes it when the request is finished. */
#define REQ_BIND(r, comm) ((r)->upper = (comm), (comm)->refcount++)
#define REQ_FLAGS(r) ((uint32_t)(r)->upper_data[0])

/* A generic request that the MPI layer completes itself (persistent handles, generalized and
 * staged requests), bound to comm with the REQ_F_* flags and no hook yet; NULL if out of memory. */
static inline p2p_req *mpi_req_new(MPI_Comm comm, uint64_t flags)
{
    p2p_req *r = p2p_req_generic();
    if (r == NULL)
        return NULL;
    REQ_BIND(r, comm);
    r->upper_data[0] = flags;
    r->on_complete = NULL;
    return r;
}

/* A request of a GOAL schedule that the MPI layer finishes itself (collectives, MPI_Comm_idup):
 * bound to comm, with per-call state in upper_data[3] for the hook, which runs at once when the
 * schedule already completed inside its start call, else from progress. */
static inline void mpi_req_hook(p2p_req *r, MPI_Comm comm, void *state, void (*hook)(p2p_req *))
{
    REQ_BIND(r, comm);
    r->upper_data[0] = 0;
    r->upper_data[3] = (uintptr_t)state;
    if (r->done)
        hook(r);
    else
        r->on_complete = hook;
}

/* An MPI_Message: a message matched by MPI_Mprobe/Improbe and taken out of matching, waiting for
 * MPI_Mrecv/Imrecv. Holds a reference on comm (for the status' ranks and the error handler). */
struct credo_message {
    uint32_t magic;        /* MSG_MAGIC; DEAD_MAGIC once received */
    MPI_Comm comm;         /* NULL for MPI_MESSAGE_NO_PROC */
    p2p_msg *msg;
};

/* ---- handle validation (handle.c) ----
 * No handle a program passes is read through before it is known to name a live object of its kind,
 * so garbage, a zero-filled or freed object, a handle of another kind or a stale copy gives the
 * kind's error class instead of a crash or a hang.
 *
 * Requests (made and retired by the million) are not pointers: an MPI_Request is
 * RH_TAG | generation << 32 | slot, an index into the request table whose slot holds the
 * p2p_req. Retiring a handle (the wait/test family finishing a request, MPI_Request_free) moves
 * the slot's generation on, so neither that handle nor a copy of it ever matches again, even once
 * the slot and the p2p_req are reused. The check is a bounds check and one compare; a pointer (of
 * another kind, or garbage) never has the tag's top bits. Persistent requests keep their handle
 * while inactive. A generalized request freed before MPI_Grequest_complete keeps its slot, marked
 * RH_RETIRED, until that call (the only one that may still name it).
 *
 * Every other kind's handles are pointers to the objects (the predefined ones are globals whose
 * addresses mpi.h's constants are). The registry, an open-addressing hash set of (address, kind),
 * holds every object from its creation (mpi_handle_add) to its destruction (mpi_handle_del); the
 * *_ok checks look the address up before they read the object's magic. */
enum mpi_hkind {
    HK_COMM = 1,
    HK_GROUP,
    HK_TYPE,
    HK_OP,
    HK_ERRH,
    HK_INFO,
    HK_WIN,
    HK_FILE,
    HK_SESSION,
    HK_MSG
};

typedef struct mpi_hreg_ent {
    uintptr_t key;  /* object address; 0 empty, HREG_TOMB deleted */
    uintptr_t kind; /* enum mpi_hkind */
} mpi_hreg_ent;
typedef struct mpi_hreg {
    mpi_hreg_ent *tab;
    uintptr_t mask;     /* entries - 1, a power of two minus one */
    uint32_t used;      /* live entries and tombstones */
    uint32_t live;
} mpi_hreg;
#define HREG_TOMB ((uintptr_t)1)
extern mpi_hreg credo_hreg __attribute__((visibility("hidden")));
/* The last object of each kind the registry said was live: a program passes the same communicator
 * and datatype call after call, and this one compare spares the hash probe on the message path
 * (8 B message rate). mpi_handle_add and mpi_handle_del clear an entry that names their object, so
 * it never outlives the registration. Read and written under the big lock, like the registry. */
extern const void *credo_hreg_hit[HK_MSG + 1] __attribute__((visibility("hidden")));

static inline uintptr_t mpi_hreg_hash(uintptr_t key)
{
    return (uintptr_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32);
}

/* 1 if obj is a live object of that kind (obj may be anything: nothing is read through it). */
static inline int mpi_handle_live(const void *obj, enum mpi_hkind kind)
{
    if (likely(obj == credo_hreg_hit[kind]) && likely(obj != NULL))
        return 1;
    uintptr_t key = (uintptr_t)obj;
    uintptr_t mask = __atomic_load_n(&credo_hreg.mask, __ATOMIC_ACQUIRE); /* mask, then table */
    const mpi_hreg_ent *tab = __atomic_load_n(&credo_hreg.tab, __ATOMIC_ACQUIRE);
    for (uintptr_t i = mpi_hreg_hash(key) & mask;; i = (i + 1) & mask) {
        if (likely(tab[i].key == key)) {
            if (key <= HREG_TOMB || tab[i].kind != (uintptr_t)kind)
                return 0;
            credo_hreg_hit[kind] = obj;
            return 1;
        }
        if (tab[i].key == 0)
            return 0;
    }
}
/* Registration; an address registered again takes the new kind, deleting one not registered
 * does nothing. Under the big lock (or before threads). */
void mpi_handle_add(const void *obj, enum mpi_hkind kind);
void mpi_handle_del(const void *obj);

typedef struct mpi_rslot {
    uint64_t h;         /* the slot's live handle; 0 when free */
    p2p_req *r;         /* NULL when free */
    uint32_t gen;       /* generation of the slot's next handle (RH_GEN_MASK bits) */
    uint32_t next;      /* free list */
} mpi_rslot;
typedef struct mpi_rtab {
    mpi_rslot *v;
    uint32_t cap;
    uint32_t free;      /* first free slot or RH_NO_SLOT */
} mpi_rtab;
extern mpi_rtab credo_rtab __attribute__((visibility("hidden")));

#define RH_TAG_MASK (0xfull << 60)
#define RH_TAG (0xaull << 60)
#define RH_RETIRED (1ull << 59)
#define RH_GEN_MASK 0x7ffffffu
#define RH_NO_SLOT UINT32_MAX
#define RH_MAX_SLOTS (1u << 31)
_Static_assert(sizeof(MPI_Request) == sizeof(uint64_t), "request handles are 64-bit values");

/* Grows the table (aborts when out of memory); returns the first new free slot. */
uint32_t mpi_rtab_grow(void) __attribute__((cold));

/* The handle of a new request (which the program may name from now on). */
static inline MPI_Request mpi_req_handle(p2p_req *r)
{
    uint32_t i = credo_rtab.free;
    if (unlikely(i == RH_NO_SLOT))
        i = mpi_rtab_grow();
    mpi_rslot *s = &credo_rtab.v[i];
    credo_rtab.free = s->next;
    s->r = r;
    s->h = RH_TAG | (uint64_t)s->gen << 32 | i;
    return (MPI_Request)(uintptr_t)s->h;
}

/* The request a handle names, or NULL if it names none (MPI_REQUEST_NULL included). */
static inline p2p_req *mpi_req_of(MPI_Request h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t i = (uint32_t)v;
    if (likely(i < credo_rtab.cap) && likely(credo_rtab.v[i].h == v))
        return credo_rtab.v[i].r;
    return NULL;
}

/* The program may no longer name the request of h (a live handle): its slot is free. */
static inline void mpi_req_retire(MPI_Request h)
{
    uint32_t i = (uint32_t)(uintptr_t)h;
    mpi_rslot *s = &credo_rtab.v[i];
    s->h = 0;
    s->r = NULL;
    s->gen = (s->gen + 1) & RH_GEN_MASK;
    s->next = credo_rtab.free;
    credo_rtab.free = i;
}

/* A generalized request freed before it was completed: only MPI_Grequest_complete finds it now
 * (mpi_req_of_greq), which then retires the slot. */
static inline void mpi_req_retire_pending(MPI_Request h)
{
    credo_rtab.v[(uint32_t)(uintptr_t)h].h |= RH_RETIRED;
}
/* mpi_req_of, and also a generalized request's handle retired by mpi_req_retire_pending (then
 * *pending = 1). */
static inline p2p_req *mpi_req_of_greq(MPI_Request h, int *pending)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t i = (uint32_t)v;
    *pending = 0;
    if (v == 0 || i >= credo_rtab.cap)
        return NULL;
    if (credo_rtab.v[i].h == v)
        return credo_rtab.v[i].r;
    if (credo_rtab.v[i].h == (v | RH_RETIRED)) {
        *pending = 1;
        return credo_rtab.v[i].r;
    }
    return NULL;
}
/* Why h names no request, for the error message. */
const char *mpi_req_handle_why(MPI_Request h);

static inline int comm_ok(MPI_Comm c)
{
    return likely(mpi_handle_live(c, HK_COMM)) && likely(c->magic == COMM_MAGIC);
}

/* A live datatype, committed or not. */
static inline int dt_live(MPI_Datatype d)
{
    return likely(mpi_handle_live(d, HK_TYPE)) && likely(d->magic == DT_MAGIC);
}

static inline int dt_ok(MPI_Datatype d)
{
    return likely(dt_live(d)) && likely(d->flags & DT_F_COMMITTED);
}

/* A live reduction operation (op.c checks it against a datatype). */
static inline int op_live(MPI_Op op)
{
    return mpi_handle_live(op, HK_OP) && op->magic == OP_MAGIC;
}

/* A live error handler of any kind. */
static inline int errh_live(MPI_Errhandler h)
{
    return mpi_handle_live(h, HK_ERRH) && h->magic == ERRH_MAGIC;
}

/* A message handle that may be received (MPI_MESSAGE_NO_PROC included). */
static inline int msg_live(MPI_Message m)
{
    return mpi_handle_live(m, HK_MSG) && m->magic == MSG_MAGIC;
}

/* A point-to-point call with count 0 and MPI_DATATYPE_NULL moves nothing, as with MPI_BYTE. The
 * standard does not say (it is a null handle); MPICH accepts it and programs rely on that (a rank
 * with nothing to send names no type), Open MPI refuses it. Applied where a call's checks start. */
static inline MPI_Datatype dt_or_byte_if_empty(MPI_Count count, MPI_Datatype dt)
{
    return dt == MPI_DATATYPE_NULL && count == 0 ? MPI_BYTE : dt;
}

/* ---- errors (errhandler.c) ---- */

/* Reports `code` raised in MPI function `fn` through comm's handler (world's if comm is not
 * valid). Returns the code when the handler returns; never returns for fatal handlers. */
int mpi_error(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));
/* The largest error class or code in use: MPI_ERR_LASTCODE plus those MPI_Add_error_* added. */
/* The end of the fatal path of mpi_error, for the objects with handlers of their own (sessions):
 * the message, then the job's abort. */
_Noreturn void mpi_error_abort(int code, const char *fn, const char *fmt, va_list ap);
/* A user handler (refcount 1) calling `function`; the window and session forms store their
 * function here cast, and cast it back when they raise. NULL when out of memory. */
struct credo_errhandler *mpi_errh_new(MPI_Comm_errhandler_function *function);
int mpi_error_last_used(void);
int mpi_not_ready(const char *fn) __attribute__((cold));
/* The runtime's start (state NONE -> READY) and its shut-down (READY -> DONE, a barrier over the job
 * first), shared by the world model and sessions (init.c). */
int mpi_runtime_up(const char *fn, int required);
int mpi_runtime_down(const char *fn);
void mpi_thread_level_raise(int level);

/* The argument checks every binding starts with: the library is initialised and the handle is
 * live. The macros return the raised error from the calling binding; mpi_check_comm returns 0 or
 * the raised code, for checks chained with others. */
#define COMM_CHECK(fn, comm)                                                                       \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
        if (!comm_ok(comm))                                                                        \
            return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");                      \
    } while (0)

#define GROUP_CHECK(fn, g)                                                                         \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
        if (!group_ok(g))                                                                          \
            return mpi_error(NULL, MPI_ERR_GROUP, fn, "invalid group");                            \
    } while (0)

static inline int mpi_check_comm(const char *fn, MPI_Comm comm)
{
    COMM_CHECK(fn, comm);
    return MPI_SUCCESS;
}
/* Cold-path checks shared by the point-to-point and collective bindings: 0 or the raised code. */
int mpi_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype dt);
/* Inline: MPI_Recv fills status->MPI_ERROR with it on every call, success included. */
static inline int mpi_err_of_p2p(int p2p_err)
{
    switch (p2p_err) {
    case P2P_OK: return MPI_SUCCESS;
    case P2P_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case P2P_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case P2P_ERR_ARG: return MPI_ERR_ARG;
    default: return MPI_ERR_INTERN;
    }
}

/* ---- datatypes (datatype.c) ---- */

void dt_pack(const void *src, size_t count, MPI_Datatype dt, void *dst);
/* Unpacks at most `bytes` bytes (partial elements included). */
void dt_unpack(const void *src, size_t bytes, size_t count, MPI_Datatype dt, void *dst);
/* Copies count elements of dt from src to dst, both laid out as in user memory. */
void dt_copy(const void *src, void *dst, size_t count, MPI_Datatype dt);
void dt_retain(MPI_Datatype dt);
void dt_release(MPI_Datatype dt);
/* Lowest byte touched by count elements of dt at buf and the span of bytes touched. */
static inline size_t dt_span(MPI_Datatype dt, size_t count)
{
    return count ? (size_t)((MPI_Aint)(count - 1) * dt->extent + dt->true_extent) : 0;
}

/* ---- typed point to point (pt2pt.c); ranks are comm ranks, no argument checks ---- */

/* Argument checks of sends (dest may be PROC_NULL) and receives (source may be ANY_SOURCE or
 * PROC_NULL, tag ANY_TAG): 0 or the raised error code. */
int mpi_check_send(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm);
int mpi_check_recv(const char *fn, const void *buf, int count, MPI_Datatype dt, int src, int tag,
                   MPI_Comm comm);
/* The same after checking that request is not NULL (the non-blocking and persistent forms). */
int mpi_check_isend(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request);
int mpi_check_irecv(const char *fn, const void *buf, int count, MPI_Datatype dt, int src,
                    int tag, MPI_Comm comm, MPI_Request *request);

int mpi_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              uint32_t ctx, int mode, p2p_req **out);
int mpi_irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              uint32_t ctx, p2p_req **out);
/* Runs a packed request's unpack/cleanup if it has not run yet (idempotent). */
void mpi_req_packed_hook(p2p_req *r);
/* A request that is already complete with PROC_NULL status. */
p2p_req *mpi_req_proc_null(MPI_Comm comm);
/* Receives a probed message into count elements of dt (comm: the message's). */
int mpi_imrecv(void *buf, int count, MPI_Datatype dt, MPI_Comm comm, p2p_msg *msg, p2p_req **out);

/* ---- requests (request.c) ---- */

/* Fills st (may be NULL) from a completed request, releases it; returns its MPI error code. The
 * caller still holds the request's communicator reference (mpi_comm_release after reporting). */
int mpi_req_finish(p2p_req *r, MPI_Status *st);
/* Waits for and finishes a request, communicator reference included; returns its MPI error code. */
int mpi_req_wait(p2p_req *r, MPI_Status *st);
void mpi_status_empty(MPI_Status *st);

/* ---- persistent requests (persist.c) ---- */

/* MPI_Request_free of a persistent request; it is released when its running operation ends. */
void mpi_persist_free(p2p_req *r);
/* MPI_Cancel of a persistent request: cancels its running receive, if any. */
void mpi_persist_cancel(p2p_req *r);
/* The persistent request (just created) takes mem, which its arguments point into, and frees it
 * with itself: the _c inits' converted count arrays (largecount_coll.c). */
void mpi_persist_adopt(MPI_Request request, void *mem);

/* ---- partitioned communication (part.c) ---- */

/* MPI_Start of a partitioned request (checked startable); errors raised as fn's. */
int mpi_part_start(const char *fn, p2p_req *r);
/* MPI_Request_free of a partitioned request; an active one goes when its epoch ends. */
void mpi_part_free(p2p_req *r);

/* ---- generalized requests (greq.c) ---- */

/* The status query_fn gives (into st, which may be MPI_STATUS_IGNORE); returns its error code. */
int mpi_greq_status(p2p_req *r, MPI_Status *st);
/* The program is done with r (a wait/test finished it, or MPI_Request_free): free_fn runs now if
 * MPI_Grequest_complete was called, else when it is. Then p2p_req_free. */
void mpi_greq_release(p2p_req *r);
void mpi_greq_cancel(p2p_req *r);

/* ---- persistent collectives (persist_coll.c: arguments and starts; persist.c: the handle) ---- */

struct mpi_pcoll;
/* Runs the collective's non-blocking form with the kept arguments (errors raised by it). */
int mpi_pcoll_start(const struct mpi_pcoll *c, MPI_Request *req);
void mpi_pcoll_free(struct mpi_pcoll *c);
/* The inactive handle of a persistent collective; it owns coll from here on, also on error. */
int mpi_persist_coll_create(const char *fn, MPI_Comm comm, struct mpi_pcoll *coll,
                            MPI_Request *request);

/* ---- collectives (collective.c), used internally by comm.c and MPI_Finalize ---- */

int mpi_coll_allgather_int(MPI_Comm comm, const int *mine, int n, int *all);
int mpi_coll_barrier(MPI_Comm comm);

/* ---- communicators (comm.c) ---- */

int mpi_comm_init_predefined(void);
/* The argument checks and byte count shared by MPI_Pack_size and MPI_Pack_size_c (datatype.c). */
int mpi_pack_size_bytes(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                        const void *size, long long *bytes);
/* comm's members on a fresh context, errors returned, no attribute copies (comm.c). */
MPI_Comm mpi_comm_hidden(MPI_Comm comm, uint32_t ctx);
/* Create (rank 0) or open and map a shared segment of len bytes; NULL on failure (misc.c). */
void *mpi_shm_map(const char *name, size_t len, int create);

/* Context id agreement. Every agreement proposes this process' next free id, takes the maximum
 * over the members and moves next_ctx past it; with one agreement at a time per process that
 * maximum is free everywhere. Under MPI_THREAD_MULTIPLE threads may run agreements on different
 * communicators at once and two could arrive at the same maximum, so there one member (the
 * leader) proposes a slot of its own from the space the non-blocking idup uses (mpi_ctx_slot:
 * unique job-wide, above every agreed id) and the others propose 0; the same maximum then picks
 * the slot, and nothing waits for anything but the exchange itself. Usage:
 *     mine = mpi_ctx_propose(my rank in the exchange == 0); ...exchange, m = maximum...;
 *     mpi_ctx_settle(m, ids); */
int mpi_ctx_propose(int leader);
void mpi_ctx_settle(uint32_t agreed, uint32_t ids);
/* The next slot of 4 ids this process hands out (idups, and agreements under
 * MPI_THREAD_MULTIPLE), or 0 when its share of the space is used up (comm_create.c). */
uint32_t mpi_ctx_slot(void);
/* The last slot of that space, never handed out: fixed contexts of internal exchanges (session.c). */
#define MPI_CTX_RESERVED 0x7ffffffcu
void mpi_comm_destroy(MPI_Comm comm);
static inline void mpi_comm_release(MPI_Comm comm)
{
    if (unlikely(--comm->refcount == 0))
        mpi_comm_destroy(comm);
}
void mpi_comm_finalize(void);

/* comm.c helpers shared with comm_create.c: a communicator of `size` members on context ctx
 * (world_of to be filled by the caller), then its rank tables and collectives. */
struct credo_comm *comm_new(MPI_Comm parent, uint32_t ctx, int size);
int comm_index(struct credo_comm *c);
/* The end of every dup: c gets comm's hints and the attributes its copy callbacks cache, then
 * becomes *newcomm; on failure c is destroyed and the error raised as fn's. */
int comm_dup_finish(const char *fn, MPI_Comm comm, struct credo_comm *c, MPI_Comm *newcomm);
/* Members of a split: ordered by key, then by rank in the parent (qsort comparator). */
typedef struct split_entry {
    int color, key, rank;
} split_entry;
int comm_split_cmp(const void *a, const void *b);

/* ---- intercommunicators (intercomm.c) ---- */

/* An intercommunicator of local group lw (n job ranks, this process among them) and remote
 * group rw (m), error handler from parent, not usable before mpi_inter_bind_ctx gives it its
 * context ids ctx .. ctx + 3 (the local intracommunicator takes ctx + 2 and ctx + 3) and its rank
 * tables; that returns 0 or -1 (out of memory). */
struct credo_comm *mpi_inter_alloc(MPI_Comm parent, const int *lw, int n, const int *rw, int m);
int mpi_inter_bind_ctx(struct credo_comm *c, uint32_t ctx);
/* MPI_Intercomm_create without its argument checks (intercomm.c); `peer` (the remote leader's job
 * rank) and pctx (the leaders' context) matter at the local leader only. */
int mpi_intercomm_create_core(const char *fn, MPI_Comm local_comm, int local_leader, int peer,
                              uint32_t pctx, int tag, MPI_Comm *newintercomm);
/* MPI_Comm_dup, _split and _create of an intercommunicator (collective over both groups). */
int mpi_inter_dup(const char *fn, MPI_Comm comm, MPI_Comm *newcomm);
int mpi_inter_split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int mpi_inter_create(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
/* MPI_Comm_compare when either is an intercommunicator. */
int mpi_inter_compare(MPI_Comm a, MPI_Comm b);

/* ---- groups (comm.c, group.c) ---- */

int group_ok(MPI_Group g);
struct credo_group *group_new(int size);
/* Sets g->rank from g->world_of. */
void group_index(struct credo_group *g);

/* ---- info objects and communicator hints (info.c) ---- */

int mpi_info_ok(MPI_Info info);
/* A new info holding in's pairs (in may be NULL: empty). 0 or MPI_ERR_NO_MEM, not reported. */
int mpi_info_dup(MPI_Info in, MPI_Info *out);
void mpi_info_release(MPI_Info info);
/* Adds info's pairs to comm's hints. 0 or MPI_ERR_NO_MEM, not reported. */
int mpi_comm_hints_merge(MPI_Comm comm, MPI_Info info);

/* ---- attribute caching (attr.c); error returns are MPI classes, not reported ---- */

/* Runs comm's copy callbacks, caching the results on its duplicate dup. */
int mpi_attr_copy_all(MPI_Comm comm, MPI_Comm dup);
/* Runs the delete callbacks of all of comm's attributes and drops them. */
int mpi_attr_delete_all(MPI_Comm comm);
/* 1 and *val if comm caches a value for user keyval k. */
int mpi_attr_lookup(MPI_Comm comm, int k, void **val);
/* 1 if k is a user keyval the program may still name. */
int mpi_attr_keyval_ok(int k);
/* First step of MPI_Finalize: the attributes of COMM_SELF, then of COMM_WORLD. */
int mpi_attr_finalize_comms(void);
/* Last step of MPI_Finalize: the keyval table. */
void mpi_attr_finalize(void);
/* Shut-down, before mpi_attr_finalize: frees the types MPI_Type_create_f90_* handed out
 * (datatype.c). */
void mpi_dt_finalize(void);

/* ---- topologies (topo.c) ---- */

/* Deep copy for MPI_Comm_dup (NULL if out of memory); free accepts NULL. */
struct credo_topo *mpi_topo_dup(const struct credo_topo *t);
void mpi_topo_free(struct credo_topo *t);

/* ---- bsend (bsend.c) ---- */

/* Copies the message into the attached buffer and sends it from there; errors are raised as fn's. */
int mpi_bsend_start(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm);
void mpi_bsend_drain(void);

#endif
