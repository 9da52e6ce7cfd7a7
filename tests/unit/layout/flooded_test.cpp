// Flooded axes in the layout layer, without MPI: a flooded dimension is held whole by every
// coordinate; a distribution with flooded axes names the canonical replica as owner, the reader's
// own replica in pieces_near and every replica in holders.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tessera/layout/distribution.hpp"

namespace tessera {
namespace {

TEST(FloodedDim, EveryCoordinateHoldsTheWholeDimension) {
  const auto d = DimDistribution::bind(flooded(), -2, 7, 3, "test");
  EXPECT_TRUE(d.is_flooded());
  EXPECT_TRUE(d.owns_intervals());
  EXPECT_TRUE(d.boundaries().empty());
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(d.local_count(c), 9);
    EXPECT_EQ(d.interval_start(c), -2);
    ASSERT_EQ(d.owned(c).size(), 1u);
    EXPECT_EQ(d.owned(c).front(), Section1::interval(-2, 7));
    EXPECT_EQ(d.global_index(c, 4), 2);
  }
  for (index_t i = -2; i < 7; ++i) {
    EXPECT_EQ(d.owner(i), 0);
    EXPECT_EQ(d.local_offset(i), i + 2);
  }
  std::vector<DimPiece> pieces;
  d.pieces(0, 20, pieces);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces.front().section, Section1::interval(0, 7));
  EXPECT_EQ(pieces.front().coord, 0);
  std::ostringstream out;
  out << d;
  EXPECT_EQ(out.str(), "flooded");
  // Not equal to anything that splits the dimension, nor to a flood over another extent.
  EXPECT_FALSE(d == DimDistribution::bind(block(), -2, 7, 3, "test"));
  EXPECT_FALSE(d == DimDistribution::bind(cyclic(), -2, 7, 3, "test"));
  EXPECT_FALSE(d == DimDistribution::bind(flooded(), -2, 7, 2, "test"));
  EXPECT_TRUE(d == DimDistribution::bind(flooded(), -2, 7, 3, "test"));
  EXPECT_THROW((void)DimDistribution::bind(flooded().with_logical_block(4), 0, 8, 2, "test"), Error);
}

TEST(FloodedDistribution, OwnerIsCanonicalPiecesNearAreTheReadersOwn) {
  const auto grid = ProcGrid<2>::with_shape(6, {2, 3});
  const Distribution<2> dist(Box<2>({0, 0}, {5, 4}), grid, {block(), flooded()});
  std::ostringstream out;
  out << dist;
  EXPECT_EQ(out.str(), "grid 2x3, [block, flooded]");
  for (int r = 0; r < 6; ++r) {
    const Point<2> pos = *grid.position_of(r);
    EXPECT_EQ(dist.owned_box(r), Box<2>({pos[0] == 0 ? 0 : 3, 0}, {pos[0] == 0 ? 3 : 5, 4}));
    EXPECT_EQ(dist.is_primary(r), pos[1] == 0);
    const auto replicas = dist.replicas(r);
    EXPECT_EQ(replicas, (std::vector<int>{grid.rank_at({pos[0], 0}), grid.rank_at({pos[0], 1}), grid.rank_at({pos[0], 2})}));
    for (int q = 0; q < 6; ++q) EXPECT_EQ(dist.reads_from(r, q), (*grid.position_of(q))[1] == pos[1]);
  }
  EXPECT_EQ(dist.owner({4, 3}), grid.rank_at({1, 0}));
  const auto near = dist.pieces_near(Box<2>({2, 1}, {4, 2}), grid.rank_at({0, 2}));
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0].rank, grid.rank_at({0, 2}));
  EXPECT_EQ(near[1].rank, grid.rank_at({1, 2}));
  EXPECT_EQ(dist.holders(Section<2>::from_box(Box<2>({4, 0}, {5, 1}))), (std::vector<int>{3, 4, 5}));
  // A flooded axis has no cuts, and the grid cannot be made to split it.
  EXPECT_THROW((void)dist.slab_cuts(1), Error);
  EXPECT_THROW((void)dist.with_cuts(1, {{0, 1, 2, 4}}), Error);
  EXPECT_NO_THROW((void)dist.with_cuts(0, {{0, 1, 5}}));
}

}  // namespace
}  // namespace tessera
