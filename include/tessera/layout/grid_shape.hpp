#pragma once
/// \file
/// Choosing the shape of a processor grid from the number of ranks and the extents of the data:
/// ZPL's `auto` grid dimensions, or MPI_Dims_create made aware of the data it will distribute.
///
/// The chooser tries every factorisation of the rank count into N factors (those that honour the
/// pinned extents) and keeps the cheapest by `GridShapeCost`. It needs no communication: every rank
/// computes the same shape from the same arguments.
/// \code
///   tessera::choose_grid_shape<2>(4, {100, 100});          // (2, 2)
///   tessera::choose_grid_shape<2>(6, {1000, 10});          // (6, 1): cut the long dimension only
///   tessera::choose_grid_shape<3>(12, {64, 64, 64}, {0, 0, 1});  // (4, 3, 1): ZPL [auto, auto, 1]
/// \endcode

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/geometry/point.hpp"

namespace tessera {

/// How well a grid shape suits data of given extents; smaller is better. Compared lexicographically:
/// idle positions first, because a rank with nothing to do wastes more than any halo costs.
struct GridShapeCost {
  /// Positions that own no index whatever the block split: `prod(shape) - prod_d min(shape[d],
  /// extents[d])`. Non-zero only when some `shape[d] > extents[d]`.
  index_t idle_positions = 0;
  /// Halo surface of the largest local block, `sum_d prod_{e != d} ceil(extents[e] / shape[e])`: the
  /// number of elements a rank exchanges per ghost layer, up to the factor 2 of the two sides.
  /// Saturates at the largest `index_t` instead of overflowing; that cannot happen while the
  /// global volume times N fits in 64 bits, since every face is at most the global volume.
  index_t halo_surface = 0;

