#pragma once
/// \file
/// Balancing box sets incrementally (issue 16: D3-ARC's Δ applied to boxes) and measuring what an
/// assignment of boxes to ranks costs.
///
/// D3-ARC moves the cuts of a block distribution a fraction Δ of the way to their target. A box set
/// has no cuts: its unit of movement is a whole box. `incremental_box_step` moves, of the boxes
/// whose owner differs in a target assignment (from `assign_knapsack`, `assign_morton`, or the
/// user), only those with the best gain per cell moved — gain being how much of the *excess load*
/// (sum over ranks of load above the mean) the move removes — until a fraction Δ of the excess is
/// gone. Δ = 1 takes the target as it is; Δ = 0 moves nothing. `box_step_preview` reports a step
/// in the balance layer's terms (`StepPreview`), so the policies of balance/policy.hpp (static Δ,
/// D3-ARC's adaptive Δ, AMP's amortised, the horizon) decide for box sets as they do for cuts.
/// `assignment_quality` reports max/mean load, the bytes a change of assignment moves against a
/// lower bound, and the neighbour pairs and halo cells the assignment creates.
/// \code
///   auto target = tessera::assign_knapsack<2>(set.boxes(), P, weights);       // where to go
///   auto step = tessera::incremental_box_step<2>(set.boxes(), set.owners(), target, P, 0.5, weights);
///   dom.redistribute(tessera::Distribution<2>::from_box_set(                   // values kept
///       tessera::BoxSet<2>(set.domain(), set.boxes(), step.owners, P)));
/// \endcode
/// Everything here is MPI-free and deterministic (ties go to the lower box index), so every rank
/// computes the same step from the same (replicated) weights without talking.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <set>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "tessera/balance/policy.hpp"
#include "tessera/core/error.hpp"
#include "tessera/geometry/box_index.hpp"
#include "tessera/layout/box_assignment.hpp"

