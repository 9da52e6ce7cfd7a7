// BoxBalancer (balance/box_balancer.hpp) driven by the balance layer's other policies: D3-ARC's
// adaptive Δ and tessera's horizon (balance/policy.hpp), under an emulated load (a fixed cost per
// box, or one whose hot boxes change halfway). Beside the run, a serial oracle rebuilds at every
// remap point what the balancer must see (box weights, rank loads, imbalance, speeds, the target
// and the preview of a step) and decides with its own copy of the policy's rule as policy.hpp
// documents it, fed the history of migrations the run recorded (their seconds are measured, the
// only input the oracle takes from the run). The imbalance, the Δ, the boxes moved and the owners
// must match the oracle's at every remap point, on every rank alike; every patch is one whole box;
// every stored value survives every move bit for bit; a step of Δ < 1 never raises the slowest
// rank's load, and under a fixed cost the run ends no more imbalanced than it started.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/balance/box_balancer.hpp"
#include "tessera/tessera.hpp"

namespace tessera::box_policy_oracle {
namespace {

using namespace tessera::testing;

/// The emulated load: box i costs `per_cell` seconds per cell and iteration, five times that while
/// it is hot: every third box (i % 3 == 0), and from iteration `shift_at` on (0: never) the next
/// third instead (i % 3 == 1), a change of the load pattern.
struct EmulatedBoxCost {
  double per_cell = 1e-6;
  int shift_at = 0;
  [[nodiscard]] double operator()(const BoxSet<2>& set, std::size_t i, int iteration) const {
    const bool shifted = shift_at > 0 && iteration >= shift_at;
    const bool hot = i % 3 == (shifted ? 1U : 0U);
    return per_cell * static_cast<double>(volume(set.box(i))) * (hot ? 5.0 : 1.0);
  }
};

/// What the balancer's view must hold at a remap point, rebuilt serially.
struct OracleView {
  int iteration = 0, interval = 1;
  std::vector<double> weights;  // seconds per iteration of each box
  std::vector<double> seconds;  // per rank
  std::vector<double> speeds;   // per rank: cells / seconds
  std::vector<double> box_speeds;  // per box: cells / seconds (the load pattern of a box set)
  double imbalance = 0;
  std::function<StepPreview(double)> preview;
  const MigrationHistory* history = nullptr;  // the run's migrations, seconds as measured
};

/// A policy's rule as policy.hpp documents it, written again here as the reference (the history's
/// cost estimates, `trimmed_unit_cost` and `linear_cost`, have their own tests in unit.balance).
class OracleRule {
 public:
  virtual ~OracleRule() = default;
  virtual double decide(const OracleView& v) = 0;
  virtual void observe(const MigrationRecord&) {}
};

/// D3-ARC's adaptive Δ: the initial Δ before any migration; then the cost of a step is its boxes
/// times the trimmed mean of the measured seconds per box (the largest and smallest dropped from
/// three on); Δ is halved while that cost exceeds gain x interval; halved below `min_delta` it is
/// refused once three migrations are known, and a probe of `min_delta` before; a migration whose
/// seconds stayed within the budget grows Δ by half (at most 1).
class AdaptiveOracle final : public OracleRule {
 public:
  AdaptiveOracle(double initial, double tolerance, double min_delta)
      : delta_(initial), tolerance_(tolerance), min_delta_(min_delta) {}
  double decide(const OracleView& v) override {
    if (v.imbalance <= tolerance_ || delta_ <= 0) return 0;
    const double per_box = v.history->trimmed_unit_cost();
    if (std::isnan(per_box)) return delta_;
    double delta = delta_;
    for (;;) {
      const StepPreview p = v.preview(delta);
      budget_ = p.gain * v.interval;
      if (static_cast<double>(p.blocks) * per_box <= budget_) break;
      delta /= 2;
      if (delta < min_delta_) {
        if (v.history->records().size() >= 3) {
          ++refusals;
          return 0;
        }
        delta = min_delta_;
        ++probes;
        break;
      }
    }
    if (delta < delta_) ++halvings;
    delta_ = delta;
    return delta;
  }
  void observe(const MigrationRecord& r) override {
    if (r.seconds <= budget_) {
      delta_ = std::min(1.0, delta_ * 1.5);
      ++growths;
    }
  }
  [[nodiscard]] double delta() const { return delta_; }
  int halvings = 0, probes = 0, refusals = 0, growths = 0;

