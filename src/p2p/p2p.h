/* src/p2p/p2p.h — point-to-point messaging over the transports: matching, eager, rendezvous.
 * Speaks job ranks, bytes and context ids; datatypes, communicators and MPI error codes live above. */
#ifndef CREDO_P2P_H
#define CREDO_P2P_H

#include <stddef.h>
#include <stdint.h>

#define P2P_ANY_SOURCE (-1)
#define P2P_ANY_TAG (-1)

/* Error codes carried in p2p_status.error and returned by calls (0 = success). */
enum p2p_err {
    P2P_OK = 0,
    P2P_ERR_TRUNCATE = 1, /* message longer than the receive buffer: first `bytes` delivered */
    P2P_ERR_NOMEM = 2,
    P2P_ERR_ARG = 3,
    P2P_ERR_INTERN = 4,
};

enum p2p_send_mode { P2P_MODE_STANDARD = 0, P2P_MODE_SYNC = 1, P2P_MODE_READY = 2 };

enum p2p_req_kind { P2P_REQ_SEND = 1, P2P_REQ_RECV = 2, P2P_REQ_GENERIC = 3 };

typedef struct p2p_status {
    int source;    /* job rank of the sender */
    int tag;
    int error;     /* enum p2p_err */
    int cancelled;
    size_t bytes;  /* bytes delivered into the receive buffer (or message size for probe) */
} p2p_status;

typedef struct p2p_req p2p_req;
typedef void (*p2p_complete_fn)(p2p_req *req);

/* The public part of a request; the transport-private part follows it in memory. */
struct p2p_req {
    volatile int done;        /* set to 1 (after status is final) when the operation completes */
    uint8_t kind;             /* enum p2p_req_kind */
    p2p_status status;
    /* Upper-layer hook: called once, from progress, right after completion (before done is
     * observed by a waiter). Used for unpacking derived datatypes and by GOAL/collectives. */
    p2p_complete_fn on_complete;
    void *upper;              /* free for the layer that created the request */
    uint64_t upper_data[4];   /* ditto (e.g. MPI keeps comm, datatype, count here) */
};

/* Initialised by credo core after the transports; torn down before them. */
int p2p_init(void);
void p2p_finalize(void);

/* Non-blocking send of `bytes` contiguous bytes to job rank `dest` (which may be this rank). */
int p2p_isend(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode,
              p2p_req **out);
/* The same for a user's isend: when the caller's previous call into the engine was also a
 * batchable isend to dest, a one-slot message may be staged and written together with the
 * following ones (send batching, CREDO_SEND_BATCH); any other engine call writes the batch. */
int p2p_isend_batchable(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode,
                        p2p_req **out);
/* Non-blocking receive; src may be P2P_ANY_SOURCE and tag P2P_ANY_TAG (tag must be >= 0 on send). */
int p2p_irecv(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_req **out);
/* Non-blocking probe: *flag = 1 and *st filled (bytes = message size) if a match is waiting. */
int p2p_iprobe(int src, int tag, uint32_t ctx, int *flag, p2p_status *st);
/* Matched probe (MPI_Improbe): like p2p_iprobe, but a matching message is taken out of matching at
 * once, so no later receive or probe can match it, and *msg receives it; only p2p_imrecv may then
 * receive it, whatever state it is in (still arriving, a rendezvous request, a self send). */
typedef struct p2p_msg p2p_msg;
int p2p_improbe(int src, int tag, uint32_t ctx, int *flag, p2p_status *st, p2p_msg **msg);
/* Receives a message taken by p2p_improbe into buf: a request that completes as p2p_irecv's would
 * (truncation included). Consumes msg unless it fails (P2P_ERR_NOMEM: msg is still the caller's). */
int p2p_imrecv(p2p_msg *msg, void *buf, size_t bytes, p2p_req **out);
/* Cancels a pending receive: returns 1 if it was cancelled (status.cancelled set, req done),
 * 0 if it had already matched (it will complete normally). A send is cancelled at once while
 * nothing of it is written (1); a rendezvous send whose request-to-send is out gets a cancel
 * request to the receiver (1: it completes, cancelled or not, when the answer or the FIN comes);
 * any other send completes normally (0). */
int p2p_cancel(p2p_req *req);

