/* tests/boot/boot_client_test.c — the PMI client against fake launchers in forked processes: Slurm's
 * field order, byte-by-byte replies, garbage, a launcher that dies, bad PMI_FD/PMI_PORT settings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "boot/boot.h"
#include "boot/boot_internal.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum fake_mode { FAKE_SLURM_ORDER, FAKE_BYTEWISE, FAKE_DIE_AT_BARRIER, FAKE_GARBAGE, FAKE_CLOSE, FAKE_HYDRA_PORT };

static void send_reply(int fd, const char *msg, int bytewise)
{
    size_t n = strlen(msg);
    for (size_t i = 0; i < n;) {
        size_t chunk = bytewise ? 1 : n - i;
        ssize_t w = write(fd, msg + i, chunk);
        if (w <= 0)
            _exit(3);
        i += (size_t)w;
        if (bytewise)
            usleep(200);
    }
}

/* A one-rank PMI-1 launcher. Replies put fields in Slurm's order (rc first) so the client's
 * parser is exercised on an order it does not produce itself. */
static void fake_launcher(int fd, int mode)
{
    char line[8192], store_key[256] = "", store_val[4096] = "";
    size_t have = 0;
    int bytewise = mode == FAKE_BYTEWISE;
    if (mode == FAKE_CLOSE)
        _exit(0);
    if (mode == FAKE_HYDRA_PORT) {
        /* -pmi-port: expect initack, push size/rank/debug, then serve like Slurm. */
        mode = FAKE_SLURM_ORDER;
    }
    for (;;) {
        char *nl;
        while (!(nl = memchr(line, '\n', have))) {
            ssize_t n = read(fd, line + have, sizeof line - have - 1);
            if (n <= 0)
                _exit(0);
            have += (size_t)n;
        }
        *nl = '\0';
        char req[8192];
        strcpy(req, line);
        size_t used = (size_t)(nl - line) + 1;
        memmove(line, line + used, have - used);
        have -= used;

        if (mode == FAKE_GARBAGE) {
            send_reply(fd, "HTTP/1.1 400 Bad Request\n", 0);
            continue;
        }
        char reply[8300];
        if (strstr(req, "cmd=initack")) {
            send_reply(fd, "cmd=initack rc=0\ncmd=set size=1\ncmd=set rank=0\ncmd=set debug=0\n", bytewise);
            continue;
        }
        if (strstr(req, "cmd=init "))
            snprintf(reply, sizeof reply, "rc=0 pmi_subversion=1 pmi_version=1 cmd=response_to_init\n");
        else if (strstr(req, "cmd=get_maxes"))
            snprintf(reply, sizeof reply, "rc=0 vallen_max=1024 keylen_max=64 kvsname_max=256 cmd=maxes\n");
        else if (strstr(req, "cmd=get_my_kvsname"))
            snprintf(reply, sizeof reply, "rc=0 kvsname=%s cmd=my_kvsname\n",
                     "job.42/step:0.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
        else if (strstr(req, "cmd=get_appnum"))
            snprintf(reply, sizeof reply, "rc=0 appnum=3 cmd=appnum\n");
        else if (strstr(req, "cmd=put ")) {
            char *k = strstr(req, "key="), *v = strstr(req, "value=");
            if (!k || !v)
                _exit(4);
            snprintf(store_key, sizeof store_key, "%.*s", (int)strcspn(k + 4, " "), k + 4);
            snprintf(store_val, sizeof store_val, "%s", v + 6);
            snprintf(reply, sizeof reply, "rc=0 msg=success cmd=put_result\n");
        } else if (strstr(req, "cmd=barrier_in")) {
            if (mode == FAKE_DIE_AT_BARRIER)
                _exit(0);
            snprintf(reply, sizeof reply, "cmd=barrier_out rc=0\n");
        } else if (strstr(req, "cmd=get ")) {
            char *k = strstr(req, "key=");
            if (k && strcmp(k + 4, store_key) == 0)
                snprintf(reply, sizeof reply, "rc=0 value=%s msg=success cmd=get_result\n", store_val);
            else
                snprintf(reply, sizeof reply, "rc=-1 msg=key_not_found cmd=get_result\n");
        } else if (strstr(req, "cmd=finalize"))
            snprintf(reply, sizeof reply, "rc=0 cmd=finalize_ack\n");
        else
            snprintf(reply, sizeof reply, "rc=-1 cmd=unknown\n");
        send_reply(fd, reply, bytewise);
    }
}

static pid_t launcher_pid = -1;

/* Starts a fake launcher on a socketpair and points PMI_FD at the client end. */
static void start_fake(int mode)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    launcher_pid = fork();
    assert_true(launcher_pid >= 0);
    if (launcher_pid == 0) {
        close(sv[1]);
        fake_launcher(sv[0], mode);
        _exit(0);
    }
    close(sv[0]);
    char num[16];
    snprintf(num, sizeof num, "%d", sv[1]);
    setenv("PMI_FD", num, 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "1", 1);
}

