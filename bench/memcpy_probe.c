/* memcpy_probe.c — no MPI: how fast libc memcpy (and credo_copy's strategies) copy at every pair of
 * source/destination offsets from a page, cache-warm and cold (issue 32: glibc's `rep movsb` falls to
 * 1-2 GB/s on AMD Zen 3/4 for many pairs between 2 KiB and about 1 MiB).
 *
 *   bench_memcpy_probe [--sizes 2K,4K,...] [--offsets 0,1,8,...] [--strategies memcpy,loop]
 *                      [--cold] [--matrix] [--ms N]
 *
 * For each size and strategy it prints the 8x8 matrix of GB/s (rows: source offset, columns:
 * destination offset) with --matrix, and always one summary line: worst pair, median over pairs,
 * the page-aligned pair and how many pairs are under a quarter of the page-aligned figure (the
 * "cliff" pairs). Warm: the same buffers copied again and again, best of 5 timings of about --ms
 * milliseconds / 5 each. Cold (--cold): each copy takes the next block of a 256 MiB arena per side,
 * far beyond the last-level cache. Machine-readable lines: probe,<warm|cold>,<strategy>,<size>,<soff>,<doff>,<GB/s>. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime when built alone with -std=c11 (side_by_side.sh) */
#endif
#include "xport/copy.h"

#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXN 32
#define ARENA ((size_t)256 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t parse_size(const char *s, char **end)
{
    unsigned long long v = strtoull(s, end, 10);
    if (**end == 'K' || **end == 'k')
        v <<= 10, (*end)++;
    else if (**end == 'M' || **end == 'm')
        v <<= 20, (*end)++;
    return (size_t)v;
}

static int parse_list(const char *v, size_t *out, int max)
{
    int n = 0;
    char *p = (char *)v, *end;
    while (*p && n < max) {
        out[n++] = parse_size(p, &end);
        if (end == p)
            return -1;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* "AMD EPYC ..., family 25 model 17" from /proc/cpuinfo (first CPU), or "unknown". */
static void cpu_name(char *out, size_t len)
{
    char line[256], model[128] = "unknown", fam[16] = "?", mod[16] = "?";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v += 2;
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "model name", 10))
            snprintf(model, sizeof model, "%s", v);
        else if (!strncmp(line, "cpu family", 10))
            snprintf(fam, sizeof fam, "%s", v);
        else if (!strncmp(line, "model\t", 6))
            snprintf(mod, sizeof mod, "%s", v);
        else if (line[0] == '\n' || !strncmp(line, "power management", 16))
            break;
    }
    if (f)
        fclose(f);
    snprintf(out, len, "%s, family %s model %s", model, fam, mod);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void copy(int mode, unsigned char *d, const unsigned char *s, size_t n)
{
    credo_copy_with(mode, d, s, n);
    __asm__ __volatile__("" ::"r"(d) : "memory");
}

