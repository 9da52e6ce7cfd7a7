#pragma once
/// \file
/// Balancing user-defined distributions by Δ (issue 17): D3-ARC's step for a distribution that cuts
/// its own 1-D order of the indices (a space-filling curve, say) into one segment per rank.
///
/// A user distribution opts in by also deriving from `OrderedSplits<N>`: it exposes its boundaries
/// as P + 1 nondecreasing *split points* along its order (Morton codes for
/// `examples/morton_distribution`), converts between positions and index counts along the order,
/// and builds the distribution with other split points. The balance layer then works in index
/// counts — `split_counts` (indices before each split point), a target from measured seconds
/// (`OrderedSplits::target_counts`: shares in proportion to each rank's measured speed), and
/// `step_split_counts`, which moves every split a fraction Δ of the way to the target, rounded to
/// the nearest index. Counts, not positions, because an order may have positions that hold no index
/// (the Morton curve pads the domain to a cube): a fraction of the code distance could cross only
/// padding, while a fraction of the count distance is a fraction of the load.
/// `plan_split_step` puts it together without moving anything; `Domain::migrate(step.to)` moves
/// every array; `split_step_preview` reports a step in the policies' terms (`StepPreview`), so the
/// policies of balance/policy.hpp decide Δ for these distributions as they do for cuts and box sets.
/// \code
///   auto seconds = tessera::collect_all(comm, my_seconds);              // replicated on every rank
///   auto step = tessera::plan_split_step(dom.distribution(), seconds, 0.5);
///   if (step.moves_anything()) dom.migrate(step.to);                      // values kept
/// \endcode
/// Everything here is MPI-free and deterministic, so every rank computes the same step from the
/// same (replicated) seconds without talking, and bad input throws alike on every rank.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessera/balance/policy.hpp"
#include "tessera/balance/weights.hpp"
#include "tessera/core/error.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera {

namespace detail {
/// The rank count of split lists: at least 1 (the rules below keep one index per rank when they can).
inline void check_split_ranks(const char* where, std::size_t ranks) {
  if (ranks < 1) fail_argument(where, "ranks", ranks, "must be >= 1");
}

/// `counts` must hold `ranks + 1` nondecreasing entries from 0 to `total`.
inline void check_split_counts(const char* where, const char* what, std::span<const index_t> counts, std::size_t ranks,
                               index_t total) {
  if (counts.size() != ranks + 1)
    fail_argument(where, what, counts.size(), detail::concat("entries given; must be one per rank plus one (", ranks + 1, ")"));
  if (counts.front() != 0 || counts.back() != total)
    fail_argument(where, what, detail::concat(counts.front(), "..", counts.back()),
                  detail::concat("must run from 0 to the index count ", total));
  for (std::size_t j = 1; j < counts.size(); ++j)
    if (counts[j] < counts[j - 1])
      fail_argument(where, detail::concat(what, "[", j, "]"), counts[j],
                    detail::concat("must not be below the split before it (", counts[j - 1], ")"));
}

/// The nearest integer to x; a tie goes toward `toward` (so that a step never stalls halfway).
inline index_t round_toward(double x, index_t toward) {
  const double below = std::floor(x);
  const double frac = x - below;
  const auto b = static_cast<index_t>(below);
  if (frac < 0.5) return b;
  if (frac > 0.5) return b + 1;
  return static_cast<double>(toward) > x ? b + 1 : b;
}

/// Enforces the rules on rounded splits in place: the ends fixed at 0 and `total`, nondecreasing,
/// and every rank keeping at least one index when there are at least as many indices as ranks.
/// With m the minimum (1 or 0), u[j] = s[j] - j m must be nondecreasing within [0, total - P m]:
/// one pass raising each u to the one before it and capping it at total - P m.
inline void enforce_split_rules(std::vector<index_t>& s, index_t total) {
  const auto P = static_cast<index_t>(s.size() - 1);
  const index_t m = total >= P ? 1 : 0;
  const index_t room = total - P * m;
  index_t prev = 0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const index_t u = std::clamp(s[j] - static_cast<index_t>(j) * m, prev, room);
    prev = u;
    s[j] = u + static_cast<index_t>(j) * m;
  }
  s.front() = 0;
  s.back() = total;
}
}  // namespace detail

