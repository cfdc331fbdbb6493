/* tests/mpi/io_largecount.c — MPI 4.0 large-count MPI-IO (every MPI_File_*_c form against the int
 * forms, status counts, errors, a transfer beyond INT_MAX) and MPI_Register_datarep(_c) views. */
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "testutil.h"

#define N 16 /* ints per rank per access */

static int rank, np;
static char dir[512];

static void path_of(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", dir, name);
}

static void expect_class(int rc, int cls, const char *what) {
    CHECK(rc != MPI_SUCCESS, "%s succeeded, expected error class %d", what, cls);
    CHECK(tu_class(rc) == cls, "%s: error class %d, expected %d", what, tu_class(rc), cls);
}

/* The status says count elements of dt, elems basic elements in all. */
static void expect_counts(const MPI_Status *st, MPI_Datatype dt, MPI_Count want, MPI_Count elems,
                          const char *what) {
    MPI_Count n = -1, e = -1;
    MPI_OK(MPI_Get_count_c(st, dt, &n));
    CHECK(n == want, "%s: MPI_Get_count_c says %lld, expected %lld", what, (long long)n,
          (long long)want);
    MPI_OK(MPI_Get_elements_c(st, dt, &e));
    CHECK(e == elems, "%s: MPI_Get_elements_c says %lld, expected %lld", what, (long long)e,
          (long long)elems);
}

/* The same for a basic type, whose elements are its count. */
static void expect_count(const MPI_Status *st, MPI_Datatype dt, MPI_Count want, const char *what) {
    expect_counts(st, dt, want, want, what);
}

static void settle(MPI_File f) {
    MPI_OK(MPI_File_sync(f));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(f));
}

/* The value of int i of rank r's block in phase ph: distinct per phase, so stale data fails. */
static int val(int ph, int r, int i) {
    return ph * 100000 + r * 1000 + i;
}

static void fill(int *b, int ph, int r) {
    for (int i = 0; i < N; i++)
        b[i] = val(ph, r, i);
}

static void expect_block(const int *b, int ph, int r, const char *what) {
    for (int i = 0; i < N; i++)
        CHECK(b[i] == val(ph, r, i), "%s: int %d of rank %d is %d, expected %d", what, i, r, b[i],
              val(ph, r, i));
}

/* This rank's block of phase ph, read back with the int form at its etype offset. */
static void check_at(MPI_File f, MPI_Offset off, int ph, const char *what) {
    int b[N];
    MPI_Status st;
    memset(b, 0xee, sizeof b);
    MPI_OK(MPI_File_read_at(f, off, b, N, MPI_INT, &st));
    expect_block(b, ph, rank, what);
}

/* ---- every _c access form, under a view of ints ---- */

