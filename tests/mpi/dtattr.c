/* tests/mpi/dtattr.c — attributes on datatypes: keyvals, set/get/delete on derived types and on
 * MPI_INT, copy callbacks on Type_dup, delete callbacks on free/delete/replace, errors. np 1, 2. */
#include "testutil.h"

typedef struct counts {
    int copies, declined, deletes;
    intptr_t last_deleted;
    MPI_Datatype last_type;
    int last_key;
    int fail_copy, fail_delete; /* the callbacks return MPI_ERR_OTHER when set */
} counts;

static counts cnt;

/* Copies value v as v + 1, so a test can tell copies from originals. */
static int count_copy(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag) {
    (void)old, (void)key;
    CHECK(extra == &cnt, "copy callback got extra_state %p", extra);
    if (cnt.fail_copy)
        return MPI_ERR_OTHER;
    cnt.copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

/* A copy callback that declines: the duplicate does not get the attribute. */
static int decline_copy(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag) {
    (void)old, (void)key, (void)extra, (void)in, (void)out;
    cnt.declined++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Datatype type, int key, void *val, void *extra) {
    CHECK(extra == &cnt, "delete callback got extra_state %p", extra);
    cnt.deletes++;
    cnt.last_deleted = (intptr_t)val;
    cnt.last_type = type;
    cnt.last_key = key;
    return cnt.fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void reset_counts(void) {
    memset(&cnt, 0, sizeof cnt);
}

static void expect_attr(MPI_Datatype t, int key, int set, intptr_t want, const char *what) {
    void *v = NULL;
    int flag = -1;
    MPI_OK(MPI_Type_get_attr(t, key, &v, &flag));
    CHECK(flag == set && (!set || (intptr_t)v == want), "%s: flag %d value %ld, expected %d %ld",
          what, flag, (long)(intptr_t)v, set, (long)want);
}

static void expect_counts(int copies, int deletes, const char *what) {
    CHECK(cnt.copies == copies && cnt.deletes == deletes,
          "%s: %d copies %d deletes, expected %d %d", what, cnt.copies, cnt.deletes, copies,
          deletes);
}

static void test_set_get_delete(void) {
    reset_counts();
    int k, k2;
    MPI_OK(MPI_Type_create_keyval(count_copy, count_delete, &k, &cnt));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL));
    CHECK(k != k2 && k != MPI_KEYVAL_INVALID && k2 != MPI_KEYVAL_INVALID, "keyvals %d %d", k, k2);
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    expect_attr(t, k, 0, 0, "unset key");
    MPI_OK(MPI_Type_set_attr(t, k, (void *)(intptr_t)100));
    expect_attr(t, k, 1, 100, "set");
    expect_counts(0, 0, "after set");
    /* Setting again deletes the old value first, with the type and keyval as arguments. */
    MPI_OK(MPI_Type_set_attr(t, k, (void *)(intptr_t)110));
    expect_counts(0, 1, "after replace");
    CHECK(cnt.last_deleted == 100 && cnt.last_type == t && cnt.last_key == k,
          "replace deleted %ld on %p key %d", (long)cnt.last_deleted, (void *)cnt.last_type,
          cnt.last_key);
    expect_attr(t, k, 1, 110, "replaced");
    MPI_OK(MPI_Type_delete_attr(t, k));
    expect_counts(0, 2, "after delete_attr");
    CHECK(cnt.last_deleted == 110, "delete_attr deleted %ld", (long)cnt.last_deleted);
    expect_attr(t, k, 0, 0, "deleted");
    MPI_OK(MPI_Type_delete_attr(t, k)); /* not set: nothing to do */
    expect_counts(0, 2, "delete_attr of an unset key");

    /* A predefined type caches attributes of its own, seen by no other type. */
    MPI_OK(MPI_Type_set_attr(MPI_INT, k, (void *)(intptr_t)5));
    MPI_OK(MPI_Type_set_attr(MPI_INT, k2, (void *)(intptr_t)6));
    expect_attr(MPI_INT, k, 1, 5, "MPI_INT");
    expect_attr(MPI_INT, k2, 1, 6, "MPI_INT second key");
    expect_attr(MPI_FLOAT, k, 0, 0, "MPI_FLOAT");
    expect_attr(t, k, 0, 0, "derived type after MPI_INT's set");
    MPI_OK(MPI_Type_delete_attr(MPI_INT, k));
    expect_counts(0, 3, "delete_attr on MPI_INT");
    CHECK(cnt.last_deleted == 5 && cnt.last_type == MPI_INT, "MPI_INT delete: %ld",
          (long)cnt.last_deleted);
    expect_attr(MPI_INT, k2, 1, 6, "MPI_INT second key after deleting the first");
    MPI_OK(MPI_Type_delete_attr(MPI_INT, k2));
    expect_attr(MPI_INT, k2, 0, 0, "MPI_INT second key deleted");

    MPI_OK(MPI_Type_free(&t));
    expect_counts(0, 3, "free of a type without attributes");
    MPI_OK(MPI_Type_free_keyval(&k));
    MPI_OK(MPI_Type_free_keyval(&k2));
    CHECK(k == MPI_KEYVAL_INVALID && k2 == MPI_KEYVAL_INVALID, "freed keyvals are %d %d", k, k2);
    tu_note("set, get, replace and delete on a derived type and on MPI_INT");
}

