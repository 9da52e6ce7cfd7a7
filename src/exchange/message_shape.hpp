#pragma once
// How the movers describe one message to MPI: counts are ints, so a message over INT_MAX bytes is
// sent as a count of 64-byte units (its buffer padded to a whole unit). Both sides compute the
// same shape from the same size. Shared by the Mover and the FusedMover.

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <utility>

#include "tessera/core/error.hpp"

namespace tessera::detail {

/// Bytes of one unit of a message over INT_MAX bytes (an MPI_Type_contiguous of MPI_BYTE).
inline constexpr std::size_t kMessageUnit = 64;

/// Count and datatype of a message of `bytes`: (bytes, MPI_BYTE), or (units, `unit`) above
/// INT_MAX bytes. Throws `Error(overflow)`, naming `who`, if even the units overflow an int.
inline std::pair<int, MPI_Datatype> message_shape(std::size_t bytes, MPI_Datatype unit, const char* who) {
  if (bytes <= static_cast<std::size_t>(INT_MAX)) return {static_cast<int>(bytes), MPI_BYTE};
  const std::size_t units = (bytes + kMessageUnit - 1) / kMessageUnit;
  if (units > static_cast<std::size_t>(INT_MAX))
    fail(ErrorCode::overflow, who, ": a message of ", bytes, " bytes is too large");
  return {static_cast<int>(units), unit};
}

/// Size of the buffer a message of `bytes` needs (padded to whole units above INT_MAX bytes).
inline std::size_t padded(std::size_t bytes) {
  return bytes <= static_cast<std::size_t>(INT_MAX) ? bytes : (bytes + kMessageUnit - 1) / kMessageUnit * kMessageUnit;
}

}  // namespace tessera::detail