/* A request completed by an upper layer (non-blocking collectives, generalized requests). */
p2p_req *p2p_req_generic(void);
void p2p_req_complete(p2p_req *req);
/* Makes a completed generic request pending again (done = 0, status cleared), so the upper layer
 * can complete it once more: MPI's persistent requests keep one handle over many operations. */
void p2p_req_rearm(p2p_req *req);
/* Releases a request. A still-pending request is released when it completes (MPI_Request_free). */
void p2p_req_free(p2p_req *req);

/* Progress: one pass over the mailbox, delayed sends and rendezvous; returns events handled. */
int p2p_progress(void);
/* The mailbox index the next arrival will take and how long a sleep may last (idle_us, or less
 * while something waits on other ranks, who will not ring us for it): both under the same
 * serialization as p2p_progress. Then a sleep on this rank's doorbell until a packet is published
 * from that index on or timeout_us passes; the sleep touches no p2p state, so it may run without
 * that serialization. */
uint64_t p2p_next_arrival(void);
uint32_t p2p_sleep_bound_us(uint32_t idle_us);
void p2p_doorbell_sleep(uint64_t next_arrival, uint32_t timeout_us);
/* How p2p_wait_step lets other threads in when the layer above serializes p2p with a lock (all
 * NULL: the caller is the only thread in p2p). drop lets go of the caller's lock before a yield or
 * a sleep and returns what take needs to take it back; yield is called every 32 idle polls of the
 * spin phase and hands the lock over if another thread waits for it; sleep_at_once skips the yield
 * phase (a progress thread advances things while we sleep). */
typedef struct p2p_lock_hooks {
    int (*drop)(void);
    void (*take)(int held);
    void (*yield)(void);
    int sleep_at_once;
} p2p_lock_hooks;
void p2p_set_lock_hooks(const p2p_lock_hooks *h);
/* Rings this rank's doorbell if another thread of the process sleeps on it and something completed
 * or arrived unexpectedly since the last such ring (called by the lock's owner as it lets go). */
void p2p_wake_local_sleepers(void);
/* Rings this rank's own doorbell if a thread sleeps on it (after another thread's progress). */
void p2p_wake_sleeper(void);
/* Receives that match an already-arrived rendezvous request of min_bytes or more leave the pull to
 * the next p2p_progress (another thread's) instead of copying at once; 0 = off (the default). */
void p2p_set_defer_pulls(size_t min_bytes);

/* Waiting policy: spin, then yield, then sleep on the mailbox doorbell (see docs/ARCHITECTURE.md).
 * Usage: p2p_waiter w = P2P_WAITER_INIT; while (!cond) p2p_wait_step(&w); */
typedef struct p2p_waiter {
    uint32_t idle_polls;
    uint64_t idle_since_ns;
} p2p_waiter;
#define P2P_WAITER_INIT {0, 0}
void p2p_wait_step(p2p_waiter *w);
/* Bracket a wait loop built on p2p_wait_step (or several p2p_wait calls): this rank then reads as
 * waiting inside MPI from the first step to the last, not only during each step, which decides how
 * peers move rendezvous data to us. Brackets nest; call both under the lock that serializes p2p. */
void p2p_waiting_begin(void);
void p2p_waiting_end(void);
/* Whether an application thread is inside a wait now (a hint, read without the lock). */
int p2p_app_waiting(void);
/* Whether this node runs more ranks than it has online CPUs (set at start-up). */
int p2p_oversubscribed(void);

/* Convenience: block until req->done. */
void p2p_wait(p2p_req *req);

/* Blocking send and receive (a request from the free list, waited on and released). */
int p2p_send(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode);
int p2p_recv(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_status *st);

/* This process' job rank and the job size (valid after p2p_init). */
int p2p_rank(void);
int p2p_size(void);
/* Whether Cross Memory Attach reaches the other ranks (probed at start-up, off with CREDO_CMA=0 or
 * once the kernel refused a read), and the pid of a job rank: for one-sided windows on user memory. */
int p2p_cma_ok(void);
int p2p_pid(int job_rank);
/* The node job_rank runs on, numbered by the lowest rank there: equal numbers share /dev/shm and can
 * reach each other's memory (windows, MPI_COMM_TYPE_SHARED); whatever transport carries them. */
int p2p_node_of(int job_rank);
/* [base, base + len) is about to be freed (MPI_Free_mem): transports drop what they cached of it. */
void p2p_mem_released(const void *base, size_t len);

#endif
