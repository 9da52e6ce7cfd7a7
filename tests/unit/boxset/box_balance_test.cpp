// Incremental box balancing and assignment quality against brute force: the step equals a plain
// re-implementation of the greedy rule (every candidate re-evaluated before every move), steps of
// growing Δ extend each other, the goal is reached unless no move helps, previews and quality
// counts equal direct computations, and bad input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "random_box_set.hpp"
#include "random_geometry.hpp"
#include "tessera/balance/box_balance.hpp"

namespace tessera {
namespace {

template <class D>
class BoxBalanceTest : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(BoxBalanceTest, Dims);

template <std::size_t N>
std::vector<Box<N>> balance_case_boxes(std::mt19937_64& rng) {
  return testing::random_policy_boxes<N>(rng);
}

/// A random case: boxes, per-box weights (some 0), a random current assignment over `ranks`.
template <std::size_t N>
struct Case {
  std::vector<Box<N>> boxes;
  std::vector<double> weights;
  std::vector<int> current, target;
  int ranks = 1;
};

template <std::size_t N>
Case<N> random_case(std::mt19937_64& rng) {
  Case<N> c;
  c.boxes = balance_case_boxes<N>(rng);
  c.ranks = 1 + static_cast<int>(rng() % 6);
  for (const auto& b : c.boxes) {
    c.weights.push_back(rng() % 7 == 0 ? 0.0 : static_cast<double>(volume(b)) * (0.5 + static_cast<double>(rng() % 100) / 50));
    // Skewed: low ranks get more boxes, so that there is an imbalance to remove.
    int owner = static_cast<int>(rng() % static_cast<unsigned>(c.ranks));
    if (rng() % 2 == 0) owner /= 2;
    c.current.push_back(owner);
  }
  c.target = assign_knapsack<N>(c.boxes, c.ranks, c.weights);
  return c;
}

/// The greedy rule written plainly: before every move, every remaining candidate's gain per cell
/// is computed afresh and the best (lowest index on ties) moves, until Δ of the excess is removed
/// or the best gain is negligible.
template <std::size_t N>
std::vector<std::size_t> plain_greedy(const Case<N>& c, double delta, std::uint64_t max_cells = no_cell_budget) {
  std::vector<int> owners = c.current;
  std::vector<double> load(static_cast<std::size_t>(c.ranks), 0.0);
  double total = 0;
  for (std::size_t i = 0; i < c.boxes.size(); ++i) load[static_cast<std::size_t>(owners[i])] += c.weights[i], total += c.weights[i];
  const double mean = total / c.ranks;
  double excess = 0;
  for (const double l : load) excess += std::max(0.0, l - mean);
  std::vector<std::size_t> moved;
  if (delta >= 1 && max_cells == no_cell_budget) {
    for (std::size_t i = 0; i < c.boxes.size(); ++i)
      if (c.current[i] != c.target[i]) moved.push_back(i);
    return moved;
  }
  std::uint64_t cells = 0;  // a budget leaves out the boxes that no longer fit in it
  const auto over = [&](double l) { return std::max(0.0, l - mean); };
  double removed = 0;
  while (removed < delta * excess) {
    double best_key = -std::numeric_limits<double>::infinity(), best_gain = 0;
    std::size_t best = c.boxes.size();
    for (std::size_t i = 0; i < c.boxes.size(); ++i) {
      if (owners[i] == c.target[i] || static_cast<std::uint64_t>(volume(c.boxes[i])) > max_cells - cells) continue;
      const auto f = static_cast<std::size_t>(owners[i]), t = static_cast<std::size_t>(c.target[i]);
      const double g = over(load[f]) + over(load[t]) - over(load[f] - c.weights[i]) - over(load[t] + c.weights[i]);
      const double key = g / static_cast<double>(volume(c.boxes[i]));
      if (key > best_key) best_key = key, best_gain = g, best = i;
    }
    if (best == c.boxes.size() || best_gain <= 1e-12 * std::max(total, 1.0)) break;
    load[static_cast<std::size_t>(owners[best])] -= c.weights[best];
    load[static_cast<std::size_t>(c.target[best])] += c.weights[best];
    owners[best] = c.target[best];
    cells += static_cast<std::uint64_t>(volume(c.boxes[best]));
    removed += best_gain;
    moved.push_back(best);
  }
  return moved;
}

TYPED_TEST(BoxBalanceTest, StepIsTheGreedyRuleAndGrowsWithDelta) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(11 + N);
  const double deltas[] = {0.0, 0.1, 0.3, 0.5, 0.8, 0.99, 1.0};
  for (int trial = 0; trial < 40; ++trial) {
    const Case<N> c = random_case<N>(rng);
    std::vector<std::size_t> previous;
    for (const double delta : deltas) {
      SCOPED_TRACE(::testing::Message() << "trial " << trial << " delta " << delta << " ranks " << c.ranks);
      const auto step = incremental_box_step<N>(c.boxes, c.current, c.target, c.ranks, delta, c.weights);
      std::vector<std::size_t> moved;
      std::uint64_t cells = 0;
      std::vector<int> owners = c.current;
      for (const BoxMove& m : step.moves) {
        moved.push_back(m.box);
        EXPECT_EQ(m.from, c.current[m.box]);
        EXPECT_EQ(m.to, c.target[m.box]);
        owners[m.box] = m.to;
        cells += static_cast<std::uint64_t>(volume(c.boxes[m.box]));
      }
      EXPECT_EQ(step.owners, owners);
      EXPECT_EQ(step.cells, cells);
      if (delta < 1) {
        EXPECT_EQ(moved, plain_greedy(c, delta));
        // A larger Δ continues the same sequence of moves.
        ASSERT_GE(moved.size(), previous.size());
        EXPECT_TRUE(std::equal(previous.begin(), previous.end(), moved.begin()));
        EXPECT_LE(step.excess_after, step.excess_before + 1e-9);
        // The goal is met, or no remaining move removes any excess.
        if (step.excess_before - step.excess_after < delta * step.excess_before - 1e-9) {
          const auto more = incremental_box_step<N>(c.boxes, step.owners, c.target, c.ranks, 0.99, c.weights);
          EXPECT_TRUE(more.moves.empty()) << "stopped short of the goal with a useful move left";
        }
      } else {
        EXPECT_EQ(step.owners, c.target);
      }
      if (delta == 0) {
        EXPECT_TRUE(step.moves.empty());
      }
      previous = moved;
    }
  }
}

// Δ as a byte budget: the step is the greedy rule over the boxes that still fit, never moves more
// cells than the budget, and a budget that holds every differing box changes nothing; the preview
// counts the same step.
TYPED_TEST(BoxBalanceTest, AByteBudgetMovesTheBestBoxesThatFit) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(41 + N);
  int budget_bound = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Case<N> c = random_case<N>(rng);
    std::uint64_t differing = 0;
    for (std::size_t i = 0; i < c.boxes.size(); ++i)
      if (c.current[i] != c.target[i]) differing += static_cast<std::uint64_t>(volume(c.boxes[i]));
    for (const double delta : {0.3, 0.7, 1.0}) {
      const std::uint64_t budget = differing * (rng() % 4) / 4;  // 0, 1/4, 1/2, 3/4 of what differs
      SCOPED_TRACE(::testing::Message() << "trial " << trial << " delta " << delta << " budget " << budget);
      const auto step = incremental_box_step<N>(c.boxes, c.current, c.target, c.ranks, delta, c.weights, budget);
      std::vector<std::size_t> moved;
      for (const BoxMove& m : step.moves) moved.push_back(m.box);
      EXPECT_EQ(moved, plain_greedy(c, delta, budget));
      EXPECT_LE(step.cells, budget);
      EXPECT_LE(step.excess_after, step.excess_before + 1e-9);
      const auto free = incremental_box_step<N>(c.boxes, c.current, c.target, c.ranks, delta, c.weights);
      if (free.cells > budget && !step.moves.empty()) ++budget_bound;  // the budget bound, and still moved
      const StepPreview p = box_step_preview<N>(c.boxes, c.current, c.target, c.ranks, c.weights, 8, delta, budget);
      EXPECT_EQ(p.bytes, step.cells * 8);
      EXPECT_EQ(p.blocks, static_cast<std::int64_t>(step.moves.size()));
      // A budget that holds every differing box: the same step as none (Δ < 1; Δ = 1 with a budget
      // leaves the boxes that remove no excess where they are).
      if (delta < 1) {
        const auto roomy = incremental_box_step<N>(c.boxes, c.current, c.target, c.ranks, delta, c.weights, differing);
        EXPECT_EQ(roomy.owners, free.owners);
      }
    }
  }
  EXPECT_GT(budget_bound, 10);  // cases where the budget cut a step short and a smaller one was taken
}

