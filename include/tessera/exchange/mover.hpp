#pragma once
/// \file
/// `Mover`: executes a compiled `Schedule` on concrete storage (KeLP's Mover, PARTI's `Data_Move`).
///
/// `start()` posts every receive first, packs and sends one message per peer (a peer whose data is
/// one contiguous stretch is sent straight from the array, without packing), then does the local
/// copies; `wait()` unpacks messages as they arrive and completes the sends; `test()` polls.
/// Several movers may be in flight at once: each has its own tag. Buffers are allocated when the
/// mover is made and reused by every execution: nothing allocates after that (except a staging
/// buffer, once, at the first execution whose local copies may overlap; `prepare` makes it ahead).
/// \code
///   tessera::Mover halo(world, schedule, sizeof(double));
///   halo.start(u.data(), u.data());   // source and destination may be the same array
///   compute_interior(u);              // overlaps the exchange
///   halo.wait();
/// \endcode
/// Elements are moved as bytes, so any trivially copyable type works; a combine function (see
/// `combine_function<T>`) accumulates arriving values instead of replacing.
///
/// **Algorithms** (`MoveAlgorithm`, as heFFTe's `reshape3d_pointtopoint` / `reshape3d_alltoallv`):
/// the messages can also travel in one `MPI_Ialltoallv` over the communicator (packed buffers), or
/// in one `MPI_Ineighbor_alltoallw` over a distributed-graph communicator made from the schedule's
/// peers when the mover is made (the in-place and datatype channels of point-to-point still apply).
/// `automatic` (the default) picks from the message count and sizes, the same on every rank; the
/// environment variable `TESSERA_MOVE_ALGORITHM` (read once) or the constructor's argument forces
/// one. With a collective algorithm `start()` is collective: every rank of the communicator must
/// call it, in the same order as its other collective calls. Each algorithm is its own class
/// behind one start / wait / test interface (src/exchange/move_method.hpp); the Mover owns the one
/// it chose. See docs/engine.md, "Algorithms".
/// \code
///   tessera::Mover redist(world, schedule, sizeof(double), nullptr, tessera::MoveAlgorithm::alltoallv);
///   redist.run(old_storage, new_storage);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "tessera/exchange/communicator.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

/// How a Mover's messages travel (see the file comment and docs/engine.md, "Algorithms").
enum class MoveAlgorithm {
  automatic,       ///< chosen from message count and sizes when the mover is made (same on every rank)
  point_to_point,  ///< Irecv from every peer, pack and Isend to every peer, Waitany and unpack
  alltoallv,       ///< one MPI_Ialltoallv over the whole communicator, packed buffers
  neighborhood,    ///< one MPI_Ineighbor_alltoallw over a graph communicator of the schedule's peers
  shared_memory,   ///< single copy from the owner's shared-memory storage on the node, messages elsewhere
};

/// "automatic", "point_to_point", "alltoallv", "neighborhood" or "shared_memory".
[[nodiscard]] const char* to_string(MoveAlgorithm algorithm) noexcept;

/// Parses the name `to_string` gives (also "p2p", "point-to-point", "neighbourhood", "neighbor",
/// "shared-memory", "shm").
/// Throws `Error(invalid_argument)` naming `source` (where the text came from) and the value
/// otherwise.
[[nodiscard]] MoveAlgorithm parse_move_algorithm(std::string_view text, std::string_view source = "MoveAlgorithm");

/// The algorithm `TESSERA_MOVE_ALGORITHM` asks for (`automatic` when unset or empty), read once
/// per process. Throws `Error(invalid_argument)` naming the variable and its value if it is not a
/// `MoveAlgorithm` name (then on every call, so every mover made with `automatic` throws).
[[nodiscard]] MoveAlgorithm environment_move_algorithm();

/// Whether `algorithm` can run on this MPI library (needs MPI initialised). False only for
/// `neighborhood` on an MPI whose MPI_Ineighbor_alltoallw is known to deliver wrong data (MPICH
/// 4.0.0-4.0.2, Debian 12's MPICH: pmodels/mpich#6233); a Mover asked for it there moves
/// point-to-point instead.
[[nodiscard]] bool move_algorithm_available(MoveAlgorithm algorithm);

namespace detail {
/// Reads `TESSERA_MOVE_ALGORITHM` now (what `environment_move_algorithm` does once); for tests.
[[nodiscard]] MoveAlgorithm read_move_algorithm_environment();
}  // namespace detail

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
  /// Bytes this rank copied straight out of a peer's shared-memory storage (`shared_memory`; the
  /// owner counts them in `bytes_sent`, and its handshake in `messages_sent`).
  std::uint64_t bytes_copied_from_peers = 0;
  std::uint64_t buffer_allocations = 0;  ///< grows when the mover is made and at its first overlapping local copy
};

namespace detail {
class MoveMethod;  // one way of moving (src/exchange/move_method.hpp)
}  // namespace detail

