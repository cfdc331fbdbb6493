/* src/mpi/comm.c — communicators and groups: the predefined COMM_WORLD/COMM_SELF, context id
 * agreement for dup/split, rank translation tables, attributes, names, group basics. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

/* Context ids come in pairs (ctx for point-to-point, ctx + 1 for collectives). */
enum { CTX_WORLD = 0, CTX_SELF = 2, CTX_FIRST_FREE = 4 };

struct credo_comm credo_comm_world = {.magic = COMM_MAGIC, .ctx = CTX_WORLD,
                                      .errh = &credo_errh_fatal, .refcount = 1,
                                      .predefined = 1, .name = "MPI_COMM_WORLD"};
struct credo_comm credo_comm_self = {.magic = COMM_MAGIC, .ctx = CTX_SELF,
                                     .errh = &credo_errh_fatal, .refcount = 1,
                                     .predefined = 1, .name = "MPI_COMM_SELF"};
struct credo_group credo_group_empty = {.magic = GROUP_MAGIC, .size = 0, .rank = MPI_UNDEFINED,
                                        .predefined = 1, .world_of = NULL};

/* Allocates the two rank tables of a communicator of `size` members. */
static int comm_tables(struct credo_comm *c, int size)
{
    c->world_of = malloc((size_t)(size ? size : 1) * sizeof(int));
    c->comm_of = malloc((size_t)credo_mpi.job_size * sizeof(int));
    if (c->world_of == NULL || c->comm_of == NULL) {
        free(c->world_of);
        free(c->comm_of);
        c->world_of = c->comm_of = NULL;
        return -1;
    }
    for (int j = 0; j < credo_mpi.job_size; j++)
        c->comm_of[j] = -1;
    c->size = c->remote_size = size;
    return 0;
}

/* Fills comm_of and rank from world_of, and sets up the collective schedules (context ctx + 1;
 * world_of outlives them: both go in mpi_comm_destroy). 0 or -1 (out of memory). */
int comm_index(struct credo_comm *c)
{
    c->rank = MPI_UNDEFINED;
    for (int r = 0; r < c->size; r++) {
        c->comm_of[c->world_of[r]] = r;
        if (c->world_of[r] == credo_rt.rank)
            c->rank = r;
    }
    return coll_comm_init(&c->coll, c->size, c->rank, c->world_of, c->ctx + 1) == GOAL_SUCCESS
               ? 0
               : -1;
}

int mpi_comm_init_predefined(void)
{
    credo_mpi.job_size = credo_rt.size;
    credo_mpi.next_ctx = CTX_FIRST_FREE;
    struct credo_comm *w = &credo_comm_world, *s = &credo_comm_self;
    if (comm_tables(w, credo_rt.size) != 0 || comm_tables(s, 1) != 0)
        return -1;
    for (int r = 0; r < credo_rt.size; r++)
        w->world_of[r] = r;
    s->world_of[0] = credo_rt.rank;
    return comm_index(w) != 0 || comm_index(s) != 0 ? -1 : 0;
}

/* A communicator with comm's members on the fresh context ctx, reporting errors by return, for a
 * window's or a file's internal traffic: it never matches the program's messages on comm, and no
 * attribute copy callback runs (MPI_Comm_dup would run them). */
MPI_Comm mpi_comm_hidden(MPI_Comm comm, uint32_t ctx)
{
    struct credo_comm *c = comm_new(comm, ctx, comm->size);
    if (c == NULL)
        return NULL;
    if (c->errh->kind == ERRH_USER)
        c->errh->refcount--; /* comm still holds it */
    c->errh = MPI_ERRORS_RETURN;
    memcpy(c->world_of, comm->world_of, (size_t)comm->size * sizeof(int));
    if (comm_index(c) != 0) {
        mpi_comm_destroy(c);
        return NULL;
    }
    return c;
}

/* ---- context id agreements (mpi_impl.h) ---- */

static int ctx_threads(void)
{
    return (credo_lock_on & CREDO_LOCK_FOR_THREADS) != 0;
}

int mpi_ctx_propose(int leader)
{
    if (!ctx_threads())
        return (int)credo_mpi.next_ctx;
    if (!leader)
        return 0;
    uint32_t slot = mpi_ctx_slot();
    if (slot == 0)
        credo_abort(MPI_ERR_OTHER, "communicator creation: context ids used up (%u per process at %d "
                    "processes)", (unsigned)(0x40000000u / 4u / (uint32_t)credo_mpi.job_size),
                    credo_mpi.job_size);
    return (int)slot;
}

