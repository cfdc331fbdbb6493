/* src/mpi/comm_create.c — communicators from groups (MPI_Comm_create, MPI_Comm_create_group),
 * MPI_Comm_split_type, MPI_Comm_dup_with_info and MPI_Comm_idup, with their context id choices. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/intercoll.h"
#include "mpi/mpi_impl.h"

/* MPI_Comm_create_group's agreement messages travel on the parent's context with this bit set,
 * under the user's tag: only the group's members take part, so neither the parent's
 * point-to-point context (user messages) nor its collective context (schedules every member of
 * the parent runs) may carry them. Context ids handed out by agreement grow by 2 from 4 and never
 * come near this bit. */
#define CTX_CREATE_GROUP_BIT 0x80000000u

/* Same agreement as MPI_Comm_dup (comm.c): the largest next free id over comm's members. Every
 * member advances past it, so later agreements never hand it out again. */
static int agree_ctx_all(MPI_Comm comm, uint32_t *ctx)
{
    int *all = malloc((size_t)comm->size * sizeof(int));
    if (all == NULL)
        return MPI_ERR_NO_MEM;
    int mine = mpi_ctx_propose(comm->rank == 0);
    int rc = mpi_coll_allgather_int(comm, &mine, 1, all);
    if (rc == MPI_SUCCESS) {
        uint32_t m = 0;
        for (int r = 0; r < comm->size; r++)
            if ((uint32_t)all[r] > m)
                m = (uint32_t)all[r];
        *ctx = m;
        mpi_ctx_settle(m, 2);
    }
    free(all);
    return rc;
}

/* The same maximum over the members of group g only (MPI_Comm_create_group): each member sends its
 * next free id to the group's rank 0, which sends the maximum back. The ids are unique for the
 * same reason as above: the result is free at every member, and every member moves past it.
 * Receives name their source, so two calls in a row with the same tag cannot mix up. */
static int agree_ctx_group(MPI_Comm comm, MPI_Group g, int tag, uint32_t *ctx)
{
    uint32_t actx = comm->ctx | CTX_CREATE_GROUP_BIT;
    int leader = g->world_of[0], rc = P2P_OK;
    p2p_status st;
    uint32_t m = (uint32_t)mpi_ctx_propose(g->rank == 0);
    if (g->rank == 0) {
        for (int r = 1; r < g->size && rc == P2P_OK; r++) {
            uint32_t v = 0;
            rc = p2p_recv(&v, sizeof v, g->world_of[r], tag, actx, &st);
            if (rc == P2P_OK && v > m)
                m = v;
        }
        for (int r = 1; r < g->size && rc == P2P_OK; r++)
            rc = p2p_send(&m, sizeof m, g->world_of[r], tag, actx, P2P_MODE_STANDARD);
    } else {
        rc = p2p_send(&m, sizeof m, leader, tag, actx, P2P_MODE_STANDARD);
        if (rc == P2P_OK)
            rc = p2p_recv(&m, sizeof m, leader, tag, actx, &st);
    }
    if (rc != P2P_OK) {
        return mpi_err_of_p2p(rc);
    }
    mpi_ctx_settle(m, 2);
    *ctx = m;
    return MPI_SUCCESS;
}

/* 0 if every member of g belongs to comm, else reports MPI_ERR_GROUP. */
static int check_subgroup(const char *fn, MPI_Comm comm, MPI_Group g)
{
    for (int i = 0; i < g->size; i++)
        if (comm->comm_of[g->world_of[i]] < 0)
            return mpi_error(comm, MPI_ERR_GROUP, fn,
                             "group member %d is not in the communicator", i);
    return MPI_SUCCESS;
}

