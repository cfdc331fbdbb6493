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

#include "link.h"
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

/* ---------------------------------------------------------------- hosts and the proxy tree
 *
 * With hosts other than this one (--host, --hostfile), credorun is the head of a tree: it forks the
 * ranks of its own host, and on every other host the launch agent (ssh) starts one proxy (credorun
 * --proxy) that forks that host's ranks and serves their PMI locally. Proxy i (1..P, in host order)
 * hangs below proxy (i-1)/F (0 = the head; F = --tree-fanout), so no socket carries more than F
 * proxies' traffic; the head starts every agent itself, each once the proxy's parent has said hello.
 * A fence completes bottom-up (each node sends one FENCE with its subtree's puts when its ranks and
 * its children are in), and the head sends the job's new puts down in one FENCE_OUT; output, exits
 * and failures travel up, kill orders down. Every link carries a heartbeat, so a cut link is noticed
 * within --link-timeout on both ends. docs/LAUNCH.md has the picture. */

typedef struct host_ent {
    char *name;
    int slots;  /* -1: not given */
    int local;  /* this machine (the head's host) */
    int proxy;  /* proxy id, 0 for the head's host or a host without ranks */
    int nranks; /* ranks placed here */
} host_ent;

static host_ent *hosts;
static int nhosts, hosts_cap;
static int multi;           /* ranks on more than one host (or on a host other than this one) */
static int *rank_host;      /* host index of each rank (multi only) */
static int *rank_local_idx; /* index among its host's ranks */
static int my_host = -1;    /* this process's host index (-1: the head runs no ranks) */
static int is_proxy, my_proxy, nproxies;
static int *proxy_host;     /* host index of proxy 1..nproxies */
static int map_rr;          /* --map-by node: round robin over the hosts */
static int fanout = 32;
/* Heartbeats every LINK_PING_MS keep data in flight on every link, so the kernel notices within
 * link_timeout_ms (TCP_USER_TIMEOUT) when the other end stops acknowledging: a cut cable, a host
 * gone. 1 s leaves the job room to end within 2 s of the cut. The kernel acknowledges even when
 * the process at the other end is not scheduled: on a loaded 2-core machine the head and proxies
 * were seen to miss their 100 ms ticks by up to 550 ms, at both ends at once, and an application
 * timeout of 1 s ended healthy jobs. An end that is silent (pings not sent) for LINK_SILENCE_FACTOR
 * times as long (alive, but stopped or hung) is lost too. */
#define LINK_PING_MS 100
#define LINK_SILENCE_FACTOR 10
static int link_timeout_ms = 1000;
static int launch_timeout_ms = 30000;
static const char *agent_cmd;
static const char *ifaces;  /* --iface / CREDO_NET_IF */
static char my_iface[64];   /* the name of ifaces this host has ("" without --iface) */
static char my_addrs[1024]; /* what this node advertises to its children */
static char my_hostname[256];
static char cookie[40];     /* a proxy must know it to join (a stray connection cannot) */
static int listen_fd = -1, listen_port;
static int nlocal, nlocal_reaped;
static int user_fi_iface;   /* FI_TCP_IFACE was set by the user: it wins over --iface */

enum { M_HELLO = 'H', M_SETUP = 'S', M_FENCE = 'F', M_FENCE_BEGUN = 'B', M_FENCE_OUT = 'R', M_OUT = 'O',
       M_EXIT = 'X', M_FAIL = 'E', M_KILL = 'K', M_PING = 'P' };

static link_conn parent_link = {.fd = -1};
typedef struct kid_link {
    link_conn c;
    int id;     /* proxy id once its hello arrived, else 0 */
    int fenced; /* its subtree is in the current fence */
} kid_link;
static kid_link *kids;
static int nkids, kids_cap, kids_expected, kids_done;
static link_frame setup_frame, tx;
static int have_setup;
static char **pend; /* puts of this fence epoch not yet sent on (key, value, key, value, ...) */
static size_t npend, pend_cap;
static int fence_sent;
/* Some rank of this subtree is in the current fence: a proxy says so up the tree once per fence
 * (FENCE_BEGUN), so the head, which hears of every exit, can tell when a fence can never complete. */
static int fence_begun;

typedef struct proxy_st {
    pid_t agent;
    int launched, hello, agent_reaped, agent_status;
    long long launch_ms;
    char addr[1100]; /* where its children connect: "a1,a2:port" */
} proxy_st;
static proxy_st *proxies; /* head only, 1..nproxies */

static int rank_is_local(int idx)
{
    return !multi || rank_host[idx] == my_host;
}

