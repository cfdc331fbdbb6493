/* ring_floor.c — the machine's floor for an 8-byte one-way latency between two processes, without MPI:
 * a flag ping-pong on one shared cache line, and on a ring of 64-byte slots like credo's mailbox. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One slot as credo lays it out: a sequence word the owner polls, then header and payload in the same
 * line. Each side writes the whole line before publishing, as an eager send does. */
typedef struct {
    _Atomic uint32_t seq;
    uint32_t hdr;
    uint64_t payload[7];
} __attribute__((aligned(64))) floor_slot;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    (void)sched_setaffinity(0, sizeof s, &s); /* best effort: a 1-CPU machine still gives a number */
}

/* Release: the payload stores must be visible before the peer can see the new seq. */
static void slot_put(floor_slot *s, uint32_t v)
{
    s->hdr = v;
    for (int k = 0; k < 7; k++)
        s->payload[k] = (uint64_t)v + (uint64_t)k;
    atomic_store_explicit(&s->seq, v, memory_order_release);
}

/* The wait loop pauses as every MPI's does: without it the reader's back-to-back loads keep pulling
 * the line away from the writer, and on the development VM the floor rose from about 0.25 to 0.34 us. */
static inline void floor_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t slot_get(floor_slot *s, uint32_t v)
{
    while (atomic_load_explicit(&s->seq, memory_order_acquire) != v)
        floor_pause();
    return s->payload[0];
}

/* Half round trip in microseconds over `iters` round trips; ring of `slots` slots each way. */
static double floor_run(long iters, uint32_t slots)
{
    size_t bytes = 2 * (size_t)slots * sizeof(floor_slot);
    floor_slot *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1.0;
    floor_slot *to1 = m, *to0 = m + slots;
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        munmap(m, bytes);
        return -1.0;
    }
    volatile uint64_t sink = 0;
    if (child == 0) {
        pin(1);
        for (long i = 1; i <= iters; i++) {
            sink += slot_get(&to1[i % slots], (uint32_t)i);
            slot_put(&to0[i % slots], (uint32_t)i);
        }
        _exit(0);
    }
    pin(0);
    long warm = iters / 10;
    double t0 = 0.0;
    for (long i = 1; i <= iters; i++) {
        if (i == warm + 1)
            t0 = now_s();
        slot_put(&to1[i % slots], (uint32_t)i);
        sink += slot_get(&to0[i % slots], (uint32_t)i);
    }
    double t = now_s() - t0;
    int status = 0;
    waitpid(child, &status, 0);
    munmap(m, bytes);
    (void)sink;
    return t * 1e6 / (2.0 * (double)(iters - warm));
}

int main(int argc, char **argv)
{
    long iters = 1000000;
    char slots_arg[256] = "1,256";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--slots") && i + 1 < argc) {
            snprintf(slots_arg, sizeof slots_arg, "%s", argv[++i]);
        } else {
            fprintf(stderr,
                    "usage: %s [--iters N] [--slots 1,256,...]\n"
                    "  half round trip of two processes (CPUs 0 and 1) handing a 64-byte slot back and forth;\n"
                    "  --slots: ring sizes (1 = one reused line; credo's mailbox has 256 slots at 2 ranks)\n",
                    argv[0]);
            return 2;
        }
    }
    if (iters < 10) {
        fprintf(stderr, "ring_floor: --iters must be at least 10\n");
        return 2;
    }
    printf("# ring_floor: half round trip of a 64-byte slot between two processes, no MPI\n");
    printf("# %10s %14s %8s\n", "slots", "latency(us)", "iters");
    for (char *tok = strtok(slots_arg, ","); tok; tok = strtok(NULL, ",")) {
        long slots = atol(tok);
        if (slots < 1 || slots > (1L << 20)) {
            fprintf(stderr, "ring_floor: slot count '%s' out of range 1..1048576\n", tok);
            return 2;
        }
        double us = floor_run(iters, (uint32_t)slots);
        if (us < 0) {
            perror("ring_floor");
            return 1;
        }
        printf("# %10ld %14.3f %8ld\n", slots, us, iters);
        printf("floor,%ld,%.6f,us\n", slots, us);
        fflush(stdout);
    }
    return 0;
}
