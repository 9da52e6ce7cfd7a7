/* The one thing Fortran cannot do through iso_c_binding alone: turn a Fortran MPI communicator
 * (an INTEGER handle, or type(MPI_Comm)'s MPI_VAL from mpi_f08) into a C MPI_Comm. MPI_Comm_f2c is
 * a C function or macro of the MPI library, so it lives here, in C, compiled against the same mpi.h
 * as libtessera. */
#include <tessera.h>

tessera_status tessera_fortran_comm_create(MPI_Fint comm, tessera_comm* out);

tessera_status tessera_fortran_comm_create(MPI_Fint comm, tessera_comm* out) {
  return tessera_comm_create(MPI_Comm_f2c(comm), out);
}
