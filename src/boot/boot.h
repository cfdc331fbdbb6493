/* src/boot/boot.h — how a rank learns who it is and exchanges business cards with its peers.
 * Backends: PMI-1 wire (credorun, MPICH hydra, Slurm pmi2), PMI-2 wire, PMIx (Open MPI's mpirun,
 * srun --mpi=pmix; OpenPMIx loaded at run time), singleton (no launcher). */
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

/* Longest job id: kvsname sanitized to [A-Za-z0-9_-], cut to this many characters. */
#define BOOT_JOBID_MAX 100

/* 0 on success; -1 with a one-line reason in err. Calling it again after success returns the same info.
 * Environment: PMI_FD (PMI-1 over an inherited socket), else PMI_PORT+PMI_ID (hydra -pmi-port),
 * else PMIx when PMIX_NAMESPACE is set, else singleton (rank 0 of 1, jobid "single-<pid>").
 * CREDO_PMI=2 selects the PMI-2 wire. */
int boot_init(boot_info *out, char *err, size_t errlen);
/* Publishes key=value (keys are global: put the rank into the key). Keys and values must not contain
 * spaces, tabs, newlines or ';' and must fit the launcher's keylen/vallen limits. */
int boot_put(const char *key, const char *value);
/* Makes all puts visible and waits for every rank (PMI barrier). */
int boot_fence(void);
/* Reads `key` as published by any rank; 0 on success. */
int boot_get(int rank, const char *key, char *value, size_t len);
/* Tells the launcher this rank reached MPI_Finalize; closes the connection. */
int boot_finalize(void);
/* Asks the launcher to abort the whole job with `code`, then exits; never returns. */
_Noreturn void boot_abort(int code, const char *msg);

/* Whether the PMIx backend was built (the PMIx headers were found at configure time). */
int boot_pmix_built(void);
/* The reason for the last failure of any boot_* call (never NULL). */
const char *boot_last_error(void);
/* Largest value boot_put accepts (the launcher's vallen_max); 0 before boot_init. */
size_t boot_value_max(void);
/* Maps a kvsname to a job id usable in file names: [A-Za-z0-9_-] only, at most BOOT_JOBID_MAX chars. */
void boot_sanitize_jobid(const char *kvsname, char *jobid, size_t len);

#endif
