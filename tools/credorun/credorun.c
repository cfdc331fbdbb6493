/* tools/credorun/credorun.c — the launcher: starts N local ranks, serves them PMI-1 (and PMI-2) over
 * one socketpair each from a poll() loop, forwards output, and tears the job down on any failure. */
#include "credo_version.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmi_field.h"

#define PMI_KVSNAME_MAX 256
#define PMI_KEYLEN_MAX 256
#define PMI_VALLEN_MAX 4096
/* A request can never be longer than key + value + framing; anything longer is garbage. */
#define PMI_MSG_MAX (PMI_KEYLEN_MAX + PMI_VALLEN_MAX + PMI_KVSNAME_MAX + 256)
#define TAG_LINE_MAX 4096

#define KILL_GRACE_MS 1000  /* SIGTERM, then SIGKILL this much later */
#define DRAIN_GRACE_MS 2000 /* after the last rank is reaped, wait this long for output pipes */

/* ---------------------------------------------------------------- options */

#define MAX_APPS 64 /* programs of one MPMD launch */

static struct {
    int nranks;
    int tag_output;
    int bind; /* -1 = default (core), 0 = none, 1 = core */
    int report_bindings;
    int ppn;            /* -ppn / --npernode / -N: ranks per node, -1 if not given */
    const char *wdir;   /* -wdir: the ranks' working directory */
    double timeout_s;
    /* MPMD ("-n 2 a : -n 3 b"): program i runs ranks [app_first[i], app_first[i + 1]) with
     * appnum i; napps == 1 for the usual single program */
    int napps;
    char **app_argv[MAX_APPS];
    int app_first[MAX_APPS + 1];
} opt = {.nranks = -1, .bind = -1, .ppn = -1};

/* The MPMD program (appnum) rank idx belongs to. */
static int app_of(int idx)
{
    int a = 0;
    while (a + 1 < opt.napps && idx >= opt.app_first[a + 1])
        a++;
    return a;
}

/* ---------------------------------------------------------------- ranks */

typedef struct out_stream {
    int fd; /* read end of the rank's stdout/stderr pipe, -1 when closed */
    int dest; /* 1 or 2 */
    size_t len;
    char buf[TAG_LINE_MAX];
} out_stream;

typedef struct rank_state {
    pid_t pid;
    int pmi_fd;          /* our end of the socketpair, -1 when closed */
    int pmi_version;     /* 0 = no init seen, 1, or 2 (length-framed) */
    int finalized;
    int in_barrier;
    int abort_pending;   /* sent a PMI-2 abort; its exit status will carry the code */
    int reaped;
    int status;          /* wait status once reaped */
    char *in;            /* request bytes not yet parsed */
    size_t in_len, in_cap;
    char *out;           /* reply bytes not yet written */
    size_t out_len, out_cap;
    out_stream streams[2];
} rank_state;

static rank_state *ranks;
static int nreaped;
static int barrier_count;
static char kvsname[64];

/* How the job ends: the first decisive event sets exit_code; otherwise the worst rank's status. */
static int exit_decided = 0;
static int exit_code = 0;
static int killing = 0;
static long long kill_deadline_ms = -1;  /* when to escalate to SIGKILL */
static long long timeout_deadline_ms = -1;
static long long abort_deadline_ms = -1; /* a PMI-2 aborter that does not exit by then is killed */
static int cleanup_pipe = -1; /* write end to the cleanup watchdog */
static pid_t watchdog_pid = -1;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "credorun: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "credorun: %s\n", line);
    fflush(stderr);
}

static int write_full(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* ---------------------------------------------------------------- KVS: open-addressing hash table */

typedef struct kv_entry {
    char *key, *value;
} kv_entry;

static kv_entry *kvs_tab;
static size_t kvs_cap, kvs_used;

static uint64_t kvs_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static kv_entry *kvs_slot(kv_entry *tab, size_t cap, const char *key)
{
    size_t i = (size_t)kvs_hash(key) & (cap - 1);
    while (tab[i].key && strcmp(tab[i].key, key) != 0)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

static void kvs_put(const char *key, const char *value)
{
    if ((kvs_used + 1) * 10 >= kvs_cap * 7) {
        size_t ncap = kvs_cap ? kvs_cap * 2 : 1024;
        kv_entry *ntab = calloc(ncap, sizeof *ntab);
        if (!ntab)
            die(1, "out of memory growing the key-value store");
        for (size_t i = 0; i < kvs_cap; i++)
            if (kvs_tab[i].key)
                *kvs_slot(ntab, ncap, kvs_tab[i].key) = kvs_tab[i];
        free(kvs_tab);
        kvs_tab = ntab;
        kvs_cap = ncap;
    }
    kv_entry *e = kvs_slot(kvs_tab, kvs_cap, key);
    char *v = strdup(value);
    if (!v)
        die(1, "out of memory in the key-value store");
    if (e->key) {
        free(e->value); /* a re-put replaces the value, as in hydra */
    } else {
        e->key = strdup(key);
        if (!e->key)
            die(1, "out of memory in the key-value store");
        kvs_used++;
    }
    e->value = v;
}

static const char *kvs_get(const char *key)
{
    if (!kvs_cap)
        return NULL;
    kv_entry *e = kvs_slot(kvs_tab, kvs_cap, key);
    return e->key ? e->value : NULL;
}

/* ---------------------------------------------------------------- job teardown */

static const char *signame(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev) {
        snprintf(buf, sizeof buf, "SIG%s", abbrev);
        return buf;
    }
    snprintf(buf, sizeof buf, "%d", sig);
    return buf;
}

static void close_pmi(rank_state *r)
{
    if (r->pmi_fd >= 0) {
        close(r->pmi_fd);
        r->pmi_fd = -1;
    }
    r->out_len = 0;
}

static void signal_ranks(int sig)
{
    for (int i = 0; i < opt.nranks; i++) {
        if (ranks[i].pid > 0 && !ranks[i].reaped) {
            /* Each rank leads its own process group, so helpers it forked go too. */
            kill(-ranks[i].pid, sig);
            kill(ranks[i].pid, sig);
        }
    }
}

static int status_code(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static void decide_exit(int code)
{
    if (!exit_decided) {
        exit_decided = 1;
        exit_code = code;
    }
}

static void kill_job(void)
{
    if (killing)
        return;
    killing = 1;
    signal_ranks(SIGTERM);
    /* EOF on PMI_FD tells ranks blocked in a barrier that the job is over. */
    for (int i = 0; i < opt.nranks; i++)
        close_pmi(&ranks[i]);
    kill_deadline_ms = now_ms() + KILL_GRACE_MS;
}

static void remove_shm_leftovers(void)
{
    char prefix[128];
    int plen = snprintf(prefix, sizeof prefix, "credo.%s.", kvsname);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, prefix, (size_t)plen) == 0)
            (void)unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
}

