// Policies and weights on recorded timing traces, no MPI: the decisions are pinned so that a
// change of behaviour shows up here first.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "tessera/balance/emulated_load.hpp"
#include "tessera/balance/policy.hpp"
#include "tessera/balance/weights.hpp"

namespace tessera {
namespace {

TEST(Weights, D3arcFormulaOne) {
  // Fastest gets ub, slowest lb, linearly between (D3-ARC formula (1)).
  const auto w = d3arc_weights({2.0, 1.0, 1.5, 1.0}, 1.0, 1.5);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_DOUBLE_EQ(w[0], 1.0);
  EXPECT_DOUBLE_EQ(w[1], 1.5);
  EXPECT_DOUBLE_EQ(w[2], 1.25);
  EXPECT_DOUBLE_EQ(w[3], 1.5);
  EXPECT_EQ(d3arc_weights({3.0, 3.0}, 1.0, 1.5), (std::vector<double>{1.0, 1.0}));
  EXPECT_THROW((void)d3arc_weights({}, 1, 1.5), Error);
  EXPECT_THROW((void)d3arc_weights({1.0, -1.0}, 1, 1.5), Error);
  EXPECT_THROW((void)d3arc_weights({1.0}, 0, 1.5), Error);
  EXPECT_THROW((void)d3arc_weights({1.0}, 2, 1.5), Error);
  EXPECT_THROW((void)d3arc_weights({std::nan("")}, 1, 1.5), Error);
}

TEST(Weights, InverseTimeAndThroughput) {
  EXPECT_EQ(inverse_time_weights({2.0, 4.0, 0.0}), (std::vector<double>{0.5, 0.25, 0.5}));
  // Speeds: work / time; a rank with no work gets the mean speed of the others.
  EXPECT_EQ(throughput_weights({2.0, 1.0, 0.0}, {100, 100, 0}), (std::vector<double>{50, 100, 75}));
  // Even times after a rebalance keep the shares (the fixed point d3arc_weights lacks).
  const auto speeds = throughput_weights({1.0, 1.0}, {40, 80});
  EXPECT_DOUBLE_EQ(speeds[1] / speeds[0], 2.0);
  EXPECT_THROW((void)throughput_weights({1.0}, {1.0, 2.0}), Error);
}

TEST(History, TrimmedMeanAndLinearFit) {
  MigrationHistory h;
  EXPECT_TRUE(std::isnan(h.trimmed_unit_cost()));
  h.add({5, 0.1, 10, 1000, 1.0});   // 0.1 s/block
  h.add({10, 0.1, 10, 1000, 3.0});  // 0.3
  EXPECT_DOUBLE_EQ(h.trimmed_unit_cost(), 0.2);  // fewer than three: plain mean
  h.add({15, 0.1, 10, 1000, 2.0});  // 0.2
  h.add({20, 0.1, 10, 1000, 9.0});  // 0.9: dropped as the largest, 0.1 as the smallest
  EXPECT_DOUBLE_EQ(h.trimmed_unit_cost(), 0.25);
  MigrationHistory lin;
  lin.add({1, 1, 1, 1000, 0.002 + 1000 * 1e-6});
  lin.add({2, 1, 1, 3000, 0.002 + 3000 * 1e-6});
  lin.add({3, 1, 1, 5000, 0.002 + 5000 * 1e-6});
  const auto fit = lin.linear_cost();
  EXPECT_NEAR(fit.latency, 0.002, 1e-12);
  EXPECT_NEAR(fit.seconds_per_byte, 1e-6, 1e-15);
  EXPECT_DOUBLE_EQ(fit(0), 0.0);
  EXPECT_DOUBLE_EQ(payback_iterations(1.0, 0.1), 10.0);
  EXPECT_EQ(payback_iterations(1.0, 0.0), std::numeric_limits<double>::infinity());
}

// A synthetic machine: 4 ranks with speeds `speed`, 1000 elements; a step of Δ moves the shares a
// fraction Δ toward proportional-to-speed, costing 1 ms + 1 µs per element moved.
struct Trace {
  std::vector<double> speed{1, 1, 1, 0.5};
  std::vector<double> share{250, 250, 250, 250};
  MigrationHistory history;
  int iteration = 0;

