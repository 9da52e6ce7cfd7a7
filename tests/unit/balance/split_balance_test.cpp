// Balancing by Δ through split points (balance/split_balance.hpp), no MPI: the step and the target
// against brute-force references on random small cases, the Morton example's interface point by
// point, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "morton_distribution/morton_distribution.hpp"
#include "tessera/balance/split_balance.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {
namespace {

using tessera_examples::MortonDistribution;

// Every split list of `ranks` over `total` indices that obeys the rules (ends 0 and total,
// nondecreasing, one index per rank when total >= ranks), by enumeration.
void feasible_splits(std::size_t ranks, index_t total, std::vector<index_t>& s, std::vector<SplitCounts>& out) {
  const index_t m = total >= static_cast<index_t>(ranks) ? 1 : 0;
  if (s.size() == ranks) {
    if (total - s.back() >= m) out.push_back(s), out.back().push_back(total);
    return;
  }
  for (index_t k = s.back() + m; k <= total; ++k) {
    s.push_back(k);
    feasible_splits(ranks, total, s, out);
    s.pop_back();
  }
}
std::vector<SplitCounts> all_feasible(std::size_t ranks, index_t total) {
  std::vector<SplitCounts> out;
  std::vector<index_t> s{0};
  feasible_splits(ranks, total, s, out);
  return out;
}

// The nearest integer to x by enumeration over [0, total]; a tie goes toward `toward`.
index_t nearest(double x, index_t toward, index_t total) {
  index_t best = 0;
  for (index_t k = 1; k <= total; ++k) {
    const double dk = std::abs(static_cast<double>(k) - x), db = std::abs(static_cast<double>(best) - x);
    if (dk < db || (dk == db && std::abs(k - toward) < std::abs(best - toward))) best = k;
  }
  return best;
}

TEST(SplitStep, MatchesBruteForceOnRandomSmallCases) {
  std::mt19937_64 rng(17);
  for (std::size_t ranks = 1; ranks <= 4; ++ranks)
    for (index_t total = 0; total <= 9; ++total) {
      const auto feasible = all_feasible(ranks, total);
      ASSERT_FALSE(feasible.empty());
      for (int trial = 0; trial < 30; ++trial) {
        const SplitCounts& c = feasible[rng() % feasible.size()];
        const SplitCounts& t = feasible[rng() % feasible.size()];
        const double delta = trial % 3 == 0 ? 1.0 : static_cast<double>(1 + rng() % 8) / 8.0;
        const SplitCounts s = step_split_counts(c, t, delta);
        // The exact step, rounded by enumeration.
        SplitCounts rounded(c.size());
        std::vector<double> x(c.size());
        for (std::size_t j = 0; j < c.size(); ++j) {
          x[j] = static_cast<double>(c[j]) + delta * static_cast<double>(t[j] - c[j]);
          rounded[j] = nearest(x[j], t[j], total);
        }
        // The answer obeys the rules, lies within half an index of the exact step everywhere (the
        // rules never need more when current and target obey them), and is the rounding itself
        // whenever that obeys the rules.
        EXPECT_NE(std::find(feasible.begin(), feasible.end(), s), feasible.end()) << "delta " << delta;
        for (std::size_t j = 0; j < s.size(); ++j)
          EXPECT_LE(std::abs(static_cast<double>(s[j]) - x[j]), 0.5) << "split " << j << " delta " << delta;
        if (std::find(feasible.begin(), feasible.end(), rounded) != feasible.end()) {
          EXPECT_EQ(s, rounded) << "delta " << delta;
        }
        if (delta == 1) {
          EXPECT_EQ(s, t);
        }
      }
    }
}

TEST(SplitStep, MovesEachSplitTheFractionDelta) {
  const SplitCounts current{0, 10, 20, 30}, target{0, 4, 26, 30};
  EXPECT_EQ(step_split_counts(current, target, 0.5), (SplitCounts{0, 7, 23, 30}));
  // 10 - 0.25 * 6 = 8.5 and 20 + 1.5 = 21.5: ties go toward the target.
  EXPECT_EQ(step_split_counts(current, target, 0.25), (SplitCounts{0, 8, 22, 30}));
  EXPECT_EQ(step_split_counts(current, target, 1.0), target);
  // A tiny step still rounds: nothing moves, the ends never do.
  EXPECT_EQ(step_split_counts(current, target, 0.01), current);
}

TEST(SplitStep, KeepsOneIndexPerRankAndStaysMonotone) {
  // A target (not from split_target_counts) that empties rank 1: the step keeps one index there.
  const SplitCounts s = step_split_counts(SplitCounts{0, 2, 4, 6}, SplitCounts{0, 3, 3, 6}, 1.0);
  EXPECT_EQ(s, (SplitCounts{0, 3, 4, 6}));
  // Fewer indices than ranks: empty ranks are allowed, but splits never decrease.
  EXPECT_EQ(step_split_counts(SplitCounts{0, 0, 1, 2}, SplitCounts{0, 2, 2, 2}, 1.0), (SplitCounts{0, 2, 2, 2}));
}

TEST(SplitTarget, MatchesBruteForceShares) {
  std::mt19937_64 rng(5);
  for (std::size_t ranks = 1; ranks <= 5; ++ranks)
    for (index_t total = 0; total <= 40; total += 7)
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> w(ranks);
        for (auto& x : w) x = static_cast<double>(rng() % 6);  // zeros included
        if (std::accumulate(w.begin(), w.end(), 0.0) == 0) w[0] = 1;
        const SplitCounts t = split_target_counts(w, total);
        ASSERT_EQ(t.size(), ranks + 1);
        EXPECT_EQ(t.front(), 0);
        EXPECT_EQ(t.back(), total);
        const double sum = std::accumulate(w.begin(), w.end(), 0.0);
        SplitCounts rounded{0};
        double before = 0;
        for (std::size_t j = 1; j < ranks; ++j) {
          before += w[j - 1];
          rounded.push_back(nearest(static_cast<double>(total) * before / sum, 0, total));
        }
        rounded.push_back(total);
        bool rounded_ok = true;  // the rules, checked directly
        for (std::size_t j = 1; j <= ranks; ++j) {
          EXPECT_LE(t[j - 1], t[j]);
          if (total >= static_cast<index_t>(ranks)) {
            EXPECT_GE(t[j] - t[j - 1], 1) << "rank " << j - 1;
          }
          rounded_ok &= rounded[j] - rounded[j - 1] >= (total >= static_cast<index_t>(ranks) ? 1 : 0);
        }
        if (rounded_ok) {
          EXPECT_EQ(t, rounded);
        }
      }
  EXPECT_EQ(split_target_counts(std::vector<double>{1, 3}, 8), (SplitCounts{0, 2, 8}));
}