/* ---------------------------------------------------------------- cleanup watchdog */

static int pid_is_gone(pid_t pid)
{
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    int gone = 0;
    if (fgets(buf, sizeof buf, f)) {
        char *rp = strrchr(buf, ')');
        gone = rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
    }
    fclose(f);
    return gone;
}

/* A tiny process that outlives credorun if credorun is SIGKILLed: it learns the rank pids through a
 * pipe, and on EOF without the "clean exit" marker (pid 0) it kills the ranks' process groups, waits
 * for them to vanish and removes the job's shared-memory files. */
static void watchdog_main(int rfd)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    prctl(PR_SET_NAME, "credorun-wdog"); /* tells it apart from credorun in ps and top */
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
        if (devnull > 2)
            close(devnull);
    }
    pid_t *pids = NULL;
    size_t n = 0, cap = 0;
    int clean = 0;
    for (;;) {
        int32_t p;
        ssize_t r = read(rfd, &p, sizeof p);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof p)
            break;
        if (p == 0) {
            clean = 1;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            pid_t *np = realloc(pids, cap * sizeof *pids);
            if (!np)
                _exit(1);
            pids = np;
        }
        pids[n++] = p;
    }
    if (!clean) {
        for (size_t i = 0; i < n; i++) {
            kill(-pids[i], SIGKILL);
            kill(pids[i], SIGKILL);
        }
        long long until = now_ms() + 5000;
        for (size_t i = 0; i < n && now_ms() < until; i++)
            while (!pid_is_gone(pids[i]) && now_ms() < until)
                usleep(10000);
    }
    remove_shm_leftovers();
    _exit(0);
}

static void start_watchdog(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        die(1, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die(1, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[1]);
        watchdog_main(p[0]);
    }
    close(p[0]);
    cleanup_pipe = p[1];
    watchdog_pid = pid;
}

static void watchdog_tell(int32_t pid)
{
    if (cleanup_pipe >= 0)
        (void)write_full(cleanup_pipe, (const char *)&pid, sizeof pid);
}

