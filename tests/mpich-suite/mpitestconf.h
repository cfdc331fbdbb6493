/* tests/mpich-suite/mpitestconf.h — what MPICH's configure would write for its test suite, by hand
 * for credo: C features of this toolchain, and no MPI features credo leaves out (docs/MPI.md). */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
/* gfortran names an external procedure in lower case with one underscore (f77/f90 C helpers) */
#define F77_NAME_LOWER_USCORE 1
#define HAVE_DLFCN_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_MEMORY_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRDUP 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_USLEEP 1
#define HAVE__BOOL 1
#define HAVE_GETRUSAGE 1
#define HAVE_PTHREAD_H 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define STDC_HEADERS 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define SIZEOF_MPI_OFFSET 8
#define POINTERINT_t long
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
/* one-sided communication (src/mpi/win*.c) */
#define HAVE_MPI_WIN_CREATE 1
/* MPI_INTEGER16 (optional in MPI): credo has it (GCC's __int128) */
#define HAVE_MPI_INTEGER16 1
/* credo leaves these out */
#undef HAVE_MPI_IO
#undef HAVE_MPI_SPAWN
#undef HAVE_FORTRAN_BINDING
#undef HAVE_CUDA
#undef HAVE_ZE
#undef HAVE_HIP
#endif
