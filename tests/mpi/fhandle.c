/* tests/mpi/fhandle.c — MPI_*_c2f / MPI_*_f2c for every handle kind and MPI_Status_c2f / _f2c:
 * round trips, null handles, stable integers, wrong-kind and unknown integers, and use of converted handles. */
#include "testutil.h"

#define ROUND_TRIP(Name, h, null_h)                                                                \
    do {                                                                                           \
        MPI_Fint f_ = MPI_##Name##_c2f(h);                                                         \
        CHECK(f_ > 0, #Name "_c2f gave %d for a live handle", (int)f_);                            \
        CHECK(MPI_##Name##_c2f(h) == f_, #Name "_c2f is not stable");                              \
        CHECK(MPI_##Name##_f2c(f_) == (h), #Name "_f2c(c2f(h)) is not h");                         \
        CHECK(MPI_##Name##_c2f(null_h) == 0, #Name "_c2f of the null handle is not 0");            \
        CHECK(MPI_##Name##_f2c(0) == (null_h), #Name "_f2c(0) is not the null handle");            \
        CHECK(MPI_##Name##_f2c(2000000000) == (null_h), #Name "_f2c of an unknown integer");       \
        CHECK(MPI_##Name##_f2c(-5) == (null_h), #Name "_f2c of a negative integer");               \
    } while (0)

static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    /* Info handles convert before MPI_Init too (MPI 4.0 lets Info calls run then) */
    MPI_Info early;
    MPI_OK(MPI_Info_create(&early));
    ROUND_TRIP(Info, early, MPI_INFO_NULL);

    MPI_OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* communicators: a converted duplicate carries a collective */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ROUND_TRIP(Comm, MPI_COMM_WORLD, MPI_COMM_NULL);
    ROUND_TRIP(Comm, dup, MPI_COMM_NULL);
    CHECK(MPI_Comm_c2f(dup) != MPI_Comm_c2f(MPI_COMM_WORLD), "two communicators share an integer");
    int one = 1, total = 0;
    MPI_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_Comm_f2c(MPI_Comm_c2f(dup))));
    CHECK(total == size, "allreduce on a converted communicator gave %d", total);

    /* a wrong kind does not convert */
    MPI_Fint fint = MPI_Type_c2f(MPI_INT);
    CHECK(MPI_Comm_f2c(fint) == MPI_COMM_NULL, "a datatype's integer converted to a communicator");
    CHECK(MPI_Op_f2c(MPI_Comm_c2f(dup)) == MPI_OP_NULL, "a communicator's integer converted to an op");

    ROUND_TRIP(Type, MPI_INT, MPI_DATATYPE_NULL);
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    ROUND_TRIP(Type, vec, MPI_DATATYPE_NULL);
    int sz = 0;
    MPI_OK(MPI_Type_size(MPI_Type_f2c(MPI_Type_c2f(vec)), &sz));
    CHECK(sz == 2 * (int)sizeof(int), "size of a converted vector type %d", sz);

    MPI_Group g;
    MPI_OK(MPI_Comm_group(dup, &g));
    ROUND_TRIP(Group, g, MPI_GROUP_NULL);
    int gs = 0;
    MPI_OK(MPI_Group_size(MPI_Group_f2c(MPI_Group_c2f(g)), &gs));
    CHECK(gs == size, "group size %d", gs);

    MPI_Op op;
    MPI_OK(MPI_Op_create(sum_ints, 1, &op));
    ROUND_TRIP(Op, MPI_SUM, MPI_OP_NULL);
    ROUND_TRIP(Op, op, MPI_OP_NULL);
    total = 0;
    MPI_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_Op_f2c(MPI_Op_c2f(op)), dup));
    CHECK(total == size, "allreduce with a converted user op gave %d", total);

    ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN, MPI_ERRHANDLER_NULL);
    MPI_OK(MPI_Comm_set_errhandler(dup, MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN))));

    MPI_OK(MPI_Info_set(MPI_Info_f2c(MPI_Info_c2f(early)), "key", "value"));
    char val[16];
    int flag = 0;
    MPI_OK(MPI_Info_get(early, "key", (int)sizeof val - 1, val, &flag));
    CHECK(flag && strcmp(val, "value") == 0, "info set through a converted handle not found");

    /* requests, matched messages and statuses on a ring */
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int out[3] = {rank, 7, 9}, in[3] = {-1, -1, -1};
    MPI_Request sreq;
    MPI_OK(MPI_Isend(out, 3, MPI_INT, to, 11, dup, &sreq));
    ROUND_TRIP(Request, sreq, MPI_REQUEST_NULL);
    MPI_Message msg;
    MPI_Status st;
    MPI_OK(MPI_Mprobe(from, 11, dup, &msg, &st));
    ROUND_TRIP(Message, msg, MPI_MESSAGE_NULL);
    MPI_Message msg2 = MPI_Message_f2c(MPI_Message_c2f(msg));
    MPI_OK(MPI_Mrecv(in, 3, MPI_INT, &msg2, &st));
    CHECK(in[0] == from && in[1] == 7 && in[2] == 9, "ring data %d %d %d", in[0], in[1], in[2]);
    MPI_Request sreq2 = MPI_Request_f2c(MPI_Request_c2f(sreq));
    MPI_OK(MPI_Wait(&sreq2, MPI_STATUS_IGNORE));
    CHECK(sreq2 == MPI_REQUEST_NULL, "wait on a converted request did not free it");

    MPI_Fint fst[MPI_F_STATUS_SIZE > 0 ? MPI_F_STATUS_SIZE : 1];
    CHECK(MPI_F_STATUS_SIZE * (int)sizeof(MPI_Fint) >= (int)sizeof(MPI_Status), "MPI_F_STATUS_SIZE too small");
    MPI_OK(MPI_Status_c2f(&st, fst));
    CHECK(fst[MPI_F_SOURCE] == from && fst[MPI_F_TAG] == 11 && fst[MPI_F_ERROR] == st.MPI_ERROR,
          "Fortran status fields %d %d %d", (int)fst[MPI_F_SOURCE], (int)fst[MPI_F_TAG], (int)fst[MPI_F_ERROR]);
    MPI_Status back;
    memset(&back, 0xff, sizeof back);
    MPI_OK(MPI_Status_f2c(fst, &back));
    int count = -1;
    MPI_OK(MPI_Get_count(&back, MPI_INT, &count));
    CHECK(back.MPI_SOURCE == from && back.MPI_TAG == 11 && count == 3, "status round trip: %d %d count %d",
          back.MPI_SOURCE, back.MPI_TAG, count);
    CHECK(MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE && MPI_F_STATUS_IGNORE != NULL, "ignore constants");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Status_c2f(MPI_STATUS_IGNORE, fst);
    int cls = -1;
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "Status_c2f(MPI_STATUS_IGNORE): class %d", cls);
    rc = MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "Status_f2c(MPI_F_STATUS_IGNORE): class %d", cls);

    /* windows, files (only the null handle here: a file needs a file system) and sessions */
    int winbuf = 0;
    MPI_Win win;
    MPI_OK(MPI_Win_create(&winbuf, sizeof winbuf, sizeof winbuf, MPI_INFO_NULL, dup, &win));
    ROUND_TRIP(Win, win, MPI_WIN_NULL);
    MPI_OK(MPI_Win_fence(0, MPI_Win_f2c(MPI_Win_c2f(win))));
    MPI_OK(MPI_Win_free(&win));
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "file null handle");
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    ROUND_TRIP(Session, s, MPI_SESSION_NULL);
    int npsets = 0;
    MPI_OK(MPI_Session_get_num_psets(MPI_Session_f2c(MPI_Session_c2f(s)), MPI_INFO_NULL, &npsets));
    CHECK(npsets >= 2, "a converted session lists %d process sets", npsets);
    MPI_OK(MPI_Session_finalize(&s));

    MPI_OK(MPI_Op_free(&op));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Info_free(&early));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("fhandle: %d ranks ok\n", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
