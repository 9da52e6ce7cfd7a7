#pragma once
/// \file
/// Assigning boxes to ranks (KeLP's Map; AMReX's `makeKnapSack` and `makeSFC`), and chopping boxes
/// to a maximum size so that a few big boxes can be spread. Each policy returns one owner per box;
/// `make_box_set` builds the `BoxSet` from them.
/// \code
///   auto pieces = tessera::chop_boxes(boxes, tessera::Point<2>{32, 32});      // no box over 32x32
///   auto set = tessera::make_box_set(pieces, comm.size(), tessera::BoxAssignment::morton);
///   double imbalance = tessera::max_over_mean_load<2>(pieces, set.owners(), comm.size());  // spans: give N
/// \endcode
/// Weights: one per box, finite and >= 0; an empty span means the cell count of each box. Every
/// policy is deterministic (ties broken by box index, then rank), so every rank computes the same
/// owners without communicating.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"

namespace tessera {

/// The assignment policies `make_box_set` knows.
enum class BoxAssignment {
  knapsack,  ///< greedy knapsack: heaviest box first, to the least loaded rank
  morton,    ///< Morton order of the box centres, cut into runs of about equal weight
  hilbert,   ///< Hilbert order of the box centres, cut the same way (runs without Morton's jumps)
};

namespace detail {

/// The weight of each box: `weights` checked (size, finite, >= 0), or the cell counts if empty.
template <std::size_t N>
std::vector<double> box_weights(const char* where, std::span<const Box<N>> boxes, std::span<const double> weights) {
  std::vector<double> w(boxes.size());
  if (weights.empty()) {
    for (std::size_t i = 0; i < boxes.size(); ++i) w[i] = static_cast<double>(volume(boxes[i]));
    return w;
  }
  if (weights.size() != boxes.size())
    fail_argument(where, "weights", concat(weights.size(), " entries"), concat("must give one per box (", boxes.size(), ")"));
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0)
      fail_argument(where, concat("weights[", i, "]"), weights[i], "must be finite and >= 0");
    w[i] = weights[i];
  }
  return w;
}

inline void check_rank_count(const char* where, int comm_size) {
  if (comm_size < 1) fail_argument(where, "comm_size", comm_size, "must be >= 1");
}

/// Checks owners (one per box, each a rank in [0, comm_size)); `name` says which list.
template <std::size_t N>
void check_owners(const char* where, const char* name, std::span<const Box<N>> boxes, std::span<const int> owners,
                  int comm_size) {
  if (owners.size() != boxes.size())
    fail_argument(where, name, concat(owners.size(), " entries"), concat("must give one owner per box (", boxes.size(), ")"));
  for (std::size_t i = 0; i < owners.size(); ++i)
    if (owners[i] < 0 || owners[i] >= comm_size)
      fail_argument(where, concat(name, "[", i, "]"), owners[i], concat("is not a rank in [0, ", comm_size, ")"));
}

/// Bits per axis of the space-filling curves' codes (62 of the 64 bits in all).
template <std::size_t N>
inline constexpr int kCurveBits = 62 / static_cast<int>(N);

/// A box's doubled centre (lo + hi, integral) relative to the doubled bounding box, shifted down
/// to at most `kCurveBits<N>` bits per axis: the grid both curves order.
template <std::size_t N>
std::array<std::uint64_t, N> doubled_centre(const Box<N>& b, const Box<N>& bounds, int shift_bits) {
  std::array<std::uint64_t, N> q{};
  for (std::size_t d = 0; d < N; ++d)
    q[d] = static_cast<std::uint64_t>((b.lo[d] + b.hi[d]) - 2 * bounds.lo[d]) >> shift_bits;
  return q;
}

/// The bits of q interleaved from the most significant level down, axis 0 most significant within
/// a level.
template <std::size_t N>
std::uint64_t interleave(const std::array<std::uint64_t, N>& q) {
  std::uint64_t code = 0;
  for (int level = kCurveBits<N> - 1; level >= 0; --level)
    for (std::size_t d = 0; d < N; ++d) code = (code << 1) | ((q[d] >> level) & 1U);
  return code;
}

/// The Morton code of a box's centre: its doubled centre's bits interleaved (as
/// examples/morton_distribution).
template <std::size_t N>
std::uint64_t morton_code(const Box<N>& b, const Box<N>& bounds, int shift_bits) {
  return interleave<N>(doubled_centre<N>(b, bounds, shift_bits));
}

