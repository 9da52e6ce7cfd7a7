#pragma once
// Files and transfers of parallel HDF5 (the MPI-IO driver) as checkpoints use them.
#include <mpi.h>

#include <string>

#include "hdf5_handle.hpp"

namespace tessera::io::detail {

/// Collective: creates `path` (which must not exist) for parallel writing on `comm`.
[[nodiscard]] Hid create_parallel_file(const std::string& path, MPI_Comm comm);
/// Collective: opens the existing `path` for parallel reading on `comm`.
[[nodiscard]] Hid open_parallel_file(const std::string& path, MPI_Comm comm);
/// A transfer property list for collective MPI-IO.
[[nodiscard]] Hid collective_transfer();

}  // namespace tessera::io::detail