TEST(SplitTarget, ThroughputOfEachRankGivesItsShare) {
  // Rank 1 took twice as long for the same indices: half the speed, half the share of the others.
  const MortonDistribution<2> m(Box<2>({0, 0}, {10, 9}), 3);
  const SplitCounts current{0, 30, 60, 90};  // speeds 30, 15, 30
  EXPECT_EQ(m.target_counts(current, std::vector<double>{1.0, 2.0, 1.0}), (SplitCounts{0, 36, 54, 90}));
}

// The owner of every point of `dist` is the rank whose count range holds the point's number along
// the Morton curve: points sorted by code, brute force.
template <std::size_t N>
void expect_owners_follow_counts(const Distribution<N>& dist, const MortonDistribution<N>& curve, const SplitCounts& counts) {
  std::vector<std::pair<std::uint64_t, Point<N>>> points;
  for_each_point(dist.domain(), [&](const Point<N>& p) { points.emplace_back(curve.morton_code(p), p); });
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 0; k < points.size(); ++k) {
    const auto r = static_cast<int>(std::upper_bound(counts.begin(), counts.end() - 1, static_cast<index_t>(k)) -
                                    counts.begin()) - 1;
    ASSERT_EQ(dist.owner(points[k].second), r) << "point number " << k;
  }
  for (int r = 0; r < dist.comm_size(); ++r) EXPECT_EQ(dist.local_size(r), counts[static_cast<std::size_t>(r) + 1] - counts[static_cast<std::size_t>(r)]);
}

