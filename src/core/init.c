/* src/core/init.c — bring-up and teardown of the runtime in layer order (config, boot, transports,
 * p2p), and the abort handler that takes the whole job down through the launcher. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "base/config.h"
#include "core/core.h"
#include "p2p/p2p.h"


static void warn_setting(const char *msg, void *arg)
{
    (void)arg;
    fprintf(stderr, "credo: warning: %s\n", msg);
}

/* credo_abort's way out once the runtime is up: boot_abort prints "credo: rank R aborting: msg" once
 * and tells the launcher. */
static _Noreturn void abort_to_launcher(int code, const char *msg)
{
    boot_abort(code, msg);
}

int credo_init(void)
{
    char err[256];
    if (credo_rt.initialized)
        return 0;
    credo_set_abort_handler(abort_to_launcher);
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
