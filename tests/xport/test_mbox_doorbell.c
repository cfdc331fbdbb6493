/* tests/xport/test_mbox_doorbell.c — the mailbox doorbell on a real shared-memory segment: every
 * sleeping thread of the owner wakes on one ring, and a sleep returns at once when a packet waits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include "xport/shm_mbox.h"

#define LONG_SLEEP_US 10000000u /* 10 s: a sleeper the ring does not reach fails the bound below */
#define WAKE_BOUND_NS 3000000000ull

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct {
    mbox *mb;
    uint64_t slept_ns;
} sleeper;

static void *sleeper_main(void *arg)
{
    sleeper *s = arg;
    uint64_t t0 = now_ns();
    mbox_sleep(s->mb, 0, LONG_SLEEP_US);
    s->slept_ns = now_ns() - t0;
    return NULL;
}

static int make_box(mbox *mb, char *name, size_t len, const char *tag)
{
    snprintf(name, len, "/credo-test-doorbell.%d.%s", (int)getpid(), tag);
    shm_unlink(name);
    char err[256];
    return mbox_create(mb, name, 64, 64, 0, 0, 0, 0, err, sizeof err);
}

/* The application thread and the progress thread of one rank may both sleep on its doorbell; one
 * writer's ring must wake both (a single flag cleared by the first to wake hid the second). */
static void test_one_ring_wakes_every_sleeper(void **unused)
{
    (void)unused;
    mbox mb;
    char name[64];
    assert_int_equal(make_box(&mb, name, sizeof name, "two"), 0);
    sleeper s[2] = {{&mb, 0}, {&mb, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, sleeper_main, &s[i]), 0);
    uint64_t t0 = now_ns();
    while (atomic_load(&mb.ctl->sleepers) < 2 && now_ns() - t0 < WAKE_BOUND_NS)
        usleep(1000);
    assert_int_equal(atomic_load(&mb.ctl->sleepers), 2);
    usleep(20000); /* let both reach futex_wait */
    mbox_fill_hdr(&mb, 0, 1, 8 /* any kind: the mailbox does not read it */, 1);
    mbox_publish(&mb, 0);
    mbox_doorbell(&mb);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_true(s[i].slept_ns < WAKE_BOUND_NS);
    }
    assert_int_equal(atomic_load(&mb.ctl->sleepers), 0);
    mbox_detach(&mb);
    shm_unlink(name);
}

/* A packet published before the sleep: the re-check after announcing the sleeper returns at once. */
static void test_sleep_returns_when_packet_waits(void **unused)
{
    (void)unused;
    mbox mb;
    char name[64];
    assert_int_equal(make_box(&mb, name, sizeof name, "waiting"), 0);
    mbox_fill_hdr(&mb, 0, 1, 8 /* any kind: the mailbox does not read it */, 1);
    mbox_publish(&mb, 0);
    uint64_t t0 = now_ns();
    mbox_sleep(&mb, 0, LONG_SLEEP_US);
    assert_true(now_ns() - t0 < WAKE_BOUND_NS);
    assert_int_equal(atomic_load(&mb.ctl->sleepers), 0);
    mbox_detach(&mb);
    shm_unlink(name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_ring_wakes_every_sleeper),
        cmocka_unit_test(test_sleep_returns_when_packet_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