TYPED_TEST(BoxBalanceTest, PreviewAndQualityEqualDirectCounts) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(23 + N);
  for (int trial = 0; trial < 25; ++trial) {
    const Case<N> c = random_case<N>(rng);
    const auto step = incremental_box_step<N>(c.boxes, c.current, c.target, c.ranks, 0.5, c.weights);
    const StepPreview p = box_step_preview<N>(c.boxes, c.current, c.target, c.ranks, c.weights, 4, 0.5);
    std::vector<double> before(static_cast<std::size_t>(c.ranks)), after(static_cast<std::size_t>(c.ranks));
    for (std::size_t i = 0; i < c.boxes.size(); ++i) {
      before[static_cast<std::size_t>(c.current[i])] += c.weights[i];
      after[static_cast<std::size_t>(step.owners[i])] += c.weights[i];
    }
    EXPECT_EQ(p.blocks, static_cast<std::int64_t>(step.moves.size()));
    EXPECT_EQ(p.bytes, step.cells * 4);
    EXPECT_DOUBLE_EQ(p.predicted_seconds, *std::max_element(after.begin(), after.end()));
    EXPECT_DOUBLE_EQ(p.gain, *std::max_element(before.begin(), before.end()) - p.predicted_seconds);

    // Quality by brute force: every pair of boxes.
    const index_t width = static_cast<index_t>(rng() % 3);
    const auto q = assignment_quality<N>(c.boxes, step.owners, c.ranks, c.current, width, 8);
    std::uint64_t halo = 0, moved_bytes = 0;
    std::set<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < c.boxes.size(); ++i)
      for (std::size_t j = 0; j < c.boxes.size(); ++j) {
        if (i == j || step.owners[i] == step.owners[j]) continue;
        const auto cells = volume(intersect(grow(c.boxes[i], width), c.boxes[j]));
        if (cells == 0) continue;
        halo += static_cast<std::uint64_t>(cells);
        pairs.emplace(std::min(step.owners[i], step.owners[j]), std::max(step.owners[i], step.owners[j]));
      }
    std::vector<std::int64_t> cells_before(static_cast<std::size_t>(c.ranks)), cells_after(static_cast<std::size_t>(c.ranks));
    for (std::size_t i = 0; i < c.boxes.size(); ++i) {
      cells_before[static_cast<std::size_t>(c.current[i])] += volume(c.boxes[i]);
      cells_after[static_cast<std::size_t>(step.owners[i])] += volume(c.boxes[i]);
      if (c.current[i] != step.owners[i]) moved_bytes += 8 * static_cast<std::uint64_t>(volume(c.boxes[i]));
    }
    std::uint64_t minimum = 0;
    for (int r = 0; r < c.ranks; ++r)
      minimum += 8 * static_cast<std::uint64_t>(std::max<std::int64_t>(0, cells_before[static_cast<std::size_t>(r)] -
                                                                              cells_after[static_cast<std::size_t>(r)]));
    EXPECT_EQ(q.halo_cells, halo);
    EXPECT_EQ(q.neighbour_pairs, pairs.size());
    EXPECT_EQ(q.bytes_moved, moved_bytes);
    EXPECT_EQ(q.minimum_bytes, minimum);
    EXPECT_LE(q.minimum_bytes, q.bytes_moved);
    EXPECT_DOUBLE_EQ(q.max_over_mean, max_over_mean_load<N>(c.boxes, step.owners, c.ranks));
  }
}