static void stop_watchdog(void)
{
    if (cleanup_pipe < 0)
        return;
    watchdog_tell(0);
    close(cleanup_pipe);
    cleanup_pipe = -1;
    while (waitpid(watchdog_pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* ---------------------------------------------------------------- PMI server */

static void queue_reply(rank_state *r, const char *msg, size_t len)
{
    if (r->pmi_fd < 0)
        return;
    if (r->out_len == 0) {
        /* Fast path: the socket almost always has room. */
        ssize_t w;
        do
            w = send(r->pmi_fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        while (w < 0 && errno == EINTR);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            close_pmi(r);
            return;
        }
        if (w > 0) {
            msg += w;
            len -= (size_t)w;
        }
        if (len == 0)
            return;
    }
    if (r->out_len + len > r->out_cap) {
        size_t ncap = (r->out_len + len) * 2;
        char *nb = realloc(r->out, ncap);
        if (!nb)
            die(1, "out of memory queueing a PMI reply");
        r->out = nb;
        r->out_cap = ncap;
    }
    memcpy(r->out + r->out_len, msg, len);
    r->out_len += len;
}

static void flush_replies(rank_state *r)
{
    while (r->out_len > 0 && r->pmi_fd >= 0) {
        ssize_t w = send(r->pmi_fd, r->out, r->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                close_pmi(r);
            return;
        }
        memmove(r->out, r->out + w, r->out_len - (size_t)w);
        r->out_len -= (size_t)w;
    }
}

static void reply1(rank_state *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply1(rank_state *r, const char *fmt, ...)
{
    char msg[PMI_MSG_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof msg - 2)
        n = (int)sizeof msg - 2;
    msg[n++] = '\n';
    queue_reply(r, msg, (size_t)n);
}

static void reply2(rank_state *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply2(rank_state *r, const char *fmt, ...)
{
    char msg[PMI_MSG_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + 6, sizeof msg - 7, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof msg - 7)
        n = (int)sizeof msg - 7;
    char hdr[8];
    snprintf(hdr, sizeof hdr, "%-6d", n);
    memcpy(msg, hdr, 6);
    queue_reply(r, msg, (size_t)n + 6);
}


static void kill_job(void);

/* A barrier cannot complete once a rank that has not entered it is gone; without this check a
 * job whose rank exited early (say, a non-MPI program among MPI ranks) would wait forever. */
static void check_barrier_deadlock(void)
{
    if (barrier_count == 0 || killing)
        return;
    for (int i = 0; i < opt.nranks; i++) {
        rank_state *r = &ranks[i];
        if (r->reaped && !r->in_barrier) {
            note("rank %d (pid %d) exited with code %d while the others wait in a barrier, killing the job", i,
                 (int)r->pid, status_code(r->status));
            decide_exit(status_code(r->status) ? status_code(r->status) : 1);
            kill_job();
            return;
        }
    }
}

static void barrier_arrive(rank_state *r)
{
    if (r->in_barrier)
        return;
    r->in_barrier = 1;
    if (++barrier_count < opt.nranks) {
        check_barrier_deadlock();
        return;
    }
    for (int i = 0; i < opt.nranks; i++) {
        rank_state *q = &ranks[i];
        if (q->pmi_version == 2)
            reply2(q, "cmd=kvs-fence-response;rc=0;");
        else
            reply1(q, "cmd=barrier_out");
        q->in_barrier = 0;
    }
    barrier_count = 0;
}

static void rank_aborted(int idx, int code)
{
    if (killing)
        return;
    note("rank %d called MPI_Abort with code %d", idx, code);
    decide_exit(code);
    kill_job();
}

static void serve_pmi1(int idx, char *line)
{
    rank_state *r = &ranks[idx];
    char cmd[64], key[PMI_KEYLEN_MAX + 1], val[PMI_VALLEN_MAX + 1];
    if (boot_field(line, ' ', "cmd", cmd, sizeof cmd) != 0) {
        note("rank %d sent a malformed PMI message '%.80s'", idx, line);
        reply1(r, "cmd=error rc=-1 msg=malformed_message");
        return;
    }
    if (strcmp(cmd, "init") == 0) {
        int ver = 1;
        if (boot_field(line, ' ', "pmi_version", val, sizeof val) == 0)
            ver = atoi(val);
        if (ver == 2) {
            reply1(r, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0");
            r->pmi_version = 2;
        } else {
            reply1(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
            r->pmi_version = 1;
        }
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply1(r, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d", PMI_KVSNAME_MAX, PMI_KEYLEN_MAX,
               PMI_VALLEN_MAX);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply1(r, "cmd=my_kvsname kvsname=%s", kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply1(r, "cmd=universe_size size=%d", opt.nranks);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply1(r, "cmd=appnum appnum=%d", app_of(idx));
    } else if (strcmp(cmd, "put") == 0) {
        int kr = boot_field(line, ' ', "key", key, sizeof key);
        int vr = boot_field(line, ' ', "value", val, sizeof val);
        if (kr == -2 || vr == -2)
            reply1(r, "cmd=put_result rc=-1 msg=key_or_value_too_long");
        else if (kr != 0 || !key[0])
            reply1(r, "cmd=put_result rc=-1 msg=missing_key");
        else {
            if (vr != 0)
                val[0] = '\0';
            kvs_put(key, val);
            reply1(r, "cmd=put_result rc=0 msg=success");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *v = NULL;
        if (boot_field(line, ' ', "key", key, sizeof key) == 0)
            v = kvs_get(key);
        if (v)
            reply1(r, "cmd=get_result rc=0 msg=success value=%s", v);
        else
            reply1(r, "cmd=get_result rc=-1 msg=key_%.64s_not_found", key);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        barrier_arrive(r);
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        reply1(r, "cmd=finalize_ack");
    } else if (strcmp(cmd, "abort") == 0) {
        int code = 1;
        if (boot_field(line, ' ', "exitcode", val, sizeof val) == 0)
            code = atoi(val);
        rank_aborted(idx, code);
    } else {
        note("rank %d sent unknown PMI-1 command '%.40s'", idx, cmd);
        reply1(r, "cmd=%s_result rc=-1 msg=unknown_command", cmd);
    }
}

static void serve_pmi2(int idx, char *msg)
{
    rank_state *r = &ranks[idx];
    char cmd[64], key[PMI_KEYLEN_MAX + 1], val[PMI_VALLEN_MAX + 1];
    if (boot_field(msg, ';', "cmd", cmd, sizeof cmd) != 0) {
        note("rank %d sent a malformed PMI-2 message '%.80s'", idx, msg);
        reply2(r, "cmd=error;rc=-1;errmsg=malformed message;");
        return;
    }
    if (strcmp(cmd, "fullinit") == 0) {
        reply2(r, "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=%d;size=%d;appnum=%d;"
                  "spawner-jobid=%s;debugged=FALSE;pmiverbose=FALSE;rc=0;",
               idx, opt.nranks, app_of(idx), kvsname);
    } else if (strcmp(cmd, "job-getid") == 0) {
        reply2(r, "cmd=job-getid-response;jobid=%s;rc=0;", kvsname);
    } else if (strcmp(cmd, "kvs-put") == 0) {
        int kr = boot_field(msg, ';', "key", key, sizeof key);
        int vr = boot_field(msg, ';', "value", val, sizeof val);
        if (kr == -2 || vr == -2)
            reply2(r, "cmd=kvs-put-response;rc=-1;errmsg=key or value too long;");
        else if (kr != 0 || !key[0])
            reply2(r, "cmd=kvs-put-response;rc=-1;errmsg=missing key;");
        else {
            if (vr != 0)
                val[0] = '\0';
            kvs_put(key, val);
            reply2(r, "cmd=kvs-put-response;rc=0;");
        }
    } else if (strcmp(cmd, "kvs-get") == 0) {
        const char *v = NULL;
        if (boot_field(msg, ';', "key", key, sizeof key) == 0)
            v = kvs_get(key);
        if (v)
            reply2(r, "cmd=kvs-get-response;rc=0;found=TRUE;value=%s;", v);
        else
            reply2(r, "cmd=kvs-get-response;rc=0;found=FALSE;");
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        barrier_arrive(r);
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        reply2(r, "cmd=finalize-response;rc=0;");
    } else if (strcmp(cmd, "abort") == 0) {
        /* PMI-2 abort has no exit code; MPI_Abort's code arrives as the rank's exit status. */
        r->abort_pending = 1;
        if (abort_deadline_ms < 0)
            abort_deadline_ms = now_ms() + KILL_GRACE_MS;
    } else {
        note("rank %d sent unknown PMI-2 command '%.40s'", idx, cmd);
        reply2(r, "cmd=%s-response;rc=-1;errmsg=unknown command;", cmd);
    }
}

/* Parses every complete request in the rank's input buffer. */
static void serve_requests(int idx)
{
    rank_state *r = &ranks[idx];
    size_t pos = 0;
    while (r->pmi_fd >= 0 && !killing) {
        char *start = r->in + pos;
        size_t avail = r->in_len - pos;
        if (r->pmi_version == 2) {
            if (avail < 6)
                break;
            char hdr[7];
            memcpy(hdr, start, 6);
            hdr[6] = '\0';
            char *end;
            long len = strtol(hdr, &end, 10);
            if (end == hdr || len < 0 || len > PMI_MSG_MAX) {
                note("rank %d sent a bad PMI-2 length header '%.6s'; closing its PMI connection", idx, hdr);
                close_pmi(r);
                break;
            }
            if (avail < 6 + (size_t)len)
                break;
            char saved = start[6 + len];
            start[6 + len] = '\0';
            serve_pmi2(idx, start + 6);
            start[6 + len] = saved;
            pos += 6 + (size_t)len;
        } else {
            char *nl = memchr(start, '\n', avail);
            if (!nl)
                break;
            *nl = '\0';
            serve_pmi1(idx, start);
            pos += (size_t)(nl - start) + 1;
        }
    }
    if (pos) {
        memmove(r->in, r->in + pos, r->in_len - pos);
        r->in_len -= pos;
    }
    if (r->pmi_fd >= 0 && r->in_len > PMI_MSG_MAX) {
        note("rank %d sent a PMI message longer than %d bytes; closing its PMI connection", idx, PMI_MSG_MAX);
        close_pmi(r);
    }
}

static void read_pmi(int idx)
{
    rank_state *r = &ranks[idx];
    if (r->in_cap - r->in_len < 4096) {
        size_t ncap = r->in_cap ? r->in_cap * 2 : 8192;
        char *nb = realloc(r->in, ncap);
        if (!nb)
            die(1, "out of memory reading PMI requests");
        r->in = nb;
        r->in_cap = ncap;
    }
    ssize_t n = read(r->pmi_fd, r->in + r->in_len, r->in_cap - r->in_len);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return;
        close_pmi(r);
        return;
    }
    if (n == 0) {
        /* The rank closed PMI_FD (finalized, or exiting); its exit status tells the rest. */
        close_pmi(r);
        return;
    }
    r->in_len += (size_t)n;
    serve_requests(idx);
}

/* ---------------------------------------------------------------- output forwarding (--tag-output) */

static void emit_tagged(int idx, out_stream *s, const char *data, size_t len)
{
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "[%d] ", idx);
    char line[TAG_LINE_MAX + 40];
    memcpy(line, prefix, (size_t)plen);
    memcpy(line + plen, data, len);
    line[plen + len] = '\n';
    (void)write_full(s->dest, line, (size_t)plen + len + 1);
}

static void read_output(int idx, out_stream *s)
{
    ssize_t n;
    do
        n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        if (n < 0 && errno == EAGAIN)
            return;
        if (s->len)
            emit_tagged(idx, s, s->buf, s->len); /* last line without newline */
        s->len = 0;
        close(s->fd);
        s->fd = -1;
        return;
    }
    s->len += (size_t)n;
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] == '\n') {
            emit_tagged(idx, s, s->buf + start, i - start);
            start = i + 1;
        }
    }
    if (start == 0 && s->len == sizeof s->buf) {
        emit_tagged(idx, s, s->buf, s->len); /* overlong line: forward in pieces */
        start = s->len;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

/* ---------------------------------------------------------------- child side */

static int ncpus_allowed;
static int *cpu_list;

static void init_cpu_list(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        ncpus_allowed = 0;
        return;
    }
    cpu_list = calloc(CPU_SETSIZE, sizeof *cpu_list);
    if (!cpu_list)
        die(1, "out of memory");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            cpu_list[ncpus_allowed++] = c;
}

static struct rlimit saved_nofile;
/* Ranks lead their own process groups so teardown reaches their helpers, except rank 0 when stdin is
 * a terminal: a background group reading the terminal would be stopped by SIGTTIN. */
static int stdin_is_tty;

/* Runs in the forked child: only async-signal-safe-enough work (credorun is single-threaded). */
static void child_exec(int idx, int pmi_child_fd, int out_w, int err_w, int exec_w, pid_t parent)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (!(idx == 0 && stdin_is_tty))
        setpgid(0, 0);
    /* Die with credorun even if it is SIGKILLed; the getppid check closes the race where the parent
     * died before prctl took effect. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    setrlimit(RLIMIT_NOFILE, &saved_nofile);

    if (out_w >= 0) {
        dup2(out_w, 1);
        dup2(err_w, 2);
    }
    if (idx != 0) {
        /* Only rank 0 reads credorun's stdin, as with other launchers. */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0 && devnull != 0) {
            dup2(devnull, 0);
            close(devnull);
        }
    }
    int fl = fcntl(pmi_child_fd, F_GETFD);
    fcntl(pmi_child_fd, F_SETFD, fl & ~FD_CLOEXEC);

    char num[32];
    snprintf(num, sizeof num, "%d", pmi_child_fd);
    setenv("PMI_FD", num, 1);
    snprintf(num, sizeof num, "%d", idx);
    setenv("PMI_RANK", num, 1);
    setenv("MPI_LOCALRANKID", num, 1);

    if (opt.bind == 1 && ncpus_allowed > 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu_list[idx % ncpus_allowed], &set);
        sched_setaffinity(0, sizeof set, &set);
        if (opt.report_bindings)
            fprintf(stderr, "credorun: rank %d bound to CPU %d\n", idx, cpu_list[idx % ncpus_allowed]);
    } else if (opt.report_bindings) {
        fprintf(stderr, "credorun: rank %d not bound\n", idx);
    }
    if (opt.wdir && chdir(opt.wdir) != 0) {
        int e = errno;
        (void)write_full(exec_w, (const char *)&e, sizeof e);
        _exit(127);
    }
    char **av = opt.app_argv[app_of(idx)];
    execvp(av[0], av);
    int e = errno;
    (void)write_full(exec_w, (const char *)&e, sizeof e);
    _exit(127);
}

