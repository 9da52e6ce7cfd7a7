#include <gtest/gtest.h>

#include "random_geometry.hpp"
#include "tessera/geometry.hpp"

namespace tessera {
namespace {

using testing::point_set;
using testing::random_box;

TEST(Periodic, GhostRegionWrapsToTheOtherSide) {
  const Box<1> dom({0}, {10});
  const auto pieces = wrap_periodic(Box<1>({-2}, {3}), dom, {true});
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].box, Box<1>({8}, {10}));
  EXPECT_EQ(pieces[0].offset, Point<1>{10});
  EXPECT_EQ(pieces[1].box, Box<1>({0}, {3}));
  EXPECT_EQ(pieces[1].offset, Point<1>{0});
}

TEST(Periodic, NonPeriodicDimensionsAreClipped) {
  const Box<2> dom({0, 0}, {4, 4});
  const auto pieces = wrap_periodic(Box<2>({-1, -1}, {5, 5}), dom, {true, false});
  // Rows wrap (3 pieces: row -1 -> 3, rows 0..3, row 4 -> 0); columns clip to [0,4).
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].box, Box<2>({3, 0}, {4, 4}));
  EXPECT_EQ(pieces[0].offset, (Point<2>{4, 0}));
  EXPECT_EQ(pieces[1].box, dom);
  EXPECT_EQ(pieces[2].box, Box<2>({0, 0}, {1, 4}));
  EXPECT_EQ(pieces[2].offset, (Point<2>{-4, 0}));
}

TEST(Periodic, CornersWrapInBothDimensions) {
  const Box<2> dom({0, 0}, {8, 8});
  const auto pieces = wrap_periodic(grow(Box<2>({0, 0}, {2, 2}), 1), dom, {true, true});
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[0].box, Box<2>({7, 7}, {8, 8}));  // the corner comes from the far corner
  EXPECT_EQ(pieces[0].offset, (Point<2>{8, 8}));
}

TEST(Periodic, BoxWiderThanSeveralPeriods) {
  const Box<1> dom({0}, {3});
  const auto pieces = wrap_periodic(Box<1>({-4}, {7}), dom, {true});
  index_t total = 0;
  for (const auto& p : pieces) total += volume(p.box);
  EXPECT_EQ(total, 11);
  EXPECT_EQ(pieces.size(), 5u);  // periods k = -2 .. 2
}

TEST(Periodic, BadArgumentsAreNamed) {
  try {
    (void)wrap_periodic(Box<1>({0}, {3}), Box<1>({5}, {5}), {true});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'domain'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)wrap_periodic(Box<1>({0}, {index_t{1} << 40}), Box<1>({0}, {2}), {true}), Error);
  EXPECT_TRUE(wrap_periodic(Box<1>({0}, {3}), Box<1>({5}, {5}), {false}).empty());  // clipped: nothing left
}

template <class D>
class PeriodicProperties : public ::testing::Test {};
TYPED_TEST_SUITE(PeriodicProperties, testing::AllDims);

TYPED_TEST(PeriodicProperties, PiecesTileTheClippedBox) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(77 + N);
  for (int trial = 0; trial < 300; ++trial) {
    auto dom = random_box<N>(rng, 3);
    if (dom.empty()) continue;
    const auto b = random_box<N>(rng, 6);
    Periodicity<N> periodic{};
    for (auto& p : periodic) p = rng() % 2;
    const auto pieces = wrap_periodic(b, dom, periodic);
    // Expected source points: the points of b inside the domain along the non-periodic dimensions.
    Box<N> clip = b;
    for (std::size_t d = 0; d < N; ++d)
      if (!periodic[d]) clip.lo[d] = std::max(clip.lo[d], dom.lo[d]), clip.hi[d] = std::min(clip.hi[d], dom.hi[d]);
    std::set<Point<N>> sources;
    for (const auto& piece : pieces) {
      EXPECT_TRUE(contains(dom, piece.box)) << piece.box << " outside " << dom;
      for (std::size_t d = 0; d < N; ++d) {
        if (!periodic[d]) {
          EXPECT_EQ(piece.offset[d], 0);
        } else {
          EXPECT_EQ(floor_mod(piece.offset[d], extent(dom, d)), 0);
        }
      }
      for (const auto& p : point_set(shift(piece.box, -piece.offset))) EXPECT_TRUE(sources.insert(p).second);
    }
    EXPECT_EQ(sources, point_set(clip)) << b << " in " << dom;
  }
}

}  // namespace
}  // namespace tessera