static void test_dup(void) {
    reset_counts();
    int k, kdup, knull, kdecl;
    MPI_OK(MPI_Type_create_keyval(count_copy, count_delete, &k, &cnt));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL));
    MPI_OK(MPI_Type_create_keyval(decline_copy, count_delete, &kdecl, &cnt));
    MPI_Datatype t, d, d2;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_set_attr(t, k, (void *)(intptr_t)200));
    MPI_OK(MPI_Type_set_attr(t, kdup, (void *)(intptr_t)300));
    MPI_OK(MPI_Type_set_attr(t, knull, (void *)(intptr_t)400));
    MPI_OK(MPI_Type_set_attr(t, kdecl, (void *)(intptr_t)500));

    MPI_OK(MPI_Type_dup(t, &d));
    expect_counts(1, 0, "after dup");
    CHECK(cnt.declined == 1, "declining copy callback ran %d times", cnt.declined);
    expect_attr(d, k, 1, 201, "copied by the callback");
    expect_attr(d, kdup, 1, 300, "MPI_TYPE_DUP_FN");
    expect_attr(d, knull, 0, 0, "MPI_TYPE_NULL_COPY_FN");
    expect_attr(d, kdecl, 0, 0, "declined by the copy callback");
    expect_attr(t, k, 1, 200, "original after dup");
    expect_attr(t, kdecl, 1, 500, "original's declined attribute");
    int size = 0;
    MPI_OK(MPI_Type_size(d, &size));
    CHECK(size == 16, "duplicate's size %d", size);
    MPI_OK(MPI_Type_dup(d, &d2));
    expect_counts(2, 0, "after dup of the dup");
    expect_attr(d2, k, 1, 202, "copy of the copy");

    /* Freeing runs the delete callbacks of exactly the attributes each type holds. */
    MPI_OK(MPI_Type_free(&d));
    expect_counts(2, 1, "after freeing the dup");
    CHECK(cnt.last_deleted == 201 && cnt.last_key == k, "dup's free deleted %ld (key %d)",
          (long)cnt.last_deleted, cnt.last_key);
    MPI_OK(MPI_Type_free(&d2));
    expect_counts(2, 2, "after freeing the dup of the dup");
    CHECK(cnt.last_deleted == 202, "second dup's free deleted %ld", (long)cnt.last_deleted);
    MPI_OK(MPI_Type_free(&t));
    expect_counts(2, 4, "after freeing the original (two counted attributes)");

    /* A duplicate of a predefined type gets its attributes through the copy callbacks too. */
    MPI_OK(MPI_Type_set_attr(MPI_INT, kdup, (void *)(intptr_t)7));
    MPI_OK(MPI_Type_set_attr(MPI_INT, k, (void *)(intptr_t)8));
    MPI_OK(MPI_Type_dup(MPI_INT, &d));
    expect_attr(d, kdup, 1, 7, "dup of MPI_INT, MPI_TYPE_DUP_FN");
    expect_attr(d, k, 1, 9, "dup of MPI_INT, counting callback");
    MPI_OK(MPI_Type_free(&d));
    expect_counts(3, 5, "after freeing the dup of MPI_INT");
    expect_attr(MPI_INT, k, 1, 8, "MPI_INT after its dup was freed");
    MPI_OK(MPI_Type_delete_attr(MPI_INT, k));
    MPI_OK(MPI_Type_delete_attr(MPI_INT, kdup));
    expect_counts(3, 6, "after cleaning MPI_INT");

    MPI_OK(MPI_Type_free_keyval(&k));
    MPI_OK(MPI_Type_free_keyval(&kdup));
    MPI_OK(MPI_Type_free_keyval(&knull));
    MPI_OK(MPI_Type_free_keyval(&kdecl));
    tu_note("copy callbacks on MPI_Type_dup, delete callbacks on MPI_Type_free");
}

/* A keyval freed while attributes use it: the number is dead for set/get, but the attributes keep
 * their callbacks through dup, delete_attr and free (MPI 3.1 6.7.4). */
