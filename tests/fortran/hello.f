! tests/fortran/hello.f — fixed-form Fortran 77 style with mpif.h, built by the mpifort wrapper:
! a token passes the ring as INTEGER, then as DOUBLE PRECISION (one routine, two buffer types).
      PROGRAM HELLO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROC, TOKEN, STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION DTOKEN
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      IF (RANK .EQ. 0) THEN
         TOKEN = 1
         CALL MPI_SEND(TOKEN, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_RECV(TOKEN, 1, MPI_INTEGER, NPROC - 1, 0,
     &                 MPI_COMM_WORLD, STATUS, IERR)
         DTOKEN = 0.5D0
         CALL MPI_SEND(DTOKEN, 1, MPI_DOUBLE_PRECISION, 1, 1,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_RECV(DTOKEN, 1, MPI_DOUBLE_PRECISION, NPROC - 1, 1,
     &                 MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         IF (TOKEN .NE. NPROC .OR. STATUS(MPI_SOURCE) .NE. NPROC - 1
     &       .OR. DTOKEN .NE. 0.5D0 * NPROC) THEN
            PRINT *, 'hello.f: wrong token', TOKEN, DTOKEN
            CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
         END IF
         PRINT '(A,I0,A)', 'hello.f: the token passed ', NPROC,
     &         ' ranks as INTEGER and DOUBLE PRECISION'
      ELSE
         CALL MPI_RECV(TOKEN, 1, MPI_INTEGER, RANK - 1, 0,
     &                 MPI_COMM_WORLD, STATUS, IERR)
         TOKEN = TOKEN + 1
         CALL MPI_SEND(TOKEN, 1, MPI_INTEGER, MOD(RANK + 1, NPROC), 0,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_RECV(DTOKEN, 1, MPI_DOUBLE_PRECISION, RANK - 1, 1,
     &                 MPI_COMM_WORLD, STATUS, IERR)
         DTOKEN = DTOKEN + 0.5D0
         CALL MPI_SEND(DTOKEN, 1, MPI_DOUBLE_PRECISION,
     &                 MOD(RANK + 1, NPROC), 1, MPI_COMM_WORLD, IERR)
      END IF
      CALL MPI_FINALIZE(IERR)
      END
