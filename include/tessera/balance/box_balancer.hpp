#pragma once
/// \file
/// `BoxBalancer<N>`: the `Balancer` of a box-set domain (issue 16: weights per box from measured
/// time, D3-ARC's Δ applied box by box). A program times each of its boxes with the balancer's
/// timer for that box; once per iteration `step()` counts the iteration, and every `interval`
/// iterations it sums every rank's box times (one allreduce of a value per box), makes a target
/// assignment from them (greedy knapsack or Morton, relabeled for locality), asks the policy for Δ
/// through `box_step_preview`, and moves the boxes `incremental_box_step` picks for that Δ with a
/// preserving `Domain::redistribute` of every array over the domain.
/// \code
///   tessera::Domain<2> dom(world, tessera::Distribution<2>::from_box_set(set));
///   tessera::DistArray<double, 2> u(dom, g);
///   tessera::BoxBalancer<2> balancer(dom, std::make_shared<tessera::HorizonPolicy>());
///   for (int it = 0; it < iters; ++it) {
///     u.update_ghosts();
///     for (std::size_t p = 0; p < u.patch_count(); ++p) {  // patch p is box balancer.box_of_patch(p)
///       auto timing = balancer.timer(p).measure();
///       sweep(u.local(p));
///     }
///     balancer.step();                    // collective: measure, decide, move whole boxes
///   }
/// \endcode
/// Box i's weight is its measured seconds per iteration since the last remap point. A box that no
/// timer measured there (its owner did not time it) is weighed by its cells at the mean seconds per
/// cell of the boxes that were measured; with no box measured at all, every box is weighed by its
/// cells, so the balancer evens out cells.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tessera/array/domain.hpp"
#include "tessera/balance/balancer.hpp"
#include "tessera/balance/box_balance.hpp"
#include "tessera/balance/policy.hpp"
#include "tessera/balance/timing.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/plan/relabel.hpp"

namespace tessera {

/// Where a `BoxBalancer` moves boxes toward.
enum class BoxTarget {
  knapsack,  ///< `assign_knapsack`: the most even loads
  morton,    ///< `assign_morton`: equal-weight runs of the Morton curve, neighbours together
};

/// How a `BoxBalancer` measures and decides.
struct BoxBalancerOptions {
  int interval = 5;                       ///< iterations between remap points
  BoxTarget target = BoxTarget::knapsack; ///< the assignment a step moves toward
  /// Whether the target is relabeled for locality (`relabel_for_locality`) before the step: the
  /// policies' assignments treat ranks as interchangeable, so without it most boxes may change owner
  /// for nothing.
  bool relabel = true;
  /// A byte budget per remap point (0: none): a step moves the boxes of best gain per byte that fit
  /// in it, whatever Δ the policy decides (`incremental_box_step`'s `max_cells`, the bytes of every
  /// array over the domain per cell). Bounds the pause a remap point can cost.
  std::uint64_t max_bytes_per_step = 0;
};

/// Runs a `BalancePolicy` at remap points for every array of a box-set domain (see the file comment).
template <std::size_t N>
  requires(N >= 1)
class BoxBalancer {
 public:
  /// A balancer for every array over `domain`, whose distribution must come from
  /// `Distribution<N>::from_box_set`. Throws `Error(invalid_argument)` for another distribution, a
  /// null policy or an interval < 1.
  BoxBalancer(Domain<N> domain, std::shared_ptr<BalancePolicy> policy, BoxBalancerOptions options = {})
      : domain_(std::move(domain)), policy_(std::move(policy)), options_(options) {
    constexpr const char* where = "BoxBalancer";
    if (!policy_) fail_argument(where, "policy", "null", "must point to a policy");
    if (options_.interval < 1) fail_argument(where, "options.interval", options_.interval, "must be >= 1");
    if (options_.target != BoxTarget::knapsack && options_.target != BoxTarget::morton)
      fail_argument(where, "options.target", static_cast<int>(options_.target), "is not a tessera::BoxTarget");
    if (domain_.distribution().box_set() == nullptr)
      fail_argument(where, "domain", domain_.distribution(),
                    "is not a box set (Distribution::from_box_set): balance cut distributions with tessera::Balancer");
    reset_timers();
  }

