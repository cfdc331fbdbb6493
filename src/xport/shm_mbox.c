/* src/xport/shm_mbox.c — creating, attaching and sleeping on shared-memory mailboxes.
 * The hot paths (reserve, publish, poll) are inline in shm_mbox.h. */
#include "xport/shm_mbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(mbox_slot_hdr) == 8, "slot header is 8 bytes");
_Static_assert(sizeof(mbox_ctl) == 4 * MBOX_CACHELINE, "control block is four cache lines");

static uint32_t log2u(uint32_t v)
{
    uint32_t s = 0;
    while ((1u << s) < v)
        s++;
    return s;
}

static void mbox_set_view(mbox *mb, mbox_ctl *ctl)
{
    mb->ctl = ctl;
    mb->ring_fd = -1;
    mb->slot_size = ctl->slot_size;
    mb->slot_shift = log2u(ctl->slot_size);
    mb->mask = ctl->cap - 1;
    mb->bound = ctl->bound;
    mb->seg_bytes = ctl->seg_bytes;
    mb->slots = (unsigned char *)ctl + sizeof(mbox_ctl);
    mb->pp_area = mbox_prepush_area(ctl);
    mb->pp_unit = mbox_prepush_unit(ctl);
    mb->pp_nunits = mbox_prepush_nunits(ctl);
    mb->copy_done = (_Atomic uint64_t *)(void *)((unsigned char *)ctl + ctl->claims_off);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Maps every page of the control block and the ring now, in this process, instead of at the first
 * message that reaches it: a minor fault costs about 14 us on the development VM, and a 512-slot
 * ring (8 pages) met by a benchmark's first few hundred iterations made a 2-rank barrier 0.65-0.99
 * us instead of 0.25. The staging area is left to fault on first use. Best effort: a kernel without
 * MADV_POPULATE_WRITE gets the pages touched by reads (writable shared tmpfs pages then map
 * writable). */
static void mbox_prefault(void *start, size_t bytes)
{
    if (madvise(start, bytes, MADV_POPULATE_WRITE) == 0)
        return;
    for (size_t off = 0; off < bytes; off += 4096)
        (void)*(volatile const unsigned char *)((const unsigned char *)start + off);
}

int mbox_create(mbox *mb, const char *name, uint32_t slot_size, uint32_t bound, uint32_t nclaims,
                size_t staging_bytes, size_t prepush_bytes, int rank, char *err, size_t errlen)
{
    uint32_t cap = 1u << log2u(bound < 2 ? 2 : bound);
    size_t ring = (size_t)cap * slot_size;
    /* the copy done words start on a line of their own: a sender reads its word while it waits */
    size_t claims_off = (sizeof(mbox_ctl) + ring + MBOX_CACHELINE - 1) & ~(size_t)(MBOX_CACHELINE - 1);
    size_t staging_off = (claims_off + (size_t)nclaims * sizeof(uint64_t) + 4095) & ~(size_t)4095;
    size_t bytes = staging_off + staging_bytes + prepush_bytes;
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "shm_open(%s): %s", name, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)bytes) != 0) {
        snprintf(err, errlen, "ftruncate(%s, %zu): %s", name, bytes, strerror(errno));
        close(fd);
        shm_unlink(name);
        return -1;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "mmap(%s): %s", name, strerror(errno));
        shm_unlink(name);
        return -1;
    }
    mbox_ctl *ctl = p; /* fresh tmpfs pages are zero: every slot's seq is 0, never a valid index + 1 */
    ctl->magic = MBOX_MAGIC;
    ctl->version = MBOX_VERSION;
    ctl->slot_size = slot_size;
    ctl->cap = cap;
    ctl->bound = bound;
    ctl->seg_bytes = bytes;
    ctl->staging_off = staging_off;
    ctl->staging_bytes = staging_bytes;
    ctl->claims_off = claims_off;
    ctl->owner_pid = (int32_t)getpid();
    ctl->owner_rank = rank;
    mbox_set_view(mb, ctl);
    mbox_prefault(ctl, staging_off);
    /* Every medium message goes through the prepush area: fault it in now too, not on the first. */
    if (prepush_bytes)
        mbox_prefault(mbox_prepush_area(ctl), prepush_bytes);
    return 0;
}

