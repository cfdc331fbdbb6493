/* src/fc/fc_registry.c — the list of flow-control schemes and lookup by name.
 * Adding a scheme means adding its ops table here, nothing else. */
#include <string.h>

#include "fc/fc.h"

const fc_ops *fc_lookup(const char *name)
{
    static const fc_ops *const schemes[] = {&fc_none_ops, &fc_static_ops, &fc_dynamic_ops};
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (schemes[i] && strcmp(schemes[i]->name, name) == 0)
            return schemes[i];
    return NULL;
}
