/* tests/mpi/rma_sync.c — RMA synchronization and window objects: exclusive locks guard a
 * non-atomic read-modify-write, shared locks, a PSCW ring (Win_wait and Win_test), attributes and
 * keyvals, flavors and model, names, info, group, error classes under MPI_ERRORS_RETURN and a
 * user window error handler. With "fatal": rank 1 puts to a rank outside the window (the default
 * handler must abort the job naming rank 1 and MPI_Put). */
#include <sched.h>

#include "testutil.h"

enum { ITER = 100, RING = 10 };

static int rank, size;

static void excl_lock(int create) {
    long *mem, zero = 0;
    MPI_Win win;
    if (create) {
        mem = tu_xmalloc(2 * sizeof(long));
        MPI_OK(MPI_Win_create(mem, 2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        MPI_OK(MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    }
    mem[0] = mem[1] = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int target = size - 1;
    for (int i = 0; i < ITER; i++) {
        long c;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        MPI_OK(MPI_Get(&c, 1, MPI_LONG, target, 0, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(target, win));
        if (i % 10 == 0)
            sched_yield(); /* let another rank try its luck inside the critical section */
        c++;
        MPI_OK(MPI_Put(&c, 1, MPI_LONG, target, 0, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_unlock(target, win));
    }
    /* shared locks by everybody at once: each reads a value only ever increasing */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    long seen;
    MPI_OK(MPI_Get(&seen, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win));
    MPI_OK(MPI_Accumulate(&zero, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK(seen == 0, "shared read %ld", seen);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == target)
        CHECK(mem[0] == (long)size * ITER, "create %d: counter %ld, expected %d (lost updates)", create,
              mem[0], size * ITER);
    MPI_OK(MPI_Win_free(&win));
    if (create)
        free(mem);
}

static void pscw_ring(void) {
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    *mem = -1;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Group world, lg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &lg);
    MPI_Group_incl(world, 1, &right, &rg);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int it = 0; it < RING; it++) {
        MPI_OK(MPI_Win_post(lg, 0, win));
        MPI_OK(MPI_Win_start(rg, 0, win));
        int v = it * 100 + rank;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_complete(win));
        if (it % 2) {
            MPI_OK(MPI_Win_wait(win));
        } else {
            int flag = 0;
            while (!flag)
                MPI_OK(MPI_Win_test(win, &flag));
        }
        CHECK(*mem == it * 100 + left, "ring %d: %d, expected %d", it, *mem, it * 100 + left);
    }
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&world);
    MPI_OK(MPI_Win_free(&win));
}

static int deletes;
static int count_delete(MPI_Win win, int keyval, void *val, void *extra) {
    (void)win, (void)keyval, (void)extra;
    deletes += *(int *)val;
    return MPI_SUCCESS;
}

static void attributes(void) {
    static const int flavors[] = {MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_CREATE,
                                  MPI_WIN_FLAVOR_DYNAMIC};
    for (int f = 0; f < 4; f++) {
        MPI_Win win;
        double *mem = NULL, buf[3];
        if (flavors[f] == MPI_WIN_FLAVOR_ALLOCATE)
            MPI_OK(MPI_Win_allocate(sizeof buf, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        else if (flavors[f] == MPI_WIN_FLAVOR_SHARED)
            MPI_OK(MPI_Win_allocate_shared(sizeof buf, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        else if (flavors[f] == MPI_WIN_FLAVOR_CREATE)
            MPI_OK(MPI_Win_create(mem = buf, sizeof buf, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        else
            MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        void *base;
        MPI_Aint *sz;
        int *du, *fl, *model, flag;
        MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
        CHECK(flag && base == (void *)mem, "flavor %d: base %p, expected %p", flavors[f], base, (void *)mem);
        MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
        CHECK(flag && *sz == (flavors[f] == MPI_WIN_FLAVOR_DYNAMIC ? 0 : (MPI_Aint)sizeof buf), "size %ld",
              (long)*sz);
        MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
        CHECK(flag && *du == (flavors[f] == MPI_WIN_FLAVOR_DYNAMIC ? 1 : 8), "disp unit %d", *du);
        MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
        CHECK(flag && *fl == flavors[f], "flavor %d, expected %d", *fl, flavors[f]);
        MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
        CHECK(flag && *model == MPI_WIN_UNIFIED, "model %d", *model);
        if (f > 0) {
            MPI_OK(MPI_Win_free(&win));
            continue;
        }
        /* user keyvals: replace and delete run the delete callback, and so does Win_free */
        int k, one = 1, ten = 10, hundred = 100;
        void *got;
        MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &k, NULL));
        MPI_OK(MPI_Win_get_attr(win, k, &got, &flag));
        CHECK(!flag, "unset attribute found");
        MPI_OK(MPI_Win_set_attr(win, k, &one));
        MPI_OK(MPI_Win_set_attr(win, k, &ten));
        CHECK(deletes == 1, "replace: %d deletes", deletes);
        MPI_OK(MPI_Win_get_attr(win, k, &got, &flag));
        CHECK(flag && got == &ten, "attribute value");
        MPI_OK(MPI_Win_delete_attr(win, k));
        CHECK(deletes == 11, "delete: %d", deletes);
        MPI_OK(MPI_Win_set_attr(win, k, &hundred));
        MPI_OK(MPI_Win_free_keyval(&k));
        CHECK(k == MPI_KEYVAL_INVALID, "keyval not reset");
        /* names, info, group */
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_OK(MPI_Win_get_name(win, name, &len));
        CHECK(len == 0 && name[0] == 0, "unnamed window called '%s'", name);
        MPI_OK(MPI_Win_set_name(win, "halo window"));
        MPI_OK(MPI_Win_get_name(win, name, &len));
        CHECK(len == 11 && strcmp(name, "halo window") == 0, "name '%s'", name);
        MPI_Info info, used;
        MPI_Info_create(&info);
        MPI_Info_set(info, "no_locks", "false");
        MPI_OK(MPI_Win_set_info(win, info));
        MPI_OK(MPI_Win_get_info(win, &used));
        char val[16];
        MPI_Info_get(used, "no_locks", sizeof val, val, &flag);
        CHECK(flag && strcmp(val, "false") == 0, "info hint lost");
        MPI_Info_free(&info);
        MPI_Info_free(&used);
        MPI_Group g, wg;
        int cmp;
        MPI_OK(MPI_Win_get_group(win, &g));
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_compare(g, wg, &cmp);
        CHECK(cmp == MPI_IDENT, "window group differs from the communicator's (%d)", cmp);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
        MPI_OK(MPI_Win_free(&win));
        CHECK(deletes == 111, "Win_free: %d deletes", deletes);
    }
}

static int handler_calls, handler_code;
static MPI_Win handler_win;
static void on_error(MPI_Win *win, int *code, ...) {
    handler_calls++;
    handler_code = *code;
    handler_win = *win;
}

static int sum_op_fn_calls;
static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)in, (void)inout, (void)len, (void)dt;
    sum_op_fn_calls++;
}

static void errors(void) {
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Errhandler eh;
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default window handler is not MPI_ERRORS_ARE_FATAL");
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int v = 1;
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(tu_class(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win)) == MPI_ERR_RANK, "bad rank");
    CHECK(tu_class(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE, "past the end");
    CHECK(tu_class(MPI_Get(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE, "before the start");
    CHECK(tu_class(MPI_Put(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, win)) == MPI_ERR_COUNT, "negative count");
    MPI_Op op;
    MPI_Op_create(my_sum, 1, &op);
    CHECK(tu_class(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, op, win)) == MPI_ERR_OP, "user op");
    CHECK(sum_op_fn_calls == 0, "user op ran");
    MPI_Op_free(&op);
    CHECK(tu_class(MPI_Win_shared_query(win, 0, NULL, NULL, NULL)) == MPI_ERR_RMA_FLAVOR, "shared_query");
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(tu_class(MPI_Win_unlock(0, win)) == MPI_ERR_RMA_SYNC, "unlock without lock");
    CHECK(tu_class(MPI_Win_lock(77, 0, 0, win)) == MPI_ERR_LOCKTYPE, "lock type");
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(tu_class(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win)) == MPI_ERR_RMA_SYNC, "lock twice");
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK(tu_class(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC, "complete without start");
    CHECK(tu_class(MPI_Win_flush(0, win)) == MPI_ERR_RMA_SYNC, "flush outside a lock");
    /* dynamic windows: our own unattached memory, and an address no process maps */
    MPI_Win dw;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
    MPI_OK(MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN));
    MPI_Aint a;
    MPI_Get_address(&v, &a);
    MPI_OK(MPI_Win_lock_all(0, dw));
    CHECK(tu_class(MPI_Put(&v, 1, MPI_INT, rank, a, 1, MPI_INT, dw)) == MPI_ERR_RMA_RANGE, "unattached");
    CHECK(tu_class(MPI_Get(&v, 1, MPI_INT, (rank + 1) % size, 64, 1, MPI_INT, dw)) == MPI_ERR_RMA_RANGE,
          "unmapped address");
    MPI_OK(MPI_Win_attach(dw, &v, sizeof v));
    int five = 5;
    MPI_OK(MPI_Put(&five, 1, MPI_INT, rank, a, 1, MPI_INT, dw));
    CHECK(v == 5, "Put into attached memory: %d", v);
    CHECK(tu_class(MPI_Win_detach(dw, &a)) == MPI_ERR_RMA_ATTACH, "detach of unattached memory");
    MPI_OK(MPI_Win_detach(dw, &v));
    MPI_OK(MPI_Win_unlock_all(dw));
    MPI_OK(MPI_Win_free(&dw));
    /* a user handler sees the window and the code */
    MPI_Errhandler mine;
    MPI_OK(MPI_Win_create_errhandler(on_error, &mine));
    MPI_OK(MPI_Win_set_errhandler(win, mine));
    MPI_OK(MPI_Errhandler_free(&mine));
    int rc = MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, win);
    CHECK(tu_class(rc) == MPI_ERR_RANK && handler_calls == 1 && handler_code == rc && handler_win == win,
          "user handler: rc %d calls %d code %d", rc, handler_calls, handler_code);
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        int *mem, v = 0;
        MPI_Win win;
        MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        MPI_Win_fence(0, win);
        if (rank == 1)
            MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
        MPI_Finalize();
        return 0;
    }
    excl_lock(0);
    excl_lock(1);
    tu_note("exclusive and shared locks");
    pscw_ring();
    tu_note("PSCW ring");
    attributes();
    tu_note("attributes, names, info, group");
    errors();
    tu_note("errors");
    MPI_Finalize();
    return 0;
}
