/* tests/mpi/packext.c — MPI_Pack_external and friends: exact external32 bytes and sizes of basic,
 * struct and vector types, round trips, errors; at np >= 2, rank 0's external32 read by rank 1. */
#include <stddef.h>
#include <wchar.h>

#include "testutil.h"

static const char *const X32 = "external32";

static void expect_bytes(const unsigned char *got, const unsigned char *want, size_t n,
                         const char *what) {
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i],
              want[i]);
}

static MPI_Aint ext_size(int count, MPI_Datatype dt) {
    MPI_Aint n = -1;
    MPI_OK(MPI_Pack_external_size(X32, count, dt, &n));
    return n;
}

/* Packs count elements of dt at position 0 into out (room bytes), checks the position moved by the
 * reported size and the bytes, unpacks into back and checks the position again. */
static void round_trip(const void *in, int count, MPI_Datatype dt, const unsigned char *want,
                       MPI_Aint want_size, void *back, const char *what) {
    unsigned char out[256];
    memset(out, 0xEE, sizeof out);
    CHECK(ext_size(count, dt) == want_size, "%s: external size %ld, expected %ld", what,
          (long)ext_size(count, dt), (long)want_size);
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external(X32, in, count, dt, out, (MPI_Aint)sizeof out, &pos));
    CHECK(pos == want_size, "%s: pack moved the position to %ld, expected %ld", what, (long)pos,
          (long)want_size);
    expect_bytes(out, want, (size_t)want_size, what);
    CHECK(out[want_size] == 0xEE, "%s: pack wrote past its size", what);
    pos = 0;
    MPI_OK(MPI_Unpack_external(X32, out, want_size, &pos, back, count, dt));
    CHECK(pos == want_size, "%s: unpack moved the position to %ld, expected %ld", what, (long)pos,
          (long)want_size);
}

static void test_ints(void) {
    const int in[3] = {1, -2, 0x01020304};
    const unsigned char want[12] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4};
    int back[3] = {0, 0, 0};
    round_trip(in, 3, MPI_INT, want, 12, back, "MPI_INT");
    CHECK(back[0] == 1 && back[1] == -2 && back[2] == 0x01020304, "MPI_INT back: %d %d %d",
          back[0], back[1], back[2]);

    /* long is 4 bytes in external32 whatever its native size; unpacking sign-extends. */
    const long lin[2] = {1, -2};
    const unsigned char lwant[8] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
    long lback[2] = {0, 0};
    round_trip(lin, 2, MPI_LONG, lwant, 8, lback, "MPI_LONG");
    CHECK(lback[0] == 1 && lback[1] == -2, "MPI_LONG back: %ld %ld", lback[0], lback[1]);
    const unsigned long uin[1] = {0xfffffffeUL};
    const unsigned char uwant[4] = {0xff, 0xff, 0xff, 0xfe};
    unsigned long uback[1] = {0};
    round_trip(uin, 1, MPI_UNSIGNED_LONG, uwant, 4, uback, "MPI_UNSIGNED_LONG");
    CHECK(uback[0] == 0xfffffffeUL, "MPI_UNSIGNED_LONG back: %lx (zero-extended?)", uback[0]);

    const long long llin[1] = {-2};
    const unsigned char llwant[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
    long long llback[1] = {0};
    round_trip(llin, 1, MPI_LONG_LONG, llwant, 8, llback, "MPI_LONG_LONG");
    CHECK(llback[0] == -2, "MPI_LONG_LONG back: %lld", llback[0]);

    const short sin_[2] = {0x1234, -1};
    const unsigned char swant[4] = {0x12, 0x34, 0xff, 0xff};
    short sback[2] = {0, 0};
    round_trip(sin_, 2, MPI_SHORT, swant, 4, sback, "MPI_SHORT");
    CHECK(sback[0] == 0x1234 && sback[1] == -1, "MPI_SHORT back: %d %d", sback[0], sback[1]);

    /* wchar_t is a 2-byte code unit. */
    const wchar_t win[2] = {L'A', (wchar_t)0x20ac};
    const unsigned char wwant[4] = {0, 0x41, 0x20, 0xac};
    wchar_t wback[2] = {0, 0};
    round_trip(win, 2, MPI_WCHAR, wwant, 4, wback, "MPI_WCHAR");
    CHECK(wback[0] == L'A' && wback[1] == (wchar_t)0x20ac, "MPI_WCHAR back: %lx %lx",
          (unsigned long)wback[0], (unsigned long)wback[1]);

    const _Bool bin[3] = {1, 0, 1};
    const unsigned char bwant[3] = {1, 0, 1};
    _Bool bback[3] = {0, 1, 0};
    round_trip(bin, 3, MPI_C_BOOL, bwant, 3, bback, "MPI_C_BOOL");
    CHECK(bback[0] == 1 && bback[1] == 0 && bback[2] == 1, "MPI_C_BOOL back: %d %d %d", bback[0],
          bback[1], bback[2]);
    tu_note("ints, longs, shorts, wchar_t and bools in external32");
}

