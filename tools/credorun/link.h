/* tools/credorun/link.h — the connections of credorun's proxy tree: framed messages over TCP with
 * non-blocking buffered I/O, listening, connecting to an address list, and this host's addresses. */
#ifndef CREDORUN_LINK_H
#define CREDORUN_LINK_H

#include <stddef.h>

/* A frame on the wire: 4-byte big-endian length L, then L bytes: one type byte and the payload. The
 * payload is a sequence of NUL-terminated fields (text and decimal numbers), except where a message
 * ends in raw bytes (forwarded output). Frames larger than LINK_FRAME_MAX are a protocol error. */
#define LINK_FRAME_MAX (64u << 20)

typedef struct link_conn {
    int fd;                      /* -1 when closed */
    char *in;                    /* received bytes; in[in_pos..in_len) not yet parsed */
    size_t in_pos, in_len, in_cap;
    char *out;                   /* bytes queued for the socket */
    size_t out_len, out_cap;
    long long last_rx_ms;        /* when anything last arrived (heartbeats keep it fresh) */
    long long last_tx_ms;        /* when anything was last queued */
    int err;                     /* the error a write met (ETIMEDOUT, EPIPE, ...); the next read reports it */
} link_conn;

/* A message being built: link_frame_start, fields, then link_send. */
typedef struct link_frame {
    char *p;
    size_t len, cap;
} link_frame;

/* A message being read: fields in order; `bad` is set when a field is missing. */
typedef struct link_reader {
    const char *p, *end;
    const char *frame; /* the whole frame, length word included (for relaying it as it came) */
    int bad;
} link_reader;

long long link_now_ms(void);

/* Takes a connected socket (made non-blocking). With user_timeout_ms > 0, the kernel ends the
 * connection when data it sent stays unacknowledged that long (TCP_USER_TIMEOUT): a cut link or a
 * vanished host then shows up as ETIMEDOUT, while a peer that is merely slow to be scheduled does
 * not, since its kernel still acknowledges. */
void link_open(link_conn *c, int fd, int user_timeout_ms);
void link_close(link_conn *c);         /* closes and frees; safe twice */

void link_frame_start(link_frame *f, int type);
void link_frame_str(link_frame *f, const char *s);
void link_frame_int(link_frame *f, long long v);
void link_frame_bytes(link_frame *f, const void *p, size_t n); /* raw, to the end of the message */
/* Queues the frame (f stays allocated for reuse; link_frame_free frees it) and writes what the
 * socket takes now; 0, or -1 when the connection is closed or broken. A broken connection stays
 * open until its owner reads it: poll reports it, and link_read returns -1 with the error, so every
 * loss goes through one place. */
int link_send(link_conn *c, link_frame *f);
void link_frame_free(link_frame *f);
/* Queues the frame a reader was made from, unchanged (relaying up or down the tree); as link_send. */
int link_send_raw(link_conn *c, const link_reader *whole);
/* Writes queued bytes without blocking; -1 when the connection broke (see link_send). */
int link_flush(link_conn *c);
/* Writes queued bytes, waiting at most timeout_ms in all (the last words before exiting). */
void link_flush_wait(link_conn *c, int timeout_ms);
/* Reads what is there; 0, or -1 on EOF (errno 0) or error (errno set; the caller closes). */
int link_read(link_conn *c);
/* The next complete frame: 1 with *type and a reader over its payload, 0 when none is complete,
 * -1 on a malformed length. The payload stays valid until the next link_read. */
int link_next(link_conn *c, int *type, link_reader *rd);

const char *link_field(link_reader *rd);   /* "" and rd->bad when missing */
long long link_field_int(link_reader *rd); /* 0 and rd->bad when missing or not a number */

/* Listens on all IPv4 addresses, port chosen by the kernel; the socket, or -1 with err. */
int link_listen(int *port, char *err, size_t errlen);
/* Connects to "a1,a2,...:port", each address in turn, giving each timeout_ms; the socket or -1. */
int link_connect(const char *addrs_port, int timeout_ms, char *err, size_t errlen);
/* This host's IPv4 addresses to advertise, comma-separated, into out: those of the first interface
 * of the comma-separated list ifaces that exists here (its name into chosen), or, with ifaces NULL
 * or empty, every address of every interface that is up except loopback (127.0.0.1 when there is
 * none). 0, or -1 with err when none of the named interfaces exists or has an IPv4 address. */
int link_local_addrs(const char *ifaces, char *out, size_t outlen, char *chosen, size_t chosenlen, char *err,
                     size_t errlen);

#endif
