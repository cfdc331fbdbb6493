/* tests/mpi/tevents.c — MPI 4.0 tools-interface events (§15.3.8) as a tool sees them through the
 * standard calls: the event sources and their timestamps, the event types (credo has none, so every
 * call on an event index, registration or instance must fail cleanly), events per category, and
 * the MPI_T_ERR_NOT_INITIALIZED answers outside MPI_T_init_thread/MPI_T_finalize. np 1-2. */
#include <time.h>

#include "testutil.h"

/* A tool's MPI_T calls must return exactly `want`. */
#define T_EXPECT(call, want)                                                                       \
    do {                                                                                           \
        int t_rc_ = (call);                                                                        \
        if (t_rc_ != (want))                                                                       \
            FAIL("%s returned %d, expected %s (%d)", #call, t_rc_, #want, (int)(want));            \
    } while (0)

static int callbacks_run; /* by any event or free callback: must stay 0 */

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety s, void *ud)
{
    (void)ev, (void)reg, (void)s, (void)ud;
    callbacks_run++;
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety s, void *ud)
{
    (void)reg, (void)s, (void)ud;
    callbacks_run++;
}

static void on_dropped(MPI_Count n, MPI_T_event_registration reg, int src, MPI_T_cb_safety s, void *ud)
{
    (void)n, (void)reg, (void)src, (void)s, (void)ud;
    callbacks_run++;
}

/* Every event-related call reports MPI_T_ERR_NOT_INITIALIZED when the interface is not initialized. */
static void check_not_initialized(const char *when)
{
    int n = -7;
    MPI_Count ts = -7;
    MPI_T_event_registration reg = MPI_T_EVENT_REGISTRATION_NULL;
    int idx[2] = {-7, -7};
    T_EXPECT(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_get_index("x", &n), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_handle_free(reg, NULL, on_free), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_event),
             MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_event_read(NULL, 0, &n), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_category_get_num_events(0, &n), MPI_T_ERR_NOT_INITIALIZED);
    T_EXPECT(MPI_T_category_get_events(0, 2, idx), MPI_T_ERR_NOT_INITIALIZED);
    CHECK(n == -7 && ts == -7 && idx[0] == -7 && reg == MPI_T_EVENT_REGISTRATION_NULL,
          "%s: a refused call wrote its output (n %d, ts %lld, idx %d)", when, n, (long long)ts, idx[0]);
}

static double wtime_of(MPI_Count ticks, MPI_Count tps)
{
    return (double)ticks / (double)tps;
}

