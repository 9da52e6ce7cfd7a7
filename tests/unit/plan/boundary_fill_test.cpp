// The fill plan of boundary rules without MPI: which local cells each rule sets and in which order
// (written out by hand for small layouts), the checks of rule kinds against ghosts and domain, and
// the detection of reads a thin patch does not store.
#include <gtest/gtest.h>

#include <string>

#include "tessera/plan/boundary_fill.hpp"

namespace tessera {
namespace {

template <std::size_t N>
Distribution<N> blocks(const Box<N>& domain, const Point<N>& grid_shape) {
  const auto grid = ProcGrid<N>::with_shape(static_cast<int>(volume(Box<N>::from_extents(grid_shape))), grid_shape);
  std::array<DimSpec, N> specs;
  specs.fill(block());
  return Distribution<N>(domain, grid, specs);
}

BoundaryKinds<2> every_side(BoundaryKind k) {
  BoundaryKinds<2> kinds;
  for (auto& s : kinds.side) s = {k, k};
  return kinds;
}

// One rank owning [0,4)^2 with ghosts 1 (corners): axis 0 first over the owned columns, then axis 1
// over every stored row, so the four corners are set by axis 1's rules.
TEST(BoundaryFill, AxisByAxisWithCorners) {
  const Box<2> box({0, 0}, {4, 4});
  const auto g = ghosts<2>(1);
  const auto layout = StorageLayout<2>::make(blocks(box, {1, 1}), 0, g);
  const auto fills = boundary_fills(layout, box, g, every_side(BoundaryKind::reflect));
  ASSERT_EQ(fills.size(), 4u);
  EXPECT_EQ(fills[0].axis, 0u);
  EXPECT_FALSE(fills[0].high);
  EXPECT_EQ(fills[0].cells, Box<2>({0, 1}, {1, 5}));  // local row 0, columns 1..4 (owned)
  EXPECT_EQ(fills[0].face, 1);
  EXPECT_TRUE(fills[1].high);
  EXPECT_EQ(fills[1].cells, Box<2>({5, 1}, {6, 5}));
  EXPECT_EQ(fills[1].face, 5);
  EXPECT_EQ(fills[2].axis, 1u);
  EXPECT_EQ(fills[2].cells, Box<2>({0, 0}, {6, 1}));  // every stored row, corners included
  EXPECT_EQ(fills[3].cells, Box<2>({0, 5}, {6, 6}));
  EXPECT_FALSE(check_boundary_reads("t", fills, layout, every_side(BoundaryKind::reflect), box).has_value());
}

// Faces only: the face slabs over the owned range; periodic axes get no fills but are spanned whole.
TEST(BoundaryFill, FacesOnlyAndPeriodicAxes) {
  const Box<2> box({0, 0}, {4, 4});
  const auto faces = ghosts<2>(2).faces_only();
  const auto layout = StorageLayout<2>::make(blocks(box, {1, 1}), 0, faces);
  const auto fills = boundary_fills(layout, box, faces, every_side(BoundaryKind::constant));
  ASSERT_EQ(fills.size(), 4u);
  EXPECT_EQ(fills[0].cells, Box<2>({0, 2}, {2, 6}));
  EXPECT_EQ(fills[3].cells, Box<2>({2, 6}, {6, 8}));

  const auto wrap0 = ghosts<2>(1).periodic_along({true, false});
  const auto layout2 = StorageLayout<2>::make(blocks(box, {1, 1}), 0, wrap0);
  BoundaryKinds<2> kinds;
  kinds.side[1] = {BoundaryKind::constant, BoundaryKind::none};
  const auto fills2 = boundary_fills(layout2, box, wrap0, kinds);
  ASSERT_EQ(fills2.size(), 1u);
  EXPECT_EQ(fills2[0].cells, Box<2>({0, 0}, {6, 1}));  // the wrapped rows too
}

// A ghost layer that reaches outside the domain from a patch not at the boundary: rank 1 of a 1x3
// cut owns column 1 only; its low ghost of width 2 holds column 0 (exchanged) and -1 (the rule's).
TEST(BoundaryFill, GhostsReachingPastAThinNeighbour) {
  const Box<1> box({0}, {6});
  const auto grid = ProcGrid<1>::with_shape(3, {3});
  const Distribution<1> dist(box, grid, {cut({0, 1, 2, 6})});
  const auto g = GhostSpec<1>::sides({2}, {1});
  BoundaryKinds<1> reflect;
  reflect.side[0] = {BoundaryKind::reflect, BoundaryKind::reflect};
  const auto l1 = StorageLayout<1>::make(dist, 1, g);
  const auto f1 = boundary_fills(l1, box, g, reflect);
  ASSERT_EQ(f1.size(), 1u);
  EXPECT_EQ(f1[0].cells, Box<1>({0}, {1}));  // global -1
  EXPECT_EQ(f1[0].face, 1);                  // global 0; -1 mirrors 0, which rank 1 stores
  EXPECT_FALSE(check_boundary_reads("t", f1, l1, reflect, box).has_value());
  // Rank 0 owns column 0 only: global -2 mirrors 1, in its upper ghost (width 1): fine.
  const auto l0 = StorageLayout<1>::make(dist, 0, g);
  EXPECT_FALSE(check_boundary_reads("t", boundary_fills(l0, box, g, reflect), l0, reflect, box).has_value());
  // Width 3 below: -3 mirrors 2, which rank 0 does not store.
  const auto wide = GhostSpec<1>::sides({3}, {1});
  const auto l0w = StorageLayout<1>::make(dist, 0, wide);
  const auto err = check_boundary_reads("t", boundary_fills(l0w, box, wide, reflect), l0w, reflect, box);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(std::string(err->what()).find("reflect rule on the low side of axis 0"), std::string::npos) << err->what();
  BoundaryKinds<1> extrapolate;
  extrapolate.side[0] = {BoundaryKind::extrapolate, BoundaryKind::none};
  EXPECT_FALSE(check_boundary_reads("t", boundary_fills(l0w, box, wide, extrapolate), l0w, extrapolate, box));
}

TEST(BoundaryFill, KindsAreCheckedAgainstGhostsAndDomain) {
  const Box<2> box({0, 0}, {1, 3});
  BoundaryKinds<2> k;
  k.side[0] = {BoundaryKind::extrapolate, BoundaryKind::none};
  EXPECT_THROW(check_boundary_kinds("t", k, ghosts<2>(1), box), Error);                 // one cell wide
  EXPECT_NO_THROW(check_boundary_kinds("t", k, GhostSpec<2>::sides({0, 1}, {0, 1}), box));  // no ghost there
  k.side[0] = {BoundaryKind::none, BoundaryKind::none};
  k.side[1] = {BoundaryKind::reflect, BoundaryKind::none};
  EXPECT_NO_THROW(check_boundary_kinds("t", k, ghosts<2>(3), box));
  EXPECT_THROW(check_boundary_kinds("t", k, ghosts<2>(4), box), Error);                            // wider than 3
  EXPECT_THROW(check_boundary_kinds("t", k, ghosts<2>(1).periodic_along({false, true}), box), Error);  // periodic
  EXPECT_NE(k.hash(), BoundaryKinds<2>{}.hash());
  EXPECT_TRUE(BoundaryKinds<2>{}.none());
}

}  // namespace
}  // namespace tessera
