#pragma once
/// \file
/// `Communicator`: tessera's own duplicate of a user's MPI communicator.
///
/// tessera never sends on the user's communicator: it duplicates it, so that its messages cannot
/// match the user's receives and vice versa. The duplicate has `MPI_ERRORS_RETURN` set, and every
/// MPI call inside tessera goes through `check_mpi`, which turns an error code into a
/// `tessera::Error(mpi)` carrying `MPI_Error_string`. This is the only layer that calls MPI: array,
/// balance, layout, plan, geometry, core, spec and capi communicate through the typed collectives
/// below, which scripts/check_mpi_layers.sh verifies as part of `make test`. The io layer is not
/// checked: it hands HDF5 its MPI-IO settings and calls `MPI_Abort` in the crash-test hook.

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

/// Throws `Error(mpi)` naming `call` and MPI's own error string when `rc != MPI_SUCCESS`.
void check_mpi(int rc, std::string_view call);

/// True once MPI_Init has been called (even if MPI has been finalised since). Not collective.
[[nodiscard]] bool mpi_initialized() noexcept;
/// True once MPI_Finalize has been called. Not collective.
[[nodiscard]] bool mpi_finalized() noexcept;

/// The reduction of `Communicator::allreduce`. The logical ones take integers and `bool` only.
enum class ReduceOp { sum, min, max, logical_and, logical_or };

namespace detail {

/// An arithmetic type as the .cpp needs it to pick the MPI datatype, so that the typed collectives
/// stay thin templates over byte-level functions.
struct ArithmeticType {
  enum Kind : unsigned char { boolean, signed_integer, unsigned_integer, floating } kind;
  unsigned char bytes;
};

template <class T>
  requires std::is_arithmetic_v<T>
[[nodiscard]] constexpr ArithmeticType arithmetic_type_of() noexcept {
  using Kind = ArithmeticType::Kind;
  const Kind kind = std::is_same_v<T, bool>      ? Kind::boolean
                    : std::is_floating_point_v<T> ? Kind::floating
                    : std::is_signed_v<T>         ? Kind::signed_integer
                                                  : Kind::unsigned_integer;
  return {kind, static_cast<unsigned char>(sizeof(T))};
}

/// What the typed collectives accept: plain bytes that may be copied between processes.
/// `bool` is left out because `std::vector<bool>` has no contiguous storage to receive into.
template <class T>
concept Transferable = std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> &&
                       !std::is_same_v<std::remove_cv_t<T>, bool>;

}  // namespace detail

/// Owns a duplicate of an MPI communicator (never `MPI_COMM_WORLD` itself). Move-only.
class Communicator {
 public:
  /// Collective over `user`: duplicates it and sets `MPI_ERRORS_RETURN` on the duplicate.
  explicit Communicator(MPI_Comm user);
  ~Communicator();

  Communicator(Communicator&& other) noexcept;
  Communicator& operator=(Communicator&& other) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  /// Collective: a new, independent duplicate of the same group.
  [[nodiscard]] Communicator duplicate() const { return Communicator(comm_); }

  /// This process's rank in the communicator.
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// Number of ranks.
  [[nodiscard]] int size() const noexcept { return size_; }
  /// The duplicate, for calls tessera makes itself. Never free it.
  [[nodiscard]] MPI_Comm raw() const noexcept { return comm_; }

  /// The wall-clock time in seconds since some fixed moment in the past (MPI_Wtime): for measuring
  /// intervals on one rank. Not collective.
  [[nodiscard]] static double wtime() noexcept;

  /// Collective.
  void barrier() const;

  /// Collective: copies `data` on rank `root` into `data` on every other rank; every rank passes
  /// a span of the same length. Any length: over 1 GiB it is sent in pieces.
  template <class T>
    requires detail::Transferable<T>
  void bcast(std::span<T> data, int root) const {
    bcast_bytes(data.data(), data.size_bytes(), root);
  }

  /// Collective: every rank's `value`, indexed by rank.
  /// \code
  ///   const std::vector<std::int64_t> sizes = comm.allgather(std::int64_t{mine});  // sizes[r]: rank r's
  /// \endcode
  template <class T>
    requires detail::Transferable<T>
  [[nodiscard]] std::vector<T> allgather(const T& value) const {
    std::vector<T> all(static_cast<std::size_t>(size_));
    allgather_bytes(&value, sizeof(T), all.data());
    return all;
  }

  /// Collective: every rank's `mine`, concatenated in rank order (contributions may be empty and of
  /// any length). `*counts` (if given) gets how many items came from each rank.
  /// Throws `Error(overflow)` if a count or the total does not fit in an MPI count of bytes, and on
  /// every rank `Error(out_of_memory)` if some rank could not allocate a result of at least
  /// `kAgreedReceiveBytes` (nothing has been exchanged then; one more allreduce for such results).
  template <class T>
    requires detail::Transferable<T>
  [[nodiscard]] std::vector<T> allgatherv(std::span<const T> mine, std::vector<int>* counts = nullptr) const {
    std::vector<int> own;
    std::vector<int>& all = counts != nullptr ? *counts : own;
    all = gather_counts(mine.size(), "Communicator::allgatherv");
    const std::size_t total = total_of(all);
    std::vector<T> out;
    // Every rank knows the total now, so every rank takes the same branch: large results agree on
    // their allocation (a rank that gave up alone would leave the others in MPI_Allgatherv), small
    // ones skip the allreduce, which would cost more than the exchange.
    if (total * sizeof(T) >= kAgreedReceiveBytes) {
      agree(resize_receive_buffer(out, total, "Communicator::allgatherv"));
    } else {
      out.resize(total);
    }
    allgatherv_bytes(mine.data(), all, sizeof(T), out.data());
    return out;
  }

