#pragma once
/// \file
/// Deciding how far to move (D3-ARC Fig. 4 "est. cost = nblks * unit cost; if cost too high,
/// reduce delta"; AMP's amortisation, Table 4). A `BalancePolicy` sees, at a remap point, the
/// measured times and a way to preview any step (what it would move, what it would gain, what it
/// is estimated to cost), and returns the Δ to move now (0: stay). Everything it sees is the same
/// on every rank, so every rank decides alike without talking. Policies need no MPI and can be
/// tested on recorded traces.
///
/// Built in:
/// | policy | decides |
/// |---|---|
/// | `NoRebalancing` | never moves |
/// | `StaticDelta(Δ)` | Δ whenever the imbalance exceeds the tolerance |
/// | `D3arcAdaptiveDelta` | D3-ARC §III-B: unit cost per block = trimmed mean of past migrations; Δ halved while the estimated cost exceeds the imbalance time the step removes over the next remap interval, grown ×1.5 after each migration that stayed within it |
/// | `AmortisedDelta(K, Δ)` | AMP: moves Δ only if the estimated cost is paid back within K iterations |
/// | `HorizonPolicy` | tessera's: the Δ among candidates with the largest expected net saving over the time the present load is expected to last, with a fitted latency + bandwidth cost model |

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

/// One migration as it happened.
struct MigrationRecord {
  /// Iteration of the migration.
  int iteration = 0;
  double delta = 0;
  /// Logical blocks moved (D3-ARC's `nb`).
  std::int64_t blocks = 0;
  /// Bytes moved, every array together.
  std::uint64_t bytes = 0;
  /// What the migration took (largest over the ranks).
  double seconds = 0;
};

/// Past migrations and the cost estimates built from them.
class MigrationHistory {
 public:
  /// Records a migration.
  void add(const MigrationRecord& r) { records_.push_back(r); }
  /// Every migration recorded, oldest first.
  [[nodiscard]] const std::vector<MigrationRecord>& records() const noexcept { return records_; }
  [[nodiscard]] bool empty() const noexcept { return records_.empty(); }

