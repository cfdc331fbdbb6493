/* src/boot/boot.c — picks the bootstrap backend from the environment (PMI_FD, PMI_PORT, CREDO_PMI,
 * PMIX_NAMESPACE, or none = singleton), derives the job id, validates keys and values, and owns the
 * boot state. */
#include "boot.h"
#include "boot_internal.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

enum boot_state { BOOT_NONE, BOOT_UP, BOOT_DOWN };

static int boot_state = BOOT_NONE;
static boot_conn boot_link = {.fd = -1};
static boot_backend boot_be;
static boot_info boot_me;

/* Singleton KVS: what this lone rank put, so its own gets succeed. */
typedef struct single_kv {
    struct single_kv *next;
    char *key, *value;
} single_kv;
static single_kv *single_kvs;

static int single_put(const char *key, const char *value)
{
    for (single_kv *kv = single_kvs; kv; kv = kv->next)
        if (strcmp(kv->key, key) == 0) {
            char *v = strdup(value);
            if (!v)
                goto oom;
            free(kv->value);
            kv->value = v;
            return 0;
        }
    single_kv *kv = calloc(1, sizeof *kv);
    if (!kv || !(kv->key = strdup(key)) || !(kv->value = strdup(value))) {
        if (kv)
            free(kv->key);
        free(kv);
        goto oom;
    }
    kv->next = single_kvs;
    single_kvs = kv;
    return 0;
oom:
    boot_set_error("out of memory storing key '%.64s'", key);
    return -1;
}

static int single_fence(void)
{
    return 0;
}

static int single_get(int rank, const char *key, char *value, size_t len)
{
    (void)rank; /* keys are global in this KVS */
    for (single_kv *kv = single_kvs; kv; kv = kv->next)
        if (strcmp(kv->key, key) == 0) {
            if (strlen(kv->value) >= len) {
                boot_set_error("value of key '%.64s' does not fit in %zu bytes", key, len);
                return -1;
            }
            strcpy(value, kv->value);
            return 0;
        }
    boot_set_error("key '%.64s' not found", key);
    return -1;
}

static int single_finalize(void)
{
    while (single_kvs) {
        single_kv *kv = single_kvs;
        single_kvs = kv->next;
        free(kv->key);
        free(kv->value);
        free(kv);
    }
    return 0;
}

static void single_abort(int code, const char *msg)
{
    (void)code;
    (void)msg;
}

void boot_sanitize_jobid(const char *kvsname, char *jobid, size_t len)
{
    size_t n = 0;
    size_t max = len - 1 < BOOT_JOBID_MAX ? len - 1 : BOOT_JOBID_MAX;
    for (const char *p = kvsname; *p && n < max; p++) {
        char ch = *p;
        int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '-';
        jobid[n++] = ok ? ch : '_';
    }
    jobid[n] = '\0';
}

/* An empty variable counts as unset: "PMI_FD=" is how some wrappers clear it. */
static const char *env(const char *name)
{
    const char *s = getenv(name);
    return s && *s ? s : NULL;
}

