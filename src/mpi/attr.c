/* src/mpi/attr.c — attribute caching on communicators: keyvals with their copy/delete callbacks,
 * set/get/delete, copying on dup, deleting on free and at MPI_Finalize, and the MPI-1 names. */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* User keyvals are numbered from KEYVAL_BASE up, never reused, so they cannot be mistaken for the
 * predefined keys (MPI_TAG_UB...) or for one another after a free. */
enum { KEYVAL_BASE = 64 };

typedef struct keyval {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    int refs;      /* the user's handle (until MPI_Comm_free_keyval) plus one per attribute */
    int freed;     /* MPI_Comm_free_keyval was called: the number is dead for the user */
} keyval;

/* One cached value. A communicator's list is newest first, so deleting from the head deletes in
 * the reverse order of setting (what libraries stacking finalize hooks on COMM_SELF expect). */
struct credo_attr {
    struct credo_attr *next;
    int keyval;
    void *val;
};

static keyval **kv_table;
static int kv_n, kv_cap;

/* The keyval behind a number still in use (handle or attributes), or NULL. */
static keyval *kv_get(int k)
{
    if (k < KEYVAL_BASE || k - KEYVAL_BASE >= kv_n)
        return NULL;
    return kv_table[k - KEYVAL_BASE];
}

/* The keyval the user may name: in use and not freed. */
static keyval *kv_user(int k)
{
    keyval *v = kv_get(k);
    return v != NULL && !v->freed ? v : NULL;
}

static void kv_unref(int k)
{
    keyval *v = kv_get(k);
    if (v != NULL && --v->refs == 0) {
        free(v);
        kv_table[k - KEYVAL_BASE] = NULL;
    }
}

static int is_predefined_key(int k)
{
    return k >= MPI_TAG_UB && k <= MPI_LASTUSEDCODE;
}

/* ---- the predefined callbacks ---- */

