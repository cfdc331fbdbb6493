/* src/mpi/intercomm.c — intercommunicators: MPI_Intercomm_create and _merge, the remote group, and
 * dup/split/create of an intercommunicator, with their context id agreement over both groups. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

/* An intercommunicator takes four context ids: ctx (point-to-point between the groups), ctx + 1
 * (the messages of its collectives between the groups), ctx + 2 and ctx + 3 (its hidden local
 * intracommunicator's pair). The two groups' local communicators share ids 2 and 3: they have no
 * process in common, so their messages never meet. */
enum { INTER_CTX_IDS = 4 };

/* Tags of the leaders' exchanges on ctx + 1 (intercoll.c uses its own, below these). */
enum { TAG_AGREE = 0x7fff0000 };

/* The largest of n context ids. */
static uint32_t max_ctx(const int *v, int n, int stride)
{
    uint32_t m = 0;
    for (int i = 0; i < n; i++)
        if ((uint32_t)v[(size_t)i * (size_t)stride] > m)
            m = (uint32_t)v[(size_t)i * (size_t)stride];
    return m;
}

struct credo_comm *mpi_inter_alloc(MPI_Comm parent, const int *lw, int n, const int *rw, int m)
{
    struct credo_comm *c = comm_new(parent, 0, m);
    if (c == NULL)
        return NULL;
    struct credo_comm *l = comm_new(parent, 0, n);
    if (l == NULL) {
        mpi_comm_destroy(c);
        return NULL;
    }
    /* The local phases report their errors to the intercommunicator's code, which reports them
     * through the program's handler under the name of the call the program made. */
    if (l->errh->kind == ERRH_USER)
        l->errh->refcount--;
    l->errh = MPI_ERRORS_RETURN;
    memcpy(l->world_of, lw, (size_t)n * sizeof(int));
    memcpy(l->name, "(local group)", sizeof "(local group)");
    memcpy(c->world_of, rw, (size_t)m * sizeof(int));
    for (int r = 0; r < m; r++)
        c->comm_of[rw[r]] = r;
    c->size = n;
    c->remote_size = m;
    c->local = l;
    return c;
}

int mpi_inter_bind_ctx(struct credo_comm *c, uint32_t ctx)
{
    c->ctx = ctx;
    c->local->ctx = ctx + 2;
    if (comm_index(c->local) != 0)
        return -1;
    c->rank = c->local->rank;
    return 0;
}

/* A new intercommunicator on context ids ctx .. ctx + 3: local group lw (n job ranks, this
 * process among them), remote group rw (m). Error handler and nothing else from parent. */
static struct credo_comm *inter_new(MPI_Comm parent, uint32_t ctx, const int *lw, int n,
                                    const int *rw, int m)
{
    struct credo_comm *c = mpi_inter_alloc(parent, lw, n, rw, m);
    if (c != NULL && mpi_inter_bind_ctx(c, ctx) != 0) {
        mpi_comm_destroy(c);
        return NULL;
    }
    return c;
}

/* Both groups' contributions of n ints each: local_all gets the local group's (by local rank),
 * remote_all the remote group's (by remote rank). Collective over the intercommunicator: an
 * allgather in each group, the leaders (local rank 0) swap the results, each leader broadcasts
 * the other group's over its group. */
static int inter_allgather_int(MPI_Comm ic, const int *mine, int n, int *local_all,
                               int *remote_all)
{
    MPI_Comm l = ic->local;
    int rc = mpi_coll_allgather_int(l, mine, n, local_all);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t rbytes = (size_t)ic->remote_size * (size_t)n * sizeof(int);
    if (l->rank == 0) {
        p2p_req *s;
        p2p_status st;
        int prc = p2p_isend(local_all, (size_t)l->size * (size_t)n * sizeof(int), ic->world_of[0],
                            TAG_AGREE, ic->ctx + 1, P2P_MODE_STANDARD, &s);
        if (prc != P2P_OK)
            return mpi_err_of_p2p(prc);
        prc = p2p_recv(remote_all, rbytes, ic->world_of[0], TAG_AGREE, ic->ctx + 1, &st);
        p2p_wait(s);
        p2p_req_free(s);
        if (prc != P2P_OK)
            return mpi_err_of_p2p(prc);
    }
    int g = coll_bcast(remote_all, rbytes, 1, 0, &l->coll);
    return g == GOAL_SUCCESS ? MPI_SUCCESS : MPI_ERR_INTERN;
}

