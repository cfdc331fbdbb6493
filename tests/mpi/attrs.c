/* tests/mpi/attrs.c — attribute caching: keyval copy/delete callbacks counted through dup,
 * dup_with_info, idup, free, set and delete_attr, the predefined callbacks and keys, MPI-1 names,
 * and MPI_COMM_SELF's attributes deleted first thing in MPI_Finalize (exit status 3 if not). np 4. */
#include "testutil.h"

typedef struct counts {
    int copies, deletes;
    intptr_t last_deleted;
    int fail_copy; /* the copy callback returns MPI_ERR_OTHER when set */
} counts;

static int expect_appnum; /* MPI_APPNUM this rank should see (--appnum A; 0 by default) */

static counts cnt;

/* Copies value v as v + 1, so a test can tell copies from originals. */
static int count_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag) {
    (void)old, (void)key;
    counts *c = extra;
    CHECK(c == &cnt, "copy callback got extra_state %p", extra);
    if (c->fail_copy)
        return MPI_ERR_OTHER;
    c->copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int key, void *val, void *extra) {
    (void)comm, (void)key;
    counts *c = extra;
    CHECK(c == &cnt, "delete callback got extra_state %p", extra);
    c->deletes++;
    c->last_deleted = (intptr_t)val;
    return MPI_SUCCESS;
}

static void expect_attr(MPI_Comm comm, int key, int set, intptr_t want, const char *what) {
    void *v = NULL;
    int flag = -1;
    MPI_OK(MPI_Comm_get_attr(comm, key, &v, &flag));
    CHECK(flag == set && (!set || (intptr_t)v == want), "%s: flag %d value %ld, expected %d %ld",
          what, flag, (long)(intptr_t)v, set, (long)want);
}

static void expect_counts(int copies, int deletes, const char *what) {
    CHECK(cnt.copies == copies && cnt.deletes == deletes,
          "%s: %d copies %d deletes, expected %d %d", what, cnt.copies, cnt.deletes, copies,
          deletes);
}

static void test_callbacks(void) {
    int k, knull, kdup;
    MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &k, &cnt));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CHECK(k != knull && k != kdup && knull != kdup && k != MPI_KEYVAL_INVALID, "keyvals %d %d %d",
          k, knull, kdup);
    MPI_Comm a, b, c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    expect_attr(a, k, 0, 0, "unset key");
    MPI_OK(MPI_Comm_set_attr(a, k, (void *)(intptr_t)100));
    MPI_OK(MPI_Comm_set_attr(a, knull, (void *)(intptr_t)200));
    MPI_OK(MPI_Comm_set_attr(a, kdup, (void *)(intptr_t)300));
    expect_attr(a, k, 1, 100, "set");
    expect_counts(0, 0, "after set");
    /* Setting a key again deletes the old value first. */
    MPI_OK(MPI_Comm_set_attr(a, k, (void *)(intptr_t)110));
    expect_counts(0, 1, "after reset");
    CHECK(cnt.last_deleted == 100, "reset deleted value %ld", (long)cnt.last_deleted);
    expect_attr(a, k, 1, 110, "reset");

    /* Dup: one copy callback; NULL_COPY_FN drops, DUP_FN keeps the value. */
    MPI_OK(MPI_Comm_dup(a, &b));
    expect_counts(1, 1, "after dup");
    expect_attr(b, k, 1, 111, "copied by the callback");
    expect_attr(b, knull, 0, 0, "MPI_COMM_NULL_COPY_FN");
    expect_attr(b, kdup, 1, 300, "MPI_COMM_DUP_FN");
    expect_attr(a, k, 1, 110, "original after dup");
    MPI_OK(MPI_Comm_dup_with_info(b, MPI_INFO_NULL, &c));
    expect_counts(2, 1, "after dup_with_info");
    expect_attr(c, k, 1, 112, "copied by dup_with_info");

    /* delete_attr calls the callback once; deleting again is harmless. */
    MPI_OK(MPI_Comm_delete_attr(c, k));
    expect_counts(2, 2, "after delete_attr");
    CHECK(cnt.last_deleted == 112, "delete_attr deleted value %ld", (long)cnt.last_deleted);
    expect_attr(c, k, 0, 0, "deleted");
    MPI_OK(MPI_Comm_delete_attr(c, k));
    expect_counts(2, 2, "after a second delete_attr");
    MPI_OK(MPI_Comm_free(&c));
    expect_counts(2, 2, "free without the attribute");

    /* A freed keyval stays alive for the attributes that use it. */
    int kcopy = k;
    MPI_OK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "free_keyval left %d", k);
    MPI_OK(MPI_Comm_free(&b));
    expect_counts(2, 3, "free of b");
    CHECK(cnt.last_deleted == 111, "free of b deleted value %ld", (long)cnt.last_deleted);
    MPI_OK(MPI_Comm_free(&a));
    expect_counts(2, 4, "free of a");
    CHECK(cnt.last_deleted == 110, "free of a deleted value %ld", (long)cnt.last_deleted);

    /* Errors under MPI_ERRORS_RETURN: freed and predefined keyvals, failing copy callback. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, kcopy, NULL);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "set_attr with a freed keyval: %d", rc);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "set_attr of MPI_TAG_UB: %d", rc);
    void *v;
    int flag;
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 987654, &v, &flag);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "get_attr of an unknown keyval: %d", rc);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *(int *)v >= 32767, "MPI_TAG_UB is %d", flag ? *(int *)v : -1);
    /* MPI_APPNUM: the program's number in an MPMD launch (the test's --appnum A says which) */
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    CHECK(flag && *(int *)v == expect_appnum, "MPI_APPNUM is %d, expected %d", flag ? *(int *)v : -1,
          expect_appnum);

    MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &k, &cnt));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_attr(a, k, (void *)(intptr_t)500));
    cnt.fail_copy = 1;
    b = MPI_COMM_WORLD; /* a failed dup must leave MPI_COMM_NULL (MPICH's attr/attrerr) */
    rc = MPI_Comm_dup(a, &b);
    CHECK(rc != MPI_SUCCESS, "dup succeeded although a copy callback failed");
    CHECK(b == MPI_COMM_NULL, "a failed dup left a communicator handle");
    cnt.fail_copy = 0;
    expect_counts(2, 4, "failed dup");
    MPI_OK(MPI_Comm_free(&a));
    expect_counts(2, 5, "free after the failed dup");
    MPI_OK(MPI_Comm_free_keyval(&k));
    MPI_OK(MPI_Comm_free_keyval(&knull));
    MPI_OK(MPI_Comm_free_keyval(&kdup));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* MPI_Comm_idup copies attributes like MPI_Comm_dup. */