  /// Results of `allgatherv` at least this large are allocated with an agreement among the ranks.
  static constexpr std::size_t kAgreedReceiveBytes = std::size_t{64} << 10;

  /// Collective: `items` are grouped by destination rank, `counts[r]` of them for rank r (one count
  /// per rank, adding up to `items.size()`). Returns what arrived grouped by source rank;
  /// `*received_counts` (if given) gets how many came from each rank.
  /// \code
  ///   // rank r sends r + 1 copies of its rank to every rank q
  ///   std::vector<int> counts(comm.size(), comm.rank() + 1);
  ///   std::vector<int> items(comm.size() * (comm.rank() + 1), comm.rank());
  ///   std::vector<int> from = comm.alltoallv<int>(items, counts);   // 0, 1, 1, 2, 2, 2, ...
  /// \endcode
  /// `failed`: an error the caller met while preparing its items (a bad argument of its own, say);
  /// it is agreed on with the exchange's own checks, before anything is exchanged, so that a caller
  /// need not spend a collective of its own on it (pass zero counts with it). If any rank passes
  /// one, every rank throws the lowest such rank's error.
  ///
  /// Costs an alltoall of the counts, one allreduce (the ranks agree that every rank's bytes fit in
  /// MPI's int counts, that every rank could allocate what it receives and that no caller failed)
  /// and the alltoallv. The agreement is made whatever the size: a receive buffer that could not be
  /// allocated on one rank must be an error on every rank (tests/memory fails every allocation of
  /// 256 bytes or more in turn), so it cannot be skipped for small exchanges as `allgatherv` does.
  /// Throws `Error(invalid_argument)` for bad counts (on the rank that passed them), and on every
  /// rank `Error(overflow)` if the bytes to or from some rank, or in all, do not fit in an MPI count,
  /// or `Error(out_of_memory)` if some rank could not allocate the items it receives (nothing has
  /// been exchanged then).
  template <class T>
    requires detail::Transferable<T>
  [[nodiscard]] std::vector<T> alltoallv(std::span<const T> items, std::span<const int> counts,
                                         std::vector<int>* received_counts = nullptr,
                                         std::optional<Error> failed = std::nullopt) const {
    std::vector<int> own;
    std::vector<int>& received = received_counts != nullptr ? *received_counts : own;
    received = exchange_counts(counts, items.size());
    std::vector<T> out;
    std::optional<Error> no_buffer = resize_receive_buffer(out, total_of(received), "Communicator::alltoallv");
    if (!failed) failed = std::move(no_buffer);
    alltoallv_bytes(items.data(), counts, out.data(), received, sizeof(T), std::move(failed));
    return out;
  }

  /// Collective: `items[q]` goes to rank q (one item per rank); returns the item each rank sent
  /// here, indexed by rank. One `MPI_Alltoall`. A protocol's headers travel so (array/key_routing.hpp:
  /// counts and flags per peer, which every rank reads alike before an `alltoallv_known`).
  /// `items.size() != size()` is `Error(invalid_argument)` on this rank (a caller's bug).
  template <class T>
    requires detail::Transferable<T>
  [[nodiscard]] std::vector<T> alltoall(std::span<const T> items) const {
    std::vector<T> out(static_cast<std::size_t>(size_));
    alltoall_bytes(items.data(), items.size(), sizeof(T), out.data());
    return out;
  }

  /// Collective: an all-to-all-v whose counts both sides already know (from an `alltoall` of
  /// headers, or because they answer an earlier exchange one item per question), into `out`,
  /// allocated beforehand: no counts are exchanged and nothing is agreed on, one `MPI_Alltoallv`.
  /// `received_counts[r]`: the items rank r sends here. The caller's protocol must have made sure,
  /// on every rank alike and before the call, that every rank's counts match its peers', that
  /// `out` holds what arrives and that the bytes each way and in all fit MPI's int counts (by an
  /// agreement, or by a rule every rank evaluates on the same data): a check that fails here
  /// (`Error(invalid_argument)` for counts that do not add up to `items` or `out`, `Error(overflow)`
  /// for bytes) throws on this rank only and leaves the others waiting, so it is a broken protocol,
  /// never a user's error. The agreed `alltoallv` above is the one for everything else.
  template <class T>
    requires detail::Transferable<T>
  void alltoallv_known(std::span<const T> items, std::span<const int> counts, std::span<T> out,
                       std::span<const int> received_counts) const {
    alltoallv_known_bytes(items.data(), items.size(), counts, out.data(), out.size(), received_counts, sizeof(T));
  }