/// Split points in index counts: entry j is the number of indices before split j; rank r owns the
/// indices numbered [counts[r], counts[r + 1]) along the order. P + 1 entries from 0 to the total.
using SplitCounts = std::vector<index_t>;

/// The target split for these weights (one per rank, finite, >= 0, not all 0): split j at the
/// nearest integer to `total` times the weights of the ranks before j over all the weights (a tie
/// rounds down), then the rules of `step_split_counts` (nondecreasing, one index per rank when
/// `total` >= ranks). Throws `Error(invalid_argument)` for no weights, a negative or non-finite one,
/// all zero, or a negative total.
[[nodiscard]] inline SplitCounts split_target_counts(std::span<const double> weights, index_t total) {
  constexpr const char* where = "split_target_counts";
  detail::check_split_ranks(where, weights.size());
  if (total < 0) fail_argument(where, "total", total, "must be >= 0");
  double sum = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!(weights[i] >= 0) || !std::isfinite(weights[i]))
      fail_argument(where, detail::concat("weights[", i, "]"), weights[i], "must be a finite number >= 0");
    sum += weights[i];
  }
  if (!(sum > 0)) fail_argument(where, "weights", "all 0", "must give some rank a share");
  SplitCounts s(weights.size() + 1, 0);
  double before = 0;
  for (std::size_t j = 1; j < weights.size(); ++j) {
    before += weights[j - 1];
    s[j] = detail::round_toward(static_cast<double>(total) * before / sum, 0);
  }
  s.back() = total;
  detail::enforce_split_rules(s, total);
  return s;
}

/// D3-ARC's Δ for split points: every interior split moved a fraction `delta` of the way from
/// `current` to `target`, `c + delta (t - c)` rounded to the nearest index (a tie toward the
/// target), then the rules: the ends stay at 0 and the total, splits never decrease, and every rank
/// keeps at least one index when there are at least as many indices as ranks (a rank left empty
/// could not measure its speed at the next remap point). `delta` = 1 returns the
/// target (if it obeys the rules). Throws `Error(invalid_argument)` for `delta` outside (0, 1], or
/// lists of different lengths, of no rank, or not running nondecreasing from 0 to the same total.
[[nodiscard]] inline SplitCounts step_split_counts(std::span<const index_t> current, std::span<const index_t> target,
                                                   double delta) {
  constexpr const char* where = "step_split_counts";
  if (!(delta > 0 && delta <= 1)) fail_argument(where, "delta", delta, "must be in (0, 1]");
  if (current.size() < 2) fail_argument(where, "current", current.size(), "entries given; must be one per rank plus one (>= 2)");
  const std::size_t ranks = current.size() - 1;
  const index_t total = current.back();
  detail::check_split_counts(where, "current", current, ranks, total);
  detail::check_split_counts(where, "target", target, ranks, total);
  SplitCounts s(current.begin(), current.end());
  for (std::size_t j = 1; j < ranks; ++j) {
    const double x = static_cast<double>(current[j]) + delta * static_cast<double>(target[j] - current[j]);
    s[j] = detail::round_toward(x, target[j]);
  }
  detail::enforce_split_rules(s, total);
  return s;
}

/// The optional interface a `UserDistribution<N>` implements (by deriving from both) to be balanced
/// by Δ: its ownership is a cut of its own 1-D order of the domain's indices into P consecutive
/// segments, rank r owning the positions [split_points()[r], split_points()[r + 1]).
template <std::size_t N>
class OrderedSplits {
 public:
  /// A position along the order (a Morton code, say).
  using Position = std::uint64_t;

  virtual ~OrderedSplits() = default;

