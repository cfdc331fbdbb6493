/* src/mpi/largecount.c — the MPI 4.0 large-count (_c) forms of point-to-point, status, pack,
 * datatype and local-reduction calls, and the count conversion the other largecount files share. */
#include <stdlib.h>
#include <string.h>

#include "mpi/dt_build.h"
#include "mpi/largecount.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"

/* ---- shared conversion (largecount.h) ---- */

int lc_contiguous(const char *fn, MPI_Count count, MPI_Datatype old, MPI_Datatype *newtype)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!dt_live(old))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    if (count <= INT_MAX)
        return PMPI_Type_contiguous((int)count, old, newtype);
    /* Beyond int the count is recorded as a large count (MPI_Type_get_contents_c). The builder
     * counts in int64 and merges the copies of a contiguous old type into one block; others would
     * need a block per copy, which dt_builder_plan refuses as MPI_ERR_COUNT. */
    dt_contents *c = dt_contents_new(MPI_COMBINER_CONTIGUOUS, 0, 0, 1);
    if (c != NULL) {
        c->types[0] = old;
        if ((c->larges = malloc(sizeof *c->larges)) != NULL) {
            c->nl = 1;
            c->larges[0] = count;
        } else {
            c->nd = 0; /* not retained yet */
            dt_contents_free(c);
            c = NULL;
        }
    }
    dt_builder b;
    dt_builder_init(&b);
    dt_builder_plan(&b, dt_add_cost(old, count));
    if (!b.failed)
        dt_builder_add(&b, old, 0, count);
    return dt_new_type(fn, &b, c, newtype);
}

int lc_arg_of(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype dt, lc_arg *a)
{
    a->n = (int)count;
    a->dt = dt;
    a->tmp = NULL;
    if (likely(count >= 0 && count <= INT_MAX))
        return MPI_SUCCESS;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!dt_ok(dt))
        return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (!(dt->flags & DT_F_DENSE))
        return mpi_error(comm, MPI_ERR_COUNT, fn,
                         "count %lld exceeds INT_MAX and the datatype is not contiguous "
                         "(credo takes counts beyond INT_MAX of contiguous datatypes only)",
                         (long long)count);
    /* A contiguous type of a contiguous type is one block: only memory can fail here, and is
     * reported by the constructor (as this call's, through the world's handler). */
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = lc_contiguous(fn, count, dt, &t);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&t)) != MPI_SUCCESS)
        PMPI_Type_free(&t);
    if (rc != MPI_SUCCESS)
        return rc;
    a->n = 1;
    a->dt = a->tmp = t;
    return MPI_SUCCESS;
}

void lc_arg_done(lc_arg *a)
{
    if (a->tmp != NULL)
        PMPI_Type_free(&a->tmp);
}

int lc_counts_to_int(const char *fn, MPI_Comm comm, const char *what, int n,
                     const MPI_Count *src, int *out)
{
    if (src == NULL)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (src[i] < 0 && what[0] == 'c')
            return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %lld for rank %d",
                             (long long)src[i], i);
        if (!lc_fits_int(src[i]))
            return mpi_error(comm, MPI_ERR_COUNT, fn,
                             "%s %lld for rank %d is beyond int (credo's v/w collectives take "
                             "int-sized counts and displacements)", what, (long long)src[i], i);
        out[i] = (int)src[i];
    }
    return MPI_SUCCESS;
}

int lc_aints_to_int(const char *fn, MPI_Comm comm, int n, const MPI_Aint *src, int *out)
{
    if (src == NULL)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!lc_fits_int(src[i]))
            return mpi_error(comm, MPI_ERR_COUNT, fn,
                             "displacement %lld for rank %d is beyond int (credo's v/w "
                             "collectives take int-sized counts and displacements)",
                             (long long)src[i], i);
        out[i] = (int)src[i];
    }
    return MPI_SUCCESS;
}

/* ---- point to point ---- */