static void test_floats(void) {
    const double in[2] = {1.0, -2.5};
    const unsigned char want[16] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0};
    double back[2] = {0, 0};
    round_trip(in, 2, MPI_DOUBLE, want, 16, back, "MPI_DOUBLE");
    CHECK(back[0] == 1.0 && back[1] == -2.5, "MPI_DOUBLE back: %g %g", back[0], back[1]);

    const float fin[1] = {1.0f};
    const unsigned char fwant[4] = {0x3f, 0x80, 0, 0};
    float fback[1] = {0};
    round_trip(fin, 1, MPI_FLOAT, fwant, 4, fback, "MPI_FLOAT");
    CHECK(fback[0] == 1.0f, "MPI_FLOAT back: %g", (double)fback[0]);

    /* long double is IEEE quadruple precision: 16 bytes, exponent bias 16383. */
    const long double lin[3] = {1.0L, 2.0L, -0.75L};
    unsigned char lwant[48];
    memset(lwant, 0, sizeof lwant);
    lwant[0] = 0x3f, lwant[1] = 0xff;                       /* 1.0 */
    lwant[16] = 0x40, lwant[17] = 0x00;                     /* 2.0 */
    lwant[32] = 0xbf, lwant[33] = 0xfe, lwant[34] = 0x80;   /* -0.75 = -1.1b * 2^-1 */
    long double lback[3] = {0, 0, 0};
    round_trip(lin, 3, MPI_LONG_DOUBLE, lwant, 48, lback, "MPI_LONG_DOUBLE");
    CHECK(lback[0] == 1.0L && lback[1] == 2.0L && lback[2] == -0.75L,
          "MPI_LONG_DOUBLE back: %Lg %Lg %Lg", lback[0], lback[1], lback[2]);
    /* A value using every native mantissa bit survives the round trip. */
    long double third = 1.0L / 3, tback = 0;
    unsigned char buf[16];
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external(X32, &third, 1, MPI_LONG_DOUBLE, buf, 16, &pos));
    CHECK(buf[0] == 0x3f && buf[1] == 0xfd && buf[2] == 0x55 && buf[3] == 0x55,
          "1/3 as quadruple: %02x %02x %02x %02x", buf[0], buf[1], buf[2], buf[3]);
    pos = 0;
    MPI_OK(MPI_Unpack_external(X32, buf, 16, &pos, &tback, 1, MPI_LONG_DOUBLE));
    CHECK(tback == third, "1/3 came back as %La, sent %La", tback, third);

    const double cin[2] = {1.0, 2.0}; /* one double complex: real, imaginary */
    const unsigned char cwant[16] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0};
    double cback[2] = {0, 0};
    round_trip(cin, 1, MPI_C_DOUBLE_COMPLEX, cwant, 16, cback, "MPI_C_DOUBLE_COMPLEX");
    CHECK(cback[0] == 1.0 && cback[1] == 2.0, "MPI_C_DOUBLE_COMPLEX back: %g %g", cback[0],
          cback[1]);
    tu_note("floats, doubles, long doubles and complex in external32");
}

