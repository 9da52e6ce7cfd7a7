#pragma once
/// \file
/// `Balancer<N>`: runs a `BalancePolicy` at remap points (D3-ARC Fig. 4, AMP's remap points).
/// Once per iteration `step()` adds the iteration's measured seconds; every `interval` iterations
/// it gathers every rank's figure (`collect_all`), turns them into weights and a target cut,
/// asks the policy for Δ, and migrates every array of the domain when the policy says it pays.
/// With an availability hook it also withdraws and re-adds ranks there. A user-defined
/// distribution that exposes split points along its own order (`OrderedSplits`,
/// balance/split_balance.hpp: the Morton example) is balanced the same way, its split points moving
/// a fraction Δ toward the target its `target_counts` gives; it keeps every rank.
/// \code
///   tessera::Balancer<2> balancer(dom, std::make_shared<tessera::HorizonPolicy>());
///   for (int it = 0; it < iters; ++it) {
///     u.update_ghosts();
///     { auto t = balancer.timer().measure(); sweep(u.local()); }
///     balancer.step();                     // collective: measure, decide, move a fraction Δ
///   }
/// \endcode

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "tessera/array/domain.hpp"
#include "tessera/balance/availability.hpp"
#include "tessera/balance/incremental.hpp"
#include "tessera/balance/policy.hpp"
#include "tessera/balance/split_balance.hpp"
#include "tessera/balance/timing.hpp"
#include "tessera/balance/weights.hpp"
#include "tessera/exchange/collective_check.hpp"

namespace tessera {

/// How measured times become weights (see weights.hpp).
enum class WeightRule { throughput, inverse_time, d3arc };

/// How a Balancer measures and decides.
struct BalancerOptions {
  int interval = 5;                           ///< iterations between remap points
  /// How measured times become weights (for cuts; a distribution balanced by its split points takes
  /// its target from `OrderedSplits::target_counts`).
  WeightRule weights = WeightRule::throughput;
  double lb = 1.0, ub = 1.5;                  ///< bounds of the d3arc rule
};

/// What one `step()` did (every field the same on every rank, except `compute_seconds`).
struct BalanceStep {
  int iteration = 0;               ///< iterations done, this one included
  bool remap_point = false;        ///< whether this step gathered and decided
  double compute_seconds = 0;      ///< this rank's figure for this iteration
  double coordination_seconds = 0; ///< gathering + deciding + planning (largest over ranks)
  double migration_seconds = 0;    ///< moving data (largest over ranks); 0 if nothing moved
  double imbalance = 0;            ///< slowest / mean - 1 at this remap point
  double delta = 0;                ///< the Δ the policy chose
  index_t elements = 0;            ///< elements that changed owner
  std::int64_t blocks = 0;         ///< in logical blocks (an index each, for split points)
  std::uint64_t bytes = 0;         ///< bytes moved, all arrays
  /// Whether ranks were withdrawn or re-added at this step.
  bool processor_set_changed = false;
  int active_ranks = 0;            ///< ranks holding data after the step
};

/// Runs a BalancePolicy at remap points for every array of a domain (see the file comment).
template <std::size_t N>
  requires(N >= 1)
class Balancer {
 public:
  /// A balancer for every array over `domain`, deciding with `policy`. Throws
  /// `Error(invalid_argument)` for a null policy, an interval < 1, bad d3arc bounds, a
  /// distribution whose distributed axes are not cut into intervals, or a user-defined one without
  /// split points (`OrderedSplits`).
  Balancer(Domain<N> domain, std::shared_ptr<BalancePolicy> policy, BalancerOptions options = {})
      : domain_(std::move(domain)), policy_(std::move(policy)), options_(options) {
    if (!policy_) fail_argument("Balancer", "policy", "null", "must point to a policy");
    if (options_.interval < 1) fail_argument("Balancer", "options.interval", options_.interval, "must be >= 1");
    if (options_.weights == WeightRule::d3arc) (void)d3arc_weights({1.0}, options_.lb, options_.ub);  // validates
    split_points_ = domain_.distribution().is_user_defined();
    if (split_points_)
      (void)ordered_splits(domain_.distribution(), "Balancer");  // validates
    else
      balanced_ = balanced_axes(domain_.distribution(), "Balancer");
    inactive_for_.assign(static_cast<std::size_t>(domain_.comm().size()), 0);
  }

