/* src/boot/boot_internal.h — what the PMI backends share: the connection to the launcher, blocking
 * line/packet I/O that survives EINTR and short reads, key=value field lookup, and the error buffer. */
#ifndef CREDO_BOOT_INTERNAL_H
#define CREDO_BOOT_INTERNAL_H

#include <stddef.h>

#include "pmi_field.h"

/* Longest wire message we accept; credorun advertises vallen_max 4096, hydra 1024. */
#define BOOT_LINE_MAX 16384

/* How long the launcher may take to answer the first command. Later commands (barriers) may
 * legitimately wait for slow ranks, so they have no limit; a dead launcher shows up as EOF. */
#define BOOT_HANDSHAKE_TIMEOUT_MS 30000

typedef struct boot_conn {
    int fd;
    size_t have;              /* bytes buffered in rbuf */
    char rbuf[BOOT_LINE_MAX];
} boot_conn;

/* Set by every failing call; boot_last_error() returns it. */
void boot_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 0 or -1 (error set). Uses MSG_NOSIGNAL so a dead launcher is an error, not SIGPIPE. */
int bootio_send(boot_conn *c, const char *buf, size_t len);
/* Reads one '\n'-terminated line (newline stripped) into line; -1 on EOF, error or timeout.
 * timeout_ms < 0 waits forever (but never past EOF). */
int bootio_read_line(boot_conn *c, char *line, size_t cap, int timeout_ms);
/* Reads exactly len bytes. */
int bootio_read_exact(boot_conn *c, char *buf, size_t len, int timeout_ms);


/* boot_field, parsed as a decimal int; -1 when missing or not a number. */
int boot_field_int(const char *msg, char sep, const char *key, int *out);

/* Backends. Each returns 0 or -1 with the error set. pmiid >= 0 means PMI_PORT mode (hydra
 * -pmi-port: the rank identifies itself with PMI_ID); -1 means an inherited PMI_FD. */
struct boot_info;
typedef struct boot_backend {
    int (*put)(const char *key, const char *value);
    int (*fence)(void);
    int (*get)(int rank, const char *key, char *value, size_t len); /* rank: who put it */
    int (*finalize)(void);
    void (*abort)(int code, const char *msg);
    size_t keylen_max, vallen_max;
} boot_backend;

int boot_pmi1_init(boot_conn *c, struct boot_info *info, char *kvsname, size_t kvslen,
                   boot_backend *be, int pmiid);
int boot_pmi2_init(boot_conn *c, struct boot_info *info, char *kvsname, size_t kvslen,
                   boot_backend *be, int pmiid);
/* PMIx (PMIX_NAMESPACE set by the launcher): built when the PMIx headers were found
 * (CREDO_HAVE_PMIX), the library loaded at run time. */
int boot_pmix_init(struct boot_info *info, char *kvsname, size_t kvslen, boot_backend *be);

#endif
