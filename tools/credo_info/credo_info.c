/* tools/credo_info/credo_info.c — prints credo's version, build options and every CREDO_* setting
 * with its value in this environment (one `NAME = value` line each). */
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "core/config.h"
#include "credo_version.h"
#include "fc/fc.h"

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
