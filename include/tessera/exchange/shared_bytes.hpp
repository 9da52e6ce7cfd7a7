#pragma once
/// \file
/// `detail::SharedBytes`: one rank's bytes in an MPI-3 shared-memory window
/// (`MPI_Win_allocate_shared` over the ranks of its node), so that the other ranks of the node can
/// read them in place: the storage the `shared_memory` way of moving copies from in one copy
/// (src/exchange/shared_memory.hpp, docs/engine.md, "Single copy on the node").
///
/// Allocating and freeing are **collective over the communicator's node** (the ranks of
/// `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`): every rank of the communicator must make and
/// drop its SharedBytes in the same order, zero bytes included. `Storage<N>` (array/storage.hpp)
/// allocates through them when `shared_storage_requested()`; its allocations (array creation,
/// staging of a redistribution or migration, the buffer freed by a commit or discard) already
/// happen on every rank in the same order.
/// \code
///   tessera::detail::SharedBytes b(comm, 1024, alignof(double));  // collective over comm's node
///   std::memset(b.data(), 0, b.size());
/// \endcode

#include <cstddef>
#include <memory>

#include "tessera/exchange/communicator.hpp"

namespace tessera::detail {

struct SharedWindow;  // the window and what its readers need (src/exchange/shared_window.hpp)

/// Bytes in a shared-memory window (see the file comment). Move-only; a default-constructed one
/// holds nothing and frees nothing.
class SharedBytes {
 public:
  SharedBytes() noexcept;
  /// Collective over `comm`'s node: `bytes` bytes (may be 0) aligned to `alignment` (at most a
  /// page). Throws `std::bad_alloc` on every rank of the node when the window, or this rank's
  /// bookkeeping of it, cannot be made on some rank of it: a rank that fails still takes part in
  /// the window's creation and the ranks agree after it, so none is left waiting in the collective
  /// or holding a window the others dropped.
  SharedBytes(const Communicator& comm, std::size_t bytes, std::size_t alignment);
  /// Collective over the node, as the allocation was (`MPI_Win_free`).
  ~SharedBytes();
  SharedBytes(SharedBytes&& other) noexcept;
  SharedBytes& operator=(SharedBytes&& other) noexcept;
  SharedBytes(const SharedBytes&) = delete;
  SharedBytes& operator=(const SharedBytes&) = delete;

  /// This rank's bytes (null for 0 bytes).
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  /// True for a default-constructed one (nothing to free); a window of 0 bytes is not `held()`'s
  /// opposite: it still has to be freed collectively.
  [[nodiscard]] bool held() const noexcept { return window_ != nullptr; }

 private:
  void release() noexcept;
  std::unique_ptr<SharedWindow> window_;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// True when array storage is to live in shared-memory windows: `TESSERA_MOVE_ALGORITHM` asks for
/// `shared_memory` (read once, as `environment_move_algorithm`). The same on every rank when the
/// environment is.
[[nodiscard]] bool shared_storage_requested();

}  // namespace tessera::detail
