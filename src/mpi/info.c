/* src/mpi/info.c — MPI_Info objects (ordered key/value string lists), the predefined MPI_INFO_ENV,
 * and the communicator hints kept by MPI_Comm_set_info/MPI_Comm_get_info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/mpi_impl.h"

#define INFO_MAGIC 0x496e666fu

typedef struct info_entry {
    char *key, *val;
} info_entry;

/* Keys keep the order they were first set in, so get_nthkey enumerates them in a stable order
 * (the standard leaves the order open). Lists are short: linear search. */
struct credo_info {
    uint32_t magic;
    int predefined;
    int n, cap;
    info_entry *e;
};

/* MPI_INFO_ENV may be empty (MPI-3.1 §8.10); credo's launcher passes nothing worth reporting. */
struct credo_info credo_info_env = {.magic = INFO_MAGIC, .predefined = 1};

int mpi_info_ok(MPI_Info info)
{
    return mpi_handle_live(info, HK_INFO) && info->magic == INFO_MAGIC;
}

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->e[i].key, key) == 0)
            return i;
    return -1;
}

static void info_free(MPI_Info info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->e[i].key);
        free(info->e[i].val);
    }
    free(info->e);
    info->magic = DEAD_MAGIC;
    mpi_handle_del(info);
    free(info);
}

void mpi_info_release(MPI_Info info)
{
    if (info != NULL && !info->predefined)
        info_free(info);
}

/* 0 or MPI_ERR_NO_MEM; *out is a new object (never predefined). */
int mpi_info_dup(MPI_Info in, MPI_Info *out)
{
    struct credo_info *c = calloc(1, sizeof *c);
    if (c == NULL)
        return MPI_ERR_NO_MEM;
    c->magic = INFO_MAGIC;
    mpi_handle_add(c, HK_INFO);
    int n = in != NULL ? in->n : 0;
    c->e = calloc((size_t)(n ? n : 1), sizeof *c->e);
    if (c->e == NULL) {
        free(c);
        return MPI_ERR_NO_MEM;
    }
    c->cap = n ? n : 1;
    for (int i = 0; i < n; i++) {
        c->e[i].key = strdup(in->e[i].key);
        c->e[i].val = strdup(in->e[i].val);
        c->n = i + 1;
        if (c->e[i].key == NULL || c->e[i].val == NULL) {
            info_free(c);
            return MPI_ERR_NO_MEM;
        }
    }
    *out = c;
    return MPI_SUCCESS;
}

/* Sets key to a copy of value (replacing an old value, or appended so keys keep their first-set
 * order): 0 or MPI_ERR_NO_MEM, info unchanged on failure. Keys and values are checked already. */
static int info_put(MPI_Info info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (v == NULL)
        return MPI_ERR_NO_MEM;
    int i = find(info, key);
    if (i >= 0) {
        free(info->e[i].val);
        info->e[i].val = v;
        return MPI_SUCCESS;
    }
    if (info->n == info->cap) {
        info_entry *e = realloc(info->e, (size_t)info->cap * 2 * sizeof *e);
        if (e == NULL) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        info->e = e;
        info->cap *= 2;
    }
    char *k = strdup(key);
    if (k == NULL) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    info->e[info->n++] = (info_entry){k, v};
    return MPI_SUCCESS;
}

/* Info objects need no initialized library: MPI 4.0 (§9.1) allows every MPI_Info_* call before
 * MPI_Init and after MPI_Finalize, so none checks MPI_READY (errors then go to the default
 * handler, which is fatal). */
#define INFO_CHECK(fn, info)                                                                       \
    do {                                                                                           \
        if (!mpi_info_ok(info))                                                                    \
            return mpi_error(NULL, MPI_ERR_INFO, fn, "invalid info object");                       \
    } while (0)

