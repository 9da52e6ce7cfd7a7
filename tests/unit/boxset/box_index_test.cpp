// BoxIndex against a scan of all boxes: every query box, every point, in 1-3 D, with overlapping,
// empty, thin and huge boxes (the index itself allows overlap; box sets forbid it).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "random_geometry.hpp"
#include "tessera/geometry/box_index.hpp"

namespace tessera {
namespace {

template <std::size_t N>
std::vector<std::size_t> scan_meeting(const std::vector<Box<N>>& boxes, const Box<N>& q) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < boxes.size(); ++i)
    if (!boxes[i].empty() && intersects(boxes[i], q)) out.push_back(i);
  return out;
}

template <class D>
class BoxIndexTest : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(BoxIndexTest, Dims);

TYPED_TEST(BoxIndexTest, QueriesAgreeWithAScanAndReportEachBoxOnce) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(17 + N);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<Box<N>> boxes;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) boxes.push_back(testing::random_box<N>(rng, trial % 3 == 0 ? 3 : 12));
    if (trial % 5 == 0) boxes.push_back(grow(Box<N>{}, index_t{20}));  // one box much larger than the rest
    const BoxIndex<N> index(boxes);
    for (int q = 0; q < 40; ++q) {
      const Box<N> query = testing::random_box<N>(rng, 14);
      std::map<std::size_t, int> times;
      index.for_each_meeting(query, [&](std::size_t i) { ++times[i]; });
      for (const auto& [i, k] : times) EXPECT_EQ(k, 1) << "box " << i << " reported " << k << " times";
      EXPECT_EQ(index.meeting(query), scan_meeting(boxes, query)) << "query " << query;
    }
    for (int q = 0; q < 60; ++q) {
      const Point<N> p = testing::random_point<N>(rng, 22);
      std::optional<std::size_t> first;
      for (std::size_t i = 0; i < boxes.size() && !first; ++i)
        if (contains(boxes[i], p)) first = i;
      EXPECT_EQ(index.find(p), first) << "point " << p;
    }
  }
}

TEST(BoxIndex, BinsStayLinearInTheBoxCount) {
  // Many unit boxes spread thinly over a huge extent: the bins are widened, not multiplied.
  std::vector<Box<2>> boxes;
  for (index_t i = 0; i < 100; ++i) boxes.push_back(Box<2>({i * 1000, i * 977 % 5000}, {i * 1000 + 1, i * 977 % 5000 + 1}));
  const BoxIndex<2> index(boxes);
  EXPECT_LE(index.bin_counts()[0] * index.bin_counts()[1], 4 * 100 + 64);
  for (std::size_t i = 0; i < boxes.size(); ++i) EXPECT_EQ(index.find(boxes[i].lo), i);
}

TEST(BoxIndex, EmptyIndexAnswersNothing) {
  const BoxIndex<3> index(std::vector<Box<3>>{Box<3>{}});
  EXPECT_TRUE(index.meeting(Box<3>({0, 0, 0}, {5, 5, 5})).empty());
  EXPECT_FALSE(index.find(Point<3>{0, 0, 0}).has_value());
}

}  // namespace
}  // namespace tessera