  /// P + 1 nondecreasing positions: the first position of the order, the first of every rank
  /// after rank 0, and one past the last position.
  [[nodiscard]] virtual std::vector<Position> split_points() const = 0;
  /// Indices of the domain at positions before `position` (nondecreasing in it).
  [[nodiscard]] virtual index_t indices_before(Position position) const = 0;
  /// Position of index number `k` along the order, 0 <= k < the domain's volume.
  [[nodiscard]] virtual Position position_of_index(index_t k) const = 0;
  /// The distribution of the same domain over the same ranks cut at `splits` (as `split_points`
  /// lists them). It must throw `Error(invalid_argument)` for a list it cannot take.
  [[nodiscard]] virtual std::shared_ptr<const UserDistribution<N>> with_split_points(std::vector<Position> splits) const = 0;

  /// The target split, in index counts (see `SplitCounts`), for the seconds each rank measured with
  /// the split of `current`. The default gives shares in proportion to each rank's measured speed
  /// (its indices / its seconds: `throughput_weights`), which evens the times when an index costs
  /// the same on every rank and a rank's speed stays; override for other cost models (a cost per
  /// index that varies along the order, say). Throws as `split_target_counts` does.
  [[nodiscard]] virtual SplitCounts target_counts(std::span<const index_t> current, std::span<const double> seconds) const {
    std::vector<double> work(seconds.size()), times(seconds.begin(), seconds.end());
    for (std::size_t r = 0; r < work.size() && r + 1 < current.size(); ++r)
      work[r] = static_cast<double>(current[r + 1] - current[r]);
    return split_target_counts(throughput_weights(times, work), current.back());
  }
};

/// `dist`'s `OrderedSplits` interface. Throws `Error(invalid_argument)` (naming `where`) if `dist`
/// is not user-defined or its user distribution does not implement it.
template <std::size_t N>
[[nodiscard]] const OrderedSplits<N>& ordered_splits(const Distribution<N>& dist, const char* where) {
  const auto* splits = dynamic_cast<const OrderedSplits<N>*>(dist.user_distribution());
  if (splits == nullptr)
    fail_argument(where, "distribution", dist,
                  dist.is_user_defined()
                      ? "is user-defined without the OrderedSplits interface (balance/split_balance.hpp): it exposes no split points"
                      : "is not user-defined: split balancing moves the split points of a user distribution (for cuts: plan_step)");
  return *splits;
}

/// `dist`'s split points in index counts. Throws as `ordered_splits` does, and
/// `Error(invalid_argument)` if the interface reports split points that break its contract.
template <std::size_t N>
[[nodiscard]] SplitCounts split_counts(const Distribution<N>& dist) {
  constexpr const char* where = "split_counts";
  const OrderedSplits<N>& o = ordered_splits(dist, where);
  const auto positions = o.split_points();
  SplitCounts c;
  c.reserve(positions.size());
  for (const auto p : positions) c.push_back(o.indices_before(p));
  detail::check_split_counts(where, "split_points", c, static_cast<std::size_t>(dist.comm_size()), volume(dist.domain()));
  return c;
}

/// What a split step does, computed before anything moves.
template <std::size_t N>
struct SplitStep {
  Distribution<N> from;     ///< the distribution the step was planned from
  Distribution<N> to;       ///< where it leads (`from` itself if no split moves)
  double delta = 0;         ///< the fraction asked for
  SplitCounts current;      ///< `from`'s splits in index counts
  SplitCounts target;       ///< the target for the seconds given
  SplitCounts stepped;      ///< the splits after the step
  index_t elements = 0;     ///< indices that change owner (per array)
  /// True if some index changes owner.
  [[nodiscard]] bool moves_anything() const noexcept { return elements > 0; }
};

/// Indices that change owner between two splits of the same order: what each rank owned before
/// and does not own after, summed.
[[nodiscard]] inline index_t split_elements_moved(std::span<const index_t> from, std::span<const index_t> to) {
  index_t moved = 0;
  for (std::size_t r = 0; r + 1 < from.size() && r + 1 < to.size(); ++r) {
    const index_t overlap = std::max<index_t>(0, std::min(from[r + 1], to[r + 1]) - std::max(from[r], to[r]));
    moved += from[r + 1] - from[r] - overlap;
  }
  return moved;
}

