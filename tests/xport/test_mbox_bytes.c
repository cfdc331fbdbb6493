/* tests/xport/test_mbox_bytes.c — unit tests of the mailbox's byte helpers (shm_mbox.h): the small
 * copy of one-slot messages, the slot count of a chunk, and put/get of payloads across slots and
 * across the end of the ring, on a ring laid out exactly as a mailbox segment lays out its slots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xport/shm_mbox.h"

#define GUARD 0xA5

/* Every length 0..64 at every source and destination misalignment 0..7: the copy must produce
 * exactly the source bytes and leave the bytes around the destination untouched. */
static void test_copy_small_exact(void **unused)
{
    (void)unused;
    unsigned char src[64 + 16], dst[64 + 32];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    for (size_t n = 0; n <= 64; n++)
        for (size_t so = 0; so < 8; so++)
            for (size_t doff = 0; doff < 8; doff++) {
                memset(dst, GUARD, sizeof dst);
                credo_copy_small(dst + 8 + doff, src + so, n);
                for (size_t i = 0; i < sizeof dst; i++) {
                    int inside = i >= 8 + doff && i < 8 + doff + n;
                    unsigned char want = inside ? src[so + (i - 8 - doff)] : GUARD;
                    if (dst[i] != want)
                        fail_msg("n=%zu src+%zu dst+%zu: byte %zu is 0x%02x, expected 0x%02x", n, so, doff,
                                 i, dst[i], want);
                }
            }
}

/* A ring of `cap` slots of `slot_size` bytes, addressed the way a mapped segment is. */
static mbox make_ring(uint32_t slot_size, uint32_t cap, unsigned char **mem)
{
    uint32_t shift = 0;
    while ((1u << shift) < slot_size)
        shift++;
    *mem = aligned_alloc(64, (size_t)slot_size * cap);
    assert_non_null(*mem);
    memset(*mem, GUARD, (size_t)slot_size * cap);
    mbox mb = {.ctl = NULL, .slots = *mem, .slot_size = slot_size, .slot_shift = shift, .mask = cap - 1,
               .bound = cap, .seg_bytes = 0};
    return mb;
}

static void test_more_slots(void **unused)
{
    (void)unused;
    unsigned char *mem;
    mbox mb = make_ring(64, 8, &mem);
    const size_t first_off = 24; /* slot header + message header */
    assert_int_equal(mbox_more_slots(&mb, first_off, 0), 0);
    assert_int_equal(mbox_more_slots(&mb, first_off, 40), 0);  /* fills the first slot */
    assert_int_equal(mbox_more_slots(&mb, first_off, 41), 1);
    assert_int_equal(mbox_more_slots(&mb, first_off, 96), 1);  /* 40 + 56 */
    assert_int_equal(mbox_more_slots(&mb, first_off, 97), 2);
    assert_int_equal(mbox_more_slots(&mb, first_off, 2048), 36); /* 1 + 36 = the 37 slots of 2 KiB */
    /* it agrees with the chunk size the transport uses */
    for (size_t len = 0; len < 4096; len++)
        assert_int_equal(1 + mbox_more_slots(&mb, first_off, len), mbox_slots_for(&mb, first_off, len));
    free(mem);
}

/* Payloads written with put and read back with get, starting near the end of the ring so chunks
 * wrap: the bytes come back intact and the slot headers (first 8 bytes of later slots) are not
 * written by either. */
static void test_put_get_wraps(void **unused)
{
    (void)unused;
    unsigned char *mem;
    const uint32_t cap = 16;
    mbox mb = make_ring(64, cap, &mem);
    unsigned char in[600], out[600 + 8];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 13 + 5);
    for (uint64_t start = cap - 3; start < cap + 2; start++)
        for (size_t len = 0; len <= 500; len += 37) {
            memset(mem, GUARD, (size_t)64 * cap);
            mbox_put_bytes(&mb, start, 24, in, len);
            memset(out, 0, sizeof out);
            mbox_get_bytes(&mb, start, 24, out, len);
            assert_memory_equal(out, in, len);
            size_t more = mbox_more_slots(&mb, 24, len);
            for (size_t k = 1; k <= more; k++) {
                const unsigned char *h = mbox_slot(&mb, start + k);
                for (size_t b = 0; b < sizeof(mbox_slot_hdr); b++)
                    if (h[b] != GUARD)
                        fail_msg("start %llu len %zu: header byte %zu of slot +%zu overwritten",
                                 (unsigned long long)start, len, b, k);
            }
        }
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_small_exact),
        cmocka_unit_test(test_more_slots),
        cmocka_unit_test(test_put_get_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