static void test_freed_keyval(void) {
    reset_counts();
    int kf, saved, other;
    MPI_OK(MPI_Type_create_keyval(count_copy, count_delete, &kf, &cnt));
    saved = kf;
    MPI_Datatype t, t2, d;
    MPI_OK(MPI_Type_contiguous(3, MPI_CHAR, &t));
    MPI_OK(MPI_Type_contiguous(4, MPI_CHAR, &t2));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_set_attr(t, kf, (void *)(intptr_t)10));
    MPI_OK(MPI_Type_set_attr(t2, kf, (void *)(intptr_t)20));
    MPI_OK(MPI_Type_free_keyval(&kf));
    CHECK(kf == MPI_KEYVAL_INVALID, "freed keyval is %d", kf);

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    void *v;
    int flag, rc, again = saved;
    rc = MPI_Type_set_attr(t, saved, (void *)(intptr_t)11);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "set_attr with a freed keyval: class %d", tu_class(rc));
    rc = MPI_Type_get_attr(t, saved, &v, &flag);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "get_attr with a freed keyval: class %d", tu_class(rc));
    rc = MPI_Type_free_keyval(&again);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL && again == saved, "second free_keyval: class %d",
          tu_class(rc));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    MPI_OK(MPI_Type_dup(t, &d));
    expect_counts(1, 0, "dup with a freed keyval");
    MPI_OK(MPI_Type_free(&d));
    expect_counts(1, 1, "free of that dup");
    CHECK(cnt.last_deleted == 11, "the dup's copy was %ld", (long)cnt.last_deleted);
    MPI_OK(MPI_Type_delete_attr(t, saved));
    expect_counts(1, 2, "delete_attr with the freed keyval");
    CHECK(cnt.last_deleted == 10, "delete_attr deleted %ld", (long)cnt.last_deleted);
    MPI_OK(MPI_Type_free(&t2));
    expect_counts(1, 3, "free of a type still holding the freed keyval");
    CHECK(cnt.last_deleted == 20, "free deleted %ld", (long)cnt.last_deleted);
    MPI_OK(MPI_Type_free(&t));
    expect_counts(1, 3, "free of a type with nothing left");

    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &other, NULL));
    CHECK(other != saved, "a new keyval reuses the freed number %d", saved);
    MPI_OK(MPI_Type_free_keyval(&other));
    tu_note("a keyval freed while attached keeps its callbacks");
}

/* The component handle MPI_Type_get_contents returns is freed by the program; the type it names
 * keeps its attributes while the program's own handle lives. */
static void test_contents(void) {
    reset_counts();
    int k;
    MPI_OK(MPI_Type_create_keyval(count_copy, count_delete, &k, &cnt));
    MPI_Datatype t, c, parts[1];
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_set_attr(t, k, (void *)(intptr_t)77));
    MPI_OK(MPI_Type_contiguous(3, t, &c));
    int ints[1];
    MPI_Aint addrs[1];
    MPI_OK(MPI_Type_get_contents(c, 1, 0, 1, ints, addrs, parts));
    CHECK(ints[0] == 3, "contents count %d", ints[0]);
    MPI_OK(MPI_Type_free(&parts[0]));
    expect_counts(0, 0, "after freeing the handle from get_contents");
    expect_attr(t, k, 1, 77, "the component after its other handle was freed");
    MPI_OK(MPI_Type_free(&c));
    MPI_OK(MPI_Type_free(&t));
    expect_counts(0, 1, "after freeing the component itself");
    CHECK(cnt.last_deleted == 77, "component's free deleted %ld", (long)cnt.last_deleted);
    MPI_OK(MPI_Type_free_keyval(&k));
    tu_note("handles from MPI_Type_get_contents leave the attributes alone");
}

