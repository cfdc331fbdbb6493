/* tools/credorun/link.c — framed TCP connections between credorun's head and its proxies (see
 * link.h): buffers, non-blocking reads and writes, listening, connecting, and local addresses. */
#include "link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

long long link_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "credorun: out of memory (%zu bytes for a proxy connection)\n", n);
        exit(1);
    }
    return q;
}

void link_open(link_conn *c, int fd, int user_timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->fd = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    /* Fences and kill orders are small and latency-bound. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (user_timeout_ms > 0) {
        unsigned int t = (unsigned int)user_timeout_ms;
        setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &t, sizeof t);
    }
    c->last_rx_ms = c->last_tx_ms = link_now_ms();
}

void link_close(link_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->in);
    free(c->out);
    c->in = c->out = NULL;
    c->in_pos = c->in_len = c->in_cap = c->out_len = c->out_cap = 0;
}

static void frame_room(link_frame *f, size_t n)
{
    if (f->len + n > f->cap) {
        f->cap = (f->len + n) * 2 + 64;
        f->p = xrealloc(f->p, f->cap);
    }
}

void link_frame_start(link_frame *f, int type)
{
    f->len = 0;
    frame_room(f, 5);
    f->len = 5;
    f->p[4] = (char)type;
}

void link_frame_bytes(link_frame *f, const void *p, size_t n)
{
    frame_room(f, n);
    memcpy(f->p + f->len, p, n);
    f->len += n;
}

void link_frame_str(link_frame *f, const char *s)
{
    link_frame_bytes(f, s, strlen(s) + 1);
}

void link_frame_int(link_frame *f, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    link_frame_str(f, num);
}

void link_frame_free(link_frame *f)
{
    free(f->p);
    f->p = NULL;
    f->len = f->cap = 0;
}

int link_flush(link_conn *c)
{
    while (c->fd >= 0 && c->out_len > 0) {
        ssize_t w = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            c->err = errno;
            c->out_len = 0;
            return -1;
        }
        memmove(c->out, c->out + w, c->out_len - (size_t)w);
        c->out_len -= (size_t)w;
    }
    return c->fd >= 0 && !c->err ? 0 : -1;
}

int link_send(link_conn *c, link_frame *f)
{
    if (c->fd < 0 || c->err)
        return -1;
    uint32_t l = htonl((uint32_t)(f->len - 4));
    memcpy(f->p, &l, 4);
    if (c->out_len + f->len > c->out_cap) {
        c->out_cap = (c->out_len + f->len) * 2;
        c->out = xrealloc(c->out, c->out_cap);
    }
    memcpy(c->out + c->out_len, f->p, f->len);
    c->out_len += f->len;
    c->last_tx_ms = link_now_ms();
    return link_flush(c);
}

int link_send_raw(link_conn *c, const link_reader *whole)
{
    if (c->fd < 0 || c->err)
        return -1;
    size_t n = (size_t)(whole->end - whole->frame);
    if (c->out_len + n > c->out_cap) {
        c->out_cap = (c->out_len + n) * 2;
        c->out = xrealloc(c->out, c->out_cap);
    }
    memcpy(c->out + c->out_len, whole->frame, n);
    c->out_len += n;
    c->last_tx_ms = link_now_ms();
    return link_flush(c);
}

void link_flush_wait(link_conn *c, int timeout_ms)
{
    long long until = link_now_ms() + timeout_ms;
    while (c->fd >= 0 && !c->err && c->out_len > 0 && link_now_ms() < until) {
        if (link_flush(c) != 0 || c->out_len == 0)
            break;
        struct pollfd p = {.fd = c->fd, .events = POLLOUT};
        poll(&p, 1, 50);
    }
}

int link_read(link_conn *c)
{
    if (c->fd < 0)
        return -1;
    if (c->in_pos > 0) { /* drop what was parsed */
        memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
        c->in_len -= c->in_pos;
        c->in_pos = 0;
    }
    if (c->in_cap - c->in_len < 65536) {
        c->in_cap = c->in_cap ? c->in_cap * 2 : 131072;
        c->in = xrealloc(c->in, c->in_cap);
    }
    ssize_t n;
    do
        n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n < 0)
        c->err = errno;
    if (n <= 0) {
        errno = c->err; /* 0: the other end closed */
        return -1;
    }
    c->in_len += (size_t)n;
    c->last_rx_ms = link_now_ms();
    return 0;
}

