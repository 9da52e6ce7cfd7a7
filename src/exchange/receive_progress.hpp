#pragma once
// Completing point-to-point receives as they arrive, shared by the Mover and the FusedMover: each
// arrived message is unpacked once, in arrival order, so unpacking overlaps the messages still in
// flight.

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::detail {

/// Completes receives of `requests` until `left` reaches 0 (blocking) or none has arrived (not
/// blocking), calling `unpack(i)` once per arrived receive i and marking it in `unpacked`.
template <class Unpack>
void finish_receives(std::vector<MPI_Request>& requests, std::vector<char>& unpacked, std::size_t& left,
                     bool blocking, Unpack&& unpack) {
  while (left > 0) {
    int index = MPI_UNDEFINED, flag = 0;
    if (blocking) {
      check_mpi(MPI_Waitany(static_cast<int>(requests.size()), requests.data(), &index, MPI_STATUS_IGNORE),
                "MPI_Waitany");
    } else {
      check_mpi(MPI_Testany(static_cast<int>(requests.size()), requests.data(), &index, &flag, MPI_STATUS_IGNORE),
                "MPI_Testany");
      if (!flag || index == MPI_UNDEFINED) return;
    }
    if (index == MPI_UNDEFINED) break;
    const auto i = static_cast<std::size_t>(index);
    if (!unpacked[i]) {
      unpack(i);
      unpacked[i] = 1;
      --left;
    }
  }
}

}  // namespace tessera::detail
