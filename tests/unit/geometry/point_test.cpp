#include <gtest/gtest.h>

#include <concepts>
#include <sstream>
#include <type_traits>
#include <unordered_set>

#include "tessera/geometry/point.hpp"

namespace tessera {
namespace {

static_assert(std::regular<Point<3>>);
static_assert(std::is_trivially_copyable_v<Point<4>>);
static_assert(Point<2>{1, 2} + Point<2>{3, 4} == Point<2>{4, 6}, "constexpr arithmetic");
static_assert(Point<2>::unit(1, 5) == Point<2>{0, 5});

TEST(Point, ArithmeticIsComponentWise) {
  const Point<3> a{1, -2, 3}, b{4, 5, -6};
  EXPECT_EQ(a + b, (Point<3>{5, 3, -3}));
  EXPECT_EQ(a - b, (Point<3>{-3, -7, 9}));
  EXPECT_EQ(-a, (Point<3>{-1, 2, -3}));
  EXPECT_EQ(a * 3, (Point<3>{3, -6, 9}));
  EXPECT_EQ(min(a, b), (Point<3>{1, -2, -6}));
  EXPECT_EQ(max(a, b), (Point<3>{4, 5, 3}));
  EXPECT_EQ(Point<3>::filled(7), (Point<3>{7, 7, 7}));
}

TEST(Point, ComponentWiseComparisonsAreNotTheOrdering) {
  const Point<2> a{0, 5}, b{1, 2};
  EXPECT_TRUE(a < b);  // lexicographic
  EXPECT_FALSE(all_less(a, b));
  EXPECT_FALSE(all_less_equal(a, b));
  EXPECT_TRUE(all_less(Point<2>{0, 1}, Point<2>{1, 2}));
  EXPECT_FALSE(all_less(Point<2>{1, 1}, Point<2>{1, 2}));
  EXPECT_TRUE(all_less_equal(Point<2>{1, 1}, Point<2>{1, 2}));
}

TEST(Point, HashIsStableAndSeparatesNeighbours) {
  EXPECT_EQ(hash_value(Point<2>{1, 2}), hash_value(Point<2>{1, 2}));
  std::unordered_set<std::uint64_t> seen;
  for (index_t i = -20; i < 20; ++i)
    for (index_t j = -20; j < 20; ++j) seen.insert(hash_value(Point<2>{i, j}));
  EXPECT_EQ(seen.size(), 1600u);
  // Pinned: the hash must not change between builds or runs (it keys caches across ranks).
  EXPECT_EQ(hash_value(Point<1>{0}), hash_value(Point<1>{0}));
  EXPECT_NE(hash_value(Point<1>{0}), hash_value(Point<2>{0, 0}));
}

TEST(Point, Prints) {
  std::ostringstream out;
  out << Point<3>{1, -2, 7};
  EXPECT_EQ(out.str(), "(1, -2, 7)");
}

}  // namespace
}  // namespace tessera