  /// D3-ARC's estimate of the seconds per logical block: the mean of the measured unit costs
  /// without the largest and the smallest (all of them while there are fewer than three); NaN
  /// before any migration that moved a block.
  [[nodiscard]] double trimmed_unit_cost() const {
    std::vector<double> unit;
    for (const auto& r : records_)
      if (r.blocks > 0) unit.push_back(r.seconds / static_cast<double>(r.blocks));
    if (unit.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(unit.begin(), unit.end());
    const std::size_t drop = unit.size() >= 3 ? 1 : 0;
    double sum = 0;
    for (std::size_t i = drop; i + drop < unit.size(); ++i) sum += unit[i];
    return sum / static_cast<double>(unit.size() - 2 * drop);
  }

  /// Least-squares fit `seconds = latency + bytes / bandwidth` over the last `window` migrations
  /// (a fixed cost per migration, which a cost per block misses, plus a cost per byte). With fewer
  /// than two distinct sizes the latency is taken as `prior_latency` and only the slope is fitted;
  /// before any migration the prior is returned as it is.
  struct LinearCost {
    double latency = 0;         ///< seconds per migration
    double seconds_per_byte = 0;
    [[nodiscard]] double operator()(std::uint64_t bytes) const noexcept {
      return bytes == 0 ? 0.0 : latency + seconds_per_byte * static_cast<double>(bytes);
    }
  };
  [[nodiscard]] LinearCost linear_cost(LinearCost prior = {1e-3, 1e-9}, std::size_t window = 16) const {
    std::vector<const MigrationRecord*> recent;
    for (auto it = records_.rbegin(); it != records_.rend() && recent.size() < window; ++it)
      if (it->bytes > 0) recent.push_back(&*it);
    if (recent.empty()) return prior;
    double mx = 0, my = 0;
    for (const auto* r : recent) mx += static_cast<double>(r->bytes), my += r->seconds;
    mx /= static_cast<double>(recent.size());
    my /= static_cast<double>(recent.size());
    double sxx = 0, sxy = 0;
    for (const auto* r : recent) {
      const double dx = static_cast<double>(r->bytes) - mx;
      sxx += dx * dx;
      sxy += dx * (r->seconds - my);
    }
    LinearCost fit = prior;
    if (sxx > 0 && sxy > 0) {
      fit.seconds_per_byte = sxy / sxx;
      fit.latency = std::max(0.0, my - fit.seconds_per_byte * mx);
    } else {  // one size only (or noise without a trend): keep the prior latency, fit the slope
      fit.seconds_per_byte = std::max(0.0, (my - prior.latency) / mx);
    }
    return fit;
  }

 private:
  std::vector<MigrationRecord> records_;
};

/// What a step of some Δ would do, computed before anything moves.
struct StepPreview {
  double delta = 0;
  std::int64_t blocks = 0;       ///< logical blocks that would move
  std::uint64_t bytes = 0;       ///< bytes that would travel
  double predicted_seconds = 0;  ///< predicted time of one iteration afterwards (slowest rank)
  double gain = 0;               ///< seconds saved per iteration: now minus predicted (may be < 0)
};

/// Iterations a migration costing `cost` seconds takes to pay back when it saves `gain` seconds per
/// iteration (AMP Table 4); infinity when it saves nothing.
[[nodiscard]] inline double payback_iterations(double cost, double gain) noexcept {
  if (cost <= 0) return 0;
  return gain > 0 ? cost / gain : std::numeric_limits<double>::infinity();
}

/// What a policy sees at a remap point (the same on every rank).
struct BalanceView {
  int iteration = 0;                 ///< iterations done so far
  int interval = 1;                  ///< iterations between remap points
  std::vector<double> seconds;       ///< per active rank (logical order): seconds per iteration since the last remap point
  std::vector<double> speeds;        ///< per active rank: elements per second (its elements / its seconds)
  /// Where the load pattern is read when the ranks' speeds would mislead (empty: `speeds`).
  /// `BoxBalancer` gives each box's elements per second here, in box order: a box set's rank
  /// changes speed whenever a box of another cost per cell moves to or from it, so its speeds would
  /// report every migration as a new load, while a box's own speed changes only with its load.
  std::vector<double> pattern_speeds;
  double iteration_seconds = 0;      ///< the slowest of them: what an iteration costs now
  double imbalance = 0;              ///< slowest / mean - 1 (0 when even)
  std::function<StepPreview(double)> preview;  ///< what a step of Δ would move and gain
  const MigrationHistory* history = nullptr;   ///< past migrations
};

/// A policy: returns the Δ in [0, 1] to move now. Must decide from the view alone (plus its own
/// state), deterministically, so that every rank decides alike.
class BalancePolicy {
 public:
  virtual ~BalancePolicy() = default;
  /// The policy's name as the demo and the reports print it.
  [[nodiscard]] virtual std::string name() const = 0;
  /// Δ in [0, 1] for this remap point (0: do not move), from what the view measured.
  [[nodiscard]] virtual double decide(const BalanceView& view) = 0;
  /// Told after each migration the balancer made on this policy's decision.
  virtual void observe(const MigrationRecord&) {}
};

/// Never moves (the baseline).
class NoRebalancing final : public BalancePolicy {
 public:
  [[nodiscard]] std::string name() const override { return "none"; }
  [[nodiscard]] double decide(const BalanceView&) override { return 0; }
};

namespace detail {
inline void check_fraction(const char* where, const char* what, double x) {
  if (!(x >= 0 && x <= 1)) fail_argument(where, what, x, "must be in [0, 1]");
}
inline void check_tolerance(const char* where, double tolerance) {
  if (!(tolerance >= 0) || !std::isfinite(tolerance)) fail_argument(where, "tolerance", tolerance, "must be finite and >= 0");
}
}  // namespace detail

/// A fixed Δ whenever the imbalance exceeds `tolerance` (0.05: the slowest rank 5 % above the mean).
class StaticDelta final : public BalancePolicy {
 public:
  /// Moves Δ = `delta` whenever the imbalance exceeds `tolerance`.
  explicit StaticDelta(double delta, double tolerance = 0.05) : delta_(delta), tolerance_(tolerance) {
    detail::check_fraction("StaticDelta", "delta", delta);
    detail::check_tolerance("StaticDelta", tolerance);
  }
  [[nodiscard]] std::string name() const override { return delta_ == 1 ? "full" : "static-" + trim(delta_); }
  [[nodiscard]] double decide(const BalanceView& view) override { return view.imbalance > tolerance_ ? delta_ : 0; }

