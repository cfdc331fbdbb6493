/* tests/mpi/info.c — MPI_Info objects: set/get/delete/dup/nthkey, the truncation rule of
 * MPI_Info_get, key and value limits, MPI_INFO_ENV, communicator hints (set/get_info), and MPI 4.0's
 * MPI_Info_get_string, MPI_Info_create_env and info calls before MPI_Init / after MPI_Finalize. */
#include "testutil.h"

static void expect_value(MPI_Info info, const char *key, const char *want, const char *what) {
    char buf[64];
    int flag = -1;
    memset(buf, 'x', sizeof buf);
    MPI_OK(MPI_Info_get(info, key, (int)sizeof buf - 1, buf, &flag));
    if (want == NULL) {
        CHECK(flag == 0 && buf[0] == 'x', "%s: key %s is set (flag %d)", what, key, flag);
        return;
    }
    CHECK(flag == 1 && strcmp(buf, want) == 0, "%s: key %s = \"%.63s\" (flag %d), expected \"%s\"",
          what, key, flag ? buf : "", flag, want);
    int len = -1;
    MPI_OK(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag == 1 && len == (int)strlen(want), "%s: valuelen of %s is %d", what, key, len);
}

static void expect_keys(MPI_Info info, int n, const char *const *keys, const char *what) {
    int nk = -1;
    MPI_OK(MPI_Info_get_nkeys(info, &nk));
    CHECK(nk == n, "%s: %d keys, expected %d", what, nk, n);
    for (int i = 0; i < n; i++) {
        char k[MPI_MAX_INFO_KEY];
        MPI_OK(MPI_Info_get_nthkey(info, i, k));
        CHECK(strcmp(k, keys[i]) == 0, "%s: key %d is %s, expected %s", what, i, k, keys[i]);
    }
}

static void test_basic(void) {
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    expect_keys(info, 0, NULL, "new info");
    MPI_OK(MPI_Info_set(info, "alpha", "one"));
    MPI_OK(MPI_Info_set(info, "beta", "two"));
    MPI_OK(MPI_Info_set(info, "gamma", ""));
    expect_keys(info, 3, (const char *[]){"alpha", "beta", "gamma"}, "three keys");
    expect_value(info, "alpha", "one", "set");
    expect_value(info, "gamma", "", "empty value");
    expect_value(info, "delta", NULL, "missing key");
    expect_value(info, "Alpha", NULL, "keys are case sensitive");
    /* Setting again replaces the value and keeps the key's place. */
    MPI_OK(MPI_Info_set(info, "alpha", "uno"));
    expect_keys(info, 3, (const char *[]){"alpha", "beta", "gamma"}, "replaced");
    expect_value(info, "alpha", "uno", "replaced");

    /* Truncation: valuelen characters plus a NUL, nothing written beyond. */
    MPI_OK(MPI_Info_set(info, "long", "abcdefgh"));
    char buf[16];
    int flag = 0;
    memset(buf, '#', sizeof buf);
    MPI_OK(MPI_Info_get(info, "long", 3, buf, &flag));
    CHECK(flag == 1 && strcmp(buf, "abc") == 0 && buf[4] == '#', "truncated to 3: \"%s\" [4]=%c",
          buf, buf[4]);
    memset(buf, '#', sizeof buf);
    MPI_OK(MPI_Info_get(info, "long", 0, buf, &flag));
    CHECK(flag == 1 && buf[0] == '\0' && buf[1] == '#', "truncated to 0");
    memset(buf, '#', sizeof buf);
    MPI_OK(MPI_Info_get(info, "long", 8, buf, &flag));
    CHECK(flag == 1 && strcmp(buf, "abcdefgh") == 0 && buf[9] == '#', "exact fit: \"%s\"", buf);

    /* Dup is a deep copy. */
    MPI_Info copy;
    MPI_OK(MPI_Info_dup(info, &copy));
    MPI_OK(MPI_Info_delete(info, "beta"));
    MPI_OK(MPI_Info_set(info, "alpha", "changed"));
    expect_keys(info, 3, (const char *[]){"alpha", "gamma", "long"}, "after delete");
    expect_keys(copy, 4, (const char *[]){"alpha", "beta", "gamma", "long"}, "dup");
    expect_value(copy, "alpha", "uno", "dup keeps the old value");
    expect_value(info, "beta", NULL, "deleted key");

    /* Errors, returned under MPI_ERRORS_RETURN. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Info_delete(info, "beta");
    CHECK(tu_class(rc) == MPI_ERR_INFO_NOKEY, "delete of a missing key: %d", rc);
    char k[MPI_MAX_INFO_KEY];
    rc = MPI_Info_get_nthkey(info, 3, k);
    CHECK(tu_class(rc) == MPI_ERR_ARG, "nthkey past the end: %d", rc);
    rc = MPI_Info_set(info, "", "v");
    CHECK(tu_class(rc) == MPI_ERR_INFO_KEY, "empty key: %d", rc);
    char key[MPI_MAX_INFO_KEY + 1];
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = '\0';
    rc = MPI_Info_set(info, key, "v");
    CHECK(tu_class(rc) == MPI_ERR_INFO_KEY, "key of MPI_MAX_INFO_KEY characters: %d", rc);
    flag = 1;
    rc = MPI_Info_get(info, key, 4, buf, &flag);
    CHECK(tu_class(rc) == MPI_ERR_INFO_KEY, "get with a too long key: %d", rc);
    key[MPI_MAX_INFO_KEY - 1] = '\0'; /* the longest key allowed */
    MPI_OK(MPI_Info_set(info, key, "longest"));
    expect_value(info, key, "longest", "longest key");
    char *val = tu_xmalloc(MPI_MAX_INFO_VAL + 1);
    memset(val, 'v', MPI_MAX_INFO_VAL);
    val[MPI_MAX_INFO_VAL] = '\0';
    rc = MPI_Info_set(info, "big", val);
    CHECK(tu_class(rc) == MPI_ERR_INFO_VALUE, "value of MPI_MAX_INFO_VAL characters: %d", rc);
    val[MPI_MAX_INFO_VAL - 1] = '\0';
    MPI_OK(MPI_Info_set(info, "big", val));
    int len = 0;
    MPI_OK(MPI_Info_get_valuelen(info, "big", &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL - 1, "longest value has length %d", len);
    free(val);
    MPI_Info null = MPI_INFO_NULL;
    rc = MPI_Info_free(&null);
    CHECK(tu_class(rc) == MPI_ERR_INFO, "free of MPI_INFO_NULL: %d", rc);
    rc = MPI_Info_set(MPI_INFO_NULL, "a", "b");
    CHECK(tu_class(rc) == MPI_ERR_INFO, "set on MPI_INFO_NULL: %d", rc);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_free(&copy));
    CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "Info_free did not reset handles");

    char s[MPI_MAX_ERROR_STRING];
    int slen = 0;
    MPI_OK(MPI_Error_string(MPI_ERR_INFO_NOKEY, s, &slen));
    CHECK(slen > 0, "no error string for MPI_ERR_INFO_NOKEY");
}

