/* src/boot/boot.h — how a rank learns who it is and exchanges business cards with its peers.
 * Backends: PMI-1 wire (credorun, MPICH hydra, Slurm pmi2), PMI-2 wire, singleton (no launcher). */
#ifndef CREDO_BOOT_H
#define CREDO_BOOT_H

#include <stddef.h>

typedef struct boot_info {
    int rank;
    int size;
    int appnum;
    char jobid[128];   /* unique per job on this host: used to name shared-memory segments */
    int singleton;     /* 1 if started without a launcher */
} boot_info;

/* 0 on success; -1 with a one-line reason in err. */
int boot_init(boot_info *out, char *err, size_t errlen);
int boot_put(const char *key, const char *value);
/* Makes all puts visible and waits for every rank (PMI barrier). */
int boot_fence(void);
/* Reads `key` as published by any rank; 0 on success. */
int boot_get(int rank, const char *key, char *value, size_t len);
/* Tells the launcher this rank reached MPI_Finalize; closes the connection. */
int boot_finalize(void);
/* Asks the launcher to abort the whole job with `code`, then exits; never returns. */
_Noreturn void boot_abort(int code, const char *msg);

#endif
