#pragma once
/// \file
/// Checked mode (DESIGN invariant 6): every collective tessera call first verifies that every rank
/// of the communicator is making the same call with the same arguments, and turns a mismatch into
/// the same `tessera::Error(mismatch)` on every rank instead of a hang or silent corruption.
/// \code
///   tessera::set_checked_mode(true);   // or TESSERA_CHECKED=1 in the environment
///   if (comm.rank() == 1) u.gather_to(0); else u.update_ghosts();
///   // every rank throws Error(mismatch): "tessera checked mode: the ranks made different collective
///   //   calls: DistArray::update_ghosts on ranks 0, 2; DistArray::gather_to on rank 1 (rank 1
///   //   differs from rank 0). ..."
/// \endcode
/// How: a collective entry point folds its operation name and the arguments that must agree
/// (distribution and ghost-spec hashes, boxes, element size, root, permutation, ...) into a stable
/// 64-bit hash h, and the ranks compare it with one `MPI_Allreduce(MPI_MIN)` of the pair
/// {h, ~h}: the result is {min h, ~max h}, so the ranks agree exactly when min h == max h. Only
/// on a mismatch does a second collective (an allgather of every rank's hash and operation name)
/// find out who differs, so that the message names the operations and the ranks.
///
/// Two ranks that enter *different* checked tessera collectives meet in the check's allreduce
/// and get the error. A collective that some ranks never reach (an extra call on one rank, a rank
/// that returned early) is not left to hang: the check waits at most `TESSERA_CHECKED_TIMEOUT`
/// seconds (default 60), then prints which ranks are in which operation, read from a node-local
/// shared-memory board each rank publishes its state on, and aborts the job:
/// \code
///   tessera checked mode: ranks 0, 2 wait in DistArray::sum #3; rank 1 has finished (in
///   MPI_Finalize; last: DistArray::sum #2) (deadline TESSERA_CHECKED_TIMEOUT=60 s passed ...
/// \endcode
/// The waits for messages inside a checked operation have the same deadline. What checked mode
/// cannot catch: ranks that all wait outside tessera, or a program that calls MPI itself on
/// tessera's duplicate communicator. The board and the deadline live in
/// src/exchange/checked_board.hpp.
///
/// Checked mode is on by default in builds configured with `TESSERA_CHECKED=ON` (the default for
/// Debug builds); the environment variable `TESSERA_CHECKED=1|0` overrides that default, and
/// `set_checked_mode` overrides both. Either way it must be the same on every rank. See
/// docs/checked-mode.md for what each entry point hashes and what the check costs.

#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <ranges>
#include <string_view>
#include <type_traits>

#include "tessera/core/hash.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera {

/// True if collective calls verify that every rank made the same call (see this file's brief).
/// The first call reads `TESSERA_CHECKED` (1 or 0) from the environment and throws
/// `Error(invalid_argument)` naming it if it holds anything else.
[[nodiscard]] bool checked_mode();

/// Turns checked mode on or off for the rest of the run (overrides the build default and the
/// environment). Not collective, but must be called alike on every rank, between collective calls:
/// a rank that checks while another does not would wait in a check nobody else makes.
void set_checked_mode(bool on) noexcept;

namespace detail {

/// One argument's contribution to a call's hash: integers and enums by value, doubles by their
/// bits, objects with a `hash()` member (distributions, ghost specs) through it, ranges element by
/// element, and anything else through `hash_value` (points, boxes).
template <class Value>
[[nodiscard]] std::uint64_t argument_hash(const Value& value) {
  if constexpr (requires { { value.hash() } -> std::convertible_to<std::uint64_t>; }) {
    return value.hash();
  } else if constexpr (std::is_enum_v<Value>) {
    return static_cast<std::uint64_t>(static_cast<std::underlying_type_t<Value>>(value));
  } else if constexpr (std::is_integral_v<Value>) {
    return static_cast<std::uint64_t>(value);
  } else if constexpr (std::is_same_v<Value, double>) {
    return std::bit_cast<std::uint64_t>(value);
  } else if constexpr (std::ranges::range<Value>) {
    std::uint64_t h = 0x72616e6765ULL;  // "range": an empty range still hashes apart from nothing
    for (const auto& x : value) h = hash_combine(h, argument_hash(x));
    return h;
  } else {
    return hash_value(value);
  }
}

/// The hash of an operation name and the arguments that must agree across ranks.
template <class... Args>
[[nodiscard]] std::uint64_t call_hash(std::string_view operation, const Args&... args) {
  std::uint64_t h = hash_text(operation);
  ((h = hash_combine(h, argument_hash(args))), ...);
  return h;
}

/// Collective (checked mode only): one allreduce comparing `call` across the ranks of `comm`,
/// waited on with checked mode's deadline (past it: a report on stderr and MPI_Abort); on a
/// mismatch, an allgather of every rank's call, then the same `Error(mismatch)` on every rank
/// naming the operations and the ranks that differ from rank 0.
void verify_collective(const Communicator& comm, std::string_view operation, std::uint64_t call);

/// Number of comparisons (allreduces) checked mode has made in this process: what tests and
/// benchmarks count to see that no check communication happens when checked mode is off.
[[nodiscard]] std::uint64_t collective_checks_made() noexcept;

/// Marks the extent of a checked collective call. Collectives made from inside one (`update_ghosts`
/// calling `begin_update_ghosts`, `Balancer::step` calling `Domain::migrate`) are not checked
/// again: their arguments follow from the outer call's, which every rank already agreed on, so a
/// user-level call costs one allreduce, not one per layer.
class [[nodiscard]] CollectiveScope {
 public:
  explicit CollectiveScope(bool entered) noexcept;
  ~CollectiveScope();
  CollectiveScope(const CollectiveScope&) = delete;
  CollectiveScope& operator=(const CollectiveScope&) = delete;

  /// True while this thread is inside a checked collective call.
  [[nodiscard]] static bool inside() noexcept;

 private:
  bool entered_;
};

/// The first line of every collective tessera entry point:
/// \code
///   const auto checked = detail::check_collective(comm, "Domain::redistribute", to, mode);
/// \endcode
/// Collective in checked mode (one allreduce, see `verify_collective`), free otherwise. Call it
/// before anything that validates arguments locally or communicates, so that a bad argument on one
/// rank becomes an error on every rank rather than a hang.
template <class... Args>
[[nodiscard]] CollectiveScope check_collective(const Communicator& comm, std::string_view operation,
                                               const Args&... args) {
  if (CollectiveScope::inside() || !checked_mode()) return CollectiveScope(false);
  verify_collective(comm, operation, call_hash(operation, args...));
  return CollectiveScope(true);
}

}  // namespace detail
}  // namespace tessera