int main(int argc, char **argv)
{
    size_t sizes[MAXN], offs[MAXN];
    int nsizes = 0, noffs = 0, cold = 0, matrix = 0, nstrat = 0;
    int strat[3];
    double ms = 2.0;
    for (size_t s = 2048; s <= ((size_t)4 << 20); s <<= 1)
        sizes[nsizes++] = s;
    const size_t defoffs[] = {0, 1, 8, 16, 24, 32, 48, 63};
    for (size_t i = 0; i < sizeof defoffs / sizeof defoffs[0]; i++)
        offs[noffs++] = defoffs[i];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sizes") && v) {
            nsizes = parse_list(v, sizes, MAXN), i++;
        } else if (!strcmp(a, "--offsets") && v) {
            noffs = parse_list(v, offs, MAXN), i++;
        } else if (!strcmp(a, "--strategies") && v) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *t = strtok(buf, ","); t && nstrat < 3; t = strtok(NULL, ","))
                strat[nstrat++] = !strcmp(t, "memcpy") ? CREDO_COPY_MEMCPY
                                  : !strcmp(t, "loop")  ? CREDO_COPY_LOOP
                                                        : -1;
            i++;
        } else if (!strcmp(a, "--cold")) {
            cold = 1;
        } else if (!strcmp(a, "--matrix")) {
            matrix = 1;
        } else if (!strcmp(a, "--ms") && v) {
            ms = atof(v), i++;
        } else {
            fprintf(stderr,
                    "usage: %s [--sizes 2K,4K,..] [--offsets 0,1,8,..] [--strategies memcpy,loop] [--cold] "
                    "[--matrix] [--ms N]\n",
                    argv[0]);
            return 2;
        }
    }
    if (nstrat == 0)
        strat[nstrat++] = CREDO_COPY_MEMCPY;
    for (int k = 0; k < nstrat; k++)
        if (strat[k] < 0 || nsizes <= 0 || noffs <= 0) {
            fprintf(stderr, "memcpy_probe: bad --strategies, --sizes or --offsets\n");
            return 2;
        }
    size_t maxs = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > maxs)
            maxs = sizes[i];
    size_t span = cold ? ARENA : maxs + 4096;
    unsigned char *sbuf = aligned_alloc(4096, span), *dbuf = aligned_alloc(4096, span);
    if (!sbuf || !dbuf) {
        fprintf(stderr, "memcpy_probe: out of memory\n");
        return 1;
    }
    memset(sbuf, 0x5a, span);
    memset(dbuf, 0xa5, span);
    credo_copy_figures f = credo_copy_info();
    char cpu[200];
    cpu_name(cpu, sizeof cpu);
    printf("# cpu: %s; glibc %s\n", cpu, gnu_get_libc_version());
    printf("# credo_copy start-up timing (%zu B): loop %.1f GB/s, memcpy %.1f GB/s (worst pair) -> %s, %.0f us\n",
           f.probe_bytes, f.loop_gbs, f.memcpy_gbs, credo_copy_mode_name(f.mode), f.probe_us);
    printf("# memcpy_probe: %s, GB/s = 1e9 B/s; credo_copy's choice here: %s (own loop: %s)\n",
           cold ? "cold (256 MiB arena per side)" : "cache-warm", credo_copy_mode_name(f.mode), f.loop_isa);
    for (int k = 0; k < nstrat; k++) {
        for (int si = 0; si < nsizes; si++) {
            size_t n = sizes[si];
            double g[MAXN][MAXN], all[MAXN * MAXN];
            int na = 0;
            for (int a = 0; a < noffs; a++)
                for (int b = 0; b < noffs; b++) {
                    double best = 0.0;
                    if (!cold) {
                        /* copies per timing: about ms/5 at 20 GB/s */
                        long per = (long)(ms / 5 * 1e-3 * 20e9 / (double)n);
                        if (per < 1)
                            per = 1;
                        copy(strat[k], dbuf + offs[b], sbuf + offs[a], n);
                        for (int r = 0; r < 5; r++) {
                            double t0 = now();
                            for (long it = 0; it < per; it++)
                                copy(strat[k], dbuf + offs[b], sbuf + offs[a], n);
                            double gbs = (double)n * (double)per / (now() - t0) / 1e9;
                            if (gbs > best)
                                best = gbs;
                        }
                    } else {
                        size_t stride = (n + 4096 + 4095) & ~(size_t)4095;
                        size_t blocks = ARENA / stride;
                        double t0 = now();
                        for (size_t it = 0; it < blocks; it++)
                            copy(strat[k], dbuf + it * stride + offs[b], sbuf + it * stride + offs[a], n);
                        best = (double)n * (double)blocks / (now() - t0) / 1e9;
                    }
                    g[a][b] = best;
                    all[na++] = best;
                    printf("probe,%s,%s,%zu,%zu,%zu,%.2f\n", cold ? "cold" : "warm",
                           credo_copy_mode_name(strat[k]), n, offs[a], offs[b], best);
                }
            qsort(all, (size_t)na, sizeof all[0], cmp_double);
            int cliff = 0;
            for (int a = 0; a < noffs; a++)
                for (int b = 0; b < noffs; b++)
                    if (g[a][b] < g[0][0] / 4)
                        cliff++;
            printf("# %-6s %8zu B: worst %6.1f  median %6.1f  +%zu/+%zu %6.1f  GB/s; %d of %d pairs under 1/4 of it\n",
                   credo_copy_mode_name(strat[k]), n, all[0], all[na / 2], offs[0], offs[0], g[0][0], cliff, na);
            if (matrix) {
                printf("#   src\\dst");
                for (int b = 0; b < noffs; b++)
                    printf(" %6zu", offs[b]);
                printf("\n");
                for (int a = 0; a < noffs; a++) {
                    printf("#   %7zu", offs[a]);
                    for (int b = 0; b < noffs; b++)
                        printf(" %6.1f", g[a][b]);
                    printf("\n");
                }
            }
            fflush(stdout);
        }
    }
    free(sbuf);
    free(dbuf);
    return 0;
}
