// Two-level transfers and regrid (array/level_transfer.hpp, array/regrid.hpp) on 1-5 ranks:
// prolongation and restriction exact on linear functions; on random data, bit for bit against a
// serial reference that applies the same interpolator to the gathered coarse level (so the data
// movement is checked value by value); coarse/fine ghost fills, also between two coarse states
// (subcycling); regrid keeping the old level's
// values and prolonging the new cells, and under an existing finer level keeping it nested; bad input
// the same error on every rank with nothing changed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tessera/array/regrid.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

constexpr double kSentinel = -12345.0;

/// A linear function of the cell centre of `p` on a level with cell width `h` per axis.
double linear(const Point<2>& p, const Point<2>& per_unit) {
  const double x = (static_cast<double>(p[0]) + 0.5) / static_cast<double>(per_unit[0]);
  const double y = (static_cast<double>(p[1]) + 0.5) / static_cast<double>(per_unit[1]);
  return 1.25 + 3.0 * x - 2.0 * y;
}

/// Random-looking data from the point alone (the same on every rank count).
double noise(const Point<2>& p) {
  const std::uint64_t h = hash_combine(hash_value(p), 77);
  return static_cast<double>(h % 100000) / 1000.0;
}

struct TwoLevels {
  BoxSet<2> coarse, fine;
  Point<2> ratio;
};

/// A chopped, Morton-assigned coarse level and a random properly nested fine level (aligned boxes,
/// islands, boxes touching the domain boundary, ranks with no fine box), the same on every rank.
TwoLevels random_levels(std::mt19937_64& rng, int P) {
  const Box<2> cdom({0, 0}, {14 + static_cast<index_t>(rng() % 8), 10 + static_cast<index_t>(rng() % 8)});
  TwoLevels t;
  t.ratio = Point<2>{1 + static_cast<index_t>(rng() % 3), 1 + static_cast<index_t>(rng() % 3)};
  t.coarse = make_box_set(cdom, chop_boxes(std::vector<Box<2>>{cdom}, Point<2>{6, 5}), P, BoxAssignment::morton);
  std::vector<Box<2>> boxes;
  for (index_t x = 0; x + 2 <= cdom.hi[0]; x += 4)
    for (index_t y = 0; y + 2 <= cdom.hi[1]; y += 3)
      if (rng() % 3 != 0) {
        const Box<2> c({x, y},
                       {std::min(x + 2 + static_cast<index_t>(rng() % 3), cdom.hi[0]), std::min(y + 3, cdom.hi[1])});
        boxes.push_back(refine(c, t.ratio));
      }
  t.fine = make_box_set(refine(cdom, t.ratio), boxes, P, BoxAssignment::knapsack);
  return t;
}

/// What `interpolate` gives for fine cell p of fine box i, from the whole coarse level gathered on
/// every rank: the reference the distributed fill must equal bit for bit.
double reference(const Interpolator<double, 2>& interpolate, const std::vector<double>& image, const TwoLevels& t,
                 const CoarseFineGeometry<2>& geo, std::size_t i, const Point<2>& p) {
  const Box<2>& need = geo.need[i];
  std::vector<unsigned char> held(static_cast<std::size_t>(volume(need)), 0);
  for_each_point(need, [&](const Point<2>& c) {
    held[static_cast<std::size_t>(offset_row_major(need, c))] = t.coarse.find(c).has_value();
  });
  const Box<2>& dom = t.coarse.domain();
  const CoarseCells<double, 2> cells(image.data(), dom.lo, row_major_strides(dom), need, held.data(), t.ratio);
  return interpolate(cells, p);
}