static void test_explicit(MPI_File f) {
    int w[N], r[N];
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset off = (MPI_Offset)rank * N;
    /* 1: write_at_c, read back with read_at (int) and read_at_c */
    fill(w, 1, rank);
    MPI_OK(MPI_File_write_at_c(f, off, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_at_c");
    check_at(f, off, 1, "write_at_c -> read_at");
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_at_c(f, off, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_at_c");
    expect_block(r, 1, rank, "read_at_c");
    /* 2: the collective pair */
    fill(w, 2, rank);
    MPI_OK(MPI_File_write_at_all_c(f, off, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_at_all_c");
    settle(f);
    memset(r, 0, sizeof r);
    int peer = (rank + 1) % np;
    MPI_OK(MPI_File_read_at_all_c(f, (MPI_Offset)peer * N, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_at_all_c");
    expect_block(r, 2, peer, "read_at_all_c of the next rank's block");
    settle(f);
    /* 3: non-blocking */
    fill(w, 3, rank);
    MPI_OK(MPI_File_iwrite_at_c(f, off, w, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iwrite_at_c");
    check_at(f, off, 3, "iwrite_at_c -> read_at");
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_iread_at_c(f, off, r, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iread_at_c");
    expect_block(r, 3, rank, "iread_at_c");
    fill(w, 4, rank);
    MPI_OK(MPI_File_iwrite_at_all_c(f, off, w, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iwrite_at_all_c");
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_iread_at_all_c(f, off, r, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iread_at_all_c");
    expect_block(r, 4, rank, "iread_at_all_c");
    /* 5: a short read at the end of the file counts what it got */
    MPI_Offset size = 0;
    settle(f);
    MPI_OK(MPI_File_get_size(f, &size));
    CHECK(size == (MPI_Offset)np * N * 4, "file size %lld", (long long)size);
    int big[2 * N];
    MPI_OK(MPI_File_read_at_c(f, (MPI_Offset)(np - 1) * N + N / 2, big, 2 * N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N / 2, "MPI_File_read_at_c past the end");
    settle(f);
    tu_note("explicit offsets: read_at_c, write_at_c, _all, iread/iwrite, short read");
}

static void test_individual(MPI_File f) {
    int w[N], r[N];
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset off = (MPI_Offset)rank * N, pos = -1;
    fill(w, 5, rank);
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_c(f, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_c");
    MPI_OK(MPI_File_get_position(f, &pos));
    CHECK(pos == off + N, "write_c left the pointer at %lld", (long long)pos);
    check_at(f, off, 5, "write_c -> read_at");
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_c(f, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_c");
    expect_block(r, 5, rank, "read_c");
    MPI_OK(MPI_File_get_position(f, &pos));
    CHECK(pos == off + N, "read_c left the pointer at %lld", (long long)pos);

    fill(w, 6, rank);
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_all_c(f, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_all_c");
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_all_c(f, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_all_c");
    expect_block(r, 6, rank, "read_all_c");

    fill(w, 7, rank);
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_c(f, w, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iwrite_c");
    check_at(f, off, 7, "iwrite_c -> read_at");
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_iread_c(f, r, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iread_c");
    expect_block(r, 7, rank, "iread_c");

    fill(w, 8, rank);
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_all_c(f, w, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iwrite_all_c");
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_iread_all_c(f, r, N, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_iread_all_c");
    expect_block(r, 8, rank, "iread_all_c");

    /* A strided memory type with a _c count: every other int of a 2N buffer. */
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    int wide[2 * N];
    memset(wide, 0, sizeof wide);
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_c(f, wide, 1, every_other, &st));
    expect_counts(&st, every_other, 1, N, "MPI_File_read_c of a vector");
    MPI_Count e = -1;
    MPI_OK(MPI_Get_elements_c(&st, MPI_INT, &e));
    CHECK(e == N, "vector read: %lld MPI_INT elements", (long long)e);
    for (int i = 0; i < N; i++)
        CHECK(wide[2 * i] == val(8, rank, i) && wide[2 * i + 1] == 0,
              "vector read: ints %d,%d are %d,%d", 2 * i, 2 * i + 1, wide[2 * i], wide[2 * i + 1]);
    MPI_OK(MPI_Type_free(&every_other));
    settle(f);
    tu_note("individual pointer: read_c, write_c, _all, iread/iwrite, a vector memory type");
}

/* Shared pointer forms, one rank at a time in rank order, so block r lands at r * N. */
static void test_shared(MPI_File f) {
    int w[N], r[N];
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset off = (MPI_Offset)rank * N;
    for (int form = 0; form < 2; form++) {
        int ph = 9 + form;
        fill(w, ph, rank);
        MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
        for (int t = 0; t < np; t++) {
            if (t == rank && form == 0) {
                MPI_OK(MPI_File_write_shared_c(f, w, N, MPI_INT, &st));
                expect_count(&st, MPI_INT, N, "MPI_File_write_shared_c");
            } else if (t == rank) {
                MPI_OK(MPI_File_iwrite_shared_c(f, w, N, MPI_INT, &rq));
                MPI_OK(MPI_Wait(&rq, &st));
                expect_count(&st, MPI_INT, N, "MPI_File_iwrite_shared_c");
            }
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        settle(f);
        check_at(f, off, ph, form ? "iwrite_shared_c -> read_at" : "write_shared_c -> read_at");
        MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
        for (int t = 0; t < np; t++) {
            memset(r, 0, sizeof r);
            if (t == rank && form == 0) {
                MPI_OK(MPI_File_read_shared_c(f, r, N, MPI_INT, &st));
                expect_count(&st, MPI_INT, N, "MPI_File_read_shared_c");
                expect_block(r, ph, rank, "read_shared_c");
            } else if (t == rank) {
                MPI_OK(MPI_File_iread_shared_c(f, r, N, MPI_INT, &rq));
                MPI_OK(MPI_Wait(&rq, &st));
                expect_count(&st, MPI_INT, N, "MPI_File_iread_shared_c");
                expect_block(r, ph, rank, "iread_shared_c");
            }
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
    }
    /* Ordered: rank order without the turns. */
    fill(w, 11, rank);
    MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_ordered_c(f, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_ordered_c");
    settle(f);
    check_at(f, off, 11, "write_ordered_c -> read_at");
    MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_ordered_c(f, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_ordered_c");
    expect_block(r, 11, rank, "read_ordered_c");
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position_shared(f, &pos));
    CHECK(pos == (MPI_Offset)np * N, "read_ordered_c left the shared pointer at %lld",
          (long long)pos);
    settle(f);
    tu_note("shared pointer: read/write_shared_c, iread/iwrite_shared_c, read/write_ordered_c");
}

static void test_split(MPI_File f) {
    int w[N], r[N];
    MPI_Status st;
    MPI_Offset off = (MPI_Offset)rank * N;

    fill(w, 12, rank);
    MPI_OK(MPI_File_write_at_all_begin_c(f, off, w, N, MPI_INT));
    MPI_OK(MPI_File_write_at_all_end(f, w, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_at_all_begin_c");
    settle(f);
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_at_all_begin_c(f, off, r, N, MPI_INT));
    MPI_OK(MPI_File_read_at_all_end(f, r, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_at_all_begin_c");
    expect_block(r, 12, rank, "read_at_all_begin_c");

    fill(w, 13, rank);
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_all_begin_c(f, w, N, MPI_INT));
    MPI_OK(MPI_File_write_all_end(f, w, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_all_begin_c");
    check_at(f, off, 13, "write_all_begin_c -> read_at");
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_all_begin_c(f, r, N, MPI_INT));
    MPI_OK(MPI_File_read_all_end(f, r, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_all_begin_c");
    expect_block(r, 13, rank, "read_all_begin_c");

    fill(w, 14, rank);
    MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_ordered_begin_c(f, w, N, MPI_INT));
    MPI_OK(MPI_File_write_ordered_end(f, w, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_write_ordered_begin_c");
    settle(f);
    check_at(f, off, 14, "write_ordered_begin_c -> read_at");
    MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_ordered_begin_c(f, r, N, MPI_INT));
    MPI_OK(MPI_File_read_ordered_end(f, r, &st));
    expect_count(&st, MPI_INT, N, "MPI_File_read_ordered_begin_c");
    expect_block(r, 14, rank, "read_ordered_begin_c");
    settle(f);
    tu_note("split collectives: the six _begin_c forms with their _end");
}

/* Bad arguments under MPI_ERRORS_RETURN (every rank passes the same, so the collective and
 * ordered forms fail everywhere alike). */
static void test_errors(MPI_File f) {
    int b[N] = {0};
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_OK(MPI_File_set_errhandler(f, MPI_ERRORS_RETURN));
    const MPI_Count neg = -1, huge = LLONG_MAX / 2; /* huge: its bytes overflow a file offset */
    MPI_Count bad[2] = {neg, huge};
    for (int k = 0; k < 2; k++) {
        MPI_Count c = bad[k];
        expect_class(MPI_File_read_at_c(f, 0, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_read_at_c");
        expect_class(MPI_File_write_at_c(f, 0, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_write_at_c");
        expect_class(MPI_File_read_at_all_c(f, 0, b, c, MPI_INT, MPI_STATUS_IGNORE),
                     MPI_ERR_COUNT, "MPI_File_read_at_all_c");
        expect_class(MPI_File_write_at_all_c(f, 0, b, c, MPI_INT, MPI_STATUS_IGNORE),
                     MPI_ERR_COUNT, "MPI_File_write_at_all_c");
        expect_class(MPI_File_iread_at_c(f, 0, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iread_at_c");
        expect_class(MPI_File_iwrite_at_c(f, 0, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iwrite_at_c");
        expect_class(MPI_File_iread_at_all_c(f, 0, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iread_at_all_c");
        expect_class(MPI_File_iwrite_at_all_c(f, 0, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iwrite_at_all_c");
        expect_class(MPI_File_read_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_read_c");
        expect_class(MPI_File_write_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_write_c");
        expect_class(MPI_File_read_all_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_read_all_c");
        expect_class(MPI_File_write_all_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_write_all_c");
        expect_class(MPI_File_iread_c(f, b, c, MPI_INT, &rq), MPI_ERR_COUNT, "MPI_File_iread_c");
        expect_class(MPI_File_iwrite_c(f, b, c, MPI_INT, &rq), MPI_ERR_COUNT, "MPI_File_iwrite_c");
        expect_class(MPI_File_iread_all_c(f, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iread_all_c");
        expect_class(MPI_File_iwrite_all_c(f, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iwrite_all_c");
        expect_class(MPI_File_read_shared_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_read_shared_c");
        expect_class(MPI_File_write_shared_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_write_shared_c");
        expect_class(MPI_File_iread_shared_c(f, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iread_shared_c");
        expect_class(MPI_File_iwrite_shared_c(f, b, c, MPI_INT, &rq), MPI_ERR_COUNT,
                     "MPI_File_iwrite_shared_c");
        expect_class(MPI_File_read_ordered_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_read_ordered_c");
        expect_class(MPI_File_write_ordered_c(f, b, c, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                     "MPI_File_write_ordered_c");
        expect_class(MPI_File_read_at_all_begin_c(f, 0, b, c, MPI_INT), MPI_ERR_COUNT,
                     "MPI_File_read_at_all_begin_c");
        expect_class(MPI_File_write_at_all_begin_c(f, 0, b, c, MPI_INT), MPI_ERR_COUNT,
                     "MPI_File_write_at_all_begin_c");
        expect_class(MPI_File_read_all_begin_c(f, b, c, MPI_INT), MPI_ERR_COUNT,
                     "MPI_File_read_all_begin_c");
        expect_class(MPI_File_write_all_begin_c(f, b, c, MPI_INT), MPI_ERR_COUNT,
                     "MPI_File_write_all_begin_c");
        expect_class(MPI_File_read_ordered_begin_c(f, b, c, MPI_INT), MPI_ERR_COUNT,
                     "MPI_File_read_ordered_begin_c");
        expect_class(MPI_File_write_ordered_begin_c(f, b, c, MPI_INT), MPI_ERR_COUNT,
                     "MPI_File_write_ordered_begin_c");
    }
    CHECK(rq == MPI_REQUEST_NULL, "a failed non-blocking _c call set the request");
    /* A failed _begin leaves no split collective active: a new one can start and end. */
    MPI_Status st;
    MPI_OK(MPI_File_read_at_all_begin_c(f, 0, b, 1, MPI_INT));
    MPI_OK(MPI_File_read_at_all_end(f, b, &st));
    expect_count(&st, MPI_INT, 1, "split read after failed _begin_c calls");
    expect_class(MPI_File_write_at_c(f, -1, b, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ARG,
                 "MPI_File_write_at_c at a negative offset");
    expect_class(MPI_File_write_c(f, b, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
                 "MPI_File_write_c of MPI_DATATYPE_NULL");
    expect_class(MPI_File_read_c(MPI_FILE_NULL, b, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE,
                 "MPI_File_read_c of MPI_FILE_NULL");
    /* Not a whole number of etypes (the view's etype is MPI_INT). */
    expect_class(MPI_File_write_at_c(f, 0, b, 3, MPI_SHORT, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
                 "MPI_File_write_at_c of 3 shorts under an int etype");
    MPI_Count ext = -1;
    expect_class(MPI_File_get_type_extent_c(f, MPI_INT, NULL), MPI_ERR_ARG,
                 "MPI_File_get_type_extent_c with extent NULL");
    expect_class(MPI_File_get_type_extent_c(MPI_FILE_NULL, MPI_INT, &ext), MPI_ERR_FILE,
                 "MPI_File_get_type_extent_c of MPI_FILE_NULL");
    expect_class(MPI_File_get_type_extent_c(f, MPI_DATATYPE_NULL, &ext), MPI_ERR_TYPE,
                 "MPI_File_get_type_extent_c of MPI_DATATYPE_NULL");
    MPI_OK(MPI_File_get_type_extent_c(f, MPI_DOUBLE, &ext));
    CHECK(ext == (MPI_Count)sizeof(double), "file extent of MPI_DOUBLE is %lld", (long long)ext);
    MPI_Datatype rs;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 24, &rs));
    MPI_OK(MPI_File_get_type_extent_c(f, rs, &ext));
    CHECK(ext == 24, "file extent of a resized int is %lld", (long long)ext);
    MPI_Aint aext = -1;
    MPI_OK(MPI_File_get_type_extent(f, rs, &aext));
    CHECK(aext == 24, "MPI_File_get_type_extent of a resized int is %ld", (long)aext);
    MPI_OK(MPI_Type_free(&rs));
    settle(f);
    tu_note("errors: negative and overflowing counts in all 28 _c forms, offsets, types, "
            "handles; MPI_File_get_type_extent_c");
}

/* ---- beyond INT_MAX (--big, np 1): a sparse file and /dev/null, not under the sanitizers ---- */

static void test_beyond_int(void) {
#ifndef CREDO_SANITIZE_BUILD
    if (np != 1)
        return;
    char p[600];
    path_of(p, sizeof p, "big");
    MPI_Request rq;
    const MPI_Count n = (MPI_Count)INT_MAX + 4097;
    const MPI_Count probe[] = {0, 1, INT_MAX - 1, INT_MAX, (MPI_Count)INT_MAX + 1, n - 1};
    const int nprobe = (int)(sizeof probe / sizeof probe[0]);
    MPI_File f;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, p,
                         MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                         &f));
    /* A sparse file of n bytes with the probed bytes set: no 2 GiB written to disk. */
    MPI_OK(MPI_File_set_size(f, n));
    for (int i = 0; i < nprobe; i++) {
        unsigned char v = (unsigned char)(0x11 + i);
        MPI_OK(MPI_File_write_at(f, probe[i], &v, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    unsigned char *b = malloc((size_t)n);
    CHECK(b != NULL, "no memory for %lld bytes", (long long)n);
    memset(b, 0xee, 1 << 20); /* so that the checks can fail at small offsets */
    MPI_Status st;
    MPI_OK(MPI_File_read_at_c(f, 0, b, n, MPI_BYTE, &st));
    expect_count(&st, MPI_BYTE, n, "MPI_File_read_at_c of INT_MAX + 4097 bytes");
    for (int i = 0; i < nprobe; i++)
        CHECK(b[probe[i]] == 0x11 + i, "big read: byte %lld is %#x", (long long)probe[i],
              b[probe[i]]);
    CHECK(b[2] == 0 && b[n / 2] == 0, "big read: the file's holes did not read as zero");
    MPI_OK(MPI_File_close(&f));
    /* One write_c of n bytes, to /dev/null: the call, its status and the pointer are the same as
     * to a file, without 2 GiB of disk traffic (the read above checked the data path). */
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/null", MPI_MODE_WRONLY, MPI_INFO_NULL, &f));
    MPI_OK(MPI_File_write_c(f, b, n, MPI_BYTE, &st));
    expect_count(&st, MPI_BYTE, n, "MPI_File_write_c of INT_MAX + 4097 bytes");
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(f, &pos));
    CHECK(pos == n, "write_c of n bytes left the pointer at %lld", (long long)pos);
    MPI_OK(MPI_File_iwrite_at_c(f, 0, b, n, MPI_BYTE, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, MPI_BYTE, n, "MPI_File_iwrite_at_c of INT_MAX + 4097 bytes");
    free(b);
    MPI_OK(MPI_File_close(&f));
    tu_note("beyond INT_MAX: read_at_c, write_c and iwrite_at_c of %lld bytes", (long long)n);
#endif
}

/* ---- MPI_Register_datarep ---- */

typedef struct conv_state {
    MPI_Count items;  /* basic items converted so far */
    int calls;
    int fail;         /* make the next conversion fail */
} conv_state;

static conv_state swap_st, xor_st;

static int native_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra) {
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

static int wide_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra) {
    (void)extra;
    MPI_Aint lb;
    int rc = MPI_Type_get_extent(dt, &lb, extent);
    *extent *= 2;
    return rc;
}

static int failing_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra) {
    (void)dt, (void)extra;
    *extent = 0;
    return MPI_ERR_OTHER;
}

/* Byte-swapped ints in the file. The data items are the ints of contiguous MPI_INT memory. */
static int swap_conv(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                     void *extra, int to_file) {
    conv_state *s = extra;
    if (s->fail || dt != MPI_INT)
        return MPI_ERR_TYPE;
    uint32_t *u = (uint32_t *)userbuf + position, *fb = filebuf;
    for (int i = 0; i < count; i++) {
        if (to_file)
            fb[i] = __builtin_bswap32(u[i]);
        else
            u[i] = __builtin_bswap32(fb[i]);
    }
    s->items += count;
    s->calls++;
    return MPI_SUCCESS;
}

static int swap_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                     void *extra) {
    return swap_conv(userbuf, dt, count, filebuf, position, extra, 0);
}

static int swap_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                      MPI_Offset position, void *extra) {
    return swap_conv(userbuf, dt, count, filebuf, position, extra, 1);
}

/* The _c registration: ints xor-ed with a mask in the file. The checks and the bookkeeping of
 * both directions; the callers convert. */
#define XOR_MASK 0x5a5a5a5au
static int xor_conv(MPI_Datatype dt, MPI_Count count, void *extra) {
    conv_state *s = extra;
    if (s->fail || dt != MPI_INT)
        return MPI_ERR_TYPE;
    s->items += count;
    s->calls++;
    return MPI_SUCCESS;
}

static int xor_read(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                    MPI_Offset position, void *extra) {
    int rc = xor_conv(dt, count, extra);
    uint32_t *u = (uint32_t *)userbuf + position, *fb = filebuf;
    for (MPI_Count i = 0; rc == MPI_SUCCESS && i < count; i++)
        u[i] = fb[i] ^ XOR_MASK;
    return rc;
}

static int xor_write(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                     MPI_Offset position, void *extra) {
    int rc = xor_conv(dt, count, extra);
    uint32_t *u = (uint32_t *)userbuf + position, *fb = filebuf;
    for (MPI_Count i = 0; rc == MPI_SUCCESS && i < count; i++)
        fb[i] = u[i] ^ XOR_MASK;
    return rc;
}

static void test_register(void) {
    MPI_OK(MPI_Register_datarep("credo-swap", swap_read, swap_write, native_extent, &swap_st));
    MPI_OK(MPI_Register_datarep_c("credo-xor", xor_read, xor_write, native_extent, &xor_st));
    MPI_OK(MPI_Register_datarep("credo-null", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                native_extent, NULL));
    MPI_OK(MPI_Register_datarep_c("credo-null-c", MPI_CONVERSION_FN_NULL_C,
                                  MPI_CONVERSION_FN_NULL_C, native_extent, NULL));
    MPI_OK(MPI_Register_datarep("credo-wide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                wide_extent, NULL));
    MPI_OK(MPI_Register_datarep("credo-bad-extent", MPI_CONVERSION_FN_NULL,
                                MPI_CONVERSION_FN_NULL, failing_extent, NULL));
    expect_class(MPI_Register_datarep("credo-swap", swap_read, swap_write, native_extent, NULL),
                 MPI_ERR_DUP_DATAREP, "registering credo-swap twice");
    expect_class(MPI_Register_datarep_c("credo-swap", xor_read, xor_write, native_extent, NULL),
                 MPI_ERR_DUP_DATAREP, "registering credo-swap again with the _c form");
    expect_class(MPI_Register_datarep_c("credo-xor", xor_read, xor_write, native_extent, NULL),
                 MPI_ERR_DUP_DATAREP, "registering credo-xor twice");
    const char *predefined[] = {"native", "internal", "external32"};
    for (int i = 0; i < 3; i++)
        expect_class(MPI_Register_datarep(predefined[i], MPI_CONVERSION_FN_NULL,
                                          MPI_CONVERSION_FN_NULL, native_extent, NULL),
                     MPI_ERR_DUP_DATAREP, predefined[i]);
    expect_class(MPI_Register_datarep(NULL, swap_read, swap_write, native_extent, NULL),
                 MPI_ERR_ARG, "MPI_Register_datarep with a NULL name");
    expect_class(MPI_Register_datarep_c(NULL, xor_read, xor_write, native_extent, NULL),
                 MPI_ERR_ARG, "MPI_Register_datarep_c with a NULL name");
    expect_class(MPI_Register_datarep("", swap_read, swap_write, native_extent, NULL),
                 MPI_ERR_ARG, "MPI_Register_datarep with an empty name");
    expect_class(MPI_Register_datarep("credo-no-extent", swap_read, swap_write, NULL, NULL),
                 MPI_ERR_ARG, "MPI_Register_datarep without an extent function");
    char longname[MPI_MAX_DATAREP_STRING + 8];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    expect_class(MPI_Register_datarep(longname, swap_read, swap_write, native_extent, NULL),
                 MPI_ERR_ARG, "MPI_Register_datarep with a name beyond MPI_MAX_DATAREP_STRING");
    /* The failed registrations registered nothing: the name is still free. */
    MPI_OK(MPI_Register_datarep("credo-no-extent", MPI_CONVERSION_FN_NULL,
                                MPI_CONVERSION_FN_NULL, native_extent, NULL));
    tu_note("MPI_Register_datarep(_c): duplicates, predefined names, NULL/empty/long names");
}

static void view(MPI_File f, const char *rep) {
    MPI_OK(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, rep, MPI_INFO_NULL));
}

static void test_datarep_views(MPI_File f) {
    MPI_Offset off = (MPI_Offset)rank * N;
    int w[N], r[N];
    MPI_Status st;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;

    /* Unsupported and failing representations: set_view fails everywhere, the view stays. */
    expect_class(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "credo-wide", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP, "a view in a representation with wider ints");
    expect_class(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP, "a view in an unregistered representation");
    expect_class(MPI_File_set_view(f, 0, MPI_DOUBLE_INT, MPI_DOUBLE_INT, "external32", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP, "an external32 view of a padded pair");
    expect_class(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "credo-bad-extent", MPI_INFO_NULL),
                 MPI_ERR_CONVERSION, "a view whose extent function fails");
    MPI_OK(MPI_File_get_view(f, &disp, &et, &ft, name));
    CHECK(strcmp(name, "native") == 0, "a failed set_view changed the datarep to %s", name);

    /* credo-null: native data under another name. */
    view(f, "credo-null");
    MPI_OK(MPI_File_get_view(f, &disp, &et, &ft, name));
    CHECK(strcmp(name, "credo-null") == 0, "get_view says datarep %s", name);
    MPI_Count ext = -1;
    MPI_OK(MPI_File_get_type_extent_c(f, MPI_INT, &ext));
    CHECK(ext == 4, "credo-null: file extent of MPI_INT is %lld", (long long)ext);
    fill(w, 20, rank);
    MPI_OK(MPI_File_write_at_c(f, off, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "write under credo-null");
    view(f, "native");
    check_at(f, off, 20, "credo-null write -> native read");
    view(f, "credo-null-c");
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_at(f, off, r, N, MPI_INT, &st));
    expect_block(r, 20, rank, "native data read under credo-null-c");

    /* credo-swap: byte-swapped ints in the file, converted both ways. */
    view(f, "credo-swap");
    MPI_OK(MPI_File_get_type_extent(f, MPI_INT, &(MPI_Aint){0}));
    fill(w, 21, rank);
    swap_st.items = 0;
    MPI_OK(MPI_File_write_at(f, off, w, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "write under credo-swap");
    CHECK(swap_st.items == N, "the write conversion saw %lld items", (long long)swap_st.items);
    for (int i = 0; i < N; i++)
        CHECK(w[i] == val(21, rank, i), "the write conversion changed the user buffer");
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_at_c(f, off, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "read_at_c under credo-swap");
    expect_block(r, 21, rank, "credo-swap round trip");
    CHECK(swap_st.items == 2 * N, "the conversions saw %lld items", (long long)swap_st.items);
    settle(f);
    view(f, "native");
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_at(f, off, r, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        CHECK((uint32_t)r[i] == __builtin_bswap32((uint32_t)val(21, rank, i)),
              "credo-swap: int %d in the file is %#x, not byte-swapped", i, (unsigned)r[i]);
    /* Collective, shared and split forms convert too; a short read converts what it got. */
    view(f, "credo-swap");
    fill(w, 22, rank);
    MPI_OK(MPI_File_seek_shared(f, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_ordered_c(f, w, N, MPI_INT, &st));
    settle(f);
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_at_all_begin_c(f, off, r, N, MPI_INT));
    MPI_OK(MPI_File_read_at_all_end(f, r, &st));
    expect_block(r, 22, rank, "credo-swap ordered write -> split read");
    int tail[2 * N];
    swap_st.items = 0;
    MPI_OK(MPI_File_read_at_c(f, (MPI_Offset)(np - 1) * N + N / 2, tail, 2 * N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N / 2, "short read under credo-swap");
    CHECK(swap_st.items == N / 2, "a short read converted %lld items, not %d",
          (long long)swap_st.items, N / 2);
    for (int i = 0; i < N / 2; i++)
        CHECK(tail[i] == val(22, np - 1, N / 2 + i), "short read: int %d is %d", i, tail[i]);
    /* A failing conversion: MPI_ERR_CONVERSION, through the file's handler. */
    swap_st.fail = 1;
    expect_class(MPI_File_write_at(f, off, w, N, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_CONVERSION,
                 "a write whose conversion fails");
    expect_class(MPI_File_read_at_c(f, off, r, N, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_CONVERSION,
                 "a read whose conversion fails");
    swap_st.fail = 0;
    settle(f);

    /* credo-xor (registered with the _c form): the _c conversion functions are the ones called. */
    view(f, "credo-xor");
    fill(w, 23, rank);
    xor_st.items = 0;
    MPI_OK(MPI_File_write_at_c(f, off, w, N, MPI_INT, &st));
    MPI_OK(MPI_File_seek(f, off, MPI_SEEK_SET));
    memset(r, 0, sizeof r);
    MPI_OK(MPI_File_read_c(f, r, N, MPI_INT, &st));
    expect_count(&st, MPI_INT, N, "read_c under credo-xor");
    expect_block(r, 23, rank, "credo-xor round trip");
    CHECK(xor_st.items == 2 * N, "the _c conversions saw %lld items", (long long)xor_st.items);
    settle(f);
    view(f, "native");
    MPI_OK(MPI_File_read_at(f, off, r, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        CHECK((uint32_t)r[i] == ((uint32_t)val(23, rank, i) ^ XOR_MASK),
              "credo-xor: int %d in the file is %#x", i, (unsigned)r[i]);
    settle(f);
    tu_note("datarep views: null (int and _c), byte swap, xor (_c), unsupported extents, failures");
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/credo-iolc-XXXXXX", t != NULL && t[0] ? t : "/tmp");
        CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    }
    MPI_OK(MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));

    char p[600];
    path_of(p, sizeof p, "data");
    MPI_File f;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &f));
    MPI_OK(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    test_explicit(f);
    test_individual(f);
    test_shared(f);
    test_split(f);
    test_errors(f);
    test_register();
    test_datarep_views(f);
    MPI_OK(MPI_File_close(&f));
    /* The 2 GiB read costs seconds of page faults: one ctest entry runs it (--big). */
    if (argc > 1 && strcmp(argv[1], "--big") == 0)
        test_beyond_int();

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_OK(MPI_File_delete(p, MPI_INFO_NULL));
        CHECK(rmdir(dir) == 0, "the test directory is not empty at the end");
    }
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("io_largecount: OK\n");
    return 0;
}