/* ---------------------------------------------------------------- exits of ranks */

static void read_pmi(int idx);

static void rank_exited(int idx, int status)
{
    rank_state *r = &ranks[idx];
    r->reaped = 1;
    r->status = status;
    nreaped++;
    /* Requests sent just before exiting (an abort does not wait for a reply) may still sit in
     * the socket; SIGCHLD can overtake them in the poll loop, so serve them first. */
    while (r->pmi_fd >= 0 && !killing) {
        size_t before = r->in_len;
        int fd = r->pmi_fd;
        read_pmi(idx);
        if (r->pmi_fd == fd && r->in_len == before)
            break;
    }
    if (killing)
        return;
    if (r->abort_pending) {
        rank_aborted(idx, status_code(status));
    } else if (WIFSIGNALED(status)) {
        note("rank %d (pid %d) was killed by signal %s, killing the job", idx, (int)r->pid,
             signame(WTERMSIG(status)));
        decide_exit(128 + WTERMSIG(status));
        kill_job();
    } else if (!r->finalized && (WEXITSTATUS(status) != 0 || r->pmi_version != 0)) {
        /* A rank that joined the job but left without finalizing would leave its peers
         * waiting forever in the next barrier. */
        note("rank %d (pid %d) exited with code %d before finalize, killing the job", idx, (int)r->pid,
             WEXITSTATUS(status));
        decide_exit(WEXITSTATUS(status) ? WEXITSTATUS(status) : 1);
        kill_job();
    } else {
        check_barrier_deadlock();
    }
}