/* Keys are 1 to MPI_MAX_INFO_KEY - 1 characters (the C string fits in MPI_MAX_INFO_KEY bytes). */
static int key_check(const char *fn, const char *key)
{
    if (key == NULL)
        return mpi_error(NULL, MPI_ERR_INFO_KEY, fn, "key is NULL");
    size_t n = strnlen(key, MPI_MAX_INFO_KEY);
    if (n == 0 || n >= MPI_MAX_INFO_KEY)
        return mpi_error(NULL, MPI_ERR_INFO_KEY, fn, "key %s (at most %d characters)",
                         n == 0 ? "is empty" : "is too long", MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

/* A live info object and a valid key: what every call naming a key checks first. */
#define INFO_KEY_CHECK(fn, info, key)                                                              \
    do {                                                                                           \
        INFO_CHECK(fn, info);                                                                      \
        int key_rc_ = key_check(fn, key);                                                          \
        if (key_rc_ != MPI_SUCCESS)                                                                \
            return key_rc_;                                                                        \
    } while (0)

int MPI_Info_create(MPI_Info *info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_create";
    if (info == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "info is NULL");
    if (mpi_info_dup(NULL, info) != MPI_SUCCESS)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_set";
    INFO_KEY_CHECK(fn, info, key);
    /* MPI_INFO_ENV describes how the job was started: credo keeps it read-only. */
    if (info->predefined)
        return mpi_error(NULL, MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be changed");
    if (value == NULL)
        return mpi_error(NULL, MPI_ERR_INFO_VALUE, fn, "value is NULL");
    size_t vn = strnlen(value, MPI_MAX_INFO_VAL);
    if (vn >= MPI_MAX_INFO_VAL)
        return mpi_error(NULL, MPI_ERR_INFO_VALUE, fn, "value longer than %d characters",
                         MPI_MAX_INFO_VAL - 1);
    if (info_put(info, key, value) != MPI_SUCCESS)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_delete";
    INFO_KEY_CHECK(fn, info, key);
    if (info->predefined)
        return mpi_error(NULL, MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be changed");
    int i = find(info, key);
    if (i < 0)
        return mpi_error(NULL, MPI_ERR_INFO_NOKEY, fn, "key \"%s\" is not set", key);
    free(info->e[i].key);
    free(info->e[i].val);
    memmove(&info->e[i], &info->e[i + 1], (size_t)(info->n - i - 1) * sizeof *info->e);
    info->n--;
    return MPI_SUCCESS;
}

/* MPI-3 form: valuelen is the number of characters value can take besides the terminating NUL;
 * a longer value is cut to valuelen characters and still terminated (value[valuelen] = '\0'). */
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_get";
    INFO_KEY_CHECK(fn, info, key);
    if (valuelen < 0 || flag == NULL || (value == NULL && valuelen > 0))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid value buffer or flag");
    int i = find(info, key);
    *flag = i >= 0;
    if (i < 0 || value == NULL)
        return MPI_SUCCESS;
    size_t n = strlen(info->e[i].val);
    if (n > (size_t)valuelen)
        n = (size_t)valuelen;
    memcpy(value, info->e[i].val, n);
    value[n] = '\0';
    return MPI_SUCCESS;
}

/* MPI 4.0: *buflen in: the buffer's size; out: the value's length plus its terminator. A value
 * longer than the buffer is cut to buflen - 1 characters and terminated; buflen 0 only asks for
 * the length (value untouched). */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_get_string";
    INFO_KEY_CHECK(fn, info, key);
    if (buflen == NULL || flag == NULL || *buflen < 0 || (value == NULL && *buflen > 0))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid value buffer, length or flag");
    int i = find(info, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    size_t n = strlen(info->e[i].val);
    if (*buflen > 0) {
        size_t c = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
        memcpy(value, info->e[i].val, c);
        value[c] = '\0';
    }
    *buflen = (int)n + 1;
    return MPI_SUCCESS;
}

/* MPI 4.0 §11.2.2: the keys MPI_INFO_ENV may hold, for a program started with argc/argv; callable
 * before MPI_Init. Keys credo has no value for (soft, arch, file) are left out. maxprocs is the
 * job's size: the launcher's PMI_SIZE before MPI_Init, the same number after it. */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_create_env";
    if (info == NULL || argc < 0 || (argc > 0 && argv == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid argc/argv or info");
    MPI_Info e;
    if (mpi_info_dup(NULL, &e) != MPI_SUCCESS)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = MPI_SUCCESS;
    char buf[4096];
    if (argc > 0 && argv[0] != NULL)
        rc = info_put(e, "command", argv[0]);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 1; i < argc && argv[i] != NULL && len < sizeof buf - 1; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i > 1 ? " " : "", argv[i]);
    if (rc == MPI_SUCCESS && argc > 1)
        rc = info_put(e, "argv", buf);
    const char *np = getenv("PMI_SIZE");
    if (MPI_READY())
        snprintf(buf, sizeof buf, "%d", credo_mpi.job_size);
    else
        snprintf(buf, sizeof buf, "%s", np != NULL && *np ? np : "1");
    if (rc == MPI_SUCCESS)
        rc = info_put(e, "maxprocs", buf);
    if (rc == MPI_SUCCESS && gethostname(buf, sizeof buf - 1) == 0) {
        buf[sizeof buf - 1] = '\0';
        rc = info_put(e, "host", buf);
    }
    if (rc == MPI_SUCCESS && getcwd(buf, sizeof buf) != NULL)
        rc = info_put(e, "wdir", buf);
    if (rc == MPI_SUCCESS)
        rc = info_put(e, "thread_level", "MPI_THREAD_MULTIPLE");
    if (rc != MPI_SUCCESS) {
        info_free(e);
        return mpi_error(NULL, rc, fn, "out of memory");
    }
    *info = e;
    return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_get_valuelen";
    INFO_KEY_CHECK(fn, info, key);
    if (valuelen == NULL || flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(info->e[i].val);
    return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_get_nkeys";
    INFO_CHECK(fn, info);
    if (nkeys == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "nkeys is NULL");
    *nkeys = info->n;
    return MPI_SUCCESS;
}

/* key must hold MPI_MAX_INFO_KEY bytes; every stored key fits. */
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_get_nthkey";
    INFO_CHECK(fn, info);
    if (key == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "key is NULL");
    if (n < 0 || n >= info->n)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "key number %d out of range (%d keys)", n,
                         info->n);
    strcpy(key, info->e[n].key);
    return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_dup";
    INFO_CHECK(fn, info);
    if (newinfo == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newinfo is NULL");
    if (mpi_info_dup(info, newinfo) != MPI_SUCCESS)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Info_free";
    if (info == NULL || !mpi_info_ok(*info))
        return mpi_error(NULL, MPI_ERR_INFO, fn, "invalid info object");
    if ((*info)->predefined)
        return mpi_error(NULL, MPI_ERR_INFO, fn, "cannot free MPI_INFO_ENV");
    info_free(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* ---- communicator hints ----
 * credo acts on no communicator hint, so it keeps every hint the user set (MPI-4.0's rule for
 * get_info; MPI-3.1 allows returning fewer) and hands back a copy. A key set again replaces the
 * old value; keys not named in a later set_info stay. */

/* Merges info into comm's hints: 0 or an MPI error class (not reported). */
int mpi_comm_hints_merge(MPI_Comm comm, MPI_Info info)
{
    if (info == MPI_INFO_NULL || info->n == 0)
        return MPI_SUCCESS;
    if (comm->info == NULL && mpi_info_dup(NULL, &comm->info) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    MPI_Info h = comm->info;
    for (int i = 0; i < info->n; i++)
        if (info_put(h, info->e[i].key, info->e[i].val) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_set_info";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    if (mpi_comm_hints_merge(comm, info) != MPI_SUCCESS)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_get_info";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (info_used == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "info_used is NULL");
    if (mpi_info_dup(comm->info, info_used) != MPI_SUCCESS)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Info_create)
CREDO_PMPI(MPI_Info_get_string)
CREDO_PMPI(MPI_Info_create_env)
CREDO_PMPI(MPI_Info_set)
CREDO_PMPI(MPI_Info_delete)
CREDO_PMPI(MPI_Info_get)
CREDO_PMPI(MPI_Info_get_valuelen)
CREDO_PMPI(MPI_Info_get_nkeys)
CREDO_PMPI(MPI_Info_get_nthkey)
CREDO_PMPI(MPI_Info_dup)
CREDO_PMPI(MPI_Info_free)
CREDO_PMPI(MPI_Comm_set_info)
CREDO_PMPI(MPI_Comm_get_info)