/// The step of fraction `delta` from `dist` toward the target the seconds each rank measured give
/// (`seconds`: one per rank, the same on every rank, e.g. from `collect_all`). Not collective;
/// nothing moves: `Domain::migrate(step.to)` does that. Throws `Error(invalid_argument)` for a
/// distribution without the `OrderedSplits` interface, `delta` outside (0, 1], or seconds of the
/// wrong count, negative or not finite.
template <std::size_t N>
[[nodiscard]] SplitStep<N> plan_split_step(const Distribution<N>& dist, std::span<const double> seconds, double delta) {
  constexpr const char* where = "plan_split_step";
  const OrderedSplits<N>& o = ordered_splits(dist, where);
  if (!(delta > 0 && delta <= 1)) fail_argument(where, "delta", delta, "must be in (0, 1]");
  if (seconds.size() != static_cast<std::size_t>(dist.comm_size()))
    fail_argument(where, "seconds", seconds.size(), detail::concat("entries given; must be one per rank (", dist.comm_size(), ")"));
  SplitStep<N> step{dist, dist, delta, {}, {}, {}, 0};
  step.current = split_counts(dist);
  step.target = o.target_counts(step.current, seconds);
  step.stepped = step_split_counts(step.current, step.target, delta);
  step.elements = split_elements_moved(step.current, step.stepped);
  if (step.stepped == step.current) return step;
  const auto old_positions = o.split_points();
  std::vector<typename OrderedSplits<N>::Position> positions(step.stepped.size());
  const index_t total = step.current.back();
  for (std::size_t j = 0; j < positions.size(); ++j)
    positions[j] = j == 0                  ? old_positions.front()
                   : step.stepped[j] < total ? o.position_of_index(step.stepped[j])
                                            : old_positions.back();
  step.to = Distribution<N>::user(o.with_split_points(std::move(positions)));
  return step;
}

/// \copydoc plan_split_step
template <std::size_t N>
[[nodiscard]] SplitStep<N> plan_split_step(const Distribution<N>& dist, const std::vector<double>& seconds, double delta) {
  return plan_split_step(dist, std::span<const double>(seconds), delta);
}

/// A step of `delta` in the balance layer's terms, for a `BalanceView::preview`: indices moved (as
/// blocks of one index), bytes (indices x `element_bytes`), and the slowest rank's seconds per
/// iteration afterwards when each rank keeps its measured seconds per index. Throws as
/// `plan_split_step` does.
template <std::size_t N>
[[nodiscard]] StepPreview split_step_preview(const Distribution<N>& dist, std::span<const double> seconds,
                                             std::size_t element_bytes, double delta) {
  const SplitStep<N> step = plan_split_step(dist, seconds, delta);
  StepPreview p;
  p.delta = delta;
  p.blocks = step.elements;
  p.bytes = static_cast<std::uint64_t>(step.elements) * element_bytes;
  double now = 0;
  for (std::size_t r = 0; r < seconds.size(); ++r) {
    now = std::max(now, seconds[r]);
    const index_t held = step.current[r + 1] - step.current[r];
    // A rank that held nothing has no measured cost per index: it is predicted at the mean one.
    double per_index = 0;
    if (held > 0) {
      per_index = seconds[r] / static_cast<double>(held);
    } else {
      double sum = 0;
      for (const double s : seconds) sum += s;
      per_index = step.current.back() > 0 ? sum / static_cast<double>(step.current.back()) : 0;
    }
    p.predicted_seconds = std::max(p.predicted_seconds, per_index * static_cast<double>(step.stepped[r + 1] - step.stepped[r]));
  }
  p.gain = now - p.predicted_seconds;
  return p;
}

}  // namespace tessera
