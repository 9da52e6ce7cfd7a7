#pragma once
// `MoveMethod`: one way of carrying a schedule's messages (heFFTe's reshape3d_pointtopoint /
// reshape3d_alltoallv behind one apply()), behind the split-phase start / wait / test of `Mover`
// and `FusedMover`, which own one each.
//
// The base does what every way shares: the bound arrays, the channels (channel.hpp), the local
// copies, the counters and the in-flight state. A way of moving says only how its messages
// travel: `post()` starts them (after `start` has recorded the arrays), `complete()` waits for
// them and unpacks, `poll()` does the same without blocking. Its MPI requests live in a
// RequestPool member, which completes them if the method is destroyed in flight.
//
// The ways: PointToPoint (point_to_point.hpp), Alltoallv (alltoallv.hpp), Neighborhood
// (neighborhood.hpp), SharedMemory (shared_memory.hpp). Adding one: a class derived from MoveMethod in its own file, a
// `MoveAlgorithm` name, and one line in `make_move_method` (mover.cpp). See docs/engine.md.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "channel.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"

namespace tessera::detail {

class MoveMethod {
 public:
  virtual ~MoveMethod() = default;
  MoveMethod(const MoveMethod&) = delete;
  MoveMethod& operator=(const MoveMethod&) = delete;

  /// Starts an execution moving array k from `src[k]` into `dst[k]` (one pointer per binding).
  /// Throws `Error(invalid_argument)` naming the owner if an execution is in flight.
  void start(std::span<const void* const> src, std::span<void* const> dst);
  /// Allocates now the staging buffer a start with these arrays would need (see `Mover::prepare`).
  void prepare(std::span<const void* const> src, std::span<const void* const> dst);
  /// Completes the execution in flight, if any.
  void wait();
  /// True when no execution is in flight any more; never blocks.
  [[nodiscard]] bool test();

  [[nodiscard]] bool in_flight() const noexcept { return in_flight_; }
  [[nodiscard]] const MoverStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const Schedule& schedule() const noexcept { return *schedule_; }

 protected:
  /// `owner` names the class that holds the method in error messages ("Mover", "FusedMover").
  MoveMethod(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::vector<Binding> bindings,
             int tag, const char* owner, ChannelLayout layout);

  /// Starts the messages of one execution (the arrays are in `src()` / `dst()`).
  virtual void post() = 0;
  /// Blocks until every message of the execution has arrived and been unpacked, and every send is done.
  virtual void complete() = 0;
  /// Like `complete`, without blocking: false when something is still on its way.
  [[nodiscard]] virtual bool poll() = 0;

  /// For ways whose execution is one collective request: completes it (`blocking`) or tests it,
  /// and unpacks every receive once it is done; true when done.
  bool finish_collective(MPI_Request& request, bool blocking);

  [[nodiscard]] const Communicator& comm() const noexcept { return *comm_; }
  [[nodiscard]] int tag() const noexcept { return tag_; }
  [[nodiscard]] const Channels& channels() const noexcept { return channels_; }
  [[nodiscard]] std::span<const std::byte* const> src() const noexcept { return src_; }
  [[nodiscard]] std::span<std::byte* const> dst() const noexcept { return dst_; }
  [[nodiscard]] std::span<const Binding> bindings() const noexcept { return bindings_; }
  [[nodiscard]] MoverStats& counters() noexcept { return stats_; }

 private:
  void copy_locally();
  void allocate_staging();
  void finished();

  const Communicator* comm_;
  std::shared_ptr<const Schedule> schedule_;
  std::vector<Binding> bindings_;  // before channels_, which refer to it
  int tag_;
  const char* owner_;
  MoverStats stats_;
  Channels channels_;
  RawBytes staging_;  // overlapping local copies: all read, then all written (made on first need)
  std::vector<const std::byte*> src_;
  std::vector<std::byte*> dst_;
  bool in_flight_ = false;
};

}  // namespace tessera::detail
