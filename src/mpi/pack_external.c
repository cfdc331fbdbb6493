/* src/mpi/pack_external.c — the portable "external32" representation (MPI 3.1 §4.3, §13.5.2):
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size, element by element. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi/dt_build.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"
#include "xport/copy.h"

/* external32 is big-endian two's complement and IEEE 754: float and double only need their bytes
 * reversed on a little-endian host; long double is converted by value (below). */
_Static_assert(FLT_RADIX == 2 && FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128 && sizeof(float) == 4,
               "float must be IEEE single precision");
_Static_assert(DBL_MANT_DIG == 53 && DBL_MAX_EXP == 1024 && sizeof(double) == 8,
               "double must be IEEE double precision");

/* How one scalar goes between its native form (nsize bytes) and external32 (xsize bytes). */
enum xconv {
    XC_RAW,      /* one byte as it is: the char types, MPI_BYTE, MPI_PACKED, (u)int8 */
    XC_BOOL,     /* 0 or 1 */
    XC_SINT,     /* two's complement, sign-extended when widened */
    XC_UINT,     /* zero-extended when widened */
    XC_FLOAT,    /* IEEE of the same size */
    XC_LDOUBLE   /* native long double <-> IEEE quadruple precision (16 bytes) */
};

typedef struct xscalar {
    unsigned char conv, nsize, xsize;
} xscalar;

/* The scalars of one element of a basic kind: one; the same twice (complex: real, imaginary); or
 * a value and an int (the MAXLOC/MINLOC pairs, which count as two elements in dt->elems). */
typedef struct xunit {
    int n;
    xscalar s[2];
    size_t elems;
} xunit;

#define XS(conv, T, xsize) ((xscalar){conv, sizeof(T), xsize})
#define ONE(s) ((xunit){1, {s, s}, 1})
#define TWICE(s) ((xunit){2, {s, s}, 1})
#define PAIR(s) ((xunit){2, {s, XS(XC_SINT, int, 4)}, 2})

/* The external32 sizes are those of MPI 3.1 Table 13.2: long and unsigned long are 4 bytes,
 * wchar_t 2, long double 16, MPI_AINT / MPI_OFFSET / MPI_COUNT 8. n == 0: not a basic kind. */
static xunit unit_of(int basic)
{
    switch (basic) {
    case B_CHAR: case B_SCHAR: case B_UCHAR: case B_BYTE: case B_PACKED: case B_INT8: case B_UINT8:
        return ONE(XS(XC_RAW, char, 1));
    case B_BOOL: return ONE(XS(XC_BOOL, _Bool, 1));
    case B_SHORT: return ONE(XS(XC_SINT, short, 2));
    case B_USHORT: return ONE(XS(XC_UINT, unsigned short, 2));
    case B_INT: return ONE(XS(XC_SINT, int, 4));
    case B_UINT: return ONE(XS(XC_UINT, unsigned, 4));
    case B_LONG: return ONE(XS(XC_SINT, long, 4));
    case B_ULONG: return ONE(XS(XC_UINT, unsigned long, 4));
    case B_LLONG: return ONE(XS(XC_SINT, long long, 8));
    case B_ULLONG: return ONE(XS(XC_UINT, unsigned long long, 8));
    /* a UTF-16 code unit: wider native characters must be below 0x10000 */
    case B_WCHAR: return ONE(XS(XC_UINT, wchar_t, 2));
    case B_INT16: return ONE(XS(XC_SINT, int16_t, 2));
    case B_INT32: return ONE(XS(XC_SINT, int32_t, 4));
    case B_INT64: return ONE(XS(XC_SINT, int64_t, 8));
    case B_UINT16: return ONE(XS(XC_UINT, uint16_t, 2));
    case B_UINT32: return ONE(XS(XC_UINT, uint32_t, 4));
    case B_UINT64: return ONE(XS(XC_UINT, uint64_t, 8));
    case B_INT128: return ONE(XS(XC_SINT, credo_int128, 16)); /* not in Table 13.2: its own size */
    case B_AINT: return ONE(XS(XC_SINT, MPI_Aint, 8));
    case B_OFFSET: return ONE(XS(XC_SINT, MPI_Offset, 8));
    case B_COUNT: return ONE(XS(XC_SINT, MPI_Count, 8));
    case B_FLOAT: return ONE(XS(XC_FLOAT, float, 4));
    case B_DOUBLE: return ONE(XS(XC_FLOAT, double, 8));
    case B_LDOUBLE: return ONE(XS(XC_LDOUBLE, long double, 16));
    case B_CFLOAT: return TWICE(XS(XC_FLOAT, float, 4));
    case B_CDOUBLE: return TWICE(XS(XC_FLOAT, double, 8));
    case B_CLDOUBLE: return TWICE(XS(XC_LDOUBLE, long double, 16));
    case B_FLOAT_INT: return PAIR(XS(XC_FLOAT, float, 4));
    case B_DOUBLE_INT: return PAIR(XS(XC_FLOAT, double, 8));
    case B_LONG_INT: return PAIR(XS(XC_SINT, long, 4));
    case B_2INT: return PAIR(XS(XC_SINT, int, 4));
    case B_SHORT_INT: return PAIR(XS(XC_SINT, short, 2));
    case B_LDOUBLE_INT: return PAIR(XS(XC_LDOUBLE, long double, 16));
    case B_2REAL: return TWICE(XS(XC_FLOAT, float, 4));
    case B_2DOUBLE: return TWICE(XS(XC_FLOAT, double, 8));
    default: return (xunit){0, {{0, 0, 0}, {0, 0, 0}}, 0};
    }
}