static void test_env(void) {
    int nk = -1;
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nk));
    CHECK(nk >= 0, "MPI_INFO_ENV has %d keys", nk);
    MPI_Info e;
    MPI_OK(MPI_Info_dup(MPI_INFO_ENV, &e));
    int nd = -1;
    MPI_OK(MPI_Info_get_nkeys(e, &nd));
    CHECK(nd == nk, "dup of MPI_INFO_ENV has %d keys, expected %d", nd, nk);
    MPI_OK(MPI_Info_free(&e));
}

static void test_comm_hints(void) {
    MPI_Info info, used;
    MPI_Comm c, d, w;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "credo_test_hint", "yes"));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_info(c, info));
    MPI_OK(MPI_Comm_get_info(c, &used));
    expect_value(used, "credo_test_hint", "yes", "get_info after set_info");
    MPI_OK(MPI_Info_free(&used));
    /* The hints are the communicator's copy: changing info afterwards does not touch them. */
    MPI_OK(MPI_Info_set(info, "credo_test_hint", "changed"));
    MPI_OK(MPI_Comm_get_info(c, &used));
    expect_value(used, "credo_test_hint", "yes", "hints are copied");
    MPI_OK(MPI_Info_free(&used));
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Comm_get_info(d, &used));
    expect_value(used, "credo_test_hint", "yes", "dup keeps hints");
    MPI_OK(MPI_Info_free(&used));
    MPI_Info other;
    MPI_OK(MPI_Info_create(&other));
    MPI_OK(MPI_Info_set(other, "credo_other", "1"));
    MPI_OK(MPI_Comm_dup_with_info(c, other, &w));
    MPI_OK(MPI_Comm_get_info(w, &used));
    expect_value(used, "credo_other", "1", "dup_with_info's hints");
    expect_value(used, "credo_test_hint", NULL, "dup_with_info drops the parent's hints");
    MPI_OK(MPI_Info_free(&used));
    /* The duplicate works. */
    int rank, sum = 0, one = 1, size;
    MPI_OK(MPI_Comm_rank(w, &rank));
    MPI_OK(MPI_Comm_size(w, &size));
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w));
    CHECK(sum == size, "allreduce on dup_with_info: %d", sum);
    MPI_OK(MPI_Comm_free(&w));
    /* MPI 4.0 idup_with_info: the new communicator has info's hints once the request completes */
    MPI_Request req;
    MPI_OK(MPI_Comm_idup_with_info(c, other, &w, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_get_info(w, &used));
    expect_value(used, "credo_other", "1", "idup_with_info's hints");
    expect_value(used, "credo_test_hint", NULL, "idup_with_info drops the parent's hints");
    MPI_OK(MPI_Info_free(&used));
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w));
    CHECK(sum == size, "allreduce on idup_with_info: %d", sum);
    MPI_OK(MPI_Comm_free(&w));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_free(&other));
    MPI_OK(MPI_Info_free(&info));
}

