/* src/mpi/session.c — MPI 4.0 sessions: Session_init/finalize, the process sets mpi://WORLD and
 * mpi://SELF, groups from them, intra- and intercommunicators from groups, session error handlers. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

#define SESSION_MAGIC 0x53657373u

struct credo_session {
    uint32_t magic;
    int thread_level;    /* provided to this session */
    MPI_Errhandler errh; /* holds a reference when user-defined */
};

/* The two process sets every MPI 4.0 implementation has; credo runs one job on one node, so there
 * are no others. Index 0 is the job, 1 this process. */
static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF"};
enum { N_PSETS = 2 };

static const char *const thread_level_names[] = {
    [MPI_THREAD_SINGLE] = "MPI_THREAD_SINGLE",
    [MPI_THREAD_FUNNELED] = "MPI_THREAD_FUNNELED",
    [MPI_THREAD_SERIALIZED] = "MPI_THREAD_SERIALIZED",
    [MPI_THREAD_MULTIPLE] = "MPI_THREAD_MULTIPLE",
};

static int session_ok(MPI_Session s)
{
    return mpi_handle_live(s, HK_SESSION) && s->magic == SESSION_MAGIC;
}

static int errh_valid(MPI_Errhandler h)
{
    return errh_live(h);
}

static void errh_retain(MPI_Errhandler h)
{
    if (h->kind == ERRH_USER)
        h->refcount++;
}

static void errh_release(MPI_Errhandler h)
{
    if (h->kind == ERRH_USER && --h->refcount == 0) {
        h->magic = DEAD_MAGIC;
        mpi_handle_del(h);
        free(h);
    }
}

/* Raises an error on handler h (fatal when h is not a valid handler) for a call that has no
 * communicator: a session's handler gets the session, the handler passed to
 * MPI_Comm_create_from_group gets MPI_COMM_NULL, since the communicator does not exist. */
static int raise_on(MPI_Errhandler h, MPI_Session s, int code, const char *fn, const char *fmt, ...)
{
    if (!errh_valid(h))
        h = MPI_ERRORS_ARE_FATAL;
    if (h->kind == ERRH_RETURN)
        return code;
    if (h->kind == ERRH_USER) {
        int e = code;
        if (s != MPI_SESSION_NULL) {
            ((MPI_Session_errhandler_function *)(void (*)(void))h->fn)(&s, &e);
        } else {
            MPI_Comm c = MPI_COMM_NULL;
            h->fn(&c, &e);
        }
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    mpi_error_abort(code, fn, fmt, ap);
}

#define SESSION_CHECK(fn, s)                                                                       \
    do {                                                                                           \
        if (!session_ok(s))                                                                        \
            return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_SESSION, fn, "invalid session");       \
    } while (0)

/* The thread level a session asks for in its info ("thread_level", MPI 4.0 11.3.1), single if
 * absent or not a level's name. */
static int requested_level(MPI_Info info)
{
    char v[32] = "";
    int flag = 0;
    if (info != MPI_INFO_NULL)
        PMPI_Info_get(info, "thread_level", (int)sizeof v - 1, v, &flag);
    for (int l = MPI_THREAD_MULTIPLE; flag && l > MPI_THREAD_SINGLE; l--)
        if (strcmp(v, thread_level_names[l]) == 0)
            return l;
    return MPI_THREAD_SINGLE;
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    if (!errh_valid(errhandler))
        return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "invalid error handler");
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return raise_on(errhandler, MPI_SESSION_NULL, MPI_ERR_INFO, fn, "invalid info object");
    if (session == NULL)
        return raise_on(errhandler, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "session is NULL");
    int level = requested_level(info);
    struct credo_session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return raise_on(errhandler, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    /* MPI_Session_init may be called by several threads at once (MPI 4.0 11.3.1), before any
     * lock of the runtime exists or is on: this one orders the start and the level change. */
    static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&init_lock);
    int rc = mpi_runtime_up(fn, level);
    if (rc == MPI_SUCCESS)
        mpi_thread_level_raise(level);
    pthread_mutex_unlock(&init_lock);
    if (rc != MPI_SUCCESS) {
        free(s);
        return raise_on(errhandler, MPI_SESSION_NULL, rc, fn, "cannot start the runtime");
    }
    CREDO_LOCK_ENTER();
    s->magic = SESSION_MAGIC;
    mpi_handle_add(s, HK_SESSION);
    /* the lock is process-wide: once any part of the process runs at MPI_THREAD_MULTIPLE, so does
     * this session, whatever it asked for (MPICH's sessions report the same) */
    s->thread_level = (credo_lock_on & CREDO_LOCK_FOR_THREADS) ? MPI_THREAD_MULTIPLE : level;
    s->errh = errhandler;
    errh_retain(errhandler);
    credo_mpi.sessions++;
    *session = s;
    return MPI_SUCCESS;
}

