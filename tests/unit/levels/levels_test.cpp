// Refinement index spaces (geometry/refinement.hpp), the level hierarchy and its proper-nesting
// checks (layout/level_hierarchy.hpp), and the coarse-to-fine plans (plan/coarse_fine_plan.hpp)
// over simulated ranks, against brute force.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/level_hierarchy.hpp"
#include "tessera/plan/coarse_fine_plan.hpp"

namespace tessera {
namespace {

TEST(Refinement, CoarsenRoundsTowardMinusInfinity) {
  const Point<2> r{2, 4};
  EXPECT_EQ(coarsen(Point<2>{-1, 9}, r), (Point<2>{-1, 2}));
  EXPECT_EQ(coarsen(Point<2>{-4, -5}, r), (Point<2>{-2, -2}));
  EXPECT_EQ(coarsen(Box<2>({1, 1}, {3, 5}), r), Box<2>({0, 0}, {2, 2}));
  EXPECT_EQ(refine(Box<2>({0, 1}, {2, 3}), r), Box<2>({0, 4}, {4, 12}));
  EXPECT_TRUE(is_aligned(Box<2>({-2, 4}, {2, 8}), r));
  EXPECT_FALSE(is_aligned(Box<2>({1, 4}, {2, 8}), r));
  EXPECT_TRUE(coarsen(Box<2>(), r).empty());
}

TEST(Refinement, CoarsenOfAPointAgreesWithTheBoxItLiesIn) {
  std::mt19937_64 rng(5);
  for (int k = 0; k < 2000; ++k) {
    const Point<3> r{1 + static_cast<index_t>(rng() % 4), 1 + static_cast<index_t>(rng() % 4),
                     1 + static_cast<index_t>(rng() % 4)};
    Point<3> p;
    for (std::size_t d = 0; d < 3; ++d) p[d] = static_cast<index_t>(rng() % 41) - 20;
    const Point<3> c = coarsen(p, r);
    EXPECT_TRUE(contains(refine(Box<3>(c, c + Point<3>::filled(1)), r), p)) << p << " " << r;
  }
}

TEST(Refinement, RatiosBelowOneAreErrors) {
  EXPECT_THROW(check_ratio<2>("here", "ratio", Point<2>{2, 0}), Error);
  EXPECT_THROW(check_ratio<2>("here", "ratio", Point<2>{-2, 2}), Error);
  EXPECT_NO_THROW(check_ratio<2>("here", "ratio", Point<2>{1, 3}));
}

BoxSet<2> one_box(const Box<2>& b) { return BoxSet<2>(b, {b}, {0}, 1); }
BoxSet<2> one_box_in(const Box<2>& domain, const Box<2>& b) { return BoxSet<2>(domain, {b}, {0}, 1); }

TEST(LevelHierarchy, ALevelNumberPastTheLastIsAnErrorNotOutOfRange) {
  const LevelHierarchy<2> h(one_box(Box<2>({0, 0}, {16, 16})));
  EXPECT_EQ(h.level(0).size(), 1u);
  for (const auto& call : {+[](const LevelHierarchy<2>& x) { (void)x.level(1); },
                           +[](const LevelHierarchy<2>& x) { (void)x.ratio(1); }}) {
    try {
      call(h);
      ADD_FAILURE() << "accepted level 1 of a one-level hierarchy";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("must be < levels() = 1"), std::string::npos) << e.what();
    }
  }
}

TEST(LevelHierarchy, AcceptsANestedLevelAndRejectsBadOnesNamingTheBox) {
  const LevelHierarchy<2> h(one_box(Box<2>({0, 0}, {16, 16})));
  const Box<2> fine_domain({0, 0}, {32, 32});
  const auto two =
      h.with_level(1, BoxSet<2>(fine_domain, {Box<2>({0, 0}, {8, 8}), Box<2>({8, 0}, {16, 12})}, {0, 0}, 1), {2, 2});
  EXPECT_EQ(two.levels(), 2u);
  EXPECT_EQ(two.ratio(1), (Point<2>{2, 2}));
  const auto expect_error = [&](const LevelHierarchy<2>& base, std::size_t l, const BoxSet<2>& set, const Point<2>& r,
                                const char* words) {
    try {
      (void)base.with_level(l, set, r);
      ADD_FAILURE() << "accepted " << set;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const BoxSet<2> fine(fine_domain, {Box<2>({4, 4}, {8, 8})}, {0}, 1);
  expect_error(h, 1, fine, {0, 2}, "must be >= 1");
  expect_error(h, 1, fine, {2, -1}, "must be >= 1");
  expect_error(h, 1, BoxSet<2>(fine_domain, {Box<2>({3, 4}, {8, 8})}, {0}, 1), {2, 2}, "not aligned");
  expect_error(h, 1, BoxSet<2>(Box<2>({0, 0}, {32, 30}), {Box<2>({4, 4}, {8, 8})}, {0}, 1), {2, 2}, "refined");
  expect_error(h, 3, fine, {2, 2}, "must be in [1, 1]");
  // Level 2 over a level 1 with a hole: a box next to the hole is not properly nested.
  const Box<2> f2({0, 0}, {64, 64});
  expect_error(two, 2, BoxSet<2>(f2, {Box<2>({28, 0}, {32, 4})}, {0}, 1), {2, 2}, "not properly nested");
  EXPECT_NO_THROW((void)two.with_level(2, BoxSet<2>(f2, {Box<2>({4, 4}, {28, 14})}, {0}, 1), {2, 2}));
  // At the domain boundary the nesting region is clipped: a box touching it is nested.
  EXPECT_NO_THROW((void)two.with_level(2, BoxSet<2>(f2, {Box<2>({0, 0}, {4, 4})}, {0}, 1), {2, 2}));
}

TEST(LevelHierarchy, RegriddingALevelKeepsTheFinerOnesWhileTheyStayNested) {
  // 16^2 -> level 1 [0,16)^2 in 32^2 -> level 2 [8,20)^2 in 64^2.
  const LevelHierarchy<2> three = LevelHierarchy<2>(one_box(Box<2>({0, 0}, {16, 16})))
                                      .with_level(1, one_box_in(Box<2>({0, 0}, {32, 32}), Box<2>({0, 0}, {16, 16})), {2, 2})
                                      .with_level(2, one_box_in(Box<2>({0, 0}, {64, 64}), Box<2>({8, 8}, {20, 20})), {2, 2});
  // A new level 1 that still holds level 2's cells and a cell around them: kept.
  const BoxSet<2> moved = one_box_in(Box<2>({0, 0}, {32, 32}), Box<2>({2, 2}, {14, 12}));
  const auto regridded = three.regridded(1, moved, {2, 2});
  EXPECT_EQ(regridded.levels(), 3u);
  EXPECT_EQ(regridded.level(1).boxes(), moved.boxes());
  EXPECT_EQ(regridded.level(2).boxes(), three.level(2).boxes());
  // One that leaves level 2's margin out: refused, naming level 2, nothing changed.
  try {
    (void)three.regridded(1, one_box_in(Box<2>({0, 0}, {32, 32}), Box<2>({4, 4}, {14, 14})), {2, 2});
    ADD_FAILURE() << "a level 1 without level 2's margin was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("level 2 in the new level 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not properly nested"), std::string::npos) << e.what();
  }
  EXPECT_EQ(three.level(1).boxes(), (std::vector<Box<2>>{Box<2>({0, 0}, {16, 16})}));
  // The new level itself must nest in level 0; only existing levels above the base are regridded
  // (the finest has nothing above it to keep).
  EXPECT_THROW((void)three.regridded(1, one_box_in(Box<2>({0, 0}, {32, 30}), Box<2>({2, 2}, {14, 12})), {2, 2}), Error);
  EXPECT_EQ(three.regridded(2, one_box_in(Box<2>({0, 0}, {64, 64}), Box<2>({4, 4}, {8, 8})), {2, 2}).level(2).size(), 1u);
  EXPECT_THROW((void)three.regridded(3, three.level(2), {2, 2}), Error);
  EXPECT_THROW((void)three.regridded(0, three.level(0), {1, 1}), Error);
}

TEST(LevelHierarchy, NestingRegionHoldsExactlyTheCellsWhoseNeighbourhoodIsHeld) {
  std::mt19937_64 rng(9);
  for (int k = 0; k < 40; ++k) {
    const Box<2> domain({0, 0}, {12 + static_cast<index_t>(rng() % 8), 10 + static_cast<index_t>(rng() % 8)});
    std::vector<Box<2>> boxes;
    for (index_t x = 0; x < domain.hi[0]; x += 3)
      for (index_t y = 0; y < domain.hi[1]; y += 4)
        if (rng() % 4 != 0) boxes.push_back(intersect(Box<2>({x, y}, {x + 3, y + 4}), domain));
    if (boxes.empty()) continue;
    const BoxSet<2> set(domain, boxes, std::vector<int>(boxes.size(), 0), 1);
    const index_t w = static_cast<index_t>(rng() % 3);
    const BoxList<2> region = nesting_region(set, w);
    EXPECT_TRUE(is_disjoint(region));
    for_each_point(domain, [&](const Point<2>& p) {
      bool held = true;
      for_each_point(intersect(grow(Box<2>(p, p + Point<2>::filled(1)), w), domain),
                     [&](const Point<2>& q) { held = held && set.find(q).has_value(); });
      EXPECT_EQ(contains(region, p), held) << p << " width " << w;
    });
  }
}

// The same in 3-D against brute force, and a level without holes is its own nesting region, box
// for box in its order (what keeps regrids over hole-free levels unchanged).
TEST(LevelHierarchy, NestingRegionIn3DAndOfAHoleFreeLevel) {
  std::mt19937_64 rng(17);
  for (int k = 0; k < 12; ++k) {
    const Box<3> domain({0, 0, 0}, {6 + static_cast<index_t>(rng() % 4), 6, 5 + static_cast<index_t>(rng() % 3)});
    std::vector<Box<3>> boxes, all;
    for (index_t x = 0; x < domain.hi[0]; x += 2)
      for (index_t y = 0; y < domain.hi[1]; y += 3)
        for (index_t z = 0; z < domain.hi[2]; z += 2) {
          const Box<3> b = intersect(Box<3>({x, y, z}, {x + 2, y + 3, z + 2}), domain);
          all.push_back(b);
          if (rng() % 5 != 0) boxes.push_back(b);
        }
    const index_t w = static_cast<index_t>(rng() % 3);
    const BoxSet<3> whole(domain, all, std::vector<int>(all.size(), 0), 1);
    EXPECT_EQ(nesting_region(whole, w), BoxList<3>(all)) << "width " << w;
    if (boxes.empty()) continue;
    const BoxSet<3> set(domain, boxes, std::vector<int>(boxes.size(), 0), 1);
    const BoxList<3> region = nesting_region(set, w);
    EXPECT_TRUE(is_disjoint(region));
    for_each_point(domain, [&](const Point<3>& p) {
      bool held = true;
      for_each_point(intersect(grow(Box<3>(p, p + Point<3>::filled(1)), w), domain),
                     [&](const Point<3>& q) { held = held && set.find(q).has_value(); });
      EXPECT_EQ(contains(region, p), held) << p << " width " << w;
    });
  }
}

/// Every rank's plan lists the same copies between it and each peer, and the copies into each
/// intermediate patch cover exactly its fetched region.
TEST(CoarseFinePlan, RanksAgreeAndEveryPatchGetsItsRegionOnce) {
  std::mt19937_64 rng(21);
  for (int k = 0; k < 30; ++k) {
    const int P = 1 + static_cast<int>(rng() % 6);
    const Box<2> cdom({0, 0}, {16 + static_cast<index_t>(rng() % 9), 12 + static_cast<index_t>(rng() % 9)});
    const auto coarse =
        make_box_set(cdom, chop_boxes(std::vector<Box<2>>{cdom}, Point<2>{5, 4}), P, BoxAssignment::morton);
    const Point<2> r{1 + static_cast<index_t>(rng() % 3), 1 + static_cast<index_t>(rng() % 3)};
    std::vector<Box<2>> fine_boxes;
    for (index_t x = 1; x + 3 < cdom.hi[0]; x += 4)
      for (index_t y = 1; y + 3 < cdom.hi[1]; y += 5)
        if (rng() % 2)
          fine_boxes.push_back(refine(Box<2>({x, y}, {x + 3, y + 2 + static_cast<index_t>(rng() % 2)}), r));
    const auto fine = make_box_set(refine(cdom, r), fine_boxes, P, BoxAssignment::knapsack);
    const auto g = ghosts<2>(1 + static_cast<index_t>(rng() % 3));
    const CoarseFineGeometry<2> geo(coarse, fine, r, g);
    using Key = std::tuple<int, int, Box<2>, int>;
    std::vector<std::vector<Key>> plans(static_cast<std::size_t>(P));
    for (int rank = 0; rank < P; ++rank)
      for (const auto& c : coarse_fetch_plan(coarse, geo, rank).copies())
        plans[static_cast<std::size_t>(rank)].emplace_back(c.src_rank, c.dst_rank, bounding_box(c.src), c.dst_patch);
    for (int a = 0; a < P; ++a)
      for (int b = 0; b < P; ++b) {
        std::vector<Key> from_a, from_b;
        for (const auto& key : plans[static_cast<std::size_t>(a)])
          if (std::get<0>(key) == a && std::get<1>(key) == b) from_a.push_back(key);
        for (const auto& key : plans[static_cast<std::size_t>(b)])
          if (std::get<0>(key) == a && std::get<1>(key) == b) from_b.push_back(key);
        EXPECT_EQ(from_a, from_b) << "ranks " << a << " -> " << b;
      }
    for (std::size_t i = 0; i < fine.size(); ++i) {
      const int owner = fine.owner(i);
      const auto mine = fine.boxes_of(owner);
      const int patch = static_cast<int>(std::find(mine.begin(), mine.end(), i) - mine.begin());
      std::multiset<Point<2>> cells;
      for (const auto& key : plans[static_cast<std::size_t>(owner)])
        if (std::get<1>(key) == owner && std::get<3>(key) == patch)
          for_each_point(std::get<2>(key), [&](const Point<2>& p) { cells.insert(p); });
      std::multiset<Point<2>> want;
      for_each_point(intersect(grow(coarsen(fine.box(i), r), geo.ghosts.lower, geo.ghosts.upper), cdom),
                     [&](const Point<2>& p) { want.insert(p); });
      EXPECT_EQ(cells, want) << "fine box " << i;
    }
  }
}

TEST(CoarseFinePlan, GhostCellsNoFineBoxHolds) {
  const Box<2> dom({0, 0}, {16, 16});
  const BoxSet<2> fine(dom, {Box<2>({0, 0}, {4, 4}), Box<2>({4, 0}, {8, 4})}, {0, 0}, 1);
  const auto gaps = coarse_fine_ghost_cells(fine, 0, ghosts<2>(1));
  // [0,5)x[0,5) clipped, minus both boxes: the row y = 4 for x in [0, 5).
  EXPECT_EQ(volume(gaps), 5);
  for (const auto& b : gaps) EXPECT_EQ(b.lo[1], 4);
}

}  // namespace
}  // namespace tessera