TYPED_TEST(BoxBalanceTest, AdaptivePolicyDecidesOnBoxSteps) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(5 + N);
  for (int trial = 0; trial < 20; ++trial) {
    // D3-ARC's adaptive Δ sees box steps through the preview, as it sees cut steps: with a measured
    // cost per box it halves Δ until the boxes' cost fits in what the step saves over the interval.
    Case<N> c;
    BalanceView view;
    view.interval = 10;
    view.preview = [&](double delta) {
      return box_step_preview<N>(c.boxes, c.current, c.target, c.ranks, c.weights, 8, delta);
    };
    do c = random_case<N>(rng);  // imbalanced, and the target helps (one huge box may make it not)
    while (c.ranks < 2 || max_over_mean_load<N>(c.boxes, c.current, c.ranks, c.weights) < 1.3 ||
           view.preview(1.0).gain <= 0);
    view.imbalance = max_over_mean_load<N>(c.boxes, c.current, c.ranks, c.weights) - 1;
    const StepPreview full = view.preview(1.0);
    MigrationHistory history;
    const double unit = full.gain * view.interval / static_cast<double>(full.blocks) * (1 + static_cast<double>(rng() % 8));
    for (int k = 0; k < 3; ++k) history.add({k, 1.0, 10, 80, 10 * unit});
    view.history = &history;
    D3arcAdaptiveDelta policy(1.0, 0.05, 1.0 / 64);
    const double delta = policy.decide(view);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " delta " << delta);
    const auto fits = [&](double d) {
      const StepPreview p = view.preview(d);
      return static_cast<double>(p.blocks) * unit <= p.gain * view.interval;
    };
    if (delta > 0) {
      EXPECT_TRUE(fits(delta));
      if (delta < 1) {
        EXPECT_FALSE(fits(2 * delta));
      }
    } else {
      for (double d = 1.0; d >= 1.0 / 64; d /= 2) EXPECT_FALSE(fits(d)) << "at " << d;
    }
  }
}