int MPI_Session_finalize(MPI_Session *session)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_finalize";
    if (session == NULL)
        return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "session is NULL");
    MPI_Session s = *session;
    SESSION_CHECK(fn, s);
    s->magic = DEAD_MAGIC;
    mpi_handle_del(s);
    errh_release(s->errh);
    free(s);
    *session = MPI_SESSION_NULL;
    /* The last user of the runtime shuts it down (init.c); the world model may still hold it. */
    if (--credo_mpi.sessions == 0 && credo_mpi.world != MPI_WORLD_ACTIVE)
        return mpi_runtime_down(fn);
    return MPI_SUCCESS;
}

int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_get_num_psets";
    SESSION_CHECK(fn, session);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return raise_on(session->errh, session, MPI_ERR_INFO, fn, "invalid info object");
    if (npset_names == NULL)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "npset_names is NULL");
    *npset_names = N_PSETS;
    return MPI_SUCCESS;
}

/* pset_len in: the room at pset_name (0: only ask for the length); out: the name's length with
 * its terminating NUL. A name longer than the room is cut and terminated. */
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_get_nth_pset";
    SESSION_CHECK(fn, session);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return raise_on(session->errh, session, MPI_ERR_INFO, fn, "invalid info object");
    if (n < 0 || n >= N_PSETS)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn,
                        "process set %d does not exist (there are %d)", n, N_PSETS);
    if (pset_len == NULL || *pset_len < 0 || (*pset_len > 0 && pset_name == NULL))
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "invalid pset_len or pset_name");
    int len = (int)strlen(pset_names[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    *pset_len = len;
    return MPI_SUCCESS;
}

/* The two built-in names are matched without regard to case ("mpi://self" finds mpi://SELF): the
 * standard spells them in capitals but does not say names are case-sensitive, MPICH ignores case,
 * and a program that works there should not fail here. Get_nth_pset still reports the capitals. */
static int pset_index(const char *name)
{
    for (int i = 0; name != NULL && i < N_PSETS; i++)
        if (strcasecmp(name, pset_names[i]) == 0)
            return i;
    return -1;
}

int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_get_pset_info";
    SESSION_CHECK(fn, session);
    int p = pset_index(pset_name);
    if (p < 0)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "unknown process set \"%s\"",
                        pset_name ? pset_name : "(null)");
    if (info == NULL)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "info is NULL");
    char size[16];
    snprintf(size, sizeof size, "%d", p == 0 ? credo_rt.size : 1);
    if (PMPI_Info_create(info) != MPI_SUCCESS || PMPI_Info_set(*info, "mpi_size", size) != MPI_SUCCESS)
        return raise_on(session->errh, session, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_get_info";
    SESSION_CHECK(fn, session);
    if (info_used == NULL)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "info_used is NULL");
    if (PMPI_Info_create(info_used) != MPI_SUCCESS ||
        PMPI_Info_set(*info_used, "thread_level", thread_level_names[session->thread_level]) != MPI_SUCCESS)
        return raise_on(session->errh, session, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_from_session_pset";
    SESSION_CHECK(fn, session);
    int p = pset_index(pset_name);
    if (p < 0)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "unknown process set \"%s\"",
                        pset_name ? pset_name : "(null)");
    if (newgroup == NULL)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "newgroup is NULL");
    return PMPI_Comm_group(p == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, newgroup);
}

/* The tag that stands for a string tag: FNV-1a, in the upper half of the tag range. */
static int stringtag_tag(const char *stringtag)
{
    uint32_t hash = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        hash = (hash ^ *p) * 16777619u;
    return (int)(0x40000000u | (hash & 0x3fffffffu));
}

/* Collective over group, with no parent communicator: credo's group members are all in the job, so
 * the context id is agreed as MPI_Comm_create_group does over MPI_COMM_WORLD, on its separate
 * creation context, with a tag derived from stringtag (FNV-1a, in the upper half of the tag range):
 * concurrent creations with different tags do not mix, and no user message can match these. */
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_create_from_group";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    MPI_Errhandler h = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    if (!errh_valid(h))
        return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "invalid error handler");
    if (!group_ok(group))
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_GROUP, fn, "invalid group");
    if (stringtag == NULL || strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "stringtag is NULL or longer than %d",
                        MPI_MAX_STRINGTAG_LEN - 1);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_INFO, fn, "invalid info object");
    if (newcomm == NULL)
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (group->rank == MPI_UNDEFINED)
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_GROUP, fn,
                        "rank %d is not a member of the group", credo_rt.rank);
    int rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, stringtag_tag(stringtag), newcomm);
    if (rc != MPI_SUCCESS)
        return raise_on(h, MPI_SESSION_NULL, rc, fn, "context agreement failed");
    if (PMPI_Comm_set_errhandler(*newcomm, h) != MPI_SUCCESS ||
        (info != MPI_INFO_NULL && PMPI_Comm_set_info(*newcomm, info) != MPI_SUCCESS))
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