/* The new communicator of g's members on context ctx, ranks in g's order. */
static int comm_of_group(const char *fn, MPI_Comm comm, MPI_Group g, uint32_t ctx,
                         MPI_Comm *newcomm)
{
    struct credo_comm *c = comm_new(comm, ctx, g->size);
    if (c == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(c->world_of, g->world_of, (size_t)g->size * sizeof(int));
    if (comm_index(c) != 0) {
        mpi_comm_destroy(c);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

/* MPI-3 rules: every member of comm calls, each with a subgroup of comm (MPI_GROUP_EMPTY allowed);
 * processes that pass the same non-empty group get one communicator, and different groups must
 * be disjoint. So no groups are exchanged: one context id is agreed over all of comm and each
 * process builds the communicator of its own group; disjoint groups sharing the id never share
 * a process. */
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_create";
    COMM_CHECK(fn, comm);
    if (!group_ok(group))
        return mpi_error(comm, MPI_ERR_GROUP, fn, "invalid group");
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (COMM_IS_INTER(comm))
        return mpi_inter_create(fn, comm, group, newcomm);
    int rc = check_subgroup(fn, comm, group);
    if (rc != MPI_SUCCESS)
        return rc;
    uint32_t ctx = 0;
    rc = agree_ctx_all(comm, &ctx);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "context id agreement failed");
    if (group->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return comm_of_group(fn, comm, group, ctx, newcomm);
}

/* Collective over the group only. A caller outside the group (the standard makes that erroneous;
 * MPI_GROUP_EMPTY is the common case) gets MPI_COMM_NULL without communicating. */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_create_group";
    COMM_CHECK(fn, comm);
    INTRA_CHECK(fn, comm);
    if (!group_ok(group))
        return mpi_error(comm, MPI_ERR_GROUP, fn, "invalid group");
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (tag < 0 || tag > CREDO_TAG_UB)
        return mpi_error(comm, MPI_ERR_TAG, fn, "invalid tag %d", tag);
    int rc = check_subgroup(fn, comm, group);
    if (rc != MPI_SUCCESS)
        return rc;
    if (group->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    uint32_t ctx = 0;
    rc = agree_ctx_group(comm, group, tag, &ctx);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "context id agreement failed");
    return comm_of_group(fn, comm, group, ctx, newcomm);
}

/* MPI_COMM_TYPE_SHARED splits comm by node (p2p_node_of: ranks that share /dev/shm and can map
 * each other's memory), ranks ordered by key then by rank in comm.
 * MPI 4.0's hardware types: MPI_COMM_TYPE_HW_GUIDED with the info hint
 * mpi_hw_resource_type = "mpi_shared_memory" is that same split (and the new communicator's info
 * says so); any other resource type, or no hint, gives MPI_COMM_NULL, as the standard asks for
 * types the library does not know. MPI_COMM_TYPE_HW_UNGUIDED must give a proper subset of comm
 * or MPI_COMM_NULL; credo knows no hardware level below the node, so MPI_COMM_NULL. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_split_type";
    COMM_CHECK(fn, comm);
    INTRA_CHECK(fn, comm);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
        split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_UNDEFINED)
        return mpi_error(comm, MPI_ERR_ARG, fn, "unknown split type %d", split_type);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    static const char hw_key[] = "mpi_hw_resource_type", shm[] = "mpi_shared_memory";
    if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
        char v[sizeof shm + 1] = "";
        int flag = 0;
        if (info != MPI_INFO_NULL)
            PMPI_Info_get(info, hw_key, (int)sizeof v - 1, v, &flag);
        if (!flag || strcmp(v, shm) != 0) {
            *newcomm = MPI_COMM_NULL;
            return MPI_SUCCESS;
        }
    }
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : p2p_node_of(comm->world_of[comm->rank]);
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS && split_type == MPI_COMM_TYPE_HW_GUIDED && *newcomm != MPI_COMM_NULL &&
        PMPI_Comm_set_info(*newcomm, info) != MPI_SUCCESS)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    return rc;
}

/* A dup (attributes copied, topology and the rest as MPI_Comm_dup does) whose hints are info's
 * instead of comm's. */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_dup_with_info";
    COMM_CHECK(fn, comm);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm c = *newcomm;
    mpi_info_release(c->info);
    c->info = NULL;
    if (mpi_comm_hints_merge(c, info) != MPI_SUCCESS) {
        /* Not handed out half-made: the duplicate (and its copied attributes) goes again. */
        PMPI_Comm_free(newcomm);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

/* ---- MPI_Comm_idup ----
 * The max-agreement above cannot run non-blocking: while an idup is pending this process may
 * agree on other ids (dup, split...), and the idup's eventual maximum could equal one of them.
 * So an idup's context id comes from a separate space, chosen by the parent's rank 0 alone and
 * broadcast (a non-blocking bcast on the parent's collective context): rank 0 of the job's rank j
 * takes, for its k-th idup, the slot of 4 ids at CTX_IDUP_BASE + 4 * (j + job_size * k) (an
 * intracommunicator uses 2 of them, an intercommunicator all 4). No two idups share an id, and
 * agreed ids (which grow by 2 from 4) stay below CTX_IDUP_BASE. Comm_create_group's bit 31 stays
 * free because the space ends there; its last slot (MPI_CTX_RESERVED) is kept for fixed internal
 * contexts. Under MPI_THREAD_MULTIPLE blocking creations draw from this space too (mpi_impl.h).
 *
 * An intercommunicator's idup: the leader (local rank 0) of the group whose leader has the lower
 * job rank chooses the slot, and the non-blocking sharing of intercoll.c hands it to every member
 * of both groups, in the order of the parent's other non-blocking collectives. */
#define CTX_IDUP_BASE 0x40000000u
#define CTX_IDUP_SLOT 4u

static uint32_t idup_count; /* idups this process has led */

/* The next slot of this process, or 0 when the space is used up (0 is never an idup id). Under
 * MPI_THREAD_MULTIPLE blocking creations take their ids from here too (mpi_impl.h). */
uint32_t mpi_ctx_slot(void)
{
    uint64_t id = CTX_IDUP_BASE + CTX_IDUP_SLOT * ((uint64_t)credo_rt.rank +
                                                   (uint64_t)credo_mpi.job_size * idup_count);
    idup_count++;
    return id + CTX_IDUP_SLOT > MPI_CTX_RESERVED ? 0 : (uint32_t)id;
}

typedef struct idup_state {
    uint32_t ctx;            /* the bcast buffer */
    struct credo_comm *c;    /* the new communicator, invalid (magic 0) until the bcast ends */
} idup_state;

/* Completion hook of the bcast (runs from progress): the communicator gets its context, rank
 * tables and collectives, and only then a valid magic. If the bcast failed the request carries
 * the error and the half-built communicator is not handed back (it stays allocated: MPI leaves
 * the program in an undefined state after an error, and freeing it would leave the user's handle
 * dangling). */
static void idup_done(p2p_req *r)
{
    int g = r->status.error;
    r->status.error = g == GOAL_SUCCESS     ? P2P_OK
                      : g == GOAL_ERR_NOMEM ? P2P_ERR_NOMEM
                                            : P2P_ERR_INTERN;
    idup_state *st = (idup_state *)(uintptr_t)r->upper_data[3];
    r->upper_data[3] = 0;
    if (st == NULL)
        return;
    if (r->status.error == P2P_OK && st->ctx == 0)
        r->status.error = P2P_ERR_INTERN; /* the parent's rank 0 ran out of context ids */
    if (r->status.error == P2P_OK) {
        st->c->ctx = st->ctx;
        if (comm_index(st->c) == 0)
            st->c->magic = COMM_MAGIC;
        else
            r->status.error = P2P_ERR_NOMEM;
    }
    free(st);
}

/* The end of an intercommunicator's idup (from progress, or inside the call): the new
 * communicator and its local one get their ids (the local one takes ids 2 and 3 of the slot, as
 * intercomm.c's do) and rank tables, and only then a valid magic. After an error it stays
 * allocated and invalid, as above. */
static int inter_idup_done(void *arg, uint32_t ctx, int ok)
{
    struct credo_comm *c = arg;
    if (!ok)
        return P2P_OK; /* the request carries the sharing's error */
    if (ctx == 0)
        return P2P_ERR_INTERN; /* the choosing leader ran out of context ids */
    if (mpi_inter_bind_ctx(c, ctx) != 0)
        return P2P_ERR_NOMEM;
    c->magic = COMM_MAGIC;
    return P2P_OK;
}

/* The duplicate is built at the call (same groups) and gets its ids at the end. */
static int inter_idup(const char *fn, MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    struct credo_comm *c = mpi_inter_alloc(comm, comm->local->world_of, comm->size,
                                           comm->world_of, comm->remote_size);
    if (c == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    c->magic = 0;
    int rc = mpi_comm_hints_merge(c, comm->info);
    if (rc == MPI_SUCCESS)
        rc = mpi_attr_copy_all(comm, c);
    int chooser = comm->local->world_of[0] < comm->world_of[0];
    if (rc == MPI_SUCCESS) {
        rc = icnb_share_u32(comm, chooser, chooser && comm->rank == 0 ? mpi_ctx_slot() : 0,
                            inter_idup_done, c, request);
    }
    if (rc != MPI_SUCCESS) {
        c->magic = COMM_MAGIC; /* so the delete callbacks see a communicator */
        mpi_attr_delete_all(c);
        mpi_comm_destroy(c);
        return mpi_error(comm, rc, fn, "%s",
                         rc == MPI_ERR_NO_MEM ? "out of memory" : "could not start the id sharing");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

/* Hints and attributes are copied at the call (copy callbacks run here, not from progress);
 * the new handle is written at once and becomes usable when the request completes. */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_idup";
    COMM_CHECK(fn, comm);
    if (request == NULL)
        return mpi_error(comm, MPI_ERR_REQUEST, fn, "request is NULL");
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (COMM_IS_INTER(comm))
        return inter_idup(fn, comm, newcomm, request);
    idup_state *st = calloc(1, sizeof *st);
    struct credo_comm *c = st != NULL ? comm_new(comm, 0, comm->size) : NULL;
    if (c == NULL) {
        free(st);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    c->magic = 0;
    st->c = c;
    memcpy(c->world_of, comm->world_of, (size_t)comm->size * sizeof(int));
    int rc = mpi_comm_hints_merge(c, comm->info);
    /* A duplicate keeps the topology, as MPI_Comm_dup's does. */
    if (rc == MPI_SUCCESS && comm->topo && (c->topo = mpi_topo_dup(comm->topo)) == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = mpi_attr_copy_all(comm, c);
    /* Out of ids: the bcast still runs, carrying 0, so that every rank's request completes with
     * the error instead of waiting for a bcast that never comes. */
    if (rc == MPI_SUCCESS && comm->rank == 0)
        st->ctx = mpi_ctx_slot();
    p2p_req *r = NULL;
    if (rc == MPI_SUCCESS) {
        int g = coll_ibcast(&st->ctx, 1, sizeof st->ctx, 0, &comm->coll, &r);
        rc = g == GOAL_SUCCESS       ? MPI_SUCCESS
             : g == GOAL_ERR_NOMEM ? MPI_ERR_NO_MEM
                                   : MPI_ERR_INTERN;
    }
    if (rc != MPI_SUCCESS) {
        c->magic = COMM_MAGIC; /* so the delete callbacks see a communicator */
        mpi_attr_delete_all(c);
        mpi_comm_destroy(c);
        free(st);
        return mpi_error(comm, rc, fn, "%s",
                         rc == MPI_ERR_NO_MEM ? "out of memory" : "could not start the id broadcast");
    }
    *newcomm = c;
    /* The bcast may have finished inside the start call (a single rank). */
    mpi_req_hook(r, comm, st, idup_done);
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

/* MPI 4.0: an idup whose hints are info's instead of comm's (as MPI_Comm_dup_with_info). The new
 * communicator exists from the call on (usable at completion), so its hints are set here. */
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_idup_with_info";
    COMM_CHECK(fn, comm);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    MPI_Info hints = MPI_INFO_NULL;
    if (mpi_info_dup(info, &hints) != MPI_SUCCESS)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = PMPI_Comm_idup(comm, newcomm, request);
    if (rc != MPI_SUCCESS) {
        mpi_info_release(hints);
        return rc;
    }
    mpi_info_release((*newcomm)->info);
    (*newcomm)->info = hints;
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Comm_create)
CREDO_PMPI(MPI_Comm_create_group)
CREDO_PMPI(MPI_Comm_split_type)
CREDO_PMPI(MPI_Comm_dup_with_info)
CREDO_PMPI(MPI_Comm_idup)
CREDO_PMPI(MPI_Comm_idup_with_info)
