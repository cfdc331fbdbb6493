/* tests/core/hello.c — the smallest MPI program: compiled with the installed mpicc by install_test.sh,
 * and built in the tree as core_hello for config_values.sh. Exits non-zero unless the allreduce of the
 * ranks adds up. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) { int r, n; MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  int x = r, s = 0; MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); if (r == 0) printf("hello from %d ranks, sum %d\n", n, s); MPI_Finalize(); return s != n*(n-1)/2; }
