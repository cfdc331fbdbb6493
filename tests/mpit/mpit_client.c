/* tests/mpit/mpit_client.c — a tool-style client of the MPI_T interface, written only against the
 * standard: lists every control and performance variable, checks settings and traffic counters. */
#include <mpi.h>
#ifdef CREDO_MPI
#include <credo/mpi_t.h> /* harmless once credo's mpi.h includes it: the header is guarded */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSGS 100     /* messages each rank sends round the ring */
#define MSG_BYTES 2048

static int failures;
static int rank = -1;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpit_client rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define T_OK(call)                                                                                 \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "mpit_client rank %d: %s returned %d\n", rank, #call, rc_);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Finds a variable by walking the list by name, as a portable tool does (no get_index). */
static int find_cvar(const char *want)
{
    int n;
    T_OK(MPI_T_cvar_get_num(&n));
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof name;
        T_OK(MPI_T_cvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        if (strcmp(name, want) == 0)
            return i;
    }
    return -1;
}

static int find_pvar(const char *suffix, int *var_class)
{
    int n;
    T_OK(MPI_T_pvar_get_num(&n));
    size_t sl = strlen(suffix);
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof name, cls;
        T_OK(MPI_T_pvar_get_info(i, name, &len, NULL, &cls, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        size_t nl = strlen(name);
        if (nl >= sl && strcmp(name + nl - sl, suffix) == 0) {
            *var_class = cls;
            return i;
        }
    }
    return -1;
}

static void list_variables(void)
{
    int n;
    T_OK(MPI_T_cvar_get_num(&n));
    CHECK(n > 0, "no control variables");
    printf("%d control variables:\n", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum et;
        T_OK(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope));
        CHECK(nl == (int)strlen(name) + 1, "cvar %d: name_len %d for '%s'", i, nl, name);
        CHECK(strlen(desc) > 0, "cvar %s has no description", name);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_CHAR, "cvar %s: unexpected type", name);
        printf("  cvar %-24s %-8s %s\n", name, dt == MPI_CHAR ? "char" : dt == MPI_INT ? "int" : "ull", desc);
    }
    /* the length-only query of the standard: a zero length asks for the size and writes nothing */
    int need = 0;
    T_OK(MPI_T_cvar_get_info(0, NULL, &need, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(need > 1, "length query returned %d", need);
    CHECK(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
          "cvar index %d accepted", n);

    T_OK(MPI_T_pvar_get_num(&n));
    CHECK(n > 0, "no performance variables");
    printf("%d performance variables:\n", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum et;
        T_OK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, desc, &dl, &bind, &ro, &cont, &atomic));
        CHECK(strlen(desc) > 0, "pvar %s has no description", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "pvar %s: bound to an object", name);
        printf("  pvar %-34s class %d %s\n", name, cls, desc);
    }
    CHECK(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX,
          "pvar index %d accepted", n);
    /* categories, as a tool walks them: every variable belongs to one, each member index valid */
    int ncat, ncv, in_cv = 0, in_pv = 0;
    T_OK(MPI_T_category_get_num(&ncat));
    T_OK(MPI_T_cvar_get_num(&ncv));
    CHECK(ncat >= 1, "no categories");
    for (int c = 0; c < ncat; c++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, nc = -1, np = -1, nsub = -1, idx = -1, stamp = -1;
        T_OK(MPI_T_category_get_info(c, name, &nl, desc, &dl, &nc, &np, &nsub));
        CHECK(nc >= 0 && np >= 0 && nsub >= 0, "category %s: negative member counts", name);
        T_OK(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category %s: get_index gave %d, expected %d", name, idx, c);
        int *cv = calloc((size_t)nc + 1, sizeof *cv), *pv = calloc((size_t)np + 1, sizeof *pv);
        T_OK(MPI_T_category_get_cvars(c, nc, cv));
        T_OK(MPI_T_category_get_pvars(c, np, pv));
        for (int k = 0; k < nc; k++)
            CHECK(cv[k] >= 0 && cv[k] < ncv, "category %s: cvar index %d", name, cv[k]);
        for (int k = 0; k < np; k++)
            CHECK(pv[k] >= 0 && pv[k] < n, "category %s: pvar index %d", name, pv[k]);
        T_OK(MPI_T_category_get_categories(c, 0, NULL));
        T_OK(MPI_T_category_changed(&stamp));
        in_cv += nc;
        in_pv += np;
        printf("  category %-20s %d cvars, %d pvars: %s\n", name, nc, np, desc);
        free(cv);
        free(pv);
    }
    CHECK(in_cv == ncv && in_pv == n, "categories hold %d of %d cvars and %d of %d pvars", in_cv, ncv, in_pv, n);
    int idx;
    CHECK(MPI_T_category_get_index("no such category", &idx) == MPI_T_ERR_INVALID_NAME,
          "an unknown category name was found");
    CHECK(MPI_T_category_get_cvars(ncat, 0, NULL) == MPI_T_ERR_INVALID_INDEX, "category index %d accepted", ncat);
}

