#pragma once
/// \file
/// `ProcGrid<N>`: an N-d arrangement of ranks of a communicator (ZPL grid, D3-ARC `d3_grid`).
///
/// A grid has positions `Point<N>` in `[0, shape)`. Its **logical numbering** is the row-major index
/// of a position (AMP's logical processor numbers); each position holds one rank of the communicator
/// (AMP's physical number). The ranks in the grid are the **active** set: they may own data. Ranks of
/// the communicator that are not in the grid are **skeletons**: they own nothing, yet still take part
/// in the collectives of the communicator, so that a rank can be withdrawn from or re-added to the
/// computation without a new communicator (AMP).
/// \code
///   auto g = tessera::ProcGrid<2>::automatic(6, {200, 300});              // 2x3 over ranks 0..5
///   g.rank_at({1, 0});                                                    // 3: row-major
///   auto even = tessera::ProcGrid<2>::from_ranks(8, {2, 2}, {0, 2, 4, 6});  // ZPL G4
///   auto odd = tessera::ProcGrid<2>::from_ranks(8, {2, 2}, {1, 3, 5, 7});   // ZPL G5, disjoint
///   even.position_of(4);                                                  // (1, 0)
///   even.position_of(3);                                                  // nullopt: a skeleton here
/// \endcode
///
/// Storage: a grid whose positions hold ranks 0, 1, ..., size-1 in order (every grid `automatic`
/// over a whole communicator or `with_shape` builds) keeps only its shape, so a simulated grid of a
/// million ranks costs O(N). Any other grid keeps a position->rank table and a rank->position table
/// behind a `shared_ptr` to immutable data, so copies are cheap. Every lookup is O(N), independent
/// of the number of ranks. The layer is pure: no MPI, the same answer on every rank.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/core/index.hpp"
#include "tessera/geometry/point.hpp"
#include "tessera/layout/grid_shape.hpp"

namespace tessera {

/// An N-d arrangement of ranks of a communicator; see the file comment. A regular, immutable value
/// type. Factories validate their input and throw `Error(invalid_argument)` naming the argument.
template <std::size_t N>
  requires(N >= 1)
class ProcGrid {
 public:
  /// The grid of one position over a communicator of one rank (what `with_shape(1, {1, ..., 1})`
  /// builds); exists so that grids can be default-constructed members.
  ProcGrid() noexcept : ProcGrid(1, Point<N>::filled(1), nullptr) {}

  /// Shape chosen for `comm_size` ranks, all active, and data of `global_extents` (see
  /// `choose_grid_shape`: fewest idle ranks, then the smallest halo of the largest block, ties as
  /// MPI_Dims_create); `fixed[d] > 0` pins extent d, 0 leaves it free. Ranks in row-major order.
  /// \code
  ///   ProcGrid<2>::automatic(6, {1000, 10});                // grid 6x1
  ///   ProcGrid<3>::automatic(12, {64, 64, 64}, {0, 0, 1});  // grid 4x3x1 (ZPL [auto, auto, 1])
  /// \endcode
  [[nodiscard]] static ProcGrid automatic(int comm_size, const Point<N>& global_extents, const Point<N>& fixed = {}) {
    check_comm_size("ProcGrid::automatic", comm_size);
    return ProcGrid(comm_size,
                    detail::choose_grid_shape("ProcGrid::automatic", "comm_size", comm_size, global_extents, fixed),
                    nullptr);
  }

