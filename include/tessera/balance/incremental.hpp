#pragma once
/// \file
/// Incremental redistribution (D3-ARC §III-B, `d3_new_dist` and `d3_migrate`), for any
/// distribution whose distributed axes are cut into intervals (block, cut, weights, general).
///
/// A target comes from weights (`cut_target`: one interval per grid coordinate, nested per slab in
/// the distribution's dimension order, rounded to the logical block). `plan_step` moves every
/// boundary a fraction Δ of the way there, `b + Δ (target - b)` rounded to the nearest multiple of
/// the logical block (ties toward the target), and reports what would move before anything does;
/// `migrate_step` carries the step out for every array of the domain (through `Domain::migrate`,
/// which moves a domain to any distribution of its box). Δ = 0 moves nothing; Δ = 1 reaches the
/// target.
/// \code
///   auto target = tessera::cut_target(dom.distribution(), weights);
///   auto step = tessera::plan_step(dom, target, 0.3);       // d3_new_dist: nothing moves yet
///   if (step.blocks * unit_cost < budget) tessera::migrate_step(dom, step);  // d3_migrate
/// \endcode

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {

/// The axes incremental balancing moves: those spread over more than one grid coordinate. Throws
/// `Error(invalid_argument)` (naming `where`) if any axis is not cut into intervals (block, cut,
/// weights, general, collapsed), even one the grid does not split, or the distribution is
/// user-defined.
template <std::size_t N>
[[nodiscard]] std::array<bool, N> balanced_axes(const Distribution<N>& dist, const char* where) {
  if (dist.is_user_defined())
    fail_argument(where, "distribution", dist, "is user-defined: incremental balancing moves the cuts of interval axes");
  std::array<bool, N> axes{};
  for (std::size_t d = 0; d < N; ++d) {
    // Every axis must own intervals, split or not: a rank's part must be one box for the step's
    // accounting and for migrating in place (a cyclic axis over one coordinate still compacts).
    if (!dist.dim(d).owns_intervals())
      fail_argument(where, "distribution", dist,
                    detail::concat("is ", to_string(dist.dim(d).kind()), " along axis ", d,
                                   ": incremental balancing moves interval boundaries (block, cut, general)"));
    axes[d] = dist.grid().extent(d) > 1;
  }
  return axes;
}

/// The cut distribution with shares in proportion to `weights` (one per grid position, in logical
/// order; D3-ARC's `D_GENERAL`), over the same box, grid and dimension order as `dist`, each
/// distributed axis rounded to its logical block. Throws `Error(invalid_argument)` for a wrong
/// number of weights, negative or all-zero weights in a slab, or an axis that is not cut into
/// intervals.
template <std::size_t N>
[[nodiscard]] Distribution<N> cut_target(const Distribution<N>& dist, const std::vector<double>& weights) {
  const auto axes = balanced_axes(dist, "cut_target");
  std::array<DimSpec, N> specs;
  for (std::size_t d = 0; d < N; ++d)
    specs[d] = (axes[d] ? general() : block()).with_logical_block(dist.dim(d).logical_block());
  return Distribution<N>::from_rank_weights(dist.domain(), dist.grid(), weights, specs, dist.order());
}

/// `b + delta (t - b)` rounded to the nearest multiple of `block` counted from `lo` (a tie goes
/// toward the target, so that a step never stalls halfway), kept within [lo, hi].
[[nodiscard]] inline index_t step_boundary(index_t b, index_t t, double delta, index_t lo, index_t hi, index_t block) {
  const double x = static_cast<double>(b) + delta * static_cast<double>(t - b);
  const index_t below = lo + static_cast<index_t>(std::floor((x - static_cast<double>(lo)) / static_cast<double>(block))) * block;
  const index_t above = below + block;
  const double to_below = x - static_cast<double>(below), to_above = static_cast<double>(above) - x;
  const index_t nearest = to_below < to_above ? below : to_above < to_below ? above : (t >= b ? above : below);
  return std::clamp(nearest, lo, hi);
}

/// `from` with every boundary of every distributed axis moved a fraction `delta` of the way to
/// `target`'s (which must be over the same box, grid and order). Throws `Error(invalid_argument)`
/// for `delta` outside [0, 1] or a target over another box, grid or order.
template <std::size_t N>
[[nodiscard]] Distribution<N> step_toward(const Distribution<N>& from, const Distribution<N>& target, double delta) {
  constexpr const char* where = "step_toward";
  if (!(delta >= 0 && delta <= 1)) fail_argument(where, "delta", delta, "must be in [0, 1]");
  const auto axes = balanced_axes(from, where);
  if (target.is_user_defined() || target.domain() != from.domain() || !(target.grid() == from.grid()) ||
      target.order() != from.order())
    fail_argument(where, "target", target,
                  detail::concat("must cut the same box, grid and dimension order as the current distribution ", from));
  if (delta == 0) return from;
  Distribution<N> to = from;
  for (std::size_t d = 0; d < N; ++d) {
    if (!axes[d]) continue;
    const auto current = from.slab_cuts(d);
    const auto goal = target.slab_cuts(d);
    const index_t block = from.dim(d).logical_block();
    const index_t lo = from.domain().lo[d], hi = from.domain().hi[d];
    std::vector<std::vector<index_t>> cuts(current.size());
    for (std::size_t s = 0; s < current.size(); ++s) {
      cuts[s].resize(current[s].size());
      for (std::size_t j = 0; j < current[s].size(); ++j)
        cuts[s][j] = (j == 0) ? lo : (j + 1 == current[s].size()) ? hi
                                                                   : step_boundary(current[s][j], goal[s][j], delta, lo, hi, block);
    }
    to = to.with_cuts(d, std::move(cuts));
  }
  return to;
}

/// Elements whose owner differs between `from` and `to` (both box-owning, over the same box and
/// number of ranks): the sum over ranks of what each owned before and does not own after.
template <std::size_t N>
[[nodiscard]] index_t elements_changing_owner(const Distribution<N>& from, const Distribution<N>& to) {
  index_t moved = 0;
  for (int r = 0; r < from.comm_size(); ++r) {
    const index_t before = from.local_size(r);
    if (before == 0) continue;
    moved += before - volume(intersect(from.owned_box(r), to.owned_box(r)));
  }
  return moved;
}

/// What one incremental step would do (D3-ARC's distribution handle plus `nb`), computed without
/// communication and before anything moves.
template <std::size_t N>
struct StepPlan {
  Distribution<N> from;          ///< the domain's distribution when the step was planned
  Distribution<N> to;            ///< where the step leads
  double delta = 0;              ///< the fraction asked for
  index_t elements = 0;          ///< elements that change owner (per array)
  index_t blocks = 0;            ///< the same in logical blocks (rounded up), D3-ARC's `nb`
  std::uint64_t bytes = 0;       ///< bytes that travel, every array of the domain together
  /// True if some element changes owner.
  [[nodiscard]] bool moves_anything() const noexcept { return elements > 0; }
};

/// Elements in one logical block: the logical block along each distributed axis times the whole
/// extent of every other axis (for D3-ARC's rows, `lb` rows of the full width).
template <std::size_t N>
[[nodiscard]] index_t elements_per_block(const Distribution<N>& dist) {
  index_t unit = 1;
  for (std::size_t d = 0; d < N; ++d)
    unit *= dist.grid().extent(d) > 1 ? dist.dim(d).logical_block() : std::max<index_t>(1, extent(dist.domain(), d));
  return unit;
}

/// D3-ARC's `d3_new_dist`: the step of fraction `delta` from `domain`'s distribution toward
/// `target`, with the blocks and bytes it would move. Not collective; nothing moves. Throws
/// `Error(invalid_argument)` as `step_toward` does.
template <std::size_t N>
[[nodiscard]] StepPlan<N> plan_step(const Domain<N>& domain, const Distribution<N>& target, double delta) {
  StepPlan<N> p{domain.distribution(), step_toward(domain.distribution(), target, delta), delta};
  p.elements = elements_changing_owner(p.from, p.to);
  const index_t unit = elements_per_block(p.from);
  p.blocks = (p.elements + unit - 1) / unit;
  p.bytes = static_cast<std::uint64_t>(p.elements) * domain.bytes_per_element();
  return p;
}

/// D3-ARC's `d3_migrate`: collective; carries out `step` (from `plan_step`) for every array of
/// `domain` and returns the seconds it took (the largest over the ranks). Throws
/// `Error(invalid_argument)` on every rank if the domain's distribution is no longer the one the
/// step was planned from.
template <std::size_t N>
double migrate_step(Domain<N>& domain, const StepPlan<N>& step) {
  const auto checked = detail::check_collective(domain.comm(), "migrate_step", step.from, step.to);
  if (!(domain.distribution() == step.from))
    fail_argument("migrate_step", "step", step.to,
                  detail::concat("was planned from ", step.from, " but the domain is now distributed ",
                                 domain.distribution(), " (plan the step again)"));
  return domain.migrate(step.to);
}

/// The former name of `migrate_step`, easily taken for `Domain::migrate`.
template <std::size_t N>
[[deprecated("use migrate_step(domain, step)")]] double migrate(Domain<N>& domain, const StepPlan<N>& step) {
  return migrate_step(domain, step);
}

}  // namespace tessera