static void check_cvars(void)
{
    int idx = find_cvar("CREDO_FC");
    CHECK(idx >= 0, "no CREDO_FC control variable");
    if (idx < 0)
        return;
    MPI_T_cvar_handle h;
    int count;
    T_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    CHECK(count >= 8, "CREDO_FC count %d too small for a scheme name", count);
    char *val = calloc((size_t)count, 1);
    T_OK(MPI_T_cvar_read(h, val));
    const char *env = getenv("CREDO_FC");
    if (env && *env)
        CHECK(strcmp(val, env) == 0, "CREDO_FC cvar '%s' != environment '%s'", val, env);
    else
        CHECK(strcmp(val, "static") == 0, "CREDO_FC cvar '%s' != default 'static'", val);
    if (rank <= 0)
        printf("CREDO_FC cvar = %s\n", val);
    /* settings are read once at MPI_Init: writing must be refused */
    int rc = MPI_T_cvar_write(h, "none");
    CHECK(rc == MPI_T_ERR_CVAR_SET_NEVER || rc == MPI_T_ERR_CVAR_SET_NOT_NOW, "CREDO_FC write returned %d", rc);
    free(val);
    T_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle_free did not reset the handle");

    idx = find_cvar("CREDO_SLOTS_PER_PEER");
    CHECK(idx >= 0, "no CREDO_SLOTS_PER_PEER control variable");
    if (idx >= 0) {
        T_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
        CHECK(count == 1, "CREDO_SLOTS_PER_PEER count %d", count);
        int s = -1;
        T_OK(MPI_T_cvar_read(h, &s));
        env = getenv("CREDO_SLOTS_PER_PEER");
        int want = env && *env ? atoi(env) : 0; /* 0 = auto (config_slots_per_peer) */
        CHECK(s == want, "CREDO_SLOTS_PER_PEER cvar %d != %d", s, want);
        T_OK(MPI_T_cvar_handle_free(&h));
    }
}

enum { V_DATA, V_CREDIT, V_PIGGY, V_RECV, V_DELAYED, NV };
static const char *const vnames[NV] = {"data_packets_sent", "credit_packets_sent", "piggybacked_returns",
                                       "packets_received", "delayed_sends"};