/* MPI 3.1 Table 13.2, and the pairs as the struct of their two members. */
static void test_sizes(void) {
    static const struct {
        MPI_Datatype dt;
        MPI_Aint size;
        const char *name;
    } table[] = {
        {MPI_PACKED, 1, "MPI_PACKED"}, {MPI_BYTE, 1, "MPI_BYTE"}, {MPI_CHAR, 1, "MPI_CHAR"},
        {MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR"}, {MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR"},
        {MPI_WCHAR, 2, "MPI_WCHAR"}, {MPI_SHORT, 2, "MPI_SHORT"},
        {MPI_UNSIGNED_SHORT, 2, "MPI_UNSIGNED_SHORT"}, {MPI_INT, 4, "MPI_INT"},
        {MPI_UNSIGNED, 4, "MPI_UNSIGNED"}, {MPI_LONG, 4, "MPI_LONG"},
        {MPI_UNSIGNED_LONG, 4, "MPI_UNSIGNED_LONG"}, {MPI_LONG_LONG_INT, 8, "MPI_LONG_LONG_INT"},
        {MPI_UNSIGNED_LONG_LONG, 8, "MPI_UNSIGNED_LONG_LONG"}, {MPI_FLOAT, 4, "MPI_FLOAT"},
        {MPI_DOUBLE, 8, "MPI_DOUBLE"}, {MPI_LONG_DOUBLE, 16, "MPI_LONG_DOUBLE"},
        {MPI_C_BOOL, 1, "MPI_C_BOOL"}, {MPI_INT8_T, 1, "MPI_INT8_T"},
        {MPI_INT16_T, 2, "MPI_INT16_T"}, {MPI_INT32_T, 4, "MPI_INT32_T"},
        {MPI_INT64_T, 8, "MPI_INT64_T"}, {MPI_UINT8_T, 1, "MPI_UINT8_T"},
        {MPI_UINT16_T, 2, "MPI_UINT16_T"}, {MPI_UINT32_T, 4, "MPI_UINT32_T"},
        {MPI_UINT64_T, 8, "MPI_UINT64_T"}, {MPI_AINT, 8, "MPI_AINT"},
        {MPI_COUNT, 8, "MPI_COUNT"}, {MPI_OFFSET, 8, "MPI_OFFSET"},
        {MPI_C_FLOAT_COMPLEX, 8, "MPI_C_FLOAT_COMPLEX"},
        {MPI_C_DOUBLE_COMPLEX, 16, "MPI_C_DOUBLE_COMPLEX"},
        {MPI_C_LONG_DOUBLE_COMPLEX, 32, "MPI_C_LONG_DOUBLE_COMPLEX"},
        {MPI_CXX_BOOL, 1, "MPI_CXX_BOOL"}, {MPI_FLOAT_INT, 8, "MPI_FLOAT_INT"},
        {MPI_DOUBLE_INT, 12, "MPI_DOUBLE_INT"}, {MPI_LONG_INT, 8, "MPI_LONG_INT"},
        {MPI_2INT, 8, "MPI_2INT"}, {MPI_SHORT_INT, 6, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE_INT, 20, "MPI_LONG_DOUBLE_INT"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CHECK(ext_size(1, table[i].dt) == table[i].size, "%s: external32 size %ld, expected %ld",
              table[i].name, (long)ext_size(1, table[i].dt), (long)table[i].size);
        CHECK(ext_size(7, table[i].dt) == 7 * table[i].size, "7 x %s: size %ld", table[i].name,
              (long)ext_size(7, table[i].dt));
    }
    CHECK(ext_size(0, MPI_DOUBLE) == 0, "0 doubles: size %ld", (long)ext_size(0, MPI_DOUBLE));

    /* A pair with padding in memory: MPI_SHORT_INT packs as 2 + 4 bytes. */
    struct {
        short v;
        int i;
    } si[2] = {{-3, 70000}, {5, -1}}, siback[2];
    const unsigned char siwant[12] = {0xff, 0xfd, 0, 1, 0x11, 0x70, 0, 5, 0xff, 0xff, 0xff, 0xff};
    memset(siback, 0, sizeof siback);
    round_trip(si, 2, MPI_SHORT_INT, siwant, 12, siback, "MPI_SHORT_INT");
    CHECK(siback[0].v == -3 && siback[0].i == 70000 && siback[1].v == 5 && siback[1].i == -1,
          "MPI_SHORT_INT back: %d %d %d %d", siback[0].v, siback[0].i, siback[1].v, siback[1].i);
    struct {
        long v;
        int i;
    } li = {-7, 9}, liback = {0, 0};
    const unsigned char liwant[8] = {0xff, 0xff, 0xff, 0xf9, 0, 0, 0, 9};
    round_trip(&li, 1, MPI_LONG_INT, liwant, 8, &liback, "MPI_LONG_INT");
    CHECK(liback.v == -7 && liback.i == 9, "MPI_LONG_INT back: %ld %d", liback.v, liback.i);
    tu_note("external32 sizes of %zu predefined types", sizeof table / sizeof table[0]);
}

typedef struct rec {
    char c;
    double d;
    int i;
} rec;

static MPI_Datatype rec_type(void) {
    const int bl[3] = {1, 1, 1};
    const MPI_Aint disp[3] = {offsetof(rec, c), offsetof(rec, d), offsetof(rec, i)};
    const MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Datatype t, r;
    MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &t));
    MPI_OK(MPI_Type_create_resized(t, 0, sizeof(rec), &r));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_commit(&r));
    return r;
}