static void stop_fake(void)
{
    if (launcher_pid > 0) {
        kill(launcher_pid, SIGKILL);
        waitpid(launcher_pid, NULL, 0);
    }
    launcher_pid = -1;
    /* The client end stays open: boot may already have closed that number, and reclosing could hit
     * an unrelated descriptor. A few leaked fds in a short test are harmless. */
    unsetenv("PMI_FD");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("CREDO_PMI");
}

static int teardown(void **state)
{
    (void)state;
    boot_finalize();
    stop_fake();
    return 0;
}

static void full_exchange(void)
{
    boot_info info;
    char err[512], val[2048];
    assert_int_equal(boot_init(&info, err, sizeof err), 0);
    assert_int_equal(info.rank, 0);
    assert_int_equal(info.size, 1);
    assert_int_equal(info.singleton, 0);
    assert_true(strlen(info.jobid) <= BOOT_JOBID_MAX);
    assert_int_equal(strspn(info.jobid, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"),
                     strlen(info.jobid));
    assert_int_equal(boot_put("card-0", "shm=abc=1"), 0);
    assert_int_equal(boot_fence(), 0);
    assert_int_equal(boot_get(0, "card-0", val, sizeof val), 0);
    assert_string_equal(val, "shm=abc=1");
    assert_int_not_equal(boot_get(0, "card-1", val, sizeof val), 0);
    assert_int_equal(boot_finalize(), 0);
}

static void test_slurm_field_order(void **state)
{
    (void)state;
    start_fake(FAKE_SLURM_ORDER);
    full_exchange();
}

static void test_bytewise_replies(void **state)
{
    (void)state;
    start_fake(FAKE_BYTEWISE);
    full_exchange();
}

static void test_jobid_sanitized(void **state)
{
    (void)state;
    start_fake(FAKE_SLURM_ORDER);
    boot_info info;
    char err[256];
    assert_int_equal(boot_init(&info, err, sizeof err), 0);
    assert_int_equal(strlen(info.jobid), BOOT_JOBID_MAX);
    assert_memory_equal(info.jobid, "job_42_step_0_ABC", 17);
    assert_int_equal(info.appnum, 3);
}

static void test_value_limits(void **state)
{
    (void)state;
    start_fake(FAKE_SLURM_ORDER);
    boot_info info;
    char err[256], big[1100];
    assert_int_equal(boot_init(&info, err, sizeof err), 0);
    assert_int_equal(boot_value_max(), 1023); /* vallen_max=1024 counts the NUL */
    memset(big, 'v', 1024);
    big[1024] = '\0';
    assert_int_not_equal(boot_put("k", big), 0);
    assert_non_null(strstr(boot_last_error(), "exceeds"));
    big[1023] = '\0';
    assert_int_equal(boot_put("k", big), 0);
    assert_int_not_equal(boot_put("k", "a;b"), 0);
    assert_int_not_equal(boot_put("", "x"), 0);
    char small[8];
    assert_int_not_equal(boot_get(0, "k", small, sizeof small), 0); /* does not fit: error, no overflow */
}

static void test_launcher_dies_at_barrier(void **state)
{
    (void)state;
    start_fake(FAKE_DIE_AT_BARRIER);
    boot_info info;
    char err[256];
    assert_int_equal(boot_init(&info, err, sizeof err), 0);
    assert_int_equal(boot_put("k", "v"), 0);
    assert_int_not_equal(boot_fence(), 0); /* EOF, not a hang */
    assert_non_null(strstr(boot_last_error(), "closed"));
}

static void test_garbage(void **state)
{
    (void)state;
    start_fake(FAKE_GARBAGE);
    boot_info info;
    char err[512];
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "not a PMI-1 server"));
}

static void test_launcher_closes(void **state)
{
    (void)state;
    start_fake(FAKE_CLOSE);
    boot_info info;
    char err[512];
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "closed the PMI connection"));
}

