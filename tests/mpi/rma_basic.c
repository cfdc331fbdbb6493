/* tests/mpi/rma_basic.c — one-sided Put/Get in fence epochs on the four window flavors (allocate,
 * allocate_shared with direct loads and stores, create on user memory, dynamic with attach), with
 * contiguous and strided types on either side; zero-size windows; under CREDO_CMA=0 windows on user
 * memory must be refused cleanly. */
#include "testutil.h"

enum { N = 64 };

static int rank, size;

/* The target displacement of element d of rank t's window (dynamic windows: an address). */
static MPI_Aint disp_of(int flavor, const MPI_Aint *addr, int t, int d) {
    return flavor == MPI_WIN_FLAVOR_DYNAMIC ? addr[t] + (MPI_Aint)d * (MPI_Aint)sizeof(int) : d;
}

static void run(int flavor) {
    MPI_Win win;
    int *mem = NULL;
    MPI_Aint addr[64];
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE)
        MPI_OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    else if (flavor == MPI_WIN_FLAVOR_SHARED)
        MPI_OK(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                                       &win));
    else if (flavor == MPI_WIN_FLAVOR_CREATE) {
        mem = tu_xmalloc(N * sizeof(int));
        MPI_OK(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        mem = tu_xmalloc(N * sizeof(int));
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, mem, N * sizeof(int)));
    }
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    int flag, *fl;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && *fl == flavor, "flavor attribute %d, expected %d", flag ? *fl : -1, flavor);

    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        mem[i] = -1;
    int src[N], dst[N];
    for (int i = 0; i < N; i++)
        src[i] = rank * 1000 + i;
    MPI_Datatype every2, every3;
    MPI_Type_vector(8, 1, 2, MPI_INT, &every2);
    MPI_Type_vector(8, 1, 3, MPI_INT, &every3);
    MPI_Type_commit(&every2);
    MPI_Type_commit(&every3);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_OK(MPI_Win_fence(0, win));
    /* elements 0..15 contiguous; src[16], src[18] .. src[30] to elements 20, 23 .. 41 */
    MPI_OK(MPI_Put(src, 16, MPI_INT, right, disp_of(flavor, addr, right, 0), 16, MPI_INT, win));
    MPI_OK(MPI_Put(src + 16, 1, every2, right, disp_of(flavor, addr, right, 20), 1, every3, win));
    MPI_OK(MPI_Put(src, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        int want = -1;
        if (i < 16)
            want = left * 1000 + i;
        else if (i >= 20 && i <= 41 && (i - 20) % 3 == 0)
            want = left * 1000 + 16 + 2 * ((i - 20) / 3);
        CHECK(mem[i] == want, "flavor %d: element %d is %d, expected %d", flavor, i, mem[i], want);
    }
    /* read back what we wrote to the right neighbour, into contiguous and strided buffers */
    for (int i = 0; i < N; i++)
        dst[i] = -7;
    MPI_Request req;
    MPI_OK(MPI_Rget(dst, 16, MPI_INT, right, disp_of(flavor, addr, right, 0), 16, MPI_INT, win, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Get(dst + 32, 1, every2, right, disp_of(flavor, addr, right, 20), 8, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 16; i++)
        CHECK(dst[i] == rank * 1000 + i, "flavor %d: got %d at %d", flavor, dst[i], i);
    for (int k = 0; k < 8; k++) {
        int i = 32 + 2 * k, v = k % 3 == 0 ? rank * 1000 + 16 + 2 * (k / 3) : -1;
        /* target elements 20..27: 20, 23, 26 were written */
        CHECK(dst[i] == v && dst[i + 1] == -7, "flavor %d: strided get %d: %d/%d, expected %d", flavor,
              k, dst[i], dst[i + 1], v);
    }

    if (flavor == MPI_WIN_FLAVOR_SHARED) {
        /* direct stores into the right neighbour's part, seen by it after sync + barrier */
        MPI_Aint qsize;
        int du;
        int *rbase, *base0;
        MPI_OK(MPI_Win_shared_query(win, right, &qsize, &du, &rbase));
        CHECK(qsize == N * (MPI_Aint)sizeof(int) && du == (int)sizeof(int), "shared_query size %ld du %d",
              (long)qsize, du);
        MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &du, &base0));
        CHECK(rbase == base0 + right * N, "parts are not contiguous: %p vs %p", (void *)rbase,
              (void *)(base0 + right * N));
        MPI_OK(MPI_Win_lock_all(0, win));
        rbase[N - 1] = 5000 + rank;
        MPI_OK(MPI_Win_sync(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_sync(win));
        CHECK(mem[N - 1] == 5000 + left, "direct store: %d, expected %d", mem[N - 1], 5000 + left);
        MPI_OK(MPI_Win_unlock_all(win));
    }
    MPI_Type_free(&every2);
    MPI_Type_free(&every3);
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free did not reset the handle");
    if (flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC)
        free(mem);
}

static void zero_size(void) {
    /* only even ranks give memory; PROC_NULL finds rank 0 */
    MPI_Win win;
    double *mem;
    MPI_Aint sz = rank % 2 ? 0 : 3 * sizeof(double);
    MPI_OK(MPI_Win_allocate_shared(sz, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Aint qs;
    int du;
    double *b;
    MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &du, &b));
    CHECK(qs == 3 * (MPI_Aint)sizeof(double) && du == (int)sizeof(double), "PROC_NULL query: %ld %d",
          (long)qs, du);
    MPI_OK(MPI_Win_fence(0, win));
    if (rank % 2 == 0)
        mem[2] = rank + 0.5;
    MPI_OK(MPI_Win_fence(0, win));
    double v = -1;
    MPI_OK(MPI_Get(&v, 1, MPI_DOUBLE, 0, 2, 1, MPI_DOUBLE, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(v == 0.5, "read %g from rank 0", v);
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&v, 0, MPI_DOUBLE, 0, 0, 0, MPI_DOUBLE, win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_free(&win));
}

/* A Put and a Get to the next rank's user memory through a vector of 5000 one-int blocks: more
 * remote pieces than one process_vm_* call takes (1024), so the transfer goes in batches; the gaps
 * between the blocks must stay untouched. */
static void many_blocks(void) {
    enum { M = 5000 };
    int *mem = tu_xmalloc(2 * M * sizeof(int)), *src = tu_xmalloc(M * sizeof(int));
    int *got = tu_xmalloc(M * sizeof(int));
    for (int i = 0; i < M; i++) {
        src[i] = i * 7 + rank + 1;
        mem[2 * i] = mem[2 * i + 1] = -1;
    }
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(M, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, 2 * M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, M, MPI_INT, right, 0, 1, v, win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Get(got, M, MPI_INT, right, 0, 1, v, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < M; i++) {
        CHECK(mem[2 * i] == i * 7 + left + 1 && mem[2 * i + 1] == -1, "block %d: %d, gap %d", i, mem[2 * i],
              mem[2 * i + 1]);
        CHECK(got[i] == src[i], "read back block %d: %d, expected %d", i, got[i], src[i]);
    }
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Type_free(&v));
    free(mem);
    free(src);
    free(got);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *cma = getenv("CREDO_CMA");
    int no_cma = cma != NULL && strcmp(cma, "0") == 0 && size > 1;
    run(MPI_WIN_FLAVOR_ALLOCATE);
    tu_note("allocate");
    run(MPI_WIN_FLAVOR_SHARED);
    tu_note("allocate_shared");
    if (!no_cma) {
        run(MPI_WIN_FLAVOR_CREATE);
        tu_note("create");
        run(MPI_WIN_FLAVOR_DYNAMIC);
        tu_note("create_dynamic");
        many_blocks();
        tu_note("5000 remote blocks in one Put and one Get");
    } else {
        /* without CMA the windows on user memory fail on every rank, and nothing hangs */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int mem[4];
        MPI_Win win = MPI_WIN_NULL;
        int rc = MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        CHECK(tu_class(rc) == MPI_ERR_OTHER && win == MPI_WIN_NULL, "Win_create without CMA: %d", rc);
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        CHECK(tu_class(rc) == MPI_ERR_OTHER, "Win_create_dynamic without CMA: %d", rc);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        tu_note("no CMA: create refused");
    }
    zero_size();
    tu_note("zero-size windows");
    MPI_Finalize();
    return 0;
}