template <class F>
std::vector<std::uint64_t> error_on_every_rank(const Communicator& comm, F&& f) {
  std::uint64_t h = 0;
  try {
    f();
  } catch (const Error& e) {
    for (char c : std::string(e.what())) h = hash_combine(h, static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
    h = hash_combine(h, static_cast<std::uint64_t>(e.code()));
  }
  return comm.allgather(h);
}

TEST(LevelTransfer, ExactOnLinearFunctions) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(41);
  for (int k = 0; k < 12; ++k) {
    const TwoLevels t = random_levels(rng, comm.size());
    SCOPED_TRACE(::testing::Message() << "case " << k << " ratio " << t.ratio << " fine " << t.fine);
    const auto g = ghosts<2>(1 + static_cast<index_t>(rng() % 2));
    Domain<2> cdom(comm, Distribution<2>::from_box_set(t.coarse));
    Domain<2> fdom(comm, Distribution<2>::from_box_set(t.fine));
    DistArray<double, 2> coarse(cdom, ghosts<2>(1)), fine(fdom, g);
    const Point<2> one = Point<2>::filled(1);
    coarse.for_each_owned([&](const Point<2>& p, double& x) { x = linear(p, one); });
    LevelTransfer<double, 2> link(cdom, fdom, t.ratio, g);
    // Prolongation: every owned fine cell.
    fine.for_each_owned([](const Point<2>&, double& x) { x = kSentinel; });
    link.prolong(coarse, fine);
    fine.for_each_owned([&](const Point<2>& p, const double& x) { ASSERT_NEAR(x, linear(p, t.ratio), 1e-11) << p; });
    // Ghost fill: fine/fine ghosts from the fine boxes, coarse/fine ones interpolated; outside
    // the domain untouched.
    for (double& x : fine.storage()) x = kSentinel;
    fine.for_each_owned([&](const Point<2>& p, double& x) { x = linear(p, t.ratio); });
    link.fill_ghosts(coarse, fine);
    for (std::size_t patch = 0; patch < fine.patch_count(); ++patch) {
      const auto in = fine.stencil_access(patch);
      for_each_point(in.stored_box(), [&](const Point<2>& p) {
        if (contains(fdom.box(), p))
          ASSERT_NEAR(in(p), linear(p, t.ratio), 1e-11) << p;
        else
          ASSERT_EQ(in(p), kSentinel) << p;
      });
    }
    // Restriction: the coarse cells under fine boxes get the mean; the others keep their value.
    coarse.for_each_owned([](const Point<2>&, double& x) { x = kSentinel; });
    link.restrict_to(fine, coarse);
    coarse.for_each_owned([&](const Point<2>& p, const double& x) {
      const bool under = t.fine.find(refine(Box<2>(p, p + one), t.ratio).lo).has_value();
      if (under)
        ASSERT_NEAR(x, linear(p, one), 1e-11) << p;
      else
        ASSERT_EQ(x, kSentinel) << p;
    });
  }
}

/// Another linear function, for the second coarse state of a subcycled step.
double other_linear(const Point<2>& p, const Point<2>& per_unit) {
  const double x = (static_cast<double>(p[0]) + 0.5) / static_cast<double>(per_unit[0]);
  const double y = (static_cast<double>(p[1]) + 0.5) / static_cast<double>(per_unit[1]);
  return -0.5 + 1.5 * x + 4.0 * y;
}