/// The Hilbert index of a box's centre, on the same grid of doubled centres as `morton_code`:
/// Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004) turns the
/// coordinates into the curve's transposed index, whose bits interleave as Morton's do. Cells next
/// to each other on the curve are next to each other in space (Morton's curve jumps), so the runs
/// it is cut into are more compact.
template <std::size_t N>
std::uint64_t hilbert_code(const Box<N>& b, const Box<N>& bounds, int shift_bits) {
  std::array<std::uint64_t, N> x = doubled_centre<N>(b, bounds, shift_bits);
  constexpr std::uint64_t top = std::uint64_t{1} << (kCurveBits<N> - 1);
  // Inverse undo: from the top level down, reflect or exchange the lower bits.
  for (std::uint64_t q = top; q > 1; q >>= 1) {
    const std::uint64_t p = q - 1;
    for (std::size_t d = 0; d < N; ++d) {
      if ((x[d] & q) != 0) {
        x[0] ^= p;
      } else {
        const std::uint64_t t = (x[0] ^ x[d]) & p;
        x[0] ^= t;
        x[d] ^= t;
      }
    }
  }
  // Gray encode.
  for (std::size_t d = 1; d < N; ++d) x[d] ^= x[d - 1];
  std::uint64_t t = 0;
  for (std::uint64_t q = top; q > 1; q >>= 1)
    if ((x[N - 1] & q) != 0) t ^= q - 1;
  for (std::size_t d = 0; d < N; ++d) x[d] ^= t;
  return interleave<N>(x);
}

/// Boxes sorted by `code_of(box, bounds, shift_bits)` of their centres (ties: lower index first),
/// the curve cut into `comm_size` runs of about equal weight (see `assign_morton`).
template <std::size_t N>
std::vector<int> assign_along_curve(const char* where, std::span<const Box<N>> boxes, int comm_size,
                                    std::span<const double> weights,
                                    std::uint64_t (*code_of)(const Box<N>&, const Box<N>&, int)) {
  check_rank_count(where, comm_size);
  const auto w = box_weights<N>(where, boxes, weights);
  Box<N> bounds;
  bool first = true;
  for (const auto& b : boxes)
    if (!b.empty()) bounds = first ? b : bounding_box(bounds, b), first = false;
  // Doubled coordinates span up to 2 * extent: keep the top kCurveBits<N> bits of them.
  int shift_bits = 0;
  for (std::size_t d = 0; d < N; ++d)
    while ((static_cast<std::uint64_t>(2 * extent(bounds, d)) >> shift_bits) >= (std::uint64_t{1} << kCurveBits<N>)) ++shift_bits;
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) keyed[i] = {code_of(boxes[i], bounds, shift_bits), i};
  std::sort(keyed.begin(), keyed.end());
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<int> owners(boxes.size());
  double before = 0;
  for (std::size_t k = 0; k < keyed.size(); ++k) {
    const std::size_t i = keyed[k].second;
    // Zero total weight: spread by position along the curve instead.
    const double at = total > 0 ? (before + w[i] / 2) / total : (static_cast<double>(k) + 0.5) / static_cast<double>(keyed.size());
    owners[i] = std::min(comm_size - 1, static_cast<int>(at * comm_size));
    before += w[i];
  }
  return owners;
}

}  // namespace detail

/// The boxes of `boxes` cut so that no piece is longer than `max_extent[d]` along axis d: each box
/// is cut along each axis into the fewest near-equal pieces (lengths differing by at most one).
/// Pieces of one box follow each other in row-major order of their position. Empty boxes vanish.
/// Throws `Error(invalid_argument)` for a `max_extent` entry < 1.
template <std::size_t N>
[[nodiscard]] std::vector<Box<N>> chop_boxes(std::span<const Box<N>> boxes, const Point<N>& max_extent) {
  for (std::size_t d = 0; d < N; ++d)
    if (max_extent[d] < 1) fail_argument("chop_boxes", detail::concat("max_extent[", d, "]"), max_extent[d], "must be >= 1");
  std::vector<Box<N>> out;
  for (const auto& b : boxes) {
    if (b.empty()) continue;
    Point<N> parts;
    for (std::size_t d = 0; d < N; ++d) parts[d] = (extent(b, d) + max_extent[d] - 1) / max_extent[d];
    const auto cut = [&](std::size_t d, index_t k) {  // k-th boundary of b's cuts along d
      return b.lo[d] + (extent(b, d) / parts[d]) * k + std::min(k, extent(b, d) % parts[d]);
    };
    Point<N> k{};
    for (;;) {
      Box<N> piece;
      for (std::size_t d = 0; d < N; ++d) piece.lo[d] = cut(d, k[d]), piece.hi[d] = cut(d, k[d] + 1);
      out.push_back(piece);
      std::size_t d = N;
      while (d > 0 && ++k[d - 1] == parts[d - 1]) k[--d] = 0;
      if (d == 0) break;
    }
  }
  return out;
}

/// `chop_boxes` for a vector.
template <std::size_t N>
[[nodiscard]] std::vector<Box<N>> chop_boxes(const std::vector<Box<N>>& boxes, const Point<N>& max_extent) {
  return chop_boxes(std::span<const Box<N>>(boxes), max_extent);
}

