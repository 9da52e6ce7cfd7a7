#pragma once
/// \file
/// `Mover`: executes a compiled `Schedule` on concrete storage (KeLP's Mover, PARTI's `Data_Move`).
///
/// `start()` posts every receive first, packs and sends one message per peer (a peer whose data is
/// one contiguous stretch is sent straight from the array, without packing), then does the local
/// copies; `wait()` unpacks messages as they arrive and completes the sends; `test()` polls.
/// Several movers may be in flight at once: each has its own tag. Buffers are allocated when the
/// mover is made and reused by every execution: nothing allocates after that.
/// \code
///   tessera::Mover halo(world, schedule, sizeof(double));
///   halo.start(u.data(), u.data());   // source and destination may be the same array
///   compute_interior(u);              // overlaps the exchange
///   halo.wait();
/// \endcode
/// Elements are moved as bytes, so any trivially copyable type works; a combine function (see
/// `combine_function<T>`) accumulates arriving values instead of replacing.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/exchange/communicator.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

/// Counters a benchmark or a test can read.
struct MoverStats {
  /// Times the schedule was run (start() calls).
  std::uint64_t executions = 0;
  /// Messages sent, every execution together.
  std::uint64_t messages_sent = 0;
  /// Bytes sent in those messages.
  std::uint64_t bytes_sent = 0;
  /// Bytes copied within this rank.
  std::uint64_t bytes_copied_locally = 0;
  std::uint64_t buffer_allocations = 0;  ///< grows when the mover is made and at its first overlapping local copy
};

/// An uninitialised byte buffer: pack buffers are always written before they are read, so the
/// zero-fill a std::vector would do is wasted work (it was 2x the message bytes per new mover).
class RawBytes {
 public:
  void allocate(std::size_t n) {
    data_ = std::make_unique_for_overwrite<std::byte[]>(n);
    size_ = n;
  }
  [[nodiscard]] std::byte* data() noexcept { return data_.get(); }
  [[nodiscard]] const std::byte* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t size_ = 0;
};

/// Executes a compiled Schedule on concrete storage, as often as asked (see the file comment).
class Mover {
 public:
  /// Binds `schedule` to elements of `element_size` bytes. `combine == nullptr` replaces
  /// destination elements. Collective in order: every rank must create its movers for the same
  /// exchanges in the same order (that is how their tags match).
  Mover(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::size_t element_size,
        CombineFn combine = nullptr);
  ~Mover();
  Mover(const Mover&) = delete;
  Mover& operator=(const Mover&) = delete;
  Mover(Mover&&) noexcept;
  Mover& operator=(Mover&&) = delete;

  /// Starts an execution reading from the buffer at `src` and writing into `dst` (each the start
  /// of this rank's storage of the source and destination arrays). Throws `Error(invalid_argument)`
  /// if an execution is still in flight.
  void start(const void* src, void* dst);
  /// Completes the execution started last: every destination element is written when it returns.
  void wait();
  /// True when the execution has completed (then `wait()` returns at once); never blocks.
  [[nodiscard]] bool test();
  /// `start` then `wait`.
  void run(const void* src, void* dst) {
    start(src, dst);
    wait();
  }
  /// True between start() and the wait() (or test()) that completes it.
  [[nodiscard]] bool in_flight() const noexcept { return in_flight_; }

  /// The schedule this mover runs.
  [[nodiscard]] const Schedule& schedule() const noexcept { return *schedule_; }
  /// Counters of what the executions did.
  [[nodiscard]] const MoverStats& stats() const noexcept { return stats_; }
  /// The message tag this mover uses (its own, from the communicator).
  [[nodiscard]] int tag() const noexcept { return tag_; }

 private:
  struct Channel {  // one peer, one direction
    int peer = 0;
    std::size_t bytes = 0;
    bool in_place = false;                  // contiguous: sent from / received into the array directly
    MPI_Datatype type = MPI_DATATYPE_NULL;  // a few long contiguous stretches: MPI walks them itself
    std::size_t peer_index = 0;             // index into schedule sends/receives
    RawBytes buffer;                        // packed data otherwise (padded to the message unit)
  };

  MPI_Datatype stretches_type(const std::vector<Block>& blocks) const;

  void unpack(const Channel& c);
  void finish_receives(bool blocking);

  const Communicator* comm_;
  std::shared_ptr<const Schedule> schedule_;
  std::size_t element_size_;
  CombineFn combine_;
  int tag_;
  MPI_Datatype unit_ = MPI_DATATYPE_NULL;  // 64-byte unit for messages over INT_MAX bytes
  std::vector<Channel> sends_, receives_;
  RawBytes staging_;  // overlapping local copies: all read, then all written (made on first use)
  std::vector<MPI_Request> send_requests_, receive_requests_;
  std::vector<char> unpacked_;
  std::size_t receives_left_ = 0;
  const std::byte* src_ = nullptr;
  std::byte* dst_ = nullptr;
  bool in_flight_ = false;
  MoverStats stats_;
};

}  // namespace tessera