// Subcycling: fine ghosts between two coarse states, linear in space at both times, must be the
// linear function of the blended state (exact: both interpolations are linear); alpha 0 and 1 are
// the one-state fills bit for bit; alpha outside [0, 1] is an error on every rank.
TEST(LevelTransfer, GhostsBetweenTwoCoarseStatesAreBlendedInTime) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(43);
  for (int k = 0; k < 8; ++k) {
    const TwoLevels t = random_levels(rng, comm.size());
    SCOPED_TRACE(::testing::Message() << "case " << k << " ratio " << t.ratio << " fine " << t.fine);
    const auto g = ghosts<2>(1 + static_cast<index_t>(rng() % 2));
    Domain<2> cdom(comm, Distribution<2>::from_box_set(t.coarse));
    Domain<2> fdom(comm, Distribution<2>::from_box_set(t.fine));
    DistArray<double, 2> old_state(cdom, ghosts<2>(1)), new_state(cdom, ghosts<2>(1)), fine(fdom, g), once(fdom, g);
    const Point<2> one = Point<2>::filled(1);
    old_state.for_each_owned([&](const Point<2>& p, double& x) { x = linear(p, one); });
    new_state.for_each_owned([&](const Point<2>& p, double& x) { x = other_linear(p, one); });
    LevelTransfer<double, 2> link(cdom, fdom, t.ratio, g);
    for (const double alpha : {0.0, 0.25, 0.5, 1.0}) {
      const auto blended = [&](const Point<2>& p) {
        return (1.0 - alpha) * linear(p, t.ratio) + alpha * other_linear(p, t.ratio);
      };
      for (double& x : fine.storage()) x = kSentinel;
      fine.for_each_owned([&](const Point<2>& p, double& x) { x = blended(p); });
      link.fill_ghosts(old_state, new_state, alpha, fine);
      for (std::size_t patch = 0; patch < fine.patch_count(); ++patch) {
        const auto in = fine.stencil_access(patch);
        for_each_point(in.stored_box(), [&](const Point<2>& p) {
          if (contains(fdom.box(), p))
            ASSERT_NEAR(in(p), blended(p), 1e-11) << "alpha " << alpha << " at " << p;
          else
            ASSERT_EQ(in(p), kSentinel) << p;
        });
      }
      if (alpha == 0.0 || alpha == 1.0) {  // the one-state fill, bit for bit
        for (double& x : once.storage()) x = kSentinel;
        once.for_each_owned([&](const Point<2>& p, double& x) { x = blended(p); });
        link.fill_ghosts(alpha == 0.0 ? old_state : new_state, once);
        ASSERT_TRUE(std::equal(once.storage().begin(), once.storage().end(), fine.storage().begin()));
      }
    }
    for (const double bad : {-0.25, 1.5, std::nan("")}) {
      const auto errors = error_on_every_rank(comm, [&] { link.fill_ghosts(old_state, new_state, bad, fine); });
      EXPECT_NE(errors.front(), 0u) << bad;
      for (const auto e : errors) EXPECT_EQ(e, errors.front()) << "not the same error on every rank";
    }
    DistArray<double, 2> elsewhere(fdom, ghosts<2>(1));  // over the fine distribution, not the coarse one
    const auto errors = error_on_every_rank(comm, [&] { link.fill_ghosts(old_state, elsewhere, 0.5, fine); });
    EXPECT_NE(errors.front(), 0u);
  }
}