/* A delete callback that deletes its own attribute while MPI_Comm_set_attr replaces the value
 * (the nested delete runs the callback once more, which then does nothing). The new value must
 * end up set, and nothing may touch the freed attribute (ASan build). */
static int self_deleting_depth, self_deleting_calls;
static int self_deleting(MPI_Comm comm, int key, void *val, void *extra) {
    (void)val, (void)extra;
    self_deleting_calls++;
    if (self_deleting_depth++ == 0)
        MPI_OK(MPI_Comm_delete_attr(comm, key));
    self_deleting_depth--;
    return MPI_SUCCESS;
}

static void test_delete_in_set(void) {
    int k;
    MPI_Comm c;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_deleting, &k, NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_attr(c, k, (void *)(intptr_t)1));
    MPI_OK(MPI_Comm_set_attr(c, k, (void *)(intptr_t)2)); /* callback deletes value 1 itself */
    CHECK(self_deleting_calls == 2, "delete callback ran %d times, expected 2", self_deleting_calls);
    expect_attr(c, k, 1, 2, "value set while its callback deleted the old one");
    MPI_OK(MPI_Comm_free(&c)); /* deletes value 2: one more call */
    CHECK(self_deleting_calls == 3, "delete callback ran %d times at free, expected 3",
          self_deleting_calls);
    MPI_OK(MPI_Comm_free_keyval(&k));
}

/* MPI 3.1 6.7.2: freeing a keyval that attributes still use is legal, and deleting those attributes
 * (through a saved copy of the number) is how the program releases them. Found by MPICH's
 * attr/fkeyvalcomm. */
static void test_delete_after_keyval_free(void) {
    cnt = (counts){0, 0, 0, 0};
    int k, saved;
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &k, &cnt));
    saved = k;
    MPI_OK(MPI_Comm_set_attr(c, k, (void *)(intptr_t)70));
    MPI_OK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval left %d", k);
    MPI_OK(MPI_Comm_delete_attr(c, saved));
    expect_counts(0, 1, "delete_attr with a freed but referenced keyval");
    CHECK(cnt.last_deleted == 70, "deleted value %ld", (long)cnt.last_deleted);
    /* now the keyval is gone for good */
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_delete_attr(c, saved), cls = -1;
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_KEYVAL, "delete_attr with a released keyval gave class %d", cls);
    MPI_OK(MPI_Comm_free(&c));
}

/* A delete callback that fails makes MPI_Comm_delete_attr fail without effect, as MPI_Comm_set_attr
 * keeps the old value then: the attribute stays, and the next dup still copies it (MPICH's
 * attr/attrerr). */