/* Every send and receive form: the count converted, the int binding called, the type freed. */
#define LC_CALL(fn, comm, count, dt, call)                                                         \
    do {                                                                                           \
        lc_arg a_;                                                                                 \
        int rc_ = lc_arg_of(fn, comm, count, dt, &a_);                                             \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        rc_ = call;                                                                                \
        lc_arg_done(&a_);                                                                          \
        return rc_;                                                                                \
    } while (0)
#define N_ a_.n
#define T_ a_.dt

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    MPI_ENTER();
    LC_CALL("MPI_Send_c", comm, count, datatype, PMPI_Send(buf, N_, T_, dest, tag, comm));
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    MPI_ENTER();
    LC_CALL("MPI_Bsend_c", comm, count, datatype, PMPI_Bsend(buf, N_, T_, dest, tag, comm));
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    MPI_ENTER();
    LC_CALL("MPI_Ssend_c", comm, count, datatype, PMPI_Ssend(buf, N_, T_, dest, tag, comm));
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    MPI_ENTER();
    LC_CALL("MPI_Rsend_c", comm, count, datatype, PMPI_Rsend(buf, N_, T_, dest, tag, comm));
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Status *status)
{
    MPI_ENTER();
    LC_CALL("MPI_Recv_c", comm, count, datatype,
            PMPI_Recv(buf, N_, T_, source, tag, comm, status));
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Isend_c", comm, count, datatype,
            PMPI_Isend(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Ibsend_c", comm, count, datatype,
            PMPI_Ibsend(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Issend_c", comm, count, datatype,
            PMPI_Issend(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Irsend_c", comm, count, datatype,
            PMPI_Irsend(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Irecv_c", comm, count, datatype,
            PMPI_Irecv(buf, N_, T_, source, tag, comm, request));
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_ENTER();
    LC_CALL("MPI_Sendrecv_replace_c", comm, count, datatype,
            PMPI_Sendrecv_replace(buf, N_, T_, dest, sendtag, source, recvtag, comm, status));
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Isendrecv_replace_c", comm, count, datatype,
            PMPI_Isendrecv_replace(buf, N_, T_, dest, sendtag, source, recvtag, comm, request));
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Send_init_c", comm, count, datatype,
            PMPI_Send_init(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Bsend_init_c", comm, count, datatype,
            PMPI_Bsend_init(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Ssend_init_c", comm, count, datatype,
            PMPI_Ssend_init(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Rsend_init_c", comm, count, datatype,
            PMPI_Rsend_init(buf, N_, T_, dest, tag, comm, request));
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Recv_init_c", comm, count, datatype,
            PMPI_Recv_init(buf, N_, T_, source, tag, comm, request));
}

/* The message's communicator, for reporting a bad count through its handler. */
static MPI_Comm message_comm(const MPI_Message *message)
{
    return message != NULL && msg_live(*message)
               ? (*message)->comm
               : NULL;
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Status *status)
{
    MPI_ENTER();
    LC_CALL("MPI_Mrecv_c", message_comm(message), count, datatype,
            PMPI_Mrecv(buf, N_, T_, message, status));
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Request *request)
{
    MPI_ENTER();
    LC_CALL("MPI_Imrecv_c", message_comm(message), count, datatype,
            PMPI_Imrecv(buf, N_, T_, message, request));
}

/* Two counts: both converted before either side starts. */
int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Sendrecv_c";
    lc_arg s, r;
    int rc = lc_arg_of(fn, comm, sendcount, sendtype, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = lc_arg_of(fn, comm, recvcount, recvtype, &r)) == MPI_SUCCESS) {
        rc = PMPI_Sendrecv(sendbuf, s.n, s.dt, dest, sendtag, recvbuf, r.n, r.dt, source, recvtag,
                           comm, status);
        lc_arg_done(&r);
    }
    lc_arg_done(&s);
    return rc;
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Isendrecv_c";
    lc_arg s, r;
    int rc = lc_arg_of(fn, comm, sendcount, sendtype, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = lc_arg_of(fn, comm, recvcount, recvtype, &r)) == MPI_SUCCESS) {
        rc = PMPI_Isendrecv(sendbuf, s.n, s.dt, dest, sendtag, recvbuf, r.n, r.dt, source,
                            recvtag, comm, request);
        lc_arg_done(&r);
    }
    lc_arg_done(&s);
    return rc;
}

