#pragma once
// One step of a collective operation whose failure must surface on every rank alike. A failure on
// some ranks only (a full disk seen by one writer, a bad argument on one rank) would otherwise
// leave the others waiting in the next collective call; after a step every rank knows whether any
// failed, and all throw the same Error, so that they unwind (closing HDF5 objects collectively)
// together.
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::io::detail {

/// Collective: `Communicator::agree`, whose message also names the failing rank when not every
/// rank failed ("... (on rank 2; 1 of 4 ranks failed)"); returns normally if no rank failed.
void agree(const Communicator& comm, const std::optional<Error>& mine);

/// Collective: runs `step` on this rank, then `agree`s on the outcome. A message that does not
/// name a tessera function yet is prefixed with `where` ("tessera::io::save: H5Dwrite ... failed").
template <class Step>
void collective_step(const Communicator& comm, std::string_view where, Step&& step) {
  std::optional<Error> outcome;
  try {
    step();
  } catch (const Error& e) {
    outcome = e;
  } catch (const std::exception& e) {
    outcome = Error(ErrorCode::internal, std::string("unexpected exception: ") + e.what());
  }
  if (outcome && !std::string_view(outcome->what()).starts_with("tessera::"))
    outcome = Error(outcome->code(), std::string(where) + ": " + outcome->what());
  agree(comm, outcome);
}

}  // namespace tessera::io::detail
