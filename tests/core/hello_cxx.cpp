// tests/core/hello_cxx.cpp — a C++ MPI program (the C API from C++, as C++ codes use it since MPI 3
// removed the C++ bindings): built with mpicxx by wrapper_test.sh; exits non-zero unless the sum adds up.
#include <mpi.h>
#include <iostream>
#include <vector>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  std::vector<int> v(n, r), all(n * n);
  MPI_Allgather(v.data(), n, MPI_INT, all.data(), n, MPI_INT, MPI_COMM_WORLD);
  long s = 0; for (int x : all) s += x;
  if (r == 0) std::cout << "c++ hello from " << n << " ranks, sum " << s << std::endl;
  MPI_Finalize(); return s != (long)n * n * (n - 1) / 2;
}
