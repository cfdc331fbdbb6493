/* tests/boot/boot_probe.c — a rank that exercises the bootstrap client end to end (init, put, fence,
 * get of every rank's key, finalize) and, on request, misbehaves so launcher tests can watch. */
#include "boot/boot.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank_code(const char *spec, int rank, int *code)
{
    /* spec "R:C" or "R" (code 0); R may be "all" */
    int r = -1, c = 0;
    if (strncmp(spec, "all", 3) == 0) {
        r = rank;
        if (spec[3] == ':')
            c = atoi(spec + 4);
    } else if (sscanf(spec, "%d:%d", &r, &c) < 1) {
        return 0;
    }
    if (r != rank)
        return 0;
    *code = c;
    return 1;
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "boot_probe rank %d: ", info.rank);                                       \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        return 1;                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    const char *crash = NULL, *exit_early = NULL, *exit_late = NULL, *abort_spec = NULL;
    int expect_size = -1, expect_singleton = 0, make_shm = 0, lines = 0, vallen = 64, extra_keys = 0;
    double sleep_s = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--crash"))
            crash = v, i++;
        else if (!strcmp(a, "--exit"))
            exit_early = v, i++;
        else if (!strcmp(a, "--exit-after-finalize"))
            exit_late = v, i++;
        else if (!strcmp(a, "--abort"))
            abort_spec = v, i++;
        else if (!strcmp(a, "--expect-size"))
            expect_size = atoi(v), i++;
        else if (!strcmp(a, "--expect-singleton"))
            expect_singleton = 1;
        else if (!strcmp(a, "--shm"))
            make_shm = 1;
        else if (!strcmp(a, "--lines"))
            lines = atoi(v), i++;
        else if (!strcmp(a, "--keys"))
            extra_keys = atoi(v), i++;
        else if (!strcmp(a, "--vallen"))
            vallen = atoi(v), i++;
        else if (!strcmp(a, "--sleep"))
            sleep_s = atof(v), i++;
        else if (!strcmp(a, "--marker"))
            i++; /* only there so tests can find this process in /proc */
        else {
            fprintf(stderr, "boot_probe: unknown argument '%s'\n", a);
            return 2;
        }
    }

    boot_info info = {.rank = -1};
    char err[512];
    if (boot_init(&info, err, sizeof err) != 0)
        FAIL("boot_init failed: %s", err);
    if (expect_size >= 0 && info.size != expect_size)
        FAIL("size %d, expected %d", info.size, expect_size);
    if (expect_singleton && (!info.singleton || info.rank != 0 || info.size != 1 ||
                             strncmp(info.jobid, "single-", 7) != 0))
        FAIL("not a proper singleton: rank %d size %d jobid %s", info.rank, info.size, info.jobid);
    if (!info.jobid[0] || strlen(info.jobid) > BOOT_JOBID_MAX || strspn(info.jobid,
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(info.jobid))
        FAIL("bad jobid '%s'", info.jobid);

    if (make_shm) {
        /* The way the transport names its segment. */
        char path[256];
        snprintf(path, sizeof path, "/dev/shm/credo.%s.%d", info.jobid, info.rank);
        int fd = open(path, O_CREAT | O_RDWR, 0600);
        if (fd < 0)
            FAIL("cannot create %s", path);
        close(fd);
    }

    /* Values carry the rank, the job id and filler up to vallen, so truncation is caught. */
    if ((size_t)vallen > boot_value_max())
        vallen = (int)boot_value_max();
    char key[64], *val = malloc((size_t)vallen + 1), *got = malloc((size_t)vallen + 16);
    if (!val || !got)
        FAIL("out of memory");
    snprintf(key, sizeof key, "probe-%d", info.rank);
    int n = snprintf(val, (size_t)vallen + 1, "r%d-%s-", info.rank, info.jobid);
    for (int i = n; i < vallen; i++)
        val[i] = (char)('a' + (i + info.rank) % 26);
    val[vallen > n ? vallen : n] = '\0';
    if (boot_put(key, val) != 0)
        FAIL("put failed: %s", boot_last_error());
    for (int k = 0; k < extra_keys; k++) {
        char ek[64], ev[64];
        snprintf(ek, sizeof ek, "extra-%d-%d", info.rank, k);
        snprintf(ev, sizeof ev, "%d.%d", k, info.rank);
        if (boot_put(ek, ev) != 0)
            FAIL("put of %s failed: %s", ek, boot_last_error());
    }
    if (boot_put("bad key", "x") == 0)
        FAIL("put of a key with a space succeeded");
    if (boot_fence() != 0)
        FAIL("fence failed: %s", boot_last_error());
    for (int r = 0; r < info.size; r++) {
        snprintf(key, sizeof key, "probe-%d", r);
        if (boot_get(r, key, got, (size_t)vallen + 16) != 0)
            FAIL("get of %s failed: %s", key, boot_last_error());
        char head[160];
        snprintf(head, sizeof head, "r%d-%s-", r, info.jobid);
        if (strncmp(got, head, strlen(head)) != 0 || strlen(got) != strlen(val))
            FAIL("value of %s is '%.80s' (length %zu), expected '%s...' of length %zu", key, got,
                 strlen(got), head, strlen(val));
        for (size_t i = strlen(head); i < strlen(got); i++)
            if (got[i] != (char)('a' + ((int)i + r) % 26))
                FAIL("value of %s corrupt at byte %zu", key, i);
    }
    /* The next rank's extra keys: the KVS holds size * extra_keys of them. */
    for (int k = 0; k < extra_keys; k++) {
        char ek[64], ev[64];
        int peer = (info.rank + 1) % info.size;
        snprintf(ek, sizeof ek, "extra-%d-%d", peer, k);
        snprintf(ev, sizeof ev, "%d.%d", k, peer);
        if (boot_get(peer, ek, got, (size_t)vallen + 16) != 0 || strcmp(got, ev) != 0)
            FAIL("extra key %s: got '%s', expected '%s'", ek, got, ev);
    }
    if (boot_get(0, "no-such-key", got, 16) == 0)
        FAIL("get of a missing key succeeded");

    for (int i = 0; i < lines; i++) {
        printf("out line %d of rank %d\n", i, info.rank);
        fprintf(stderr, "err line %d of rank %d\n", i, info.rank);
    }

    int code;
    if (crash && rank_code(crash, info.rank, &code))
    {
        signal(SIGSEGV, SIG_DFL); /* sanitizers catch SIGSEGV; the launcher must see a real signal death */
        raise(SIGSEGV);
    }
    if (exit_early && rank_code(exit_early, info.rank, &code))
        _exit(code);
    if (abort_spec && rank_code(abort_spec, info.rank, &code))
        boot_abort(code, "boot_probe was asked to abort");
    if (sleep_s > 0)
        usleep((useconds_t)(sleep_s * 1e6));
    if (crash || exit_early || abort_spec) {
        /* The survivors wait in a second fence; only the launcher's teardown ends them. */
        boot_fence();
        pause();
    }
    free(val);
    free(got);
    if (boot_finalize() != 0)
        FAIL("finalize failed: %s", boot_last_error());
    if (exit_late && rank_code(exit_late, info.rank, &code))
        return code;
    if (info.rank == 0)
        printf("boot_probe: %d ranks ok, jobid %s\n", info.size, info.jobid);
    if (lines)
        printf("unterminated %d", info.rank); /* the launcher must forward it at exit */
    return 0;
}