int mbox_attach(mbox *mb, const char *name, char *err, size_t errlen)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        snprintf(err, errlen, "shm_open(%s): %s", name, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(mbox_ctl)) {
        snprintf(err, errlen, "mailbox %s is truncated", name);
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "mmap(%s): %s", name, strerror(errno));
        return -1;
    }
    mbox_ctl *ctl = p;
    if (ctl->magic != MBOX_MAGIC || ctl->version != MBOX_VERSION || ctl->seg_bytes != (uint64_t)st.st_size ||
        ctl->claims_off < sizeof(mbox_ctl) || ctl->claims_off > ctl->staging_off || ctl->staging_off > ctl->seg_bytes) {
        snprintf(err, errlen, "mailbox %s has an unknown layout (another credo version?)", name);
        munmap(p, (size_t)st.st_size);
        return -1;
    }
    mbox_set_view(mb, ctl);
    /* the writer's side faults too (each process maps a peer's ring on its own); at 256 ranks of
     * the default S that is about 1 MiB of ring per peer, populated once at start-up */
    if (ctl->staging_off <= (uint64_t)st.st_size)
        mbox_prefault(ctl, (size_t)ctl->staging_off);
    return 0;
}

void mbox_detach(mbox *mb)
{
    if (mb->ctl)
        munmap(mb->ctl, mb->seg_bytes);
    mb->ctl = NULL;
}

void mbox_ring_doorbell(mbox *mb)
{
    uint32_t s = atomic_load_explicit(&mb->ctl->sleepers, memory_order_relaxed);
    if (s & (MBOX_POLL_SLEEPER - 1)) {
        atomic_fetch_add_explicit(&mb->ctl->bell, 1, memory_order_release);
        syscall(SYS_futex, &mb->ctl->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
    if (s >= MBOX_POLL_SLEEPER && mb->ring_fd >= 0) {
        uint64_t one = 1;
        ssize_t w = write(mb->ring_fd, &one, sizeof one); /* EAGAIN: the counter is full, awake anyway */
        (void)w;
    }
}

int mbox_poll_sleep_begin(mbox *mb, uint64_t next_idx)
{
    atomic_fetch_add_explicit(&mb->ctl->sleepers, MBOX_POLL_SLEEPER, memory_order_seq_cst);
    if (mbox_ready(mb, next_idx)) {
        atomic_fetch_sub_explicit(&mb->ctl->sleepers, MBOX_POLL_SLEEPER, memory_order_relaxed);
        return 0;
    }
    return 1;
}

void mbox_poll_sleep_end(mbox *mb)
{
    atomic_fetch_sub_explicit(&mb->ctl->sleepers, MBOX_POLL_SLEEPER, memory_order_relaxed);
}

void mbox_sleep(mbox *mb, uint64_t next_idx, uint32_t timeout_us)
{
    mbox_sleep_end(mb, next_idx, mbox_sleep_begin(mb), timeout_us);
}

/* seq_cst increment, then read the bell, then (in end) re-check: a writer that published before our
 * increment is seen by the re-check; one that publishes after it sees sleepers != 0 (unless its
 * unfenced load raced, which the timeout bounds) and bumps the bell, which either changes the
 * value futex_wait expects or wakes us. */
uint32_t mbox_sleep_begin(mbox *mb)
{
    atomic_fetch_add_explicit(&mb->ctl->sleepers, 1, memory_order_seq_cst);
    return atomic_load_explicit(&mb->ctl->bell, memory_order_seq_cst);
}

void mbox_sleep_end(mbox *mb, uint64_t next_idx, uint32_t bell, uint32_t timeout_us)
{
    if (!mbox_ready(mb, next_idx)) {
        struct timespec ts = {.tv_sec = timeout_us / 1000000u, .tv_nsec = (long)(timeout_us % 1000000u) * 1000L};
        syscall(SYS_futex, &mb->ctl->bell, FUTEX_WAIT, bell, &ts, NULL, 0);
    }
    atomic_fetch_sub_explicit(&mb->ctl->sleepers, 1, memory_order_relaxed);
}