namespace tessera {

/// One box changing owner.
struct BoxMove {
  std::size_t box = 0;
  int from = 0;
  int to = 0;
};

/// `incremental_box_step`'s `max_cells` when the step has no byte budget.
inline constexpr std::uint64_t no_cell_budget = UINT64_MAX;

/// What `incremental_box_step` chose.
struct IncrementalBoxStep {
  std::vector<int> owners;     ///< the assignment after the step (one owner per box)
  std::vector<BoxMove> moves;  ///< the boxes that change owner, in the order chosen (best first)
  std::uint64_t cells = 0;     ///< cells those boxes hold: what travels, per element
  double excess_before = 0;    ///< sum over ranks of max(0, load - mean), before the step
  double excess_after = 0;     ///< the same after it
};

namespace detail {

/// Sum over ranks of the load above the mean: the work the slowest ranks carry beyond their share
/// (half the L1 distance of the loads from the mean).
inline double excess_load(std::span<const double> load, double mean) {
  double excess = 0;
  for (const double l : load) excess += std::max(0.0, l - mean);
  return excess;
}

/// Each rank's load: the weights of its boxes summed.
inline std::vector<double> rank_loads(std::span<const int> owners, std::span<const double> w, int comm_size) {
  std::vector<double> load(static_cast<std::size_t>(comm_size), 0.0);
  for (std::size_t i = 0; i < owners.size(); ++i) load[static_cast<std::size_t>(owners[i])] += w[i];
  return load;
}

}  // namespace detail

/// The assignment after moving, of the boxes whose owner in `target` differs from `current`, the
/// ones that remove the most excess load per cell moved, best first, until a fraction `delta` of
/// the excess load of `current` is removed or no move removes any (D3-ARC's Δ for box sets).
/// Greedy and exact: each move is the best one given the loads the moves before it left (a heap
/// whose keys are refreshed for the candidates of the two ranks a move touches, so a step over
/// many boxes costs O(moves x candidates per rank x log)). `delta` = 1 returns `target` itself
/// (every differing box moves, in box order); 0 returns `current`. Weights: one per box, finite and
/// >= 0 (empty: cell counts), the same ones `target` was made for.
/// `max_cells` is a budget on what the step moves (bytes = cells x bytes per element): a move that
/// would take the step's cells past it is passed over and the next best considered, so the step
/// is the best gain per cell that fits (D3-ARC's Δ as a byte budget; with both, whichever binds
/// first stops the step). With a budget, Δ = 1 removes as much excess as fits and moves no box
/// that removes none. The default, `no_cell_budget`, is no budget.
/// Throws `Error(invalid_argument)` for a delta outside [0, 1], owners of the wrong count or out of
/// range, bad weights or `comm_size` < 1.
template <std::size_t N>
[[nodiscard]] IncrementalBoxStep incremental_box_step(std::span<const Box<N>> boxes, std::span<const int> current,
                                                      std::span<const int> target, int comm_size, double delta,
                                                      std::span<const double> weights = {},
                                                      std::uint64_t max_cells = no_cell_budget) {
  constexpr const char* where = "incremental_box_step";
  detail::check_rank_count(where, comm_size);
  if (!(delta >= 0 && delta <= 1)) fail_argument(where, "delta", delta, "must be in [0, 1]");
  detail::check_owners<N>(where, "current", boxes, current, comm_size);
  detail::check_owners<N>(where, "target", boxes, target, comm_size);
  const auto w = detail::box_weights<N>(where, boxes, weights);

  IncrementalBoxStep step;
  step.owners.assign(current.begin(), current.end());
  std::vector<double> load = detail::rank_loads(current, w, comm_size);
  double total = 0;
  for (const double l : load) total += l;
  const double mean = total / comm_size;
  step.excess_before = detail::excess_load(load, mean);
  const auto move = [&](std::size_t i) {
    const int from = step.owners[i], to = target[i];
    step.moves.push_back({i, from, to});
    step.cells += static_cast<std::uint64_t>(volume(boxes[i]));
    load[static_cast<std::size_t>(from)] -= w[i];
    load[static_cast<std::size_t>(to)] += w[i];
    step.owners[i] = to;
  };
  if (delta >= 1 && max_cells == no_cell_budget) {
    for (std::size_t i = 0; i < boxes.size(); ++i)
      if (current[i] != target[i]) move(i);
    step.excess_after = detail::excess_load(load, mean);
    return step;
  }
  const double goal = delta * step.excess_before;  // excess to remove
  // Excess removed by moving box i from its owner to its target, given the present loads.
  const auto gain = [&](std::size_t i) {
    const auto f = static_cast<std::size_t>(step.owners[i]), t = static_cast<std::size_t>(target[i]);
    const auto over = [&](double l) { return std::max(0.0, l - mean); };
    return over(load[f]) + over(load[t]) - over(load[f] - w[i]) - over(load[t] + w[i]);
  };
  // Candidates by the ranks they involve, so that a move refreshes only the keys it changed.
  std::vector<std::vector<std::size_t>> involving(static_cast<std::size_t>(comm_size));
  std::vector<std::uint32_t> version(boxes.size(), 0);
  using Entry = std::tuple<double, std::size_t, std::uint32_t>;  // gain per cell, box, version
  const auto worse = [](const Entry& a, const Entry& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    return std::get<1>(a) > std::get<1>(b);  // the lower box index first on ties
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  const auto push = [&](std::size_t i) {
    heap.emplace(gain(i) / static_cast<double>(volume(boxes[i])), i, ++version[i]);
  };
  for (std::size_t i = 0; i < boxes.size(); ++i)
    if (current[i] != target[i]) {
      involving[static_cast<std::size_t>(current[i])].push_back(i);
      involving[static_cast<std::size_t>(target[i])].push_back(i);
      push(i);
    }
  // Gains below this are rounding, not load: stop rather than shuffle boxes for nothing.
  const double tiny = 1e-12 * std::max(total, 1.0);
  double removed = 0;
  while (removed < goal && !heap.empty()) {
    const auto [key, i, v] = heap.top();
    heap.pop();
    if (v != version[i] || step.owners[i] == target[i]) continue;  // stale, or moved already
    const double g = gain(i);
    if (g <= tiny) break;  // the best move removes nothing: neither does any other
    const auto cells = static_cast<std::uint64_t>(volume(boxes[i]));
    if (cells > max_cells - step.cells) continue;  // past the budget: a smaller box may still fit
    const int from = step.owners[i], to = target[i];
    move(i);
    removed += g;
    for (const int r : {from, to})
      for (const std::size_t j : involving[static_cast<std::size_t>(r)])
        if (step.owners[j] != target[j]) push(j);
  }
  step.excess_after = detail::excess_load(load, mean);
  return step;
}

/// \copydoc incremental_box_step
template <std::size_t N>
[[nodiscard]] IncrementalBoxStep incremental_box_step(const std::vector<Box<N>>& boxes, const std::vector<int>& current,
                                                      const std::vector<int>& target, int comm_size, double delta,
                                                      const std::vector<double>& weights = {},
                                                      std::uint64_t max_cells = no_cell_budget) {
  return incremental_box_step<N>(std::span<const Box<N>>(boxes), current, target, comm_size, delta, weights,
                                 max_cells);
}

/// A step of `delta` in the balance layer's terms, for a `BalanceView::preview`: boxes moved (as
/// blocks), bytes (cells x `element_bytes`), and the slowest rank's seconds per iteration
/// afterwards when box i costs `box_seconds[i]` per iteration (measured, e.g. with a timer per box).
template <std::size_t N>
[[nodiscard]] StepPreview box_step_preview(std::span<const Box<N>> boxes, std::span<const int> current,
                                           std::span<const int> target, int comm_size,
                                           std::span<const double> box_seconds, std::size_t element_bytes,
                                           double delta, std::uint64_t max_cells = no_cell_budget) {
  const IncrementalBoxStep step =
      incremental_box_step<N>(boxes, current, target, comm_size, delta, box_seconds, max_cells);
  const auto w = detail::box_weights<N>("box_step_preview", boxes, box_seconds);  // empty: cell counts, as the step
  const auto before = detail::rank_loads(current, w, comm_size);
  const auto after = detail::rank_loads(step.owners, w, comm_size);
  StepPreview p;
  p.delta = delta;
  p.blocks = static_cast<std::int64_t>(step.moves.size());
  p.bytes = step.cells * element_bytes;
  p.predicted_seconds = *std::max_element(after.begin(), after.end());
  p.gain = *std::max_element(before.begin(), before.end()) - p.predicted_seconds;
  return p;
}

/// What an assignment of boxes to ranks costs.
struct BoxAssignmentQuality {
  double max_over_mean = 0;        ///< the heaviest rank's load over the mean (1 is perfect; 0: no load)
  std::uint64_t bytes_moved = 0;   ///< bytes of the boxes whose owner differs from `previous`
  std::uint64_t minimum_bytes = 0; ///< a lower bound for reaching these cell counts per rank from
                                   ///< `previous`: each rank ending with fewer cells sends the difference
  std::size_t neighbour_pairs = 0; ///< unordered pairs of ranks whose boxes lie within the ghost width
  std::uint64_t halo_cells = 0;    ///< ghost cells (width `ghost_width`, corners too, not periodic)
                                   ///< that a box receives from a box of another rank
};

/// The quality of `owners` for `boxes` (weights as for the policies; empty: cell counts).
/// `previous` (may be empty: nothing moved) is the assignment it replaces. Neighbours are found
/// through a `BoxIndex`, so the cost is that of the boxes' neighbourhoods, not of all pairs.
/// Throws `Error(invalid_argument)` for owners of the wrong count or out of range, a negative
/// ghost width, bad weights or `comm_size` < 1.
template <std::size_t N>
[[nodiscard]] BoxAssignmentQuality assignment_quality(std::span<const Box<N>> boxes, std::span<const int> owners,
                                                      int comm_size, std::span<const int> previous = {},
                                                      index_t ghost_width = 1, std::size_t element_bytes = sizeof(double),
                                                      std::span<const double> weights = {}) {
  constexpr const char* where = "assignment_quality";
  detail::check_rank_count(where, comm_size);
  detail::check_owners<N>(where, "owners", boxes, owners, comm_size);
  if (!previous.empty()) detail::check_owners<N>(where, "previous", boxes, previous, comm_size);
  if (ghost_width < 0) fail_argument(where, "ghost_width", ghost_width, "must be >= 0");
  BoxAssignmentQuality q;
  q.max_over_mean = max_over_mean_load<N>(boxes, owners, comm_size, weights);
  if (!previous.empty()) {
    std::vector<std::int64_t> change(static_cast<std::size_t>(comm_size), 0);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (owners[i] == previous[i]) continue;
      const auto cells = volume(boxes[i]);
      q.bytes_moved += static_cast<std::uint64_t>(cells) * element_bytes;
      change[static_cast<std::size_t>(previous[i])] -= cells;
      change[static_cast<std::size_t>(owners[i])] += cells;
    }
    for (const std::int64_t c : change)
      if (c < 0) q.minimum_bytes += static_cast<std::uint64_t>(-c) * element_bytes;
  }
  const BoxIndex<N> index(std::vector<Box<N>>(boxes.begin(), boxes.end()));
  std::set<std::pair<int, int>> pairs;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Box<N> grown = grow(boxes[i], ghost_width);
    index.for_each_meeting(grown, [&](std::size_t j) {
      if (owners[j] == owners[i]) return;
      q.halo_cells += static_cast<std::uint64_t>(volume(intersect(grown, boxes[j])));
      pairs.emplace(std::min(owners[i], owners[j]), std::max(owners[i], owners[j]));
    });
  }
  q.neighbour_pairs = pairs.size();
  return q;
}

}  // namespace tessera