static void test_errors(void) {
    reset_counts();
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int tk, ck, rc, flag;
    void *v;
    MPI_OK(MPI_Type_create_keyval(count_copy, count_delete, &tk, &cnt));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(2, MPI_SHORT, &t));

    const int bad[] = {12345, MPI_KEYVAL_INVALID, MPI_TAG_UB};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = MPI_Type_set_attr(t, bad[i], NULL);
        CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "set_attr with keyval %d: class %d", bad[i],
              tu_class(rc));
        rc = MPI_Type_get_attr(MPI_INT, bad[i], &v, &flag);
        CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "get_attr with keyval %d: class %d", bad[i],
              tu_class(rc));
        rc = MPI_Type_delete_attr(t, bad[i]);
        CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "delete_attr with keyval %d: class %d", bad[i],
              tu_class(rc));
    }

    /* A communicator keyval is no datatype keyval, and the other way round. */
    rc = MPI_Type_set_attr(t, ck, NULL);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "Type_set_attr with a comm keyval: class %d",
          tu_class(rc));
    rc = MPI_Type_get_attr(t, ck, &v, &flag);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "Type_get_attr with a comm keyval: class %d",
          tu_class(rc));
    rc = MPI_Type_delete_attr(t, ck);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "Type_delete_attr with a comm keyval: class %d",
          tu_class(rc));
    int ck2 = ck, tk2 = tk;
    rc = MPI_Type_free_keyval(&ck2);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL && ck2 == ck, "Type_free_keyval of a comm keyval: %d",
          tu_class(rc));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "Comm_set_attr with a type keyval: class %d",
          tu_class(rc));
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, tk, &v, &flag);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "Comm_get_attr with a type keyval: class %d",
          tu_class(rc));
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, tk);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL, "Comm_delete_attr with a type keyval: class %d",
          tu_class(rc));
    rc = MPI_Comm_free_keyval(&tk2);
    CHECK(tu_class(rc) == MPI_ERR_KEYVAL && tk2 == tk, "Comm_free_keyval of a type keyval: %d",
          tu_class(rc));

    /* Invalid types and arguments. */
    rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, tk, NULL);
    CHECK(tu_class(rc) == MPI_ERR_TYPE, "set_attr on MPI_DATATYPE_NULL: class %d", tu_class(rc));
    rc = MPI_Type_get_attr(MPI_DATATYPE_NULL, tk, &v, &flag);
    CHECK(tu_class(rc) == MPI_ERR_TYPE, "get_attr on MPI_DATATYPE_NULL: class %d", tu_class(rc));
    rc = MPI_Type_delete_attr(MPI_DATATYPE_NULL, tk);
    CHECK(tu_class(rc) == MPI_ERR_TYPE, "delete_attr on MPI_DATATYPE_NULL: class %d",
          tu_class(rc));
    rc = MPI_Type_get_attr(t, tk, &v, NULL);
    CHECK(tu_class(rc) == MPI_ERR_ARG, "get_attr with a NULL flag: class %d", tu_class(rc));
    rc = MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL);
    CHECK(tu_class(rc) == MPI_ERR_ARG, "create_keyval with a NULL result: class %d",
          tu_class(rc));

    /* A failing delete callback: set_attr and delete_attr fail and keep the value; free fails
     * but frees. */
    MPI_OK(MPI_Type_set_attr(t, tk, (void *)(intptr_t)1));
    cnt.fail_delete = 1;
    rc = MPI_Type_set_attr(t, tk, (void *)(intptr_t)2);
    CHECK(tu_class(rc) == MPI_ERR_OTHER, "set_attr with a failing delete: class %d", tu_class(rc));
    expect_attr(t, tk, 1, 1, "value kept by the failed set_attr");
    rc = MPI_Type_delete_attr(t, tk);
    CHECK(tu_class(rc) == MPI_ERR_OTHER, "delete_attr with a failing delete: class %d",
          tu_class(rc));
    expect_attr(t, tk, 1, 1, "value kept by the failed delete_attr");
    expect_counts(0, 2, "two failed deletes");
    rc = MPI_Type_free(&t);
    CHECK(tu_class(rc) == MPI_ERR_OTHER && t == MPI_DATATYPE_NULL,
          "free with a failing delete: class %d, handle %p", tu_class(rc), (void *)t);
    expect_counts(0, 3, "failed delete on free");
    cnt.fail_delete = 0;

    /* A failing copy callback: the dup fails, newtype is MPI_DATATYPE_NULL, and the attribute
     * copied before the failing one is deleted with the half-made duplicate. */
    int kok;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_delete, &kok, &cnt));
    MPI_Datatype t2, d = MPI_INT;
    MPI_OK(MPI_Type_contiguous(2, MPI_SHORT, &t2));
    MPI_OK(MPI_Type_set_attr(t2, kok, (void *)(intptr_t)41));
    MPI_OK(MPI_Type_set_attr(t2, tk, (void *)(intptr_t)42));
    cnt.fail_copy = 1;
    rc = MPI_Type_dup(t2, &d);
    CHECK(tu_class(rc) == MPI_ERR_OTHER && d == MPI_DATATYPE_NULL,
          "dup with a failing copy: class %d, newtype %p", tu_class(rc), (void *)d);
    expect_counts(0, 4, "the copy made before the failing one deleted");
    CHECK(cnt.last_deleted == 41, "failed dup deleted %ld", (long)cnt.last_deleted);
    cnt.fail_copy = 0;
    expect_attr(t2, tk, 1, 42, "original after the failed dup");
    MPI_OK(MPI_Type_free(&t2));
    expect_counts(0, 6, "free after the failed dup");

    MPI_OK(MPI_Type_free_keyval(&kok));
    MPI_OK(MPI_Type_free_keyval(&tk));
    MPI_OK(MPI_Comm_free_keyval(&ck));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    tu_note("error classes: keyvals of the wrong kind, invalid types, failing callbacks");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    test_set_get_delete();
    test_dup();
    test_freed_keyval();
    test_contents();
    test_errors();
    MPI_Finalize();
    return 0;
}