TEST(SplitStep, MortonPlanMovesItsSplitCodesAndOwnership) {
  const Box<2> box({-3, 2}, {10, 11});  // 13 x 9: padded, codes with gaps
  const int P = 4;
  auto dist = Distribution<2>::user(std::make_shared<const MortonDistribution<2>>(box, P));
  const std::vector<double> seconds{3.0, 1.0, 1.0, 1.0};  // rank 0 three times slower
  for (int it = 0; it < 4; ++it) {
    const SplitStep<2> step = plan_split_step(dist, seconds, 0.5);
    EXPECT_EQ(step.current, split_counts(dist));
    EXPECT_EQ(step.stepped, step_split_counts(step.current, step.target, 0.5));
    EXPECT_EQ(step.elements, split_elements_moved(step.current, step.stepped));
    const auto* curve = dynamic_cast<const MortonDistribution<2>*>(step.to.user_distribution());
    ASSERT_NE(curve, nullptr);
    EXPECT_EQ(split_counts(step.to), step.stepped);
    expect_owners_follow_counts(step.to, *curve, step.stepped);
    dist = step.to;
  }
  // Rank 0 shrank toward a third of the others' share.
  EXPECT_LT(dist.local_size(0), dist.local_size(1));
  // The even cut rebuilt from its own codes is the same distribution (name, equality, hash).
  const MortonDistribution<2> even(box, P);
  const MortonDistribution<2> again(box, P, even.split_points());
  EXPECT_TRUE(again.equals(even));
  EXPECT_EQ(again.name(), even.name());
  EXPECT_EQ(again.hash(), even.hash());
  const auto* moved = dynamic_cast<const MortonDistribution<2>*>(dist.user_distribution());
  EXPECT_FALSE(moved->equals(even));
  EXPECT_NE(moved->name(), even.name());
}

TEST(SplitStep, BadInputIsAnError) {
  const Box<2> box({0, 0}, {8, 8});
  const auto dist = Distribution<2>::user(std::make_shared<const MortonDistribution<2>>(box, 3));
  const std::vector<double> ok{1.0, 1.0, 1.0};
  for (const double delta : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()})
    EXPECT_THROW((void)plan_split_step(dist, ok, delta), Error) << delta;
  EXPECT_THROW((void)plan_split_step(dist, std::vector<double>{1.0, 1.0}, 0.5), Error);
  EXPECT_THROW((void)plan_split_step(dist, std::vector<double>{1.0, -1.0, 1.0}, 0.5), Error);
  // Not user-defined, and user-defined without the interface (a box set).
  EXPECT_THROW((void)plan_split_step(Distribution<2>(box, ProcGrid<2>::with_shape(3, {3, 1}), {block(), block()}), ok, 0.5),
               Error);
  const auto set = Distribution<2>::from_box_set(BoxSet<2>(box, {Box<2>({0, 0}, {8, 4}), Box<2>({0, 4}, {8, 8})}, {0, 2}, 3));
  try {
    (void)plan_split_step(set, ok, 0.5);
    ADD_FAILURE() << "a distribution without split points was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("OrderedSplits"), std::string::npos) << e.what();
  }
  // The pure step: lengths, order, totals.
  EXPECT_THROW((void)step_split_counts(SplitCounts{0, 5, 9}, SplitCounts{0, 9}, 0.5), Error);
  EXPECT_THROW((void)step_split_counts(SplitCounts{0, 6, 5, 9}, SplitCounts{0, 3, 6, 9}, 0.5), Error);
  EXPECT_THROW((void)step_split_counts(SplitCounts{0, 5, 9}, SplitCounts{0, 5, 10}, 0.5), Error);
  EXPECT_THROW((void)step_split_counts(SplitCounts{0}, SplitCounts{0}, 0.5), Error);
  EXPECT_THROW((void)split_target_counts(std::vector<double>{0.0, 0.0}, 4), Error);
  // The Morton constructor from codes.
  const MortonDistribution<2> m(box, 3);
  auto codes = m.split_points();
  std::swap(codes[1], codes[2]);
  EXPECT_THROW(MortonDistribution<2>(box, 3, codes), Error);
  EXPECT_THROW(MortonDistribution<2>(box, 3, std::vector<std::uint64_t>{0, m.code_end()}), Error);
  EXPECT_THROW((void)m.position_of_index(64), Error);
}

}  // namespace
}  // namespace tessera
