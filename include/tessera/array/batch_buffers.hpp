#pragma once
/// \file
/// The buffers an associative domain keeps from batch to batch (array/key_routing.hpp), internal.
///
/// Why kept: a batch of 65536 keys per rank needs a few MiB of transient buffers. Freed after every
/// batch, glibc may give that memory back to the kernel (its trim and mmap thresholds move with
/// what the program allocated before) and take it again in the next batch, page by page: on this
/// project's VM an `int64` lookup of 131072 keys per rank then spent most of its time in page
/// faults, 14-16 ms where it takes 3.2 ms when the memory stays (the hand-written table of
/// bench_assoc, freeing its buffers alike, 7-10 ms), and which of the two a run saw depended on
/// what had run before in the process (bench/assoc-kept-buffers-experiment.txt). So what arrives
/// (the room), the order in which keys were sent and their owners stay, each as large as the
/// largest batch so far.
///
/// What is sent (the keys grouped by owner, an owner's answers) is allocated fresh for each
/// batch: writing again into a buffer that a peer had just read through OpenMPI's single copy
/// (CMA) was slower than writing a new one — string lookups of 1024 keys by a third
/// (bench/assoc-headers-experiment.txt, variant v3), `int64` updates of 65536 keys by a fifth
/// (1.5-1.7 ms against 1.3; bench/assoc-kept-buffers-experiment.txt). With the rest kept, those
/// fresh buffers come back from glibc's free lists without page faults.

#include <cstddef>
#include <memory>
#include <span>

namespace tessera::detail {

/// Storage for up to `capacity()` items of a trivially copyable `T`, reused by each `take`: it
/// grows to the largest request and is never cleared or zero-filled (items are written before
/// they are read).
template <class T>
class GrowOnlyBuffer {
 public:
  /// The first `n` items of the storage, grown (contents lost) if it is smaller. May throw
  /// `std::bad_alloc`; the buffer is then empty.
  [[nodiscard]] std::span<T> take(std::size_t n) {
    if (n > capacity_) {
      data_.reset();
      capacity_ = 0;
      data_ = std::make_unique_for_overwrite<T[]>(n);
      capacity_ = n;
    }
    return {data_.get(), n};
  }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t capacity_ = 0;
};

/// What one associative domain keeps for its batches (one batch at a time uses them).
struct BatchBuffers {
  GrowOnlyBuffer<std::byte> room;     ///< where keys arrive, and then the answers to this rank's keys
  GrowOnlyBuffer<std::size_t> order;  ///< the batch position of each key sent
  GrowOnlyBuffer<int> owners;         ///< the owner of each key, while routing

  /// Bytes held.
  [[nodiscard]] std::size_t bytes() const noexcept {
    return room.capacity() + order.capacity() * sizeof(std::size_t) + owners.capacity() * sizeof(int);
  }
};

}  // namespace tessera::detail