static void check_sources(void)
{
    int nsrc = -1;
    MPI_OK(MPI_T_source_get_num(&nsrc));
    CHECK(nsrc == 1, "expected one event source, got %d", nsrc);
    T_EXPECT(MPI_T_source_get_num(NULL), MPI_T_ERR_INVALID);
    int pnsrc = -1; /* the profiling interface covers the tools interface (MPI 4.0 §15.3.11) */
    MPI_OK(PMPI_T_source_get_num(&pnsrc));
    CHECK(pnsrc == nsrc, "PMPI_T_source_get_num says %d, MPI_T_source_get_num %d", pnsrc, nsrc);

    /* the string convention: length only, then a short buffer (truncated, terminated), then enough */
    int name_len = 0, desc_len = 0;
    MPI_OK(MPI_T_source_get_info(0, NULL, &name_len, NULL, &desc_len, NULL, NULL, NULL, NULL));
    CHECK(name_len > 1 && desc_len > 1, "source name/desc lengths %d/%d", name_len, desc_len);
    char name[256], desc[512], small[3] = {'x', 'x', 'x'};
    int small_len = (int)sizeof small;
    MPI_OK(MPI_T_source_get_info(0, small, &small_len, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(small_len == name_len && small[sizeof small - 1] == '\0', "truncated name: len %d, last byte %d",
          small_len, small[sizeof small - 1]);
    int nl = (int)sizeof name, dl = (int)sizeof desc;
    MPI_T_source_order order = (MPI_T_source_order)-1;
    MPI_Count tps = -1, max_ticks = -1;
    MPI_Info info = MPI_INFO_NULL;
    MPI_OK(MPI_T_source_get_info(0, name, &nl, desc, &dl, &order, &tps, &max_ticks, &info));
    CHECK(nl == name_len && (int)strlen(name) + 1 == nl && dl == desc_len && (int)strlen(desc) + 1 == dl,
          "source strings: name '%s' (%d), desc %d", name, nl, dl);
    CHECK(strncmp(small, name, sizeof small - 1) == 0, "truncated name '%s' is not a prefix of '%s'", small, name);
    CHECK(order == MPI_T_SOURCE_ORDERED || order == MPI_T_SOURCE_UNORDERED, "ordering %d", (int)order);
    CHECK(tps > 0 && max_ticks > 0, "ticks per second %lld, max ticks %lld", (long long)tps, (long long)max_ticks);
    /* the info object is the caller's: it must be a real one that MPI_Info_free accepts */
    CHECK(info != MPI_INFO_NULL, "source info not returned");
    int nkeys = -1;
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys >= 0, "source info has %d keys", nkeys);
    MPI_OK(MPI_Info_free(&info));
#ifdef CREDO_STATS
    CHECK(strcmp(name, "credo") == 0 && order == MPI_T_SOURCE_ORDERED && tps == 1000000000LL,
          "credo's source: name '%s', ordering %d, %lld ticks/s", name, (int)order, (long long)tps);
#endif

    T_EXPECT(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_source_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    MPI_Count ts = -5;
    T_EXPECT(MPI_T_source_get_timestamp(nsrc, &ts), MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_source_get_timestamp(0, NULL), MPI_T_ERR_INVALID);
    CHECK(ts == -5, "timestamp written by a refused call");

    /* timestamps: an ordered source never goes back, and they advance at ticks_per_second as the
     * MPI_Wtime clock does (a 20 ms sleep, measured both ways) */
    MPI_Count prev = 0, t0, t1;
    for (int i = 0; i < 10000; i++) {
        MPI_OK(MPI_T_source_get_timestamp(0, &ts));
        CHECK(ts >= 0 && ts <= max_ticks, "timestamp %lld outside 0..%lld", (long long)ts, (long long)max_ticks);
        if (order == MPI_T_SOURCE_ORDERED)
            CHECK(ts >= prev, "timestamp went back: %lld after %lld", (long long)ts, (long long)prev);
        prev = ts;
    }
    double w0 = MPI_Wtime();
    MPI_OK(MPI_T_source_get_timestamp(0, &t0));
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    MPI_OK(MPI_T_source_get_timestamp(0, &t1));
    double w1 = MPI_Wtime();
    double dt = wtime_of(t1 - t0, tps), dw = w1 - w0;
    CHECK(t1 > t0 && dt >= 0.019 && dt <= dw + 1e-3, "20 ms sleep: %.6f s of source time, %.6f s of MPI_Wtime",
          dt, dw);
    tu_note("one event source '%s', %lld ticks/s, timestamps monotonic and in step with MPI_Wtime", name,
            (long long)tps);
}

static void check_events(void)
{
    int nev = -1;
    MPI_OK(MPI_T_event_get_num(&nev));
    CHECK(nev == 0, "expected no event types, got %d", nev);
    T_EXPECT(PMPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_event_get_num(NULL), MPI_T_ERR_INVALID);

    /* every call on an event index: index 0 (one past the last) and -1 */
    for (int idx = -1; idx <= nev; idx++) {
        char name[64] = "untouched";
        int name_len = (int)sizeof name, verb = -3, nelem = -3, bind = -3;
        MPI_Info info = MPI_INFO_NULL;
        T_EXPECT(MPI_T_event_get_info(idx, name, &name_len, &verb, NULL, NULL, &nelem, NULL, &info, NULL, NULL,
                                      &bind),
                 MPI_T_ERR_INVALID_INDEX);
        CHECK(strcmp(name, "untouched") == 0 && verb == -3 && nelem == -3 && bind == -3 && info == MPI_INFO_NULL,
              "event_get_info(%d) failed but wrote its outputs", idx);
        MPI_T_event_registration reg = MPI_T_EVENT_REGISTRATION_NULL;
        T_EXPECT(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
        CHECK(reg == MPI_T_EVENT_REGISTRATION_NULL, "handle_alloc(%d) failed but returned a handle", idx);
    }
    int idx = -9;
    T_EXPECT(MPI_T_event_get_index("credo_no_such_event", &idx), MPI_T_ERR_INVALID_NAME);
    T_EXPECT(MPI_T_event_get_index("", &idx), MPI_T_ERR_INVALID_NAME);
    T_EXPECT(MPI_T_event_get_index(NULL, &idx), MPI_T_ERR_INVALID);
    T_EXPECT(MPI_T_event_get_index("x", NULL), MPI_T_ERR_INVALID);
    CHECK(idx == -9, "event_get_index failed but wrote %d", idx);

    /* registration calls on a handle that handle_alloc never gave out */
    MPI_T_event_registration reg = MPI_T_EVENT_REGISTRATION_NULL;
    MPI_Info info = MPI_INFO_NULL;
    MPI_OK(MPI_Info_create(&info));
    MPI_Info used = MPI_INFO_NULL;
    T_EXPECT(MPI_T_event_handle_set_info(reg, info), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_handle_get_info(reg, &used), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, info, &idx, on_event),
             MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, info), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &used),
             MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_set_dropped_handler(reg, on_dropped), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_handle_free(reg, &idx, on_free), MPI_T_ERR_INVALID_HANDLE);
    CHECK(used == MPI_INFO_NULL, "a get_info on an invalid handle returned an info object");
    MPI_OK(MPI_Info_free(&info));

    /* instance calls: instances exist only inside callbacks, so none is valid here */
    char buf[64];
    MPI_Count ts = -4;
    int src = -4;
    T_EXPECT(MPI_T_event_read(NULL, 0, buf), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_copy(NULL, buf), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_get_timestamp(NULL, &ts), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_get_source(NULL, &src), MPI_T_ERR_INVALID_HANDLE);
    CHECK(ts == -4 && src == -4, "instance calls failed but wrote their outputs");
    tu_note("no event types: index, registration and instance calls all refused");
}

