// to_distribution and to_ghosts: each spec maps onto the Distribution and GhostSpec built directly
// with the layout and plan API, and the mapping's own errors name the part of the text.

#include <gtest/gtest.h>

#include <string>

#include "spec_error_expectation.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera {
namespace {

using spec_testing::expect_spec_error;

TEST(SpecMapping, IssueExample) {
  const Spec s = parse_spec("domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p");
  const Distribution<2> direct(Box<2>({0, 0}, {40, 90}), ProcGrid<2>::with_shape(6, {2, 3}),
                               {cut({0, 10, 40}), block()});
  const auto dist = to_distribution<2>(s, 6);
  EXPECT_EQ(dist, direct);
  EXPECT_EQ(dist.owner({12, 89}), 5);
  EXPECT_EQ(to_ghosts<2>(s), ghosts<2>(1).periodic_along({true, true}));
}

TEST(SpecMapping, ExplicitGridOnALargerCommunicatorLeavesSkeletons) {
  const Spec s = parse_spec("domain=40x90 grid=2x3");
  const Distribution<2> direct(Box<2>({0, 0}, {40, 90}), ProcGrid<2>::from_ranks(8, {2, 3}, {0, 1, 2, 3, 4, 5}),
                               {block(), block()});
  const auto dist = to_distribution<2>(s, 8);
  EXPECT_EQ(dist, direct);
  EXPECT_FALSE(dist.grid().is_active(7));
  EXPECT_EQ(dist.local_size(6), 0);
}

TEST(SpecMapping, AutomaticGrids) {
  EXPECT_EQ(to_distribution<2>(parse_spec("domain=100x100"), 6),
            Distribution<2>(Box<2>({0, 0}, {100, 100}), ProcGrid<2>::automatic(6, {100, 100}), {block(), block()}));
  EXPECT_EQ(to_distribution<2>(parse_spec("domain=1000x10 grid=auto@4"), 8),
            Distribution<2>(Box<2>({0, 0}, {1000, 10}),
                            ProcGrid<2>::automatic(8, std::vector<int>{0, 1, 2, 3}, {1000, 10}), {block(), block()}));
  const auto pinned = to_distribution<3>(parse_spec("domain=64x64x64 grid=*x*x1 dist=block,block,collapsed"), 12);
  EXPECT_EQ(pinned,
            Distribution<3>(Box<3>({0, 0, 0}, {64, 64, 64}), ProcGrid<3>::automatic(12, {64, 64, 64}, {0, 0, 1}),
                            {block(), block(), collapsed()}));
  EXPECT_EQ(pinned.grid().shape(), (Point<3>{4, 3, 1}));
}

TEST(SpecMapping, ListsFixTheExtentsOfAnAutomaticGrid) {
  const auto dist = to_distribution<2>(parse_spec("domain=40x90 grid=auto dist=cut(0,10,40),block"), 6);
  EXPECT_EQ(dist.grid().shape(), (Point<2>{2, 3}));
  EXPECT_EQ(dist,
            Distribution<2>(Box<2>({0, 0}, {40, 90}), ProcGrid<2>::with_shape(6, {2, 3}), {cut({0, 10, 40}), block()}));
  // Every extent fixed by the lists: the grid is that shape, over the ranks asked for.
  const auto fixed = to_distribution<2>(parse_spec("domain=10x9 grid=auto@2 dist=weights(1,1),collapsed"), 6);
  EXPECT_EQ(fixed.grid().shape(), (Point<2>{2, 1}));
  EXPECT_FALSE(fixed.grid().is_active(2));
}

TEST(SpecMapping, FloodedAxes) {
  // ZPL's [1..n, *]: rows in blocks over the grid's rows, every grid column a replica.
  const auto dist = to_distribution<2>(parse_spec("domain=12x3 grid=2x3 dist=block,flooded"), 6);
  EXPECT_EQ(dist, Distribution<2>(Box<2>({0, 0}, {12, 3}), ProcGrid<2>::with_shape(6, {2, 3}), {block(), flooded()}));
  EXPECT_TRUE(dist.flooded(1));
  EXPECT_EQ(to_string(parse_spec("domain=12x3 grid=2x3 dist=block,flooded")), "domain=12x3 grid=2x3 dist=block,flooded");
}

TEST(SpecMapping, EveryKindAndLowerBounds) {
  const Spec s = parse_spec(
      "domain=-4:96x10:100x0:1000x64 grid=2x3x2x1 "
      "dist=block(lb=8),weights(1,2,1.5),block_cyclic(64,src=1,lb=8),collapsed");
  const Distribution<4> direct(Box<4>({-4, 10, 0, 0}, {96, 100, 1000, 64}), ProcGrid<4>::with_shape(12, {2, 3, 2, 1}),
                               {block().with_logical_block(8), cut_weights({1, 2, 1.5}),
                                block_cyclic(64, 1).with_logical_block(8), collapsed()});
  EXPECT_EQ(to_distribution<4>(s, 12), direct);

  const Spec t = parse_spec("domain=8x64 grid=3x4 dist=irregular(0,0,1,2,2,1,0,0),cyclic(lb=4)");
  const Distribution<2> direct_t(Box<2>({0, 0}, {8, 64}), ProcGrid<2>::with_shape(12, {3, 4}),
                                 {irregular({0, 0, 1, 2, 2, 1, 0, 0}), cyclic().with_logical_block(4)});
  EXPECT_EQ(to_distribution<2>(t, 12), direct_t);
}

TEST(SpecMapping, Order) {
  const Spec s = parse_spec("domain=8x8x8 grid=2x2x2 order=2,0,1");
  const Distribution<3> direct(Box<3>({0, 0, 0}, {8, 8, 8}), ProcGrid<3>::with_shape(8, {2, 2, 2}),
                               {block(), block(), block()}, {2, 0, 1});
  EXPECT_EQ(to_distribution<3>(s, 8), direct);
  EXPECT_EQ(to_distribution<3>(s, 8).order(), (Distribution<3>::Order{2, 0, 1}));
}

TEST(SpecMapping, Ghosts) {
  const Spec s = parse_spec("domain=10x20x30 ghosts=0,1p,2:3,faces");
  EXPECT_EQ(to_ghosts<3>(s),
            GhostSpec<3>::sides({0, 1, 2}, {0, 1, 3}).faces_only().periodic_along({false, true, false}));
  EXPECT_EQ(to_ghosts<1>(parse_spec("domain=5")), no_ghosts<1>());
  EXPECT_TRUE(to_ghosts<1>(parse_spec("domain=5 ghosts=0p")).periodic[0]);
}

TEST(SpecMappingErrors, RankMismatch) {
  const Spec s = parse_spec("domain=40x90 grid=2x3");
  expect_spec_error([&] { (void)to_distribution<3>(s, 6); },
               R"~(spec: at column 1, "domain=40x90": describes 2 dimensions)~", "to_distribution<3> needs 3");
  expect_spec_error([&] { (void)to_ghosts<1>(s); }, R"~(spec: at column 1, "domain=40x90")~", "to_ghosts<1> needs 1");
}

TEST(SpecMappingErrors, CommunicatorTooSmallOrEmpty) {
  expect_spec_error([] { (void)to_distribution<2>(parse_spec("domain=40x90 grid=2x3"), 5); },
               R"~(spec: at column 14, "grid=2x3": )~", "places 6 ranks but the communicator has 5");
  expect_spec_error([] { (void)to_distribution<1>(parse_spec("domain=40 grid=auto@4"), 3); },
               R"~(spec: at column 11, "grid=auto@4": )~", "places 4 ranks but the communicator has 3");
  expect_spec_error([] { (void)to_distribution<1>(parse_spec("domain=40"), 0); },
               "to_distribution: argument 'comm_size' = 0", "must be >= 1");
}

TEST(SpecMappingErrors, ChosenGridCannotMatchTheLists) {
  // The cut fixes 2 row positions, which do not divide 5 ranks.
  expect_spec_error([] { (void)to_distribution<2>(parse_spec("domain=10x10 grid=auto@5 dist=cut(0,5,10),block"), 5); },
               R"~(spec: at column 14, "grid=auto@5": ProcGrid::automatic)~", "does not divide the 5 ranks");
  // Every extent fixed by the lists, to 4 positions, but the grid is to place 6.
  expect_spec_error([] { (void)to_distribution<2>(parse_spec("domain=10x10 dist=cut(0,5,10),weights(1,1)"), 6); },
               R"~(spec: grid "*x*": )~", "fix it to 4 positions");
  EXPECT_EQ(to_distribution<2>(parse_spec("domain=10x10 dist=cut(0,5,10),weights(1,1)"), 4).grid().shape(),
            (Point<2>{2, 2}));
}

TEST(SpecMappingErrors, AxisAgainstTheChosenGrid) {
  // Valid for a grid axis of 4 or more, not for the 2 chosen on 2 ranks.
  const Spec s = parse_spec("domain=10 dist=block_cyclic(2,src=3)");
  EXPECT_NO_THROW((void)to_distribution<1>(s, 4));
  expect_spec_error([&] { (void)to_distribution<1>(s, 2); }, R"~(spec: at column 16, "block_cyclic(2,src=3)": dimension 0)~",
               "must be a coordinate in [0, 2)");
  const Spec t = parse_spec("domain=4 dist=irregular(0,1,2,0)");
  expect_spec_error([&] { (void)to_distribution<1>(t, 2); }, R"~(spec: at column 15, "irregular(0,1,2,0)")~",
               "is not a coordinate in [0, 2)");
}

TEST(SpecMappingErrors, SpecBuiltInCodeNamesPartsByName) {
  Spec s;
  s.axes.resize(1);
  s.axes[0].hi = 10;
  s.axes[0].dist = cut({0, 5});
  expect_spec_error([&] { (void)to_distribution<1>(s, 1); }, R"~(spec: dist[0] "cut(0,5)": dimension 0)~",
               "must equal the high bound 10");
  s.axes[0].dist = block();
  s.order = {1};
  expect_spec_error([&] { (void)to_distribution<1>(s, 1); }, "spec: order: Distribution", "must be a permutation");
  s.order.clear();
  s.axes[0].ghost_lower = -1;
  expect_spec_error([&] { (void)to_ghosts<1>(s); }, "spec: ghosts: GhostSpec", "must be >= 0");
  s.axes[0].lo = 20;
  expect_spec_error([&] { (void)to_distribution<1>(s, 1); }, "spec: domain: dimension 0 is [20, 10)", "needs lo <= hi");
  s.axes[0].lo = 0;
  s.axes[0].grid_extent = -2;
  expect_spec_error([&] { (void)to_distribution<1>(s, 1); }, R"~(spec: grid "-2": )~", "has extent -2 along dimension 0");
}

}  // namespace
}  // namespace tessera
