/* src/base/base.c — the job identity, the monotonic clock and fatal aborts, below every other layer:
 * how an abort reaches the launcher is the runtime's handler (src/core/init.c). */
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

credo_runtime credo_rt;
int credo_schedules_in_flight;

static credo_abort_handler abort_handler;

void credo_set_abort_handler(credo_abort_handler handler)
{
    abort_handler = handler;
}

uint64_t credo_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

_Noreturn void credo_abort(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (abort_handler)
        abort_handler(code, msg); /* the runtime's: tells the launcher, prints once */
    fprintf(stderr, "credo: rank %d aborting: %s\n", credo_rt.rank, msg);
    _exit(code ? code : 1);
}
