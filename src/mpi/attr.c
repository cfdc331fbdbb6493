/* src/mpi/attr.c — attribute caching on communicators, datatypes and windows: keyvals with their
 * copy/delete callbacks, set/get/delete, copying on dup, deleting on free and at MPI_Finalize.
 * Values keep the language form they were set in (C pointer, Fortran INTEGER, Fortran
 * address-sized integer), so each language reads them as the standard says (attr.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi/attr.h"
#include "mpi/dt_build.h"
#include "mpi/mpi_impl.h"
#include "mpi/win_impl.h"

/* User keyvals are numbered from KEYVAL_BASE up, never reused, so they cannot be mistaken for the
 * predefined keys (MPI_TAG_UB..., MPI_WIN_BASE...) or for one another after a free. Communicator,
 * datatype and window keyvals share the numbering, so a keyval of one kind is recognised (and
 * refused) on the others. */
enum { KEYVAL_BASE = 64 };

enum kv_kind { KV_COMM, KV_TYPE, KV_WIN };

typedef struct keyval {
    enum kv_kind kind;
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra;
    enum attr_form lang; /* its callbacks' form: ATTR_C, or mpi_attr_keyval_fortran's */
    int refs;      /* the user's handle (until the free_keyval call) plus one per attribute */
    int freed;     /* the free_keyval call was made: the number is dead for the user */
} keyval;

/* An attribute value in one of the forms of attr.h. */
typedef union attr_val {
    void *ptr;     /* ATTR_C */
    MPI_Fint fint; /* ATTR_FINT */
    MPI_Aint aint; /* ATTR_FAINT */
} attr_val;

/* One cached value. An object's list is newest first, so deleting from the head deletes in the
 * reverse order of setting (what libraries stacking finalize hooks on COMM_SELF expect). A value
 * set from Fortran lives in `v` itself, which C's get calls point into. */
struct credo_attr {
    struct credo_attr *next;
    int keyval;
    enum attr_form form;
    attr_val v;
};

/* The value as C's get calls hand it out: the pointer C set, or a pointer to the integer Fortran
 * set (valid while the attribute stays cached). */
static void *attr_c(struct credo_attr *a)
{
    switch (a->form) {
    case ATTR_FINT: return &a->v.fint;
    case ATTR_FAINT: return &a->v.aint;
    default: return a->v.ptr;
    }
}

/* The value as Fortran's MPI-2 get calls give it: a C pointer's address, an INTEGER
 * sign-extended, an address-sized integer as it is. */
static MPI_Aint attr_aint(const struct credo_attr *a)
{
    switch (a->form) {
    case ATTR_FINT: return a->v.fint;
    case ATTR_FAINT: return a->v.aint;
    default: return (MPI_Aint)(intptr_t)a->v.ptr;
    }
}

static int attr_same_value(const struct credo_attr *a, const struct credo_attr *b)
{
    if (a->form != b->form)
        return 0;
    switch (a->form) {
    case ATTR_FINT: return a->v.fint == b->v.fint;
    case ATTR_FAINT: return a->v.aint == b->v.aint;
    default: return a->v.ptr == b->v.ptr;
    }
}

static keyval **kv_table;
static int kv_n, kv_cap;

/* The keyval behind a number still in use (handle or attributes), or NULL. */
static keyval *kv_get(int k)
{
    if (k < KEYVAL_BASE || k - KEYVAL_BASE >= kv_n)
        return NULL;
    return kv_table[k - KEYVAL_BASE];
}