  /// Same over a chosen subset of the communicator's ranks: `active_ranks` in logical order (the
  /// first goes to position 0, the next to the next row-major position, ...); the other ranks are
  /// skeletons. The shape is chosen for `active_ranks.size()` ranks.
  /// \code
  ///   auto g = ProcGrid<2>::automatic(8, std::vector<int>{7, 6, 5, 4, 3, 2}, {300, 200});
  ///   // grid 3x2 over 8 ranks {7,6,5,4,3,2}; ranks 0 and 1 are skeletons
  /// \endcode
  /// A template only in form (`Ranks` is always `std::vector<int>`): without it the everyday call
  /// `automatic(p, {n, n}, {0, 1})` would be ambiguous, since both braced lists convert to a vector
  /// as well as to a Point; on such a tie the non-template overload above wins. So spell a braced
  /// list of ranks as `std::vector<int>{...}` when it could also be read as N extents.
  template <class Ranks = std::vector<int>>
    requires std::same_as<Ranks, std::vector<int>>
  [[nodiscard]] static ProcGrid automatic(int comm_size, Ranks active_ranks, const Point<N>& global_extents,
                                          const Point<N>& fixed = {}) {
    constexpr std::string_view where = "ProcGrid::automatic";
    check_comm_size(where, comm_size);
    if (active_ranks.empty()) fail_argument(where, "active_ranks", "{}", "must name at least one rank");
    // Validate the ranks first: once they are distinct and in range, there are at most comm_size.
    std::vector<int> inverse = inverse_table(where, "active_ranks", comm_size, active_ranks, std::nullopt);
    const Point<N> shape = detail::choose_grid_shape(where, "active_ranks.size()",
                                                     static_cast<index_t>(active_ranks.size()), global_extents, fixed);
    return from_checked_table(comm_size, shape, std::move(active_ranks), std::move(inverse));
  }

  /// Overload for anything with `.size()`, such as `tessera::Communicator`, so that users can write
  /// `ProcGrid<2>::automatic(env.world(), {n, n})`. Takes only the size: the layout layer never
  /// talks to MPI.
  template <class Comm>
    requires requires(const Comm& c) {
      { c.size() } -> std::convertible_to<int>;
    }
  [[nodiscard]] static ProcGrid automatic(const Comm& comm, const Point<N>& global_extents,
                                          const Point<N>& fixed = {}) {
    return automatic(static_cast<int>(comm.size()), global_extents, fixed);
  }

  /// Explicit shape over ranks 0..prod(shape)-1 in row-major order (ZPL G1-G3); `prod(shape)` must
  /// equal `comm_size`.
  /// \code
  ///   ProcGrid<2>::with_shape(6, {3, 2});   // ZPL G3 = [1..p/2, 1..2] for p = 6
  /// \endcode
  [[nodiscard]] static ProcGrid with_shape(int comm_size, const Point<N>& shape) {
    constexpr std::string_view where = "ProcGrid::with_shape";
    check_comm_size(where, comm_size);
    const index_t positions = checked_positions(where, shape);
    if (positions != comm_size)
      fail_argument(where, "shape", shape,
                    detail::concat("has ", positions_text(positions), " positions but comm_size is ", comm_size,
                                   "; with_shape places every rank (use from_ranks for a subset)"));
    return ProcGrid(comm_size, shape, nullptr);
  }

  /// Explicit table: `ranks[p]` is the communicator rank at row-major position `p`. `ranks.size()`
  /// must equal `prod(shape)`; every rank lies in `[0, comm_size)`; no rank appears twice. Serves a
  /// permutation (ZPL G4), a subset with skeletons outside, or one of several disjoint grids over
  /// one communicator (ZPL G4 and G5 together).
  /// \code
  ///   auto g = ProcGrid<2>::from_ranks(6, {2, 3}, {0, 2, 4, 1, 3, 5});  // column-major placement
  ///   g.rank_at({0, 1});                                               // 2
  /// \endcode
  [[nodiscard]] static ProcGrid from_ranks(int comm_size, const Point<N>& shape, std::vector<int> ranks) {
    constexpr std::string_view where = "ProcGrid::from_ranks";
    check_comm_size(where, comm_size);
    const index_t positions = checked_positions(where, shape);
    if (static_cast<index_t>(ranks.size()) != positions)
      fail_argument(where, "ranks.size()", ranks.size(),
                    detail::concat("must equal the number of positions of shape ", shape, ", ",
                                   positions_text(positions)));
    std::vector<int> inverse = inverse_table(where, "ranks", comm_size, ranks, shape);
    return from_checked_table(comm_size, shape, std::move(ranks), std::move(inverse));
  }