TEST(LevelTransfer, RandomDataBitForBitAgainstASerialReference) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(42);
  const std::vector<Interpolator<double, 2>> rules{
      linear_interpolation<double, 2>(), piecewise_constant<double, 2>(),
      [](const CoarseCells<double, 2>& c, const Point<2>& p) {  // a user rule: reads the neighbours too
        Point<2> east = c.under(p);
        ++east[0];
        return 2.0 * c(c.under(p)) + (c.available(east) ? c(east) : -1.0) + static_cast<double>(p[1]);
      }};
  for (int k = 0; k < 9; ++k) {
    const TwoLevels t = random_levels(rng, comm.size());
    const auto& rule = rules[static_cast<std::size_t>(k) % rules.size()];
    SCOPED_TRACE(::testing::Message() << "case " << k << " rule " << k % 3 << " ratio " << t.ratio);
    const auto g = ghosts<2>(1 + static_cast<index_t>(rng() % 3)).faces_only();
    Domain<2> cdom(comm, Distribution<2>::from_box_set(t.coarse));
    Domain<2> fdom(comm, Distribution<2>::from_box_set(t.fine));
    DistArray<double, 2> coarse(cdom), fine(fdom, g);
    coarse.for_each_owned([&](const Point<2>& p, double& x) { x = noise(p); });
    const std::vector<double> image = coarse.gather_to_all();
    const CoarseFineGeometry<2> geo(t.coarse, t.fine, t.ratio, g);
    LevelTransfer<double, 2> link(cdom, fdom, t.ratio, g, rule);
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second time from the kept schedule and mover
      for (double& x : fine.storage()) x = kSentinel;
      fine.for_each_owned([&](const Point<2>& p, double& x) { x = noise(p) + 1000.0; });
      link.fill_ghosts(coarse, fine);
      const auto mine = t.fine.boxes_of(comm.rank());
      for (std::size_t patch = 0; patch < fine.patch_count(); ++patch) {
        const auto in = fine.stencil_access(patch);
        const std::size_t i = mine[patch];
        for (const Box<2>& gap : coarse_fine_ghost_cells(t.fine, i, g))
          for_each_point(gap, [&](const Point<2>& p) { ASSERT_EQ(in(p), reference(rule, image, t, geo, i, p)) << p; });
      }
      link.prolong(coarse, fine);
      fine.for_each_owned([&](const Point<2>& p, const double& x) {
        ASSERT_EQ(x, reference(rule, image, t, geo, *t.fine.find(p), p)) << p;
      });
    }
    // Restriction of random data: the mean of the fine cells, summed in row-major order.
    fine.for_each_owned([&](const Point<2>& p, double& x) { x = noise(p); });
    link.restrict_to(fine, coarse);
    const double scale = 1.0 / static_cast<double>(t.ratio[0] * t.ratio[1]);
    coarse.for_each_owned([&](const Point<2>& c, const double& x) {
      const Box<2> under = refine(Box<2>(c, c + Point<2>::filled(1)), t.ratio);
      double want = noise(c);
      if (t.fine.find(under.lo)) {
        double sum = 0;
        for_each_point(under, [&](const Point<2>& p) { sum = sum + noise(p); });
        want = sum * scale;
      }
      ASSERT_EQ(x, want) << c;
    });
  }
}

TEST(Regrid, TagsClusterAndMoveKeepingTheOldLevel) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> cbox({0, 0}, {24, 20});
  const BoxSet<2> cset =
      make_box_set(cbox, chop_boxes(std::vector<Box<2>>{cbox}, Point<2>{8, 7}), P, BoxAssignment::knapsack);
  Domain<2> cdom(comm, Distribution<2>::from_box_set(cset));
  DistArray<double, 2> coarse(cdom, ghosts<2>(1));
  const Point<2> one = Point<2>::filled(1);
  coarse.for_each_owned([&](const Point<2>& p, double& x) { x = linear(p, one); });
  RegridOptions<2> opt;
  opt.ratio = {2, 2};
  opt.cluster.blocking_factor = {2, 2};
  opt.cluster.max_extent = {8, 8};
  opt.cluster.efficiency = 0.75;
  // A feature: a disc around centre c, tagged by position.
  const auto tag_at = [](double cx, double cy) {
    return [=](const Point<2>& p, double) {
      const double dx = static_cast<double>(p[0]) - cx, dy = static_cast<double>(p[1]) - cy;
      return dx * dx + dy * dy < 9.0;
    };
  };
  const BoxSet<2> first = tag_and_cluster(coarse, tag_at(6, 6), opt);
  // Every rank got the same set, and it covers the tags and their buffer.
  const auto hashes = comm.allgather(first.hash());
  for (int r = 0; r < P; ++r) EXPECT_EQ(hashes[static_cast<std::size_t>(r)], first.hash());
  for_each_point(cbox, [&](const Point<2>& p) {
    bool near = false;
    for_each_point(intersect(grow(Box<2>(p, p + one), opt.buffer), cbox),
                   [&](const Point<2>& q) { near = near || tag_at(6, 6)(q, 0.0); });
    if (near) {
      EXPECT_TRUE(first.find(refine(Box<2>(p, p + one), opt.ratio).lo).has_value()) << p;
    }
  });
  EXPECT_NO_THROW(check_proper_nesting("test", cset, first, opt.ratio));
  Domain<2> fdom(comm, Distribution<2>::from_box_set(first));
  const auto g = ghosts<2>(1);
  DistArray<double, 2> fine(fdom, g);
  // The old level holds values the coarse level cannot give (linear + 100): a regrid must keep them.
  fine.for_each_owned([&](const Point<2>& p, double& x) { x = linear(p, opt.ratio) + 100.0; });
  const BoxSet<2> second = tag_and_cluster(coarse, tag_at(11, 9), opt);
  ASSERT_NE(second.hash(), first.hash());
  auto link = regrid_level(coarse, fdom, second, {&fine}, opt.ratio, g);
  EXPECT_EQ(*fdom.distribution().box_set(), second);
  fine.for_each_owned([&](const Point<2>& p, const double& x) {
    const double want = linear(p, opt.ratio) + (first.find(p) ? 100.0 : 0.0);
    ASSERT_NEAR(x, want, 1e-11) << p;
  });
  link.fill_ghosts(coarse, fine);  // the returned link works on the new level
  link.restrict_to(fine, coarse);
  coarse.for_each_owned([&](const Point<2>& p, const double& x) {
    const Point<2> f = refine(Box<2>(p, p + one), opt.ratio).lo;
    ASSERT_NEAR(x, linear(p, one) + (second.find(f) && first.find(f) ? 100.0 : 0.0), 1e-11) << p;
  });
}

