#pragma once
// One step of a collective operation whose failure must surface on every rank alike. A failure on
// some ranks only (a full disk seen by one writer, a bad argument on one rank) would otherwise
// leave the others waiting in the next collective call; after a step every rank knows whether any
// failed, and all throw the same Error, so that they unwind (closing HDF5 objects collectively)
// together.
#include <mpi.h>

#include <exception>
#include <string>
#include <string_view>

#include "tessera/core/error.hpp"

namespace tessera::io::detail {

/// What one rank's attempt at a step left: nothing, or an error.
struct StepOutcome {
  bool failed = false;
  ErrorCode code = ErrorCode::internal;
  std::string message;
};

/// Collective: throws on every rank the error of the lowest rank whose outcome failed (naming
/// that rank when not every rank failed); returns normally if none did.
void agree(MPI_Comm comm, const StepOutcome& mine);

/// Collective: runs `step` on this rank, then `agree`s on the outcome. A message that does not
/// name a tessera function yet is prefixed with `where` ("tessera::io::save: H5Dwrite ... failed").
template <class Step>
void collective_step(MPI_Comm comm, std::string_view where, Step&& step) {
  StepOutcome outcome;
  try {
    step();
  } catch (const Error& e) {
    outcome = {true, e.code(), e.what()};
  } catch (const std::exception& e) {
    outcome = {true, ErrorCode::internal, std::string("unexpected exception: ") + e.what()};
  }
  if (outcome.failed && !outcome.message.starts_with("tessera::"))
    outcome.message = std::string(where) + ": " + outcome.message;
  agree(comm, outcome);
}

}  // namespace tessera::io::detail
