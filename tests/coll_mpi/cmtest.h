/* tests/coll_mpi/cmtest.h — failure reporting shared by the collective tests: every check names
 * the rank, file and line, then aborts the job so no rank waits on a peer that gave up. */
#ifndef CREDO_TESTS_COLL_MPI_CMTEST_H
#define CREDO_TESTS_COLL_MPI_CMTEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int r_ = -1;                                                                           \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                    \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

#endif