/// Regridding level 1 under an existing level 2 (RegridOptions::finer): tags far from level 2
/// alone give a level 1 that no longer nests it, and the hierarchy refuses; with `finer` the
/// cells level 2 needs are tagged too and the hierarchy keeps level 2; a `finer` level over the
/// wrong domain is the same Error on every rank.
TEST(Regrid, UnderAFinerLevelTagsWhatItNeeds) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {24, 24});
  const auto base = make_box_set(box, chop_boxes(std::vector<Box<2>>{box}, Point<2>{6, 6}), P, BoxAssignment::morton);
  RegridOptions<2> opt;
  opt.ratio = {2, 2};
  opt.cluster.blocking_factor = {2, 2};
  const BoxSet<2> level1(refine(box, opt.ratio), {Box<2>({16, 16}, {32, 32})}, {0}, P);
  const BoxSet<2> level2(refine(refine(box, opt.ratio), opt.ratio), {Box<2>({40, 40}, {56, 56})}, {P - 1}, P);
  const LevelHierarchy<2> levels =
      LevelHierarchy<2>(base).with_level(1, level1, opt.ratio).with_level(2, level2, opt.ratio);
  Domain<2> coarse_dom(comm, Distribution<2>::from_box_set(base));
  DistArray<double, 2> coarse(coarse_dom);
  const auto corner = [](const Point<2>& p, double) { return p[0] < 3 && p[1] < 3; };  // far from level 2
  const BoxSet<2> alone = tag_and_cluster(coarse, corner, opt);
  try {
    (void)levels.regridded(1, alone, opt.ratio);
    ADD_FAILURE() << "a level 1 at the corner only kept level 2";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("level 2 in the new level 1"), std::string::npos) << e.what();
  }
  opt.finer = &levels.level(2);
  opt.finer_ratio = opt.ratio;
  const BoxSet<2> both = tag_and_cluster(coarse, corner, opt);
  const LevelHierarchy<2> kept = levels.regridded(1, both, opt.ratio);  // throws if level 2 is not nested
  EXPECT_EQ(kept.levels(), 3u);
  EXPECT_EQ(kept.level(2).boxes(), level2.boxes());
  EXPECT_TRUE(both.find(Point<2>{0, 0}).has_value());  // the corner's tags are covered too
  // Every level-1 cell within the nesting width of level 2's coarsened boxes is held.
  for_each_point(grow(coarsen(Box<2>({40, 40}, {56, 56}), opt.ratio), 1),
                 [&](const Point<2>& p) { ASSERT_TRUE(both.find(p).has_value()) << p; });
  const BoxSet<2> wrong(refine(box, opt.ratio), {Box<2>({0, 0}, {4, 4})}, {0}, P);
  opt.finer = &wrong;
  try {
    (void)tag_and_cluster(coarse, corner, opt);
    ADD_FAILURE() << "a finer level over the wrong domain was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("finer"), std::string::npos) << e.what();
  }
}