  /// The timer of this rank's patch `patch` (box `box_of_patch(patch)`), to wrap around the work on
  /// that box. Throws `Error(out_of_range)` for a patch this rank does not hold.
  [[nodiscard]] SectionTimer& timer(std::size_t patch) {
    check_patch("BoxBalancer::timer", patch);
    return timers_[patch];
  }
  /// The box (index into the box set's `boxes()`) that this rank's patch `patch` stores: patches
  /// follow `BoxSet::boxes_of(rank)`. Throws `Error(out_of_range)` for a patch this rank does not hold.
  [[nodiscard]] std::size_t box_of_patch(std::size_t patch) const {
    check_patch("BoxBalancer::box_of_patch", patch);
    return set().boxes_of(domain_.rank())[patch];
  }
  /// The box set the domain is distributed by now.
  [[nodiscard]] const BoxSet<N>& set() const { return *domain_.distribution().box_set(); }

  /// Collective, once per iteration: counts it, and at a remap point (every `interval` iterations)
  /// sums the box timers, decides and moves. The timers start again from zero after a remap point.
  /// Throws `Error(invalid_argument)` on every rank, with nothing changed, if a timer of some rank is
  /// still running at a remap point (one more allreduce per remap point).
  BalanceStep step() {
    constexpr const char* where = "BoxBalancer::step";
    const auto checked = detail::check_collective(domain_.comm(), where, iteration_, options_.interval,
                                                  domain_.distribution());
    BalanceStep out;
    out.iteration = iteration_ + 1;
    out.active_ranks = domain_.comm().size();
    for (const SectionTimer& t : timers_) out.compute_seconds += t.seconds();
    if (out.iteration % options_.interval != 0) {
      iteration_ = out.iteration;
      return out;
    }
    out.remap_point = true;
    const double started = Communicator::wtime();
    // Checked on every rank together: a rank that threw alone would leave the others in the allreduce.
    std::optional<Error> running;
    for (std::size_t p = 0; p < timers_.size() && !running; ++p)
      if (timers_[p].running())
        running = Error(ErrorCode::invalid_argument, detail::concat(where, ": the timer of patch ", p, " on rank ",
                                                                    domain_.rank(), " is still running at a remap point"));
    domain_.comm().agree(running);
    iteration_ = out.iteration;  // counted once nothing can refuse the step any more
    const BoxSet<N> current = set();
    const int ranks = domain_.comm().size();
    const std::vector<double> weights = box_weights(current);
    reset_timers();
    const std::span<const Box<N>> boxes = current.boxes();
    const std::span<const int> owners = current.owners();
    const std::vector<int> target = target_owners(current, weights);

    BalanceView view;
    view.iteration = iteration_;
    view.interval = options_.interval;
    view.seconds = detail::rank_loads(owners, weights, ranks);
    view.speeds.resize(view.seconds.size());
    for (int r = 0; r < ranks; ++r) {
      const auto cells = static_cast<double>(current.cells_of(r));
      const double s = view.seconds[static_cast<std::size_t>(r)];
      view.speeds[static_cast<std::size_t>(r)] = s > 0 ? cells / s : 0;
    }
    // The horizon policy reads the load pattern from speeds that moving data leaves alone; a rank's
    // speed here changes whenever a box of another cost per cell moves, so it gets the boxes'.
    view.pattern_speeds.resize(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i)
      view.pattern_speeds[i] = weights[i] > 0 ? static_cast<double>(volume(boxes[i])) / weights[i] : 0;
    double mean = 0;
    for (const double s : view.seconds) mean += s;
    mean /= static_cast<double>(ranks);
    view.iteration_seconds = *std::max_element(view.seconds.begin(), view.seconds.end());
    view.imbalance = mean > 0 ? view.iteration_seconds / mean - 1 : 0;
    view.history = &history_;
    const std::size_t element_bytes = domain_.bytes_per_element();
    const std::uint64_t max_cells = cell_budget(element_bytes);
    view.preview = [&](double delta) {
      return box_step_preview<N>(boxes, owners, target, ranks, weights, element_bytes, delta, max_cells);
    };
    out.imbalance = view.imbalance;
    out.delta = std::clamp(policy_->decide(view), 0.0, 1.0);
    if (out.delta > 0) {
      const IncrementalBoxStep step =
          incremental_box_step<N>(boxes, owners, target, ranks, out.delta, weights, max_cells);
      if (!step.moves.empty()) {
        const double before = Communicator::wtime();
        domain_.redistribute(Distribution<N>::from_box_set(BoxSet<N>(current.domain(), current.boxes(), step.owners, ranks)));
        const double local_migration = Communicator::wtime() - before;
        reset_timers();  // the patches now follow the new assignment
        out.migration_seconds = domain_.comm().max(local_migration);
        out.elements = static_cast<index_t>(step.cells);
        out.blocks = static_cast<std::int64_t>(step.moves.size());
        out.bytes = step.cells * element_bytes;
        const MigrationRecord record{iteration_, out.delta, out.blocks, out.bytes, out.migration_seconds};
        history_.add(record);
        policy_->observe(record);
        out.coordination_seconds = domain_.comm().max(Communicator::wtime() - started - local_migration);
        return out;
      }
    }
    out.coordination_seconds = domain_.comm().max(Communicator::wtime() - started);
    return out;
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
  // The byte budget in cells of the domain's arrays; no budget without one, or without arrays.
  [[nodiscard]] std::uint64_t cell_budget(std::size_t element_bytes) const noexcept {
    if (options_.max_bytes_per_step == 0 || element_bytes == 0) return no_cell_budget;
    return options_.max_bytes_per_step / element_bytes;
  }

  void check_patch(const char* where, std::size_t patch) const {
    if (patch >= timers_.size())
      fail(ErrorCode::out_of_range, where, ": patch ", patch, " is not one of the ", timers_.size(),
           " patches rank ", domain_.rank(), " holds");
  }

  void reset_timers() { timers_.assign(set().boxes_of(domain_.rank()).size(), SectionTimer{}); }

  // Seconds per iteration of every box since the last remap point, the same on every rank (one
  // allreduce); boxes nobody timed are estimated (see the file comment).
  std::vector<double> box_weights(const BoxSet<N>& current) const {
    std::vector<double> seconds(current.size(), 0.0);
    const auto mine = current.boxes_of(domain_.rank());
    for (std::size_t p = 0; p < mine.size(); ++p) seconds[mine[p]] = timers_[p].seconds() / options_.interval;
    domain_.comm().allreduce(std::span<double>(seconds), ReduceOp::sum);
    double timed_seconds = 0, timed_cells = 0;
    for (std::size_t i = 0; i < seconds.size(); ++i)
      if (seconds[i] > 0) timed_seconds += seconds[i], timed_cells += static_cast<double>(volume(current.box(i)));
    const double per_cell = timed_cells > 0 ? timed_seconds / timed_cells : 1.0;
    for (std::size_t i = 0; i < seconds.size(); ++i)
      if (seconds[i] <= 0) seconds[i] = per_cell * static_cast<double>(volume(current.box(i)));
    return seconds;
  }

  std::vector<int> target_owners(const BoxSet<N>& current, const std::vector<double>& weights) const {
    const int ranks = domain_.comm().size();
    std::vector<int> target = options_.target == BoxTarget::morton
                                  ? assign_morton<N>(current.boxes(), ranks, weights)
                                  : assign_knapsack<N>(current.boxes(), ranks, weights);
    if (!options_.relabel) return target;
    const BoxSet<N> relabeled =
        relabel_for_locality(domain_.distribution(), BoxSet<N>(current.domain(), current.boxes(), target, ranks));
    return std::vector<int>(relabeled.owners().begin(), relabeled.owners().end());
  }

  Domain<N> domain_;
  std::shared_ptr<BalancePolicy> policy_;
  BoxBalancerOptions options_;
  std::vector<SectionTimer> timers_;  // one per patch of this rank, in boxes_of order
  MigrationHistory history_;
  int iteration_ = 0;
};

}  // namespace tessera