  friend constexpr bool operator==(const GridShapeCost&, const GridShapeCost&) = default;
  friend constexpr auto operator<=>(const GridShapeCost&, const GridShapeCost&) = default;
};

namespace detail {

[[nodiscard]] constexpr index_t saturating_mul(index_t a, index_t b) noexcept {
  index_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<index_t>::max() : out;
}

[[nodiscard]] constexpr index_t saturating_add(index_t a, index_t b) noexcept {
  index_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? std::numeric_limits<index_t>::max() : out;
}

/// `ceil(n / d)` for `n >= 0`, `d >= 1`, without the overflow of `(n + d - 1) / d`.
[[nodiscard]] constexpr index_t ceil_div_nonnegative(index_t n, index_t d) noexcept {
  return n / d + (n % d != 0 ? 1 : 0);
}

}  // namespace detail

/// The cost of `shape` for data of `extents` (see GridShapeCost).
/// Preconditions: `shape[d] >= 1` and `extents[d] >= 0`.
/// \code
///   grid_shape_cost<2>({2, 2}, {100, 100});  // {0, 100}: blocks of 50x50, surface 50 + 50
///   grid_shape_cost<2>({4, 1}, {3, 100});    // {1, 101}: one row of ranks gets nothing
/// \endcode
template <std::size_t N>
[[nodiscard]] constexpr GridShapeCost grid_shape_cost(const Point<N>& shape, const Point<N>& extents) noexcept {
  index_t positions = 1, busy = 1;
  std::array<index_t, N> block{};
  for (std::size_t d = 0; d < N; ++d) {
    positions = detail::saturating_mul(positions, shape[d]);
    busy = detail::saturating_mul(busy, std::min(shape[d], extents[d]));
    block[d] = detail::ceil_div_nonnegative(extents[d], shape[d]);
  }
  // Products of all blocks but one, through prefix and suffix products: O(N), not O(N^2), because
  // the chooser evaluates this for every factorisation of the rank count.
  std::array<index_t, N + 1> suffix{};
  suffix[N] = 1;
  for (std::size_t d = N; d-- > 0;) suffix[d] = detail::saturating_mul(suffix[d + 1], block[d]);
  GridShapeCost cost;
  cost.idle_positions = positions - busy;
  index_t prefix = 1;
  for (std::size_t d = 0; d < N; ++d) {
    cost.halo_surface = detail::saturating_add(cost.halo_surface, detail::saturating_mul(prefix, suffix[d + 1]));
    prefix = detail::saturating_mul(prefix, block[d]);
  }
  return cost;
}

namespace detail {

/// True if the free (unpinned) extents of `shape` never increase from one dimension to the next.
template <std::size_t N>
[[nodiscard]] constexpr bool free_extents_non_increasing(const Point<N>& shape, const Point<N>& fixed) noexcept {
  index_t previous = std::numeric_limits<index_t>::max();
  for (std::size_t d = 0; d < N; ++d) {
    if (fixed[d] > 0) continue;
    if (shape[d] > previous) return false;
    previous = shape[d];
  }
  return true;
}

/// The order the chooser ranks shapes by: a strict total order on distinct shapes, so the answer
/// does not depend on the order the factorisations are visited in. Cost first; on a tie, as
/// MPI_Dims_create: non-increasing free extents, then the lexicographically smallest shape, which
/// among non-increasing ones is the most even (smallest largest factor, then the next, ...).
template <std::size_t N>
[[nodiscard]] constexpr bool better_shape(const Point<N>& a, const GridShapeCost& cost_a, const Point<N>& b,
                                          const GridShapeCost& cost_b, const Point<N>& fixed) noexcept {
  if (cost_a != cost_b) return cost_a < cost_b;
  const bool a_sorted = free_extents_non_increasing(a, fixed), b_sorted = free_extents_non_increasing(b, fixed);
  if (a_sorted != b_sorted) return a_sorted;
  return a < b;
}

/// Prime factors of `n >= 1` with their multiplicities, by trial division (O(sqrt n), done once).
[[nodiscard]] inline std::vector<std::pair<index_t, int>> prime_factors(index_t n) {
  std::vector<std::pair<index_t, int>> out;
  for (index_t p = 2; p <= n / p; ++p) {
    if (n % p != 0) continue;
    int multiplicity = 0;
    while (n % p == 0) {
      n /= p;
      ++multiplicity;
    }
    out.emplace_back(p, multiplicity);
  }
  if (n > 1) out.emplace_back(n, 1);
  return out;
}

/// Exhaustive search over the ordered factorisations of the free rank count. Their number is
/// prod_p C(e_p + k - 1, k - 1) for k free dimensions: 231 for 2^20 ranks in 3-D.
template <std::size_t N>
class GridShapeSearch {
 public:
  GridShapeSearch(index_t free_ranks, const Point<N>& extents, const Point<N>& fixed)
      : extents_(extents), fixed_(fixed), primes_(prime_factors(free_ranks)) {
    for (std::size_t d = 0; d < N; ++d) {
      shape_[d] = fixed[d] > 0 ? fixed[d] : 1;
      if (fixed[d] == 0) free_[free_count_++] = d;
    }
    if (free_count_ == 0) {
      consider();
    } else {
      visit(0, free_ranks);
    }
  }

  [[nodiscard]] const Point<N>& best() const noexcept { return best_; }

 private:
  void visit(std::size_t i, index_t remaining) {
    // The last free dimension takes what is left. (`i + 1 >= N` is implied; spelling it out keeps
    // GCC's -Warray-bounds from following the recursion past the array.)
    if (i + 1 >= free_count_ || i + 1 >= N) {
      shape_[free_[i]] = remaining;
      consider();
      return;
    }
    for (index_t g : divisors(remaining)) {
      shape_[free_[i]] = g;
      visit(i + 1, remaining / g);
    }
  }

  void consider() {
    const GridShapeCost cost = grid_shape_cost(shape_, extents_);
    if (!found_ || better_shape(shape_, cost, best_, best_cost_, fixed_)) {
      best_ = shape_;
      best_cost_ = cost;
      found_ = true;
    }
  }

