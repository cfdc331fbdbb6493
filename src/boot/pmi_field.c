/* src/boot/pmi_field.c — key=value field lookup in PMI wire messages (see pmi_field.h).
 * Field order is free: Slurm's pmi2 plugin answers with rc=0 first, hydra with cmd= first. */
#include "pmi_field.h"

#include <string.h>

int boot_field(const char *msg, char sep, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    const char *p = msg;
    while (*p) {
        while (*p == sep)
            p++;
        const char *end = strchr(p, sep);
        if (!end)
            end = p + strlen(p);
        if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t vlen = (size_t)(end - v);
            if (vlen >= outlen)
                return -2;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return 0;
        }
        p = end;
    }
    return -1;
}