  /// Collective: `value` reduced over the ranks by `op`, the same on every rank. A floating-point
  /// sum is added in MPI's order; `sum(double)` adds in rank order when the bits must not depend on it.
  template <class T>
    requires std::is_arithmetic_v<T>
  [[nodiscard]] T allreduce(const T& value, ReduceOp op) const {
    T out = value;
    allreduce_in_place(&out, 1, detail::arithmetic_type_of<T>(), op);
    return out;
  }

  /// Collective: each entry of `values` reduced over the ranks by `op`, in place; every rank
  /// passes a span of the same length.
  template <class T>
    requires std::is_arithmetic_v<T>
  void allreduce(std::span<T> values, ReduceOp op) const {
    allreduce_in_place(values.data(), values.size(), detail::arithmetic_type_of<T>(), op);
  }

  /// Collective: makes a failure on some ranks a failure on all of them. Every rank passes its own
  /// outcome (nothing, or the error it met); if any rank passed an error, every rank throws the
  /// same `Error`: the code and message of the lowest such rank. Costs one allreduce when no rank
  /// failed (and one more broadcast of the message when one did).
  /// \code
  ///   std::optional<Error> mine;
  ///   try { check_my_part(); } catch (const Error& e) { mine = e; }
  ///   comm.agree(mine);   // throws on every rank, or on none
  /// \endcode
  void agree(const std::optional<Error>& mine) const;
  /// Collective: every rank's `value`, indexed by rank (D3-ARC's `d3_collectall`).
  [[nodiscard]] std::vector<double> allgather(double value) const;
  /// Collective: the largest `value` over the ranks, the same on every rank.
  [[nodiscard]] double max(double value) const;
  /// Collective: the sum of `value` over the ranks, added in rank order (so the same, to the
  /// bit, on every rank and every run).
  [[nodiscard]] double sum(double value) const;

  /// A message tag for one more mover. Movers created in the same order on every rank (which the
  /// collective calls that create them guarantee) get the same tag, so several movers can be in
  /// flight at once without their messages matching each other's receives.
  [[nodiscard]] int next_tag() const noexcept;

 private:
  // The byte-level collectives the templates forward to (communicator.cpp). Counts are in items
  // of `item_size` bytes; none of them hands MPI a null buffer.
  void bcast_bytes(void* data, std::size_t bytes, int root) const;
  void allgather_bytes(const void* mine, std::size_t bytes, void* all) const;
  [[nodiscard]] std::vector<int> gather_counts(std::size_t mine, std::string_view call) const;
  void allgatherv_bytes(const void* mine, std::span<const int> counts, std::size_t item_size, void* out) const;
  [[nodiscard]] std::vector<int> exchange_counts(std::span<const int> counts, std::size_t items) const;
  // `failed`: this rank could not allocate `out`, or its caller failed (agreed on with the
  // byte-count check, then thrown).
  void alltoallv_bytes(const void* items, std::span<const int> counts, void* out, std::span<const int> received,
                       std::size_t item_size, std::optional<Error> failed) const;
  void alltoall_bytes(const void* items, std::size_t item_count, std::size_t item_size, void* out) const;
  void alltoallv_known_bytes(const void* items, std::size_t item_count, std::span<const int> counts, void* out,
                             std::size_t out_count, std::span<const int> received, std::size_t item_size) const;
  [[nodiscard]] Error receive_buffer_failed(std::string_view where, std::size_t bytes) const;
  // `out` resized to `items`; an allocation failure is returned (for the ranks to agree on), not thrown.
  template <class T>
  [[nodiscard]] std::optional<Error> resize_receive_buffer(std::vector<T>& out, std::size_t items,
                                                           std::string_view where) const {
    try {
      out.resize(items);
    } catch (const std::bad_alloc&) {
      return receive_buffer_failed(where, items * sizeof(T));
    } catch (const std::length_error&) {
      return receive_buffer_failed(where, items * sizeof(T));
    }
    return std::nullopt;
  }
  void allreduce_in_place(void* values, std::size_t count, detail::ArithmeticType type, ReduceOp op) const;
  [[nodiscard]] static std::size_t total_of(std::span<const int> counts) noexcept;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  mutable int tag_counter_ = 0;
};

/// Initialises MPI if nobody has (and then finalises it in the destructor), and hands out
/// tessera's duplicate of `MPI_COMM_WORLD`. Create one at the top of `main`:
/// \code
///   int main(int argc, char** argv) {
///     tessera::Environment env(argc, argv);
///     const tessera::Communicator& world = env.world();
///   }
/// \endcode
class Environment {
 public:
  /// Initialises MPI (unless the program already did) and makes the world communicator.
  Environment(int& argc, char**& argv);
  /// For programs that initialised MPI themselves; tessera will not finalise it.
  Environment();
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  /// tessera's duplicate of MPI_COMM_WORLD.
  [[nodiscard]] const Communicator& world() const noexcept { return *world_; }

 private:
  void attach();
  bool owns_mpi_ = false;
  std::unique_ptr<Communicator> world_;
};

}  // namespace tessera