/* ---- the attached buffer: bsend.c keeps an int size, so larger buffers are refused ---- */

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    MPI_ENTER();
    if (size > INT_MAX)
        return mpi_error(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach_c",
                         "buffer of %lld bytes: credo attaches at most INT_MAX bytes",
                         (long long)size);
    if (size < 0)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Buffer_attach_c", "negative size %lld",
                         (long long)size);
    return PMPI_Buffer_attach(buffer, (int)size);
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    MPI_ENTER();
    if (size == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Buffer_detach_c", "size is NULL");
    int n = 0;
    int rc = PMPI_Buffer_detach(buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n;
    return rc;
}

/* ---- statuses: they hold byte counts, so every count up to LLONG_MAX comes back whole ---- */

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Get_count_c";
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (status == NULL || count == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "%s is NULL", status == NULL ? "status" : "count");
    long long bytes = status->credo_count_bytes, size = (long long)datatype->size;
    if (size == 0)
        *count = 0;
    else
        *count = bytes % size != 0 ? MPI_UNDEFINED : bytes / size;
    return MPI_SUCCESS;
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_ENTER();
    return PMPI_Get_elements_x(status, datatype, count);
}

int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPI_ENTER();
    return PMPI_Status_set_elements_x(status, datatype, count);
}

/* ---- pack and unpack: the packed format is the flattened bytes, so counts are size_t here ---- */

/* What Pack_c and Unpack_c check alike; *bytes is count elements' packed size. */
static int pack_check(const char *fn, const void *ubuf, MPI_Count count, MPI_Datatype dt,
                      const void *pbuf, MPI_Count psize, const MPI_Count *position, MPI_Comm comm,
                      size_t *bytes)
{
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (count < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    /* the buffer checks see at most INT_MAX elements: they only ask whether there are any */
    if ((rc = mpi_check_buf(comm, fn, ubuf, count > INT_MAX ? INT_MAX : (int)count, dt)) !=
        MPI_SUCCESS)
        return rc;
    if (position == NULL || *position < 0 || psize < 0 || (pbuf == NULL && psize > 0))
        return mpi_error(comm, MPI_ERR_ARG, fn, "invalid packed buffer or position");
    if (__builtin_mul_overflow((size_t)count, dt->size, bytes) || *position > psize ||
        *bytes > (size_t)(psize - *position))
        return mpi_error(comm, MPI_ERR_TRUNCATE, fn,
                         "%lld elements of %zu bytes do not fit at position %lld of %lld",
                         (long long)count, dt->size, (long long)*position, (long long)psize);
    return MPI_SUCCESS;
}

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    MPI_ENTER();
    size_t n = 0; /* set by pack_check on success; -O3 cannot see that once it inlines it */
    int rc = pack_check("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm,
                        &n);
    if (rc != MPI_SUCCESS)
        return rc;
    dt_pack(inbuf, (size_t)incount, datatype, BUF_AT(outbuf, *position));
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_ENTER();
    size_t n = 0; /* as in MPI_Pack_c */
    int rc = pack_check("MPI_Unpack_c", outbuf, outcount, datatype, inbuf, insize, position, comm,
                        &n);
    if (rc != MPI_SUCCESS)
        return rc;
    dt_unpack(BUF_AT(inbuf, *position), n, (size_t)outcount, datatype, outbuf);
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack_size_c";
    long long n = 0;
    int rc = mpi_pack_size_bytes(fn, incount, datatype, comm, size, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "%lld elements overflow MPI_Count",
                         (long long)incount);
    *size = n;
    return MPI_SUCCESS;
}

/* external32: positions and sizes are MPI_Aint in the int forms already, only the count is int. */

