/* src/boot/boot_pmix.c — the PMIx client backend (Open MPI's mpirun, srun --mpi=pmix, prterun):
 * OpenPMIx's own client library, loaded with dlopen only when a PMIx launcher started the rank. */
#include "boot.h"
#include "boot_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* Why dlopen: libcredo depends on libc and pthreads only. Programs started by credorun, hydra or
 * Slurm's PMI-2 never need libpmix, and a machine without it runs them all the same; the headers
 * give the types (fixed by the PMIx standard's ABI), the library the functions. */
static struct {
    void *lib;
    pmix_status_t (*init)(pmix_proc_t *, pmix_info_t[], size_t);
    pmix_status_t (*finalize)(const pmix_info_t[], size_t);
    pmix_status_t (*abort)(int, const char[], pmix_proc_t[], size_t);
    pmix_status_t (*put)(pmix_scope_t, const char[], pmix_value_t *);
    pmix_status_t (*commit)(void);
    pmix_status_t (*fence)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t);
    pmix_status_t (*get)(const pmix_proc_t *, const char[], const pmix_info_t[], size_t, pmix_value_t **);
    void (*value_destruct)(pmix_value_t *);
    const char *(*error_string)(pmix_status_t);
} px;

static pmix_proc_t pmix_me;

/* The library's soname of OpenPMIx 2 to 5 (its ABI has kept the major number 2). */
#define PMIX_LIB "libpmix.so.2"

static const char *status_text(pmix_status_t rc)
{
    return px.error_string ? px.error_string(rc) : "PMIx error";
}

static int load_library(void)
{
    px.lib = dlopen(PMIX_LIB, RTLD_NOW | RTLD_GLOBAL);
    if (px.lib == NULL) {
        boot_set_error("started by a PMIx launcher (PMIX_NAMESPACE is set) but %s cannot be loaded: "
                       "%s (install the PMIx library, e.g. Debian's libpmix2, or launch with credorun, "
                       "mpiexec.hydra or srun --mpi=pmi2)",
                       PMIX_LIB, dlerror());
        return -1;
    }
#define SYM(field, name)                                                                            \
    do {                                                                                           \
        *(void **)&px.field = dlsym(px.lib, name);                                                 \
        if (px.field == NULL) {                                                                    \
            boot_set_error("%s has no %s (an older PMIx than credo needs?)", PMIX_LIB, name);     \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)
    SYM(init, "PMIx_Init");
    SYM(finalize, "PMIx_Finalize");
    SYM(abort, "PMIx_Abort");
    SYM(put, "PMIx_Put");
    SYM(commit, "PMIx_Commit");
    SYM(fence, "PMIx_Fence");
    SYM(get, "PMIx_Get");
    SYM(value_destruct, "PMIx_Value_destruct");
#undef SYM
    *(void **)&px.error_string = dlsym(px.lib, "PMIx_Error_string"); /* only for messages */
    return 0;
}

/* What the launcher holds under key for `rank` of our namespace (PMIX_RANK_WILDCARD: about the
 * job), or NULL with the error set; release() it. */
static pmix_value_t *fetch(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p = pmix_me;
    p.rank = rank;
    pmix_value_t *v = NULL;
    pmix_status_t rc = px.get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL) {
        boot_set_error("PMIx_Get(rank %d, %.64s): %s", (int)rank, key, status_text(rc));
        return NULL;
    }
    return v;
}

/* The library allocated it with malloc (PMIX_VALUE_RELEASE is destruct, then free). */
static void release(pmix_value_t *v)
{
    px.value_destruct(v);
    free(v);
}

static int get_u32(pmix_rank_t rank, const char *key, uint32_t *out)
{
    pmix_value_t *v = fetch(rank, key);
    if (v == NULL)
        return -1;
    int ok = 1;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_INT: *out = (uint32_t)v->data.integer; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_SIZE: *out = (uint32_t)v->data.size; break;
    default: ok = 0; break;
    }
    release(v);
    if (!ok) {
        boot_set_error("PMIx_Get(%s): not an integer", key);
        return -1;
    }
    return 0;
}

static int pmix_put(const char *key, const char *value)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)value; /* PMIx_Put copies it */
    pmix_status_t rc = px.put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        boot_set_error("PMIx_Put(%.64s): %s", key, status_text(rc));
        return -1;
    }
    return 0;
}

/* Commit, then a fence over the whole job that also collects what everybody put, so the gets
 * after it are local lookups rather than one request to the server each. */
static int pmix_fence(void)
{
    pmix_status_t rc = px.commit();
    if (rc != PMIX_SUCCESS) {
        boot_set_error("PMIx_Commit: %s", status_text(rc));
        return -1;
    }
    pmix_info_t collect;
    memset(&collect, 0, sizeof collect);
    snprintf(collect.key, sizeof collect.key, "%s", PMIX_COLLECT_DATA);
    collect.value.type = PMIX_BOOL;
    collect.value.data.flag = true;
    pmix_proc_t all = pmix_me;
    all.rank = PMIX_RANK_WILDCARD;
    if ((rc = px.fence(&all, 1, &collect, 1)) != PMIX_SUCCESS) {
        boot_set_error("PMIx_Fence: %s", status_text(rc));
        return -1;
    }
    return 0;
}

static int pmix_get(int rank, const char *key, char *value, size_t len)
{
    pmix_value_t *v = fetch((pmix_rank_t)rank, key);
    if (v == NULL)
        return -1;
    int r = 0;
    if (v->type != PMIX_STRING || v->data.string == NULL) {
        boot_set_error("PMIx_Get(rank %d, %.64s): not a string", rank, key);
        r = -1;
    } else if (strlen(v->data.string) >= len) {
        boot_set_error("value of key '%.64s' does not fit in %zu bytes", key, len);
        r = -1;
    } else {
        strcpy(value, v->data.string);
    }
    release(v);
    return r;
}

static int pmix_finalize(void)
{
    pmix_status_t rc = px.finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        boot_set_error("PMIx_Finalize: %s", status_text(rc));
        return -1;
    }
    return 0;
}

/* Aborts every process of our namespace (procs NULL: the whole job). */
static void pmix_abort(int code, const char *msg)
{
    (void)px.abort(code, msg ? msg : "credo: abort", NULL, 0);
}

int boot_pmix_init(boot_info *info, char *kvsname, size_t kvslen, boot_backend *be)
{
    if (load_library() != 0)
        return -1;
    pmix_status_t rc = px.init(&pmix_me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        boot_set_error("PMIx_Init: %s (is the launcher's PMIx server reachable?)", status_text(rc));
        return -1;
    }
    uint32_t size = 0, appnum = 0;
    if (get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) != 0)
        return -1;
    if (get_u32(pmix_me.rank, PMIX_APPNUM, &appnum) != 0)
        appnum = 0; /* optional: not every server sets it */
    info->rank = (int)pmix_me.rank;
    info->size = (int)size;
    info->appnum = (int)appnum;
    snprintf(kvsname, kvslen, "pmix-%s", pmix_me.nspace);
    *be = (boot_backend){pmix_put, pmix_fence, pmix_get, pmix_finalize, pmix_abort, PMIX_MAX_KEYLEN,
                         1 << 20};
    return 0;
}
