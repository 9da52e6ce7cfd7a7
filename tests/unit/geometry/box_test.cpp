#include <gtest/gtest.h>

#include <concepts>
#include <limits>
#include <sstream>
#include <type_traits>

#include "random_geometry.hpp"
#include "tessera/geometry.hpp"

namespace tessera {
namespace {

using testing::point_set;
using testing::random_box;
using testing::random_point;

static_assert(std::regular<Box<3>>);
static_assert(std::is_trivially_copyable_v<Box<2>>);
static_assert(Box<2>().empty(), "a default box is empty");
static_assert(volume(Box<2>({0, 0}, {3, 4})) == 12, "constexpr volume");
static_assert(intersect(Box<1>({0}, {5}), Box<1>({3}, {9})) == Box<1>({3}, {5}));

TEST(Box, BoundsAreHalfOpen) {
  const Box<2> b({1, 2}, {3, 5});
  EXPECT_EQ(volume(b), 6);
  EXPECT_TRUE(contains(b, Point<2>{1, 2}));
  EXPECT_TRUE(contains(b, Point<2>{2, 4}));
  EXPECT_FALSE(contains(b, Point<2>{3, 4}));
  EXPECT_FALSE(contains(b, Point<2>{2, 5}));
  EXPECT_EQ(b.last(), (Point<2>{2, 4}));
  EXPECT_EQ(Box<2>::inclusive({1, 2}, {2, 4}), b);
  EXPECT_EQ(Box<2>::from_extents({1, 2}, {2, 3}), b);
  EXPECT_EQ(Box<2>::half_open({1, 2}, {3, 5}), b);
  EXPECT_EQ(Box<2>::from_extents({2, 3}), Box<2>({0, 0}, {2, 3}));
  EXPECT_EQ(extents(b), (Point<2>{2, 3}));
}

TEST(Box, EmptyBoxesAreEqualWhateverTheirBounds) {
  const Box<2> a({5, 5}, {5, 9}), b({0, 3}, {-1, 4}), c;
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(hash_value(a), hash_value(b));
  EXPECT_EQ(volume(a), 0);
  EXPECT_EQ(extents(b), (Point<2>{0, 0}));
  EXPECT_NE(a, Box<2>({0, 0}, {1, 1}));
  EXPECT_TRUE(contains(Box<2>({0, 0}, {1, 1}), a));
  EXPECT_FALSE(contains(a, Box<2>({0, 0}, {1, 1})));
  EXPECT_FALSE(contains(a, Point<2>{5, 5}));
}

TEST(Box, GrowShrinkAndShift) {
  const Box<2> b({0, 0}, {4, 6});
  EXPECT_EQ(grow(b, 1), Box<2>({-1, -1}, {5, 7}));
  EXPECT_EQ(shrink(b, 1), Box<2>({1, 1}, {3, 5}));
  EXPECT_EQ(grow(b, -1), shrink(b, 1));
  EXPECT_EQ(grow(b, Point<2>{1, 0}), Box<2>({-1, 0}, {5, 6}));
  EXPECT_EQ(grow(b, Point<2>{1, 2}, Point<2>{3, 0}), Box<2>({-1, -2}, {7, 6}));
  EXPECT_EQ(grow_side(b, 1, -1, 2), Box<2>({0, -2}, {4, 6}));
  EXPECT_EQ(grow_side(b, 0, +1, 2), Box<2>({0, 0}, {6, 6}));
  EXPECT_TRUE(shrink(b, 2).empty());  // 4 rows shrunk by 2 on both sides
  EXPECT_TRUE(grow(Box<2>(), 3).empty());  // growing nothing yields nothing
  EXPECT_EQ(shift(b, Point<2>{-10, 3}), Box<2>({-10, 3}, {-6, 9}));
}

TEST(Box, PrintsHalfOpenIntervals) {
  std::ostringstream out;
  out << Box<2>({0, 2}, {4, 5}) << ' ' << Box<3>();
  EXPECT_EQ(out.str(), "[0,4)x[2,5) [empty3d]");
}

TEST(Box, NegativeCoordinates) {
  const Box<3> b({-5, -5, -5}, {-2, 0, 1});
  EXPECT_EQ(volume(b), 3 * 5 * 6);
  EXPECT_TRUE(contains(b, Point<3>{-5, -1, 0}));
  EXPECT_EQ(intersect(b, Box<3>({-3, -10, 0}, {10, -4, 10})), Box<3>({-3, -5, 0}, {-2, -4, 1}));
}

TEST(Box, HugeExtentsDoNotOverflow) {
  constexpr index_t big = index_t{1} << 61;
  const Box<1> wide({-big}, {big});
  EXPECT_EQ(volume(wide), 2 * big);
  const Box<2> a({-big, 0}, {big, 2}), b({0, -big}, {big, big});
  EXPECT_EQ(intersect(a, b), Box<2>({0, 0}, {big, 2}));
  EXPECT_EQ(volume(intersect(a, b)), 2 * big);
  const auto pieces = difference(a, b);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0], Box<2>({-big, 0}, {0, 2}));
  // A 2-D box of 2^62 x 2^62 points has a volume that does not fit: a clear error, not garbage.
  const Box<2> square({-big, -big}, {big, big});
  try {
    (void)volume(square);
    FAIL() << "volume of a 2^124-point box did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow);
    EXPECT_NE(std::string(e.what()).find("Box volume"), std::string::npos) << e.what();
  }
  // An extent that itself overflows (hi - lo > 2^63 - 1).
  const Box<1> too_wide({std::numeric_limits<index_t>::min()}, {std::numeric_limits<index_t>::max()});
  EXPECT_THROW((void)volume(too_wide), Error);
  EXPECT_THROW((void)extent(too_wide, 0), Error);
}