  /// Extents of the grid along every dimension.
  [[nodiscard]] const Point<N>& shape() const noexcept { return shape_; }
  /// Extent of the grid along dimension `d < N`.
  [[nodiscard]] index_t extent(std::size_t d) const noexcept { return shape_[d]; }
  /// Number of positions, which is the number of active ranks.
  [[nodiscard]] int size() const noexcept { return size_; }
  /// Size of the communicator the grid lives in (active ranks and skeletons).
  [[nodiscard]] int comm_size() const noexcept { return comm_size_; }

  /// The rank at `position`. Throws `Error(out_of_range)` if the position lies outside the grid.
  [[nodiscard]] int rank_at(const Point<N>& position) const {
    for (std::size_t d = 0; d < N; ++d)
      if (position[d] < 0 || position[d] >= shape_[d])
        fail(ErrorCode::out_of_range, "ProcGrid::rank_at: argument 'position' = ", position,
             " lies outside the grid of shape ", shape_);
    return rank_of_logical(logical_at_unchecked(position));
  }

  /// The rank at row-major position `logical`. Throws `Error(out_of_range)` outside `[0, size())`.
  [[nodiscard]] int rank_at_logical(int logical) const {
    check_logical("ProcGrid::rank_at_logical", logical);
    return rank_of_logical(logical);
  }

  /// The position of `rank`, or nullopt for a skeleton. Throws `Error(out_of_range)` for a rank
  /// outside `[0, comm_size())`.
  [[nodiscard]] std::optional<Point<N>> position_of(int rank) const {
    check_rank("ProcGrid::position_of", rank);
    const int logical = logical_of_rank(rank);
    if (logical < 0) return std::nullopt;
    return position_at_logical_unchecked(logical);
  }

  /// The row-major position index of `rank`, or nullopt for a skeleton. Throws `Error(out_of_range)`
  /// for a rank outside `[0, comm_size())`.
  [[nodiscard]] std::optional<int> logical_of(int rank) const {
    check_rank("ProcGrid::logical_of", rank);
    const int logical = logical_of_rank(rank);
    if (logical < 0) return std::nullopt;
    return logical;
  }

  /// True if `rank` holds a position (may own data), false for a skeleton. Throws
  /// `Error(out_of_range)` for a rank outside `[0, comm_size())`.
  [[nodiscard]] bool is_active(int rank) const {
    check_rank("ProcGrid::is_active", rank);
    return logical_of_rank(rank) >= 0;
  }

  /// The position with row-major index `logical`. Throws `Error(out_of_range)` outside `[0, size())`.
  [[nodiscard]] Point<N> position_at_logical(int logical) const {
    check_logical("ProcGrid::position_at_logical", logical);
    return position_at_logical_unchecked(logical);
  }

  /// The row-major index of `position`. Throws `Error(out_of_range)` outside the grid.
  [[nodiscard]] int logical_at(const Point<N>& position) const {
    for (std::size_t d = 0; d < N; ++d)
      if (position[d] < 0 || position[d] >= shape_[d])
        fail(ErrorCode::out_of_range, "ProcGrid::logical_at: argument 'position' = ", position,
             " lies outside the grid of shape ", shape_);
    return logical_at_unchecked(position);
  }

  /// The active ranks in logical order (`size()` of them; builds a vector, O(size())).
  [[nodiscard]] std::vector<int> active_ranks() const {
    if (tables_) return tables_->rank_of_logical;
    std::vector<int> out(static_cast<std::size_t>(size_));
    std::iota(out.begin(), out.end(), 0);
    return out;
  }

  /// True if position p holds rank p for every p and every rank of the communicator is active.
  [[nodiscard]] bool is_identity() const noexcept { return !tables_ && size_ == comm_size_; }

  /// Bytes held by the rank tables: 0 when the positions hold ranks 0..size-1 in order (with or
  /// without skeletons after them), which need no table. Shared between copies.
  [[nodiscard]] std::size_t table_bytes() const noexcept {
    if (!tables_) return 0;
    return sizeof(Tables) + (tables_->rank_of_logical.capacity() + tables_->logical_of_rank.capacity()) * sizeof(int);
  }

