/* src/boot/boot_io.c — byte-level talk with the launcher: EINTR-safe sends and reads, line and
 * fixed-length framing over a buffered socket, and order-independent key=value field parsing. */
#include "boot_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char boot_errbuf[512];

void boot_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(boot_errbuf, sizeof boot_errbuf, fmt, ap);
    va_end(ap);
}

const char *boot_last_error(void)
{
    return boot_errbuf;
}

int bootio_send(boot_conn *c, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd p = {.fd = c->fd, .events = POLLOUT};
                (void)poll(&p, 1, 1000);
                continue;
            }
            if (errno == EPIPE || errno == ECONNRESET)
                boot_set_error("the launcher closed the PMI connection (did it die?)");
            else
                boot_set_error("cannot write to the launcher (PMI fd %d): %s", c->fd, strerror(errno));
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Appends whatever the socket has to rbuf, waiting until the deadline (or forever if < 0). */
static int fill(boot_conn *c, long long deadline)
{
    if (c->have >= sizeof c->rbuf) {
        boot_set_error("launcher sent a message longer than %zu bytes", sizeof c->rbuf);
        return -1;
    }
    for (;;) {
        int wait = -1;
        if (deadline >= 0) {
            long long left = deadline - now_ms();
            if (left <= 0) {
                boot_set_error("the launcher did not answer within %d s (PMI fd %d is not a PMI server?)",
                               BOOT_HANDSHAKE_TIMEOUT_MS / 1000, c->fd);
                return -1;
            }
            wait = (int)left;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int r = poll(&p, 1, wait);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            boot_set_error("poll on the PMI connection: %s", strerror(errno));
            return -1;
        }
        if (r == 0)
            continue; /* the deadline check above reports it */
        ssize_t n = read(c->fd, c->rbuf + c->have, sizeof c->rbuf - c->have);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0 && errno != ECONNRESET) {
            boot_set_error("cannot read from the launcher: %s", strerror(errno));
            return -1;
        }
        if (n <= 0) {
            boot_set_error("the launcher closed the PMI connection (did it die?)");
            return -1;
        }
        c->have += (size_t)n;
        return 0;
    }
}

static void consume(boot_conn *c, size_t n)
{
    memmove(c->rbuf, c->rbuf + n, c->have - n);
    c->have -= n;
}

int bootio_read_line(boot_conn *c, char *line, size_t cap, int timeout_ms)
{
    long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    for (;;) {
        char *nl = memchr(c->rbuf, '\n', c->have);
        if (nl) {
            size_t len = (size_t)(nl - c->rbuf);
            if (len >= cap) {
                boot_set_error("launcher reply longer than %zu bytes", cap - 1);
                return -1;
            }
            memcpy(line, c->rbuf, len);
            line[len] = '\0';
            consume(c, len + 1);
            return 0;
        }
        if (fill(c, deadline) != 0)
            return -1;
    }
}

int bootio_read_exact(boot_conn *c, char *buf, size_t len, int timeout_ms)
{
    long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    while (c->have < len) {
        if (len > sizeof c->rbuf) {
            boot_set_error("launcher message of %zu bytes is too long", len);
            return -1;
        }
        if (fill(c, deadline) != 0)
            return -1;
    }
    memcpy(buf, c->rbuf, len);
    consume(c, len);
    return 0;
}

int boot_field_int(const char *msg, char sep, const char *key, int *out)
{
    char v[32], *end;
    if (boot_field(msg, sep, key, v, sizeof v) != 0)
        return -1;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < -2147483647L || x > 2147483647L)
        return -1;
    *out = (int)x;
    return 0;
}