static void reap_children(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        if (pid == watchdog_pid)
            continue;
        for (int i = 0; i < opt.nranks; i++)
            if (ranks[i].pid == pid && !ranks[i].reaped) {
                rank_exited(i, status);
                break;
            }
    }
}

/* ---------------------------------------------------------------- command line */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: credorun -n N [options] program [args...]\n"
            "Starts N ranks of program on this host and serves them PMI.\n"
            "\n"
            "  -n, -np N               number of ranks (>= 1)\n"
            "  --fc none|static|dynamic  flow control (CREDO_FC)\n"
            "  --slot-size B           bytes per mailbox slot (CREDO_SLOT_SIZE; K/M suffix ok)\n"
            "  --slots-per-peer S      mailbox slots per sender (CREDO_SLOTS_PER_PEER)\n"
            "  --credit-slots C        dynamic flow control: shared credit slots (CREDO_CREDIT_SLOTS)\n"
            "  --fc-report             print flow-control statistics at finalize (CREDO_FC_REPORT=1)\n"
            "  --eager-limit B         largest eager message (CREDO_EAGER_LIMIT; K/M suffix ok)\n"
            "  -x NAME=VALUE           set an environment variable in every rank\n"
            "  --bind-to core|none     pin rank i to CPU i mod #CPUs (default core, also when N > #CPUs)\n"
            "  --tag-output            prefix each output line with [rank]\n"
            "  --timeout S             kill the job after S seconds and exit with status 124\n"
            "  -h, --help              this text\n"
            "  --version               print the credo version\n"
            "\n"
            "Accepted for scripts written for Open MPI's mpirun or MPICH's mpiexec (credorun is also\n"
            "installed as mpirun and mpiexec):\n"
            "  -c N                    as -n\n"
            "  A : -n M B [: ...]      MPMD: ranks 0..N-1 run A (MPI_APPNUM 0), the next M run B (1)\n"
            "  -genv, -env NAME VALUE  as -x NAME=VALUE\n"
            "  -H, -host, --host LIST  hosts (host or host:slots, comma-separated): each must be this one\n"
            "  -hostfile, -machinefile, -f FILE  the same, one host per line\n"
            "  -ppn, --npernode, -N P  ranks per node: -n defaults to P, and more than P needs more nodes\n"
            "  -wdir, --wdir DIR       the ranks' working directory\n"
            "  --report-bindings       print each rank's CPU on stderr\n"
            "  --bind-to hwthread      as core\n"
            "  --oversubscribe, --allow-run-as-root, -genvall, -envall, --map-by X, --rank-by X, -q, -v:\n"
            "                          no effect (ranks always share this host's CPUs; the environment is\n"
            "                          always passed on)\n"
            "  --mca, -gmca KEY VALUE  ignored with a warning (Open MPI settings)\n"
            "\n"
            "Exit status: 0 when every rank exits 0; otherwise the failing rank's exit code (128+signal\n"
            "if it was killed by a signal, its code if it called MPI_Abort), 124 on --timeout, 127 if the\n"
            "program cannot be executed, 128+signal if credorun itself is interrupted, 2 on usage errors.\n");
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "credorun: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'credorun --help' for more information.\n");
    exit(2);
}

/* A positive byte count with optional K/M/G suffix, returned as plain decimal text. */
static void parse_bytes(const char *optname, const char *s, char *out, size_t outlen)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        usage_error("%s: expected a positive number of bytes, got '%s'", optname, s);
    unsigned long long mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1ULL << 10, end++;
    else if (*end == 'm' || *end == 'M')
        mult = 1ULL << 20, end++;
    else if (*end == 'g' || *end == 'G')
        mult = 1ULL << 30, end++;
    if (*end || v == 0 || v > (1ULL << 40) / mult)
        usage_error("%s: expected a positive number of bytes, got '%s'", optname, s);
    snprintf(out, outlen, "%llu", v * mult);
}

static long parse_count(const char *optname, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        usage_error("%s: expected a whole number from %ld to %ld, got '%s'", optname, min, max, s);
    return v;
}

static void set_child_env(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        usage_error("cannot set %s: %s", name, strerror(errno));
}

/* Whether host (without a ":slots" suffix) names this machine. */
static int is_this_host(const char *host, size_t len)
{
    char me[256] = "";
    if (gethostname(me, sizeof me - 1) != 0)
        me[0] = '\0';
    size_t short_len = strcspn(me, ".");
    const char *local[] = {"localhost", "127.0.0.1", me}; /* (an IPv6 literal would clash with host:slots) */
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (local[i][0] && strlen(local[i]) == len && strncmp(local[i], host, len) == 0)
            return 1;
    return me[0] && len == short_len && strncmp(me, host, len) == 0; /* "node1" for "node1.cluster" */
}

/* One host entry: "name", "name:slots" or (hostfile) "name slots=N"; any other host is an error. */
static void check_host(const char *what, const char *entry, size_t len)
{
    size_t name_len = 0;
    while (name_len < len && entry[name_len] != ':' && entry[name_len] != ' ' && entry[name_len] != '\t')
        name_len++;
    if (name_len == 0)
        usage_error("%s: empty host name in '%.*s'", what, (int)len, entry);
    if (!is_this_host(entry, name_len))
        usage_error("%s: '%.*s' is not this host; credorun starts ranks on this host only (credo runs a job on "
                    "one node)",
                    what, (int)name_len, entry);
}

static void check_hosts(const char *what, const char *list)
{
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        check_host(what, p, len);
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
}

static void check_hostfile(const char *what, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        usage_error("%s: cannot open '%s': %s", what, path, strerror(errno));
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        size_t len = strcspn(p, "#\r\n");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len > 0)
            check_host(what, p, len);
    }
    fclose(f);
}

/* MPMD, as mpiexec and mpirun write it: "-n 2 a args : -n 3 b args". The first program takes the
 * options before it; each later one starts with its own -n (-np, -c). A lone ":" ends a program's
 * arguments (as in hydra and Open MPI, a program cannot take ":" as an argument). The programs'
 * argv arrays are cut in place: each ":" becomes the NULL that ends the one before. */