  /// Same communicator size, same shape and the same rank at every position.
  friend bool operator==(const ProcGrid& a, const ProcGrid& b) noexcept {
    if (a.comm_size_ != b.comm_size_ || a.shape_ != b.shape_) return false;
    if (a.tables_ == b.tables_) return true;      // both table-free, or copies of one grid
    if (!a.tables_ || !b.tables_) return false;  // a table is never stored for ranks 0..size-1 in order
    return a.tables_->hash == b.tables_->hash && a.tables_->rank_of_logical == b.tables_->rank_of_logical;
  }

  /// A stable hash (the same on every rank and run, see core/hash.hpp), consistent with `==`. O(N):
  /// the hash of a table is computed once, when the grid is built.
  [[nodiscard]] std::uint64_t hash() const noexcept {
    const std::uint64_t h = hash_combine(hash_value(shape_), static_cast<std::uint64_t>(comm_size_));
    return hash_combine(h, tables_ ? tables_->hash : 0);
  }

  /// Prints `grid 2x3` for an identity grid, otherwise the communicator size and the ranks in
  /// logical order, the first 16 of them: `grid 2x2 over 8 ranks {0,2,4,6}`.
  friend std::ostream& operator<<(std::ostream& out, const ProcGrid& g) {
    out << "grid ";
    for (std::size_t d = 0; d < N; ++d) out << (d ? "x" : "") << g.shape_[d];
    if (g.is_identity()) return out;
    out << " over " << g.comm_size_ << " ranks {";
    const int shown = g.size_ < kPrintedRanks ? g.size_ : kPrintedRanks;
    for (int p = 0; p < shown; ++p) out << (p ? "," : "") << g.rank_of_logical(p);
    if (g.size_ > shown) out << ",...";
    return out << '}';
  }

 private:
  /// The explicit tables; immutable once built, shared by copies.
  struct Tables {
    std::vector<int> rank_of_logical;  ///< size() entries
    std::vector<int> logical_of_rank;  ///< comm_size() entries, -1 for a skeleton
    std::uint64_t hash = 0;            ///< of rank_of_logical, so that hash() stays O(N)
  };

  static constexpr int kPrintedRanks = 16;

  ProcGrid(int comm_size, const Point<N>& shape, std::shared_ptr<const Tables> tables) noexcept
      : shape_(shape), comm_size_(comm_size), tables_(std::move(tables)) {
    index_t stride = 1;
    for (std::size_t d = N; d-- > 0;) {
      stride_[d] = stride;
      stride *= shape_[d];
    }
    size_ = static_cast<int>(stride);
  }

  static void check_comm_size(std::string_view where, int comm_size) {
    if (comm_size < 1) fail_argument(where, "comm_size", comm_size, "must be >= 1");
  }

  /// Checks every extent of `shape` is >= 1 and returns the number of positions (saturating).
  static index_t checked_positions(std::string_view where, const Point<N>& shape) {
    index_t positions = 1;
    for (std::size_t d = 0; d < N; ++d) {
      if (shape[d] < 1)
        fail_argument(where, "shape", shape,
                      detail::concat("has extent ", shape[d], " along dimension ", d, "; every extent must be >= 1"));
      positions = detail::saturating_mul(positions, shape[d]);
    }
    return positions;
  }

  static std::string positions_text(index_t positions) {
    return positions == std::numeric_limits<index_t>::max() ? std::string("more than 2^63") : std::to_string(positions);
  }

