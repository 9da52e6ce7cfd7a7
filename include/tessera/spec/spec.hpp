#pragma once
/// \file
/// A distribution and its ghost layers as one line of text, for the `tessera` command-line tool and
/// configuration files. The grammar, with examples, is in docs/spec-format.md.
/// \code
///   auto s = tessera::parse_spec("domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p");
///   auto dist = tessera::to_distribution<2>(s, 6);   // grid 2x3, [cut(0,10,40), block]
///   auto g = tessera::to_ghosts<2>(s);               // width 1 on every side, periodic both ways
///   tessera::to_string(s);                           // the same text again (canonical spelling)
/// \endcode
/// A `Spec` does not know its rank at compile time: the text decides it (one entry per dimension
/// in `domain=`), and `to_distribution<N>` checks that it matches N.
///
/// Every bad input is an `Error(invalid_argument)` whose message names the part of the text and
/// where it starts: `spec: at column 24, "cut(0,10)": ...`. No text makes the parser or the mapping
/// crash, loop or allocate without bound: lengths, counts and values are capped (`spec_limits`).

#include <algorithm>
#include <array>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/dim_distribution.hpp"
#include "tessera/layout/dim_spec.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/proc_grid.hpp"
#include "tessera/plan/ghost_spec.hpp"

namespace tessera {

/// The caps that bound what a text can ask for (documented in docs/spec-format.md).
namespace spec_limits {
inline constexpr std::size_t max_text_bytes = 65536;                 ///< length of the whole text
inline constexpr std::size_t max_rank = 8;                           ///< dimensions
inline constexpr std::size_t max_list = 4096;                        ///< entries of one cut/weights/irregular/boxes list
inline constexpr index_t max_magnitude = 1'000'000'000'000'000'000;  ///< |integer|, so hi - lo fits
inline constexpr index_t max_ranks = index_t{1} << 20;               ///< grid positions, `@K`, owners, src
inline constexpr std::size_t max_boxes = std::size_t{1} << 16;        ///< boxes of a box set after `chop=`
}  // namespace spec_limits

/// Where a part of a spec was read from, for error messages: 1-based line and column and the text
/// itself. Line 0 for a part built in code.
struct SpecSource {
  /// 1-based line; 0 for a part built in code.
  int line = 0;
  /// 1-based column.
  int column = 0;
  /// The text of the part.
  std::string text;
};

/// One dimension of a spec.
struct SpecAxis {
  index_t lo = 0;  ///< the domain along this dimension is [lo, hi)
  index_t hi = 0;
  index_t grid_extent = 0;  ///< extent of the grid axis; 0: chosen when the grid is built
  DimSpec dist;             ///< how the dimension is spread over the grid axis
  index_t ghost_lower = 0;  ///< ghost width below the owned box
  index_t ghost_upper = 0;  ///< ghost width above it
  bool periodic = false;    ///< wraps around
  friend bool operator==(const SpecAxis&, const SpecAxis&) = default;
};

/// One box of a box-set spec (`boxes=`): [lo[d], hi[d]) along each dimension d, and its owner.
struct SpecBox {
  std::vector<index_t> lo, hi;  ///< one entry per dimension
  int owner = -1;               ///< the owner rank (`@R`); -1: the policy of `assign=` chooses it
  friend bool operator==(const SpecBox&, const SpecBox&) = default;
};

/// How the boxes of a box-set spec get their owners (layout/box_assignment.hpp).
enum class SpecAssignment {
  given,     ///< each box names its owner (`@R`)
  knapsack,  ///< `assign=knapsack`: `BoxAssignment::knapsack`
  morton,    ///< `assign=morton`: `BoxAssignment::morton`
  hilbert,   ///< `assign=hilbert`: `BoxAssignment::hilbert`
};

/// A parsed specification: the domain, the grid, the per-dimension distributions, the order and
/// the ghost layers, or for a box set (`boxes=`) the boxes and how they get their owners. Compare
/// with `==` (which ignores `source`).
struct Spec {
  std::vector<SpecAxis> axes;  ///< one per dimension
  /// Ranks a grid with chosen extents places (`grid=auto@K`), or a box policy spreads the boxes
  /// over (`assign=morton@K`); 0: every rank of the communicator.
  index_t grid_ranks = 0;
  std::vector<int> order;  ///< dimension order (see Distribution); empty: 0, 1, ..., rank-1
  bool corners = true;     ///< ghost edges and corners are filled (false: `ghosts=...,faces`)

  /// A box set (`boxes=`): disjoint boxes inside the domain, holes allowed; empty for a grid
  /// distribution (then the axes' grid and dist say who owns what).
  std::vector<SpecBox> boxes;
  SpecAssignment assignment = SpecAssignment::given;  ///< `assign=`
  /// `assign=...(chop=AxB)`: the boxes are first cut to at most these extents (`chop_boxes`);
  /// empty: not cut.
  std::vector<index_t> chop;

