/* src/base/config.h — credo's run-time settings: one table of CREDO_* environment variables with
 * defaults and documentation, read once at init; credo_info, docs/CONFIG.md and MPI_T use it. */
#ifndef CREDO_CONFIG_H
#define CREDO_CONFIG_H

#include <stddef.h>
#include <stdint.h>

enum config_type { CONFIG_INT, CONFIG_SIZE, CONFIG_STRING, CONFIG_BOOL };

typedef struct config_var {
    const char *name;    /* environment variable, e.g. "CREDO_FC" */
    int type;            /* enum config_type */
    const char *defval;  /* default, as text */
    const char *doc;     /* one line */
    const char *accepts; /* the values accepted, as text (NULL: a CREDO_COLL_* setting's choices) */
} config_var;

/* The values in force in this process (filled by config_load). */
typedef struct credo_config {
    char fc[16];               /* CREDO_FC: none | static | dynamic */
    uint32_t slot_size;        /* CREDO_SLOT_SIZE: bytes per mailbox slot */
    uint32_t slots_per_peer;   /* CREDO_SLOTS_PER_PEER: S, 0 = auto (config_slots_per_peer) */
    uint32_t credit_slots;     /* CREDO_CREDIT_SLOTS: C */
    int fc_report;             /* CREDO_FC_REPORT */
    size_t eager_limit;        /* CREDO_EAGER_LIMIT: largest eager message, bytes */
    int cma;                   /* CREDO_CMA: 1 = use process_vm_readv when the kernel allows */
    size_t cma_min;            /* CREDO_CMA_MIN: smaller rendezvous messages take the pipelined copy */
    int cma_auto;              /* CREDO_CMA_MIN=auto: CMA also when the sender is not waiting in MPI */
    size_t copy_chunk;         /* CREDO_COPY_CHUNK: pipelined-copy chunk when CMA is unavailable */
    size_t prepush_bytes;      /* CREDO_PREPUSH_BYTES: prepush area (0 = off) */
    uint32_t spin_polls;       /* CREDO_SPIN_POLLS: idle polls before yielding */
    uint32_t yield_us;         /* CREDO_YIELD_US: idle time spent yielding before sleeping */
    uint32_t send_batch;       /* CREDO_SEND_BATCH: most staged one-slot isends per reservation */
    int debug;                 /* CREDO_DEBUG */
    /* CREDO_COLL_<NAME>: forced algorithm name, "" = the built-in table (read once, not per call) */
    char coll_bcast[24], coll_allreduce[24], coll_allgather[24], coll_alltoall[24];
    char coll_barrier[24], coll_reduce[24], coll_gather[24], coll_reduce_scatter[24];
    int progress_thread;       /* CREDO_PROGRESS_THREAD: 1 = background progress thread */
    int progress_rt;           /* CREDO_PROGRESS_RT: 1 = that thread at SCHED_FIFO, doorbell-driven */
    int xport;                 /* CREDO_XPORT: CONFIG_XPORT_* */
    size_t rndv_chunk;         /* CREDO_RNDV_CHUNK: bytes per read of the network rendezvous pull */
    uint32_t rndv_window;      /* CREDO_RNDV_WINDOW: most reads outstanding per pull */
    size_t net_eager_limit;    /* CREDO_NET_EAGER_LIMIT: bytes, SIZE_MAX = auto */
} credo_config;

enum { CONFIG_XPORT_AUTO = 0, CONFIG_XPORT_SHM = 1, CONFIG_XPORT_OFI = 2 };

extern credo_config credo_cfg;

/* The table, terminated by a {NULL} entry. */
extern const config_var credo_config_vars[];

/* Parses the environment into credo_cfg; 0 on success, -1 with a reason naming the variable. */
int config_load(char *err, size_t errlen);
/* The values v accepts, as text: v->accepts, or a CREDO_COLL_* setting's choices written into buf. */
const char *config_accepted(const config_var *v, char *buf, size_t len);
/* Calls report once per CREDO_* variable of the environment that is neither a setting nor one of
 * the tools' variables (CREDO_CC, CREDO_CXX, CREDO_FORTRAN_COMPILER; the test suite's
 * CREDO_TEST_SANITIZED), with one line naming it and
 * the closest known name; returns how many. MPI_Init reports them on rank 0 only. */
int config_unknown(void (*report)(const char *msg, void *arg), void *arg);
/* Current value of variable `name` as text (after config_load, or the default before). */
const char *config_value(const char *name, char *buf, size_t len);

/* S for a job of n ranks: CREDO_SLOTS_PER_PEER if set, else the thesis' 57 (the optimum for C = 2
 * at 64-byte slots), raised so that the whole mailbox, S x (n - 1) slots, holds at least
 * CONFIG_MIN_MAILBOX_SLOTS. At 2 ranks 57 slots are 3.6 KiB: one 2 KiB message in flight per
 * sender, which halved 512 B - 2 KiB streaming (docs/ARCHITECTURE.md, measurements behind the
 * defaults). Not more than 256 slots (16 KiB): a short loop of small messages walks the whole ring,
 * and every line it has not touched yet is a cache miss (a 2-rank barrier took 0.38-0.44 us at 512
 * slots, 0.25-0.36 at 57-256). Always more than C. */
#define CONFIG_MIN_MAILBOX_SLOTS 256u
uint32_t config_slots_per_peer(uint32_t nranks);

#endif