/* inter_allgather_int into new tables (the caller frees both, also after an error). */
static int inter_gather_tables(MPI_Comm ic, const int *mine, int n, int **local_all,
                               int **remote_all)
{
    *local_all = malloc((size_t)ic->size * (size_t)n * sizeof(int));
    *remote_all = malloc((size_t)ic->remote_size * (size_t)n * sizeof(int));
    if (*local_all == NULL || *remote_all == NULL)
        return MPI_ERR_NO_MEM;
    return inter_allgather_int(ic, mine, n, *local_all, *remote_all);
}

/* inter_gather_tables for the records of n ints whose last one is each member's context id
 * proposal: *ctx is the largest over both groups. On an error both tables are freed already. */
static int inter_gather_ctx(MPI_Comm ic, const int *mine, int n, int **local_all, int **remote_all,
                            uint32_t *ctx)
{
    int rc = inter_gather_tables(ic, mine, n, local_all, remote_all);
    if (rc != MPI_SUCCESS) {
        free(*local_all);
        free(*remote_all);
        return rc;
    }
    uint32_t l = max_ctx(*local_all + n - 1, ic->size, n);
    uint32_t r = max_ctx(*remote_all + n - 1, ic->remote_size, n);
    *ctx = l > r ? l : r;
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_create ----
 * Collective over local_comm; only the two leaders use peer_comm, with the program's tag. The
 * leaders swap their groups' sizes, job ranks and largest next free context ids; each broadcasts
 * what it got over its group. The new ids are the largest next free id over both groups, so they
 * are free at every member, and every member moves past them. */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Intercomm_create";
    COMM_CHECK(fn, local_comm);
    INTRA_CHECK(fn, local_comm);
    if (newintercomm == NULL)
        return mpi_error(local_comm, MPI_ERR_ARG, fn, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= local_comm->size)
        return mpi_error(local_comm, MPI_ERR_RANK, fn, "invalid local leader %d (size %d)",
                         local_leader, local_comm->size);
    if (tag < 0 || tag > CREDO_TAG_UB)
        return mpi_error(local_comm, MPI_ERR_TAG, fn, "invalid tag %d", tag);
    int peer = -1;
    uint32_t pctx = 0;
    if (local_comm->rank == local_leader) {
        if (!comm_ok(peer_comm))
            return mpi_error(local_comm, MPI_ERR_COMM, fn, "invalid peer communicator");
        if (remote_leader < 0 || remote_leader >= peer_comm->remote_size)
            return mpi_error(local_comm, MPI_ERR_RANK, fn, "invalid remote leader %d (size %d)",
                             remote_leader, peer_comm->remote_size);
        peer = peer_comm->world_of[remote_leader];
        pctx = peer_comm->ctx;
    }
    return mpi_intercomm_create_core(fn, local_comm, local_leader, peer, pctx, tag, newintercomm);
}

/* The work of MPI_Intercomm_create once the arguments are checked; at the local leader, `peer` is
 * the remote leader's job rank and the leaders talk on context pctx with `tag`. */