static void split_apps(int argc, char **argv)
{
    int first_n = opt.nranks, total = 0, i = optind;
    opt.napps = 0;
    for (;;) {
        if (opt.napps == MAX_APPS)
            usage_error("more than %d programs separated by ':'", MAX_APPS);
        int n;
        if (opt.napps == 0) {
            n = first_n;
        } else {
            if (i + 1 >= argc || (strcmp(argv[i], "-n") && strcmp(argv[i], "-np") && strcmp(argv[i], "--np") &&
                                  strcmp(argv[i], "-c")))
                usage_error("program %d after ':' must start with -n N (got '%s')", opt.napps + 1,
                            i < argc ? argv[i] : "nothing");
            n = (int)parse_count(argv[i], argv[i + 1], 1, 1 << 20);
            i += 2;
        }
        if (i >= argc || strcmp(argv[i], ":") == 0)
            usage_error("no program given for -n %d%s", n, opt.napps ? " after ':'" : "");
        opt.app_argv[opt.napps] = argv + i;
        opt.app_first[opt.napps] = total;
        if (total > (1 << 20) - n)
            usage_error("more than %d ranks in all", 1 << 20);
        total += n;
        opt.napps++;
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        if (i >= argc)
            break;
        argv[i++] = NULL; /* ends the program before */
    }
    opt.app_first[opt.napps] = total;
    opt.nranks = total;
}