int link_next(link_conn *c, int *type, link_reader *rd)
{
    size_t avail = c->in_len - c->in_pos;
    if (avail < 4)
        return 0;
    uint32_t l;
    memcpy(&l, c->in + c->in_pos, 4);
    l = ntohl(l);
    if (l < 1 || l > LINK_FRAME_MAX)
        return -1;
    if (avail < 4 + (size_t)l)
        return 0;
    const char *body = c->in + c->in_pos + 4;
    *type = (unsigned char)body[0];
    rd->frame = body - 4;
    rd->p = body + 1;
    rd->end = body + l;
    rd->bad = 0;
    c->in_pos += 4 + (size_t)l;
    return 1;
}

const char *link_field(link_reader *rd)
{
    const char *nul = rd->p < rd->end ? memchr(rd->p, '\0', (size_t)(rd->end - rd->p)) : NULL;
    if (!nul) {
        rd->bad = 1;
        return "";
    }
    const char *s = rd->p;
    rd->p = nul + 1;
    return s;
}

long long link_field_int(link_reader *rd)
{
    const char *s = link_field(rd);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) {
        rd->bad = 1;
        return 0;
    }
    return v;
}

int link_listen(int *port, char *err, size_t errlen)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t alen = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) != 0) {
        snprintf(err, errlen, "listening for proxies: %s", strerror(errno));
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    *port = ntohs(a.sin_port);
    return fd;
}

static int connect_one(const char *ip, int port, int timeout_ms, char *err, size_t errlen)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
        snprintf(err, errlen, "'%s' is not an IPv4 address", ip);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int e = 0;
        socklen_t elen = sizeof e;
        rc = poll(&p, 1, timeout_ms);
        if (rc == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) == 0 && e == 0)
            rc = 0;
        else
            errno = rc == 0 ? ETIMEDOUT : (e ? e : errno), rc = -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "connect to %s:%d: %s", ip, port, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int link_connect(const char *addrs_port, int timeout_ms, char *err, size_t errlen)
{
    const char *colon = strrchr(addrs_port, ':');
    char list[1024];
    if (!colon || (size_t)(colon - addrs_port) >= sizeof list) {
        snprintf(err, errlen, "'%.100s' is not ADDRESSES:PORT", addrs_port);
        return -1;
    }
    int port = atoi(colon + 1);
    memcpy(list, addrs_port, (size_t)(colon - addrs_port));
    list[colon - addrs_port] = '\0';
    char *save = NULL;
    err[0] = '\0';
    for (char *ip = strtok_r(list, ",", &save); ip; ip = strtok_r(NULL, ",", &save)) {
        int fd = connect_one(ip, port, timeout_ms, err, errlen);
        if (fd >= 0)
            return fd;
    }
    if (!err[0])
        snprintf(err, errlen, "no address in '%.100s'", addrs_port);
    return -1;
}

static void append_addr(char *out, size_t outlen, const struct sockaddr *sa)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, ip, sizeof ip);
    size_t have = strlen(out);
    snprintf(out + have, outlen - have, "%s%s", have ? "," : "", ip);
}

int link_local_addrs(const char *ifaces, char *out, size_t outlen, char *chosen, size_t chosenlen, char *err,
                     size_t errlen)
{
    struct ifaddrs *all, *ifa;
    out[0] = '\0';
    if (chosen && chosenlen)
        chosen[0] = '\0';
    if (getifaddrs(&all) != 0) {
        snprintf(err, errlen, "getifaddrs: %s", strerror(errno));
        return -1;
    }
    if (ifaces && *ifaces) {
        /* The first name of the list that this host has: one list can serve hosts whose
         * interfaces are named differently (the head on a bridge, the proxies on their links). */
        char list[512], *save = NULL;
        snprintf(list, sizeof list, "%s", ifaces);
        for (char *name = strtok_r(list, ",", &save); name && !out[0]; name = strtok_r(NULL, ",", &save)) {
            for (ifa = all; ifa; ifa = ifa->ifa_next)
                if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET && strcmp(ifa->ifa_name, name) == 0)
                    append_addr(out, outlen, ifa->ifa_addr);
            if (out[0] && chosen)
                snprintf(chosen, chosenlen, "%s", name);
        }
        freeifaddrs(all);
        if (!out[0]) {
            snprintf(err, errlen, "no interface of '%s' has an IPv4 address on this host", ifaces);
            return -1;
        }
        return 0;
    }
    for (ifa = all; ifa; ifa = ifa->ifa_next)
        if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET && (ifa->ifa_flags & IFF_UP) &&
            !(ifa->ifa_flags & IFF_LOOPBACK))
            append_addr(out, outlen, ifa->ifa_addr);
    freeifaddrs(all);
    if (!out[0])
        snprintf(out, outlen, "127.0.0.1");
    return 0;
}