int mpi_intercomm_create_core(const char *fn, MPI_Comm local_comm, int local_leader, int peer,
                              uint32_t pctx, int tag, MPI_Comm *newintercomm)
{
    int leader = local_comm->rank == local_leader;
    if (leader && peer == credo_rt.rank)
        return mpi_error(local_comm, MPI_ERR_RANK, fn,
                         "the remote leader is this process: the groups must be disjoint");
    *newintercomm = MPI_COMM_NULL;
    int n = local_comm->size;
    int *ctxs = malloc((size_t)n * sizeof(int));
    if (ctxs == NULL)
        return mpi_error(local_comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int mine = mpi_ctx_propose(local_comm->rank == 0);
    int rc = mpi_coll_allgather_int(local_comm, &mine, 1, ctxs);
    /* hdr: the remote group's size and largest next free id */
    int hdr[2] = {0, 0};
    int *remote = NULL;
    if (rc == MPI_SUCCESS && leader) {
        int mhdr[2] = {n, (int)max_ctx(ctxs, n, 1)};
        p2p_req *s[2] = {NULL, NULL};
        p2p_status st;
        int prc = p2p_isend(mhdr, sizeof mhdr, peer, tag, pctx, P2P_MODE_STANDARD, &s[0]);
        if (prc == P2P_OK)
            prc = p2p_isend(local_comm->world_of, (size_t)n * sizeof(int), peer, tag, pctx,
                            P2P_MODE_STANDARD, &s[1]);
        if (prc == P2P_OK)
            prc = p2p_recv(hdr, sizeof hdr, peer, tag, pctx, &st);
        if (prc == P2P_OK && (hdr[0] <= 0 || hdr[0] > credo_mpi.job_size))
            prc = P2P_ERR_INTERN;
        if (prc == P2P_OK && (remote = malloc((size_t)hdr[0] * sizeof(int))) == NULL)
            prc = P2P_ERR_NOMEM;
        if (prc == P2P_OK)
            prc = p2p_recv(remote, (size_t)hdr[0] * sizeof(int), peer, tag, pctx, &st);
        for (int i = 0; i < 2; i++)
            if (s[i]) {
                p2p_wait(s[i]);
                p2p_req_free(s[i]);
            }
        if (prc != P2P_OK) {
            /* the group still waits in the broadcast: tell it (size 0) */
            hdr[0] = 0;
            rc = mpi_err_of_p2p(prc);
        }
    }
    if (rc == MPI_SUCCESS || leader) {
        int g = coll_bcast(hdr, 2, sizeof(int), local_leader, &local_comm->coll);
        if (g != GOAL_SUCCESS && rc == MPI_SUCCESS)
            rc = MPI_ERR_INTERN;
    }
    if (rc == MPI_SUCCESS && hdr[0] == 0)
        rc = MPI_ERR_INTERN; /* the leaders' exchange failed; the leader reports why */
    if (rc == MPI_SUCCESS && !leader && (remote = malloc((size_t)hdr[0] * sizeof(int))) == NULL)
        rc = MPI_ERR_NO_MEM; /* the broadcast below then hangs the others: out of memory is fatal */
    if (rc == MPI_SUCCESS &&
        coll_bcast(remote, (size_t)hdr[0], sizeof(int), local_leader, &local_comm->coll) !=
            GOAL_SUCCESS)
        rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS) {
        free(ctxs);
        free(remote);
        return mpi_error(local_comm, rc, fn, "exchange of the groups failed");
    }
    int m = hdr[0];
    for (int i = 0; i < m; i++)
        if (remote[i] < 0 || remote[i] >= credo_mpi.job_size || local_comm->comm_of[remote[i]] >= 0) {
            free(ctxs);
            free(remote);
            return mpi_error(local_comm, MPI_ERR_COMM, fn,
                             "the local and remote groups overlap (process %d is in both)", i);
        }
    uint32_t ctx = max_ctx(ctxs, n, 1);
    if ((uint32_t)hdr[1] > ctx)
        ctx = (uint32_t)hdr[1];
    free(ctxs);
    mpi_ctx_settle(ctx, INTER_CTX_IDS);
    struct credo_comm *c = inter_new(local_comm, ctx, local_comm->world_of, n, remote, m);
    free(remote);
    if (c == NULL)
        return mpi_error(local_comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *newintercomm = c;
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_merge ----
 * The group whose members pass high = false comes first; if both pass the same, the group whose
 * first member has the lower job rank does (the standard leaves that order to the library). */
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Intercomm_merge";
    COMM_CHECK(fn, intercomm);
    if (!COMM_IS_INTER(intercomm))
        return mpi_error(intercomm, MPI_ERR_COMM, fn, "not an intercommunicator");
    if (newintracomm == NULL)
        return mpi_error(intercomm, MPI_ERR_ARG, fn, "newintracomm is NULL");
    *newintracomm = MPI_COMM_NULL;
    int *la, *ra;
    int n = intercomm->size, m = intercomm->remote_size;
    const int *lw = intercomm->local->world_of, *rw = intercomm->world_of;
    uint32_t ctx;
    int local_first;
    int mine[2] = {high != 0, mpi_ctx_propose(intercomm->rank == 0)};
    int rc = inter_gather_ctx(intercomm, mine, 2, &la, &ra, &ctx);
    if (rc != MPI_SUCCESS)
        return mpi_error(intercomm, rc, fn, "exchange between the groups failed");
    local_first = la[0] != ra[0] ? la[0] == 0 : lw[0] < rw[0];
    free(la);
    free(ra);
    mpi_ctx_settle(ctx, 2);
    struct credo_comm *c = comm_new(intercomm, ctx, n + m);
    if (c == NULL)
        return mpi_error(intercomm, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(c->world_of + (local_first ? 0 : m), lw, (size_t)n * sizeof(int));
    memcpy(c->world_of + (local_first ? n : 0), rw, (size_t)m * sizeof(int));
    if (comm_index(c) != 0) {
        mpi_comm_destroy(c);
        return mpi_error(intercomm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *newintracomm = c;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_remote_size";
    COMM_CHECK(fn, comm);
    if (!COMM_IS_INTER(comm))
        return mpi_error(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
    if (size == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "size is NULL");
    *size = comm->remote_size;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_remote_group";
    COMM_CHECK(fn, comm);
    if (!COMM_IS_INTER(comm))
        return mpi_error(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
    if (group == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "group is NULL");
    struct credo_group *g = group_new(comm->remote_size);
    if (g == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(g->world_of, comm->world_of, (size_t)comm->remote_size * sizeof(int));
    g->rank = MPI_UNDEFINED;
    *group = g;
    return MPI_SUCCESS;
}

/* ---- dup, split and create of an intercommunicator (called from comm.c, comm_create.c) ---- */

int mpi_inter_dup(const char *fn, MPI_Comm comm, MPI_Comm *newcomm)
{
    int *la, *ra;
    uint32_t ctx;
    int mine = mpi_ctx_propose(comm->rank == 0);
    int rc = inter_gather_ctx(comm, &mine, 1, &la, &ra, &ctx);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "context id agreement failed");
    free(la);
    free(ra);
    mpi_ctx_settle(ctx, INTER_CTX_IDS);
    struct credo_comm *c = inter_new(comm, ctx, comm->local->world_of, comm->size, comm->world_of,
                                     comm->remote_size);
    if (c == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    return comm_dup_finish(fn, comm, c, newcomm);
}

/* The members of one group whose entry (stride ints per member, at `at`) equals `want`, as job
 * ranks ordered by the entry at `key` (then by rank); returns how many. */
static int pick_members(const int *all, int stride, int n, int at, int want, int key,
                        const int *world_of, split_entry *tmp, int *out)
{
    int k = 0;
    for (int r = 0; r < n; r++)
        if (all[(size_t)r * (size_t)stride + (size_t)at] == want)
            tmp[k++] = (split_entry){want, all[(size_t)r * (size_t)stride + (size_t)key], r};
    qsort(tmp, (size_t)k, sizeof *tmp, comm_split_cmp);
    for (int i = 0; i < k; i++)
        out[i] = world_of[tmp[i].rank];
    return k;
}

/* Split and create differ only in what each member contributes: entries[0] selects the members
 * (equal values go together, MPI_UNDEFINED: none), entries[1] orders them. A member whose value
 * has no match in the other group gets MPI_COMM_NULL, as the standard says for split. */
static int inter_subset(const char *fn, MPI_Comm comm, int sel, int key, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    int *la, *ra;
    int n = comm->size, m = comm->remote_size;
    uint32_t ctx;
    int mine[3] = {sel, key, mpi_ctx_propose(comm->rank == 0)};
    int rc = inter_gather_ctx(comm, mine, 3, &la, &ra, &ctx);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "exchange between the groups failed");
    /* every member moves past the ids, chosen or not, so later agreements stay consistent */
    mpi_ctx_settle(ctx, INTER_CTX_IDS);
    if (sel == MPI_UNDEFINED) {
        free(la);
        free(ra);
        return MPI_SUCCESS;
    }
    int big = n > m ? n : m;
    split_entry *tmp = malloc((size_t)big * sizeof *tmp);
    int *lw = malloc((size_t)n * sizeof(int)), *rw = malloc((size_t)(m ? m : 1) * sizeof(int));
    struct credo_comm *c = NULL;
    rc = MPI_ERR_NO_MEM;
    if (tmp && lw && rw) {
        int ln = pick_members(la, 3, n, 0, sel, 1, comm->local->world_of, tmp, lw);
        int rn = pick_members(ra, 3, m, 0, sel, 1, comm->world_of, tmp, rw);
        rc = MPI_SUCCESS;
        if (rn > 0 && (c = inter_new(comm, ctx, lw, ln, rw, rn)) == NULL)
            rc = MPI_ERR_NO_MEM;
    }
    free(tmp);
    free(lw);
    free(rw);
    free(la);
    free(ra);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "out of memory");
    *newcomm = c;
    return MPI_SUCCESS;
}

int mpi_inter_split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return inter_subset(fn, comm, color, key, newcomm);
}

/* group: a subgroup of the local group (the same at every member of this group); the remote
 * group of the result is the one the other group's members passed. Members are ordered by their
 * rank in the group. */
int mpi_inter_create(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    for (int i = 0; i < group->size; i++) {
        int w = group->world_of[i], in = 0;
        for (int r = 0; r < comm->size && !in; r++)
            in = comm->local->world_of[r] == w;
        if (!in)
            return mpi_error(comm, MPI_ERR_GROUP, fn,
                             "group member %d is not in the local group", i);
    }
    int in = group->rank != MPI_UNDEFINED;
    return inter_subset(fn, comm, in ? 1 : MPI_UNDEFINED, in ? group->rank : 0, newcomm);
}

CREDO_PMPI(MPI_Intercomm_create)
CREDO_PMPI(MPI_Intercomm_merge)
CREDO_PMPI(MPI_Comm_remote_size)
CREDO_PMPI(MPI_Comm_remote_group)
