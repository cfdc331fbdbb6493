/* src/boot/boot_pmi1.c — the PMI-1 wire client: newline-terminated "cmd=... key=value" lines over
 * PMI_FD (credorun, hydra, Slurm pmi2) or over TCP to PMI_PORT (hydra -pmi-port). */
#include "boot.h"
#include "boot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static boot_conn *pmi1_conn;
static char pmi1_kvsname[256];
static char pmi1_line[BOOT_LINE_MAX];

/* Sends one command line and reads the reply into pmi1_line, checking its cmd= and rc=. */
static int pmi1_call(const char *request, const char *expect_cmd, int timeout_ms)
{
    if (bootio_send(pmi1_conn, request, strlen(request)) != 0)
        return -1;
    if (bootio_read_line(pmi1_conn, pmi1_line, sizeof pmi1_line, timeout_ms) != 0)
        return -1;
    char cmd[64];
    if (boot_field(pmi1_line, ' ', "cmd", cmd, sizeof cmd) != 0 || strcmp(cmd, expect_cmd) != 0) {
        char req[64];
        snprintf(req, sizeof req, "%.*s", (int)strcspn(request, " \n"), request);
        boot_set_error("launcher sent '%.200s' in reply to %s (expected cmd=%s); not a PMI-1 server?",
                       pmi1_line, req, expect_cmd);
        return -1;
    }
    int rc = 0;
    if (boot_field_int(pmi1_line, ' ', "rc", &rc) == 0 && rc != 0) {
        char msg[256] = "";
        (void)boot_field(pmi1_line, ' ', "msg", msg, sizeof msg);
        boot_set_error("launcher answered %s with rc=%d %s", expect_cmd, rc, msg);
        return -1;
    }
    return 0;
}

static int pmi1_put(const char *key, const char *value)
{
    char req[BOOT_LINE_MAX];
    int n = snprintf(req, sizeof req, "cmd=put kvsname=%s key=%s value=%s\n", pmi1_kvsname, key, value);
    if (n < 0 || (size_t)n >= sizeof req) {
        boot_set_error("put of key '%.64s': message too long", key);
        return -1;
    }
    return pmi1_call(req, "put_result", -1);
}

static int pmi1_fence(void)
{
    return pmi1_call("cmd=barrier_in\n", "barrier_out", -1);
}

static int pmi1_get(int rank, const char *key, char *value, size_t len)
{
    (void)rank; /* keys are global in this KVS */
    char req[BOOT_LINE_MAX];
    int n = snprintf(req, sizeof req, "cmd=get kvsname=%s key=%s\n", pmi1_kvsname, key);
    if (n < 0 || (size_t)n >= sizeof req) {
        boot_set_error("get of key '%.64s': message too long", key);
        return -1;
    }
    if (pmi1_call(req, "get_result", -1) != 0)
        return -1;
    /* The value is the only field that may be long; take it from the line directly. */
    if (boot_field(pmi1_line, ' ', "value", value, len) != 0) {
        boot_set_error("get of key '%.64s': reply has no value or it exceeds %zu bytes", key, len - 1);
        return -1;
    }
    return 0;
}

static int pmi1_finalize(void)
{
    int rc = pmi1_call("cmd=finalize\n", "finalize_ack", -1);
    close(pmi1_conn->fd);
    pmi1_conn->fd = -1;
    return rc;
}

static void pmi1_abort(int code, const char *msg)
{
    char req[64];
    (void)msg; /* hydra's PMI-1 abort takes no message; the caller prints it */
    snprintf(req, sizeof req, "cmd=abort exitcode=%d\n", code);
    (void)bootio_send(pmi1_conn, req, strlen(req));
}

/* hydra -pmi-port: after "cmd=initack pmiid=N" the proxy pushes "cmd=set size=", "rank=", "debug=". */
static int pmi1_port_handshake(boot_info *info, int pmiid)
{
    char req[64];
    snprintf(req, sizeof req, "cmd=initack pmiid=%d\n", pmiid);
    if (pmi1_call(req, "initack", BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
        return -1;
    int got_rank = 0, got_size = 0, got_debug = 0;
    while (!(got_rank && got_size && got_debug)) {
        if (bootio_read_line(pmi1_conn, pmi1_line, sizeof pmi1_line, BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
            return -1;
        char cmd[32];
        int v;
        if (boot_field(pmi1_line, ' ', "cmd", cmd, sizeof cmd) != 0 || strcmp(cmd, "set") != 0) {
            boot_set_error("launcher sent '%.200s' after initack (expected cmd=set)", pmi1_line);
            return -1;
        }
        if (boot_field_int(pmi1_line, ' ', "size", &v) == 0) {
            info->size = v;
            got_size = 1;
        } else if (boot_field_int(pmi1_line, ' ', "rank", &v) == 0) {
            info->rank = v;
            got_rank = 1;
        } else if (boot_field_int(pmi1_line, ' ', "debug", &v) == 0) {
            got_debug = 1;
        }
    }
    return 0;
}

int boot_pmi1_init(boot_conn *c, boot_info *info, char *kvsname, size_t kvslen, boot_backend *be, int pmiid)
{
    pmi1_conn = c;
    if (pmiid >= 0 && pmi1_port_handshake(info, pmiid) != 0)
        return -1;
    if (pmi1_call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init",
                  BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
        return -1;
    if (pmi1_call("cmd=get_maxes\n", "maxes", BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
        return -1;
    int kmax = 0, vmax = 0;
    if (boot_field_int(pmi1_line, ' ', "keylen_max", &kmax) != 0 ||
        boot_field_int(pmi1_line, ' ', "vallen_max", &vmax) != 0 || kmax <= 1 || vmax <= 1) {
        boot_set_error("launcher's maxes reply lacks keylen_max/vallen_max: '%.200s'", pmi1_line);
        return -1;
    }
    /* As in MPICH's PMI, the maxima count the terminating NUL. */
    be->keylen_max = (size_t)kmax - 1;
    be->vallen_max = (size_t)vmax - 1;
    if (pmi1_call("cmd=get_my_kvsname\n", "my_kvsname", BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
        return -1;
    if (boot_field(pmi1_line, ' ', "kvsname", pmi1_kvsname, sizeof pmi1_kvsname) != 0 ||
        !pmi1_kvsname[0]) {
        boot_set_error("launcher's my_kvsname reply has no usable kvsname: '%.200s'", pmi1_line);
        return -1;
    }
    snprintf(kvsname, kvslen, "%s", pmi1_kvsname);
    int appnum = 0;
    if (pmi1_call("cmd=get_appnum\n", "appnum", BOOT_HANDSHAKE_TIMEOUT_MS) == 0 &&
        boot_field_int(pmi1_line, ' ', "appnum", &appnum) == 0)
        info->appnum = appnum; /* optional: a launcher without appnum support still works */

    be->put = pmi1_put;
    be->fence = pmi1_fence;
    be->get = pmi1_get;
    be->finalize = pmi1_finalize;
    be->abort = pmi1_abort;
    return 0;
}