  /// The timer a program wraps around the section whose time should be balanced.
  [[nodiscard]] SectionTimer& timer() noexcept { return timer_; }
  /// Decides whether ranks may hold data (see availability.hpp); an empty hook keeps every rank.
  /// Throws `Error(invalid_argument)` for a hook when the balancer moves split points (a user
  /// distribution is made for its rank count: it keeps every rank).
  void set_availability(AvailabilityHook hook) {
    if (hook && split_points_) refuse_processor_sets("Balancer::set_availability");
    availability_ = std::move(hook);
  }

  /// Collective, once per iteration: the timer's seconds since the last step are this
  /// iteration's figure.
  BalanceStep step() { return step(timer_.take()); }
  /// Collective, once per iteration, with the caller's own figure for this rank.
  BalanceStep step(double seconds) {
    // `seconds` differs between ranks by design; the iteration count and the layout must not.
    const auto checked = detail::check_collective(domain_.comm(), "Balancer::step", iteration_, options_.interval,
                                                  domain_.distribution());
    if (!(seconds >= 0) || !std::isfinite(seconds))
      fail_argument("Balancer::step", "seconds", seconds, "must be a finite number >= 0");
    BalanceStep out;
    out.iteration = ++iteration_;
    out.compute_seconds = seconds;
    out.active_ranks = domain_.distribution().grid().size();
    accumulated_ += seconds;
    if (iteration_ % options_.interval != 0) return out;
    out.remap_point = true;
    const double started = Communicator::wtime();
    const Communicator& comm = domain_.comm();
    const std::vector<double> by_rank = collect_all(comm, accumulated_ / options_.interval);
    accumulated_ = 0;
    const Distribution<N> dist = domain_.distribution();
    const std::vector<int> active = dist.grid().active_ranks();
    std::vector<double> seconds_l(active.size()), work_l(active.size());
    for (std::size_t l = 0; l < active.size(); ++l) {
      seconds_l[l] = by_rank[static_cast<std::size_t>(active[l])];
      work_l[l] = static_cast<double>(dist.local_size(active[l]));
    }
    const std::vector<double> speeds = throughput_weights(seconds_l, work_l);
    for (std::size_t l = 0; l < active.size(); ++l) last_speed_[active[l]] = speeds[l];

    if (availability_ && change_processor_set(active, speeds, out)) {
      out.coordination_seconds = comm.max(Communicator::wtime() - started - out.migration_seconds);
      return out;
    }

    BalanceView view;
    view.iteration = iteration_;
    view.interval = options_.interval;
    view.seconds = seconds_l;
    view.speeds = speeds;
    double mean = 0;
    for (double s : seconds_l) mean += s;
    mean /= static_cast<double>(seconds_l.size());
    view.iteration_seconds = *std::max_element(seconds_l.begin(), seconds_l.end());
    view.imbalance = mean > 0 ? view.iteration_seconds / mean - 1 : 0;
    view.history = &history_;
    // A user distribution's grid lists every rank in rank order: seconds_l is by rank.
    if (split_points_) return split_remap(out, started, view);
    const Distribution<N> target = cut_target(dist, weights_for(seconds_l, speeds));
    view.preview = [&](double delta) { return preview(plan_step(domain_, target, delta), speeds, view.iteration_seconds); };
    out.imbalance = view.imbalance;
    out.delta = std::clamp(policy_->decide(view), 0.0, 1.0);
    if (out.delta > 0) {
      const StepPlan<N> plan = plan_step(domain_, target, out.delta);
      if (plan.moves_anything())
        return record_step(out, started, plan.elements, plan.blocks, plan.bytes, [&] { return migrate_step(domain_, plan); });
    }
    out.coordination_seconds = comm.max(Communicator::wtime() - started);
    return out;
  }