static int proxy_parent(int id)
{
    return (id - 1) / fanout;
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

static long long kill_started_ms = -1;

static void kill_job(void)
{
    if (killing)
        return;
    killing = 1;
    kill_started_ms = now_ms();
    for (int k = 0; k < nkids; k++)
        if (kids[k].c.fd >= 0) {
            link_frame_start(&tx, M_KILL);
            link_send(&kids[k].c, &tx);
        }
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

/* " on host H" for messages about rank idx when the job spans hosts, else "". */
static const char *where(int idx)
{
    static char buf[300];
    if (!multi)
        return "";
    snprintf(buf, sizeof buf, " on host %s", hosts[rank_host[idx]].name);
    return buf;
}

/* The job must end: the first such event prints its one line and sets the exit status (a proxy
 * sends both to the head, which prints the line unless the job is already ending), then every
 * rank on every host is killed. */
static void job_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void job_fail(int code, const char *fmt, ...)
{
    if (killing)
        return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (is_proxy) {
        link_frame_start(&tx, M_FAIL);
        link_frame_int(&tx, code);
        link_frame_str(&tx, line);
        link_send(&parent_link, &tx);
    } else {
        note("%s", line);
    }
    decide_exit(code);
    kill_job();
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
 * job whose rank exited early (say, a non-MPI program among MPI ranks) would wait forever. A proxy
 * checks its own ranks; the head every rank, as it hears of every exit and of every fence begun. */
static void check_barrier_deadlock(void)
{
    if ((barrier_count == 0 && !fence_begun) || killing)
        return;
    for (int i = 0; i < opt.nranks; i++) {
        rank_state *r = &ranks[i];
        if ((!is_proxy || rank_is_local(i)) && r->reaped && !r->in_barrier) {
            job_fail(status_code(r->status) ? status_code(r->status) : 1,
                     "rank %d (pid %d)%s exited with code %d while the others wait in a barrier, killing the job", i,
                     (int)r->pid, where(i), status_code(r->status));
            return;
        }
    }
}

/* The fence is over: every local rank in it gets its answer. */
static void release_local(void)
{
    fence_begun = 0;
    for (int i = 0; i < opt.nranks; i++) {
        rank_state *q = &ranks[i];
        if (!q->in_barrier)
            continue;
        if (q->pmi_version == 2)
            reply2(q, "cmd=kvs-fence-response;rc=0;");
        else
            reply1(q, "cmd=barrier_out");
        q->in_barrier = 0;
    }
    barrier_count = 0;
    fence_sent = 0;
}

static void pend_add(const char *key, const char *value)
{
    if (!multi)
        return;
    if (npend + 2 > pend_cap) {
        pend_cap = pend_cap ? pend_cap * 2 : 64;
        pend = realloc(pend, pend_cap * sizeof *pend);
        if (!pend)
            die(1, "out of memory for the puts of a fence");
    }
    pend[npend++] = strdup(key);
    pend[npend++] = strdup(value);
    if (!pend[npend - 1] || !pend[npend - 2])
        die(1, "out of memory for the puts of a fence");
}

static void frame_pend(void)
{
    for (size_t i = 0; i < npend; i++) {
        link_frame_str(&tx, pend[i]);
        free(pend[i]);
    }
    npend = 0;
}

/* When this node's ranks and all its children's subtrees are in the fence: a proxy sends its
 * subtree's puts up (once), the head sends the epoch's puts down and releases its ranks. */
static void fence_check(void)
{
    if (fence_sent || killing || barrier_count < nlocal)
        return;
    int fenced = 0;
    for (int k = 0; k < nkids; k++)
        fenced += kids[k].fenced;
    if (fenced < kids_expected)
        return;
    for (int k = 0; k < nkids; k++)
        kids[k].fenced = 0;
    if (is_proxy) {
        link_frame_start(&tx, M_FENCE);
        frame_pend();
        link_send(&parent_link, &tx);
        fence_sent = 1;
        return;
    }
    if (multi) {
        link_frame_start(&tx, M_FENCE_OUT);
        frame_pend();
        for (int k = 0; k < nkids; k++)
            link_send(&kids[k].c, &tx);
    }
    release_local();
}

static void note_fence_begun(void)
{
    if (fence_begun)
        return;
    fence_begun = 1;
    if (is_proxy) {
        link_frame_start(&tx, M_FENCE_BEGUN);
        link_send(&parent_link, &tx);
    }
}

static void barrier_arrive(rank_state *r)
{
    if (r->in_barrier)
        return;
    r->in_barrier = 1;
    if (multi)
        note_fence_begun();
    if (++barrier_count < nlocal) {
        check_barrier_deadlock();
        return;
    }
    fence_check();
}

static void rank_aborted(int idx, int code)
{
    if (killing)
        return;
    job_fail(code, "rank %d%s called MPI_Abort with code %d", idx, where(idx), code);
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
            pend_add(key, val);
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
            pend_add(key, val);
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

/* One line of rank idx's output (without its newline) to credorun's stdout (dest 1) or stderr (2),
 * prefixed with [rank] (with hosts: [rank@host]) under --tag-output. */
static void write_line(int idx, int dest, const char *data, size_t len)
{
    char prefix[300] = "";
    int plen = 0;
    if (opt.tag_output)
        plen = multi ? snprintf(prefix, sizeof prefix, "[%d@%s] ", idx, hosts[rank_host[idx]].name)
                     : snprintf(prefix, sizeof prefix, "[%d] ", idx);
    if (plen < 0 || plen >= (int)sizeof prefix)
        plen = 0;
    char line[TAG_LINE_MAX + 320];
    memcpy(line, prefix, (size_t)plen);
    memcpy(line + plen, data, len);
    line[plen + len] = '\n';
    (void)write_full(dest, line, (size_t)plen + len + 1);
}

/* A proxy sends its ranks' lines to the head; the head writes them. */
static void emit_tagged(int idx, out_stream *s, const char *data, size_t len)
{
    if (is_proxy) {
        link_frame_start(&tx, M_OUT);
        link_frame_int(&tx, idx);
        link_frame_int(&tx, s->dest);
        link_frame_bytes(&tx, data, len);
        link_send(&parent_link, &tx);
        return;
    }
    write_line(idx, s->dest, data, len);
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
    int lidx = multi ? rank_local_idx[idx] : idx; /* binding and local rank count on this host */
    snprintf(num, sizeof num, "%d", lidx);
    setenv("MPI_LOCALRANKID", num, 1);

    if (opt.bind == 1 && ncpus_allowed > 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu_list[lidx % ncpus_allowed], &set);
        sched_setaffinity(0, sizeof set, &set);
        if (opt.report_bindings)
            fprintf(stderr, "credorun: rank %d bound to CPU %d\n", idx, cpu_list[lidx % ncpus_allowed]);
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
static void agent_exited(pid_t pid, int status);

static void rank_exited(int idx, int status)
{
    rank_state *r = &ranks[idx];
    r->reaped = 1;
    r->status = status;
    nreaped++;
    nlocal_reaped++;
    /* Requests sent just before exiting (an abort does not wait for a reply) may still sit in
     * the socket; SIGCHLD can overtake them in the poll loop, so serve them first. */
    while (r->pmi_fd >= 0 && !killing) {
        size_t before = r->in_len;
        int fd = r->pmi_fd;
        read_pmi(idx);
        if (r->pmi_fd == fd && r->in_len == before)
            break;
    }
    if (!killing) {
        if (r->abort_pending) {
            rank_aborted(idx, status_code(status));
        } else if (WIFSIGNALED(status)) {
            job_fail(128 + WTERMSIG(status), "rank %d (pid %d)%s was killed by signal %s, killing the job", idx,
                     (int)r->pid, where(idx), signame(WTERMSIG(status)));
        } else if (!r->finalized && (WEXITSTATUS(status) != 0 || r->pmi_version != 0)) {
            /* A rank that joined the job but left without finalizing would leave its peers
             * waiting forever in the next barrier. */
            job_fail(WEXITSTATUS(status) ? WEXITSTATUS(status) : 1,
                     "rank %d (pid %d)%s exited with code %d before finalize, killing the job", idx, (int)r->pid,
                     where(idx), WEXITSTATUS(status));
        } else {
            check_barrier_deadlock();
        }
    }
    if (is_proxy) { /* after the failure line, so the head prints the cause, not a consequence */
        link_frame_start(&tx, M_EXIT);
        link_frame_int(&tx, idx);
        link_frame_int(&tx, status);
        link_frame_int(&tx, r->pid);
        link_send(&parent_link, &tx);
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
        int found = 0;
        for (int i = 0; i < opt.nranks; i++)
            if (rank_is_local(i) && ranks[i].pid == pid && !ranks[i].reaped) {
                rank_exited(i, status);
                found = 1;
                break;
            }
        if (!found)
            agent_exited(pid, status);
    }
}

/* ---------------------------------------------------------------- command line */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: credorun -n N [options] program [args...]\n"
            "Starts N ranks of program on this host (or on the hosts named with --host or --hostfile) and\n"
            "serves them PMI.\n"
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
            "\n"
            "Across hosts (docs/LAUNCH.md):\n"
            "  --host, -H LIST         hosts, comma-separated: host or host:slots (this machine: its ranks are\n"
            "                          started directly; every other host gets one proxy through the agent)\n"
            "  --hostfile, -f FILE     one host per line: 'host', 'host:N' or 'host slots=N'; # comments\n"
            "  --ppn, -N P             P ranks on each host; -n defaults to P x hosts (else to the slots)\n"
            "  --map-by slot|node      fill each host's slots in turn (default), or one rank per host in turn\n"
            "  --rr                    as --map-by node\n"
            "  --launch-agent CMD      how to run a command on another host, called as 'CMD HOST COMMAND'\n"
            "                          (default ssh; also CREDO_LAUNCH_AGENT; hydra's -launcher-exec)\n"
            "  --iface NAME[,NAME...]  the interface whose address the head and proxies advertise; the first\n"
            "                          name a host has is used, and its ranks get FI_TCP_IFACE=NAME (also\n"
            "                          CREDO_NET_IF); without it every address but loopback is advertised\n"
            "  --tree-fanout F         proxies below each proxy and below credorun (default 32)\n"
            "  --link-timeout S        a link whose other end stops answering is lost after S s (default 1)\n"
            "  --launch-timeout S      a proxy must connect within S s of its start (default 30)\n"
            "  -h, --help              this text\n"
            "  --version               print the credo version\n"
            "\n"
            "Accepted for scripts written for Open MPI's mpirun or MPICH's mpiexec (credorun is also\n"
            "installed as mpirun and mpiexec):\n"
            "  -c N                    as -n\n"
            "  A : -n M B [: ...]      MPMD: ranks 0..N-1 run A (MPI_APPNUM 0), the next M run B (1)\n"
            "  -genv, -env NAME VALUE  as -x NAME=VALUE\n"
            "  -host, -hosts LIST, -machinefile FILE, --npernode P, -iface NAME: as above\n"
            "  --mca plm_rsh_agent CMD, --mca oob_tcp_if_include NAME: as --launch-agent, --iface\n"
            "  -wdir, --wdir DIR       the ranks' working directory\n"
            "  --report-bindings       print each rank's CPU on stderr\n"
            "  --bind-to hwthread      as core\n"
            "  --oversubscribe, --allow-run-as-root, -genvall, -envall, --map-by X, --rank-by X, -q, -v:\n"
            "                          no effect (ranks always share this host's CPUs; the environment is\n"
            "                          always passed on)\n"
            "  --mca, -gmca KEY VALUE  other Open MPI settings: ignored with a warning\n"
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

/* One host entry: "name", "name:slots" or (hostfile) "name slots=N" (also max_slots=N, ignored).
 * Every name of this machine (localhost, its name, short name) becomes one entry, the head's own. */
static void add_host(const char *what, const char *entry, size_t len)
{
    size_t name_len = 0;
    while (name_len < len && entry[name_len] != ':' && entry[name_len] != ' ' && entry[name_len] != '\t')
        name_len++;
    if (name_len == 0)
        usage_error("%s: empty host name in '%.*s'", what, (int)len, entry);
    if (name_len >= 256)
        usage_error("%s: host name too long in '%.*s'", what, (int)len, entry);
    int slots = -1;
    const char *rest = entry + name_len, *end = entry + len;
    char num[32];
    if (rest < end && *rest == ':') {
        size_t nl = (size_t)(end - rest - 1);
        if (nl == 0 || nl >= sizeof num)
            usage_error("%s: expected host:slots, got '%.*s'", what, (int)len, entry);
        memcpy(num, rest + 1, nl);
        num[nl] = '\0';
        slots = (int)parse_count(what, num, 1, 1 << 20);
    } else {
        while (rest < end) {
            rest += strspn(rest, " \t");
            size_t wl = strcspn(rest, " \t");
            if (wl > (size_t)(end - rest))
                wl = (size_t)(end - rest);
            if (wl > 6 && strncmp(rest, "slots=", 6) == 0 && wl - 6 < sizeof num) {
                memcpy(num, rest + 6, wl - 6);
                num[wl - 6] = '\0';
                slots = (int)parse_count(what, num, 1, 1 << 20);
            } else if (!(wl > 10 && strncmp(rest, "max_slots=", 10) == 0) && wl > 0) {
                usage_error("%s: expected 'host slots=N' or 'host:N', got '%.*s'", what, (int)len, entry);
            }
            rest += wl;
        }
    }
    int local = is_this_host(entry, name_len);
    for (int h = 0; h < nhosts; h++)
        if ((local && hosts[h].local) ||
            (strlen(hosts[h].name) == name_len && strncmp(hosts[h].name, entry, name_len) == 0)) {
            /* a host listed twice has the slots of both entries, as in Open MPI's hostfiles */
            hosts[h].slots = (hosts[h].slots < 0 ? 1 : hosts[h].slots) + (slots < 0 ? 1 : slots);
            return;
        }
    if (nhosts == hosts_cap) {
        hosts_cap = hosts_cap ? hosts_cap * 2 : 16;
        hosts = realloc(hosts, (size_t)hosts_cap * sizeof *hosts);
        if (!hosts)
            die(1, "out of memory for the host list");
    }
    host_ent *e = &hosts[nhosts++];
    memset(e, 0, sizeof *e);
    e->name = strndup(entry, name_len);
    if (!e->name)
        die(1, "out of memory for the host list");
    e->slots = slots;
    e->local = local;
}

static void add_hosts(const char *what, const char *list)
{
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        add_host(what, p, len);
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
}

static void add_hostfile(const char *what, const char *path)
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
            add_host(what, p, len);
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

/* Which hosts take part. Only this machine (or no list): the one-host launcher of before. */
static void plan_hosts(void)
{
    int remote = 0;
    for (int h = 0; h < nhosts; h++)
        remote |= !hosts[h].local;
    if (!remote) {
        if (opt.ppn > 0 && opt.nranks < 0)
            opt.nranks = opt.ppn; /* one node of ppn ranks */
        if (opt.ppn > 0 && opt.nranks > opt.ppn)
            usage_error("-n %d at %d ranks per node needs %d nodes, but only this host is listed (name the "
                        "others with --host or --hostfile)",
                        opt.nranks, opt.ppn, (opt.nranks + opt.ppn - 1) / opt.ppn);
        if (opt.nranks < 0)
            usage_error("missing -n N (number of ranks)");
        return;
    }
    multi = 1;
    long total = 0;
    for (int h = 0; h < nhosts; h++)
        total += opt.ppn > 0 ? opt.ppn : (hosts[h].slots < 0 ? 1 : hosts[h].slots);
    if (opt.nranks < 0)
        opt.nranks = total > (1 << 20) ? (1 << 20) : (int)total; /* as Open MPI: one rank per slot */
}

/* Rank i's host: by slot (default) fills each host's slots (--ppn: ppn each) in list order, by node
 * (--map-by node, --rr) deals ranks out one per host in turn, skipping full hosts; more ranks than
 * slots start over from the first host (oversubscription, as hydra). Then the proxies: one per other
 * host that got ranks, numbered in host order. */
static void place_ranks(void)
{
    int n = opt.nranks;
    rank_host = malloc((size_t)n * sizeof *rank_host);
    rank_local_idx = malloc((size_t)n * sizeof *rank_local_idx);
    int *left = malloc((size_t)nhosts * sizeof *left);
    if (!rank_host || !rank_local_idx || !left)
        die(1, "out of memory placing %d ranks", n);
    int placed = 0;
    while (placed < n) {
        for (int h = 0; h < nhosts; h++)
            left[h] = opt.ppn > 0 ? opt.ppn : (hosts[h].slots < 0 ? 1 : hosts[h].slots);
        if (map_rr) {
            for (int more = 1; more && placed < n;) {
                more = 0;
                for (int h = 0; h < nhosts && placed < n; h++)
                    if (left[h] > 0) {
                        left[h]--;
                        rank_host[placed++] = h;
                        more = 1;
                    }
            }
        } else {
            for (int h = 0; h < nhosts && placed < n; h++)
                while (left[h] > 0 && placed < n) {
                    left[h]--;
                    rank_host[placed++] = h;
                }
        }
    }
    free(left);
    for (int i = 0; i < n; i++)
        rank_local_idx[i] = hosts[rank_host[i]].nranks++;
    proxy_host = malloc(((size_t)nhosts + 1) * sizeof *proxy_host);
    if (!proxy_host)
        die(1, "out of memory");
    for (int h = 0; h < nhosts; h++) {
        if (hosts[h].local)
            my_host = h;
        else if (hosts[h].nranks > 0) {
            hosts[h].proxy = ++nproxies;
            proxy_host[nproxies] = h;
        }
    }
    if (my_host >= 0 && hosts[my_host].nranks == 0)
        my_host = -1;
}

static void parse_args(int argc, char **argv)
{
    enum { O_FC = 256, O_SLOT, O_SLOTS, O_CREDIT, O_REPORT, O_EAGER, O_BIND, O_TAG, O_TIMEOUT, O_VERSION,
           O_NOOP, O_NOOP_ARG, O_GENV, O_HOST, O_HOSTFILE, O_PPN, O_WDIR, O_MCA, O_REPORT_BIND, O_MAPBY, O_RR,
           O_AGENT, O_IFACE, O_FANOUT, O_LINK_TIMEOUT, O_LAUNCH_TIMEOUT };
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
        {"map-by", required_argument, 0, O_MAPBY},
        {"rr", no_argument, 0, O_RR},
        {"launch-agent", required_argument, 0, O_AGENT},
        {"launcher-exec", required_argument, 0, O_AGENT},
        {"iface", required_argument, 0, O_IFACE},
        {"tree-fanout", required_argument, 0, O_FANOUT},
        {"link-timeout", required_argument, 0, O_LINK_TIMEOUT},
        {"launch-timeout", required_argument, 0, O_LAUNCH_TIMEOUT},
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
            /* the two Open MPI settings a job script over hosts carries, with credorun's meaning */
            if (strcmp(optarg, "plm_rsh_agent") == 0 || strcmp(optarg, "orte_rsh_agent") == 0) {
                agent_cmd = argv[optind++];
                break;
            }
            if (strcmp(optarg, "oob_tcp_if_include") == 0) {
                ifaces = argv[optind++];
                break;
            }
            fprintf(stderr, "credorun: warning: ignoring %s %s %s (an Open MPI setting)\n", argv[optind - 2],
                    optarg, argv[optind]);
            optind++;
            break;
        case O_HOST:
            add_hosts(argv[optind - 2], optarg);
            break;
        case O_HOSTFILE:
            add_hostfile(argv[optind - 2], optarg);
            break;
        case O_MAPBY:
            /* Open MPI's names: by node is round robin over the hosts, by slot (core, ...) fills each */
            map_rr = strncmp(optarg, "node", 4) == 0 || strncmp(optarg, "ppr:1:node", 10) == 0;
            break;
        case O_RR:
            map_rr = 1;
            break;
        case O_AGENT:
            if (!optarg[0])
                usage_error("--launch-agent: empty command");
            agent_cmd = optarg;
            break;
        case O_IFACE:
            if (!optarg[0] || strlen(optarg) >= 512)
                usage_error("--iface: expected an interface name (or a comma-separated list)");
            ifaces = optarg;
            break;
        case O_FANOUT:
            fanout = (int)parse_count("--tree-fanout", optarg, 1, 1 << 16);
            break;
        case O_LINK_TIMEOUT:
        case O_LAUNCH_TIMEOUT: {
            char *end;
            errno = 0;
            double t = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(t >= 0.1) || t > 1e6)
                usage_error("%s: expected a number of seconds (at least 0.1), got '%s'", argv[optind - 2], optarg);
            if (c == O_LINK_TIMEOUT)
                link_timeout_ms = (int)(t * 1000);
            else
                launch_timeout_ms = (int)(t * 1000);
            break;
        }
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
    plan_hosts();
    split_apps(argc, argv);
    if (multi)
        place_ranks();
}

/* ---------------------------------------------------------------- the proxy tree */

/* "2-3" or "0,2,4": the ranks placed on host h, for messages. */
static const char *ranks_of(int h)
{
    static char buf[200];
    size_t len = 0;
    int count = 0;
    char list[180] = "";
    for (int i = 0; i < opt.nranks && len < sizeof list - 24; i++) {
        if (rank_host[i] != h)
            continue;
        count++;
        int prev = i > 0 && rank_host[i - 1] == h, next = i + 1 < opt.nranks && rank_host[i + 1] == h;
        if (prev && next)
            continue; /* inside a run */
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", prev ? "-" : (list[0] ? "," : ""), i);
    }
    snprintf(buf, sizeof buf, "%s %s", count == 1 ? "rank" : "ranks", list);
    return buf;
}

/* Ranks below proxy id (its host and its subtree) not yet reported gone. */
static int subtree_unreaped(int id)
{
    int n = 0;
    for (int i = 0; i < opt.nranks; i++) {
        int p = hosts[rank_host[i]].proxy;
        while (p > id)
            p = proxy_parent(p);
        n += p == id && !ranks[i].reaped;
    }
    return n;
}

static int count_kids_of(int id)
{
    int first = id * fanout + 1, last = id * fanout + fanout;
    if (last > nproxies)
        last = nproxies;
    return last >= first ? last - first + 1 : 0;
}

/* Words of a shell command line, for the remote shell that ssh runs the proxy in. */
static void shell_quote(char *out, size_t outlen, const char *word)
{
    size_t n = strlen(out);
    if (n + 3 < outlen)
        out[n++] = '\'';
    for (const char *p = word; *p && n + 6 < outlen; p++) {
        if (*p == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else
            out[n++] = *p;
    }
    out[n++] = '\'';
    out[n++] = ' ';
    out[n] = '\0';
}

/* Starts proxy id on its host through the launch agent: AGENT-WORDS HOST 'credorun' --proxy ... */
static void launch_proxy(int id)
{
    proxy_st *px = &proxies[id];
    int parent = proxy_parent(id), h = proxy_host[id];
    char exe[PATH_MAX], addr[1200], cmd[4096] = "", num[32];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (el <= 0)
        die(1, "cannot find credorun's own path: %s", strerror(errno));
    exe[el] = '\0';
    if (parent == 0)
        snprintf(addr, sizeof addr, "%s:%d", my_addrs, listen_port);
    else
        snprintf(addr, sizeof addr, "%s", proxies[parent].addr);
    shell_quote(cmd, sizeof cmd, exe);
    shell_quote(cmd, sizeof cmd, "--proxy");
    snprintf(num, sizeof num, "%d", id);
    shell_quote(cmd, sizeof cmd, num);
    shell_quote(cmd, sizeof cmd, "--parent");
    shell_quote(cmd, sizeof cmd, addr);
    shell_quote(cmd, sizeof cmd, "--cookie");
    shell_quote(cmd, sizeof cmd, cookie);
    shell_quote(cmd, sizeof cmd, "--link-timeout-ms");
    snprintf(num, sizeof num, "%d", link_timeout_ms);
    shell_quote(cmd, sizeof cmd, num);
    if (ifaces) {
        shell_quote(cmd, sizeof cmd, "--iface");
        shell_quote(cmd, sizeof cmd, ifaces);
    }
    char agent_words[1024];
    snprintf(agent_words, sizeof agent_words, "%s", agent_cmd);
    char *av[64];
    int ac = 0;
    char *save = NULL;
    for (char *w = strtok_r(agent_words, " \t", &save); w && ac < 60; w = strtok_r(NULL, " \t", &save))
        av[ac++] = w;
    av[ac++] = hosts[h].name;
    av[ac++] = cmd;
    av[ac] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        job_fail(255, "host %s: cannot fork the launch agent: %s", hosts[h].name, strerror(errno));
        return;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        setpgid(0, 0); /* a Ctrl-C at the terminal reaches credorun, which ends the job in order */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, 0);
            close(devnull);
        }
        execvp(av[0], av);
        fprintf(stderr, "credorun: cannot execute the launch agent '%s': %s\n", av[0], strerror(errno));
        _exit(255);
    }
    setpgid(pid, pid);
    px->agent = pid;
    px->launched = 1;
    px->launch_ms = now_ms();
}

static void launch_kids_of(int id)
{
    int first = id * fanout + 1;
    for (int k = 0; k < count_kids_of(id); k++)
        if (!proxies[first + k].launched && !killing)
            launch_proxy(first + k);
}

static void agent_exited(pid_t pid, int status)
{
    if (!proxies)
        return;
    for (int id = 1; id <= nproxies; id++) {
        proxy_st *px = &proxies[id];
        if (px->agent != pid || px->agent_reaped)
            continue;
        px->agent_reaped = 1;
        px->agent_status = status;
        if (!px->hello)
            job_fail(255, "host %s (%s): the launch agent '%s' %s %d before the proxy connected (host unreachable?)",
                     hosts[proxy_host[id]].name, ranks_of(proxy_host[id]), agent_cmd,
                     WIFSIGNALED(status) ? "was killed by signal" : "exited with code",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        return;
    }
}

static void kid_lost(int k, const char *why)
{
    kid_link *kd = &kids[k];
    int id = kd->id;
    link_close(&kd->c);
    if (id > 0)
        kids_done++;
    /* Lost with ranks unaccounted for (a cut link, a dead proxy): its agent (ssh) has nothing
     * left to carry and is ended now rather than waited for at the end. (After a normal close it
     * exits by itself, without ssh's "Killed by signal" line.) */
    if (id > 0 && !is_proxy && proxies[id].launched && !proxies[id].agent_reaped && subtree_unreaped(id) > 0)
        kill(-proxies[id].agent, SIGTERM);
    /* A connection that never said hello is nobody's (a port probe, a proxy of another job): the
     * head's launch timeout catches a proxy that never calls. */
    if (killing || id == 0)
        return;
    if (subtree_unreaped(id) > 0)
        job_fail(255, "host %s (%s): proxy lost: %s, killing the job", hosts[proxy_host[id]].name,
                 ranks_of(proxy_host[id]), why);
}

static void parent_lost(const char *why)
{
    link_close(&parent_link);
    if (killing)
        return;
    /* (not "credorun: ...": the head prints the job's one line; this one is the remote end's view) */
    fprintf(stderr, "credorun[proxy %s]: lost the connection to the head (%s), killing this host's ranks\n",
            my_hostname, why);
    decide_exit(255);
    kill_job();
}

/* The head's SETUP: everything a proxy needs to start its host's ranks as the head would. */
static int env_forwarded(const char *e)
{
    static const char *const skip[] = {"HOSTNAME=", "PWD=", "OLDPWD=", "SHLVL=", "_=", "PMI_RANK=", "PMI_FD=",
                                       "MPI_LOCALRANKID=", "MPI_LOCALNRANKS=", "SSH_", NULL};
    for (int i = 0; skip[i]; i++)
        if (strncmp(e, skip[i], strlen(skip[i])) == 0)
            return 0;
    if (!user_fi_iface && strncmp(e, "FI_TCP_IFACE=", 13) == 0)
        return 0;
    return 1;
}

extern char **environ;

static void build_setup(void)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "/");
    link_frame *f = &setup_frame;
    link_frame_start(f, M_SETUP);
    link_frame_str(f, kvsname);
    link_frame_int(f, opt.nranks);
    link_frame_int(f, nhosts);
    for (int h = 0; h < nhosts; h++)
        link_frame_str(f, hosts[h].name);
    for (int i = 0; i < opt.nranks; i++)
        link_frame_int(f, rank_host[i]);
    link_frame_int(f, opt.napps);
    for (int a = 0; a < opt.napps; a++) {
        int argc = 0;
        while (opt.app_argv[a][argc])
            argc++;
        link_frame_int(f, opt.app_first[a]);
        link_frame_int(f, argc);
        for (int j = 0; j < argc; j++)
            link_frame_str(f, opt.app_argv[a][j]);
    }
    link_frame_int(f, opt.app_first[opt.napps]);
    link_frame_int(f, opt.tag_output);
    link_frame_int(f, opt.bind);
    link_frame_int(f, opt.report_bindings);
    link_frame_str(f, opt.wdir ? opt.wdir : "");
    link_frame_str(f, cwd);
    link_frame_int(f, user_fi_iface);
    link_frame_int(f, nproxies);
    link_frame_int(f, fanout);
    int nenv = 0;
    for (char **e = environ; *e; e++)
        nenv += env_forwarded(*e);
    link_frame_int(f, nenv);
    for (char **e = environ; *e; e++)
        if (env_forwarded(*e))
            link_frame_str(f, *e);
    link_frame_int(f, (long long)kvs_used);
    for (size_t i = 0; i < kvs_cap; i++)
        if (kvs_tab[i].key) {
            link_frame_str(f, kvs_tab[i].key);
            link_frame_str(f, kvs_tab[i].value);
        }
    for (int id = 1; id <= nproxies; id++)
        link_frame_int(f, proxy_host[id]);
    have_setup = 1;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        die(1, "out of memory");
    return d;
}

static void start_local_ranks(void);
static void prepare_rank_env(void);

/* A proxy learns the job from SETUP, then starts its host's ranks. */
static void apply_setup(link_reader *rd)
{
    /* kept whole, for children that connect later */
    size_t flen = (size_t)(rd->end - rd->frame);
    setup_frame.p = malloc(flen);
    if (!setup_frame.p)
        die(1, "out of memory");
    memcpy(setup_frame.p, rd->frame, flen);
    setup_frame.len = setup_frame.cap = flen;
    have_setup = 1;

    snprintf(kvsname, sizeof kvsname, "%s", link_field(rd));
    opt.nranks = (int)link_field_int(rd);
    nhosts = (int)link_field_int(rd);
    if (rd->bad || opt.nranks < 1 || nhosts < 1 || opt.nranks > (1 << 20) || nhosts > (1 << 20))
        die(1, "proxy on %s: malformed setup from the head", my_hostname);
    hosts = calloc((size_t)nhosts, sizeof *hosts);
    rank_host = malloc((size_t)opt.nranks * sizeof *rank_host);
    rank_local_idx = malloc((size_t)opt.nranks * sizeof *rank_local_idx);
    ranks = calloc((size_t)opt.nranks, sizeof *ranks);
    proxy_host = malloc(((size_t)nhosts + 1) * sizeof *proxy_host);
    if (!hosts || !rank_host || !rank_local_idx || !ranks || !proxy_host)
        die(1, "out of memory");
    for (int h = 0; h < nhosts; h++)
        hosts[h].name = xstrdup(link_field(rd));
    for (int i = 0; i < opt.nranks; i++) {
        int h = (int)link_field_int(rd);
        rank_host[i] = h >= 0 && h < nhosts ? h : 0;
        rank_local_idx[i] = hosts[rank_host[i]].nranks++;
    }
    opt.napps = (int)link_field_int(rd);
    if (opt.napps < 1 || opt.napps > MAX_APPS)
        die(1, "proxy on %s: malformed setup from the head", my_hostname);
    for (int a = 0; a < opt.napps; a++) {
        opt.app_first[a] = (int)link_field_int(rd);
        int argc = (int)link_field_int(rd);
        if (argc < 1 || argc > 100000)
            die(1, "proxy on %s: malformed setup from the head", my_hostname);
        opt.app_argv[a] = calloc((size_t)argc + 1, sizeof(char *));
        if (!opt.app_argv[a])
            die(1, "out of memory");
        for (int j = 0; j < argc; j++)
            opt.app_argv[a][j] = xstrdup(link_field(rd));
    }
    opt.app_first[opt.napps] = (int)link_field_int(rd);
    opt.tag_output = (int)link_field_int(rd);
    opt.bind = (int)link_field_int(rd);
    opt.report_bindings = (int)link_field_int(rd);
    const char *wdir = link_field(rd);
    opt.wdir = wdir[0] ? xstrdup(wdir) : NULL;
    const char *cwd = link_field(rd);
    user_fi_iface = (int)link_field_int(rd);
    nproxies = (int)link_field_int(rd);
    fanout = (int)link_field_int(rd);
    if (fanout < 1)
        fanout = 1;
    /* the working directory of the head, as hydra does, when this host has it */
    if (!opt.wdir && chdir(cwd) != 0)
        fprintf(stderr, "credorun: proxy on %s: no directory %s here, the ranks start in %s\n", my_hostname, cwd,
                getenv("HOME") ? getenv("HOME") : "/");
    long long nenv = link_field_int(rd);
    for (long long i = 0; i < nenv && !rd->bad; i++) {
        const char *e = link_field(rd);
        const char *eq = strchr(e, '=');
        if (!eq || eq == e)
            continue;
        char *name = strndup(e, (size_t)(eq - e));
        if (name)
            setenv(name, eq + 1, 1);
        free(name);
    }
    long long nkv = link_field_int(rd);
    for (long long i = 0; i < nkv && !rd->bad; i++) {
        const char *k = link_field(rd);
        const char *v = link_field(rd);
        kvs_put(k, v);
    }
    if (rd->bad)
        die(1, "proxy on %s: malformed setup from the head", my_hostname);
    /* the host of each proxy id, as the head numbered them */
    for (int id = 1; id <= nproxies; id++) {
        int h = (int)link_field_int(rd);
        proxy_host[id] = h >= 0 && h < nhosts ? h : 0;
        hosts[proxy_host[id]].proxy = id;
    }
    if (rd->bad)
        die(1, "proxy on %s: malformed setup from the head", my_hostname);
    my_host = proxy_host[my_proxy];
    kids_expected = count_kids_of(my_proxy);
    for (int i = 0; i < opt.nranks; i++)
        ranks[i].streams[0].fd = ranks[i].streams[1].fd = -1;
    for (int k = 0; k < nkids; k++)
        if (kids[k].id > 0)
            link_send(&kids[k].c, &setup_frame);
    start_watchdog();
    prepare_rank_env();
    start_local_ranks();
}

static void handle_kid_frame(int k, int type, link_reader *rd)
{
    kid_link *kd = &kids[k];
    if (kd->id == 0) { /* its own hello comes first */
        int id = (int)link_field_int(rd);
        const char *ck = link_field(rd);
        const char *addr = link_field(rd);
        if (type != M_HELLO || rd->bad || strcmp(ck, cookie) != 0 || id < 1 || proxy_parent(id) != my_proxy ||
            (nproxies && id > nproxies)) {
            link_close(&kd->c); /* not one of ours */
            return;
        }
        kd->id = id;
        if (!is_proxy) {
            proxies[id].hello = 1;
            snprintf(proxies[id].addr, sizeof proxies[id].addr, "%s", addr);
        }
        if (killing) {
            link_frame_start(&tx, M_KILL);
            link_send(&kd->c, &tx);
        } else if (have_setup)
            link_send(&kd->c, &setup_frame);
        if (is_proxy)
            link_send_raw(&parent_link, rd);
        else
            launch_kids_of(id);
        return;
    }
    switch (type) {
    case M_HELLO: /* a deeper proxy's, relayed */
        if (is_proxy) {
            link_send_raw(&parent_link, rd);
        } else {
            int id = (int)link_field_int(rd);
            (void)link_field(rd);
            const char *addr = link_field(rd);
            if (!rd->bad && id >= 1 && id <= nproxies) {
                proxies[id].hello = 1;
                snprintf(proxies[id].addr, sizeof proxies[id].addr, "%s", addr);
                launch_kids_of(id);
            }
        }
        break;
    case M_FENCE_BEGUN:
        note_fence_begun();
        check_barrier_deadlock();
        break;
    case M_FENCE:
        note_fence_begun();
        while (rd->p < rd->end && !rd->bad) {
            const char *key = link_field(rd);
            const char *val = link_field(rd);
            if (rd->bad)
                break;
            kvs_put(key, val);
            pend_add(key, val);
        }
        kd->fenced = 1;
        fence_check();
        break;
    case M_OUT: {
        if (is_proxy) {
            link_send_raw(&parent_link, rd);
            break;
        }
        int idx = (int)link_field_int(rd);
        int dest = (int)link_field_int(rd);
        if (!rd->bad && idx >= 0 && idx < opt.nranks && (dest == 1 || dest == 2)) {
            size_t len = (size_t)(rd->end - rd->p);
            write_line(idx, dest, rd->p, len > TAG_LINE_MAX ? TAG_LINE_MAX : len);
        }
        break;
    }
    case M_EXIT: {
        const link_reader whole = *rd;
        int idx = (int)link_field_int(rd);
        int status = (int)link_field_int(rd);
        int pid = (int)link_field_int(rd);
        if (!rd->bad && idx >= 0 && idx < opt.nranks && !ranks[idx].reaped) {
            ranks[idx].reaped = 1; /* (reaped: signal_ranks never uses this pid of another host) */
            ranks[idx].status = status;
            ranks[idx].pid = pid;
            nreaped++;
        }
        if (is_proxy)
            link_send_raw(&parent_link, &whole);
        else
            check_barrier_deadlock();
        break;
    }
    case M_FAIL: {
        const link_reader whole = *rd;
        int code = (int)link_field_int(rd);
        const char *line = link_field(rd);
        if (killing || rd->bad)
            break;
        if (is_proxy)
            link_send_raw(&parent_link, &whole);
        else
            note("%s", line);
        decide_exit(code);
        kill_job();
        break;
    }
    default:
        break;
    }
}

static void handle_parent_frame(int type, link_reader *rd)
{
    switch (type) {
    case M_SETUP:
        if (!have_setup && !killing)
            apply_setup(rd);
        break;
    case M_FENCE_OUT: {
        const link_reader whole = *rd;
        while (rd->p < rd->end && !rd->bad) {
            const char *key = link_field(rd);
            const char *val = link_field(rd);
            if (!rd->bad)
                kvs_put(key, val);
        }
        for (int k = 0; k < nkids; k++)
            link_send_raw(&kids[k].c, &whole);
        release_local();
        break;
    }
    case M_KILL:
        decide_exit(1);
        kill_job();
        break;
    default:
        break;
    }
}

static void read_link_frames(link_conn *c, int kid)
{
    if (link_read(c) != 0) {
        char why[128];
        if (errno == ETIMEDOUT)
            snprintf(why, sizeof why, "no answer for %.1f s (host unreachable or link down?)", link_timeout_ms / 1000.0);
        else if (errno)
            snprintf(why, sizeof why, "connection lost: %s", strerror(errno));
        else
            snprintf(why, sizeof why, "connection closed");
        if (kid >= 0)
            kid_lost(kid, why);
        else
            parent_lost(why);
        return;
    }
    int type, rc;
    link_reader rd;
    while (c->fd >= 0 && (rc = link_next(c, &type, &rd)) != 0) {
        if (rc < 0) {
            if (kid >= 0)
                kid_lost(kid, "malformed message");
            else
                parent_lost("malformed message");
            return;
        }
        if (kid >= 0)
            handle_kid_frame(kid, type, &rd);
        else
            handle_parent_frame(type, &rd);
    }
}

static void accept_kids(void)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (nkids == kids_cap) {
            kids_cap = kids_cap ? kids_cap * 2 : 8;
            kids = realloc(kids, (size_t)kids_cap * sizeof *kids);
            if (!kids)
                die(1, "out of memory");
        }
        kid_link *kd = &kids[nkids++];
        memset(kd, 0, sizeof *kd);
        link_open(&kd->c, fd, link_timeout_ms);
    }
}

