/* tests/mpi/commtypes.c — communicators and datatypes: Comm_split (color, key, ties, UNDEFINED), Comm_dup,
 * Comm_get_parent, Pcontrol, derived types (contiguous, vector, resized: sizes, extents, strides). np >= 2 */
#include "testutil.h"

static int rank, size;

/* Checks a split by having every member send its world rank to the new rank 0 over the new
 * communicator (so point-to-point on a split communicator is exercised too). */
static void check_split(MPI_Comm comm, int color, int key_desc, const char *what) {
    int crank, csize;
    MPI_OK(MPI_Comm_rank(comm, &crank));
    MPI_OK(MPI_Comm_size(comm, &csize));
    /* Expected members: world ranks with the same color, ordered by key then world rank. */
    int members = 0, expect_rank = 0;
    for (int r = 0; r < size; r++) {
        if (r % 2 != color)
            continue;
        members++;
        if (key_desc ? r > rank : r < rank)
            expect_rank++;
    }
    CHECK(csize == members && crank == expect_rank, "%s: rank %d of %d, expected %d of %d", what,
          crank, csize, expect_rank, members);
    if (crank == 0) {
        for (int i = 1; i < csize; i++) {
            int w;
            MPI_Status st;
            MPI_OK(MPI_Recv(&w, 1, MPI_INT, i, 0, comm, &st));
            CHECK(st.MPI_SOURCE == i, "%s: status source %d, expected %d", what, st.MPI_SOURCE,
                  i);
            /* Rank i in the new communicator is the i-th member in key order. */
            int seen = 0, want = -1;
            for (int k = 0; k < size; k++) {
                int r = key_desc ? size - 1 - k : k;
                if (r % 2 == color && seen++ == i)
                    want = r;
            }
            CHECK(w == want, "%s: new rank %d is world rank %d, expected %d", what, i, w, want);
        }
    } else {
        MPI_OK(MPI_Send(&rank, 1, MPI_INT, 0, 0, comm));
    }
}

static void test_split_dup(void) {
    MPI_Comm c;
    int color = rank % 2;
    /* Key = -rank reverses the order inside each color. */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &c));
    check_split(c, color, 1, "split by parity, key -rank");
    MPI_OK(MPI_Comm_free(&c));
    /* Equal keys: ties broken by the rank in the parent. */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, 0, &c));
    check_split(c, color, 0, "split by parity, equal keys");
    /* A dup of a split communicator keeps size and ranks and is congruent. */
    MPI_Comm d;
    int cmp, r1, r2;
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Comm_compare(c, d, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "Comm_compare(split, dup) = %d, expected MPI_CONGRUENT", cmp);
    MPI_OK(MPI_Comm_rank(c, &r1));
    MPI_OK(MPI_Comm_rank(d, &r2));
    CHECK(r1 == r2, "dup changed the rank: %d vs %d", r1, r2);
    check_split(d, color, 0, "dup of split");
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));
    /* MPI_UNDEFINED: the last rank takes no part and gets MPI_COMM_NULL. */
    int last = rank == size - 1;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, last ? MPI_UNDEFINED : 0, rank, &c));
    if (last) {
        CHECK(c == MPI_COMM_NULL, "split with MPI_UNDEFINED did not return MPI_COMM_NULL");
    } else {
        int cs;
        MPI_OK(MPI_Comm_size(c, &cs));
        CHECK(cs == size - 1, "split without the last rank has size %d", cs);
        MPI_OK(MPI_Barrier(c));
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_IDENT, "Comm_compare(WORLD, WORLD) = %d", cmp);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Comm_split: color/key order, ties by parent rank, MPI_UNDEFINED; Comm_dup congruent");
}