  /// Collective: makes `active_ranks` (ranks of the communicator, in logical order) the ranks that
  /// hold data, redistributing every array over the new grid with shares in proportion to the
  /// ranks' last measured speeds (the mean speed for a rank never measured). Axes that were not
  /// distributed when the balancer was made stay undistributed. Returns the migration's seconds.
  /// Throws `Error(invalid_argument)` on every rank for an empty list, a repeated or
  /// out-of-range rank, or when the balancer moves split points (a user distribution keeps every rank).
  double set_active_ranks(std::vector<int> active_ranks) {
    const auto checked =
        detail::check_collective(domain_.comm(), "Balancer::set_active_ranks", active_ranks, domain_.distribution());
    if (split_points_) refuse_processor_sets("Balancer::set_active_ranks");
    const Distribution<N> dist = domain_.distribution();
    // Axes the balancer started with undistributed stay so (D3-ARC's rows stay rows).
    Point<N> fixed{};
    const bool any_balanced = std::find(balanced_.begin(), balanced_.end(), true) != balanced_.end();
    for (std::size_t d = 0; d < N; ++d)
      if (any_balanced && !balanced_[d]) fixed[d] = 1;
    const auto grid = ProcGrid<N>::automatic(dist.comm_size(), active_ranks, extents(dist.domain()), fixed);
    double mean = 0;
    int known = 0;
    for (const auto& [rank, speed] : last_speed_) mean += speed, ++known;
    mean = known ? mean / known : 1.0;
    std::vector<double> weights;
    for (int r : active_ranks) {
      const auto it = last_speed_.find(r);
      weights.push_back(it != last_speed_.end() ? it->second : mean);
    }
    std::array<DimSpec, N> specs;
    for (std::size_t d = 0; d < N; ++d)
      specs[d] = (grid.extent(d) > 1 ? general() : block()).with_logical_block(dist.dim(d).logical_block());
    const auto to = Distribution<N>::from_rank_weights(dist.domain(), grid, weights, specs, dist.order());
    const double seconds = domain_.migrate(to);
    std::vector<bool> is_active(static_cast<std::size_t>(dist.comm_size()), false);
    for (int r : active_ranks) is_active[static_cast<std::size_t>(r)] = true;
    for (std::size_t r = 0; r < is_active.size(); ++r) inactive_for_[r] = is_active[r] ? 0 : inactive_for_[r];
    return seconds;
  }

  /// Every migration so far (what the cost models learn from).
  [[nodiscard]] const MigrationHistory& history() const noexcept { return history_; }
  /// The policy deciding Δ.
  [[nodiscard]] BalancePolicy& policy() noexcept { return *policy_; }
  /// The domain whose arrays are balanced.
  [[nodiscard]] const Domain<N>& domain() const noexcept { return domain_; }
  /// Iterations stepped so far.
  [[nodiscard]] int iteration() const noexcept { return iteration_; }

 private:
  // A remap point of a distribution balanced by its split points: the policy decides from
  // split_step_preview, and the step moves the split points (`view.seconds`: every rank's, in rank
  // order).
  BalanceStep split_remap(BalanceStep out, double started, BalanceView& view) {
    const Distribution<N> dist = domain_.distribution();
    const std::vector<double>& seconds = view.seconds;
    view.preview = [&](double delta) { return split_step_preview(dist, seconds, domain_.bytes_per_element(), delta); };
    out.imbalance = view.imbalance;
    out.delta = std::clamp(policy_->decide(view), 0.0, 1.0);
    if (out.delta > 0) {
      const SplitStep<N> plan = plan_split_step(dist, seconds, out.delta);
      if (plan.moves_anything())
        return record_step(out, started, plan.elements, plan.elements,
                           static_cast<std::uint64_t>(plan.elements) * domain_.bytes_per_element(),
                           [&] { return domain_.migrate(plan.to); });
    }
    out.coordination_seconds = domain_.comm().max(Communicator::wtime() - started);
    return out;
  }