/* Heartbeats, silent links, proxies that never call, and the last resort after a kill order. */
static void link_tick(long long now)
{
    char why[96];
    long long silence_ms = (long long)link_timeout_ms * LINK_SILENCE_FACTOR;
    snprintf(why, sizeof why, "no heartbeat for %.1f s (proxy stopped or hung?)", silence_ms / 1000.0);
    if (parent_link.fd >= 0) {
        if (now - parent_link.last_tx_ms >= LINK_PING_MS) {
            link_frame_start(&tx, M_PING);
            link_send(&parent_link, &tx);
        }
        if (parent_link.fd >= 0 && now - parent_link.last_rx_ms > silence_ms)
            parent_lost(why);
    }
    for (int k = 0; k < nkids; k++) {
        link_conn *c = &kids[k].c;
        if (c->fd < 0)
            continue;
        if (now - c->last_tx_ms >= LINK_PING_MS) {
            link_frame_start(&tx, M_PING);
            link_send(c, &tx);
        }
        if (c->fd >= 0 && now - c->last_rx_ms > silence_ms)
            kid_lost(k, why);
    }
    if (!is_proxy && proxies && !killing)
        for (int id = 1; id <= nproxies; id++)
            if (proxies[id].launched && !proxies[id].hello && now - proxies[id].launch_ms > launch_timeout_ms) {
                job_fail(255, "host %s (%s): the proxy did not connect within %.0f s (host unreachable?)",
                         hosts[proxy_host[id]].name, ranks_of(proxy_host[id]), launch_timeout_ms / 1000.0);
                break;
            }
    /* Children that still have not closed well after the kill order (their host cut off): stop
     * waiting; their proxies end their ranks on their own once the link times out. */
    if (killing && now - kill_started_ms > KILL_GRACE_MS + 2000)
        for (int k = 0; k < nkids; k++)
            if (kids[k].c.fd >= 0) {
                link_close(&kids[k].c);
                if (kids[k].id > 0)
                    kids_done++;
            }
}