TEST(BoxBalance, BadInputIsRefused) {
  const std::vector<Box<2>> boxes = {Box<2>({0, 0}, {2, 2}), Box<2>({2, 0}, {4, 2})};
  const std::vector<int> owners = {0, 0}, target = {0, 1};
  EXPECT_THROW((void)incremental_box_step<2>(boxes, owners, target, 2, -0.1), Error);
  EXPECT_THROW((void)incremental_box_step<2>(boxes, owners, target, 2, 1.5), Error);
  EXPECT_THROW((void)incremental_box_step<2>(boxes, owners, target, 2, std::nan("")), Error);
  EXPECT_THROW((void)incremental_box_step<2>(boxes, std::vector<int>{0}, target, 2, 0.5), Error);
  EXPECT_THROW((void)incremental_box_step<2>(boxes, owners, std::vector<int>{0, 2}, 2, 0.5), Error);
  EXPECT_THROW((void)incremental_box_step<2>(boxes, owners, target, 0, 0.5), Error);
  EXPECT_THROW((void)incremental_box_step<2>(boxes, owners, target, 2, 0.5, {1.0, -1.0}), Error);
  EXPECT_THROW((void)assignment_quality<2>(boxes, owners, 2, {}, -1), Error);
  EXPECT_THROW((void)assignment_quality<2>(boxes, owners, 2, std::vector<int>{5, 0}), Error);
  try {
    (void)incremental_box_step<2>(boxes, owners, target, 2, 1.5);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("delta"), std::string::npos) << e.what();
  }
  // Two boxes, both on rank 0, one to move: Δ = 1/2 removes the whole excess with that one move.
  const auto step = incremental_box_step<2>(boxes, owners, target, 2, 0.5);
  ASSERT_EQ(step.moves.size(), 1U);
  EXPECT_EQ(step.moves[0].box, 1U);
  EXPECT_DOUBLE_EQ(step.excess_before, 4.0);
  EXPECT_DOUBLE_EQ(step.excess_after, 0.0);
}

}  // namespace
}  // namespace tessera
