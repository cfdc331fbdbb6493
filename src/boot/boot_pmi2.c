/* src/boot/boot_pmi2.c — the PMI-2 wire client (CREDO_PMI=2): a PMI-1 style init line, then
 * messages framed by a 6-character decimal length and made of ';'-terminated key=value fields. */
#include "boot.h"
#include "boot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static boot_conn *pmi2_conn;
static char pmi2_msg[BOOT_LINE_MAX];

static int pmi2_call(const char *body, const char *expect_cmd, int timeout_ms)
{
    char frame[BOOT_LINE_MAX + 8];
    size_t blen = strlen(body);
    if (blen > BOOT_LINE_MAX - 1) {
        boot_set_error("PMI-2 message too long (%zu bytes)", blen);
        return -1;
    }
    int n = snprintf(frame, sizeof frame, "%-6zu%s", blen, body);
    if (bootio_send(pmi2_conn, frame, (size_t)n) != 0)
        return -1;
    char hdr[7];
    if (bootio_read_exact(pmi2_conn, hdr, 6, timeout_ms) != 0)
        return -1;
    hdr[6] = '\0';
    char *end;
    long len = strtol(hdr, &end, 10);
    if (end == hdr || (*end && *end != ' ') || len < 0 || len >= (long)sizeof pmi2_msg) {
        boot_set_error("launcher sent a bad PMI-2 length header '%s'", hdr);
        return -1;
    }
    if (bootio_read_exact(pmi2_conn, pmi2_msg, (size_t)len, timeout_ms) != 0)
        return -1;
    pmi2_msg[len] = '\0';
    char cmd[64];
    if (boot_field(pmi2_msg, ';', "cmd", cmd, sizeof cmd) != 0 || strcmp(cmd, expect_cmd) != 0) {
        boot_set_error("launcher sent '%.200s' (expected cmd=%s); not a PMI-2 server?", pmi2_msg, expect_cmd);
        return -1;
    }
    int rc = 0;
    if (boot_field_int(pmi2_msg, ';', "rc", &rc) == 0 && rc != 0) {
        char msg[256] = "";
        (void)boot_field(pmi2_msg, ';', "errmsg", msg, sizeof msg);
        boot_set_error("launcher answered %s with rc=%d %s", expect_cmd, rc, msg);
        return -1;
    }
    return 0;
}

static int pmi2_put(const char *key, const char *value)
{
    char body[BOOT_LINE_MAX];
    int n = snprintf(body, sizeof body, "cmd=kvs-put;key=%s;value=%s;", key, value);
    if (n < 0 || (size_t)n >= sizeof body) {
        boot_set_error("put of key '%.64s': message too long", key);
        return -1;
    }
    return pmi2_call(body, "kvs-put-response", -1);
}

static int pmi2_fence(void)
{
    return pmi2_call("cmd=kvs-fence;", "kvs-fence-response", -1);
}

static int pmi2_get(int rank, const char *key, char *value, size_t len)
{
    (void)rank; /* keys are global in this KVS */
    char body[BOOT_LINE_MAX];
    int n = snprintf(body, sizeof body, "cmd=kvs-get;jobid=;srcid=-1;key=%s;", key);
    if (n < 0 || (size_t)n >= sizeof body) {
        boot_set_error("get of key '%.64s': message too long", key);
        return -1;
    }
    if (pmi2_call(body, "kvs-get-response", -1) != 0)
        return -1;
    char found[16] = "";
    (void)boot_field(pmi2_msg, ';', "found", found, sizeof found);
    if (strcmp(found, "TRUE") != 0) {
        boot_set_error("key '%.64s' not found", key);
        return -1;
    }
    if (boot_field(pmi2_msg, ';', "value", value, len) != 0) {
        boot_set_error("get of key '%.64s': value missing or longer than %zu bytes", key, len - 1);
        return -1;
    }
    return 0;
}

static int pmi2_finalize(void)
{
    int rc = pmi2_call("cmd=finalize;", "finalize-response", -1);
    close(pmi2_conn->fd);
    pmi2_conn->fd = -1;
    return rc;
}