 private:
  double delta_, tolerance_, min_delta_;
  double budget_ = 0;
};

/// The horizon: the load pattern is the speeds over their mean, here the boxes' (a rank's speed
/// changes when a box of another cost per cell moves; a box's only when its load does); it
/// changed when one moved by more than `pattern_change`, and is expected to last as long again as it has (clamped to
/// [min_horizon, max_horizon]); the candidate with the largest gain x horizon - cost wins, the cost
/// from the history's latency + bandwidth fit; none positive: stay.
class HorizonOracle final : public OracleRule {
 public:
  HorizonOracle(std::vector<double> candidates, double tolerance, int min_horizon, int max_horizon, double change)
      : candidates_(std::move(candidates)),
        tolerance_(tolerance),
        min_horizon_(min_horizon),
        max_horizon_(max_horizon),
        change_(change) {}
  double decide(const OracleView& v) override {
    std::vector<double> shape(v.box_speeds.size());
    double mean = 0;
    for (const double s : v.box_speeds) mean += s;
    mean /= static_cast<double>(std::max<std::size_t>(1, v.box_speeds.size()));
    for (std::size_t r = 0; r < shape.size(); ++r) shape[r] = mean > 0 ? v.box_speeds[r] / mean : 1;
    bool changed = shape.size() != pattern_.size();
    for (std::size_t r = 0; !changed && r < shape.size(); ++r) changed = std::abs(shape[r] - pattern_[r]) > change_;
    if (changed) {
      since_ = v.iteration;
      pattern_ = shape;
      if (v.iteration > v.interval) ++pattern_changes;
    }
    if (v.imbalance <= tolerance_) return 0;
    const double horizon = std::clamp(static_cast<double>(v.iteration - since_), static_cast<double>(min_horizon_),
                                      static_cast<double>(max_horizon_));
    const MigrationHistory::LinearCost cost = v.history->linear_cost();
    double best = 0, best_saving = 0;
    for (const double c : candidates_) {
      const StepPreview p = v.preview(c);
      const double saving = p.gain * horizon - cost(p.bytes);
      if (saving > best_saving) best = c, best_saving = saving;
    }
    if (best == 0) ++refusals;
    return best;
  }
  [[nodiscard]] int age(int iteration) const { return iteration - since_; }
  int refusals = 0, pattern_changes = 0;

 private:
  std::vector<double> candidates_;
  double tolerance_;
  int min_horizon_, max_horizon_;
  double change_;
  std::vector<double> pattern_;
  int since_ = 0;
};

/// One policy of the library and its oracle, built alike.
struct PolicyUnderTest {
  std::shared_ptr<BalancePolicy> policy;
  std::unique_ptr<OracleRule> oracle;
};

PolicyUnderTest adaptive_policy(double initial, double tolerance, double min_delta) {
  return {std::make_shared<D3arcAdaptiveDelta>(initial, tolerance, min_delta),
          std::make_unique<AdaptiveOracle>(initial, tolerance, min_delta)};
}

PolicyUnderTest horizon_policy(const std::vector<double>& candidates, double tolerance, int min_horizon,
                               int max_horizon, double change) {
  return {std::make_shared<HorizonPolicy>(candidates, tolerance, min_horizon, max_horizon, change),
          std::make_unique<HorizonOracle>(candidates, tolerance, min_horizon, max_horizon, change)};
}

/// Each rank's load under `weights` (summed in box order).
std::vector<double> loads_under(const std::vector<int>& owners, const std::vector<double>& weights, int ranks) {
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  for (std::size_t i = 0; i < owners.size(); ++i) load[static_cast<std::size_t>(owners[i])] += weights[i];
  return load;
}

double max_over_mean_under(const std::vector<int>& owners, const std::vector<double>& weights, int ranks) {
  const auto load = loads_under(owners, weights, ranks);
  double total = 0;
  for (const double l : load) total += l;
  return total > 0 ? *std::max_element(load.begin(), load.end()) / (total / ranks) : 1.0;
}

/// What every rank must agree on after an iteration.
struct RankDecision {
  double delta = 0, imbalance = 0, last_seconds = 0;
  std::uint64_t owners_hash = 0;
  std::int64_t blocks = 0;
};

std::uint64_t owners_hash_of(const BoxSet<2>& set) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const int o : set.owners()) h = (h ^ static_cast<std::uint64_t>(o + 1)) * 1099511628211ULL;
  return h;
}

