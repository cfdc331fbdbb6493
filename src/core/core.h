/* src/core/core.h — process-wide runtime state: init/finalize order of the layers, the job
 * identity, fatal errors and aborts. Everything above p2p calls in here, never below it. */
#ifndef CREDO_CORE_H
#define CREDO_CORE_H

#include <stdint.h>

typedef struct credo_runtime {
    int rank;
    int size;
    int appnum;     /* the launcher's program number (MPMD), 0 for a single program */
    int initialized;
    int finalized;
    char jobid[128];
} credo_runtime;

extern credo_runtime credo_rt;

/* Brings up config, bootstrap, transports and p2p. 0 on success; -1 and a message on stderr. */
int credo_init(void);
/* Tears them down in reverse order (after an implicit barrier done by the caller). */
int credo_finalize(void);
/* Kills the job: tells the launcher, prints "credo: rank R: msg", exits with code. */
_Noreturn void credo_abort(int code, const char *fmt, ...);
uint64_t credo_now_ns(void);

#endif