template <class D>
class BoxProperties : public ::testing::Test {};
TYPED_TEST_SUITE(BoxProperties, testing::AllDims);

TYPED_TEST(BoxProperties, IntersectionMatchesPointSets) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(42 + N);
  for (int trial = 0; trial < 300; ++trial) {
    const auto a = random_box<N>(rng, 4), b = random_box<N>(rng, 4);
    const auto pa = point_set(a), pb = point_set(b), pi = point_set(intersect(a, b));
    std::set<Point<N>> expected;
    for (const auto& p : pa)
      if (pb.count(p)) expected.insert(p);
    ASSERT_EQ(pi, expected) << a << " ∩ " << b;
    EXPECT_EQ(intersects(a, b), !expected.empty());
    EXPECT_EQ(volume(a), static_cast<index_t>(pa.size()));
    EXPECT_EQ(intersect(a, b), intersect(b, a));
    EXPECT_TRUE(contains(a, intersect(a, b)));
    EXPECT_TRUE(contains(bounding_box(a, b), a));
    EXPECT_TRUE(contains(bounding_box(a, b), b));
  }
}

TYPED_TEST(BoxProperties, ContainsMatchesPointSets) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(7 + N);
  for (int trial = 0; trial < 300; ++trial) {
    const auto a = random_box<N>(rng, 4), b = random_box<N>(rng, 4);
    const auto pa = point_set(a), pb = point_set(b);
    bool subset = true;
    for (const auto& p : pb) subset = subset && pa.count(p);
    EXPECT_EQ(contains(a, b), subset) << a << " ⊇ " << b;
    const auto p = random_point<N>(rng, 5);
    EXPECT_EQ(contains(a, p), pa.count(p) == 1);
  }
}

TYPED_TEST(BoxProperties, GrowThenShrinkIsIdentityAndShiftPreservesVolume) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(99 + N);
  for (int trial = 0; trial < 300; ++trial) {
    const auto a = random_box<N>(rng);
    const auto w = static_cast<index_t>(rng() % 4);
    EXPECT_EQ(shrink(grow(a, w), w), a);
    EXPECT_TRUE(contains(grow(a, w), a));
    const auto s = random_point<N>(rng, 100);
    EXPECT_EQ(volume(shift(a, s)), volume(a));
    EXPECT_EQ(shift(shift(a, s), -s), a);
    EXPECT_EQ(hash_value(a), hash_value(shift(shift(a, s), -s)));
  }
}

}  // namespace
}  // namespace tessera