/// Counts over all the cases, to check that the cases reach the rules' branches.
struct PolicyCoverage {
  int migrations = 0, partial_steps = 0, refused_while_uneven = 0;
};

/// Runs `iterations` iterations of the balancer over a random box set and checks every remap point
/// against the oracle (see the file comment).
void run_against_oracle(const Communicator& comm, std::uint64_t seed, PolicyUnderTest& put, const EmulatedBoxCost& cost,
                        const BoxBalancerOptions& options, int iterations, PolicyCoverage& coverage) {
  std::mt19937_64 rng(seed);
  const int ranks = comm.size();
  const auto domain_box = random_domain<2>(rng, 24);
  const BoxSet<2> start = random_box_set<2>(rng, domain_box, 5, 30, ranks);
  SCOPED_TRACE(::testing::Message() << put.policy->name() << ", seed " << seed << ", " << cost.per_cell
                                    << " s/cell, shift at " << cost.shift_at << ", interval " << options.interval
                                    << ", " << (options.target == BoxTarget::morton ? "morton" : "knapsack")
                                    << (options.relabel ? " relabeled" : "") << ": " << start);
  Domain<2> dom(comm, Distribution<2>::from_box_set(start));
  DistArray<double, 2> a(dom, ghosts<2>(1));
  DistArray<float, 2> b(dom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  b.for_each_owned([](const Point<2>& p, float& x) { x = static_cast<float>(-value_of(p)); });
  const std::size_t element_bytes = sizeof(double) + sizeof(float);
  BoxBalancer<2> balancer(dom, put.policy, options);
  BoxSet<2> shadow = start;
  MigrationHistory history;  // the oracle's: the run's migrations, seconds as measured
  for (int it = 1; it <= iterations; ++it) {
    for (std::size_t p = 0; p < a.patch_count(); ++p) {
      const std::size_t box = balancer.box_of_patch(p);
      balancer.timer(p).add(cost(shadow, box, it));
    }
    const BalanceStep step = balancer.step();
    ASSERT_EQ(step.remap_point, it % options.interval == 0) << "iteration " << it;
    if (step.remap_point) {
      OracleView view;
      view.iteration = it;
      view.interval = options.interval;
      view.history = &history;
      view.weights.assign(shadow.size(), 0.0);
      for (std::size_t i = 0; i < shadow.size(); ++i) {
        double s = 0;  // what box i's timer summed since the last remap point, in the same order
        for (int j = it - options.interval + 1; j <= it; ++j) s += cost(shadow, i, j);
        view.weights[i] = s / options.interval;
        view.box_speeds.push_back(static_cast<double>(volume(shadow.box(i))) / view.weights[i]);
      }
      view.seconds = loads_under(shadow.owners(), view.weights, ranks);
      double mean = 0;
      for (const double s : view.seconds) mean += s;
      mean /= ranks;
      const double slowest = *std::max_element(view.seconds.begin(), view.seconds.end());
      view.imbalance = mean > 0 ? slowest / mean - 1 : 0;
      for (int r = 0; r < ranks; ++r) {
        const double s = view.seconds[static_cast<std::size_t>(r)];
        view.speeds.push_back(s > 0 ? static_cast<double>(shadow.cells_of(r)) / s : 0);
      }
      auto target = options.target == BoxTarget::morton ? assign_morton<2>(shadow.boxes(), ranks, view.weights)
                                                        : assign_knapsack<2>(shadow.boxes(), ranks, view.weights);
      if (options.relabel)
        target = relabel_for_locality(Distribution<2>::from_box_set(shadow),
                                      BoxSet<2>(shadow.domain(), shadow.boxes(), target, ranks))
                     .owners();
      view.preview = [&](double delta) {
        return box_step_preview<2>(shadow.boxes(), shadow.owners(), target, ranks, view.weights, element_bytes, delta);
      };
      const double delta = put.oracle->decide(view);
      EXPECT_EQ(step.imbalance, view.imbalance) << "iteration " << it;
      ASSERT_EQ(step.delta, delta) << "iteration " << it << ": the policy decided otherwise than its documented rule";
      std::vector<int> owners = shadow.owners();
      std::uint64_t cells = 0;
      if (delta > 0) {
        const auto moved = incremental_box_step<2>(shadow.boxes(), shadow.owners(), target, ranks, delta, view.weights);
        owners = moved.owners;
        cells = moved.cells;
      }
      std::int64_t changed = 0;
      for (std::size_t i = 0; i < owners.size(); ++i) changed += owners[i] != shadow.owner(i) ? 1 : 0;
      EXPECT_EQ(step.blocks, changed) << "iteration " << it;
      EXPECT_EQ(step.bytes, cells * element_bytes) << "iteration " << it;
      if (changed > 0) {
        ASSERT_FALSE(balancer.history().records().empty());
        const MigrationRecord& ran = balancer.history().records().back();
        EXPECT_EQ(ran.iteration, it);
        EXPECT_EQ(ran.delta, delta);
        EXPECT_EQ(ran.blocks, changed);
        EXPECT_EQ(ran.bytes, cells * element_bytes);
        EXPECT_EQ(ran.seconds, step.migration_seconds);
        EXPECT_GT(ran.seconds, 0.0);
        const MigrationRecord record{it, delta, changed, cells * element_bytes, ran.seconds};
        history.add(record);
        put.oracle->observe(record);
        ++coverage.migrations;
        if (delta < 1) {
          ++coverage.partial_steps;
          // A greedy step moves a box only when it lowers the excess, which never raises the
          // slowest rank (the receiver ends no higher than the sender was).
          const auto before = loads_under(shadow.owners(), view.weights, ranks);
          const auto after = loads_under(owners, view.weights, ranks);
          EXPECT_LE(*std::max_element(after.begin(), after.end()), *std::max_element(before.begin(), before.end()))
              << "iteration " << it;
        }
      } else if (view.imbalance > 0.05 && delta == 0) {
        ++coverage.refused_while_uneven;
      }
      EXPECT_EQ(balancer.history().records().size(), history.records().size());
      shadow = BoxSet<2>(shadow.domain(), shadow.boxes(), owners, ranks);
      if (auto* horizon = dynamic_cast<HorizonOracle*>(put.oracle.get())) {
        EXPECT_EQ(dynamic_cast<HorizonPolicy&>(*put.policy).pattern_age(it), horizon->age(it)) << "iteration " << it;
      }
      if (auto* adaptive = dynamic_cast<AdaptiveOracle*>(put.oracle.get())) {
        EXPECT_EQ(dynamic_cast<D3arcAdaptiveDelta&>(*put.policy).current_delta(), adaptive->delta()) << "iteration " << it;
      }
    }
    // Whole boxes only: the same boxes, each patch exactly one box of the rank.
    ASSERT_EQ(balancer.set().boxes().size(), start.boxes().size());
    EXPECT_TRUE(std::equal(balancer.set().boxes().begin(), balancer.set().boxes().end(), start.boxes().begin()));
    ASSERT_EQ(balancer.set().owners(), shadow.owners()) << "iteration " << it;
    const auto mine = shadow.boxes_of(comm.rank());
    ASSERT_EQ(a.patch_count(), mine.size());
    ASSERT_EQ(b.patch_count(), mine.size());
    for (std::size_t p = 0; p < mine.size(); ++p) {
      EXPECT_EQ(a.owned_box(p), shadow.box(mine[p])) << "patch " << p;
      EXPECT_EQ(balancer.box_of_patch(p), mine[p]);
    }
    std::size_t checked = 0;
    a.for_each_owned([&](const Point<2>& p, const double& x) {
      const double want = value_of(p);
      EXPECT_EQ(std::memcmp(&x, &want, sizeof x), 0) << "rank " << comm.rank() << " point " << p << " iteration " << it;
      ++checked;
    });
    b.for_each_owned([&](const Point<2>& p, const float& x) {
      const auto want = static_cast<float>(-value_of(p));
      EXPECT_EQ(std::memcmp(&x, &want, sizeof x), 0) << "rank " << comm.rank() << " point " << p << " iteration " << it;
    });
    EXPECT_EQ(static_cast<index_t>(checked), shadow.cells_of(comm.rank()));
    // The same decisions on every rank.
    RankDecision d{step.delta, step.imbalance,
                   balancer.history().records().empty() ? 0.0 : balancer.history().records().back().seconds,
                   owners_hash_of(balancer.set()), step.blocks};
    for (const RankDecision& other : comm.allgather(d))
      ASSERT_EQ(std::memcmp(&other, &d, sizeof d), 0) << "ranks decided differently at iteration " << it;
  }
  if (cost.shift_at == 0) {
    // A fixed load: the run ends no more imbalanced than it began.
    std::vector<double> w(start.size());
    for (std::size_t i = 0; i < start.size(); ++i) w[i] = cost(start, i, 1);
    EXPECT_LE(max_over_mean_under(shadow.owners(), w, ranks), max_over_mean_under(start.owners(), w, ranks) + 1e-12);
  }
}

/// Scales of the emulated load against real migrations (milliseconds): tiny (a step never pays
/// for itself), middle (comparable: the measured seconds decide) and large (always worth it).
constexpr double kPolicyScales[] = {1e-10, 2e-5, 1e-2};

BoxBalancerOptions policy_options(int k) {
  BoxBalancerOptions o;
  o.interval = 2 + k % 2;
  o.target = k % 4 < 2 ? BoxTarget::knapsack : BoxTarget::morton;
  o.relabel = k % 3 != 2;
  return o;
}

TEST(BoxBalancerPolicies, AdaptiveDeltaDecidesAsItsRuleAndMovesWholeBoxes) {
  Communicator comm(MPI_COMM_WORLD);
  PolicyCoverage coverage;
  int halvings = 0, probes = 0, refusals = 0, growths = 0;
  for (int k = 0; k < 12; ++k) {
    const EmulatedBoxCost cost{kPolicyScales[k % 3], k >= 6 ? 10 : 0};
    // The default start (0.3) and a start at 1 with a lower floor.
    auto put = k % 2 == 0 ? adaptive_policy(D3arcAdaptiveDelta::kDefaultInitial, 0.05, 0.05)
                          : adaptive_policy(1.0, 0.05, 1.0 / 16);
    auto* oracle = static_cast<AdaptiveOracle*>(put.oracle.get());
    run_against_oracle(comm, 7100 + static_cast<std::uint64_t>(k), put, cost, policy_options(k), 20,
                       coverage);
    if (::testing::Test::HasFatalFailure()) return;
    halvings += oracle->halvings, probes += oracle->probes, refusals += oracle->refusals, growths += oracle->growths;
  }
  if (comm.size() > 1) {
    EXPECT_GT(coverage.migrations, 0) << "no case moved a box";
    EXPECT_GT(halvings, 0) << "no case halved Δ";
    EXPECT_GT(probes, 0) << "no case probed with the minimum Δ";
    EXPECT_GT(refusals, 0) << "no case refused a move after three migrations";
    EXPECT_GT(growths, 0) << "no case grew Δ after a cheap migration";
  }
}

TEST(BoxBalancerPolicies, HorizonDecidesAsItsRuleAndMovesWholeBoxes) {
  Communicator comm(MPI_COMM_WORLD);
  PolicyCoverage coverage;
  int pattern_changes = 0;
  for (int k = 0; k < 12; ++k) {
    const EmulatedBoxCost cost{kPolicyScales[k % 3], k >= 6 ? 10 : 0};
    auto put = k % 2 == 0 ? horizon_policy({0.25, 0.5, 1.0}, 0.05, 10, 1000, 0.15)
                          : horizon_policy({0.1, 0.3, 0.6, 1.0}, 0.02, 4, 40, 0.1);
    auto* oracle = static_cast<HorizonOracle*>(put.oracle.get());
    run_against_oracle(comm, 7300 + static_cast<std::uint64_t>(k), put, cost, policy_options(k), 20,
                       coverage);
    if (::testing::Test::HasFatalFailure()) return;
    pattern_changes += oracle->pattern_changes;
    if (cost.shift_at == 0) {
      // A fixed load is one pattern however the boxes move: the horizon's own migrations must not
      // make it start counting again (they did while it read the ranks' speeds).
      EXPECT_EQ(oracle->pattern_changes, 0) << "case " << k;
    }
  }
  if (comm.size() > 1) {
    EXPECT_GT(coverage.migrations, 0) << "no case moved a box";
    EXPECT_GT(coverage.partial_steps, 0) << "no case chose a candidate below 1";
    EXPECT_GT(coverage.refused_while_uneven, 0) << "no case found every candidate too dear";
    EXPECT_GT(pattern_changes, 0) << "no case saw the load pattern change";
  }
}

}  // namespace
}  // namespace tessera::box_policy_oracle