/* The keyval of this kind the user may name: in use and not freed. */
static keyval *kv_user(int k, enum kv_kind kind)
{
    keyval *v = kv_get(k);
    return v != NULL && !v->freed && v->kind == kind ? v : NULL;
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

/* Why keyval k is not valid for an object of this kind (for the error messages). */
static const char *kv_why(int k, enum kv_kind kind)
{
    static const char *const kind_name[] = {"communicator", "datatype", "window"};
    static char why[64];
    keyval *v = kv_get(k);
    if (v != NULL && v->kind != kind) {
        snprintf(why, sizeof why, "is a %s keyval, not a %s one", kind_name[v->kind],
                 kind_name[kind]);
        return why;
    }
    if (kind == KV_WIN && k >= MPI_WIN_BASE && k <= MPI_WIN_MODEL)
        return "is predefined";
    if (is_predefined_key(k))
        return kind == KV_COMM ? "is predefined" : "is a predefined communicator key";
    return "is invalid or freed";
}

/* A NULL callback acts as the NULL_COPY_FN / NULL_DELETE_FN of its kind. `obj` is the MPI_Comm,
 * MPI_Datatype or MPI_Win the callback is called for. Windows are never duplicated, so their copy
 * callbacks are kept only to be named. */
static int kv_call_copy(const keyval *v, void *obj, int k, void *in, void *out, int *flag)
{
    if (v->kind == KV_COMM)
        return v->copy.comm != NULL ? v->copy.comm(obj, k, v->extra, in, out, flag) : MPI_SUCCESS;
    return v->copy.type != NULL ? v->copy.type(obj, k, v->extra, in, out, flag) : MPI_SUCCESS;
}

static int kv_call_delete(const keyval *v, void *obj, int k, void *val)
{
    switch (v->kind) {
    case KV_COMM:
        return v->del.comm != NULL ? v->del.comm(obj, k, val, v->extra) : MPI_SUCCESS;
    case KV_TYPE:
        return v->del.type != NULL ? v->del.type(obj, k, val, v->extra) : MPI_SUCCESS;
    default:
        return v->del.win != NULL ? v->del.win(obj, k, val, v->extra) : MPI_SUCCESS;
    }
}

/* Bumped by the predefined MPI_*_DUP_FN: a copy callback that called one and handed back the
 * value it was given copies the attribute as it is, in its own form (attr_call_copy). Counting
 * calls instead of comparing the callback's address also recognises the programs' own copies of
 * that address (a non-PIE program's canonical PLT address of credo_comm_dup_fn is not the one
 * libcredo sees) and callbacks that end by calling MPI_COMM_DUP_FN. */
static unsigned dup_fn_calls;

/* Runs v's copy callback for the attribute `a` of obj (a snapshot, attrs_copy) and, when it asks
 * for a copy (*flag), fills in the copy's form and value in *out. The callback gets the value in
 * its language's form (attr.h); a C callback given a Fortran value gets a pointer to `live`'s
 * integer (the attribute as obj still caches it, NULL if gone) while that still holds the
 * snapshot's value, else to the snapshot's. */
static int attr_call_copy(const keyval *v, void *obj, int k, struct credo_attr *a,
                          struct credo_attr *live, struct credo_attr *out, int *flag)
{
    union {
        void *ptr;
        MPI_Aint aint;
    } res = {NULL};
    MPI_Aint fval = attr_aint(a);
    struct credo_attr *src = live != NULL && attr_same_value(live, a) ? live : a;
    void *in = v->lang == ATTR_C ? attr_c(src) : &fval;
    unsigned dups = dup_fn_calls;
    *flag = 0;
    int rc = kv_call_copy(v, obj, k, in, &res, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    if (dup_fn_calls != dups && res.ptr == in) {
        out->form = a->form;
        out->v = a->v;
    } else if (v->lang == ATTR_C) {
        out->form = ATTR_C;
        out->v.ptr = res.ptr;
    } else if (v->lang == ATTR_FINT) {
        out->form = ATTR_FINT;
        out->v.fint = (MPI_Fint)res.aint; /* the MPI-1 procedure's INTEGER, sign-extended back */
    } else {
        out->form = ATTR_FAINT;
        out->v.aint = res.aint;
    }
    return MPI_SUCCESS;
}

/* Runs v's delete callback for attribute a of obj, the value in the callback's form. */
static int attr_call_delete(const keyval *v, void *obj, int k, struct credo_attr *a)
{
    MPI_Aint fval = attr_aint(a);
    return kv_call_delete(v, obj, k, v->lang == ATTR_C ? attr_c(a) : &fval);
}

/* Raises an attribute call's error through the handler of the object it is about: the window's
 * for a window keyval, else the communicator's (the world's for NULL, as for datatypes). */
static int attr_error(enum kv_kind kind, void *errobj, int code, const char *fn, const char *fmt,
                      ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kind == KV_WIN ? win_error(errobj, code, fn, "%s", msg)
                          : mpi_error(errobj, code, fn, "%s", msg);
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
    dup_fn_calls++;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int credo_comm_null_delete_fn(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state)
{
    (void)comm, (void)keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

int credo_type_null_copy_fn(MPI_Datatype oldtype, int keyval, void *extra_state,
                            void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldtype, (void)keyval, (void)extra_state, (void)attribute_val_in, (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int credo_type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra_state, void *attribute_val_in,
                      void *attribute_val_out, int *flag)
{
    (void)oldtype, (void)keyval, (void)extra_state;
    dup_fn_calls++;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int credo_type_null_delete_fn(MPI_Datatype datatype, int keyval, void *attribute_val,
                              void *extra_state)
{
    (void)datatype, (void)keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

int credo_win_null_copy_fn(MPI_Win oldwin, int keyval, void *extra_state, void *attribute_val_in,
                           void *attribute_val_out, int *flag)
{
    (void)oldwin, (void)keyval, (void)extra_state, (void)attribute_val_in, (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int credo_win_dup_fn(MPI_Win oldwin, int keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag)
{
    (void)oldwin, (void)keyval, (void)extra_state;
    dup_fn_calls++;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int credo_win_null_delete_fn(MPI_Win win, int keyval, void *attribute_val, void *extra_state)
{
    (void)win, (void)keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

/* ---- attribute lists, whatever object holds them ---- */

static struct credo_attr *attr_find(struct credo_attr *list, int k)
{
    for (struct credo_attr *a = list; a != NULL; a = a->next)
        if (a->keyval == k)
            return a;
    return NULL;
}

/* Runs the copy callbacks of the attributes in old's list *head and caches the results in *dst
 * (oldest first, so the copy's list keeps the same order). 0 or the first callback's error; on
 * error *dst keeps what was copied so far, for the caller to delete. The callbacks see a snapshot
 * of the keys and values, so one that deletes attributes of `old` harms nothing. */
static int attrs_copy(void *old, struct credo_attr *const *head, struct credo_attr **dst)
{
    struct credo_attr *list = *head;
    int n = 0;
    for (struct credo_attr *a = list; a != NULL; a = a->next)
        n++;
    if (n == 0)
        return MPI_SUCCESS;
    struct credo_attr *snap = malloc((size_t)n * sizeof *snap);
    if (snap == NULL)
        return MPI_ERR_NO_MEM;
    int i = n;
    for (struct credo_attr *a = list; a != NULL; a = a->next)
        snap[--i] = *a;
    int rc = MPI_SUCCESS;
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int k = snap[i].keyval;
        keyval *v = kv_get(k);
        struct credo_attr out = {NULL, k, ATTR_C, {NULL}};
        int flag = 0;
        if (v == NULL)
            continue; /* an earlier callback deleted the attribute and freed its keyval */
        v->refs++; /* the callback may free the keyval and delete the attribute */
        rc = attr_call_copy(v, old, k, &snap[i], attr_find(*head, k), &out, &flag);
        if (rc == MPI_SUCCESS && flag) {
            struct credo_attr *c = malloc(sizeof *c);
            if (c == NULL) {
                rc = MPI_ERR_NO_MEM;
            } else {
                out.next = *dst;
                *c = out;
                *dst = c;
                v->refs++;
            }
        }
        kv_unref(k);
    }
    free(snap);
    return rc;
}

/* Unlinks the attribute at *link of obj's list *head before its callback runs, so the callback
 * may itself set or delete attributes of obj. 0 or the callback's error. When the callback fails,
 * keep_on_error puts the attribute back (at the head of the list, unless the callback set the key
 * anew), so a failed delete_attr has no effect, as a failed set_attr keeps the old value; freeing
 * the object drops it either way, since keeping it would only call the callback again. */
static int attr_drop(void *obj, struct credo_attr **head, struct credo_attr **link,
                     int keep_on_error)
{
    struct credo_attr *a = *link;
    *link = a->next;
    int rc = attr_call_delete(kv_get(a->keyval), obj, a->keyval, a);
    if (rc != MPI_SUCCESS && keep_on_error && attr_find(*head, a->keyval) == NULL) {
        a->next = *head;
        *head = a;
        return rc;
    }
    kv_unref(a->keyval);
    free(a);
    return rc;
}

/* Deletes every attribute of obj, newest first; returns the first callback error. */
static int attrs_delete_all(void *obj, struct credo_attr **head)
{
    int rc = MPI_SUCCESS;
    while (*head != NULL) {
        int r = attr_drop(obj, head, head, 0);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

/* Drops a list without running callbacks (MPI_Finalize, objects already gone). */
static void attrs_discard(struct credo_attr *a)
{
    while (a != NULL) {
        struct credo_attr *next = a->next;
        kv_unref(a->keyval);
        free(a);
        a = next;
    }
}

/* set_attr of user keyval k (valid, of obj's kind) on obj's list *head, the value in `form`;
 * errors are raised as fn's through the handler of errobj (attr_error). */
static int attr_set(void *obj, struct credo_attr **head, int k, enum attr_form form, attr_val val,
                    const char *fn, void *errobj)
{
    keyval *v = kv_get(k);
    enum kv_kind kind = v->kind;
    struct credo_attr *a = attr_find(*head, k);
    if (a != NULL) {
        /* As if delete_attr ran first: the old value's delete callback, then the new value in the
         * same place. A failing callback leaves the old value. */
        int rc = attr_call_delete(v, obj, k, a);
        if (rc != MPI_SUCCESS)
            return attr_error(kind, errobj, rc, fn, "delete callback of keyval %d failed (%d)", k, rc);
        /* The callback may have deleted this very attribute (freeing `a`) or other ones, or
         * freed the keyval: look again instead of writing through `a`. */
        if ((a = attr_find(*head, k)) != NULL) {
            a->form = form;
            a->v = val;
            return MPI_SUCCESS;
        }
        if (kv_get(k) == NULL || kv_get(k)->freed)
            return attr_error(kind, errobj, MPI_ERR_KEYVAL, fn,
                              "keyval %d was freed by its delete callback", k);
        /* deleted by its callback: set it anew */
    }
    a = malloc(sizeof *a);
    if (a == NULL)
        return attr_error(kind, errobj, MPI_ERR_NO_MEM, fn, "out of memory");
    *a = (struct credo_attr){*head, k, form, val};
    *head = a;
    kv_get(k)->refs++;
    return MPI_SUCCESS;
}

/* delete_attr of keyval k on obj's list *head. Deleting a key that is not set is not an error
 * (nothing to delete; the standard names no error for it and MPICH accepts it too). */
static int attr_delete(void *obj, struct credo_attr **head, int k, const char *fn, void *errobj)
{
    enum kv_kind kind = kv_get(k)->kind;
    for (struct credo_attr **link = head; *link != NULL; link = &(*link)->next) {
        if ((*link)->keyval != k)
            continue;
        int rc = attr_drop(obj, head, link, 1);
        if (rc != MPI_SUCCESS)
            return attr_error(kind, errobj, rc, fn, "delete callback of keyval %d failed (%d)", k, rc);
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

/* ---- the datatypes' lists: a side table keyed by handle ----
 * struct credo_datatype has no room for a list (its layout is part of the ABI: the predefined
 * types are exported data), so a chained hash table maps a type to its entry. Entries are
 * allocated one by one and never move, so a list head stays valid while callbacks add or remove
 * other entries; one is removed when it holds nothing (outside callbacks) or its type dies. */

typedef struct type_entry {
    struct type_entry *next;   /* hash chain */
    MPI_Datatype dt;
    struct credo_attr *attrs;
    int extra;                 /* live handles MPI_Type_get_contents added beyond the first */
} type_entry;

static type_entry **tt_bucket;
static size_t tt_nbuckets, tt_count;
/* Callbacks running: entries are not removed meanwhile (an outer call may hold one). */
static int tt_busy;

static size_t tt_slot(MPI_Datatype dt, size_t nbuckets)
{
    uint64_t h = (uint64_t)(uintptr_t)dt * 0x9E3779B97F4A7C15u;
    return (size_t)(h >> 32) & (nbuckets - 1);
}

static type_entry *tt_find(MPI_Datatype dt)
{
    if (tt_count == 0)
        return NULL;
    for (type_entry *e = tt_bucket[tt_slot(dt, tt_nbuckets)]; e != NULL; e = e->next)
        if (e->dt == dt)
            return e;
    return NULL;
}

/* dt's entry, created if needed; NULL when out of memory. */
static type_entry *tt_get(MPI_Datatype dt)
{
    type_entry *e = tt_find(dt);
    if (e != NULL)
        return e;
    if (tt_count >= tt_nbuckets) {
        /* Load factor 1: double (the chains are relinked, the entries stay where they are). */
        size_t n = tt_nbuckets ? 2 * tt_nbuckets : 16;
        type_entry **b = calloc(n, sizeof *b);
        if (b == NULL)
            return NULL;
        for (size_t i = 0; i < tt_nbuckets; i++)
            while (tt_bucket[i] != NULL) {
                type_entry *m = tt_bucket[i];
                tt_bucket[i] = m->next;
                m->next = b[tt_slot(m->dt, n)];
                b[tt_slot(m->dt, n)] = m;
            }
        free(tt_bucket);
        tt_bucket = b;
        tt_nbuckets = n;
    }
    if ((e = calloc(1, sizeof *e)) == NULL)
        return NULL;
    e->dt = dt;
    size_t s = tt_slot(dt, tt_nbuckets);
    e->next = tt_bucket[s];
    tt_bucket[s] = e;
    tt_count++;
    return e;
}

static void tt_remove(type_entry *e)
{
    type_entry **link = &tt_bucket[tt_slot(e->dt, tt_nbuckets)];
    while (*link != e)
        link = &(*link)->next;
    *link = e->next;
    tt_count--;
    free(e);
}

/* Removes dt's entry if it holds nothing and no callback is running. */
static void tt_prune(MPI_Datatype dt)
{
    type_entry *e = tt_find(dt);
    if (e != NULL && e->attrs == NULL && e->extra == 0 && tt_busy == 0)
        tt_remove(e);
}

/* ---- internal hooks (comm.c, comm_create.c, intercomm.c, init.c; datatype*.c) ---- */

int mpi_attr_copy_all(MPI_Comm comm, MPI_Comm dup)
{
    return attrs_copy(comm, &comm->attrs, &dup->attrs);
}

int mpi_attr_delete_all(MPI_Comm comm)
{
    return attrs_delete_all(comm, &comm->attrs);
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

/* After the last MPI call: the datatypes' lists (no callbacks: the attributes of predefined types
 * and of derived types the program never freed go with the library) and the keyval table. */
void mpi_attr_finalize(void)
{
    for (size_t i = 0; i < tt_nbuckets; i++)
        while (tt_bucket[i] != NULL) {
            type_entry *e = tt_bucket[i];
            tt_bucket[i] = e->next;
            attrs_discard(e->attrs);
            free(e);
        }
    free(tt_bucket);
    tt_bucket = NULL;
    tt_nbuckets = tt_count = 0;
    for (int i = 0; i < kv_n; i++)
        free(kv_table[i]);
    free(kv_table);
    kv_table = NULL;
    kv_n = kv_cap = 0;
}

/* The user attribute behind (comm, keyval) for MPI_Comm_get_attr: 1 and *val (in C's form) if
 * set. */
int mpi_attr_lookup(MPI_Comm comm, int k, void **val)
{
    struct credo_attr *a = attr_find(comm->attrs, k);
    if (a != NULL)
        *val = attr_c(a);
    return a != NULL;
}

/* For MPI_Comm_get_attr: a live communicator keyval (a datatype keyval is not one). */
int mpi_attr_keyval_ok(int k)
{
    return kv_user(k, KV_COMM) != NULL;
}

int dt_attr_copy(MPI_Datatype old, MPI_Datatype dup)
{
    type_entry *from = tt_find(old);
    if (from == NULL || from->attrs == NULL)
        return MPI_SUCCESS;
    type_entry *to = tt_get(dup);
    if (to == NULL)
        return MPI_ERR_NO_MEM;
    tt_busy++;
    int rc = attrs_copy(old, &from->attrs, &to->attrs);
    tt_busy--;
    tt_prune(dup);
    return rc;
}

/* A handle is freed. While MPI_Type_get_contents handed out more handles to the same object, this
 * only drops one; the last one runs the delete callbacks (MPI 3.1 §6.7.4: on MPI_TYPE_FREE). */
int dt_attr_free(MPI_Datatype dt)
{
    if (dt->flags & DT_F_PREDEF)
        return MPI_SUCCESS; /* never freed: its handles are not counted */
    type_entry *e = tt_find(dt);
    if (e != NULL && e->extra > 0) {
        e->extra--;
        tt_prune(dt);
        return MPI_SUCCESS;
    }
    dt->flags |= DT_F_FREED;
    if (e == NULL)
        return MPI_SUCCESS;
    tt_busy++;
    int rc = attrs_delete_all(dt, &e->attrs);
    tt_busy--;
    tt_prune(dt);
    return rc;
}

int dt_attr_handle_add(MPI_Datatype dt)
{
    if (dt->flags & DT_F_PREDEF)
        return MPI_SUCCESS;
    if (dt->flags & DT_F_FREED) {
        /* every earlier handle was freed: this one is the only live handle */
        dt->flags &= (uint16_t)~DT_F_FREED;
        return MPI_SUCCESS;
    }
    type_entry *e = tt_get(dt);
    if (e == NULL)
        return MPI_ERR_NO_MEM;
    e->extra++;
    return MPI_SUCCESS;
}

void dt_attr_forget(MPI_Datatype dt)
{
    type_entry *e = tt_find(dt);
    if (e != NULL) {
        attrs_discard(e->attrs);
        tt_remove(e);
    }
}

/* ---- bindings ---- */

#define READY_CHECK(fn)                                                                            \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
    } while (0)

/* Registers keyval v (callbacks, kind and extra state filled in by the binding) as *out. */
static int kv_create(keyval v, int *out, const char *fn)
{
    if (out == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "keyval pointer is NULL");
    if (kv_n == kv_cap) {
        int cap = kv_cap ? 2 * kv_cap : 16;
        keyval **t = realloc(kv_table, (size_t)cap * sizeof *t);
        if (t == NULL)
            return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        kv_table = t;
        kv_cap = cap;
    }
    keyval *p = malloc(sizeof *p);
    if (p == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *p = v;
    p->refs = 1;
    p->freed = 0;
    kv_table[kv_n] = p;
    *out = KEYVAL_BASE + kv_n++;
    return MPI_SUCCESS;
}

static int kv_free(enum kv_kind kind, int *k, const char *fn)
{
    if (k == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "keyval pointer is NULL");
    keyval *v = kv_user(*k, kind);
    if (v == NULL)
        return mpi_error(NULL, MPI_ERR_KEYVAL, fn, "keyval %d %s", *k, kv_why(*k, kind));
    /* Attributes still cached with it keep it (and their delete callback) alive. */
    v->freed = 1;
    kv_unref(*k);
    *k = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_create_keyval";
    READY_CHECK(fn);
    return kv_create((keyval){.kind = KV_COMM, .copy.comm = comm_copy_attr_fn,
                              .del.comm = comm_delete_attr_fn, .extra = extra_state},
                     comm_keyval, fn);
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_free_keyval";
    READY_CHECK(fn);
    return kv_free(KV_COMM, comm_keyval, fn);
}

/* MPI_Comm_set_attr, and Fortran's MPI_COMM_SET_ATTR and MPI_ATTR_PUT (mpi_attr_comm_fset). */
static int comm_set(MPI_Comm comm, int comm_keyval, enum attr_form form, attr_val val,
                    const char *fn)
{
    READY_CHECK(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (kv_user(comm_keyval, KV_COMM) == NULL)
        return mpi_error(comm, MPI_ERR_KEYVAL, fn, "keyval %d %s", comm_keyval,
                         is_predefined_key(comm_keyval) ? "is predefined: it cannot be set"
                                                        : kv_why(comm_keyval, KV_COMM));
    return attr_set(comm, &comm->attrs, comm_keyval, form, val, fn, comm);
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    MPI_ENTER();
    return comm_set(comm, comm_keyval, ATTR_C, (attr_val){.ptr = attribute_val},
                    "MPI_Comm_set_attr");
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_delete_attr";
    READY_CHECK(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    /* A freed keyval whose attributes are still cached is valid here: deleting them is how the
     * program releases those references (MPI 3.1 6.7.2, MPI_COMM_FREE_KEYVAL). */
    keyval *v = kv_get(comm_keyval);
    if (v == NULL || v->kind != KV_COMM)
        return mpi_error(comm, MPI_ERR_KEYVAL, fn, "keyval %d %s", comm_keyval,
                         is_predefined_key(comm_keyval) ? "is predefined: it cannot be deleted"
                                                        : kv_why(comm_keyval, KV_COMM));
    return attr_delete(comm, &comm->attrs, comm_keyval, fn, comm);
}

/* Datatype attributes (MPI 3.1 §6.7.4) work as the communicator ones. Predefined types take them
 * too; they are never freed, so their attributes stay until MPI_Finalize, which drops them
 * without calling the delete callbacks. Errors go to MPI_COMM_WORLD's handler. */

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_keyval";
    READY_CHECK(fn);
    return kv_create((keyval){.kind = KV_TYPE, .copy.type = type_copy_attr_fn,
                              .del.type = type_delete_attr_fn, .extra = extra_state},
                     type_keyval, fn);
}

int MPI_Type_free_keyval(int *type_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_free_keyval";
    READY_CHECK(fn);
    return kv_free(KV_TYPE, type_keyval, fn);
}

/* MPI_Type_set_attr, and Fortran's MPI_TYPE_SET_ATTR (mpi_attr_type_fset). */
static int type_set(MPI_Datatype datatype, int type_keyval, enum attr_form form, attr_val val)
{
    static const char fn[] = "MPI_Type_set_attr";
    READY_CHECK(fn);
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (kv_user(type_keyval, KV_TYPE) == NULL)
        return mpi_error(NULL, MPI_ERR_KEYVAL, fn, "keyval %d %s", type_keyval,
                         kv_why(type_keyval, KV_TYPE));
    type_entry *e = tt_get(datatype);
    if (e == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    tt_busy++;
    int rc = attr_set(datatype, &e->attrs, type_keyval, form, val, fn, NULL);
    tt_busy--;
    tt_prune(datatype);
    return rc;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    MPI_ENTER();
    return type_set(datatype, type_keyval, ATTR_C, (attr_val){.ptr = attribute_val});
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_get_attr";
    READY_CHECK(fn);
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (attribute_val == NULL || flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (kv_user(type_keyval, KV_TYPE) == NULL)
        return mpi_error(NULL, MPI_ERR_KEYVAL, fn, "keyval %d %s", type_keyval,
                         kv_why(type_keyval, KV_TYPE));
    type_entry *e = tt_find(datatype);
    struct credo_attr *a = e != NULL ? attr_find(e->attrs, type_keyval) : NULL;
    /* The value as C sees it (there are no predefined datatype keys). */
    if (a != NULL)
        *(void **)attribute_val = attr_c(a);
    *flag = a != NULL;
    return MPI_SUCCESS;
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_delete_attr";
    READY_CHECK(fn);
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    /* As for communicators, a freed keyval with attributes still cached is valid here. */
    keyval *v = kv_get(type_keyval);
    if (v == NULL || v->kind != KV_TYPE)
        return mpi_error(NULL, MPI_ERR_KEYVAL, fn, "keyval %d %s", type_keyval,
                         kv_why(type_keyval, KV_TYPE));
    type_entry *e = tt_find(datatype);
    if (e == NULL)
        return MPI_SUCCESS;
    tt_busy++;
    int rc = attr_delete(datatype, &e->attrs, type_keyval, fn, NULL);
    tt_busy--;
    tt_prune(datatype);
    return rc;
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


/* Window attributes (MPI 3.1 §6.7.3) work as the communicator ones; the five predefined keys
 * (MPI_WIN_BASE ... MPI_WIN_MODEL) are answered by the window itself (win_predefined_attr). */

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_create_keyval";
    READY_CHECK(fn);
    return kv_create((keyval){.kind = KV_WIN, .copy.win = win_copy_attr_fn,
                              .del.win = win_delete_attr_fn, .extra = extra_state},
                     win_keyval, fn);
}

int MPI_Win_free_keyval(int *win_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_free_keyval";
    READY_CHECK(fn);
    return kv_free(KV_WIN, win_keyval, fn);
}

/* MPI_Win_set_attr, and Fortran's MPI_WIN_SET_ATTR (mpi_attr_win_fset). */
static int win_set(MPI_Win win, int win_keyval, enum attr_form form, attr_val val)
{
    static const char fn[] = "MPI_Win_set_attr";
    WIN_CHECK(fn, win);
    if (kv_user(win_keyval, KV_WIN) == NULL)
        return win_error(win, MPI_ERR_KEYVAL, fn, "keyval %d %s", win_keyval,
                         kv_why(win_keyval, KV_WIN));
    return attr_set(win, &win->attrs, win_keyval, form, val, fn, win);
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    MPI_ENTER();
    return win_set(win, win_keyval, ATTR_C, (attr_val){.ptr = attribute_val});
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_get_attr";
    WIN_CHECK(fn, win);
    if (attribute_val == NULL || flag == NULL)
        return win_error(win, MPI_ERR_ARG, fn, "NULL argument");
    if ((*flag = win_predefined_attr(win, win_keyval, attribute_val)))
        return MPI_SUCCESS;
    if (kv_user(win_keyval, KV_WIN) == NULL)
        return win_error(win, MPI_ERR_KEYVAL, fn, "keyval %d %s", win_keyval,
                         kv_why(win_keyval, KV_WIN));
    struct credo_attr *a = attr_find(win->attrs, win_keyval);
    if (a != NULL)
        *(void **)attribute_val = attr_c(a);
    *flag = a != NULL;
    return MPI_SUCCESS;
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_delete_attr";
    WIN_CHECK(fn, win);
    /* As for communicators, a freed keyval with attributes still cached is valid here. */
    keyval *v = kv_get(win_keyval);
    if (v == NULL || v->kind != KV_WIN)
        return win_error(win, MPI_ERR_KEYVAL, fn, "keyval %d %s", win_keyval,
                         kv_why(win_keyval, KV_WIN));
    return attr_delete(win, &win->attrs, win_keyval, fn, win);
}

/* MPI_Win_free's: every attribute's delete callback, newest first; the first failure. */
int mpi_attr_win_free(MPI_Win win)
{
    return attrs_delete_all(win, &win->attrs);
}

/* ---- the Fortran forms (attr.h; the bindings are in src/fortran) ---- */

void mpi_attr_keyval_fortran(int k, enum attr_form form)
{
    keyval *v = kv_get(k);
    if (v != NULL)
        v->lang = form;
}

int mpi_attr_comm_fset(MPI_Comm comm, int k, enum attr_form form, MPI_Aint val)
{
    MPI_ENTER();
    if (form == ATTR_FINT)
        return comm_set(comm, k, ATTR_FINT, (attr_val){.fint = (MPI_Fint)val}, "MPI_Attr_put");
    return comm_set(comm, k, ATTR_FAINT, (attr_val){.aint = val}, "MPI_Comm_set_attr");
}

int mpi_attr_type_fset(MPI_Datatype dt, int k, MPI_Aint val)
{
    MPI_ENTER();
    return type_set(dt, k, ATTR_FAINT, (attr_val){.aint = val});
}

int mpi_attr_win_fset(MPI_Win win, int k, MPI_Aint val)
{
    MPI_ENTER();
    return win_set(win, k, ATTR_FAINT, (attr_val){.aint = val});
}

/* The C get call checks the arguments and answers the predefined keys (as pointers to int: the
 * value is the Fortran one); a user key's value is then read in its own form. */
int mpi_attr_comm_fget(MPI_Comm comm, int k, MPI_Aint *val, int *flag)
{
    MPI_ENTER();
    void *p = NULL;
    *flag = 0;
    int rc = PMPI_Comm_get_attr(comm, k, &p, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    if (is_predefined_key(k)) {
        *val = *(const int *)p;
    } else {
        struct credo_attr *a = attr_find(comm->attrs, k);
        *val = a != NULL ? attr_aint(a) : (MPI_Aint)(intptr_t)p;
    }
    return MPI_SUCCESS;
}

int mpi_attr_type_fget(MPI_Datatype dt, int k, MPI_Aint *val, int *flag)
{
    MPI_ENTER();
    void *p = NULL;
    *flag = 0;
    int rc = PMPI_Type_get_attr(dt, k, &p, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    type_entry *e = tt_find(dt);
    struct credo_attr *a = e != NULL ? attr_find(e->attrs, k) : NULL;
    *val = a != NULL ? attr_aint(a) : (MPI_Aint)(intptr_t)p;
    return MPI_SUCCESS;
}

/* C gets MPI_WIN_BASE as the address itself, MPI_WIN_SIZE as a pointer to an MPI_Aint and the
 * other predefined keys as pointers to int (win.c, win_predefined_attr). */
int mpi_attr_win_fget(MPI_Win win, int k, MPI_Aint *val, int *flag)
{
    MPI_ENTER();
    void *p = NULL;
    *flag = 0;
    int rc = MPI_Win_get_attr(win, k, &p, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    switch (k) {
    case MPI_WIN_BASE: *val = (MPI_Aint)(intptr_t)p; break;
    case MPI_WIN_SIZE: *val = *(const MPI_Aint *)p; break;
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL: *val = *(const int *)p; break;
    default: {
        struct credo_attr *a = attr_find(win->attrs, k);
        *val = a != NULL ? attr_aint(a) : (MPI_Aint)(intptr_t)p;
        break;
    }
    }
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Comm_create_keyval)
CREDO_PMPI(MPI_Comm_free_keyval)
CREDO_PMPI(MPI_Comm_set_attr)
CREDO_PMPI(MPI_Comm_delete_attr)
CREDO_PMPI(MPI_Type_create_keyval)
CREDO_PMPI(MPI_Type_free_keyval)
CREDO_PMPI(MPI_Type_set_attr)
CREDO_PMPI(MPI_Type_get_attr)
CREDO_PMPI(MPI_Type_delete_attr)
CREDO_PMPI(MPI_Keyval_create)
CREDO_PMPI(MPI_Keyval_free)
CREDO_PMPI(MPI_Attr_put)
CREDO_PMPI(MPI_Attr_get)
CREDO_PMPI(MPI_Attr_delete)
CREDO_PMPI(MPI_Win_create_keyval)
CREDO_PMPI(MPI_Win_free_keyval)
CREDO_PMPI(MPI_Win_set_attr)
CREDO_PMPI(MPI_Win_get_attr)
CREDO_PMPI(MPI_Win_delete_attr)