static void test_bad_pmi_fd(void **state)
{
    (void)state;
    boot_info info;
    char err[512];
    int p[2];
    assert_int_equal(pipe(p), 0);
    char num[16];
    snprintf(num, sizeof num, "%d", p[0]);
    setenv("PMI_FD", num, 1);
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "is not a socket"));
    close(p[1]);
    setenv("PMI_FD", "987", 1);
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "not an open file descriptor"));
    setenv("PMI_FD", "six", 1);
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "PMI_FD='six'"));
    close(p[0]);
    unsetenv("PMI_FD");
}

static void test_bad_pmi_port(void **state)
{
    (void)state;
    boot_info info;
    char err[512];
    setenv("PMI_ID", "0", 1);
    setenv("PMI_PORT", "nocolon", 1);
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "not host:port"));
    /* Nothing listens on port 1 of loopback: connection refused, reported. */
    setenv("PMI_PORT", "127.0.0.1:1", 1);
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "cannot connect"));
}

static void test_pmi_port_handshake(void **state)
{
    (void)state;
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(ls, 1), 0);
    assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &alen), 0);
    launcher_pid = fork();
    assert_true(launcher_pid >= 0);
    if (launcher_pid == 0) {
        int c = accept(ls, NULL, NULL);
        fake_launcher(c, FAKE_HYDRA_PORT);
        _exit(0);
    }
    close(ls);
    char port[64];
    snprintf(port, sizeof port, "localhost:%d", ntohs(a.sin_port));
    setenv("PMI_PORT", port, 1);
    setenv("PMI_ID", "0", 1);
    full_exchange();
}

static void test_bad_credo_pmi(void **state)
{
    (void)state;
    boot_info info;
    char err[512];
    setenv("PMI_FD", "0", 1);
    setenv("CREDO_PMI", "3", 1);
    assert_int_not_equal(boot_init(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "CREDO_PMI='3'"));
    unsetenv("PMI_FD");
}

static void test_singleton(void **state)
{
    (void)state;
    boot_info info;
    char err[512], val[64];
    assert_int_equal(boot_init(&info, err, sizeof err), 0);
    assert_int_equal(info.singleton, 1);
    assert_int_equal(info.size, 1);
    char expect[64];
    snprintf(expect, sizeof expect, "single-%d", (int)getpid());
    assert_string_equal(info.jobid, expect);
    assert_int_equal(boot_put("a", "1"), 0);
    assert_int_equal(boot_put("a", "2"), 0);
    assert_int_equal(boot_fence(), 0);
    assert_int_equal(boot_get(0, "a", val, sizeof val), 0);
    assert_string_equal(val, "2");
    assert_int_not_equal(boot_get(0, "b", val, sizeof val), 0);
}

static void test_field_parsing(void **state)
{
    (void)state;
    char v[16];
    int x;
    assert_int_equal(boot_field("rc=0 cmd=x value=a=b", ' ', "value", v, sizeof v), 0);
    assert_string_equal(v, "a=b");
    assert_int_equal(boot_field("cmd=x rcx=1 rc=7", ' ', "rc", v, sizeof v), 0);
    assert_string_equal(v, "7");
    assert_int_equal(boot_field("cmd=kvs-get-response;rc=0;found=TRUE;", ';', "found", v, sizeof v), 0);
    assert_string_equal(v, "TRUE");
    assert_int_not_equal(boot_field("cmd=x", ' ', "rc", v, sizeof v), 0);
    assert_int_not_equal(boot_field("value=0123456789abcdefXYZ", ' ', "value", v, sizeof v), 0);
    assert_int_not_equal(boot_field_int("rc=abc", ' ', "rc", &x), 0);
    assert_int_equal(boot_field_int("rc=-3", ' ', "rc", &x), 0);
    assert_int_equal(x, -3);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    unsetenv("PMI_FD");
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("CREDO_PMI");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_parsing),
        cmocka_unit_test_teardown(test_slurm_field_order, teardown),
        cmocka_unit_test_teardown(test_bytewise_replies, teardown),
        cmocka_unit_test_teardown(test_jobid_sanitized, teardown),
        cmocka_unit_test_teardown(test_value_limits, teardown),
        cmocka_unit_test_teardown(test_launcher_dies_at_barrier, teardown),
        cmocka_unit_test_teardown(test_garbage, teardown),
        cmocka_unit_test_teardown(test_launcher_closes, teardown),
        cmocka_unit_test_teardown(test_bad_pmi_fd, teardown),
        cmocka_unit_test_teardown(test_bad_pmi_port, teardown),
        cmocka_unit_test_teardown(test_pmi_port_handshake, teardown),
        cmocka_unit_test_teardown(test_bad_credo_pmi, teardown),
        cmocka_unit_test_teardown(test_singleton, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