int main(int argc, char **argv)
{
    int provided;
    /* MPI_T is usable before MPI_Init; counters started now must cover all later traffic */
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_T_pvar_session ses;
    T_OK(MPI_T_pvar_session_create(&ses));
    MPI_T_pvar_handle hv[NV];
    for (int v = 0; v < NV; v++) {
        int cls, count, idx = find_pvar(vnames[v], &cls);
        if (idx < 0) {
            fprintf(stderr, "mpit_client: no performance variable ending in %s\n", vnames[v]);
            return 1;
        }
        CHECK(cls == MPI_T_PVAR_CLASS_COUNTER, "%s is class %d, not COUNTER", vnames[v], cls);
        T_OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &hv[v], &count));
        CHECK(count == 1, "%s count %d", vnames[v], count);
        int rc = MPI_T_pvar_start(ses, hv[v]);
        CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_PVAR_NO_STARTSTOP, "start %s: %d", vnames[v], rc);
    }
    unsigned long long before = 12345;
    int rc = MPI_T_pvar_read(ses, hv[V_DATA], &before);
    CHECK((rc == MPI_SUCCESS && before == 0) || rc == MPI_T_ERR_INVALID_HANDLE,
          "before MPI_Init: read rc %d value %llu", rc, before);

    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        list_variables();
    check_cvars();

    /* One-way ring: every rank sends MSGS messages to its right neighbour and receives as many from
     * its left, so a receiver can never piggyback credits to its sender and must send credit packets. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *sbuf = malloc(MSG_BYTES), *rbuf = malloc((size_t)MSGS * MSG_BYTES);
    memset(sbuf, rank, MSG_BYTES);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * MSGS);
    for (int i = 0; i < MSGS; i++)
        MPI_Irecv(rbuf + (size_t)i * MSG_BYTES, MSG_BYTES, MPI_CHAR, left, 7, MPI_COMM_WORLD, &rq[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < MSGS; i++)
        MPI_Send(sbuf, MSG_BYTES, MPI_CHAR, right, 7, MPI_COMM_WORLD);
    MPI_Waitall(MSGS, rq, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    unsigned long long val[NV];
    for (int v = 0; v < NV; v++)
        T_OK(MPI_T_pvar_read(ses, hv[v], &val[v]));
    char scheme[64] = "";
    {
        int cls, count, idx = find_pvar("scheme", &cls);
        if (idx >= 0) {
            MPI_T_pvar_handle hs;
            T_OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &hs, &count));
            if (count <= (int)sizeof scheme)
                T_OK(MPI_T_pvar_read(ses, hs, scheme));
            T_OK(MPI_T_pvar_handle_free(ses, &hs));
        }
    }
    printf("rank %d scheme=%s data_packets=%llu credit_packets=%llu piggybacked=%llu received=%llu delayed=%llu\n",
           rank, scheme, val[V_DATA], val[V_CREDIT], val[V_PIGGY], val[V_RECV], val[V_DELAYED]);

    /* A 2 KB eager message needs one slot per 56 payload bytes after a 40-byte first slot (64-byte slots,
     * 37 in all); whatever the slot size, the payload alone needs at least MSGS*2048/slot bytes. */
    unsigned long long min_slots = (unsigned long long)MSGS * MSG_BYTES / 4096;
    if (size > 1) {
        CHECK(val[V_DATA] >= min_slots, "data packets %llu < %llu for %d messages", val[V_DATA], min_slots, MSGS);
        CHECK(val[V_RECV] >= min_slots, "received packets %llu < %llu", val[V_RECV], min_slots);
    }
    const char *fc = getenv("CREDO_FC");
    if (scheme[0] && fc && *fc)
        CHECK(strcmp(scheme, fc) == 0, "scheme pvar '%s' != CREDO_FC '%s'", scheme, fc);
    int credits = strcmp(scheme, "none") != 0;
    if (size > 1 && credits) {
        /* the ring moved MSGS*37 slots through a quota of S-C slots: credits had to come back */
        CHECK(val[V_CREDIT] + val[V_PIGGY] > 0, "no credits returned under scheme %s", scheme);
        CHECK(val[V_CREDIT] < val[V_RECV], "more credit packets (%llu) than packets received (%llu)",
              val[V_CREDIT], val[V_RECV]);
    }
    if (!credits)
        CHECK(val[V_CREDIT] == 0, "credit packets under the none scheme: %llu", val[V_CREDIT]);

    /* stop freezes a counter; reset clears it */
    rc = MPI_T_pvar_stop(ses, hv[V_DATA]);
    if (rc == MPI_SUCCESS) {
        unsigned long long a, b;
        T_OK(MPI_T_pvar_read(ses, hv[V_DATA], &a));
        /* Sendrecv, not Send then Recv: a message longer than the quota (S = 12) would wait for a
         * receive that the head-to-head partner never posts */
        MPI_Sendrecv(sbuf, MSG_BYTES, MPI_CHAR, right, 8, rbuf, MSG_BYTES, MPI_CHAR, left, 8, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        T_OK(MPI_T_pvar_read(ses, hv[V_DATA], &b));
        CHECK(a == b, "stopped counter moved: %llu -> %llu", a, b);
        if (MPI_T_pvar_reset(ses, hv[V_DATA]) == MPI_SUCCESS) {
            T_OK(MPI_T_pvar_read(ses, hv[V_DATA], &b));
            CHECK(b == 0, "reset counter reads %llu", b);
        }
    }
    CHECK(MPI_T_pvar_read(ses, MPI_T_PVAR_HANDLE_NULL, &val[0]) == MPI_T_ERR_INVALID_HANDLE,
          "read through a null handle accepted");

    /* totals over all ranks: every data packet sent was received by someone */
    unsigned long long mine[2] = {val[V_DATA], val[V_RECV]}, tot[2];
    MPI_Allreduce(mine, tot, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total data packets sent %llu, packets received %llu\n", tot[0], tot[1]);
    if (size > 1)
        CHECK(tot[0] >= (unsigned long long)size * min_slots, "total data packets %llu", tot[0]);

    for (int v = 0; v < NV; v++)
        T_OK(MPI_T_pvar_handle_free(ses, &hv[v]));
    T_OK(MPI_T_pvar_session_free(&ses));
    CHECK(ses == MPI_T_PVAR_SESSION_NULL, "session_free did not reset the session");
    free(sbuf);
    free(rbuf);
    free(rq);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    T_OK(MPI_T_finalize());
    int ncvar = -1;
    CHECK(MPI_T_cvar_get_num(&ncvar) == MPI_T_ERR_NOT_INITIALIZED, "MPI_T usable after MPI_T_finalize");
    if (rank == 0)
        printf("mpit_client: %s\n", all || failures ? "FAILED" : "ok");
    return all || failures ? 1 : 0;
}