  /// Checks that `ranks` are distinct and in `[0, comm_size)` and returns the inverse table
  /// (comm_size entries, -1 where a rank is absent). `shape`, when known, names positions in messages.
  static std::vector<int> inverse_table(std::string_view where, std::string_view argument, int comm_size,
                                        const std::vector<int>& ranks, const std::optional<Point<N>>& shape) {
    // Names a position in messages: a point when the shape is known, else the logical index.
    const auto position_name = [&](std::size_t p) {
      if (shape) return detail::concat("position ", position_in(*shape, static_cast<index_t>(p)));
      return detail::concat("logical position ", p);
    };
    std::vector<int> inverse(static_cast<std::size_t>(comm_size), -1);
    for (std::size_t p = 0; p < ranks.size(); ++p) {
      const int rank = ranks[p];
      if (rank < 0 || rank >= comm_size)
        fail_argument(where, detail::concat(argument, "[", p, "]"), rank,
                      detail::concat("at ", position_name(p), " lies outside [0, comm_size) = [0, ", comm_size, ")"));
      int& seen = inverse[static_cast<std::size_t>(rank)];
      if (seen >= 0) {
        const auto first = static_cast<std::size_t>(seen);
        fail_argument(where, detail::concat(argument, "[", p, "]"), rank,
                      detail::concat("repeats ", argument, "[", first, "]: rank ", rank, " would hold both ",
                                     position_name(first), " and ", position_name(p)));
      }
      seen = static_cast<int>(p);
    }
    return inverse;
  }

  /// Builds the grid from validated tables, dropping them when position p holds rank p for every p.
  static ProcGrid from_checked_table(int comm_size, const Point<N>& shape, std::vector<int> ranks,
                                     std::vector<int> inverse) {
    bool in_order = true;
    for (std::size_t p = 0; p < ranks.size() && in_order; ++p) in_order = ranks[p] == static_cast<int>(p);
    if (in_order) return ProcGrid(comm_size, shape, nullptr);
    std::uint64_t h = hash_combine(0x70726f6367726964ULL, ranks.size());  // seed: "procgrid"
    for (int rank : ranks) h = hash_combine(h, static_cast<std::uint64_t>(rank));
    auto tables = std::make_shared<const Tables>(Tables{std::move(ranks), std::move(inverse), h});
    return ProcGrid(comm_size, shape, std::move(tables));
  }

  /// The row-major position `logical` in a grid of `shape`.
  static Point<N> position_in(const Point<N>& shape, index_t logical) noexcept {
    Point<N> position;
    for (std::size_t d = N; d-- > 0;) {
      position[d] = logical % shape[d];
      logical /= shape[d];
    }
    return position;
  }

  void check_rank(std::string_view where, int rank) const {
    if (rank < 0 || rank >= comm_size_)
      fail(ErrorCode::out_of_range, where, ": argument 'rank' = ", rank, " lies outside [0, comm_size) = [0, ",
           comm_size_, ")");
  }

  void check_logical(std::string_view where, int logical) const {
    if (logical < 0 || logical >= size_)
      fail(ErrorCode::out_of_range, where, ": argument 'logical' = ", logical, " lies outside [0, size) = [0, ",
           size_, ")");
  }

  [[nodiscard]] int rank_of_logical(int logical) const noexcept {
    return tables_ ? tables_->rank_of_logical[static_cast<std::size_t>(logical)] : logical;
  }

  /// -1 for a skeleton.
  [[nodiscard]] int logical_of_rank(int rank) const noexcept {
    if (tables_) return tables_->logical_of_rank[static_cast<std::size_t>(rank)];
    return rank < size_ ? rank : -1;
  }

  [[nodiscard]] int logical_at_unchecked(const Point<N>& position) const noexcept {
    index_t logical = 0;
    for (std::size_t d = 0; d < N; ++d) logical += position[d] * stride_[d];
    return static_cast<int>(logical);
  }

  [[nodiscard]] Point<N> position_at_logical_unchecked(int logical) const noexcept {
    return position_in(shape_, logical);
  }

  Point<N> shape_{};
  Point<N> stride_{};  ///< row-major strides of the logical numbering
  int comm_size_ = 1;
  int size_ = 1;
  std::shared_ptr<const Tables> tables_;  ///< null: position p holds rank p
};

/// Stable hash (see core/hash.hpp); same as `g.hash()`.
template <std::size_t N>
[[nodiscard]] std::uint64_t hash_value(const ProcGrid<N>& g) noexcept {
  return g.hash();
}

}  // namespace tessera

template <std::size_t N>
struct std::hash<tessera::ProcGrid<N>> {
  std::size_t operator()(const tessera::ProcGrid<N>& g) const noexcept { return g.hash(); }
};
