// Assignment policies and chopping against brute force: chopped pieces tile the boxes within the
// size limit; knapsack equals a plain re-implementation and keeps the greedy bound; Morton runs are
// contiguous along an independently computed curve and hold about equal weight; the Hilbert order
// steps to a face neighbour every time on a full grid, and its runs are contiguous and balanced.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "random_box_set.hpp"
#include "random_geometry.hpp"
#include "tessera/layout/box_assignment.hpp"

namespace tessera {
namespace {

template <class D>
class BoxAssignmentTest : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(BoxAssignmentTest, Dims);

template <std::size_t N>
std::vector<Box<N>> some_boxes(std::mt19937_64& rng) {
  return testing::random_policy_boxes<N>(rng);
}

TYPED_TEST(BoxAssignmentTest, ChoppedPiecesTileEachBoxWithinTheLimit) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(7 + N);
  for (int trial = 0; trial < 30; ++trial) {
    const auto boxes = some_boxes<N>(rng);
    Point<N> limit;
    for (std::size_t d = 0; d < N; ++d) limit[d] = 1 + static_cast<index_t>(rng() % 6);
    const auto pieces = chop_boxes(boxes, limit);
    std::map<Point<N>, int> seen;
    for (const auto& p : pieces) {
      ASSERT_FALSE(p.empty());
      for (std::size_t d = 0; d < N; ++d) EXPECT_LE(extent(p, d), limit[d]) << p;
      for_each_point(p, [&](const Point<N>& q) { ++seen[q]; });
    }
    std::map<Point<N>, int> expected;
    for (const auto& b : boxes) for_each_point(b, [&](const Point<N>& q) { ++expected[q]; });
    EXPECT_EQ(seen, expected);
    // Fewest pieces: ceil(extent / limit) per axis.
    std::size_t count = 0;
    for (const auto& b : boxes) {
      std::size_t k = 1;
      for (std::size_t d = 0; d < N; ++d) k *= static_cast<std::size_t>((extent(b, d) + limit[d] - 1) / limit[d]);
      count += k;
    }
    EXPECT_EQ(pieces.size(), count);
  }
  EXPECT_THROW((void)chop_boxes(std::vector<Box<N>>{}, Point<N>::filled(0)), Error);
}

TYPED_TEST(BoxAssignmentTest, KnapsackIsTheGreedyRule) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(31 + N);
  for (int trial = 0; trial < 30; ++trial) {
    const auto boxes = some_boxes<N>(rng);
    const int P = 1 + static_cast<int>(rng() % 6);
    std::vector<double> weights;
    if (trial % 2) for (std::size_t i = 0; i < boxes.size(); ++i) weights.push_back(static_cast<double>(rng() % 10));
    const auto owners = assign_knapsack<N>(boxes, P, weights);
    // Plain re-implementation: sort by weight (stable), scan the ranks for the least loaded.
    std::vector<double> w(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) w[i] = weights.empty() ? static_cast<double>(volume(boxes[i])) : weights[i];
    std::vector<std::size_t> order(boxes.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return w[a] > w[b]; });
    std::vector<double> load(static_cast<std::size_t>(P), 0.0);
    for (std::size_t i : order) {
      const auto r = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      EXPECT_EQ(owners[i], static_cast<int>(r)) << "box " << i;
      load[r] += w[i];
    }
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    const double heaviest = w.empty() ? 0 : *std::max_element(w.begin(), w.end());
    EXPECT_LE(*std::max_element(load.begin(), load.end()), total / P + heaviest + 1e-9);
    if (total > 0) {
      EXPECT_NEAR(max_over_mean_load<N>(boxes, owners, P, weights), *std::max_element(load.begin(), load.end()) / (total / P), 1e-12);
    }
  }
}

// Morton code of the doubled centre, by testing bits one at a time (independent of the library's loop).
template <std::size_t N>
std::uint64_t reference_code(const Box<N>& b, const Point<N>& origin) {
  std::uint64_t code = 0;
  int out = 0;
  for (int level = 0; level < 62 / static_cast<int>(N); ++level)
    for (std::size_t d = N; d-- > 0;) {
      const auto q = static_cast<std::uint64_t>(b.lo[d] + b.hi[d] - 2 * origin[d]);
      if ((q >> level) & 1U) code |= std::uint64_t{1} << out;
      ++out;
    }
  return code;
}

/// Owners of a space-filling-curve policy: sorted by `code_of(box, bounds)` (ties: lower index), the
/// ranks never decrease along the curve, and each rank's weight is at most the mean plus the
/// heaviest box.
template <std::size_t N, class CodeOf>
void expect_equal_weight_runs(const std::vector<Box<N>>& boxes, const std::vector<int>& owners, int P,
                              const std::vector<double>& weights, CodeOf&& code_of) {
  Box<N> bounds = boxes.front();
  for (const auto& b : boxes) bounds = bounding_box(bounds, b);
  std::vector<std::pair<std::uint64_t, std::size_t>> curve;
  for (std::size_t i = 0; i < boxes.size(); ++i) curve.emplace_back(code_of(boxes[i], bounds), i);
  std::sort(curve.begin(), curve.end());
  std::vector<double> load(static_cast<std::size_t>(P), 0.0);
  for (std::size_t k = 0; k < curve.size(); ++k) {
    const std::size_t i = curve[k].second;
    if (k > 0) {
      EXPECT_LE(owners[curve[k - 1].second], owners[i]) << "runs not contiguous along the curve";
    }
    load[static_cast<std::size_t>(owners[i])] += weights[i];
  }
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  const double heaviest = *std::max_element(weights.begin(), weights.end());
  for (double l : load) EXPECT_LE(l, total / P + heaviest + 1e-9);
}