/// Executes a compiled Schedule on concrete storage, as often as asked (see the file comment).
/// A domain's `ExchangeCache` keeps movers between calls (it asks `busy()`, which is `in_flight()`).
class Mover final : public CachedExecutor {
 public:
  /// Binds `schedule` to elements of `element_size` bytes. `combine == nullptr` replaces
  /// destination elements. Collective in order: every rank must create its movers for the same
  /// exchanges in the same order (that is how their tags match), with the same `algorithm`.
  ///
  /// `algorithm == automatic` takes `environment_move_algorithm()`, and if that is `automatic`
  /// too, chooses: point-to-point on fewer than `kAutomaticMinRanks` ranks, without communicating
  /// (on up to 5 ranks no collective won consistently in bench_algorithms; see docs/engine.md);
  /// on more, one small allreduce agrees on the largest peer count and message size of any rank,
  /// and the mover uses `alltoallv` when some rank talks to at least half of the others and no
  /// message exceeds `kAlltoallvMaxMessageBytes`, point-to-point otherwise.
  /// A forced collective algorithm agrees in that allreduce too: `alltoallv` falls back to
  /// point-to-point on every rank when any rank's packed buffers exceed INT_MAX bytes, and ranks
  /// that asked for different collective algorithms all throw `Error(invalid_argument)` (they
  /// would deadlock otherwise; a rank that asks for point-to-point while another asks for a
  /// collective is not detected: pass the same `algorithm` and environment everywhere).
  /// `neighborhood` also makes a distributed-graph communicator (collective over `comm`); where
  /// `move_algorithm_available(neighborhood)` is false it moves point-to-point instead, and
  /// `algorithm()` says so.
  /// Throws `Error(invalid_argument)` for a null schedule, an element size of 0, an `algorithm`
  /// that is not a `MoveAlgorithm`, or a bad `TESSERA_MOVE_ALGORITHM`.
  Mover(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::size_t element_size,
        CombineFn combine = nullptr, MoveAlgorithm algorithm = MoveAlgorithm::automatic);

  /// Fewest ranks on which `automatic` considers a collective algorithm (and communicates to decide).
  static constexpr int kAutomaticMinRanks = 8;
  /// Largest message (bytes) with which `automatic` still picks `alltoallv` for a dense pattern.
  static constexpr std::size_t kAlltoallvMaxMessageBytes = 16 * 1024;
  ~Mover() override;
  Mover(const Mover&) = delete;
  Mover& operator=(const Mover&) = delete;
  Mover(Mover&&) noexcept;  // defaulted where detail::MoveMethod is complete
  Mover& operator=(Mover&&) = delete;

  /// Starts an execution reading from the buffer at `src` and writing into `dst` (each the start
  /// of this rank's storage of the source and destination arrays). Throws `Error(invalid_argument)`
  /// if an execution is still in flight.
  void start(const void* src, void* dst);
  /// Allocates now what the first `start(src, dst)` would allocate (the staging buffer of local
  /// copies that may overlap, needed only when `src == dst`), so that a caller can agree that every
  /// rank has its memory before anything moves (exchange/allocation_agreement.hpp). Not collective;
  /// after it, no execution allocates. Throws `std::bad_alloc` if the buffer cannot be had.
  void prepare(const void* src, const void* dst);
  /// Completes the execution started last: every destination element is written when it returns.
  void wait();
  /// True when the execution has completed (then `wait()` returns at once); never blocks.
  /// Not for a mover kept in an `ExchangeCache`: `test` may complete it on one rank before
  /// another, and the cache needs `busy()` to be the same on every rank (the array layer only ever
  /// completes its kept movers with `wait`).
  [[nodiscard]] bool test();
  /// `start` then `wait`.
  void run(const void* src, void* dst) {
    start(src, dst);
    wait();
  }
  /// True between start() and the wait() (or test()) that completes it.
  [[nodiscard]] bool in_flight() const noexcept;
  /// `in_flight()`: what the exchange cache asks before handing the mover out again.
  [[nodiscard]] bool busy() const noexcept override { return in_flight(); }

  /// The schedule this mover runs.
  [[nodiscard]] const Schedule& schedule() const noexcept;
  /// Counters of what the executions did.
  [[nodiscard]] const MoverStats& stats() const noexcept;
  /// The message tag this mover uses (its own, from the communicator).
  [[nodiscard]] int tag() const noexcept { return tag_; }
  /// The algorithm the executions use (never `automatic`; the same on every rank).
  [[nodiscard]] MoveAlgorithm algorithm() const noexcept { return algorithm_; }

 private:
  int tag_;
  MoveAlgorithm algorithm_ = MoveAlgorithm::point_to_point;
  std::unique_ptr<detail::MoveMethod> method_;  // the way the messages travel (see docs/engine.md)
};

}  // namespace tessera