static void test_struct_vector(void) {
    /* {char; double; int}: 1 + 8 + 4 bytes per element, no padding, in type-map order. */
    MPI_Datatype r = rec_type();
    rec in[2], back[2];
    memset(in, 0, sizeof in);
    in[0] = (rec){'A', 1.5, 7};
    in[1] = (rec){'z', -2.0, -1};
    const unsigned char want[26] = {'A', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7,
                                    'z', 0xc0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    memset(back, 0, sizeof back);
    round_trip(in, 2, r, want, 26, back, "struct {char; double; int}");
    for (int k = 0; k < 2; k++)
        CHECK(back[k].c == in[k].c && back[k].d == in[k].d && back[k].i == in[k].i,
              "struct back[%d]: %c %g %d", k, back[k].c, back[k].d, back[k].i);

    /* A struct of a struct and a long (native 8 bytes, external 4): walked through the type map. */
    struct outer {
        rec r;
        long l;
    } o = {{'q', 0.5, 3}, -5}, oback;
    const int bl[2] = {1, 1};
    const MPI_Aint disp[2] = {offsetof(struct outer, r), offsetof(struct outer, l)};
    const MPI_Datatype types[2] = {r, MPI_LONG};
    MPI_Datatype ot;
    MPI_OK(MPI_Type_create_struct(2, bl, disp, types, &ot));
    MPI_OK(MPI_Type_commit(&ot));
    const unsigned char owant[17] = {'q', 0x3f, 0xe0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0, 3, 0xff, 0xff, 0xff, 0xfb};
    memset(&oback, 0, sizeof oback);
    round_trip(&o, 1, ot, owant, 17, &oback, "struct {rec; long}");
    CHECK(oback.r.c == 'q' && oback.r.d == 0.5 && oback.r.i == 3 && oback.l == -5,
          "nested struct back: %c %g %d %ld", oback.r.c, oback.r.d, oback.r.i, oback.l);
    MPI_OK(MPI_Type_free(&ot));
    MPI_OK(MPI_Type_free(&r));

    /* vector(3, 2, 4) of shorts: elements 0 1, 4 5, 8 9; the others stay untouched on unpack. */
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_SHORT, &v));
    MPI_OK(MPI_Type_commit(&v));
    short vin[12], vback[12];
    for (int k = 0; k < 12; k++)
        vin[k] = (short)(0x0100 * k + k), vback[k] = 0x5a5a;
    const unsigned char vwant[12] = {0, 0, 1, 1, 4, 4, 5, 5, 8, 8, 9, 9};
    round_trip(vin, 1, v, vwant, 12, vback, "vector of shorts");
    for (int k = 0; k < 12; k++) {
        int selected = k % 4 < 2;
        CHECK(vback[k] == (selected ? vin[k] : 0x5a5a), "vector back[%d] = 0x%x", k, vback[k]);
    }
    MPI_OK(MPI_Type_free(&v));

    /* One block of 2 ints 8 bytes in: contiguous in memory, but not from the buffer's start. */
    MPI_Datatype h;
    const int two = 2;
    const MPI_Aint at = 2 * sizeof(int);
    MPI_OK(MPI_Type_create_hindexed(1, &two, &at, MPI_INT, &h));
    MPI_OK(MPI_Type_commit(&h));
    const int hin[6] = {-1, -1, 2, 3, 4, 5};
    int hback[6] = {9, 9, 0, 0, 0, 0};
    const unsigned char hwant[16] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5};
    round_trip(hin, 2, h, hwant, 16, hback, "block of ints at an offset");
    CHECK(hback[0] == 9 && hback[1] == 9 && hback[2] == 2 && hback[5] == 5,
          "offset block back: %d %d %d .. %d", hback[0], hback[1], hback[2], hback[5]);
    MPI_OK(MPI_Type_free(&h));
    tu_note("struct {char; double; int}, a nested struct, a vector, an offset block");
}