  // Carries out a step (`migrate` moves every array and returns its seconds, the largest over the
  // ranks), records it in the history and tells the policy.
  template <class Migrate>
  BalanceStep record_step(BalanceStep out, double started, index_t elements, std::int64_t blocks, std::uint64_t bytes,
                          Migrate migrate) {
    const double before = Communicator::wtime();
    const double migration = migrate();
    const double local_migration = Communicator::wtime() - before;
    out.elements = elements;
    out.blocks = blocks;
    out.bytes = bytes;
    const MigrationRecord record{iteration_, out.delta, blocks, bytes, migration};
    history_.add(record);
    policy_->observe(record);
    out.migration_seconds = migration;
    out.coordination_seconds = domain_.comm().max(Communicator::wtime() - started - local_migration);
    return out;
  }

  [[noreturn]] void refuse_processor_sets(const char* where) const {
    fail_argument(where, "distribution", domain_.distribution(),
                  "is balanced by its split points: a user distribution is made for its rank count and keeps "
                  "every rank (withdrawing ranks is for cut distributions)");
  }

  std::vector<double> weights_for(const std::vector<double>& seconds, const std::vector<double>& speeds) const {
    switch (options_.weights) {
      case WeightRule::throughput: return speeds;
      case WeightRule::inverse_time: return inverse_time_weights(seconds);
      case WeightRule::d3arc: return d3arc_weights(seconds, options_.lb, options_.ub);
    }
    return speeds;
  }

  // Predicted iteration time after a step: each rank keeps its measured speed.
  StepPreview preview(const StepPlan<N>& plan, const std::vector<double>& speeds, double now) const {
    StepPreview p;
    p.delta = plan.delta;
    p.blocks = plan.blocks;
    p.bytes = plan.bytes;
    const std::vector<int> active = plan.to.grid().active_ranks();
    for (std::size_t l = 0; l < active.size(); ++l)
      p.predicted_seconds = std::max(p.predicted_seconds, static_cast<double>(plan.to.local_size(active[l])) / speeds[l]);
    p.gain = now - p.predicted_seconds;
    return p;
  }

  // Asks every rank's hook, gathers the answers, and moves to the new set if it differs.
  bool change_processor_set(const std::vector<int>& active, const std::vector<double>& speeds, BalanceStep& out) {
    const Communicator& comm = domain_.comm();
    const int rank = comm.rank();
    std::vector<double> sorted = speeds;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    for (std::size_t r = 0; r < inactive_for_.size(); ++r)
      if (!domain_.distribution().grid().is_active(static_cast<int>(r))) ++inactive_for_[r];
    AvailabilityContext c;
    c.rank = rank;
    c.iteration = iteration_;
    c.active = domain_.distribution().grid().is_active(rank);
    c.relative_speed = c.active && median > 0 ? last_speed_[rank] / median : std::nan("");
    c.remap_points_inactive = inactive_for_[static_cast<std::size_t>(rank)];
    const std::vector<double> available = collect_all(comm, availability_(c) ? 1.0 : 0.0);
    // Keep the logical order of the ranks that stay, then append the ranks that come back.
    std::vector<int> next;
    for (int r : active)
      if (available[static_cast<std::size_t>(r)] != 0) next.push_back(r);
    for (int r = 0; r < comm.size(); ++r)
      if (available[static_cast<std::size_t>(r)] != 0 && std::find(active.begin(), active.end(), r) == active.end())
        next.push_back(r);
    if (next.empty() || next == active) return false;  // no rank left: keep the set rather than lose the data
    const Distribution<N> before = domain_.distribution();
    out.migration_seconds = set_active_ranks(next);
    const index_t elements = elements_changing_owner(before, domain_.distribution());
    out.elements = elements;
    out.bytes = static_cast<std::uint64_t>(elements) * domain_.bytes_per_element();
    out.processor_set_changed = true;
    out.active_ranks = static_cast<int>(next.size());
    return true;
  }

  Domain<N> domain_;
  std::shared_ptr<BalancePolicy> policy_;
  BalancerOptions options_;
  SectionTimer timer_;
  AvailabilityHook availability_;
  MigrationHistory history_;
  std::array<bool, N> balanced_{};   // axes distributed when the balancer was made
  bool split_points_ = false;         // a user distribution balanced by its split points
  std::map<int, double> last_speed_;  // elements per second, by rank, as last measured
  std::vector<int> inactive_for_;     // remap points each rank has been a skeleton
  int iteration_ = 0;
  double accumulated_ = 0;
};

}  // namespace tessera