/// Greedy knapsack: boxes in decreasing weight (ties: lower index first), each to the rank with the
/// least load so far (ties: lower rank). The heaviest load is at most the optimum + the heaviest box.
template <std::size_t N>
[[nodiscard]] std::vector<int> assign_knapsack(std::span<const Box<N>> boxes, int comm_size,
                                               std::span<const double> weights = {}) {
  constexpr const char* where = "assign_knapsack";
  detail::check_rank_count(where, comm_size);
  const auto w = detail::box_weights<N>(where, boxes, weights);
  std::vector<std::size_t> order(boxes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return w[a] > w[b]; });
  using Load = std::pair<double, int>;  // (load, rank): the smallest pair is the least loaded, lowest rank
  std::priority_queue<Load, std::vector<Load>, std::greater<>> ranks;
  for (int r = 0; r < comm_size; ++r) ranks.emplace(0.0, r);
  std::vector<int> owners(boxes.size());
  for (std::size_t i : order) {
    auto [load, r] = ranks.top();
    ranks.pop();
    owners[i] = r;
    ranks.emplace(load + w[i], r);
  }
  return owners;
}

/// Space-filling curve: boxes sorted by the Morton code of their centres (ties: lower index
/// first), the curve cut into `comm_size` runs of about equal weight — box k goes to rank
/// floor(P * (weight before k + half its own) / total), so a run boundary falls where the curve's
/// running weight crosses a multiple of total / P. Neighbouring boxes tend to share a rank.
template <std::size_t N>
[[nodiscard]] std::vector<int> assign_morton(std::span<const Box<N>> boxes, int comm_size,
                                             std::span<const double> weights = {}) {
  return detail::assign_along_curve<N>("assign_morton", boxes, comm_size, weights, detail::morton_code<N>);
}

/// The same along the Hilbert curve (`detail::hilbert_code`): consecutive boxes on the curve are
/// neighbours in space, so each rank's run is one connected stretch where boxes tile the domain.
template <std::size_t N>
[[nodiscard]] std::vector<int> assign_hilbert(std::span<const Box<N>> boxes, int comm_size,
                                              std::span<const double> weights = {}) {
  return detail::assign_along_curve<N>("assign_hilbert", boxes, comm_size, weights, detail::hilbert_code<N>);
}

/// The owners `policy` gives `boxes` over `comm_size` ranks.
template <std::size_t N>
[[nodiscard]] std::vector<int> assign_boxes(std::span<const Box<N>> boxes, int comm_size, BoxAssignment policy,
                                            std::span<const double> weights = {}) {
  switch (policy) {
    case BoxAssignment::knapsack: return assign_knapsack<N>(boxes, comm_size, weights);
    case BoxAssignment::morton: return assign_morton<N>(boxes, comm_size, weights);
    case BoxAssignment::hilbert: return assign_hilbert<N>(boxes, comm_size, weights);
  }
  fail_argument("assign_boxes", "policy", static_cast<int>(policy), "is not a BoxAssignment");
}

/// The box set of `boxes` over `comm_size` ranks with owners from `policy`, in the domain of their
/// bounding box. Throws as the policy and the `BoxSet` constructor do.
template <std::size_t N>
[[nodiscard]] BoxSet<N> make_box_set(std::vector<Box<N>> boxes, int comm_size, BoxAssignment policy,
                                     std::span<const double> weights = {}) {
  std::vector<int> owners = assign_boxes<N>(boxes, comm_size, policy, weights);
  return BoxSet<N>(std::move(boxes), std::move(owners), comm_size);
}

/// The same in a given `domain` (what a redistribution to or from another distribution of
/// `domain` needs). Throws also `Error(out_of_range)` for a box not inside `domain`.
template <std::size_t N>
[[nodiscard]] BoxSet<N> make_box_set(const Box<N>& domain, std::vector<Box<N>> boxes, int comm_size,
                                     BoxAssignment policy, std::span<const double> weights = {}) {
  std::vector<int> owners = assign_boxes<N>(boxes, comm_size, policy, weights);
  return BoxSet<N>(domain, std::move(boxes), std::move(owners), comm_size);
}

/// Quality of an assignment: the heaviest rank's load over the mean load (1 is perfect; 0 if
/// there is no weight at all).
template <std::size_t N>
[[nodiscard]] double max_over_mean_load(std::span<const Box<N>> boxes, std::span<const int> owners, int comm_size,
                                        std::span<const double> weights = {}) {
  constexpr const char* where = "max_over_mean_load";
  detail::check_rank_count(where, comm_size);
  detail::check_owners<N>(where, "owners", boxes, owners, comm_size);
  const auto w = detail::box_weights<N>(where, boxes, weights);
  std::vector<double> load(static_cast<std::size_t>(comm_size), 0.0);
  for (std::size_t i = 0; i < boxes.size(); ++i) load[static_cast<std::size_t>(owners[i])] += w[i];
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  if (total <= 0) return 0.0;
  return *std::max_element(load.begin(), load.end()) / (total / comm_size);
}

}  // namespace tessera
