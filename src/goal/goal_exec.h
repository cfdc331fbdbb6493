/* src/goal/goal_exec.h — running compiled GOAL schedules on real ranks over p2p: groups (rank maps
 * and contexts), runs, and the completion trampoline. Used by the GOAL API and by src/coll. */
#ifndef CREDO_GOAL_EXEC_H
#define CREDO_GOAL_EXEC_H

#include <stdint.h>

#include "goal/goal_impl.h"
#include "p2p/p2p.h"

/* The ranks a schedule's peers refer to. A run's messages travel on ctx with the p2p tag
 * GOAL_P2P_TAG(seq, tag): the run sequence number keeps overlapping runs apart, and bit 30 keeps
 * GOAL traffic apart from fixed small tags other users of the context may send. */
typedef struct goal_group {
    int size;
    int rank;
    const int *job_of; /* group rank -> job rank; NULL = identity */
    uint32_t ctx;
    uint32_t next_seq; /* run sequence number: every rank starts runs in the same order */
} goal_group;

#define GOAL_SEQ_MASK 0x3fffu
#define GOAL_P2P_TAG(seq, tag) ((int)(0x40000000u | (((seq) & GOAL_SEQ_MASK) << 16) | (uint32_t)(tag)))

/* Per-op transfer record of a run: temporary pack buffer and the completion-queue link. */
typedef struct goal_xfer {
    void *tmp;
    struct goal_run *next_run; /* completion queue: (next_run, next_op) */
    uint32_t next_op;
    int32_t err;
    uint64_t bytes;
} goal_xfer;

typedef void (*goal_run_done_fn)(struct goal_run *run);

struct goal_run {
    struct goal_sched *s;
    const goal_group *grp;
    uint32_t seq;
    int error;           /* first GOAL_ERR_* of the run */
    volatile int done;   /* set last, when every op finished and the scratchpad is gone */
    unsigned char *scratch;
    goal_rs rs;
    goal_xfer *x;
    goal_run_done_fn on_done; /* called once when the run finishes (collectives) */
    void *upper, *upper2;     /* free for the starter */
    uint32_t cap;             /* ops the pooled block has room for (executor-private) */
};

/* Starts a run of s on grp with sequence number grp->next_seq++ (GOAL_SUCCESS or an error; no run
 * on error). Ready operations start before it returns; the run may even be finished already. */
int goal_exec_start(struct goal_sched *s, goal_group *grp, goal_run_done_fn on_done, void *upper,
                    struct goal_run **out);
/* The same with a second word for the starter (run->upper2). */
int goal_exec_start_ex(struct goal_sched *s, goal_group *grp, goal_run_done_fn on_done, void *upper,
                       void *upper2, struct goal_run **out);
/* Frees a finished run (its block goes back to the pool); on_done may call it: the executor touches
 * nothing of the run after on_done. */
void goal_exec_free(struct goal_run *run);
/* Number of runs started and not yet finished, in this process. */
int goal_exec_in_flight(void);
/* Drives p2p until the run is done; returns its error. Does not free it. */
int goal_exec_wait(struct goal_run *run);

#endif