  static std::string trim(double x) {
    std::string s = std::to_string(x);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

 private:
  double delta_, tolerance_;
};

/// D3-ARC's adaptive Δ (§III-B, Fig. 4). The first migration uses `initial`. Afterwards the cost
/// of a step is estimated as blocks × the trimmed-mean unit cost of past migrations; while it
/// exceeds the imbalance the step removes over the next remap interval (gain × interval), Δ is
/// halved, down to `min_delta` (below which nothing moves). After a migration whose measured cost
/// stayed within that budget Δ grows by half again (up to 1), otherwise it stays reduced.
///
/// One departure from the letter of Fig. 4, for the same reason the paper trims its mean: while
/// fewer than three migrations are measured, the mean cannot drop an outlier, and the first
/// migration is one (it also builds the schedules and buffers that later ones reuse: 35x the warm
/// cost per row in `make experiments`, d3arc_fig12_14). An estimate resting on it would refuse every
/// later move, and a policy that never moves never measures again. So until three migrations are
/// known, a Δ halved past `min_delta` moves `min_delta` (a probe) instead of nothing.
class D3arcAdaptiveDelta final : public BalancePolicy {
 public:
  /// D3-ARC's cost feedback, starting at Δ = `initial`, never below `min_delta`.
  static constexpr double kDefaultInitial = 0.3;
  /// Migrations measured before the trimmed mean (which drops the largest and the smallest) is
  /// trusted to stop all movement.
  static constexpr std::size_t kTrustedMigrations = 3;
  explicit D3arcAdaptiveDelta(double initial = kDefaultInitial, double tolerance = 0.05, double min_delta = 0.05)
      : delta_(initial), initial_(initial), tolerance_(tolerance), min_delta_(min_delta) {
    detail::check_fraction("D3arcAdaptiveDelta", "initial", initial);
    detail::check_tolerance("D3arcAdaptiveDelta", tolerance);
    detail::check_fraction("D3arcAdaptiveDelta", "min_delta", min_delta);
  }
  // The default start keeps the plain name; another start is part of the name (D3-ARC Fig. 9 compares them).
  [[nodiscard]] std::string name() const override {
    return initial_ == kDefaultInitial ? "d3arc-adaptive" : "d3arc-adaptive-" + StaticDelta::trim(initial_);
  }
  [[nodiscard]] double decide(const BalanceView& view) override {
    if (view.imbalance <= tolerance_ || delta_ <= 0) return 0;
    const double unit = view.history ? view.history->trimmed_unit_cost() : std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(unit)) return delta_;  // nothing learned yet: the initial Δ
    double delta = delta_;
    for (;;) {
      const StepPreview p = view.preview(delta);
      budget_ = p.gain * view.interval;
      if (static_cast<double>(p.blocks) * unit <= budget_) break;
      delta /= 2;
      if (delta < min_delta_) {
        if (view.history->records().size() >= kTrustedMigrations) return 0;
        delta = min_delta_;  // a probe: the estimate needs more measurements before it may say "never"
        break;
      }
    }
    delta_ = delta;
    return delta;
  }
  void observe(const MigrationRecord& r) override {
    if (r.seconds <= budget_) delta_ = std::min(1.0, delta_ * 1.5);
  }
  /// The Δ the cost feedback has reached.
  [[nodiscard]] double current_delta() const noexcept { return delta_; }

 private:
  double delta_, initial_, tolerance_, min_delta_;
  double budget_ = 0;
};

/// AMP's amortisation: moves `delta` of the way only if the estimated cost is paid back within
/// `payback_limit` iterations (cost / gain per iteration <= K). The cost is estimated with the
/// history's linear fit (a prior of 1 ms + 1 ns/byte before any migration).
class AmortisedDelta final : public BalancePolicy {
 public:
  /// Moves Δ = `delta` when the move pays for itself within `payback_limit` iterations.
  explicit AmortisedDelta(double payback_limit = 20, double delta = 1.0, double tolerance = 0.05)
      : limit_(payback_limit), delta_(delta), tolerance_(tolerance) {
    if (!(payback_limit > 0)) fail_argument("AmortisedDelta", "payback_limit", payback_limit, "must be > 0");
    detail::check_fraction("AmortisedDelta", "delta", delta);
    detail::check_tolerance("AmortisedDelta", tolerance);
  }
  [[nodiscard]] std::string name() const override { return "amortised-" + StaticDelta::trim(limit_); }
  [[nodiscard]] double decide(const BalanceView& view) override {
    if (view.imbalance <= tolerance_ || delta_ <= 0) return 0;
    const StepPreview p = view.preview(delta_);
    const double cost = view.history ? view.history->linear_cost()(p.bytes) : 1e-3;
    return payback_iterations(cost, p.gain) <= limit_ ? delta_ : 0;
  }

