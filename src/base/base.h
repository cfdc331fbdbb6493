/* src/base/base.h — process-wide base services every layer may use: the job identity, the clock,
 * fatal aborts, and hints between layers. Includes nothing of credo above it. */
#ifndef CREDO_BASE_H
#define CREDO_BASE_H

#include <stdint.h>

typedef struct credo_runtime {
    int rank;
    int size;
    int appnum;     /* the launcher's program number (MPMD), 0 for a single program */
    int initialized;
    int finalized;
    char jobid[128];
} credo_runtime;

/* Filled by the runtime's start-up (src/core, credo_init). */
extern credo_runtime credo_rt;

/* Kills the job: prints "credo: rank R aborting: msg" once, tells the launcher, exits with code.
 * The launcher is told through the handler the runtime installs at start-up (boot_abort); before
 * that, the message is printed and the process exits. */
_Noreturn void credo_abort(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
typedef void (*credo_abort_handler)(int code, const char *msg) __attribute__((noreturn));
void credo_set_abort_handler(credo_abort_handler handler);

uint64_t credo_now_ns(void);

/* GOAL schedules started and not finished (src/goal writes it, the progress thread reads it for its
 * idle policy, without the lock: a stale value only shifts one sleep). */
extern int credo_schedules_in_flight;

#endif