  /// Where each part was read from; not compared.
  struct Sources {
    SpecSource domain, grid, order, ghosts;
    std::vector<SpecSource> dist;  ///< one per dimension
    SpecSource boxes, assign;      ///< the boxes= and assign= fields
    std::vector<SpecSource> box;   ///< one per box
  } source;

  /// Number of dimensions.
  [[nodiscard]] std::size_t rank() const noexcept { return axes.size(); }
  /// True if no side of any dimension has a ghost layer.
  [[nodiscard]] bool no_ghosts() const noexcept;
  /// True for a box set (`boxes=`).
  [[nodiscard]] bool is_box_set() const noexcept { return !boxes.empty(); }

  friend bool operator==(const Spec& a, const Spec& b) noexcept {
    return a.axes == b.axes && a.grid_ranks == b.grid_ranks && a.order == b.order && a.corners == b.corners &&
           a.boxes == b.boxes && a.assignment == b.assignment && a.chop == b.chop;
  }
};

/// Parses a spec (see docs/spec-format.md). Throws `Error(invalid_argument)` naming the bad part of
/// the text and its column; checks everything that does not depend on the communicator size.
/// \code
///   parse_spec("domain=100x100 grid=auto dist=block_cyclic(8),cyclic ghosts=0p");
///   parse_spec("domain=-5:95 grid=4 dist=weights(1,2,2,1)(lb=5)");  // error: text after ')'
/// \endcode
[[nodiscard]] Spec parse_spec(std::string_view text);

/// The canonical text of a spec: `parse_spec(to_string(s)) == s` for every parsed `s`.
[[nodiscard]] std::string to_string(const Spec& spec);
/// Prints `to_string(spec)`.
std::ostream& operator<<(std::ostream& out, const Spec& spec);

/// The text of one dimension's distribution in the spec syntax: `cut(0,10,40)`, `block(lb=4)`.
[[nodiscard]] std::string spec_text(const DimSpec& dist);
/// The text of one box of a box set: `0:4x4:8@1` (`@R` only for an owner >= 0).
[[nodiscard]] std::string spec_text(const SpecBox& box);
/// The text of a box set's `assign=` value: `morton(chop=16x16)@4`.
[[nodiscard]] std::string spec_assignment_text(const Spec& spec);

namespace detail {

/// What `to_distribution` needs to build the grid, computed without knowing N.
struct SpecGridRequest {
  std::vector<index_t> fixed;  ///< per axis: the extent, or 0 where the grid chooses it
  int active = 0;              ///< ranks the grid places: 0..active-1; the others are skeletons
  bool all_fixed = false;      ///< every extent known: no choice to make
};

/// Checks that `spec` has `n` dimensions, for `caller` (`to_distribution<3>`), and that every
/// axis has lo <= hi.
void check_spec_rank(const Spec& spec, std::size_t n, std::string_view caller);
/// The grid request for a communicator of `comm_size` ranks: explicit extents, plus the extents
/// implied by the lists of `cut`/`weights` axes and by `collapsed` axes.
[[nodiscard]] SpecGridRequest spec_grid_request(const Spec& spec, int comm_size);
/// Ranks 0..count-1.
[[nodiscard]] std::vector<int> first_ranks(int count);
/// Binds axis d to a grid axis of extent g, to validate it; a failure names the axis's text.
void check_spec_axis(const Spec& spec, std::size_t d, index_t g);
/// Throws `Error(invalid_argument)` for `cause`, naming the part `source` (or, for a spec built in
/// code, `name` and `printed`).
[[noreturn]] void fail_in_part(const SpecSource& source, std::string_view name, std::string_view printed,
                               std::string_view cause);
/// The text of the grid part, for messages about a spec built in code.
[[nodiscard]] std::string spec_grid_text(const Spec& spec);
/// Checks a box-set spec against a communicator of `comm_size` ranks (every box of rank() entries,
/// owners and `@K` within the communicator, `chop` of rank() entries); returns the ranks a policy
/// spreads the boxes over. A failure names the box or the assign= part.
[[nodiscard]] int check_spec_box_set(const Spec& spec, int comm_size);

/// The box-set distribution of a box-set spec (see `to_distribution`).
template <std::size_t N>
Distribution<N> spec_box_set_distribution(const Spec& spec, const Box<N>& domain, int comm_size) {
  const int ranks = check_spec_box_set(spec, comm_size);
  std::vector<Box<N>> boxes;
  std::vector<int> owners;
  for (const SpecBox& b : spec.boxes) {
    Box<N> box;
    for (std::size_t d = 0; d < N; ++d) box.lo[d] = b.lo[d], box.hi[d] = b.hi[d];
    boxes.push_back(box);
    owners.push_back(b.owner);
  }
  try {
    if (spec.assignment != SpecAssignment::given) {
      if (!spec.chop.empty()) {
        Point<N> max_extent;
        for (std::size_t d = 0; d < N; ++d) max_extent[d] = spec.chop[d];
        boxes = chop_boxes(boxes, max_extent);
      }
      const BoxAssignment policy = spec.assignment == SpecAssignment::knapsack ? BoxAssignment::knapsack
                                   : spec.assignment == SpecAssignment::morton ? BoxAssignment::morton
                                                                               : BoxAssignment::hilbert;
      owners = assign_boxes<N>(boxes, ranks, policy);
    }
    return Distribution<N>::from_box_set(BoxSet<N>(domain, std::move(boxes), std::move(owners), comm_size));
  } catch (const Error& e) {
    // The parser checked the boxes; only a spec built in code gets here.
    fail_in_part(spec.source.boxes, "boxes", "", e.what());
  }
}

}  // namespace detail

/// The distribution a spec describes, over a communicator of `comm_size` ranks. A grid of P
/// positions (explicit shape or `@K`) places ranks 0..P-1; ranks P..comm_size-1 are skeletons.
/// A box set (`boxes=`) is `Distribution<N>::from_box_set` of a `BoxSet` in the spec's domain, its
/// owners given or chosen by the policy over ranks 0..K-1 (`@K`) or the whole communicator.
/// Throws `Error(invalid_argument)` naming the part of the text when the spec has not N
/// dimensions, asks for more ranks than `comm_size` (a grid, `@K`, a box's owner), or does not fit
/// the grid chosen.
template <std::size_t N>
  requires(N >= 1)
[[nodiscard]] Distribution<N> to_distribution(const Spec& spec, int comm_size) {
  detail::check_spec_rank(spec, N, detail::concat("to_distribution<", N, ">"));
  Box<N> domain;
  Point<N> extents;
  for (std::size_t d = 0; d < N; ++d) {
    domain.lo[d] = spec.axes[d].lo;
    domain.hi[d] = spec.axes[d].hi;
    extents[d] = spec.axes[d].hi - spec.axes[d].lo;  // fits: check_spec_rank checked it
  }
  if (spec.is_box_set()) return detail::spec_box_set_distribution<N>(spec, domain, comm_size);
  const detail::SpecGridRequest request = detail::spec_grid_request(spec, comm_size);
  Point<N> fixed;
  for (std::size_t d = 0; d < N; ++d) fixed[d] = request.fixed[d];
  const auto build_grid = [&] {
    const bool whole_comm = request.active == comm_size;
    if (request.all_fixed)
      return whole_comm ? ProcGrid<N>::with_shape(comm_size, fixed)
                        : ProcGrid<N>::from_ranks(comm_size, fixed, detail::first_ranks(request.active));
    return whole_comm ? ProcGrid<N>::automatic(comm_size, extents, fixed)
                      : ProcGrid<N>::automatic(comm_size, detail::first_ranks(request.active), extents, fixed);
  };
  ProcGrid<N> grid;
  try {
    grid = build_grid();
  } catch (const Error& e) {
    detail::fail_in_part(spec.source.grid, "grid", detail::spec_grid_text(spec), e.what());
  }
  // Bound axis by axis first, so that a failure names the part of the text it comes from.
  std::array<DimSpec, N> dims;
  for (std::size_t d = 0; d < N; ++d) {
    detail::check_spec_axis(spec, d, grid.extent(d));
    dims[d] = spec.axes[d].dist;
  }
  auto order = Distribution<N>::natural_order();
  if (!spec.order.empty()) {
    if (spec.order.size() != N)
      detail::fail_in_part(spec.source.order, "order", "",
                           detail::concat("has ", spec.order.size(), " entries, not ", N));
    std::copy(spec.order.begin(), spec.order.end(), order.begin());
  }
  try {
    return Distribution<N>(domain, grid, dims, order);
  } catch (const Error& e) {
    // The domain, the grid and every axis are valid by now: what is left is the order.
    detail::fail_in_part(spec.source.order, "order", "", e.what());
  }
}

/// The ghost layers a spec describes. Throws `Error(invalid_argument)` when the spec has not N
/// dimensions or a width is negative.
template <std::size_t N>
  requires(N >= 1)
[[nodiscard]] GhostSpec<N> to_ghosts(const Spec& spec) {
  detail::check_spec_rank(spec, N, detail::concat("to_ghosts<", N, ">"));
  Point<N> lower, upper;
  Periodicity<N> periodic{};
  for (std::size_t d = 0; d < N; ++d) {
    lower[d] = spec.axes[d].ghost_lower;
    upper[d] = spec.axes[d].ghost_upper;
    periodic[d] = spec.axes[d].periodic;
  }
  GhostSpec<N> g;
  try {
    g = GhostSpec<N>::sides(lower, upper).periodic_along(periodic);
  } catch (const Error& e) {
    detail::fail_in_part(spec.source.ghosts, "ghosts", "", e.what());
  }
  return spec.corners ? g : g.faces_only();
}

}  // namespace tessera
