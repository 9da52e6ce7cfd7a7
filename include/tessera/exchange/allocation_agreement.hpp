#pragma once
/// \file
/// An allocation that fails inside a collective movement, made an error on every rank before
/// anything moves.
///
/// A movement (a redistribution, a migration, the first ghost update or remap of a layout)
/// allocates what it needs first (new storage, schedules, message buffers) and only then sends.
/// If an allocation fails on one rank, that rank must not leave while the others start sending
/// (they would wait for it forever), and no rank may have moved anything yet, so that the arrays
/// keep their values and distribution. So the allocating part runs under `capture_failure`, which
/// turns `std::bad_alloc` into `Error(out_of_memory)` naming the operation, the bytes and what they
/// were for, and then every rank calls `Communicator::agree` once: all throw the same error, or
/// none does.
/// \code
///   std::optional<Error> failed;
///   detail::capture_failure(failed, comm, "Domain::redistribute", bytes, "the new storage of array 0",
///                           [&] { stage(); });
///   comm.agree(failed);   // one small allreduce; throws on every rank if any rank failed
///   start_moving();       // nothing allocates from here on
/// \endcode

#include <cstddef>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera::detail {

/// `Error(out_of_memory)`: "<where>: out of memory on rank <rank>: could not allocate <bytes> bytes
/// for <what>; nothing moved, the arrays keep their values and distribution". `bytes == 0`: the
/// size is not known (the bytes are then left out).
[[nodiscard]] inline Error out_of_memory(std::string_view where, int rank, std::size_t bytes, std::string_view what) {
  return Error(ErrorCode::out_of_memory,
               bytes == 0 ? concat(where, ": out of memory on rank ", rank, ": could not allocate ", what,
                                   "; nothing moved, the arrays keep their values and distribution")
                          : concat(where, ": out of memory on rank ", rank, ": could not allocate ", bytes,
                                   " bytes for ", what, "; nothing moved, the arrays keep their values and distribution"));
}

/// Runs `step` (the allocating part of a collective movement, local to this rank) and keeps the
/// first failure in `failed`: `std::bad_alloc` or `std::length_error` as `out_of_memory(where,
/// rank, bytes, what)`, a `tessera::Error` as it is. Runs `step` even after an earlier failure:
/// steps that make movers must run alike on every rank (a mover takes a tag; some agree on their
/// algorithm), so a caller skips only steps that are purely local. Follow with `comm.agree(failed)`.
template <class Step>
void capture_failure(std::optional<Error>& failed, const Communicator& comm, std::string_view where, std::size_t bytes,
                     std::string_view what, Step&& step) {
  try {
    step();
  } catch (const Error& e) {
    if (!failed) failed = e;
  } catch (const std::bad_alloc&) {
    if (!failed) failed = out_of_memory(where, comm.rank(), bytes, what);
  } catch (const std::length_error&) {
    if (!failed) failed = out_of_memory(where, comm.rank(), bytes, what);
  }
}

/// Collective: `run(copy)` with `copy` a copy of this rank's `storage` (null when it is empty), made
/// here and agreed on by every rank before `run` moves anything (`out_of_memory` on every rank
/// otherwise). For a move within one array whose source and destination meet: movers send in
/// place, so a rank could send an element after it received into it or copied onto it.
template <class T, class Run>
void run_from_staged_copy(const Communicator& comm, std::string_view where, std::span<const T> storage, Run&& run) {
  std::vector<T> staged;
  std::optional<Error> failed;
  capture_failure(failed, comm, where, storage.size() * sizeof(T), "a copy of the array's storage",
                  [&] { staged.assign(storage.begin(), storage.end()); });
  comm.agree(failed);
  run(staged.empty() ? nullptr : staged.data());
}

/// Bytes a mover of `schedule` may allocate for it on this rank at most: a packed buffer per
/// message in each direction and a staging buffer for overlapping local copies (most channels
/// need less: contiguous and datatype messages are sent straight from the array).
[[nodiscard]] inline std::size_t message_buffer_bound(const Schedule& schedule, std::size_t element_size) noexcept {
  std::size_t elements = static_cast<std::size_t>(schedule.local_elements());
  for (const PeerBlocks& p : schedule.sends) elements += static_cast<std::size_t>(p.elements);
  for (const PeerBlocks& p : schedule.receives) elements += static_cast<std::size_t>(p.elements);
  return elements * element_size;
}

}  // namespace tessera::detail