/* Type_contiguous: 2 x (5 ints) received as 10 ints and the other way round. */
static void test_contiguous(void) {
    MPI_Datatype five;
    MPI_OK(MPI_Type_contiguous(5, MPI_INT, &five));
    MPI_OK(MPI_Type_commit(&five));
    int tsize;
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_size(five, &tsize));
    MPI_OK(MPI_Type_get_extent(five, &lb, &extent));
    CHECK(tsize == 20 && lb == 0 && extent == 20, "contiguous(5, int): size %d lb %ld extent %ld",
          tsize, (long)lb, (long)extent);
    if (rank == 1) {
        int v[10];
        for (int i = 0; i < 10; i++)
            v[i] = 100 + i;
        MPI_OK(MPI_Send(v, 2, five, 0, 1, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(v, 10, MPI_INT, 0, 2, MPI_COMM_WORLD));
    } else if (rank == 0) {
        int v[10] = {0}, w[10] = {0};
        MPI_OK(MPI_Recv(v, 10, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(w, 2, five, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 10; i++)
            CHECK(v[i] == 100 + i && w[i] == 100 + i, "contiguous: element %d is %d / %d", i,
                  v[i], w[i]);
    }
    MPI_OK(MPI_Type_free(&five));
}

/* Type_vector: a column block of a row-major matrix, sent strided and received both packed and
 * strided; the gaps of the strided receive must keep their old values. `count` x `blen` doubles
 * with `stride`; large counts push the message into rendezvous. */
static void vector_case(int count, int blen, int stride, int tag) {
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(count, blen, stride, MPI_DOUBLE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int tsize;
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_size(vec, &tsize));
    MPI_OK(MPI_Type_get_extent(vec, &lb, &extent));
    MPI_Aint want_extent = (MPI_Aint)((count - 1) * stride + blen) * (MPI_Aint)sizeof(double);
    CHECK(tsize == count * blen * (int)sizeof(double) && lb == 0 && extent == want_extent,
          "vector(%d,%d,%d): size %d lb %ld extent %ld (want %ld)", count, blen, stride, tsize,
          (long)lb, (long)extent, (long)want_extent);
    size_t span = (size_t)count * (size_t)stride, packed = (size_t)count * (size_t)blen;
    double *m = tu_xmalloc(span * sizeof *m);
    if (rank == 1) {
        for (size_t i = 0; i < span; i++)
            m[i] = (double)i + 0.5;
        MPI_OK(MPI_Send(m, 1, vec, 0, tag, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(m, 1, vec, 0, tag + 1, MPI_COMM_WORLD));
    } else if (rank == 0) {
        double *p = tu_xmalloc(packed * sizeof *p);
        MPI_Status st;
        int n;
        MPI_OK(MPI_Recv(p, (int)packed, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
        CHECK((size_t)n == packed, "vector as doubles: count %d, expected %zu", n, packed);
        for (int b = 0; b < count; b++)
            for (int j = 0; j < blen; j++) {
                double want = (double)(b * stride + j) + 0.5;
                CHECK(p[b * blen + j] == want, "vector packed: block %d elem %d is %g, want %g",
                      b, j, p[b * blen + j], want);
            }
        for (size_t i = 0; i < span; i++)
            m[i] = -1.0;
        MPI_OK(MPI_Recv(m, 1, vec, 1, tag + 1, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, vec, &n));
        CHECK(n == 1, "vector received as vector: count %d", n);
        for (size_t i = 0; i < span; i++) {
            int in_block = (int)(i % (size_t)stride) < blen;
            double want = in_block ? (double)i + 0.5 : -1.0;
            CHECK(m[i] == want, "vector strided receive: element %zu is %g, want %g (%s)", i,
                  m[i], want, in_block ? "data" : "gap must be untouched");
        }
        free(p);
    }
    free(m);
    MPI_OK(MPI_Type_free(&vec));
}

/* A resized type changes the extent: 2 elements of "int with extent 12" pick ints 0 and 3. */
static void test_resized(void) {
    MPI_Datatype r;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 3 * (MPI_Aint)sizeof(int), &r));
    MPI_OK(MPI_Type_commit(&r));
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_get_extent(r, &lb, &extent));
    CHECK(lb == 0 && extent == 12, "resized: lb %ld extent %ld", (long)lb, (long)extent);
    if (rank == 1) {
        int v[6] = {10, 11, 12, 13, 14, 15};
        MPI_OK(MPI_Send(v, 2, r, 0, 30, MPI_COMM_WORLD));
    } else if (rank == 0) {
        int v[2] = {0, 0};
        MPI_OK(MPI_Recv(v, 2, MPI_INT, 1, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v[0] == 10 && v[1] == 13, "resized send: got %d %d, want 10 13", v[0], v[1]);
    }
    MPI_OK(MPI_Type_free(&r));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "commtypes needs at least 2 ranks");
    test_split_dup();
    MPI_Comm parent = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent: a process credorun started has no parent");
    MPI_OK(MPI_Pcontrol(1));
    test_contiguous();
    tu_note("Type_contiguous: size, extent, 2 x 5 ints <-> 10 ints");
    vector_case(8, 3, 5, 10);
    vector_case(4096, 2, 7, 20); /* 64 KiB of payload: rendezvous in every MPI here */
    vector_case(3, 1, 1, 40);    /* stride == blocklength: contiguous in disguise */
    tu_note("Type_vector: extent, strided send, packed and strided receive, gaps untouched");
    test_resized();
    tu_note("Type_create_resized: extent 12 selects every third int");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("commtypes: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
