#include <gtest/gtest.h>

#include "random_geometry.hpp"
#include "tessera/geometry.hpp"

namespace tessera {
namespace {

using testing::point_set;
using testing::random_box;

TEST(BoxDifference, HoleInTheMiddleGivesFourPieces) {
  const auto pieces = difference(Box<2>({0, 0}, {4, 4}), Box<2>({1, 1}, {3, 3}));
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[0], Box<2>({0, 0}, {1, 4}));
  EXPECT_EQ(pieces[1], Box<2>({3, 0}, {4, 4}));
  EXPECT_EQ(pieces[2], Box<2>({1, 0}, {3, 1}));
  EXPECT_EQ(pieces[3], Box<2>({1, 3}, {3, 4}));
}

TEST(BoxDifference, EdgeCases) {
  const Box<3> a({0, 0, 0}, {2, 3, 4});
  EXPECT_TRUE(difference(a, a).empty());
  EXPECT_TRUE(difference(a, grow(a, 1)).empty());
  EXPECT_TRUE(difference(Box<3>(), a).empty());
  ASSERT_EQ(difference(a, Box<3>()).size(), 1u);
  EXPECT_EQ(difference(a, Box<3>())[0], a);
  ASSERT_EQ(difference(a, shift(a, Point<3>{2, 0, 0})).size(), 1u);  // touching, not overlapping
  // A hole strictly inside in every dimension: the maximum of 2N pieces.
  EXPECT_EQ(difference(grow(a, 1), a).size(), 6u);
  const auto shell = difference(grow(a, 1), a);
  index_t shell_volume = 0;
  for (const auto& piece : shell) shell_volume += volume(piece);
  EXPECT_EQ(shell_volume, volume(grow(a, 1)) - volume(a));
}

template <class D>
class DifferenceProperties : public ::testing::Test {};
TYPED_TEST_SUITE(DifferenceProperties, testing::AllDims);

TYPED_TEST(DifferenceProperties, PiecesAreDisjointInsideAOutsideBAndAddUp) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(1234 + N);
  for (int trial = 0; trial < 500; ++trial) {
    const auto a = random_box<N>(rng, 4), b = random_box<N>(rng, 4);
    const auto pieces = difference(a, b);
    ASSERT_LE(pieces.size(), 2 * N);
    index_t total = 0;
    std::set<Point<N>> covered;
    for (const auto& piece : pieces) {
      EXPECT_FALSE(piece.empty());
      EXPECT_TRUE(contains(a, piece)) << piece << " not in " << a;
      EXPECT_FALSE(intersects(piece, b)) << piece << " meets " << b;
      total += volume(piece);
      for (const auto& p : point_set(piece)) EXPECT_TRUE(covered.insert(p).second) << "pieces overlap at " << p;
    }
    EXPECT_EQ(total + volume(intersect(a, b)), volume(a)) << a << " \\ " << b;
    // And against the brute-force set difference.
    std::set<Point<N>> expected;
    const auto pb = point_set(b);
    for (const auto& p : point_set(a))
      if (!pb.count(p)) expected.insert(p);
    EXPECT_EQ(covered, expected);
  }
}

}  // namespace
}  // namespace tessera