int credo_comm_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                            void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state, (void)attribute_val_in, (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int credo_comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                      void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int credo_comm_null_delete_fn(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state)
{
    (void)comm, (void)keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

/* ---- internal hooks (comm.c, comm_create.c, init.c) ---- */

/* Runs the copy callbacks of comm's attributes for its duplicate dup (oldest first, so dup's
 * list keeps the same order). 0 or the first callback's error; on error dup keeps what was copied
 * so far and the caller frees it through mpi_attr_delete_all. */
int mpi_attr_copy_all(MPI_Comm comm, MPI_Comm dup)
{
    int n = 0;
    for (struct credo_attr *a = comm->attrs; a != NULL; a = a->next)
        n++;
    if (n == 0)
        return MPI_SUCCESS;
    struct credo_attr **order = malloc((size_t)n * sizeof *order);
    if (order == NULL)
        return MPI_ERR_NO_MEM;
    int i = n;
    for (struct credo_attr *a = comm->attrs; a != NULL; a = a->next)
        order[--i] = a;
    int rc = MPI_SUCCESS;
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        keyval *v = kv_get(order[i]->keyval);
        void *out = NULL;
        int flag = 0;
        if (v->copy != NULL)
            rc = v->copy(comm, order[i]->keyval, v->extra, order[i]->val, &out, &flag);
        if (rc != MPI_SUCCESS || !flag)
            continue;
        struct credo_attr *c = malloc(sizeof *c);
        if (c == NULL) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        *c = (struct credo_attr){dup->attrs, order[i]->keyval, out};
        dup->attrs = c;
        v->refs++;
    }
    free(order);
    return rc;
}

/* Unlinks the attribute before its callback runs, so the callback may itself set or delete
 * attributes of comm. 0 or the callback's error. When the callback fails, keep_on_error puts the
 * attribute back (at the head of the list, unless the callback set the key anew), so a failed
 * MPI_Comm_delete_attr has no effect, as a failed MPI_Comm_set_attr keeps the old value; freeing
 * the communicator drops it either way, since keeping it would only call the callback again. */
static int attr_drop(MPI_Comm comm, struct credo_attr **link, int keep_on_error)
{
    struct credo_attr *a = *link;
    *link = a->next;
    keyval *v = kv_get(a->keyval);
    int rc = MPI_SUCCESS;
    if (v->del != NULL)
        rc = v->del(comm, a->keyval, a->val, v->extra);
    void *now;
    if (rc != MPI_SUCCESS && keep_on_error && !mpi_attr_lookup(comm, a->keyval, &now)) {
        a->next = comm->attrs;
        comm->attrs = a;
        return rc;
    }
    kv_unref(a->keyval);
    free(a);
    return rc;
}

/* Deletes every attribute of comm, newest first; returns the first callback error. */
int mpi_attr_delete_all(MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    while (comm->attrs != NULL) {
        int r = attr_drop(comm, &comm->attrs, 0);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

/* MPI_Finalize's first step (MPI-3.1 §8.7.1): COMM_SELF's attributes are deleted as if
 * COMM_SELF were freed, while MPI is still fully usable (MPI_Finalized says false). credo then
 * does the same for COMM_WORLD, which the standard does not require but which lets libraries
 * that cache on COMM_WORLD free their memory. */
int mpi_attr_finalize_comms(void)
{
    int rc = mpi_attr_delete_all(MPI_COMM_SELF);
    int rw = mpi_attr_delete_all(MPI_COMM_WORLD);
    return rc != MPI_SUCCESS ? rc : rw;
}

/* After the last MPI call: the keyval table (attributes of communicators the program never freed
 * are leaked with those communicators). */
void mpi_attr_finalize(void)
{
    for (int i = 0; i < kv_n; i++)
        free(kv_table[i]);
    free(kv_table);
    kv_table = NULL;
    kv_n = kv_cap = 0;
}

/* The user attribute behind (comm, keyval) for MPI_Comm_get_attr: 1 and *val if set. */
int mpi_attr_lookup(MPI_Comm comm, int k, void **val)
{
    for (struct credo_attr *a = comm->attrs; a != NULL; a = a->next)
        if (a->keyval == k) {
            *val = a->val;
            return 1;
        }
    return 0;
}

int mpi_attr_keyval_ok(int k)
{
    return kv_user(k) != NULL;
}

/* ---- bindings ---- */

#define READY_CHECK(fn)                                                                            \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
    } while (0)

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_create_keyval";
    READY_CHECK(fn);
    if (comm_keyval == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "comm_keyval is NULL");
    if (kv_n == kv_cap) {
        int cap = kv_cap ? 2 * kv_cap : 16;
        keyval **t = realloc(kv_table, (size_t)cap * sizeof *t);
        if (t == NULL)
            return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        kv_table = t;
        kv_cap = cap;
    }
    keyval *v = malloc(sizeof *v);
    if (v == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    /* NULL callbacks act as MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN. */
    *v = (keyval){comm_copy_attr_fn, comm_delete_attr_fn, extra_state, 1, 0};
    kv_table[kv_n] = v;
    *comm_keyval = KEYVAL_BASE + kv_n++;
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_free_keyval";
    READY_CHECK(fn);
    if (comm_keyval == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "comm_keyval is NULL");
    keyval *v = kv_user(*comm_keyval);
    if (v == NULL)
        return mpi_error(NULL, MPI_ERR_KEYVAL, fn, "invalid %s keyval %d",
                         is_predefined_key(*comm_keyval) ? "(predefined)" : "or freed",
                         *comm_keyval);
    /* Attributes still cached with it keep it (and their delete callback) alive. */
    v->freed = 1;
    kv_unref(*comm_keyval);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_set_attr";
    READY_CHECK(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    keyval *v = kv_user(comm_keyval);
    if (v == NULL)
        return mpi_error(comm, MPI_ERR_KEYVAL, fn, "%s keyval %d",
                         is_predefined_key(comm_keyval) ? "cannot set predefined"
                                                        : "invalid or freed",
                         comm_keyval);
    for (struct credo_attr *a = comm->attrs; a != NULL; a = a->next) {
        if (a->keyval != comm_keyval)
            continue;
        /* As if MPI_Comm_delete_attr ran first: the old value's delete callback, then the new
         * value in the same place. A failing callback leaves the old value. */
        int rc = v->del != NULL ? v->del(comm, comm_keyval, a->val, v->extra) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return mpi_error(comm, rc, fn, "delete callback of keyval %d failed (%d)",
                             comm_keyval, rc);
        /* The callback may have deleted this very attribute (freeing `a`) or other ones, or
         * freed the keyval: look again instead of writing through `a`. */
        for (struct credo_attr *b = comm->attrs; b != NULL; b = b->next)
            if (b->keyval == comm_keyval) {
                b->val = attribute_val;
                return MPI_SUCCESS;
            }
        if ((v = kv_user(comm_keyval)) == NULL)
            return mpi_error(comm, MPI_ERR_KEYVAL, fn, "keyval %d was freed by its delete callback",
                             comm_keyval);
        break; /* deleted by its callback: set it anew */
    }
    struct credo_attr *a = malloc(sizeof *a);
    if (a == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *a = (struct credo_attr){comm->attrs, comm_keyval, attribute_val};
    comm->attrs = a;
    v->refs++;
    return MPI_SUCCESS;
}

/* Deleting a key that is not set is not an error (nothing to delete; the standard names no error
 * for it and MPICH accepts it too). */
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_delete_attr";
    READY_CHECK(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    /* A freed keyval whose attributes are still cached is valid here: deleting them is how the
     * program releases those references (MPI 3.1 6.7.2, MPI_COMM_FREE_KEYVAL). */
    if (kv_get(comm_keyval) == NULL)
        return mpi_error(comm, MPI_ERR_KEYVAL, fn, "%s keyval %d",
                         is_predefined_key(comm_keyval) ? "cannot delete predefined"
                                                        : "invalid or freed",
                         comm_keyval);
    for (struct credo_attr **link = &comm->attrs; *link != NULL; link = &(*link)->next) {
        if ((*link)->keyval != comm_keyval)
            continue;
        int rc = attr_drop(comm, link, 1);
        if (rc != MPI_SUCCESS)
            return mpi_error(comm, rc, fn, "delete callback of keyval %d failed (%d)",
                             comm_keyval, rc);
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

/* ---- MPI-1 names (deprecated in MPI-2, removed in MPI-3 but still used by old libraries) ---- */

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state)
{
    return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}

CREDO_PMPI(MPI_Comm_create_keyval)
CREDO_PMPI(MPI_Comm_free_keyval)
CREDO_PMPI(MPI_Comm_set_attr)
CREDO_PMPI(MPI_Comm_delete_attr)
CREDO_PMPI(MPI_Keyval_create)
CREDO_PMPI(MPI_Keyval_free)
CREDO_PMPI(MPI_Attr_put)
CREDO_PMPI(MPI_Attr_get)
CREDO_PMPI(MPI_Attr_delete)