void mpi_ctx_settle(uint32_t agreed, uint32_t ids)
{
    /* A leader's slot lies above every agreed id and next_ctx only follows the max-agreements.
     * A maximum from next_ctx's space under threads comes from members that do not run at
     * MPI_THREAD_MULTIPLE (docs/MPI.md: mixed levels are not supported for creation). */
    if (agreed < 0x40000000u && agreed + ids > credo_mpi.next_ctx)
        credo_mpi.next_ctx = agreed + ids;
}

void mpi_comm_finalize(void)
{
    struct credo_comm *pre[2] = {&credo_comm_world, &credo_comm_self};
    for (int i = 0; i < 2; i++) {
        coll_comm_destroy(&pre[i]->coll);
        free(pre[i]->world_of);
        free(pre[i]->comm_of);
        pre[i]->world_of = pre[i]->comm_of = NULL;
        mpi_info_release(pre[i]->info);
        pre[i]->info = NULL;
    }
}

struct credo_comm *comm_new(MPI_Comm parent, uint32_t ctx, int size)
{
    struct credo_comm *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    if (comm_tables(c, size) != 0) {
        free(c);
        return NULL;
    }
    c->magic = COMM_MAGIC;
    c->refcount = 1;
    c->ctx = ctx;
    mpi_handle_add(c, HK_COMM);
    c->errh = parent->errh;
    if (c->errh->kind == ERRH_USER)
        c->errh->refcount++;
    return c;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    MPI_ENTER();
    if (unlikely(!MPI_READY() || !comm_ok(comm) || size == NULL)) {
        COMM_CHECK("MPI_Comm_size", comm);
        return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    }
    *size = comm->size;
    return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPI_ENTER();
    if (unlikely(!MPI_READY() || !comm_ok(comm) || rank == NULL)) {
        COMM_CHECK("MPI_Comm_rank", comm);
        return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    }
    *rank = comm->rank;
    return MPI_SUCCESS;
}