/* The leaders of MPI_Intercomm_create_from_groups talk on a context of their own, the last slot of
 * the idup space, which mpi_ctx_slot never hands out (comm_create.c): no communicator has it, so no
 * user message can match theirs. */
#define CTX_FROM_GROUPS MPI_CTX_RESERVED

/* Each group first gets its own communicator from its group (as MPI_Comm_create_from_group), then
 * the two are joined as MPI_Intercomm_create joins them, the leaders swapping over that context. */
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                     int remote_leader, const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    MPI_Errhandler h = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    if (!errh_valid(h))
        return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "invalid error handler");
    if (!group_ok(local_group) || !group_ok(remote_group))
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_GROUP, fn, "invalid group");
    if (local_leader < 0 || local_leader >= local_group->size || remote_leader < 0 ||
        remote_leader >= remote_group->size)
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_RANK, fn,
                        "invalid leader (local %d of %d, remote %d of %d)", local_leader,
                        local_group->size, remote_leader, remote_group->size);
    if (newintercomm == NULL)
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "newintercomm is NULL");
    MPI_Comm local = MPI_COMM_NULL;
    int rc = PMPI_Comm_create_from_group(local_group, stringtag, info, MPI_ERRORS_RETURN, &local);
    if (rc != MPI_SUCCESS)
        return raise_on(h, MPI_SESSION_NULL, rc, fn, "cannot create the local group's communicator");
    rc = mpi_intercomm_create_core(fn, local, local_leader, remote_group->world_of[remote_leader],
                                   CTX_FROM_GROUPS, stringtag_tag(stringtag),
                                   newintercomm);
    PMPI_Comm_free(&local);
    if (rc != MPI_SUCCESS)
        return raise_on(h, MPI_SESSION_NULL, rc, fn, "joining the groups failed");
    if (PMPI_Comm_set_errhandler(*newintercomm, h) != MPI_SUCCESS ||
        (info != MPI_INFO_NULL && PMPI_Comm_set_info(*newintercomm, info) != MPI_SUCCESS))
        return raise_on(h, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_create_errhandler";
    if (session_errhandler_fn == NULL || errhandler == NULL)
        return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_ARG, fn, "NULL argument");
    /* Stored in the communicator slot; raise_on casts it back for sessions. */
    struct credo_errhandler *h =
        mpi_errh_new((MPI_Comm_errhandler_function *)(void (*)(void))session_errhandler_fn);
    if (h == NULL)
        return raise_on(NULL, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *errhandler = h;
    return MPI_SUCCESS;
}

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_set_errhandler";
    SESSION_CHECK(fn, session);
    if (!errh_valid(errhandler))
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "invalid error handler");
    errh_retain(errhandler);
    errh_release(session->errh);
    session->errh = errhandler;
    return MPI_SUCCESS;
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_get_errhandler";
    SESSION_CHECK(fn, session);
    if (errhandler == NULL)
        return raise_on(session->errh, session, MPI_ERR_ARG, fn, "errhandler is NULL");
    /* The caller gets a new reference, released by MPI_Errhandler_free. */
    errh_retain(session->errh);
    *errhandler = session->errh;
    return MPI_SUCCESS;
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Session_call_errhandler";
    SESSION_CHECK(fn, session);
    raise_on(session->errh, session, errorcode, fn, "error %d raised by the application", errorcode);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Session_init)
CREDO_PMPI(MPI_Session_finalize)
CREDO_PMPI(MPI_Session_get_num_psets)
CREDO_PMPI(MPI_Session_get_nth_pset)
CREDO_PMPI(MPI_Session_get_pset_info)
CREDO_PMPI(MPI_Session_get_info)
CREDO_PMPI(MPI_Group_from_session_pset)
CREDO_PMPI(MPI_Comm_create_from_group)
CREDO_PMPI(MPI_Intercomm_create_from_groups)
CREDO_PMPI(MPI_Session_create_errhandler)
CREDO_PMPI(MPI_Session_set_errhandler)
CREDO_PMPI(MPI_Session_get_errhandler)
CREDO_PMPI(MPI_Session_call_errhandler)
