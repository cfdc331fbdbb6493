/* tools/credo_info/credo_info.c — prints credo's version, build options, the CPU and C library, the
 * copy strategy in force with the figures it was chosen by, and every CREDO_* setting with its value
 * in this environment (one `NAME = value` line each). */
#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "base/config.h"
#include "credo_version.h"
#include "fc/fc.h"
#include "xport/copy.h"

/* "AMD EPYC ..., family 25 model 17" from /proc/cpuinfo's first CPU (x86 fields), or what it has. */
static void print_cpu(void)
{
    char line[256], model[128] = "unknown", fam[32] = "", mod[32] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (line[0] == '\n')
            break; /* end of the first CPU */
        if (!v)
            continue;
        v += v[1] == ' ' ? 2 : 1;
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "model name", 10))
            snprintf(model, sizeof model, "%s", v);
        else if (!strncmp(line, "cpu family", 10))
            snprintf(fam, sizeof fam, ", family %s", v);
        else if (!strncmp(line, "model\t", 6))
            snprintf(mod, sizeof mod, " model %s", v);
    }
    if (f)
        fclose(f);
    printf("cpu = %s%s%s\n", model, fam, mod);
}

/* The copy strategy in force and the figures: the start-up timing's, then every pair in full. */
static void print_copy(void)
{
    credo_copy_figures f = credo_copy_measure();
    printf("copy = %s (own loop: %s; %s)\n", credo_copy_mode_name(f.mode), f.loop_isa,
           f.forced ? "forced by CREDO_COPY" : f.measured ? "chosen by timing at the first large copy" : "not timed");
    printf("copy figures = %zu B cache-warm, worst of 4 offset pairs: loop %.1f GB/s, memcpy %.1f GB/s; "
           "both page-aligned: loop %.1f GB/s, memcpy %.1f GB/s; the timing took %.0f us\n",
           f.probe_bytes, f.loop_gbs, f.memcpy_gbs, f.loop_same_gbs, f.memcpy_same_gbs, f.probe_us);
}

static void warn_setting(const char *msg, void *arg)
{
    (void)arg;
    printf("warning = %s\n", msg);
}

int main(int argc, char **argv)
{
    int docs = argc > 1 && strcmp(argv[1], "--doc") == 0;
    if (argc > 1 && !docs) {
        fprintf(stderr, "usage: credo_info [--doc]\n");
        return 2;
    }
    printf("credo version = %s\n", CREDO_VERSION_STRING);
    printf("build = %s\n", CREDO_BUILD_OPTIONS);
    printf("flow-control schemes =");
    const char *names[] = {"none", "static", "dynamic"};
    for (int i = 0; i < 3; i++)
        if (fc_lookup(names[i]))
            printf(" %s", names[i]);
    printf("\n");
    printf("launchers = credorun, PMI-1 and PMI-2 (mpiexec.hydra, srun --mpi=pmi2)%s\n",
           boot_pmix_built() ? ", PMIx (mpirun of Open MPI, srun --mpi=pmix; libpmix.so.2 at run time)"
                             : "; no PMIx (built without its headers)");
    print_cpu();
    printf("libc = glibc %s\n", gnu_get_libc_version());
    print_copy();
    char err[256];
    if (config_load(err, sizeof err))
        printf("warning = %s\n", err);
    config_unknown(warn_setting, NULL);
    for (const config_var *v = credo_config_vars; v->name; v++) {
        char buf[128], acc[160];
        printf("%s = %s", v->name, config_value(v->name, buf, sizeof buf));
        if (docs)
            printf("    # default %s; accepts %s; %s", v->defval, config_accepted(v, acc, sizeof acc), v->doc);
        printf("\n");
    }
    return 0;
}