static int parse_env_int(const char *name, int *out, int min)
{
    const char *s = env(name);
    if (!s)
        return 1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > 1 << 30) {
        boot_set_error("%s='%.40s' is not a valid number", name, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int connect_pmi_port(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        boot_set_error("PMI_PORT='%.100s' is not host:port", hostport);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0) {
        boot_set_error("PMI_PORT='%.100s': %s", hostport, gai_strerror(rc));
        return -1;
    }
    int fd = -1, err = 0;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int r;
        do
            r = connect(fd, ai->ai_addr, ai->ai_addrlen);
        while (r < 0 && errno == EINTR);
        if (r == 0)
            break;
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        boot_set_error("cannot connect to the launcher at PMI_PORT=%.100s: %s", hostport, strerror(err));
    return fd;
}

int boot_init(boot_info *out, char *err, size_t errlen)
{
    if (boot_state == BOOT_UP) {
        *out = boot_me;
        return 0;
    }
    memset(&boot_me, 0, sizeof boot_me);
    memset(&boot_be, 0, sizeof boot_be);
    boot_link.fd = -1;
    boot_link.have = 0;

    const char *fd_env = env("PMI_FD");
    const char *port_env = env("PMI_PORT");
    const char *which = env("CREDO_PMI");
    int version = 1;
    if (which && *which) {
        if (strcmp(which, "1") == 0)
            version = 1;
        else if (strcmp(which, "2") == 0)
            version = 2;
        else {
            boot_set_error("CREDO_PMI='%.40s': expected 1 or 2", which);
            goto fail;
        }
    }

    char kvsname[300] = "";
    if (!fd_env && !port_env && env("PMIX_NAMESPACE")) {
        /* A PMIx launcher: Open MPI's mpirun, srun --mpi=pmix, prterun. PMI_FD or PMI_PORT win when
         * both are set (a PMI-1 launcher started from inside a PMIx job). */
#ifdef CREDO_HAVE_PMIX
        if (boot_pmix_init(&boot_me, kvsname, sizeof kvsname, &boot_be) != 0)
            goto fail;
        if (boot_me.size < 1 || boot_me.rank < 0 || boot_me.rank >= boot_me.size) {
            boot_set_error("PMIx gave rank %d of size %d", boot_me.rank, boot_me.size);
            goto fail;
        }
#else
        /* Running as N singletons would be silently wrong. */
        boot_set_error("started by a PMIx launcher (PMIX_NAMESPACE is set), but this credo was built "
                       "without PMIx support (no PMIx headers at configure time); launch with "
                       "credorun, mpiexec.hydra or srun --mpi=pmi2, or rebuild with libpmix-dev");
        goto fail;
#endif
    } else if (!fd_env && !port_env) {
        /* No launcher: a singleton run, e.g. ./a.out directly. */
        boot_me.rank = 0;
        boot_me.size = 1;
        boot_me.singleton = 1;
        snprintf(kvsname, sizeof kvsname, "single-%ld", (long)getpid());
        boot_be = (boot_backend){single_put, single_fence, single_get, single_finalize, single_abort,
                                 256, 1 << 20};
        /* srun without a PMI plugin (Slurm's MpiDefault=none) starts every task as a singleton: each
         * would run as rank 0 of 1. That may be meant (independent runs), so it is a warning. */
        int ntasks = 0, procid = -1;
        const char *nt = env("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
        if (parse_env_int(nt, &ntasks, 0) == 0 && ntasks > 1 && parse_env_int("SLURM_PROCID", &procid, 0) == 0)
            fprintf(stderr, "credo: warning: task %d of a %d-task Slurm step runs as a singleton (rank 0 of "
                            "1): srun starts the tasks as one MPI job only with --mpi=pmi2 or --mpi=pmix\n",
                    procid, ntasks);
    } else {
        boot_me.rank = -1;
        boot_me.size = -1;
        if (fd_env) {
            int fd = -1;
            if (parse_env_int("PMI_FD", &fd, 0) != 0)
                goto fail;
            struct stat st;
            if (fstat(fd, &st) != 0) {
                boot_set_error("PMI_FD=%d is not an open file descriptor (launcher did not pass it?)", fd);
                goto fail;
            }
            if (!S_ISSOCK(st.st_mode)) {
                boot_set_error("PMI_FD=%d is not a socket (stale PMI_FD in the environment?)", fd);
                goto fail;
            }
            boot_link.fd = fd;
        } else {
            if (!env("PMI_ID")) {
                boot_set_error("PMI_PORT is set but PMI_ID is not");
                goto fail;
            }
            boot_link.fd = connect_pmi_port(port_env);
            if (boot_link.fd < 0)
                goto fail;
        }
        int pmiid = -1;
        if (!fd_env && parse_env_int("PMI_ID", &pmiid, 0) < 0)
            goto fail;
        if (parse_env_int("PMI_RANK", &boot_me.rank, 0) < 0 || parse_env_int("PMI_SIZE", &boot_me.size, 1) < 0)
            goto fail;
        if (pmiid < 0 && boot_me.rank < 0) {
            boot_set_error("PMI_FD is set but PMI_RANK is not (launcher too old?)");
            goto fail;
        }
        int rc = version == 2 ? boot_pmi2_init(&boot_link, &boot_me, kvsname, sizeof kvsname, &boot_be, pmiid)
                              : boot_pmi1_init(&boot_link, &boot_me, kvsname, sizeof kvsname, &boot_be, pmiid);
        if (rc != 0)
            goto fail;
        if (boot_me.size < 1 || boot_me.rank < 0 || boot_me.rank >= boot_me.size) {
            boot_set_error("launcher gave rank %d of size %d (PMI_RANK/PMI_SIZE missing?)", boot_me.rank,
                           boot_me.size);
            goto fail;
        }
    }
    boot_sanitize_jobid(kvsname, boot_me.jobid, sizeof boot_me.jobid);
    boot_state = BOOT_UP;
    *out = boot_me;
    return 0;

fail:
    if (boot_link.fd >= 0 && port_env && !fd_env)
        close(boot_link.fd);
    boot_link.fd = -1;
    if (err && errlen)
        snprintf(err, errlen, "bootstrap: %s", boot_last_error());
    return -1;
}

/* Keys and values travel inside space- and ';'-separated wire messages, so those characters
 * (and newlines) would corrupt framing: reject them up front with a clear reason. */
static int check_token(const char *what, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 && what[0] == 'k') {
        boot_set_error("empty key");
        return -1;
    }
    if (n > max) {
        boot_set_error("%s of %zu bytes exceeds the launcher's limit of %zu", what, n, max);
        return -1;
    }
    size_t bad = strcspn(s, " ;\n\r\t");
    if (bad < n) {
        boot_set_error("%s '%.64s' contains a space, tab, newline or ';'", what, s);
        return -1;
    }
    return 0;
}

static int require_up(void)
{
    if (boot_state != BOOT_UP) {
        boot_set_error(boot_state == BOOT_NONE ? "boot_init was not called" : "bootstrap already finalized");
        return -1;
    }
    return 0;
}

int boot_put(const char *key, const char *value)
{
    if (require_up() || check_token("key", key, boot_be.keylen_max) ||
        check_token("value", value, boot_be.vallen_max))
        return -1;
    return boot_be.put(key, value);
}

int boot_fence(void)
{
    if (require_up())
        return -1;
    return boot_be.fence();
}

int boot_get(int rank, const char *key, char *value, size_t len)
{
    if (require_up() || check_token("key", key, boot_be.keylen_max))
        return -1;
    if (!value || len == 0) {
        boot_set_error("boot_get: no room for the value");
        return -1;
    }
    return boot_be.get(rank, key, value, len);
}

int boot_finalize(void)
{
    if (boot_state != BOOT_UP)
        return boot_state == BOOT_DOWN ? 0 : -1;
    int rc = boot_be.finalize();
    boot_state = BOOT_DOWN;
    return rc;
}

int boot_pmix_built(void)
{
#ifdef CREDO_HAVE_PMIX
    return 1;
#else
    return 0;
#endif
}

size_t boot_value_max(void)
{
    return boot_state == BOOT_UP ? boot_be.vallen_max : 0;
}

_Noreturn void boot_abort(int code, const char *msg)
{
    if (msg && *msg)
        fprintf(stderr, "credo: rank %d aborting: %s\n", boot_me.rank, msg);
    fflush(NULL);
    if (boot_state == BOOT_UP && boot_be.abort)
        boot_be.abort(code, msg);
    _exit(code);
}