int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                        MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                        MPI_Count *position)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack_external_c";
    if (position == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "position is NULL");
    lc_arg a;
    int rc = lc_arg_of(fn, NULL, incount, datatype, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint pos = (MPI_Aint)*position;
    rc = PMPI_Pack_external(datarep, inbuf, a.n, a.dt, outbuf, (MPI_Aint)outsize, &pos);
    lc_arg_done(&a);
    *position = pos;
    return rc;
}

int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount,
                          MPI_Datatype datatype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Unpack_external_c";
    if (position == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "position is NULL");
    lc_arg a;
    int rc = lc_arg_of(fn, NULL, outcount, datatype, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint pos = (MPI_Aint)*position;
    rc = PMPI_Unpack_external(datarep, inbuf, (MPI_Aint)insize, &pos, outbuf, a.n, a.dt);
    lc_arg_done(&a);
    *position = pos;
    return rc;
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                             MPI_Count *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack_external_size_c";
    if (size == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "size is NULL");
    lc_arg a;
    int rc = lc_arg_of(fn, NULL, incount, datatype, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint n = 0;
    rc = PMPI_Pack_external_size(datarep, a.n, a.dt, &n);
    lc_arg_done(&a);
    if (rc == MPI_SUCCESS)
        *size = n;
    return rc;
}

/* ---- datatype constructors ----
 * All values within int: the int constructor, which records them as integers (so the int
 * introspection calls keep working). Beyond int: contiguous, vector, hvector, the indexed forms
 * and struct are built here with their values recorded as large counts; subarray and darray
 * refuse (MPI_ERR_COUNT). */

static int too_large(const char *fn, const char *what, MPI_Count v)
{
    return mpi_error(NULL, MPI_ERR_COUNT, fn,
                     "%s %lld is beyond int: credo takes larger values only in the contiguous, "
                     "vector, indexed and struct constructors", what, (long long)v);
}

/* Copies n MPI_Count values into ints (NULL when out of memory), or reports one beyond int. */
static int to_ints(const char *fn, const char *what, MPI_Count n, const MPI_Count *src, int **out)
{
    *out = NULL;
    if (n <= 0 || src == NULL)
        return MPI_SUCCESS;
    for (MPI_Count i = 0; i < n; i++)
        if (!lc_fits_int(src[i]))
            return too_large(fn, what, src[i]);
    if ((*out = malloc((size_t)n * sizeof **out)) == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (MPI_Count i = 0; i < n; i++)
        (*out)[i] = (int)src[i];
    return MPI_SUCCESS;
}

static int to_aints(const char *fn, MPI_Count n, const MPI_Count *src, MPI_Aint **out)
{
    *out = NULL;
    if (n <= 0 || src == NULL)
        return MPI_SUCCESS;
    if ((*out = malloc((size_t)n * sizeof **out)) == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (MPI_Count i = 0; i < n; i++)
        (*out)[i] = (MPI_Aint)src[i];
    return MPI_SUCCESS;
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    return lc_contiguous("MPI_Type_contiguous_c", count, oldtype, newtype);
}

/* vector (stride in elements of old) and hvector (in bytes) with a value beyond int: count blocks
 * of blocklength copies of old, recorded as three large counts. */
static int vector_large(const char *fn, int combiner, MPI_Count count, MPI_Count bl,
                        MPI_Count stride, MPI_Datatype old, MPI_Datatype *newtype)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0 || bl < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count or blocklength");
    if (!dt_live(old))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    dt_contents *c = dt_contents_new(combiner, 0, 0, 1);
    if (c != NULL) {
        c->types[0] = old;
        if ((c->larges = malloc(3 * sizeof *c->larges)) != NULL) {
            c->nl = 3;
            c->larges[0] = count;
            c->larges[1] = bl;
            c->larges[2] = stride;
        } else {
            c->nd = 0;
            dt_contents_free(c);
            c = NULL;
        }
    }
    dt_builder b;
    dt_builder_init(&b);
    MPI_Aint bstride = (MPI_Aint)stride, packed;
    if (combiner == MPI_COMBINER_VECTOR && !dt_aint_mul(old->extent, stride, &bstride))
        b.failed = BF_OVERFLOW;
    if (!b.failed && count > 0 && bl > 0) {
        if (dt_aint_mul(old->extent, bl, &packed) && packed == bstride) {
            /* the blocks abut: one run of count * bl copies */
            int64_t reps;
            if (__builtin_mul_overflow((int64_t)count, (int64_t)bl, &reps))
                b.failed = BF_OVERFLOW;
            else {
                dt_builder_plan(&b, dt_add_cost(old, reps));
                if (!b.failed)
                    dt_builder_add(&b, old, 0, reps);
            }
        } else {
            int64_t cost;
            if (__builtin_mul_overflow(dt_add_cost(old, bl), (int64_t)count, &cost))
                cost = INT64_MAX;
            dt_builder_plan(&b, cost);
            for (MPI_Count i = 0; i < count && !b.failed; i++) {
                MPI_Aint d;
                if (!dt_aint_mul(bstride, i, &d))
                    b.failed = BF_OVERFLOW;
                else
                    dt_builder_add(&b, old, d, bl);
            }
        }
    }
    if (b.basic == -1) { /* no element: the old type's basic type, as the int constructors do */
        b.basic = old->basic;
        b.elem_size = old->elem_size;
    }
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_vector_c";
    if (lc_fits_int(count) && lc_fits_int(blocklength) && lc_fits_int(stride))
        return PMPI_Type_vector((int)count, (int)blocklength, (int)stride, oldtype, newtype);
    return vector_large(fn, MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hvector_c";
    if (lc_fits_int(count) && lc_fits_int(blocklength))
        return PMPI_Type_create_hvector((int)count, (int)blocklength, (MPI_Aint)stride, oldtype,
                                        newtype);
    return vector_large(fn, MPI_COMBINER_HVECTOR, count, blocklength, stride, oldtype, newtype);
}

/* The array constructors. All values within int: the int constructor (which records ints). Any
 * value beyond int: the blocks are appended here with 64-bit lengths and the arguments recorded as
 * large counts in MPI 4.0's order for the _c constructors: count, the blocklength(s), then the
 * displacements (2 count + 1 values, count + 2 for the _block forms), the type(s) as datatypes. */
typedef struct lc_blocks {
    int combiner;
    MPI_Count count;
    const MPI_Count *bl;         /* per block; NULL for the _block forms: bl1 for every block */
    MPI_Count bl1;
    const MPI_Count *disp;
    int disp_elems;              /* indexed, indexed_block: displacements in old's extent */
    MPI_Datatype old;            /* the old type; NULL for struct, which has types[i] */
    const MPI_Datatype *types;
} lc_blocks;

static int all_fit(MPI_Count n, const MPI_Count *v)
{
    for (MPI_Count i = 0; v != NULL && i < n; i++)
        if (!lc_fits_int(v[i]))
            return 0;
    return 1;
}

/* Block i's type and length. */
static inline MPI_Datatype blk_type(const lc_blocks *a, MPI_Count i) { return a->old ? a->old : a->types[i]; }
static inline MPI_Count blk_len(const lc_blocks *a, MPI_Count i) { return a->bl ? a->bl[i] : a->bl1; }

static int blocks_large(const char *fn, const lc_blocks *a, MPI_Datatype *newtype)
{
    int is_struct = a->combiner == MPI_COMBINER_STRUCT;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    MPI_Count n = a->count;
    if (n < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %lld", (long long)n);
    if (is_struct && n > 0 && a->types == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (!is_struct && !dt_live(a->old))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    /* the record's arrays are sized by int (dt_contents) */
    if (n > (INT_MAX - 2) / 2)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "count %lld too large", (long long)n);
    if (n > 0 && (a->disp == NULL || (a->bl == NULL && a->combiner != MPI_COMBINER_INDEXED_BLOCK &&
                                      a->combiner != MPI_COMBINER_HINDEXED_BLOCK)))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL array");
    if (a->bl1 < 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %lld", (long long)a->bl1);
    for (MPI_Count i = 0; i < n; i++) {
        if (a->bl != NULL && a->bl[i] < 0)
            return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %lld in block %lld",
                             (long long)a->bl[i], (long long)i);
        if (is_struct && !dt_live(a->types[i]))
            return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype in block %lld", (long long)i);
    }
    int64_t nl = a->bl != NULL ? 2 * n + 1 : n + 2;
    dt_contents *c = dt_contents_new(a->combiner, 0, 0, is_struct ? n : 1);
    if (c != NULL && (c->larges = malloc((size_t)nl * sizeof *c->larges)) == NULL) {
        c->nd = 0; /* no type retained yet */
        dt_contents_free(c);
        c = NULL;
    }
    if (c != NULL) {
        c->nl = (int)nl;
        MPI_Count *l = c->larges;
        *l++ = n;
        if (a->bl != NULL) {
            memcpy(l, a->bl, (size_t)n * sizeof *l);
            l += n;
        } else {
            *l++ = a->bl1;
        }
        if (n > 0)
            memcpy(l, a->disp, (size_t)n * sizeof *l);
        for (MPI_Count i = 0; i < c->nd; i++)
            c->types[i] = blk_type(a, i);
    }
    dt_builder b;
    dt_builder_init(&b);
    int64_t cost = 0;
    for (MPI_Count i = 0; i < n && cost <= DT_MAX_BLOCKS; i++) {
        int64_t k = dt_add_cost(blk_type(a, i), blk_len(a, i));
        cost = k > DT_MAX_BLOCKS ? INT64_MAX : cost + k;
    }
    dt_builder_plan(&b, cost);
    for (MPI_Count i = 0; i < n && !b.failed; i++) {
        MPI_Datatype t = blk_type(a, i);
        MPI_Count len = blk_len(a, i);
        MPI_Aint d = (MPI_Aint)a->disp[i];
        if (a->disp_elems && !dt_aint_mul(t->extent, a->disp[i], &d))
            b.failed = BF_OVERFLOW;
        else if (len > 0)
            dt_builder_add(&b, t, d, len);
    }
    if (is_struct) {
        dt_builder_pad_struct(&b);
    } else if (b.basic == -1) { /* no element: the old type's basic type, as the int forms do */
        b.basic = a->old->basic;
        b.elem_size = a->old->elem_size;
    }
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_indexed_c";
    lc_blocks a = {MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0, array_of_displacements,
                   1, oldtype, NULL};
    if (!lc_fits_int(count) || !all_fit(count, array_of_blocklengths) ||
        !all_fit(count, array_of_displacements))
        return blocks_large(fn, &a, newtype);
    int *bl = NULL, *disp = NULL;
    int rc = to_ints(fn, "blocklength", count, array_of_blocklengths, &bl);
    if (rc == MPI_SUCCESS &&
        (rc = to_ints(fn, "displacement", count, array_of_displacements, &disp)) == MPI_SUCCESS)
        rc = PMPI_Type_indexed((int)count, bl, disp, oldtype, newtype);
    free(bl);
    free(disp);
    return rc;
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hindexed_c";
    lc_blocks a = {MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0, array_of_displacements,
                   0, oldtype, NULL};
    if (!lc_fits_int(count) || !all_fit(count, array_of_blocklengths))
        return blocks_large(fn, &a, newtype);
    int *bl = NULL;
    MPI_Aint *disp = NULL;
    int rc = to_ints(fn, "blocklength", count, array_of_blocklengths, &bl);
    if (rc == MPI_SUCCESS && (rc = to_aints(fn, count, array_of_displacements, &disp)) == MPI_SUCCESS)
        rc = PMPI_Type_create_hindexed((int)count, bl, disp, oldtype, newtype);
    free(bl);
    free(disp);
    return rc;
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_indexed_block_c";
    lc_blocks a = {MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, array_of_displacements,
                   1, oldtype, NULL};
    if (!lc_fits_int(count) || !lc_fits_int(blocklength) || !all_fit(count, array_of_displacements))
        return blocks_large(fn, &a, newtype);
    int *disp = NULL;
    int rc = to_ints(fn, "displacement", count, array_of_displacements, &disp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_indexed_block((int)count, (int)blocklength, disp, oldtype, newtype);
    free(disp);
    return rc;
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hindexed_block_c";
    lc_blocks a = {MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklength, array_of_displacements,
                   0, oldtype, NULL};
    if (!lc_fits_int(count) || !lc_fits_int(blocklength))
        return blocks_large(fn, &a, newtype);
    MPI_Aint *disp = NULL;
    int rc = to_aints(fn, count, array_of_displacements, &disp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_hindexed_block((int)count, (int)blocklength, disp, oldtype,
                                             newtype);
    free(disp);
    return rc;
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_struct_c";
    lc_blocks a = {MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0, array_of_displacements, 0,
                   NULL, array_of_types};
    if (!lc_fits_int(count) || !all_fit(count, array_of_blocklengths))
        return blocks_large(fn, &a, newtype);
    int *bl = NULL;
    MPI_Aint *disp = NULL;
    int rc = to_ints(fn, "blocklength", count, array_of_blocklengths, &bl);
    if (rc == MPI_SUCCESS && (rc = to_aints(fn, count, array_of_displacements, &disp)) == MPI_SUCCESS)
        rc = PMPI_Type_create_struct((int)count, bl, disp, array_of_types, newtype);
    free(bl);
    free(disp);
    return rc;
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                               const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_subarray_c";
    int *sz = NULL, *sub = NULL, *st = NULL;
    int rc;
    if ((rc = to_ints(fn, "size", ndims, array_of_sizes, &sz)) == MPI_SUCCESS &&
        (rc = to_ints(fn, "subsize", ndims, array_of_subsizes, &sub)) == MPI_SUCCESS &&
        (rc = to_ints(fn, "start", ndims, array_of_starts, &st)) == MPI_SUCCESS)
        rc = PMPI_Type_create_subarray(ndims, sz, sub, st, order, oldtype, newtype);
    free(sz);
    free(sub);
    free(st);
    return rc;
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPI_ENTER();
    int *gs = NULL;
    int rc = to_ints("MPI_Type_create_darray_c", "global size", ndims, array_of_gsizes, &gs);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_darray(size, rank, ndims, gs, array_of_distribs, array_of_dargs,
                                     array_of_psizes, order, oldtype, newtype);
    free(gs);
    return rc;
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype)
{
    MPI_ENTER();
    _Static_assert(sizeof(MPI_Aint) >= sizeof(MPI_Count), "MPI_Aint holds an MPI_Count");
    return PMPI_Type_create_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
}

/* ---- datatype queries ---- */

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    MPI_ENTER();
    return PMPI_Type_size_x(datatype, size);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_ENTER();
    return PMPI_Type_get_extent_x(datatype, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPI_ENTER();
    return PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_get_envelope_c";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (num_integers == NULL || num_addresses == NULL || num_large_counts == NULL ||
        num_datatypes == NULL || combiner == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL output argument");
    const dt_contents *c = datatype->contents;
    *num_integers = c ? c->ni : 0;
    *num_addresses = c ? c->na : 0;
    *num_large_counts = c ? c->nl : 0;
    *num_datatypes = c ? c->nd : 0;
    *combiner = c ? c->combiner : MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                            MPI_Count max_addresses, MPI_Count max_large_counts,
                            MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[])
{
    MPI_ENTER();
    return dt_get_contents("MPI_Type_get_contents_c", datatype, 1, max_integers, max_addresses,
                           max_large_counts, max_datatypes, array_of_integers,
                           array_of_addresses, array_of_large_counts, array_of_datatypes);
}

/* ---- user operations and the local reduction ---- */

int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    MPI_ENTER();
    return mpi_op_new("MPI_Op_create_c", NULL, user_fn, commute, op);
}

/* No communication, so any count works: chunks of at most INT_MAX elements, each an ordinary
 * MPI_Reduce_local (the op sees each chunk as a call of its own, which elementwise ops allow). */
int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Reduce_local_c";
    if (count < 0) {
        if (!MPI_READY())
            return mpi_not_ready(fn);
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    }
    if (count <= INT_MAX)
        return PMPI_Reduce_local(inbuf, inoutbuf, (int)count, datatype, op);
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    MPI_Count done = 0;
    while (done < count) {
        int n = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        MPI_Aint off = (MPI_Aint)done * datatype->extent;
        int rc = PMPI_Reduce_local(BUF_AT(inbuf, off), BUF_AT(inoutbuf, off), n, datatype, op);
        if (rc != MPI_SUCCESS)
            return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Send_c)
CREDO_PMPI(MPI_Bsend_c)
CREDO_PMPI(MPI_Ssend_c)
CREDO_PMPI(MPI_Rsend_c)
CREDO_PMPI(MPI_Recv_c)
CREDO_PMPI(MPI_Isend_c)
CREDO_PMPI(MPI_Ibsend_c)
CREDO_PMPI(MPI_Issend_c)
CREDO_PMPI(MPI_Irsend_c)
CREDO_PMPI(MPI_Irecv_c)
CREDO_PMPI(MPI_Sendrecv_c)
CREDO_PMPI(MPI_Sendrecv_replace_c)
CREDO_PMPI(MPI_Isendrecv_c)
CREDO_PMPI(MPI_Isendrecv_replace_c)
CREDO_PMPI(MPI_Mrecv_c)
CREDO_PMPI(MPI_Imrecv_c)
CREDO_PMPI(MPI_Send_init_c)
CREDO_PMPI(MPI_Bsend_init_c)
CREDO_PMPI(MPI_Ssend_init_c)
CREDO_PMPI(MPI_Rsend_init_c)
CREDO_PMPI(MPI_Recv_init_c)
CREDO_PMPI(MPI_Buffer_attach_c)
CREDO_PMPI(MPI_Buffer_detach_c)
CREDO_PMPI(MPI_Get_count_c)
CREDO_PMPI(MPI_Get_elements_c)
CREDO_PMPI(MPI_Status_set_elements_c)
CREDO_PMPI(MPI_Pack_c)
CREDO_PMPI(MPI_Unpack_c)
CREDO_PMPI(MPI_Pack_size_c)
CREDO_PMPI(MPI_Pack_external_c)
CREDO_PMPI(MPI_Unpack_external_c)
CREDO_PMPI(MPI_Pack_external_size_c)
CREDO_PMPI(MPI_Type_contiguous_c)
CREDO_PMPI(MPI_Type_vector_c)
CREDO_PMPI(MPI_Type_create_hvector_c)
CREDO_PMPI(MPI_Type_indexed_c)
CREDO_PMPI(MPI_Type_create_hindexed_c)
CREDO_PMPI(MPI_Type_create_indexed_block_c)
CREDO_PMPI(MPI_Type_create_hindexed_block_c)
CREDO_PMPI(MPI_Type_create_struct_c)
CREDO_PMPI(MPI_Type_create_subarray_c)
CREDO_PMPI(MPI_Type_create_darray_c)
CREDO_PMPI(MPI_Type_create_resized_c)
CREDO_PMPI(MPI_Type_size_c)
CREDO_PMPI(MPI_Type_get_extent_c)
CREDO_PMPI(MPI_Type_get_true_extent_c)
CREDO_PMPI(MPI_Type_get_envelope_c)
CREDO_PMPI(MPI_Type_get_contents_c)
CREDO_PMPI(MPI_Op_create_c)
CREDO_PMPI(MPI_Reduce_local_c)