static void parse_args(int argc, char **argv)
{
    enum { O_FC = 256, O_SLOT, O_SLOTS, O_CREDIT, O_REPORT, O_EAGER, O_BIND, O_TAG, O_TIMEOUT, O_VERSION,
           O_NOOP, O_NOOP_ARG, O_GENV, O_HOST, O_HOSTFILE, O_PPN, O_WDIR, O_MCA, O_REPORT_BIND };
    /* Every name is listed in full: getopt_long_only would otherwise take "-host" as "-h" (help,
     * and nothing run) and "-c 2" as the unique prefix of --credit-slots. */
    static const struct option longopts[] = {
        {"np", required_argument, 0, 'n'},
        {"c", required_argument, 0, 'n'},
        {"oversubscribe", no_argument, 0, O_NOOP},
        {"allow-run-as-root", no_argument, 0, O_NOOP},
        {"genvall", no_argument, 0, O_NOOP},
        {"envall", no_argument, 0, O_NOOP},
        {"q", no_argument, 0, O_NOOP},
        {"v", no_argument, 0, O_NOOP}, /* verbose in both; as a prefix it would print the version */
        {"verbose", no_argument, 0, O_NOOP},
        {"quiet", no_argument, 0, O_NOOP},
        {"map-by", required_argument, 0, O_NOOP_ARG},
        {"rank-by", required_argument, 0, O_NOOP_ARG},
        {"genv", required_argument, 0, O_GENV},
        {"env", required_argument, 0, O_GENV},
        {"H", required_argument, 0, O_HOST},
        {"host", required_argument, 0, O_HOST},
        {"hosts", required_argument, 0, O_HOST},
        {"hostfile", required_argument, 0, O_HOSTFILE},
        {"machinefile", required_argument, 0, O_HOSTFILE},
        {"f", required_argument, 0, O_HOSTFILE},
        {"ppn", required_argument, 0, O_PPN},
        {"npernode", required_argument, 0, O_PPN},
        {"N", required_argument, 0, O_PPN},
        {"wdir", required_argument, 0, O_WDIR},
        {"wd", required_argument, 0, O_WDIR},
        {"mca", required_argument, 0, O_MCA},
        {"gmca", required_argument, 0, O_MCA},
        {"report-bindings", no_argument, 0, O_REPORT_BIND},
        {"fc", required_argument, 0, O_FC},
        {"slot-size", required_argument, 0, O_SLOT},
        {"slots-per-peer", required_argument, 0, O_SLOTS},
        {"credit-slots", required_argument, 0, O_CREDIT},
        {"fc-report", no_argument, 0, O_REPORT},
        {"eager-limit", required_argument, 0, O_EAGER},
        {"bind-to", required_argument, 0, O_BIND},
        {"tag-output", no_argument, 0, O_TAG},
        {"timeout", required_argument, 0, O_TIMEOUT},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, O_VERSION},
        {0, 0, 0, 0},
    };
    char buf[64];
    int c;
    opterr = 0;
    /* getopt_long_only so that Open MPI's "-np 4" works; "+" stops at the program name. */
    while ((c = getopt_long_only(argc, argv, "+:n:x:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            opt.nranks = (int)parse_count("-n", optarg, 1, 1 << 20);
            break;
        case 'x': {
            const char *eq = strchr(optarg, '=');
            if (eq == optarg || optarg[0] == '\0')
                usage_error("-x: expected NAME=VALUE, got '%s'", optarg);
            if (!eq)
                break; /* "-x NAME": pass the current value on, as it is inherited anyway */
            char name[256];
            if ((size_t)(eq - optarg) >= sizeof name)
                usage_error("-x: variable name too long");
            memcpy(name, optarg, (size_t)(eq - optarg));
            name[eq - optarg] = '\0';
            set_child_env(name, eq + 1);
            break;
        }
        case O_FC:
            if (strcmp(optarg, "none") && strcmp(optarg, "static") && strcmp(optarg, "dynamic"))
                usage_error("--fc: expected none, static or dynamic, got '%s'", optarg);
            set_child_env("CREDO_FC", optarg);
            break;
        case O_SLOT:
            parse_bytes("--slot-size", optarg, buf, sizeof buf);
            set_child_env("CREDO_SLOT_SIZE", buf);
            break;
        case O_SLOTS:
            snprintf(buf, sizeof buf, "%ld", parse_count("--slots-per-peer", optarg, 1, 1 << 20));
            set_child_env("CREDO_SLOTS_PER_PEER", buf);
            break;
        case O_CREDIT:
            snprintf(buf, sizeof buf, "%ld", parse_count("--credit-slots", optarg, 0, 1 << 24));
            set_child_env("CREDO_CREDIT_SLOTS", buf);
            break;
        case O_REPORT:
            set_child_env("CREDO_FC_REPORT", "1");
            break;
        case O_EAGER:
            parse_bytes("--eager-limit", optarg, buf, sizeof buf);
            set_child_env("CREDO_EAGER_LIMIT", buf);
            break;
        case O_NOOP:
        case O_NOOP_ARG:
            break;
        case O_GENV:
            /* hydra's two-word form: NAME VALUE */
            if (optind >= argc)
                usage_error("%s %s: expected NAME VALUE", argv[optind - 2], optarg);
            if (optarg[0] == '\0' || strchr(optarg, '='))
                usage_error("%s: expected NAME VALUE, got '%s'", argv[optind - 2], optarg);
            set_child_env(optarg, argv[optind]);
            optind++;
            break;
        case O_MCA:
            if (optind >= argc)
                usage_error("%s %s: expected KEY VALUE", argv[optind - 2], optarg);
            fprintf(stderr, "credorun: warning: ignoring %s %s %s (an Open MPI setting)\n", argv[optind - 2],
                    optarg, argv[optind]);
            optind++;
            break;
        case O_HOST:
            check_hosts(argv[optind - 2], optarg);
            break;
        case O_HOSTFILE:
            check_hostfile(argv[optind - 2], optarg);
            break;
        case O_PPN:
            opt.ppn = (int)parse_count(argv[optind - 2], optarg, 1, 1 << 20);
            break;
        case O_WDIR: {
            struct stat st;
            if (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode))
                usage_error("%s: '%s' is not a directory", argv[optind - 2], optarg);
            opt.wdir = optarg;
            break;
        }
        case O_REPORT_BIND:
            opt.report_bindings = 1;
            break;
        case O_BIND:
            if (strcmp(optarg, "hwthread") == 0)
                opt.bind = 1; /* one hardware thread per rank: what core does with credorun's CPU list */
            else if (strcmp(optarg, "core") == 0)
                opt.bind = 1;
            else if (strcmp(optarg, "none") == 0)
                opt.bind = 0;
            else
                usage_error("--bind-to: expected core or none, got '%s'", optarg);
            break;
        case O_TAG:
            opt.tag_output = 1;
            break;
        case O_TIMEOUT: {
            char *end;
            errno = 0;
            double t = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(t > 0) || t > 1e7)
                usage_error("--timeout: expected a positive number of seconds, got '%s'", optarg);
            opt.timeout_s = t;
            break;
        }
        case 'h':
            usage(stdout);
            exit(0);
        case O_VERSION:
            printf("credorun (credo) %s\n", CREDO_VERSION_STRING);
            exit(0);
        case ':':
            usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            if (optopt && optopt < 256)
                usage_error("unknown option '-%c'", optopt);
            usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        usage_error("no program given");
    if (opt.ppn > 0 && opt.nranks < 0)
        opt.nranks = opt.ppn; /* one node of ppn ranks */
    if (opt.ppn > 0 && opt.nranks > opt.ppn)
        usage_error("-n %d at %d ranks per node needs %d nodes; credorun starts ranks on this host only "
                    "(credo runs a job on one node)",
                    opt.nranks, opt.ppn, (opt.nranks + opt.ppn - 1) / opt.ppn);
    if (opt.nranks < 0)
        usage_error("missing -n N (number of ranks)");
    split_apps(argc, argv);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    /* With stdin/stdout/stderr closed, a socketpair could land on fd 1 and be clobbered by the
     * ranks' output plumbing: occupy 0-2 first. */
    int spare;
    while ((spare = open("/dev/null", O_RDWR)) >= 0 && spare <= 2)
        ;
    if (spare > 2)
        close(spare);
    parse_args(argc, argv);

    unsigned int rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd = (unsigned int)(now_ms() ^ ((unsigned int)getpid() << 16));
    snprintf(kvsname, sizeof kvsname, "credo-%d-%08x", (int)getpid(), rnd);

    char num[32];
    /* Thousands of ranks need several descriptors each. */
    getrlimit(RLIMIT_NOFILE, &saved_nofile);
    struct rlimit raised = saved_nofile;
    raised.rlim_cur = raised.rlim_max;
    setrlimit(RLIMIT_NOFILE, &raised);
    if ((rlim_t)opt.nranks * 4 + 64 > raised.rlim_cur)
        die(2, "-n %d needs about %d file descriptors, the limit is %lu", opt.nranks, opt.nranks * 4 + 64,
            (unsigned long)raised.rlim_cur);

    stdin_is_tty = isatty(0);
    /* MPICH-built programs ask for this hydra key to learn which ranks share a node. */
    char mapping[64];
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", opt.nranks);
    kvs_put("PMI_process_mapping", mapping);
    init_cpu_list();
    /* Oversubscribed ranks are pinned too (round robin): at np 4 on 2 CPUs unpinned ranks landed in
     * a different pairing on every run and collectives took 10 to 18 us; pinned, always 10. */
    if (opt.bind < 0)
        opt.bind = 1;

    snprintf(num, sizeof num, "%d", opt.nranks);
    setenv("PMI_SIZE", num, 1);
    setenv("MPI_LOCALNRANKS", num, 1);
    /* An outer launcher's variables would send our ranks to the wrong PMI server. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("PMI_JOBID");

    ranks = calloc((size_t)opt.nranks, sizeof *ranks);
    if (!ranks)
        die(1, "out of memory for %d ranks", opt.nranks);

    start_watchdog();

    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGQUIT);
    sigprocmask(SIG_BLOCK, &handled, NULL);
    int sigfd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigfd < 0)
        die(1, "signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    fflush(NULL);

    pid_t self = getpid();
    int *exec_fds = malloc((size_t)opt.nranks * sizeof *exec_fds);
    if (!exec_fds)
        die(1, "out of memory");
    for (int i = 0; i < opt.nranks; i++) {
        rank_state *r = &ranks[i];
        r->streams[0].fd = r->streams[1].fd = -1;
        int sv[2], op[2] = {-1, -1}, ep[2] = {-1, -1}, xp[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(xp, O_CLOEXEC) != 0 ||
            (opt.tag_output && (pipe2(op, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0))) {
            note("cannot create pipes for rank %d: %s", i, strerror(errno));
            decide_exit(1);
            kill_job();
            exec_fds[i] = -1;
            opt.nranks = i; /* only the ranks started so far exist */
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            note("fork for rank %d: %s", i, strerror(errno));
            close(sv[0]), close(sv[1]), close(xp[0]), close(xp[1]);
            decide_exit(1);
            kill_job();
            opt.nranks = i;
            break;
        }
        if (pid == 0) {
            close(sv[0]);
            close(xp[0]);
            child_exec(i, sv[1], op[1], ep[1], xp[1], self);
        }
        if (!(i == 0 && stdin_is_tty))
            setpgid(pid, pid); /* also done in the child; whichever runs first wins the race */
        watchdog_tell(pid);
        r->pid = pid;
        r->pmi_fd = sv[0];
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        close(sv[1]);
        close(xp[1]);
        exec_fds[i] = xp[0];
        if (opt.tag_output) {
            close(op[1]);
            close(ep[1]);
            r->streams[0] = (out_stream){.fd = op[0], .dest = 1};
            r->streams[1] = (out_stream){.fd = ep[0], .dest = 2};
        }
    }
    /* Each exec-status pipe closes on a successful exec or carries errno when exec failed. */
    for (int i = 0; i < opt.nranks; i++) {
        int e = 0;
        ssize_t n;
        do
            n = read(exec_fds[i], &e, sizeof e);
        while (n < 0 && errno == EINTR);
        close(exec_fds[i]);
        if (n == (ssize_t)sizeof e && !exit_decided) {
            note("cannot execute '%s': %s", opt.app_argv[app_of(i)][0], strerror(e));
            decide_exit(127);
            kill_job();
        }
    }
    free(exec_fds);

    if (opt.timeout_s > 0)
        timeout_deadline_ms = now_ms() + (long long)(opt.timeout_s * 1000);

    size_t nfds_cap = (size_t)opt.nranks * 3 + 1;
    struct pollfd *pfds = malloc(nfds_cap * sizeof *pfds);
    int *owner = malloc(nfds_cap * sizeof *owner); /* rank*3 + kind (0 pmi, 1 out, 2 err) */
    if (!pfds || !owner)
        die(1, "out of memory");
    long long drain_deadline_ms = -1;

    for (;;) {
        if (nreaped == opt.nranks) {
            if (drain_deadline_ms < 0)
                drain_deadline_ms = now_ms() + DRAIN_GRACE_MS;
            int open_streams = 0;
            for (int i = 0; i < opt.nranks; i++)
                open_streams += (ranks[i].streams[0].fd >= 0) + (ranks[i].streams[1].fd >= 0);
            if (!open_streams || now_ms() >= drain_deadline_ms)
                break;
        }
        size_t nfds = 0;
        pfds[nfds] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        owner[nfds++] = -1;
        for (int i = 0; i < opt.nranks; i++) {
            rank_state *r = &ranks[i];
            if (r->pmi_fd >= 0) {
                pfds[nfds] = (struct pollfd){.fd = r->pmi_fd, .events = POLLIN | (r->out_len ? POLLOUT : 0)};
                owner[nfds++] = i * 3;
            }
            for (int s = 0; s < 2; s++)
                if (r->streams[s].fd >= 0) {
                    pfds[nfds] = (struct pollfd){.fd = r->streams[s].fd, .events = POLLIN};
                    owner[nfds++] = i * 3 + 1 + s;
                }
        }
        long long now = now_ms(), wake = -1;
        if (kill_deadline_ms >= 0)
            wake = kill_deadline_ms;
        if (timeout_deadline_ms >= 0 && !killing && (wake < 0 || timeout_deadline_ms < wake))
            wake = timeout_deadline_ms;
        if (abort_deadline_ms >= 0 && !killing && (wake < 0 || abort_deadline_ms < wake))
            wake = abort_deadline_ms;
        if (drain_deadline_ms >= 0 && (wake < 0 || drain_deadline_ms < wake))
            wake = drain_deadline_ms;
        int wait = wake < 0 ? -1 : (int)(wake > now ? wake - now : 0);
        int rc = poll(pfds, nfds, wait);
        if (rc < 0 && errno != EINTR)
            die(1, "poll: %s", strerror(errno));
        now = now_ms();
        if (kill_deadline_ms >= 0 && now >= kill_deadline_ms) {
            signal_ranks(SIGKILL);
            kill_deadline_ms = -1;
        }
        if (abort_deadline_ms >= 0 && now >= abort_deadline_ms && !killing) {
            for (int i = 0; i < opt.nranks; i++)
                if (ranks[i].abort_pending) {
                    rank_aborted(i, 1);
                    break;
                }
            abort_deadline_ms = -1;
        }
        if (timeout_deadline_ms >= 0 && now >= timeout_deadline_ms && !killing) {
            note("timeout after %g s, killing the job", opt.timeout_s);
            decide_exit(124);
            kill_job();
        }
        if (rc <= 0)
            continue;
        for (size_t k = 0; k < nfds; k++) {
            if (!pfds[k].revents)
                continue;
            if (owner[k] < 0) {
                struct signalfd_siginfo si;
                while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    int sig = (int)si.ssi_signo;
                    if (sig == SIGCHLD)
                        continue;
                    if (killing) {
                        signal_ranks(SIGKILL); /* a second Ctrl-C: no more grace */
                    } else {
                        note("received %s, killing the job", signame(sig));
                        decide_exit(128 + sig);
                        kill_job();
                    }
                }
                reap_children();
                continue;
            }
            int idx = owner[k] / 3, kind = owner[k] % 3;
            rank_state *r = &ranks[idx];
            if (kind == 0) {
                if (r->pmi_fd != pfds[k].fd)
                    continue; /* closed earlier in this round */
                if (pfds[k].revents & POLLOUT)
                    flush_replies(r);
                if (r->pmi_fd >= 0 && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    read_pmi(idx);
            } else {
                out_stream *s = &r->streams[kind - 1];
                if (s->fd == pfds[k].fd)
                    read_output(idx, s);
            }
        }
    }

    for (int i = 0; i < opt.nranks; i++)
        for (int s = 0; s < 2; s++)
            if (ranks[i].streams[s].fd >= 0) {
                if (ranks[i].streams[s].len)
                    emit_tagged(i, &ranks[i].streams[s], ranks[i].streams[s].buf, ranks[i].streams[s].len);
                close(ranks[i].streams[s].fd);
            }
    remove_shm_leftovers();
    stop_watchdog();

    if (!exit_decided) {
        for (int i = 0; i < opt.nranks; i++) {
            int code = status_code(ranks[i].status);
            if (code > exit_code)
                exit_code = code;
        }
    }
    free(pfds);
    free(owner);
    for (int i = 0; i < opt.nranks; i++) {
        close_pmi(&ranks[i]);
        free(ranks[i].in);
        free(ranks[i].out);
    }
    free(ranks);
    for (size_t i = 0; i < kvs_cap; i++) {
        free(kvs_tab[i].key);
        free(kvs_tab[i].value);
    }
    free(kvs_tab);
    free(cpu_list);
    close(sigfd);
    return exit_code;
}
