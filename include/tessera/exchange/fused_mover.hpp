#pragma once
/// \file
/// `FusedMover`: executes one compiled `Schedule` on several arrays at once, with one message per
/// peer carrying every array's part (multi-array fusion, as AMReX's FillBoundary of several
/// components or a hand-written exchange that packs u, v and w together).
///
/// The arrays must be laid out alike (the schedule's offsets fit all of them: same domain, same
/// ghost spec), but may hold different element types: binding k moves elements of
/// `element_sizes[k]` bytes. Per peer, the message is array 0's packed part, then array 1's, and so
/// on; local copies are made per array. Fusion saves per-message costs (latency, matching,
/// requests) at the price of always packing: the point-to-point `Mover` sends one contiguous
/// part, or a few long rows, straight from the array. docs/engine.md ("Fusing several arrays")
/// has the measurements and the rule `update_ghosts(u, v, ...)` and `Domain` follow.
/// \code
///   tessera::FusedMover halo(world, schedule, {sizeof(double), sizeof(float)});
///   const void* src[] = {u.data(), v.data()};
///   void* dst[] = {u.data(), v.data()};
///   halo.run(src, dst);
/// \endcode
/// Buffers are allocated when the mover is made; nothing allocates after that (except, as for
/// `Mover`, a staging buffer at the first execution whose local copies may overlap).
/// It runs the point-to-point way of moving of `Mover` with one binding per array
/// (src/exchange/point_to_point.hpp).

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

namespace detail {
class PointToPoint;  // src/exchange/point_to_point.hpp
}  // namespace detail

/// Executes one Schedule on several arrays with one message per peer (see the file comment).
class FusedMover final : public CachedExecutor {
 public:
  /// Binds `schedule` to `element_sizes.size()` arrays (at least one), array k of elements of
  /// `element_sizes[k]` bytes, combined on arrival with `combine[k]` (replace when `combine` is
  /// empty or the entry is null). Collective in order, as `Mover`: takes one tag from `comm`.
  /// Throws `Error(invalid_argument)` for a null schedule, no arrays, an element size of 0, or a
  /// `combine` list of another length.
  FusedMover(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::vector<std::size_t> element_sizes,
             std::vector<CombineFn> combine = {});
  ~FusedMover() override;
  FusedMover(const FusedMover&) = delete;
  FusedMover& operator=(const FusedMover&) = delete;
  FusedMover(FusedMover&&) = delete;
  FusedMover& operator=(FusedMover&&) = delete;

  /// Starts an execution reading array k from `src[k]` and writing it into `dst[k]` (each the
  /// start of this rank's storage, as for `Mover::start`). Throws `Error(invalid_argument)` if an
  /// execution is in flight or the spans do not hold one pointer per array.
  void start(std::span<const void* const> src, std::span<void* const> dst);
  /// Completes the execution started last.
  void wait();
  /// True when the execution has completed; never blocks. Not for a fused mover kept in an
  /// `ExchangeCache` (see `Mover::test`).
  [[nodiscard]] bool test();
  /// `start` then `wait`.
  void run(std::span<const void* const> src, std::span<void* const> dst) {
    start(src, dst);
    wait();
  }
  /// True between start() and the wait() (or test()) that completes it.
  [[nodiscard]] bool in_flight() const noexcept;
  /// `in_flight()`: what the exchange cache asks before handing the mover out again.
  [[nodiscard]] bool busy() const noexcept override { return in_flight(); }
  /// Number of arrays each execution moves.
  [[nodiscard]] std::size_t arrays() const noexcept { return element_sizes_.size(); }
  /// The schedule this mover runs.
  [[nodiscard]] const Schedule& schedule() const noexcept;
  /// Counters of what the executions did.
  [[nodiscard]] const MoverStats& stats() const noexcept;

 private:
  std::vector<std::size_t> element_sizes_;
  std::unique_ptr<detail::PointToPoint> method_;
};

/// Largest fused message (bytes) for which fusing several arrays' ghost updates is chosen (see
/// `make_fused_mover_if_small`).
inline constexpr std::size_t kMaxFusedMessageBytes = 16 * 1024;

/// Collective over `comm` (one allreduce; a new mover takes a tag): the fused mover of `schedule`
/// for arrays of `element_sizes` bytes, or null when separate executions are the better choice.
///
/// The rule (what `update_ghosts(u, v, ...)` follows, keeping the answer in the domain's exchange
/// cache): fuse when the largest fused message any rank sends is at most `kMaxFusedMessageBytes`
/// (small faces: per-message costs dominate, one message per peer wins); above it run the arrays'
/// own movers side by side (large faces: their in-place and datatype channels skip the pack copy
/// that fusion always makes). The largest message is agreed on in the allreduce, so every rank
/// decides alike. See docs/engine.md, "Fusing several arrays".
[[nodiscard]] std::unique_ptr<FusedMover> make_fused_mover_if_small(const Communicator& comm,
                                                                    std::shared_ptr<const Schedule> schedule,
                                                                    std::span<const std::size_t> element_sizes);

}  // namespace tessera