static void check_categories(void)
{
    int ncat = -1;
    MPI_OK(MPI_T_category_get_num(&ncat));
    CHECK(ncat >= 0, "category count %d", ncat);
    for (int c = 0; c < ncat; c++) {
        int n = -1, idx[4] = {-2, -2, -2, -2};
        MPI_OK(MPI_T_category_get_num_events(c, &n));
        CHECK(n == 0, "category %d holds %d events, but there are no event types", c, n);
        MPI_OK(MPI_T_category_get_events(c, 4, idx));
        CHECK(idx[0] == -2 && idx[3] == -2, "category %d: get_events wrote index %d", c, idx[0]);
        MPI_OK(MPI_T_category_get_events(c, 0, NULL));
        T_EXPECT(MPI_T_category_get_num_events(c, NULL), MPI_T_ERR_INVALID);
        T_EXPECT(MPI_T_category_get_events(c, -1, idx), MPI_T_ERR_INVALID);
        T_EXPECT(MPI_T_category_get_events(c, 2, NULL), MPI_T_ERR_INVALID);
    }
    int n = -1, idx[1];
    T_EXPECT(MPI_T_category_get_num_events(ncat, &n), MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_category_get_num_events(-1, &n), MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_category_get_events(ncat, 1, idx), MPI_T_ERR_INVALID_INDEX);
    CHECK(n == -1, "category_get_num_events failed but wrote %d", n);
    tu_note("%d categories, no events in any", ncat);
}

int main(int argc, char **argv)
{
    /* a tool may use MPI_T before MPI_Init, and must initialize it first */
    check_not_initialized("before MPI_T_init_thread");
    int provided = -1;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    check_sources(); /* before MPI_Init too */

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_sources();
    check_events();
    check_categories();

    /* traffic while the interface is up raises nothing: no callback could be registered */
    int token = rank, got = -1;
    MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT, (rank + size - 1) % size, 5,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == (rank + size - 1) % size, "ring token %d", got);
    CHECK(callbacks_run == 0, "%d event callbacks ran", callbacks_run);

    /* nested initialization: one MPI_T_finalize of two leaves the interface up */
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_finalize());
    int nsrc = -1;
    MPI_OK(MPI_T_source_get_num(&nsrc));
    MPI_OK(MPI_T_finalize());
    check_not_initialized("after the last MPI_T_finalize");
    T_EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);

    MPI_Barrier(MPI_COMM_WORLD);
    tu_note("tools-interface events on %d ranks", size);
    MPI_Finalize();
    return 0;
}