static int fail_deletes;
static int failing_delete(MPI_Comm comm, int key, void *val, void *extra) {
    (void)comm, (void)key, (void)val, (void)extra;
    return fail_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void test_failed_delete_keeps_attr(void) {
    int k;
    MPI_Comm c, d;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, failing_delete, &k, NULL));
    MPI_OK(MPI_Comm_set_attr(c, k, (void *)(intptr_t)5));
    fail_deletes = 1;
    int rc = MPI_Comm_delete_attr(c, k), cls = -1;
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_OTHER, "delete_attr with a failing callback gave class %d", cls);
    expect_attr(c, k, 1, 5, "attribute after a failed delete");
    rc = MPI_Comm_set_attr(c, k, (void *)(intptr_t)6);
    CHECK(rc != MPI_SUCCESS, "set_attr over a value whose delete callback fails succeeded");
    expect_attr(c, k, 1, 5, "attribute after a failed set");
    fail_deletes = 0;
    MPI_OK(MPI_Comm_dup(c, &d));
    expect_attr(d, k, 1, 5, "copied by dup after the failed delete");
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_delete_attr(c, k));
    expect_attr(c, k, 0, 0, "attribute after a successful delete");
    MPI_OK(MPI_Comm_free_keyval(&k));
    MPI_OK(MPI_Comm_free(&c));
}

static void test_idup(void) {
    cnt = (counts){0, 0, 0, 0};
    int k;
    MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &k, &cnt));
    MPI_Comm a, b;
    MPI_Request rq;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, k, (void *)(intptr_t)40));
    MPI_OK(MPI_Comm_idup(a, &b, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    expect_counts(1, 0, "after idup");
    expect_attr(b, k, 1, 41, "copied by idup");
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&a));
    expect_counts(1, 2, "after freeing both");
    MPI_OK(MPI_Comm_free_keyval(&k));
}

static void test_mpi1_names(void) {
    int k;
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Attr_put(a, k, (void *)(intptr_t)77));
    MPI_OK(MPI_Comm_dup(a, &b));
    void *v = NULL;
    int flag = 0;
    MPI_OK(MPI_Attr_get(b, k, &v, &flag));
    CHECK(flag && (intptr_t)v == 77, "MPI_Attr_get after dup: %d %ld", flag, (long)(intptr_t)v);
    MPI_OK(MPI_Attr_delete(b, k));
    MPI_OK(MPI_Attr_get(b, k, &v, &flag));
    CHECK(!flag, "MPI_Attr_delete left the attribute");
    MPI_OK(MPI_Keyval_free(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "MPI_Keyval_free left %d", k);
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&a));
}

/* The finalize hook: two attributes on COMM_SELF; their callbacks must run inside MPI_Finalize,
 * while MPI still works (an allreduce) and MPI_Finalized says false, newest first. */
static int hook_order[2], hooks_run, hook_sum;

static int finalize_hook(MPI_Comm comm, int key, void *val, void *extra) {
    (void)key, (void)extra;
    CHECK(comm == MPI_COMM_SELF, "finalize hook on another communicator");
    int fin = 1, one = 1, sum = 0, size;
    MPI_OK(MPI_Finalized(&fin));
    CHECK(!fin, "MPI_Finalized is true inside the COMM_SELF delete callback");
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (sum == size)
        hook_sum++;
    if (hooks_run < 2)
        hook_order[hooks_run] = (int)(intptr_t)val;
    hooks_run++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    if (argc == 3 && strcmp(argv[1], "--appnum") == 0)
        expect_appnum = atoi(argv[2]);
    else /* a launcher that passed an MPMD ':' on as arguments ends here */
        CHECK(argc == 1, "unexpected arguments (%d): usage: attrs [--appnum A]", argc - 1);
    int rank;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    test_callbacks();
    test_delete_in_set();
    test_delete_after_keyval_free();
    test_failed_delete_keeps_attr();
    test_idup();
    test_mpi1_names();
    int k1, k2;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &k1, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &k2, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)(intptr_t)1));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)(intptr_t)2));
    /* Freeing the keyvals must not cancel the hooks. */
    MPI_OK(MPI_Comm_free_keyval(&k1));
    MPI_OK(MPI_Comm_free_keyval(&k2));
    CHECK(hooks_run == 0, "finalize hook ran before MPI_Finalize");
    MPI_OK(MPI_Finalize());
    /* After MPI_Finalize no MPI_Abort: a failure here is this process' exit status. */
    /* The standard fixes no order among the callbacks; credo deletes newest first. */
#ifdef CREDO_STATS
    int order_ok = hook_order[0] == 2 && hook_order[1] == 1;
#else
    int order_ok = 1;
#endif
    if (hooks_run != 2 || hook_sum != 2 || !order_ok) {
        printf("FAIL rank %d: COMM_SELF finalize hooks: %d run (%d with a working allreduce), "
               "order %d %d (credo: 2 1, newest first)\n",
               rank, hooks_run, hook_sum, hook_order[0], hook_order[1]);
        return 3;
    }
    if (rank == 0)
        printf("attrs: OK (COMM_SELF finalize hooks ran)\n");
    return 0;
}