/* ---- scalars ---- */

static uint64_t load_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static void store_be(unsigned char *p, size_t n, uint64_t v)
{
    for (size_t i = n; i-- > 0; v >>= 8)
        p[i] = (unsigned char)v;
}

/* A native integer of n bytes, sign-extended to 64 bits when sign is set. */
static uint64_t load_native(const unsigned char *p, size_t n, int sign)
{
    switch (n) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return sign ? (uint64_t)(int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return sign ? (uint64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return sign ? (uint64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_native(unsigned char *p, size_t n, uint64_t v)
{
    switch (n) {
    case 1: { uint8_t w = (uint8_t)v; memcpy(p, &w, 1); break; }
    case 2: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); break; }
    case 4: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* v (sign-extended when sign is set) is representable in n bytes. */
static int int_fits(uint64_t v, size_t n, int sign)
{
    if (n >= 8)
        return 1;
    uint64_t half = (uint64_t)1 << (8 * n - 1);
    return sign ? v + half < 2 * half : v < 2 * half;
}

/* n scalars of `size` bytes whose native and external forms differ only in byte order. */
static void swap_run(const unsigned char *in, unsigned char *out, size_t n, size_t size)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    credo_copy(out, in, n * size);
#else
    switch (size) {
    case 2:
        for (size_t i = 0; i < n; i++, in += 2, out += 2) {
            uint16_t v;
            memcpy(&v, in, 2);
            v = __builtin_bswap16(v);
            memcpy(out, &v, 2);
        }
        break;
    case 4:
        for (size_t i = 0; i < n; i++, in += 4, out += 4) {
            uint32_t v;
            memcpy(&v, in, 4);
            v = __builtin_bswap32(v);
            memcpy(out, &v, 4);
        }
        break;
    case 8:
        for (size_t i = 0; i < n; i++, in += 8, out += 8) {
            uint64_t v;
            memcpy(&v, in, 8);
            v = __builtin_bswap64(v);
            memcpy(out, &v, 8);
        }
        break;
    default:
        for (size_t i = 0; i < n; i++, in += size, out += size)
            for (size_t b = 0; b < size; b++)
                out[b] = in[size - 1 - b];
        break;
    }
#endif
}

/* Bytes of a native long double that hold its value: x87's 80-bit format leaves the last six
 * bytes of its storage as padding, which unpacking zeroes rather than filling with whatever the
 * stack held. */
#if LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LD_VALUE_BYTES 10
#else
#define LD_VALUE_BYTES sizeof(long double)
#endif

/* Long double goes by value rather than by bits, so every native format (x87 extended, IEEE
 * quadruple, double) works the same way: sign, exponent with bias 16383, 112 fraction bits. An x87
 * or double value converts exactly; unpacking rounds to the native precision (round to nearest). */
static void ldouble_to_ext(const unsigned char *in, unsigned char *out)
{
    long double x;
    memcpy(&x, in, sizeof x);
    uint64_t hi = signbit(x) ? (uint64_t)1 << 63 : 0, lo = 0;
    if (isnan(x)) {
        hi |= (uint64_t)0x7fff8 << 44; /* a quiet NaN */
    } else if (isinf(x)) {
        hi |= (uint64_t)0x7fff << 48;
    } else if (x != 0) {
        int e;
        long double m = frexpl(x < 0 ? -x : x, &e), f; /* |x| = m * 2^e, m in [0.5, 1) */
        long exp = (long)e - 1 + 16383;
        if (exp > 0) {
            f = 2 * m - 1; /* the fraction of 1.f */
        } else {
            f = ldexpl(m, e + 16382); /* subnormal: 0.f * 2^-16382 */
            exp = 0;
        }
        if (exp >= 0x7fff) {
            hi |= (uint64_t)0x7fff << 48; /* beyond quadruple range: cannot happen with x87 */
        } else {
            f *= 0x1p48L;
            uint64_t fh = (uint64_t)f;
            lo = (uint64_t)((f - (long double)fh) * 0x1p64L);
            hi |= (uint64_t)exp << 48 | fh;
        }
    }
    store_be(out, 8, hi);
    store_be(out + 8, 8, lo);
}

static void ldouble_from_ext(const unsigned char *in, unsigned char *out)
{
    uint64_t hi = load_be(in, 8), lo = load_be(in + 8, 8);
    int exp = (int)(hi >> 48 & 0x7fff);
    uint64_t fh = hi & (((uint64_t)1 << 48) - 1);
    long double x;
    if (exp == 0x7fff) {
        x = (fh | lo) != 0 ? __builtin_nanl("") : __builtin_infl();
    } else {
        /* 1 + fh * 2^-48 is exact; adding the low bits rounds once. */
        long double f = (long double)fh * 0x1p-48L;
        long double low = (long double)lo * 0x1p-112L;
        x = exp == 0 ? ldexpl(f + low, -16382) : ldexpl((1 + f) + low, exp - 16383);
    }
    if (hi >> 63)
        x = -x;
    memcpy(out, &x, LD_VALUE_BYTES);
    memset(out + LD_VALUE_BYTES, 0, sizeof x - LD_VALUE_BYTES);
}

/* ---- walking the type map ---- */

typedef struct xwalk {
    const unsigned char *in;
    unsigned char *out;
    int to_ext;            /* native -> external32, else the reverse */
    xscalar bad;           /* the scalar that did not fit (MPI_ERR_CONVERSION) */
} xwalk;

/* Converts n scalars s, advancing w->in and w->out. 0 or MPI_ERR_CONVERSION when an integer does
 * not fit its destination size (what came before it is converted). */
static int conv_run(xwalk *w, xscalar s, size_t n)
{
    const size_t isz = w->to_ext ? s.nsize : s.xsize, osz = w->to_ext ? s.xsize : s.nsize;
    const unsigned char *in = w->in;
    unsigned char *out = w->out;
    switch (s.conv) {
    case XC_RAW:
        credo_copy(out, in, n * isz);
        break;
    case XC_BOOL:
        for (size_t i = 0; i < n; i++, in += isz, out += osz) {
            int v = 0;
            for (size_t b = 0; b < isz; b++)
                v |= in[b] != 0;
            if (w->to_ext) {
                *out = (unsigned char)v;
            } else {
                _Bool nb = v;
                memcpy(out, &nb, sizeof nb);
            }
        }
        break;
    case XC_LDOUBLE:
        for (size_t i = 0; i < n; i++, in += isz, out += osz)
            (w->to_ext ? ldouble_to_ext : ldouble_from_ext)(in, out);
        break;
    default: /* XC_FLOAT, XC_SINT, XC_UINT */
        if (isz == osz) {
            swap_run(in, out, n, isz);
            break;
        }
        /* an integer whose external32 size differs from the native one (long, wchar_t) */
        for (size_t i = 0; i < n; i++, in += isz, out += osz) {
            int sign = s.conv == XC_SINT;
            uint64_t v = w->to_ext ? load_native(in, isz, sign) : load_be(in, isz);
            if (!w->to_ext && sign && isz < 8 && (v >> (8 * isz - 1) & 1))
                v |= ~(uint64_t)0 << (8 * isz); /* sign-extend */
            if (!int_fits(v, osz, sign)) {
                w->bad = s;
                return MPI_ERR_CONVERSION;
            }
            if (w->to_ext)
                store_be(out, osz, v);
            else
                store_native(out, osz, v);
        }
        break;
    }
    w->in += n * isz;
    w->out += n * osz;
    return MPI_SUCCESS;
}

/* Converts count elements of dt, in type-map order (the order dt_pack lays out the native bytes).
 * A type whose elements share one basic kind goes in runs; a mixed one is walked through its
 * constructor arguments: a struct's blocks one after the other, any other constructor's copies of
 * its single old type. 0, MPI_ERR_CONVERSION, or MPI_ERR_TYPE for a map credo cannot walk. */
static int walk(xwalk *w, MPI_Datatype dt, size_t count)
{
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (dt->basic != B_NONE) {
        xunit u = unit_of(dt->basic);
        if (u.n == 0)
            return MPI_ERR_TYPE;
        size_t units = count * (dt->elems / u.elems);
        if (u.n == 1 || memcmp(&u.s[0], &u.s[1], sizeof u.s[0]) == 0)
            return conv_run(w, u.s[0], units * (size_t)u.n);
        int rc = MPI_SUCCESS;
        for (size_t i = 0; i < units && rc == MPI_SUCCESS; i++)
            if ((rc = conv_run(w, u.s[0], 1)) == MPI_SUCCESS)
                rc = conv_run(w, u.s[1], 1);
        return rc;
    }
    const dt_contents *c = dt->contents;
    if (c == NULL || c->nd < 1)
        return MPI_ERR_TYPE;
    int rc = MPI_SUCCESS;
    if (c->combiner == MPI_COMBINER_STRUCT) {
        for (size_t i = 0; i < count && rc == MPI_SUCCESS; i++)
            for (int j = 0; j < c->ints[0] && rc == MPI_SUCCESS; j++)
                rc = walk(w, c->types[j], (size_t)c->ints[1 + j]);
        return rc;
    }
    MPI_Datatype t = c->types[0];
    return t->size == 0 ? MPI_ERR_TYPE : walk(w, t, count * (dt->size / t->size));
}

/* external32 bytes of one element of dt, walked as above: 0, MPI_ERR_TYPE or MPI_ERR_COUNT (the
 * size overflows). */
static int ext_size(MPI_Datatype dt, uint64_t *out)
{
    *out = 0;
    if (dt->size == 0)
        return MPI_SUCCESS;
    if (dt->basic != B_NONE) {
        xunit u = unit_of(dt->basic);
        if (u.n == 0)
            return MPI_ERR_TYPE;
        uint64_t per = u.s[0].xsize + (u.n == 2 ? u.s[1].xsize : 0);
        return __builtin_mul_overflow((uint64_t)(dt->elems / u.elems), per, out) ? MPI_ERR_COUNT
                                                                                 : MPI_SUCCESS;
    }
    const dt_contents *c = dt->contents;
    if (c == NULL || c->nd < 1)
        return MPI_ERR_TYPE;
    int pieces = c->combiner == MPI_COMBINER_STRUCT ? c->ints[0] : 1;
    for (int j = 0; j < pieces; j++) {
        MPI_Datatype t = c->types[j];
        uint64_t one, reps, part;
        int rc = ext_size(t, &one);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c->combiner == MPI_COMBINER_STRUCT)
            reps = (uint64_t)c->ints[1 + j];
        else if (t->size == 0)
            return MPI_ERR_TYPE;
        else
            reps = dt->size / t->size;
        if (__builtin_mul_overflow(reps, one, &part) || __builtin_add_overflow(*out, part, out))
            return MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

/* Native bytes converted per step when the type is not one contiguous run in memory. */
enum { CHUNK_BYTES = 64 * 1024 };

/* count elements of dt (dt->size > 0) at user -> external32 at ext. */
static int pack_elems(xwalk *w, const void *user, size_t count, MPI_Datatype dt)
{
    if (dt->flags & DT_F_DENSE) {
        w->in = BUF_AT(user, dt->lb);
        return walk(w, dt, count);
    }
    /* Gather a chunk of whole elements with dt_pack, then convert it. */
    size_t per = CHUNK_BYTES / dt->size ? CHUNK_BYTES / dt->size : 1;
    if (per > count)
        per = count;
    unsigned char *tmp = malloc(per * dt->size);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < count && rc == MPI_SUCCESS; i += per) {
        size_t m = count - i < per ? count - i : per;
        dt_pack(BUF_AT(user, (MPI_Aint)i * dt->extent), m, dt, tmp);
        w->in = tmp;
        rc = walk(w, dt, m);
    }
    free(tmp);
    return rc;
}

/* external32 at w->in -> count elements of dt (dt->size > 0) at user. */
static int unpack_elems(xwalk *w, void *user, size_t count, MPI_Datatype dt)
{
    if (dt->flags & DT_F_DENSE) {
        w->out = BUF_AT(user, dt->lb);
        return walk(w, dt, count);
    }
    size_t per = CHUNK_BYTES / dt->size ? CHUNK_BYTES / dt->size : 1;
    if (per > count)
        per = count;
    unsigned char *tmp = malloc(per * dt->size);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < count && rc == MPI_SUCCESS; i += per) {
        size_t m = count - i < per ? count - i : per;
        w->out = tmp;
        if ((rc = walk(w, dt, m)) == MPI_SUCCESS)
            dt_unpack(tmp, m * dt->size, m, dt, BUF_AT(user, (MPI_Aint)i * dt->extent));
    }
    free(tmp);
    return rc;
}

/* ---- MPI-IO's "external32" view (file_datarep.c) ---- */

int dt_ext32_size(MPI_Datatype dt, MPI_Aint *size)
{
    uint64_t n = 0;
    int rc = ext_size(dt, &n);
    if (rc == MPI_SUCCESS && n > (uint64_t)INTPTR_MAX)
        rc = MPI_ERR_COUNT;
    *size = (MPI_Aint)n;
    return rc;
}

/* The file side of an access is `bytes` of external32; a read can end inside the last element (the
 * end of the file), as a native read unpacks only the bytes it got. The caller has checked that
 * every scalar of dt keeps its size, so element i starts at i * dt->size on both sides. */
int dt_ext32_file(int to_ext, void *user, MPI_Datatype dt, size_t count, void *ext, size_t bytes)
{
    xwalk w = {.to_ext = to_ext};
    if (to_ext) {
        w.out = ext;
        return pack_elems(&w, user, count, dt);
    }
    size_t whole = bytes / dt->size, rest = bytes % dt->size;
    w.in = ext;
    int rc = whole > 0 ? unpack_elems(&w, user, whole, dt) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS || rest == 0)
        return rc;
    /* The cut element: convert it whole from its bytes padded with zeros, keep what was read. */
    unsigned char *in = calloc(2, dt->size);
    if (in == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(in, (const unsigned char *)ext + whole * dt->size, rest);
    w.in = in;
    w.out = in + dt->size;
    if ((rc = walk(&w, dt, 1)) == MPI_SUCCESS)
        dt_unpack(in + dt->size, rest, 1, dt, BUF_AT(user, (MPI_Aint)whole * dt->extent));
    free(in);
    return rc;
}

/* ---- bindings ---- */

/* MPI 3.1 defines "external32" as the one representation of these calls. */
static int datarep_check(const char *datarep, const char *fn)
{
    if (datarep == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn,
                         "unsupported data representation \"%.64s\" (only \"external32\")",
                         datarep);
    return MPI_SUCCESS;
}

/* external32 bytes of count elements of dt, which must fit an MPI_Aint; reports errors. */
static int ext_bytes(const char *fn, MPI_Datatype dt, int count, uint64_t *n)
{
    uint64_t one;
    int rc = ext_size(dt, &one);
    if (rc == MPI_ERR_TYPE)
        return mpi_error(NULL, rc, fn, "cannot walk the type map of this datatype");
    if (rc != MPI_SUCCESS || __builtin_mul_overflow(one, (uint64_t)count, n) ||
        *n > (uint64_t)INTPTR_MAX)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "%d elements are too large for external32",
                         count);
    return MPI_SUCCESS;
}

static int conv_error(const char *fn, int rc, const xwalk *w)
{
    if (rc == MPI_ERR_CONVERSION)
        return mpi_error(NULL, rc, fn, "a value of a %u-byte native integer does not fit its "
                         "%u-byte external32 form", w->bad.nsize, w->bad.xsize);
    if (rc == MPI_ERR_NO_MEM)
        return mpi_error(NULL, rc, fn, "out of memory");
    return mpi_error(NULL, rc, fn, "cannot walk the type map of this datatype");
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack_external_size";
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if ((rc = datarep_check(datarep, fn)) != MPI_SUCCESS)
        return rc;
    if (!dt_ok(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (incount < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %d", incount);
    if (size == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "size is NULL");
    uint64_t n = 0;
    if ((rc = ext_bytes(fn, datatype, incount, &n)) != MPI_SUCCESS)
        return rc;
    /* Exact, not just a bound: external32 has no alignment or header. */
    *size = (MPI_Aint)n;
    return MPI_SUCCESS;
}

/* The checks both directions share: the datarep, the user-side buffer (count elements of dt),
 * the packed side (xsize bytes, *position into it), and that the n external32 bytes of the data
 * fit there. 0 and *n, or the raised error. */
static int ext_prologue(const char *fn, int to_ext, const char datarep[], const void *ubuf,
                        int count, MPI_Datatype dt, const void *xbuf, MPI_Aint xsize,
                        const MPI_Aint *position, uint64_t *n)
{
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if ((rc = datarep_check(datarep, fn)) != MPI_SUCCESS)
        return rc;
    if ((rc = mpi_check_buf(NULL, fn, ubuf, count, dt)) != MPI_SUCCESS)
        return rc;
    if (position == NULL || *position < 0 || xsize < 0 || (xbuf == NULL && xsize > 0))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid %s buffer or position",
                         to_ext ? "output" : "input");
    if ((rc = ext_bytes(fn, dt, count, n)) != MPI_SUCCESS)
        return rc;
    if (*position > xsize || *n > (uint64_t)(xsize - *position))
        return mpi_error(NULL, MPI_ERR_TRUNCATE, fn, "%llu bytes %s position %lld of %lld",
                         (unsigned long long)*n, to_ext ? "do not fit at" : "requested at",
                         (long long)*position, (long long)xsize);
    return MPI_SUCCESS;
}

/* On a conversion error the output holds what was converted before it, and position does not
 * move (likewise for MPI_Unpack_external). */
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack_external";
    uint64_t n = 0;
    int rc = ext_prologue(fn, 1, datarep, inbuf, incount, datatype, outbuf, outsize, position, &n);
    if (rc != MPI_SUCCESS || n == 0)
        return rc;
    xwalk w = {.out = (unsigned char *)outbuf + *position, .to_ext = 1};
    if ((rc = pack_elems(&w, inbuf, (size_t)incount, datatype)) != MPI_SUCCESS)
        return conv_error(fn, rc, &w);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Unpack_external";
    uint64_t n = 0;
    int rc = ext_prologue(fn, 0, datarep, outbuf, outcount, datatype, inbuf, insize, position, &n);
    if (rc != MPI_SUCCESS || n == 0)
        return rc;
    xwalk w = {.in = (const unsigned char *)inbuf + *position, .to_ext = 0};
    if ((rc = unpack_elems(&w, outbuf, (size_t)outcount, datatype)) != MPI_SUCCESS)
        return conv_error(fn, rc, &w);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Pack_external_size)
CREDO_PMPI(MPI_Pack_external)
CREDO_PMPI(MPI_Unpack_external)