  BalanceView view() {
    BalanceView v;
    v.iteration = iteration;
    v.interval = 5;
    double total = 0, mean = 0;
    for (double s : speed) total += s;
    for (std::size_t i = 0; i < share.size(); ++i) {
      v.seconds.push_back(share[i] / speed[i] / 1000);
      v.speeds.push_back(speed[i] * 1000);
      mean += v.seconds.back() / 4;
    }
    v.iteration_seconds = *std::max_element(v.seconds.begin(), v.seconds.end());
    v.imbalance = v.iteration_seconds / mean - 1;
    v.history = &history;
    v.preview = [this, total, now = v.iteration_seconds](double delta) {
      StepPreview p;
      p.delta = delta;
      double moved = 0;
      for (std::size_t i = 0; i < share.size(); ++i) {
        const double next = share[i] + delta * (1000 * speed[i] / total - share[i]);
        moved += std::max(0.0, share[i] - next);
        p.predicted_seconds = std::max(p.predicted_seconds, next / speed[i] / 1000);
      }
      p.blocks = static_cast<std::int64_t>(std::llround(moved));
      p.bytes = static_cast<std::uint64_t>(p.blocks) * 8;
      p.gain = now - p.predicted_seconds;
      return p;
    };
    return v;
  }
  void apply(BalancePolicy& policy, double delta) {
    if (delta <= 0) return;
    auto v = view();
    const StepPreview p = v.preview(delta);
    double total = 0;
    for (double s : speed) total += s;
    for (std::size_t i = 0; i < share.size(); ++i) share[i] += delta * (1000 * speed[i] / total - share[i]);
    const MigrationRecord r{iteration, delta, p.blocks, p.bytes, 1e-3 + 1e-6 * static_cast<double>(p.blocks)};
    history.add(r);
    policy.observe(r);
  }
  // Runs `remaps` remap points and returns the Δs chosen.
  std::vector<double> run(BalancePolicy& policy, int remaps) {
    std::vector<double> deltas;
    for (int k = 0; k < remaps; ++k) {
      iteration += 5;
      const double d = policy.decide(view());
      deltas.push_back(d);
      apply(policy, d);
    }
    return deltas;
  }
};

TEST(Policies, NoneAndStatic) {
  Trace t;
  NoRebalancing none;
  EXPECT_EQ(t.run(none, 3), (std::vector<double>{0, 0, 0}));
  Trace u;
  StaticDelta half(0.5);
  const auto d = u.run(half, 8);
  EXPECT_EQ(d[0], 0.5);
  EXPECT_EQ(d.back(), 0.0) << "converged within the tolerance, so it stops";
  EXPECT_EQ(half.name(), "static-0.5");
  EXPECT_EQ(StaticDelta(1.0).name(), "full");
  EXPECT_THROW(StaticDelta(1.5), Error);
  EXPECT_THROW(StaticDelta(0.5, -1), Error);
}

TEST(Policies, D3arcAdaptiveLearnsAndShrinksDeltaWhenMovesAreDear) {
  Trace t;
  D3arcAdaptiveDelta adaptive(0.3);
  const auto d = t.run(adaptive, 6);
  EXPECT_EQ(d[0], 0.3) << "first migration: the initial delta";
  EXPECT_GT(d[1], 0.0);
  // Make migrations 1000x dearer: the estimated cost now exceeds the gain, Δ shrinks to nothing.
  Trace dear;
  for (int k = 0; k < 3; ++k) dear.history.add({k, 0.3, 10, 80, 10.0});
  D3arcAdaptiveDelta careful(0.3);
  EXPECT_EQ(careful.decide(dear.view()), 0.0);
}

// A dear first migration (cold: it also built the schedules) must not stop the policy for good:
// until three migrations are measured it probes with min_delta, and once the cheap ones outnumber
// the outlier the trimmed mean drops it and Δ grows back.
TEST(Policies, D3arcAdaptiveProbesUntilThreeMigrationsAreMeasured) {
  Trace t;
  t.history.add({0, 0.3, 10, 80, 10.0});  // 1 s per block: far above any gain here
  D3arcAdaptiveDelta adaptive(0.3, 0.05, 0.05);
  const double probe = adaptive.decide(t.view());
  EXPECT_EQ(probe, 0.05) << "one measurement: a probe, not a refusal";
  t.apply(adaptive, probe);
  EXPECT_EQ(adaptive.decide(t.view()), 0.05) << "two measurements: still a probe";
  t.apply(adaptive, 0.05);
  // Three measured: the trimmed mean drops the dear one and the probes' cost is what it sees.
  const auto later = t.run(adaptive, 3);
  EXPECT_GT(later[0], 0.05) << "the outlier trimmed: Δ grows again";
  // Three dear measurements are trusted: nothing moves (the dear case of the test above).
  Trace dear;
  for (int k = 0; k < 3; ++k) dear.history.add({k, 0.3, 10, 80, 10.0});
  D3arcAdaptiveDelta careful(0.3);
  EXPECT_EQ(careful.decide(dear.view()), 0.0);
}

TEST(Policies, AmortisedMovesOnlyWhenItPaysBack) {
  // Full step: ~857 bytes move and the slowest rank goes from 0.5 s to 0.286 s per iteration.
  Trace t;
  AmortisedDelta quick(20);
  EXPECT_EQ(quick.decide(t.view()), 1.0);  // the prior (1 ms + 1 ns/byte) pays back at once
  // Migrations measured at 6.25 ms per byte: ~5.4 s, paid back in ~25 iterations.
  t.history.add({0, 1, 100, 800, 5.0});
  t.history.add({1, 1, 200, 1600, 10.0});
  EXPECT_EQ(quick.decide(t.view()), 0.0);
  AmortisedDelta patient(30);
  EXPECT_EQ(patient.decide(t.view()), 1.0);
  EXPECT_EQ(patient.name(), "amortised-30");
  EXPECT_THROW(AmortisedDelta(0), Error);
}

TEST(Policies, HorizonGrowsWithTheAgeOfTheLoad) {
  Trace t;
  t.history.add({0, 1, 100, 800, 5.0});  // dear migrations: 6.25 ms per byte
  t.history.add({1, 1, 200, 1600, 10.0});
  HorizonPolicy horizon;
  // A fresh load (age 0 -> horizon 10): a full step saves 0.21 s per iteration, 2.1 s over the
  // horizon, and costs ~5.4 s; smaller steps save less than they cost too: stay.
  t.iteration = 5;
  EXPECT_EQ(horizon.decide(t.view()), 0.0);
  // The same load 200 iterations later: expected to last 200 more, the move pays.
  t.iteration = 205;
  EXPECT_GT(horizon.decide(t.view()), 0.0);
  EXPECT_EQ(horizon.pattern_age(205), 200);
}

TEST(Policies, ByName) {
  EXPECT_EQ(make_policy("none")->name(), "none");
  EXPECT_EQ(make_policy("full")->name(), "full");
  EXPECT_EQ(make_policy("static-0.3")->name(), "static-0.3");
  EXPECT_EQ(make_policy("d3arc-adaptive")->name(), "d3arc-adaptive");
  EXPECT_EQ(make_policy("d3arc-adaptive-0.3")->name(), "d3arc-adaptive");  // the default start
  EXPECT_EQ(make_policy("d3arc-adaptive-0.7")->name(), "d3arc-adaptive-0.7");
  EXPECT_THROW((void)make_policy("d3arc-adaptive-1.5"), Error);
  EXPECT_EQ(make_policy("amortised-20")->name(), "amortised-20");
  EXPECT_EQ(make_policy("horizon")->name(), "horizon");
  EXPECT_THROW((void)make_policy("static-"), Error);
  EXPECT_THROW((void)make_policy("static-0.3x"), Error);
  EXPECT_THROW((void)make_policy("static-2"), Error);
  EXPECT_THROW((void)make_policy("sometimes"), Error);
}

TEST(EmulatedLoad, ParsesAndFactors) {
  const auto load = EmulatedLoad::parse("1:2@10-20,2:3@15-30,1:1.5@18-19");
  EXPECT_EQ(load.factor(0, 12), 1.0);
  EXPECT_EQ(load.factor(1, 9), 1.0);
  EXPECT_EQ(load.factor(1, 10), 2.0);
  EXPECT_EQ(load.factor(1, 18), 3.0);
  EXPECT_EQ(load.factor(1, 20), 1.0);
  EXPECT_EQ(load.factor(2, 29), 3.0);
  std::ostringstream text;
  text << load;
  EXPECT_EQ(text.str(), "1:2@10-20,2:3@15-30,1:1.5@18-19");
  EXPECT_TRUE(EmulatedLoad::parse("none").periods().empty());
  EXPECT_THROW((void)EmulatedLoad::parse("1:2@10"), Error);
  EXPECT_THROW((void)EmulatedLoad::parse("1:0.5@1-2"), Error);
  EXPECT_THROW((void)EmulatedLoad::parse("-1:2@1-2"), Error);
  EXPECT_THROW((void)EmulatedLoad::parse("1:2@5-2"), Error);
  EXPECT_THROW((void)EmulatedLoad::parse("1:2@1-2x"), Error);
  EXPECT_EQ(load.slow_down(0, 12, 0.5), 0.0);
}

}  // namespace
}  // namespace tessera