/* Enough non-contiguous elements (12,000 x 13 bytes) that the library converts them in several
 * steps: every element lands at its own offset and comes back. */
static void test_many(void) {
    enum { N = 12000 };
    MPI_Datatype r = rec_type();
    rec *in = tu_xcalloc(N, sizeof *in), *back = tu_xcalloc(N, sizeof *back);
    for (int k = 0; k < N; k++)
        in[k] = (rec){(char)(k % 128), k * 0.5, -k};
    MPI_Aint n = ext_size(N, r), pos = 0;
    CHECK(n == 13 * N, "external size of %d records: %ld", N, (long)n);
    unsigned char *buf = tu_xmalloc((size_t)n);
    MPI_OK(MPI_Pack_external(X32, in, N, r, buf, n, &pos));
    CHECK(pos == n, "packed %ld bytes of %ld", (long)pos, (long)n);
    for (int k = 0; k < N; k += 997) {
        const unsigned char *e = buf + 13 * (size_t)k;
        unsigned char want[13];
        double d = k * 0.5;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        want[0] = (unsigned char)(k % 128);
        for (int b = 0; b < 8; b++)
            want[1 + b] = (unsigned char)(bits >> (56 - 8 * b));
        uint32_t i = (uint32_t)-k;
        for (int b = 0; b < 4; b++)
            want[9 + b] = (unsigned char)(i >> (24 - 8 * b));
        expect_bytes(e, want, 13, "record in a large pack");
    }
    pos = 0;
    MPI_OK(MPI_Unpack_external(X32, buf, n, &pos, back, N, r));
    for (int k = 0; k < N; k++)
        CHECK(back[k].c == in[k].c && back[k].d == in[k].d && back[k].i == in[k].i,
              "record %d back: %d %g %d", k, back[k].c, back[k].d, back[k].i);
    free(buf);
    free(in);
    free(back);
    MPI_OK(MPI_Type_free(&r));
    tu_note("%d records packed and unpacked in several steps", N);
}

/* Several packs into one buffer at successive positions, then unpacked in the same order. */
static void test_positions(void) {
    const int ints[2] = {5, 6};
    const double d = 0.25;
    unsigned char buf[32];
    MPI_Aint pos = 3; /* an odd start: external32 has no alignment */
    MPI_OK(MPI_Pack_external(X32, ints, 2, MPI_INT, buf, sizeof buf, &pos));
    MPI_OK(MPI_Pack_external(X32, &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos));
    CHECK(pos == 3 + 8 + 8, "position after two packs: %ld", (long)pos);
    const unsigned char want[16] = {0, 0, 0, 5, 0, 0, 0, 6, 0x3f, 0xd0, 0, 0, 0, 0, 0, 0};
    expect_bytes(buf + 3, want, 16, "two packs");
    int iback[2] = {0, 0};
    double dback = 0;
    pos = 3;
    MPI_OK(MPI_Unpack_external(X32, buf, 19, &pos, iback, 2, MPI_INT));
    MPI_OK(MPI_Unpack_external(X32, buf, 19, &pos, &dback, 1, MPI_DOUBLE));
    CHECK(pos == 19 && iback[0] == 5 && iback[1] == 6 && dback == 0.25,
          "unpacked in sequence: pos %ld, %d %d %g", (long)pos, iback[0], iback[1], dback);
    tu_note("successive packs and unpacks share one position");
}