static void pmi2_abort(int code, const char *msg)
{
    char body[512], frame[600];
    (void)code; /* PMI-2 abort carries no exit code; the launcher sees our exit status */
    snprintf(body, sizeof body, "cmd=abort;isworld=TRUE;msg=%.400s;", msg && *msg ? msg : "MPI_Abort");
    for (char *p = body + strlen("cmd=abort;isworld=TRUE;msg="); *p && p[1]; p++)
        if (*p == ';' || *p == '\n')
            *p = ' ';
    int n = snprintf(frame, sizeof frame, "%-6zu%s", strlen(body), body);
    (void)bootio_send(pmi2_conn, frame, (size_t)n);
}

int boot_pmi2_init(boot_conn *c, boot_info *info, char *kvsname, size_t kvslen, boot_backend *be, int pmiid)
{
    pmi2_conn = c;
    const char *line = "cmd=init pmi_version=2 pmi_subversion=0\n";
    if (bootio_send(c, line, strlen(line)) != 0)
        return -1;
    if (bootio_read_line(c, pmi2_msg, sizeof pmi2_msg, BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
        return -1;
    char cmd[64];
    int rc = 0, ver = 0;
    if (boot_field(pmi2_msg, ' ', "cmd", cmd, sizeof cmd) != 0 || strcmp(cmd, "response_to_init") != 0) {
        boot_set_error("launcher sent '%.200s' in reply to init (expected response_to_init)", pmi2_msg);
        return -1;
    }
    if ((boot_field_int(pmi2_msg, ' ', "rc", &rc) == 0 && rc != 0) ||
        (boot_field_int(pmi2_msg, ' ', "pmi_version", &ver) == 0 && ver != 2)) {
        boot_set_error("launcher does not speak PMI-2 (replied '%.200s'); unset CREDO_PMI", pmi2_msg);
        return -1;
    }

    char body[512];
    const char *jobid = getenv("PMI_JOBID");
    if (jobid && !*jobid)
        jobid = NULL;
    if (pmiid < 0)
        snprintf(body, sizeof body, "cmd=fullinit;pmirank=%d;%s%s%sthreaded=FALSE;", info->rank,
                 jobid ? "pmijobid=" : "", jobid ? jobid : "", jobid ? ";" : "");
    else
        snprintf(body, sizeof body, "cmd=fullinit;pmiid=%d;threaded=FALSE;", pmiid);
    /* Slurm answers rc=3 when pmijobid is missing but carries on, so rc is checked by hand. */
    if (pmi2_call(body, "fullinit-response", BOOT_HANDSHAKE_TIMEOUT_MS) != 0 &&
        strstr(boot_last_error(), "fullinit-response with rc=") == NULL)
        return -1;
    int v;
    if (boot_field_int(pmi2_msg, ';', "rank", &v) == 0)
        info->rank = v;
    if (boot_field_int(pmi2_msg, ';', "size", &v) == 0)
        info->size = v;
    if (boot_field_int(pmi2_msg, ';', "appnum", &v) == 0)
        info->appnum = v;
    if (info->size <= 0) {
        boot_set_error("launcher's fullinit-response has no size: '%.200s'", pmi2_msg);
        return -1;
    }
    if (pmi2_call("cmd=job-getid;", "job-getid-response", BOOT_HANDSHAKE_TIMEOUT_MS) != 0)
        return -1;
    if (boot_field(pmi2_msg, ';', "jobid", kvsname, kvslen) != 0 || !kvsname[0]) {
        boot_set_error("launcher's job-getid-response has no jobid: '%.200s'", pmi2_msg);
        return -1;
    }
    /* PMI-2 servers hold values up to 1024 bytes and keys up to 64 (PMI2_MAX_VALLEN/KEYLEN),
     * terminating NUL included. */
    be->keylen_max = 63;
    be->vallen_max = 1023;
    be->put = pmi2_put;
    be->fence = pmi2_fence;
    be->get = pmi2_get;
    be->finalize = pmi2_finalize;
    be->abort = pmi2_abort;
    return 0;
}