TYPED_TEST(BoxAssignmentTest, MortonRunsFollowTheCurveWithEqualWeight) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(53 + N);
  for (int trial = 0; trial < 30; ++trial) {
    const auto boxes = some_boxes<N>(rng);
    if (boxes.empty()) continue;
    const int P = 1 + static_cast<int>(rng() % 6);
    const auto owners = assign_morton<N>(boxes, P);
    std::vector<double> cells;
    for (const auto& b : boxes) cells.push_back(static_cast<double>(volume(b)));
    expect_equal_weight_runs<N>(boxes, owners, P, cells,
                                [](const Box<N>& b, const Box<N>& bounds) { return reference_code(b, bounds.lo); });
    const auto set = make_box_set(boxes, P, BoxAssignment::morton);
    EXPECT_EQ(set.owners(), owners);
  }
}

// The Hilbert code, checked without the assignment: unit boxes tiling a 2^k grid (offset from the
// origin), sorted by their codes, are all different and each is a face neighbour of the one before
// (exactly one axis changes, by one) — the curve's defining property, which Morton's order lacks.
TYPED_TEST(BoxAssignmentTest, HilbertOrderStepsToAFaceNeighbourEveryTime) {
  constexpr std::size_t N = TypeParam::value;
  const index_t side = N == 1 ? 64 : N == 2 ? 16 : 8;
  const Point<N> corner = Point<N>::filled(-5);
  std::vector<Box<N>> cells;
  for_each_point(Box<N>(Point<N>::filled(0), Point<N>::filled(side)), [&](const Point<N>& p) {
    cells.push_back(Box<N>(p + corner, p + corner + Point<N>::filled(1)));
  });
  const Box<N> bounds(corner, corner + Point<N>::filled(side));
  std::vector<std::pair<std::uint64_t, std::size_t>> curve;
  for (std::size_t i = 0; i < cells.size(); ++i) curve.emplace_back(detail::hilbert_code<N>(cells[i], bounds, 0), i);
  std::sort(curve.begin(), curve.end());
  int morton_jumps = 0;
  for (std::size_t k = 1; k < curve.size(); ++k) {
    ASSERT_NE(curve[k - 1].first, curve[k].first);
    index_t steps = 0;
    for (std::size_t d = 0; d < N; ++d) steps += std::abs(cells[curve[k].second].lo[d] - cells[curve[k - 1].second].lo[d]);
    ASSERT_EQ(steps, 1) << "step " << k << ": " << cells[curve[k - 1].second] << " -> " << cells[curve[k].second];
  }
  // Morton's order on the same cells jumps (except in 1-D, where both are the line).
  std::vector<std::pair<std::uint64_t, std::size_t>> z;
  for (std::size_t i = 0; i < cells.size(); ++i) z.emplace_back(detail::morton_code<N>(cells[i], bounds, 0), i);
  std::sort(z.begin(), z.end());
  for (std::size_t k = 1; k < z.size(); ++k) {
    index_t steps = 0;
    for (std::size_t d = 0; d < N; ++d) steps += std::abs(cells[z[k].second].lo[d] - cells[z[k - 1].second].lo[d]);
    morton_jumps += steps > 1 ? 1 : 0;
  }
  EXPECT_EQ(morton_jumps > 0, N > 1);
}

TYPED_TEST(BoxAssignmentTest, HilbertRunsFollowTheCurveWithEqualWeight) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(59 + N);
  for (int trial = 0; trial < 30; ++trial) {
    const auto boxes = some_boxes<N>(rng);
    if (boxes.empty()) continue;
    const int P = 1 + static_cast<int>(rng() % 6);
    std::vector<double> weights(boxes.size());
    for (auto& w : weights) w = static_cast<double>(rng() % 5);  // zeros among them
    const auto owners = assign_hilbert<N>(boxes, P, weights);
    expect_equal_weight_runs<N>(boxes, owners, P, weights, [](const Box<N>& b, const Box<N>& bounds) {
      return detail::hilbert_code<N>(b, bounds, 0);
    });
    EXPECT_EQ(make_box_set(boxes, P, BoxAssignment::hilbert, weights).owners(), owners);
  }
}

TEST(BoxAssignment, BadWeightsAndRankCountsAreNamedErrors) {
  const std::vector<Box<2>> boxes{Box<2>({0, 0}, {2, 2}), Box<2>({2, 0}, {4, 2})};
  const std::vector<double> one{1.0}, negative{1.0, -2.0};
  EXPECT_THROW((void)assign_knapsack<2>(boxes, 2, one), Error);
  EXPECT_THROW((void)assign_morton<2>(boxes, 2, negative), Error);
  EXPECT_THROW((void)assign_knapsack<2>(boxes, 0), Error);
  EXPECT_THROW((void)make_box_set(boxes, 0, BoxAssignment::morton), Error);
  EXPECT_THROW((void)assign_hilbert<2>(boxes, 2, negative), Error);
  EXPECT_THROW((void)make_box_set(boxes, 0, BoxAssignment::hilbert), Error);
}

}  // namespace
}  // namespace tessera