static void test_errors(void) {
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const int ints[4] = {1, 2, 3, 4};
    unsigned char buf[16];
    int back[5];
    MPI_Aint pos = 0, size = -1;
    int rc;

    rc = MPI_Pack_external("native", ints, 4, MPI_INT, buf, sizeof buf, &pos);
    CHECK(tu_class(rc) == MPI_ERR_ARG && pos == 0, "pack with datarep \"native\": class %d pos %ld",
          tu_class(rc), (long)pos);
    rc = MPI_Unpack_external("external64", buf, sizeof buf, &pos, back, 1, MPI_INT);
    CHECK(tu_class(rc) == MPI_ERR_ARG && pos == 0, "unpack with datarep \"external64\": class %d",
          tu_class(rc));
    rc = MPI_Pack_external_size("internal", 4, MPI_INT, &size);
    CHECK(tu_class(rc) == MPI_ERR_ARG && size == -1, "size with datarep \"internal\": class %d",
          tu_class(rc));

    /* 16 bytes of ints fit at 0 but not at 1; unpacking more than the buffer holds. */
    pos = 1;
    rc = MPI_Pack_external(X32, ints, 4, MPI_INT, buf, sizeof buf, &pos);
    CHECK(tu_class(rc) == MPI_ERR_TRUNCATE && pos == 1, "pack past the end: class %d pos %ld",
          tu_class(rc), (long)pos);
    pos = 0;
    rc = MPI_Unpack_external(X32, buf, sizeof buf, &pos, back, 5, MPI_INT);
    CHECK(tu_class(rc) == MPI_ERR_TRUNCATE && pos == 0, "unpack past the end: class %d",
          tu_class(rc));

    rc = MPI_Pack_external_size(X32, 1, MPI_DATATYPE_NULL, &size);
    CHECK(tu_class(rc) == MPI_ERR_TYPE, "size of MPI_DATATYPE_NULL: class %d", tu_class(rc));
    rc = MPI_Pack_external_size(X32, -1, MPI_INT, &size);
    CHECK(tu_class(rc) == MPI_ERR_COUNT, "size of -1 ints: class %d", tu_class(rc));
    MPI_Datatype unc;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    pos = 0;
    rc = MPI_Pack_external(X32, ints, 1, unc, buf, sizeof buf, &pos);
    CHECK(tu_class(rc) == MPI_ERR_TYPE, "pack with an uncommitted type: class %d", tu_class(rc));
    MPI_OK(MPI_Type_free(&unc));

    /* A native long that needs more than 4 bytes cannot be written as an external32 long. */
    if (sizeof(long) > 4) {
        const long big[2] = {1, (long)1 << 40};
        pos = 0;
        rc = MPI_Pack_external(X32, big, 2, MPI_LONG, buf, sizeof buf, &pos);
        CHECK(tu_class(rc) == MPI_ERR_CONVERSION && pos == 0, "pack of 2^40 as MPI_LONG: class %d",
              tu_class(rc));
        const wchar_t wide = (wchar_t)0x1f600;
        rc = MPI_Pack_external(X32, &wide, 1, MPI_WCHAR, buf, sizeof buf, &pos);
        CHECK(tu_class(rc) == MPI_ERR_CONVERSION, "pack of U+1F600 as MPI_WCHAR: class %d",
              tu_class(rc));
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    tu_note("unknown datarep, truncation, bad type and count, narrowing errors");
}

/* The point of external32: rank 0's bytes read by rank 1 with its own types. */
static void test_exchange(int rank, int size) {
    if (size < 2 || rank > 1)
        return;
    enum { N = 1000 };
    MPI_Aint n = ext_size(N, MPI_LONG);
    CHECK(n == 4 * N, "external size of %d longs: %ld", N, (long)n);
    unsigned char *buf = tu_xmalloc((size_t)n);
    long *vals = tu_xmalloc(N * sizeof *vals);
    if (rank == 0) {
        for (int k = 0; k < N; k++)
            vals[k] = (long)k * 1000 - 400000;
        MPI_Aint pos = 0;
        MPI_OK(MPI_Pack_external(X32, vals, N, MPI_LONG, buf, n, &pos));
        MPI_OK(MPI_Send(buf, (int)pos, MPI_PACKED, 1, 0, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Recv(buf, (int)n, MPI_PACKED, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Aint pos = 0;
        MPI_OK(MPI_Unpack_external(X32, buf, n, &pos, vals, N, MPI_LONG));
        for (int k = 0; k < N; k++)
            CHECK(vals[k] == (long)k * 1000 - 400000, "long %d from rank 0: %ld", k, vals[k]);
        tu_note("rank 1 read %d longs rank 0 packed in external32", N);
    }
    free(buf);
    free(vals);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_ints();
    test_floats();
    test_sizes();
    test_struct_vector();
    test_many();
    test_positions();
    test_errors();
    test_exchange(rank, size);
    MPI_Finalize();
    return 0;
}