static int open_kids(void)
{
    int n = 0;
    for (int k = 0; k < nkids; k++)
        n += kids[k].c.fd >= 0;
    return n;
}

/* ---------------------------------------------------------------- main */


/* What every rank of this host gets in its environment (after the head built SETUP from its own). */
static void prepare_rank_env(void)
{
    char num[32];
    nlocal = 0;
    for (int i = 0; i < opt.nranks; i++)
        nlocal += rank_is_local(i);
    snprintf(num, sizeof num, "%d", opt.nranks);
    setenv("PMI_SIZE", num, 1);
    snprintf(num, sizeof num, "%d", nlocal);
    setenv("MPI_LOCALNRANKS", num, 1);
    /* libfabric's tcp provider then uses the job's interface only (never another one of the host) */
    if (my_iface[0] && !user_fi_iface)
        setenv("FI_TCP_IFACE", my_iface, 1);
    /* An outer launcher's variables would send our ranks to the wrong PMI server. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("PMI_JOBID");
}

/* Forks this host's ranks; each exec-status pipe closes on a successful exec or carries errno. */
static void start_local_ranks(void)
{
    pid_t self = getpid();
    int pipe_output = opt.tag_output || is_proxy;
    int *exec_fds = malloc(((size_t)opt.nranks + 1) * sizeof *exec_fds);
    if (!exec_fds)
        die(1, "out of memory");
    for (int i = 0; i < opt.nranks; i++) {
        rank_state *r = &ranks[i];
        r->streams[0].fd = r->streams[1].fd = -1;
        r->pmi_fd = -1;
        exec_fds[i] = -1;
    }
    for (int i = 0; i < opt.nranks && !killing; i++) {
        if (!rank_is_local(i))
            continue;
        rank_state *r = &ranks[i];
        int sv[2], op[2] = {-1, -1}, ep[2] = {-1, -1}, xp[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(xp, O_CLOEXEC) != 0 ||
            (pipe_output && (pipe2(op, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0))) {
            job_fail(1, "cannot create pipes for rank %d%s: %s", i, where(i), strerror(errno));
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            close(sv[0]), close(sv[1]), close(xp[0]), close(xp[1]);
            job_fail(1, "fork for rank %d%s: %s", i, where(i), strerror(errno));
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
        if (pipe_output) {
            close(op[1]);
            close(ep[1]);
            r->streams[0] = (out_stream){.fd = op[0], .dest = 1};
            r->streams[1] = (out_stream){.fd = ep[0], .dest = 2};
        }
    }
    /* Ranks that were never started (a failure above) count as gone. */
    for (int i = 0; i < opt.nranks; i++)
        if (rank_is_local(i) && ranks[i].pid == 0 && !ranks[i].reaped) {
            ranks[i].reaped = 1;
            ranks[i].status = 1 << 8;
            nreaped++;
            nlocal_reaped++;
        }
    for (int i = 0; i < opt.nranks; i++) {
        if (exec_fds[i] < 0)
            continue;
        int e = 0;
        ssize_t n;
        do
            n = read(exec_fds[i], &e, sizeof e);
        while (n < 0 && errno == EINTR);
        close(exec_fds[i]);
        if (n == (ssize_t)sizeof e && !exit_decided)
            job_fail(127, "cannot execute '%s'%s: %s", opt.app_argv[app_of(i)][0],
                     multi ? where(i) : "", strerror(e));
    }
    free(exec_fds);
}

/* Whether the job is over here: this host's ranks gone, their output drained, no child link open,
 * and (unless the job is being killed) every rank below reported. */
static int loop_done(long long *drain_deadline_ms)
{
    if (nlocal_reaped < nlocal || open_kids() > 0)
        return 0;
    if (is_proxy) {
        if (!have_setup && !killing && parent_link.fd >= 0)
            return 0;
        if (!killing && kids_done < kids_expected)
            return 0;
    } else if (!killing && nreaped < opt.nranks) {
        return 0;
    }
    if (*drain_deadline_ms < 0)
        *drain_deadline_ms = now_ms() + DRAIN_GRACE_MS;
    int open_streams = 0;
    for (int i = 0; i < opt.nranks; i++)
        open_streams += (ranks[i].streams[0].fd >= 0) + (ranks[i].streams[1].fd >= 0);
    return !open_streams || now_ms() >= *drain_deadline_ms;
}

static void event_loop(int sigfd)
{
    size_t nfds_cap = 0;
    struct pollfd *pfds = NULL;
    int *owner = NULL; /* rank*3 + kind (0 pmi, 1 out, 2 err); -1 signals, -2 listen, -3 parent, -4-k kid k */
    long long drain_deadline_ms = -1;

    for (;;) {
        if (loop_done(&drain_deadline_ms))
            break;
        size_t need = (size_t)(ranks ? opt.nranks : 0) * 3 + (size_t)nkids + 4;
        if (need > nfds_cap) {
            nfds_cap = need * 2;
            pfds = realloc(pfds, nfds_cap * sizeof *pfds);
            owner = realloc(owner, nfds_cap * sizeof *owner);
            if (!pfds || !owner)
                die(1, "out of memory");
        }
        size_t nfds = 0;
        pfds[nfds] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        owner[nfds++] = -1;
        if (listen_fd >= 0) {
            pfds[nfds] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
            owner[nfds++] = -2;
        }
        if (parent_link.fd >= 0) {
            pfds[nfds] = (struct pollfd){.fd = parent_link.fd, .events = POLLIN | (parent_link.out_len ? POLLOUT : 0)};
            owner[nfds++] = -3;
        }
        for (int k = 0; k < nkids; k++)
            if (kids[k].c.fd >= 0) {
                pfds[nfds] = (struct pollfd){.fd = kids[k].c.fd, .events = POLLIN | (kids[k].c.out_len ? POLLOUT : 0)};
                owner[nfds++] = -4 - k;
            }
        for (int i = 0; ranks && i < opt.nranks; i++) {
            rank_state *r = &ranks[i];
            if (r->pmi_fd >= 0) {
                pfds[nfds] = (struct pollfd){.fd = r->pmi_fd, .events = POLLIN | (r->out_len ? POLLOUT : 0)};
                owner[nfds++] = i * 3;
            }
            for (int st = 0; st < 2; st++)
                if (r->streams[st].fd >= 0) {
                    pfds[nfds] = (struct pollfd){.fd = r->streams[st].fd, .events = POLLIN};
                    owner[nfds++] = i * 3 + 1 + st;
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
        if (multi && (wake < 0 || now + LINK_PING_MS / 2 < wake))
            wake = now + LINK_PING_MS / 2; /* heartbeats and link checks */
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
        if (timeout_deadline_ms >= 0 && now >= timeout_deadline_ms && !killing)
            job_fail(124, "timeout after %g s, killing the job", opt.timeout_s);
        if (multi)
            link_tick(now);
        if (rc <= 0)
            continue;
        for (size_t k = 0; k < nfds; k++) {
            if (!pfds[k].revents)
                continue;
            if (owner[k] == -1) {
                struct signalfd_siginfo si;
                while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    int sig = (int)si.ssi_signo;
                    if (sig == SIGCHLD)
                        continue;
                    if (killing)
                        signal_ranks(SIGKILL); /* a second Ctrl-C: no more grace */
                    else if (is_proxy)
                        job_fail(128 + sig, "proxy on host %s received %s, killing the job", my_hostname,
                                 signame(sig));
                    else
                        job_fail(128 + sig, "received %s, killing the job", signame(sig));
                }
                reap_children();
                continue;
            }
            if (owner[k] == -2) {
                accept_kids();
                continue;
            }
            if (owner[k] == -3) {
                if (parent_link.fd != pfds[k].fd)
                    continue;
                if (pfds[k].revents & POLLOUT)
                    link_flush(&parent_link);
                if (parent_link.fd >= 0 && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    read_link_frames(&parent_link, -1);
                continue;
            }
            if (owner[k] <= -4) {
                int kd = -4 - owner[k];
                if (kids[kd].c.fd != pfds[k].fd)
                    continue;
                if (pfds[k].revents & POLLOUT)
                    link_flush(&kids[kd].c);
                if (kids[kd].c.fd >= 0 && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    read_link_frames(&kids[kd].c, kd);
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
                out_stream *st = &r->streams[kind - 1];
                if (st->fd == pfds[k].fd)
                    read_output(idx, st);
            }
        }
    }
    free(pfds);
    free(owner);
}

/* credorun --proxy ID --parent ADDRS:PORT --cookie C --link-timeout-ms T [--iface LIST]: started by
 * the launch agent on another host; joins the tree below its parent and waits for SETUP. */
static void proxy_args(int argc, char **argv)
{
    const char *parent = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--proxy") == 0)
            my_proxy = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--parent") == 0)
            parent = argv[i + 1];
        else if (strcmp(argv[i], "--cookie") == 0)
            snprintf(cookie, sizeof cookie, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "--link-timeout-ms") == 0)
            link_timeout_ms = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--iface") == 0)
            ifaces = argv[i + 1];
    }
    if (my_proxy < 1 || !parent || !cookie[0] || link_timeout_ms < 100)
        die(2, "--proxy: internal option (started by credorun through the launch agent)");
    is_proxy = 1;
    multi = 1;
    char err[256];
    if (link_local_addrs(ifaces, my_addrs, sizeof my_addrs, my_iface, sizeof my_iface, err, sizeof err) != 0)
        die(255, "proxy on %s: --iface: %s", my_hostname, err);
    listen_fd = link_listen(&listen_port, err, sizeof err);
    if (listen_fd < 0)
        die(255, "proxy on %s: %s", my_hostname, err);
    int fd = link_connect(parent, 3000, err, sizeof err);
    if (fd < 0)
        die(255, "proxy on %s: cannot reach the head: %s", my_hostname, err);
    link_open(&parent_link, fd, link_timeout_ms);
    char addr[1100];
    snprintf(addr, sizeof addr, "%s:%d", my_addrs, listen_port);
    link_frame_start(&tx, M_HELLO);
    link_frame_int(&tx, my_proxy);
    link_frame_str(&tx, cookie);
    link_frame_str(&tx, addr);
    link_send(&parent_link, &tx);
}

/* The head's part of a job over hosts: where proxies connect, and what they are told. */
static void head_prepare(void)
{
    char err[256];
    if (link_local_addrs(ifaces, my_addrs, sizeof my_addrs, my_iface, sizeof my_iface, err, sizeof err) != 0)
        usage_error("--iface (CREDO_NET_IF): %s", err);
    if (nproxies > 0) {
        listen_fd = link_listen(&listen_port, err, sizeof err);
        if (listen_fd < 0)
            die(1, "%s", err);
    }
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (unsigned char)(now_ms() >> (i % 8) ^ (unsigned long long)getpid() * (i + 1));
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(cookie + 2 * i, 3, "%02x", rnd[i]);
    proxies = calloc((size_t)nproxies + 1, sizeof *proxies);
    if (!proxies)
        die(1, "out of memory");
    kids_expected = count_kids_of(0);
    /* PMI_process_mapping, as hydra writes it: (node, 1, count) for each run of ranks on one host */
    static char mapping[PMI_VALLEN_MAX];
    size_t len = (size_t)snprintf(mapping, sizeof mapping, "(vector");
    for (int i = 0; i < opt.nranks && len < sizeof mapping - 40;) {
        int j = i;
        while (j < opt.nranks && rank_host[j] == rank_host[i])
            j++;
        len += (size_t)snprintf(mapping + len, sizeof mapping - len, ",(%d,1,%d)", rank_host[i], j - i);
        i = j;
    }
    snprintf(mapping + len, sizeof mapping - len, ")");
    kvs_put("PMI_process_mapping", mapping);
    build_setup();
}

int main(int argc, char **argv)
{
    /* With stdin/stdout/stderr closed, a socketpair could land on fd 1 and be clobbered by the
     * ranks' output plumbing: occupy 0-2 first. */
    int spare;
    while ((spare = open("/dev/null", O_RDWR)) >= 0 && spare <= 2)
        ;
    if (spare > 2)
        close(spare);
    if (gethostname(my_hostname, sizeof my_hostname - 1) != 0)
        snprintf(my_hostname, sizeof my_hostname, "?");
    signal(SIGPIPE, SIG_IGN);

    if (argc > 1 && strcmp(argv[1], "--proxy") == 0) {
        proxy_args(argc, argv);
    } else {
        /* The launcher's own settings: never passed to the ranks (credo would warn about an unknown
         * CREDO_ variable). The options win over them. */
        static char env_if[512], env_agent[1024];
        const char *e;
        if ((e = getenv("CREDO_NET_IF")) && *e)
            snprintf(env_if, sizeof env_if, "%s", e);
        if ((e = getenv("CREDO_LAUNCH_AGENT")) && *e)
            snprintf(env_agent, sizeof env_agent, "%s", e);
        unsetenv("CREDO_NET_IF");
        unsetenv("CREDO_LAUNCH_AGENT");
        parse_args(argc, argv);
        if (!ifaces && env_if[0])
            ifaces = env_if;
        if (!agent_cmd)
            agent_cmd = env_agent[0] ? env_agent : "ssh";
        user_fi_iface = getenv("FI_TCP_IFACE") != NULL;

        unsigned int rnd = 0;
        if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
            rnd = (unsigned int)(now_ms() ^ ((unsigned int)getpid() << 16));
        snprintf(kvsname, sizeof kvsname, "credo-%d-%08x", (int)getpid(), rnd);
        unsetenv("PMI_PORT");
        unsetenv("PMI_ID");
        unsetenv("PMI_JOBID");
    }

    /* Thousands of ranks need several descriptors each. */
    getrlimit(RLIMIT_NOFILE, &saved_nofile);
    struct rlimit raised = saved_nofile;
    raised.rlim_cur = raised.rlim_max;
    setrlimit(RLIMIT_NOFILE, &raised);
    if (!is_proxy && (rlim_t)opt.nranks * 4 + 64 > raised.rlim_cur)
        die(2, "-n %d needs about %d file descriptors, the limit is %lu", opt.nranks, opt.nranks * 4 + 64,
            (unsigned long)raised.rlim_cur);

    stdin_is_tty = !is_proxy && isatty(0);
    init_cpu_list();
    /* Oversubscribed ranks are pinned too (round robin): at np 4 on 2 CPUs unpinned ranks landed in
     * a different pairing on every run and collectives took 10 to 18 us; pinned, always 10. */
    if (opt.bind < 0)
        opt.bind = 1;

    if (!is_proxy) {
        if (multi) {
            head_prepare(); /* SETUP carries the environment as it is now */
        } else {
            /* MPICH-built programs ask for this hydra key to learn which ranks share a node. */
            char mapping[64];
            snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", opt.nranks);
            kvs_put("PMI_process_mapping", mapping);
        }
        ranks = calloc((size_t)opt.nranks, sizeof *ranks);
        if (!ranks)
            die(1, "out of memory for %d ranks", opt.nranks);
        for (int i = 0; i < opt.nranks; i++)
            ranks[i].streams[0].fd = ranks[i].streams[1].fd = ranks[i].pmi_fd = -1;
        start_watchdog();
    }

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
    fflush(NULL);

    if (!is_proxy) {
        prepare_rank_env();
        start_local_ranks();
        if (multi && !killing)
            launch_kids_of(0);
        if (opt.timeout_s > 0)
            timeout_deadline_ms = now_ms() + (long long)(opt.timeout_s * 1000);
    }

    event_loop(sigfd);

    for (int i = 0; ranks && i < opt.nranks; i++)
        for (int st = 0; st < 2; st++)
            if (ranks[i].streams[st].fd >= 0) {
                if (ranks[i].streams[st].len)
                    emit_tagged(i, &ranks[i].streams[st], ranks[i].streams[st].buf, ranks[i].streams[st].len);
                close(ranks[i].streams[st].fd);
            }
    if (kvsname[0])
        remove_shm_leftovers();
    stop_watchdog();
    if (is_proxy) {
        /* the last output lines and exits, then the head sees this link close */
        link_flush_wait(&parent_link, 2000);
        link_close(&parent_link);
        return 0;
    }
    for (int k = 0; k < nkids; k++)
        link_close(&kids[k].c);
    /* The agents end with their proxies; one that lingers (its host cut off) is ended, and one whose
     * proxy never called (a host that does not answer) at once. */
    if (proxies) {
        for (int id = 1; id <= nproxies; id++)
            if (proxies[id].launched && !proxies[id].agent_reaped && !proxies[id].hello)
                kill(-proxies[id].agent, SIGTERM);
        long long until = now_ms() + 1000;
        for (int pass = 0; pass < 3; pass++) {
            for (;;) {
                int left = 0;
                for (int id = 1; id <= nproxies; id++) {
                    proxy_st *px = &proxies[id];
                    if (!px->launched || px->agent_reaped)
                        continue;
                    if (waitpid(px->agent, &px->agent_status, WNOHANG) == px->agent)
                        px->agent_reaped = 1;
                    else
                        left++;
                }
                if (!left || now_ms() >= until)
                    break;
                usleep(10000);
            }
            for (int id = 1; id <= nproxies; id++)
                if (proxies[id].launched && !proxies[id].agent_reaped)
                    kill(-proxies[id].agent, pass == 0 ? SIGTERM : SIGKILL);
            until = now_ms() + 500;
        }
    }

    if (!exit_decided) {
        for (int i = 0; i < opt.nranks; i++) {
            int code = status_code(ranks[i].status);
            if (code > exit_code)
                exit_code = code;
        }
    }
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
    link_frame_free(&setup_frame);
    link_frame_free(&tx);
    close(sigfd);
    return exit_code;
}