 private:
  double limit_, delta_, tolerance_;
};

/// tessera's policy. Two things the others miss: how long the present load will last (a move that
/// pays back in 50 iterations is worth it for a load that stays 500, not for one that goes in 20)
/// and that a migration has a fixed cost besides its cost per byte. It keeps the age of the
/// present load pattern (iterations since the speeds relative to their mean, per rank or, where the
/// view gives them, per box (`BalanceView::pattern_speeds`), last changed by more than
/// `pattern_change`), expects the pattern to last as long again (at least `min_horizon`
/// iterations, at most `max_horizon`), and picks, among the candidate Δs, the one with the largest
/// expected saving `gain × horizon - cost`, the cost from the history's latency + bandwidth fit.
/// No candidate with a positive saving: it stays.
class HorizonPolicy final : public BalancePolicy {
 public:
  explicit HorizonPolicy(std::vector<double> candidates = {0.25, 0.5, 1.0}, double tolerance = 0.05,
                         int min_horizon = 10, int max_horizon = 1000, double pattern_change = 0.15)
      : candidates_(std::move(candidates)),
        tolerance_(tolerance),
        min_horizon_(min_horizon),
        max_horizon_(max_horizon),
        pattern_change_(pattern_change) {
    if (candidates_.empty()) fail_argument("HorizonPolicy", "candidates", "{}", "must hold at least one Δ");
    for (double c : candidates_) detail::check_fraction("HorizonPolicy", "candidate", c);
    detail::check_tolerance("HorizonPolicy", tolerance);
    if (min_horizon < 1 || max_horizon < min_horizon)
      fail_argument("HorizonPolicy", "max_horizon", max_horizon, detail::concat("must be >= min_horizon = ", min_horizon, " >= 1"));
  }
  [[nodiscard]] std::string name() const override { return "horizon"; }
  [[nodiscard]] double decide(const BalanceView& view) override {
    track_pattern(view);
    if (view.imbalance <= tolerance_) return 0;
    const double horizon = std::clamp(static_cast<double>(view.iteration - pattern_since_),
                                      static_cast<double>(min_horizon_), static_cast<double>(max_horizon_));
    const auto cost = view.history ? view.history->linear_cost() : MigrationHistory::LinearCost{1e-3, 1e-9};
    double best = 0, best_saving = 0;
    for (double c : candidates_) {
      const StepPreview p = view.preview(c);
      const double saving = p.gain * horizon - cost(p.bytes);
      if (saving > best_saving) best = c, best_saving = saving;
    }
    return best;
  }
  /// Iterations the present load pattern has lasted (as of the last decision).
  [[nodiscard]] int pattern_age(int iteration) const noexcept { return iteration - pattern_since_; }

 private:
  // The pattern is the ranks' speeds relative to their mean. Speeds, unlike times, do not change
  // when the balancer moves data (a rebalanced rank is as slow as before, it just holds less), so
  // a change of pattern means the load itself changed. That holds for cuts, not for whole boxes of
  // different costs: there the view's per-box speeds are the pattern (`pattern_speeds`).
  void track_pattern(const BalanceView& view) {
    const std::vector<double>& speeds = view.pattern_speeds.empty() ? view.speeds : view.pattern_speeds;
    std::vector<double> shape(speeds.size());
    double mean = 0;
    for (double s : speeds) mean += s;
    mean /= static_cast<double>(std::max<std::size_t>(1, speeds.size()));
    for (std::size_t i = 0; i < shape.size(); ++i) shape[i] = mean > 0 ? speeds[i] / mean : 1;
    bool changed = shape.size() != pattern_.size();
    for (std::size_t i = 0; !changed && i < shape.size(); ++i) changed = std::abs(shape[i] - pattern_[i]) > pattern_change_;
    if (changed) {
      pattern_since_ = view.iteration;
      pattern_ = std::move(shape);
    }
  }

  std::vector<double> candidates_;
  double tolerance_;
  int min_horizon_, max_horizon_;
  double pattern_change_;
  std::vector<double> pattern_;
  int pattern_since_ = 0;
};

/// A built-in policy by name, as command lines and configuration files spell it: `none`, `full`
/// (static Δ = 1), `static-<Δ>` (e.g. static-0.3), `d3arc-adaptive`, `amortised-<K>` (pay back
/// within K iterations), `horizon`. Throws `Error(invalid_argument)` naming the text otherwise.
[[nodiscard]] inline std::shared_ptr<BalancePolicy> make_policy(const std::string& name) {
  auto number_after = [&](std::size_t prefix) {
    std::size_t used = 0;
    double x = 0;
    try {
      x = std::stod(name.substr(prefix), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || prefix + used != name.size())
      fail_argument("make_policy", "name", name, "needs a number after the dash, e.g. static-0.3 or amortised-20");
    return x;
  };
  if (name == "none") return std::make_shared<NoRebalancing>();
  if (name == "full") return std::make_shared<StaticDelta>(1.0);
  if (name == "d3arc-adaptive") return std::make_shared<D3arcAdaptiveDelta>();
  if (name.rfind("d3arc-adaptive-", 0) == 0) return std::make_shared<D3arcAdaptiveDelta>(number_after(15));
  if (name == "horizon") return std::make_shared<HorizonPolicy>();
  if (name.rfind("static-", 0) == 0) return std::make_shared<StaticDelta>(number_after(7));
  if (name.rfind("amortised-", 0) == 0) return std::make_shared<AmortisedDelta>(number_after(10));
  fail_argument("make_policy", "name", name,
                "is not a policy: none, full, static-<delta>, d3arc-adaptive[-<initial delta>], amortised-<K>, horizon");
}

}  // namespace tessera