/* MPI_Info_get_string: buflen 0 only measures, a short buffer gets a cut, terminated value, and
 * buflen always comes back as the value's length plus one; an unset key leaves value alone. */
static void test_get_string(MPI_Info info) {
    char v[32];
    int len = 0, flag = 0;
    MPI_OK(MPI_Info_set(info, "gs_key", "0123456789"));
    v[0] = 'C';
    MPI_OK(MPI_Info_get_string(info, "gs_key", &len, v, &flag));
    CHECK(flag && len == 11 && v[0] == 'C', "get_string buflen 0: flag %d len %d v[0] %c", flag,
          len, v[0]);
    len = 4;
    MPI_OK(MPI_Info_get_string(info, "gs_key", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "012") == 0, "get_string buflen 4: len %d value %s", len,
          v);
    len = (int)sizeof v;
    MPI_OK(MPI_Info_get_string(info, "gs_key", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "0123456789") == 0, "get_string: len %d value %s", len,
          v);
    len = (int)sizeof v;
    v[0] = 'C';
    MPI_OK(MPI_Info_get_string(info, "gs_unset", &len, v, &flag));
    CHECK(!flag && v[0] == 'C', "get_string of an unset key: flag %d v[0] %c", flag, v[0]);
}

/* MPI_Info_create_env gives the same values before MPI_Init, after it and after MPI_Finalize. */
static void env_value(MPI_Info e, const char *key, char *out) {
    int len = MPI_MAX_INFO_VAL, flag = 0;
    out[0] = '\0';
    MPI_OK(MPI_Info_get_string(e, key, &len, out, &flag));
    if (!flag)
        strcpy(out, "(unset)");
}

static void expect_env(MPI_Info first, int argc, char **argv, const char *when) {
    static const char *keys[] = {"command", "argv", "maxprocs", "host", "wdir", "thread_level"};
    MPI_Info e;
    MPI_OK(MPI_Info_create_env(argc, argv, &e));
    static char a[MPI_MAX_INFO_VAL], b[MPI_MAX_INFO_VAL];
    for (int i = 0; i < 6; i++) {
        env_value(first, keys[i], a);
        env_value(e, keys[i], b);
        CHECK(strcmp(a, b) == 0, "create_env %s: %s is '%s', before MPI_Init '%s'", when, keys[i],
              b, a);
    }
    MPI_OK(MPI_Info_free(&e));
}

int main(int argc, char **argv) {
    /* before MPI_Init */
    MPI_Info early, env;
    MPI_OK(MPI_Info_create(&early));
    MPI_OK(MPI_Info_set(early, "early", "1"));
    test_get_string(early);
    char *args[] = {argv[0], "alpha", "beta", NULL};
    MPI_OK(MPI_Info_create_env(3, args, &env));
    char v[MPI_MAX_INFO_VAL];
    env_value(env, "command", v);
    CHECK(strcmp(v, argv[0]) == 0, "create_env command '%s'", v);
    env_value(env, "argv", v);
    CHECK(strcmp(v, "alpha beta") == 0, "create_env argv '%s'", v);
    env_value(env, "maxprocs", v);
    CHECK(atoi(v) >= 1, "create_env maxprocs '%s'", v);

    MPI_OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    env_value(env, "maxprocs", v);
    CHECK(atoi(v) == size, "create_env before MPI_Init: maxprocs %s, job size %d", v, size);
    expect_env(env, 3, args, "after MPI_Init");
    expect_value(early, "early", "1", "an info object made before MPI_Init");
    test_basic();
    test_env();
    test_comm_hints();
    MPI_OK(MPI_Finalize());

    /* after MPI_Finalize */
    expect_env(env, 3, args, "after MPI_Finalize");
    MPI_OK(MPI_Info_set(early, "late", "2"));
    expect_value(early, "late", "2", "an info object used after MPI_Finalize");
    MPI_OK(MPI_Info_free(&early));
    MPI_OK(MPI_Info_free(&env));
    if (rank == 0)
        printf("info: OK\n");
    return 0;
}
