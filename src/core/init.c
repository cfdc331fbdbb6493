/* src/core/init.c — bring-up and teardown of the runtime in layer order (config, boot, transports,
 * p2p), the job identity, and fatal aborts that take the whole job down with a clear message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/config.h"
#include "core/core.h"
#include "p2p/p2p.h"

credo_runtime credo_rt;

static void warn_setting(const char *msg, void *arg)
{
    (void)arg;
    fprintf(stderr, "credo: warning: %s\n", msg);
}

uint64_t credo_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int credo_init(void)
{
    char err[256];
    if (credo_rt.initialized)
        return 0;
    if (config_load(err, sizeof err)) {
        fprintf(stderr, "credo: invalid setting: %s\n", err);
        return -1;
    }
    boot_info bi;
    if (boot_init(&bi, err, sizeof err)) {
        fprintf(stderr, "credo: bootstrap failed: %s\n", err);
        return -1;
    }
    /* a misspelt setting is named once per job, not once per rank */
    if (bi.rank == 0)
        config_unknown(warn_setting, NULL);
    credo_rt.rank = bi.rank;
    credo_rt.size = bi.size;
    credo_rt.appnum = bi.appnum;
    snprintf(credo_rt.jobid, sizeof credo_rt.jobid, "%s", bi.jobid);
    if (bi.size > 65535) {
        fprintf(stderr, "credo: rank %d: %d ranks exceed the mailbox header's 16-bit source field\n", bi.rank,
                bi.size);
        boot_abort(1, "too many ranks");
    }
    if (p2p_init()) {
        boot_abort(1, "transport initialisation failed");
    }
    credo_rt.initialized = 1;
    return 0;
}

int credo_finalize(void)
{
    if (!credo_rt.initialized || credo_rt.finalized)
        return 0;
    p2p_finalize();
    boot_finalize();
    credo_rt.finalized = 1;
    return 0;
}

_Noreturn void credo_abort(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* boot_abort prints "credo: rank R aborting: msg" once and tells the launcher */
    boot_abort(code, msg);
}
