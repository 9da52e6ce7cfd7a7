#pragma once
// What tessera needs to know about the MPI library it runs on, beyond the standard: the defects of
// specific releases that it works around. Read from MPI_Get_library_version once per process (every
// rank runs the same library, so every rank reaches the same answer without communicating).

namespace tessera::detail {

/// False where MPI_Neighbor_alltoallw / MPI_Ineighbor_alltoallw deliver wrong data: MPICH 4.0.0 to
/// 4.0.2 (Debian 12's MPICH is 4.0.2), whose generated C binding mishandles the per-neighbour
/// datatype arrays (pmodels/mpich#6233, fixed in 4.0.3 by #6252). Measured here: rank 0 sends one
/// double to rank 1 over a distributed graph; rank 1 receives nothing, blocking or not, with buffer
/// addresses or displacements, while MPI_Neighbor_alltoallv on the same graph is right.
/// A Mover asked for MoveAlgorithm::neighborhood uses point-to-point there instead.
[[nodiscard]] bool neighborhood_alltoallw_works();

}  // namespace tessera::detail