TEST(LevelErrors, BadInputIsTheSameErrorOnEveryRankAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> cbox({0, 0}, {8, 8});
  const BoxSet<2> cset(cbox, {Box<2>({0, 0}, {4, 8}), Box<2>({4, 0}, {8, 8})}, {0, P - 1}, P);
  const BoxSet<2> fset(refine(cbox, Point<2>{2, 2}), {Box<2>({4, 4}, {12, 12})}, {P - 1}, P);
  Domain<2> cdom(comm, Distribution<2>::from_box_set(cset));
  Domain<2> fdom(comm, Distribution<2>::from_box_set(fset));
  DistArray<double, 2> coarse(cdom), fine(fdom, ghosts<2>(1));
  fine.for_each_owned([](const Point<2>& p, double& x) { x = noise(p); });
  const auto unchanged = [&] {
    EXPECT_EQ(fdom.distribution(), Distribution<2>::from_box_set(fset));
    fine.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, noise(p)) << p; });
  };
  const Box<2> fbox = refine(cbox, Point<2>{2, 2});
  Domain<2> plain(comm, Distribution<2>(fbox, ProcGrid<2>::automatic(P, extents(fbox)), {block(), block()}));
  const BoxSet<2> misaligned(refine(cbox, Point<2>{2, 2}), {Box<2>({3, 4}, {8, 8})}, {0}, P);
  const BoxSet<2> coarse_with_hole(cbox, {Box<2>({0, 0}, {4, 8})}, {0}, P);
  Domain<2> holey(comm, Distribution<2>::from_box_set(coarse_with_hole));
  DistArray<double, 2> holey_coarse(holey);
  const std::vector<std::function<void()>> bad{
      [&] {
        LevelTransfer<double, 2>(cdom, fdom, {0, 2}, ghosts<2>(1));
      },  // ratio 0
      [&] {
        LevelTransfer<double, 2>(cdom, fdom, {2, -2}, ghosts<2>(1));
      },  // negative ratio
      [&] {
        LevelTransfer<double, 2>(cdom, plain, {2, 2}, ghosts<2>(1));
      },  // not a box set
      [&] {
        LevelTransfer<double, 2>(holey, fdom, {2, 2}, ghosts<2>(1));
      },  // not nested
      [&] {
        (void)regrid_level(coarse, fdom, misaligned, {&fine}, {2, 2}, ghosts<2>(1));
      },  // not aligned
      [&] {
        (void)regrid_level(holey_coarse, fdom, fset, {&fine}, {2, 2}, ghosts<2>(1));
      },  // not nested
      [&] {
        (void)regrid_level(coarse, fdom, fset, {&fine}, {0, 0}, ghosts<2>(1));
      },     // ratio 0
      [&] {  // an array of another level
        LevelTransfer<double, 2> link(cdom, fdom, {2, 2}, ghosts<2>(1));
        link.prolong(fine, fine);
      },
      [&] {  // wider ghosts than the link was made for
        LevelTransfer<double, 2> link(cdom, fdom, {2, 2}, ghosts<2>(0));
        link.fill_ghosts(coarse, fine);
      },
      [&] {
        RegridOptions<2> opt;
        opt.ratio = {2, 0};
        (void)tag_and_cluster(
            coarse, [](const Point<2>&, double) { return true; }, opt);
      },
      [&] {
        RegridOptions<2> opt;
        opt.cluster.efficiency = 0.0;
        (void)tag_and_cluster(
            coarse, [](const Point<2>&, double) { return true; }, opt);
      },
  };
  for (std::size_t k = 0; k < bad.size(); ++k) {
    const auto hashes = error_on_every_rank(comm, bad[k]);
    EXPECT_NE(hashes[0], 0U) << "case " << k << " threw no Error";
    for (int r = 1; r < P; ++r)
      EXPECT_EQ(hashes[static_cast<std::size_t>(r)], hashes[0]) << "case " << k << ", rank " << r;
    unchanged();
  }
}

}  // namespace
}  // namespace tessera
