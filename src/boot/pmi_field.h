/* src/boot/pmi_field.h — parsing one key=value field out of a PMI wire message, shared by the
 * library's PMI client and credorun's PMI server (both wire formats: ' ' for PMI-1, ';' for PMI-2). */
#ifndef CREDO_PMI_FIELD_H
#define CREDO_PMI_FIELD_H

#include <stddef.h>

/* Finds key=value among sep-separated fields, in any order, and copies the value into out.
 * Returns 0, -1 if the key is absent, -2 if the value does not fit in outlen bytes. */
int boot_field(const char *msg, char sep, const char *key, char *out, size_t outlen);

#endif
