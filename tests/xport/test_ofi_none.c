/* tests/xport/test_ofi_none.c — the network transport's stand-in for builds without libfabric
 * (xport/ofi_none.c compiled in, whatever this build has): every call fails with -ENOSYS or does
 * nothing, and the message tells the user what to install. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "xport/ofi.h"

static void test_every_call_says_enosys(void **unused)
{
    (void)unused;
    char err[256] = "";
    xofi_params p = {.rank = 0, .size = 2, .max_packet = 1024};
    assert_int_equal(xofi_built(), 0);
    assert_int_equal(xofi_open(&p, err, sizeof err), -ENOSYS);
    assert_non_null(strstr(err, "without libfabric"));
    assert_non_null(strstr(err, "libfabric-dev"));
    assert_string_equal(err, xofi_last_error());
    char card[64];
    assert_int_equal(xofi_card(card, sizeof card), -ENOSYS);
    assert_int_equal(xofi_connect(1, "00", err, sizeof err), -ENOSYS);
    assert_int_equal(xofi_send(1, "x", 1), -ENOSYS);
    assert_int_equal(xofi_progress(8, NULL, NULL, NULL), -ENOSYS);
    assert_int_equal(xofi_busy(), 0);
    xofi_mr *mr = NULL;
    assert_int_equal(xofi_mr_get(card, 1, &mr, NULL, NULL), -ENOSYS);
    assert_int_equal(xofi_read(1, card, 1, NULL, 0, 0, NULL), -ENOSYS);
    assert_int_equal(xofi_wait_fd(), -1);
    assert_int_equal(xofi_sleep_ok(), 0);
    xofi_stats st;
    memset(&st, 0xff, sizeof st);
    xofi_get_stats(&st);
    assert_int_equal(st.packets_sent, 0);
    assert_string_equal(xofi_provider_name(), "none");
    xofi_close();
    xofi_close();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_call_says_enosys)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
