/* tests/hosts/nodeaware.c — node boundaries as a job across test hosts sees them: the processor name,
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and MPI_Win_allocate_shared (launch.sh, case node-aware). */
/* Every rank checks that MPI_Get_processor_name is its host's name, that its shared-memory
 * communicator holds exactly the ranks whose processor name is its own (in world order), and that it
 * sees every member's word of a shared window (written by the owner, read through
 * MPI_Win_shared_query). It prints "nodeaware: rank R host H node-size S ok" or a FAIL line on
 * stderr; exit 1 on any failure. "nodeaware abort R CODE": rank R prints "nodeaware: rank R aborting
 * at T ms" (wall clock) and calls MPI_Abort(CODE) instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAME_LEN 256

int main(int argc, char **argv)
{
    int me, np, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 3 && strcmp(argv[1], "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == atoi(argv[2])) {
            /* the wall clock (the same on every test host), for the test to time the ending from */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            printf("nodeaware: rank %d aborting at %lld ms\n", me, (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, atoi(argv[3]));
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait here until the job is ended */
        MPI_Finalize();
        return 0;
    }
    char name[NAME_LEN] = "", host[NAME_LEN] = "";
    int len;
    MPI_Get_processor_name(name, &len);
    gethostname(host, sizeof host - 1);
    if (strcmp(name, host) != 0) {
        fprintf(stderr, "nodeaware: rank %d FAIL: processor name '%s', host name '%s'\n", me, name, host);
        bad = 1;
    }
    char *all = calloc((size_t)np, NAME_LEN);
    MPI_Allgather(name, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize, nme;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nme);
    /* world ranks of the node's members, in node order: must be the same-name ranks, ascending */
    int *members = malloc((size_t)nsize * sizeof *members), *idx = malloc((size_t)nsize * sizeof *idx);
    MPI_Group wg, ng;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(node, &ng);
    for (int i = 0; i < nsize; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(ng, nsize, idx, wg, members);
    int k = 0;
    for (int r = 0; r < np; r++) {
        if (strcmp(all + (size_t)r * NAME_LEN, name) != 0)
            continue;
        if (k >= nsize || members[k] != r) {
            fprintf(stderr, "nodeaware: rank %d FAIL: rank %d shares host %s but is not member %d of the node communicator\n",
                    me, r, name, k);
            bad = 1;
        }
        k++;
    }
    if (k != nsize) {
        fprintf(stderr, "nodeaware: rank %d FAIL: %d ranks on host %s, node communicator of %d\n", me, k, name, nsize);
        bad = 1;
    }

    int *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win);
    MPI_Win_lock_all(0, win);
    *mine = 1000 + me;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int i = 0; i < nsize; i++) {
        MPI_Aint size;
        int disp;
        int *theirs;
        MPI_Win_shared_query(win, i, &size, &disp, &theirs);
        if (size != (MPI_Aint)sizeof(int) || *theirs != 1000 + members[i]) {
            fprintf(stderr, "nodeaware: rank %d FAIL: shared word of node member %d (rank %d): %d, expected %d\n", me, i,
                    members[i], *theirs, 1000 + members[i]);
            bad = 1;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    MPI_Comm_free(&node);
    if (!bad)
        printf("nodeaware: rank %d host %s node-size %d ok\n", me, name, nsize);
    free(all);
    free(members);
    free(idx);
    MPI_Finalize();
    return bad;
}
