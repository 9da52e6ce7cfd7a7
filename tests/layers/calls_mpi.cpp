// Fixture of the layering check's own test (tests/CMakeLists.txt): the check must report line 4
// and line 9, and none of the lines that only mention MPI_Wtime() in a comment or a string.
#include <mpi.h>
double now() { return MPI_Wtime(); }
/* a block comment: MPI_Barrier(comm);
   MPI_Abort(MPI_COMM_WORLD, 1); */
const char* text() { return "call MPI_Init (first)"; }  // MPI_Finalize();
MPI_Comm world() { return MPI_COMM_WORLD; }
int rank(MPI_Comm c) { int r = 0; /* inline */ MPI_Comm_rank(c, &r); return r; }