  /// Divisors of `m`, which divides the free rank count, so its primes are among `primes_`.
  [[nodiscard]] std::vector<index_t> divisors(index_t m) const {
    std::vector<index_t> out{1};
    for (const auto& [p, multiplicity] : primes_) {
      const std::size_t before = out.size();
      index_t power = 1;
      for (int k = 0; k < multiplicity && m % p == 0; ++k) {
        m /= p;
        power *= p;
        for (std::size_t j = 0; j < before; ++j) out.push_back(out[j] * power);
      }
    }
    return out;
  }

  Point<N> extents_, fixed_, shape_{}, best_{};
  GridShapeCost best_cost_{};
  bool found_ = false;
  std::vector<std::pair<index_t, int>> primes_;
  std::array<std::size_t, N> free_{};
  std::size_t free_count_ = 0;
};

/// `choose_grid_shape` with the function and argument names its messages report, so that
/// `ProcGrid::automatic` can report its own names.
template <std::size_t N>
[[nodiscard]] Point<N> choose_grid_shape(std::string_view where, std::string_view ranks_argument, index_t ranks,
                                         const Point<N>& extents, const Point<N>& fixed) {
  if (ranks < 1) fail_argument(where, ranks_argument, ranks, "must be >= 1");
  for (std::size_t d = 0; d < N; ++d) {
    if (extents[d] < 0)
      fail_argument(where, "global_extents", extents,
                    concat("has negative extent ", extents[d], " along dimension ", d));
    if (fixed[d] < 0)
      fail_argument(where, "fixed", fixed,
                    concat("has negative extent ", fixed[d], " along dimension ", d, " (0 = free, > 0 = pinned)"));
  }
  // The pinned product, stopping as soon as it exceeds the rank count (it then cannot divide it).
  index_t pinned = 1;
  bool any_free = false;
  for (std::size_t d = 0; d < N; ++d) {
    if (fixed[d] == 0) {
      any_free = true;
    } else if (pinned <= ranks) {
      pinned = saturating_mul(pinned, fixed[d]);
    }
  }
  if (pinned > ranks)
    fail_argument(where, "fixed", fixed,
                  concat("pins more than ", ranks, " positions, but there are only ", ranks, " ranks"));
  if (ranks % pinned != 0)
    fail_argument(where, "fixed", fixed,
                  concat("pins ", pinned, " positions, which does not divide the ", ranks, " ranks"));
  if (!any_free && pinned != ranks)
    fail_argument(where, "fixed", fixed,
                  concat("pins every dimension, to ", pinned, " positions, but there are ", ranks, " ranks"));
  return GridShapeSearch<N>(ranks / pinned, extents, fixed).best();
}

}  // namespace detail

/// The grid shape for `ranks` ranks and data of `global_extents`: among the factorisations of `ranks`
/// into N factors with `shape[d] == fixed[d]` wherever `fixed[d] > 0` (0 = free), the one with the
/// smallest GridShapeCost; ties go, as in MPI_Dims_create, to non-increasing free extents, then to
/// the lexicographically smallest shape (the most even one). Deterministic. Throws `Error(invalid_argument)` for
/// `ranks < 1`, a negative extent, a negative fixed extent, or fixed extents whose product does not
/// divide `ranks` (or, with every dimension pinned, does not equal it).
/// \code
///   choose_grid_shape<2>(7, {100, 100});   // (7, 1): a prime count, as MPI_Dims_create(7, 2)
///   choose_grid_shape<2>(8, {2, 1000});    // (1, 8): no idle ranks along the short dimension
///   choose_grid_shape<2>(64, {4, 4});      // (8, 8): 48 ranks idle whatever the shape; the most even
/// \endcode
template <std::size_t N>
[[nodiscard]] Point<N> choose_grid_shape(int ranks, const Point<N>& global_extents, const Point<N>& fixed = {}) {
  return detail::choose_grid_shape("choose_grid_shape", "ranks", ranks, global_extents, fixed);
}

}  // namespace tessera