/* Dup and split agree on the new context id: the maximum over the members of the parent of
 * each one's next free id, carried in the same allgather as split's (color, key). */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_dup";
    COMM_CHECK(fn, comm);
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    *newcomm = MPI_COMM_NULL; /* what the program sees if anything below fails (a copy callback) */
    if (COMM_IS_INTER(comm))
        return mpi_inter_dup(fn, comm, newcomm);
    int *all = malloc((size_t)comm->size * sizeof(int));
    if (all == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    uint32_t ctx;
    int mine = mpi_ctx_propose(comm->rank == 0);
    int rc = mpi_coll_allgather_int(comm, &mine, 1, all);
    if (rc != MPI_SUCCESS) {
        free(all);
        return mpi_error(comm, rc, fn, "context id agreement failed");
    }
    ctx = 0;
    for (int r = 0; r < comm->size; r++)
        if ((uint32_t)all[r] > ctx)
            ctx = (uint32_t)all[r];
    mpi_ctx_settle(ctx, 2);
    free(all);
    struct credo_comm *c = comm_new(comm, ctx, comm->size);
    if (c == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(c->world_of, comm->world_of, (size_t)comm->size * sizeof(int));
    /* A dup keeps the topology (MPI standard); comm_new zeroed c->topo. */
    if (comm_index(c) != 0 || (comm->topo && (c->topo = mpi_topo_dup(comm->topo)) == NULL)) {
        mpi_comm_destroy(c);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return comm_dup_finish(fn, comm, c, newcomm);
}

int comm_dup_finish(const char *fn, MPI_Comm comm, struct credo_comm *c, MPI_Comm *newcomm)
{
    if (mpi_comm_hints_merge(c, comm->info) != MPI_SUCCESS) {
        mpi_comm_destroy(c);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    /* The duplicate gets the parent's hints and whatever the copy callbacks cache (attr.c). */
    int rc = mpi_attr_copy_all(comm, c);
    if (rc != MPI_SUCCESS) {
        mpi_attr_delete_all(c);
        mpi_comm_destroy(c);
        return mpi_error(comm, rc, fn, "attribute copy callback failed (%d)", rc);
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

int comm_split_cmp(const void *a, const void *b)
{
    const split_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_split";
    COMM_CHECK(fn, comm);
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return mpi_error(comm, MPI_ERR_ARG, fn, "invalid color %d", color);
    if (COMM_IS_INTER(comm))
        return mpi_inter_split(fn, comm, color, key, newcomm);
    int n = comm->size;
    int *all = malloc((size_t)n * 3 * sizeof(int));
    split_entry *members = malloc((size_t)n * sizeof *members);
    if (all == NULL || members == NULL) {
        free(all);
        free(members);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    uint32_t ctx;
    int m;
    int mine[3] = {color, key, mpi_ctx_propose(comm->rank == 0)};
    int rc = mpi_coll_allgather_int(comm, mine, 3, all);
    if (rc != MPI_SUCCESS) {
        free(all);
        free(members);
        return mpi_error(comm, rc, fn, "exchange of colors failed");
    }
    ctx = 0;
    m = 0;
    for (int r = 0; r < n; r++) {
        if ((uint32_t)all[3 * r + 2] > ctx)
            ctx = (uint32_t)all[3 * r + 2];
        if (color != MPI_UNDEFINED && all[3 * r] == color)
            members[m++] = (split_entry){color, all[3 * r + 1], r};
    }
    /* Every member of the parent consumes the id, so later agreements stay consistent. */
    mpi_ctx_settle(ctx, 2);
    free(all);
    if (color == MPI_UNDEFINED) {
        free(members);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    qsort(members, (size_t)m, sizeof *members, comm_split_cmp);
    struct credo_comm *c = comm_new(comm, ctx, m);
    if (c == NULL) {
        free(members);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < m; i++)
        c->world_of[i] = comm->world_of[members[i].rank];
    free(members);
    if (comm_index(c) != 0) {
        mpi_comm_destroy(c);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

void mpi_comm_destroy(MPI_Comm c)
{
    if (c->errh->kind == ERRH_USER && --c->errh->refcount == 0) {
        c->errh->magic = DEAD_MAGIC;
        mpi_handle_del(c->errh);
        free(c->errh);
    }
    coll_comm_destroy(&c->coll);
    if (c->local)
        mpi_comm_destroy(c->local);
    mpi_info_release(c->info);
    mpi_topo_free(c->topo);
    free(c->world_of);
    free(c->comm_of);
    mpi_handle_del(c);
    free(c);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_free";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (comm == NULL || !comm_ok(*comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    struct credo_comm *c = *comm;
    if (c->predefined)
        return mpi_error(c, MPI_ERR_COMM, fn, "cannot free %s", c->name);
    /* Delete callbacks see a valid communicator; they all run even if one fails. */
    int rc = mpi_attr_delete_all(c);
    /* Pending requests keep the tables alive; the handle is dead from now on. */
    c->magic = DEAD_MAGIC;
    *comm = MPI_COMM_NULL;
    mpi_comm_release(c);
    if (rc != MPI_SUCCESS)
        return mpi_error(NULL, rc, fn, "attribute delete callback failed (%d)", rc);
    return MPI_SUCCESS;
}

/* 1 if both lists hold the same job ranks, in any order. */
static int same_members(const int *a, const int *b, int n)
{
    char *seen = calloc((size_t)credo_mpi.job_size, 1);
    if (seen == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        seen[a[i]] = 1;
    int same = 1;
    for (int i = 0; i < n && same; i++)
        same = seen[b[i]];
    free(seen);
    return same;
}

static int compare_rank_lists(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    if (na == 0 || memcmp(a, b, (size_t)na * sizeof(int)) == 0)
        return MPI_CONGRUENT;
    return same_members(a, b, na) ? MPI_SIMILAR : MPI_UNEQUAL;
}

/* Two intercommunicators compare by both groups: congruent if both are, similar if both are at
 * least similar. An intercommunicator and an intracommunicator are unequal. */
int mpi_inter_compare(MPI_Comm a, MPI_Comm b)
{
    if (!COMM_IS_INTER(a) || !COMM_IS_INTER(b))
        return MPI_UNEQUAL;
    int l = compare_rank_lists(a->local->world_of, a->size, b->local->world_of, b->size);
    int r = compare_rank_lists(a->world_of, a->remote_size, b->world_of, b->remote_size);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL)
        return MPI_UNEQUAL;
    return l == MPI_CONGRUENT && r == MPI_CONGRUENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_compare";
    COMM_CHECK(fn, comm1);
    COMM_CHECK(fn, comm2);
    if (result == NULL)
        return mpi_error(comm1, MPI_ERR_ARG, fn, "result is NULL");
    if (comm1 == comm2)
        *result = MPI_IDENT;
    else if (COMM_IS_INTER(comm1) || COMM_IS_INTER(comm2))
        *result = mpi_inter_compare(comm1, comm2);
    else
        *result = compare_rank_lists(comm1->world_of, comm1->size, comm2->world_of, comm2->size);
    return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    MPI_ENTER();
    COMM_CHECK("MPI_Comm_test_inter", comm);
    if (flag == NULL)
        return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
    *flag = comm->local != NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_get_attr";
    /* The standard hands out pointers to attribute values; these live as long as the library. */
    static int tag_ub = CREDO_TAG_UB, wtime_global = 0, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE,
               appnum = 0, universe, lastused;
    COMM_CHECK(fn, comm);
    if (attribute_val == NULL || flag == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL argument");
    int *val;
    switch (comm_keyval) {
    case MPI_TAG_UB: val = &tag_ub; break;
    case MPI_WTIME_IS_GLOBAL: val = &wtime_global; break;
    case MPI_HOST: val = &host; break;
    case MPI_IO: val = &io; break;
    case MPI_APPNUM: /* MPMD launches ("-n 2 a : -n 3 b") number their programs from 0 */
        appnum = credo_rt.appnum;
        val = &appnum;
        break;
    case MPI_UNIVERSE_SIZE:
        universe = credo_mpi.job_size;
        val = &universe;
        break;
    case MPI_LASTUSEDCODE: /* the largest error class or code, MPI_Add_error_class/_code move it */
        lastused = mpi_error_last_used();
        val = &lastused;
        break;
    default:
        /* User keyvals (attr.c): the value itself, not a pointer to it. */
        if (!mpi_attr_keyval_ok(comm_keyval))
            return mpi_error(comm, MPI_ERR_KEYVAL, fn, "unknown attribute key %d", comm_keyval);
        *flag = mpi_attr_lookup(comm, comm_keyval, (void **)attribute_val);
        return MPI_SUCCESS;
    }
    *(int **)attribute_val = val;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    MPI_ENTER();
    COMM_CHECK("MPI_Comm_set_name", comm);
    if (comm_name == NULL)
        return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
    size_t n = strlen(comm_name);
    if (n >= MPI_MAX_OBJECT_NAME)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(comm->name, comm_name, n);
    comm->name[n] = '\0';
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    MPI_ENTER();
    COMM_CHECK("MPI_Comm_get_name", comm);
    if (comm_name == NULL || resultlen == NULL)
        return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "NULL argument");
    size_t n = strlen(comm->name);
    memcpy(comm_name, comm->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

/* ---- groups ---- */

int group_ok(MPI_Group g)
{
    return mpi_handle_live(g, HK_GROUP) && g->magic == GROUP_MAGIC;
}

struct credo_group *group_new(int size)
{
    struct credo_group *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->world_of = malloc((size_t)(size ? size : 1) * sizeof(int));
    if (g->world_of == NULL) {
        free(g);
        return NULL;
    }
    g->magic = GROUP_MAGIC;
    mpi_handle_add(g, HK_GROUP);
    g->size = size;
    g->rank = MPI_UNDEFINED;
    return g;
}

void group_index(struct credo_group *g)
{
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world_of[i] == credo_rt.rank)
            g->rank = i;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_group";
    COMM_CHECK(fn, comm);
    if (group == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "group is NULL");
    struct credo_group *g = group_new(comm->size);
    if (g == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    /* an intercommunicator's local group: world_of is the remote one */
    const int *members = COMM_IS_INTER(comm) ? comm->local->world_of : comm->world_of;
    memcpy(g->world_of, members, (size_t)comm->size * sizeof(int));
    g->rank = comm->rank;
    *group = g;
    return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int *size)
{
    MPI_ENTER();
    GROUP_CHECK("MPI_Group_size", group);
    if (size == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Group_size", "size is NULL");
    *size = group->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
    MPI_ENTER();
    GROUP_CHECK("MPI_Group_rank", group);
    if (rank == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Group_rank", "rank is NULL");
    *rank = group->rank;
    return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group *group)
{
    MPI_ENTER();
    if (!MPI_READY())
        return mpi_not_ready("MPI_Group_free");
    if (group == NULL || !group_ok(*group))
        return mpi_error(NULL, MPI_ERR_GROUP, "MPI_Group_free", "invalid group");
    struct credo_group *g = *group;
    if (!g->predefined) {
        g->magic = DEAD_MAGIC;
        mpi_handle_del(g);
        free(g->world_of);
        free(g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_translate_ranks";
    GROUP_CHECK(fn, group1);
    GROUP_CHECK(fn, group2);
    if (n < 0 || (n > 0 && (ranks1 == NULL || ranks2 == NULL)))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid rank arrays");
    int *pos = malloc((size_t)credo_mpi.job_size * sizeof(int));
    if (pos == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int j = 0; j < credo_mpi.job_size; j++)
        pos[j] = MPI_UNDEFINED;
    for (int i = 0; i < group2->size; i++)
        pos[group2->world_of[i]] = i;
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else if (r < 0 || r >= group1->size) {
            free(pos);
            return mpi_error(NULL, MPI_ERR_RANK, fn, "invalid rank %d (group size %d)", r,
                             group1->size);
        } else {
            ranks2[i] = pos[group1->world_of[r]];
        }
    }
    free(pos);
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_compare";
    GROUP_CHECK(fn, group1);
    GROUP_CHECK(fn, group2);
    if (result == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "result is NULL");
    int r = compare_rank_lists(group1->world_of, group1->size, group2->world_of, group2->size);
    *result = r == MPI_CONGRUENT ? MPI_IDENT : r;
    return MPI_SUCCESS;
}

/* Checks a list of distinct, in-range ranks of g. */
static int check_rank_list(const char *fn, MPI_Group g, int n, const int ranks[])
{
    if (n < 0 || n > g->size || (n > 0 && ranks == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid rank list");
    char *seen = calloc((size_t)(g->size ? g->size : 1), 1);
    if (seen == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]]) {
            int r = ranks[i];
            free(seen);
            return mpi_error(NULL, MPI_ERR_RANK, fn, "invalid or repeated rank %d (group size %d)",
                             r, g->size);
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_incl";
    GROUP_CHECK(fn, group);
    int rc = check_rank_list(fn, group, n, ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    if (newgroup == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    if (n == 0) { /* every empty result is MPI_GROUP_EMPTY (as in group.c) */
        *newgroup = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct credo_group *g = group_new(n);
    if (g == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++)
        g->world_of[i] = group->world_of[ranks[i]];
    group_index(g);
    *newgroup = g;
    return MPI_SUCCESS;
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_excl";
    GROUP_CHECK(fn, group);
    int rc = check_rank_list(fn, group, n, ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    if (newgroup == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    if (n == group->size) {
        *newgroup = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct credo_group *g = group_new(group->size - n);
    if (g == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int m = 0;
    for (int i = 0; i < group->size; i++) {
        int excluded = 0;
        for (int k = 0; k < n && !excluded; k++)
            excluded = ranks[k] == i;
        if (!excluded)
            g->world_of[m++] = group->world_of[i];
    }
    group_index(g);
    *newgroup = g;
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Comm_size)
CREDO_PMPI(MPI_Comm_rank)
CREDO_PMPI(MPI_Comm_dup)
CREDO_PMPI(MPI_Comm_split)
CREDO_PMPI(MPI_Comm_free)
CREDO_PMPI(MPI_Comm_compare)
CREDO_PMPI(MPI_Comm_test_inter)
CREDO_PMPI(MPI_Comm_get_attr)
CREDO_PMPI(MPI_Comm_set_name)
CREDO_PMPI(MPI_Comm_get_name)
CREDO_PMPI(MPI_Comm_group)
CREDO_PMPI(MPI_Group_size)
CREDO_PMPI(MPI_Group_rank)
CREDO_PMPI(MPI_Group_free)
CREDO_PMPI(MPI_Group_translate_ranks)
CREDO_PMPI(MPI_Group_compare)
CREDO_PMPI(MPI_Group_incl)
CREDO_PMPI(MPI_Group_excl)
