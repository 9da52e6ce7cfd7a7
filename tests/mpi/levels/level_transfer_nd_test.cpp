// Two-level transfers in 1 and 3 dimensions, over coarse levels with holes and fine ghosts wider
// than the ratio (nesting width above 1): prolong, coarse/fine ghost fill and restriction exact on
// linear functions, ghosts outside the domain untouched, coarse cells under no fine box unchanged.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <random>
#include <vector>

#include "tessera/array/regrid.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

constexpr double kUntouched = -4321.0;

template <std::size_t N>
double linear_nd(const Point<N>& p, const Point<N>& per_unit) {
  constexpr double slope[3] = {3.0, -2.0, 0.5};
  double v = 1.25;
  for (std::size_t d = 0; d < N; ++d)
    v += slope[d] * (static_cast<double>(p[d]) + 0.5) / static_cast<double>(per_unit[d]);
  return v;
}

template <std::size_t N>
index_t held_volume(const BoxSet<N>& set, const Box<N>& b) {
  index_t held = 0;
  set.for_each_meeting(b, [&](std::size_t j) { held += volume(intersect(set.box(j), b)); });
  return held;
}

template <std::size_t N>
void exact_on_linear(std::uint64_t seed, int cases) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  const auto draw = [&](index_t lo, index_t hi) {
    return lo + static_cast<index_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  for (int k = 0; k < cases; ++k) {
    Box<N> cdom;
    Point<N> ratio, chop;
    for (std::size_t d = 0; d < N; ++d) {
      cdom.hi[d] = draw(8, N == 3 ? 10 : 24);
      ratio[d] = draw(1, 3);
      chop[d] = N == 3 ? 4 : 5;
    }
    // A chopped coarse level with holes (some pieces left out).
    std::vector<Box<N>> pieces;
    for (const Box<N>& b : chop_boxes(std::vector<Box<N>>{cdom}, chop))
      if (rng() % 5 != 0) pieces.push_back(b);
    const auto coarse_set = make_box_set(cdom, pieces, comm.size(), BoxAssignment::morton);
    const auto g = ghosts<N>(draw(1, 4));
    const index_t width = LevelTransfer<double, N>::nesting_width(ratio, g);
    // Fine boxes where they are properly nested with that width, disjoint.
    std::vector<Box<N>> fine_boxes;
    for (int attempt = 0; attempt < 25; ++attempt) {
      Box<N> c;
      for (std::size_t d = 0; d < N; ++d) {
        c.lo[d] = draw(0, cdom.hi[d] - 1);
        c.hi[d] = std::min(c.lo[d] + draw(1, 3), cdom.hi[d]);
      }
      const Box<N> need = intersect(grow(c, width), cdom);
      bool fits = held_volume(coarse_set, need) == volume(need);
      for (const Box<N>& f : fine_boxes) fits = fits && !intersects(f, refine(c, ratio));
      if (fits) fine_boxes.push_back(refine(c, ratio));
    }
    const auto fine_set = make_box_set(refine(cdom, ratio), fine_boxes, comm.size(), BoxAssignment::knapsack);
    SCOPED_TRACE(::testing::Message() << "case " << k << " ratio " << ratio << " " << g << " width " << width << " "
                                      << coarse_set << " " << fine_set);
    Domain<N> cdomain(comm, Distribution<N>::from_box_set(coarse_set));
    Domain<N> fdomain(comm, Distribution<N>::from_box_set(fine_set));
    DistArray<double, N> coarse(cdomain, ghosts<N>(1)), fine(fdomain, g);
    const Point<N> one = Point<N>::filled(1);
    coarse.for_each_owned([&](const Point<N>& p, double& x) { x = linear_nd(p, one); });
    LevelTransfer<double, N> link(cdomain, fdomain, ratio, g);
    link.prolong(coarse, fine);
    fine.for_each_owned([&](const Point<N>& p, const double& x) { ASSERT_NEAR(x, linear_nd(p, ratio), 1e-11) << p; });
    for (double& x : fine.storage()) x = kUntouched;
    fine.for_each_owned([&](const Point<N>& p, double& x) { x = linear_nd(p, ratio); });
    link.fill_ghosts(coarse, fine);
    for (std::size_t patch = 0; patch < fine.patch_count(); ++patch) {
      const auto in = fine.stencil_access(patch);
      for_each_point(in.stored_box(), [&](const Point<N>& p) {
        if (contains(fdomain.box(), p))
          ASSERT_NEAR(in(p), linear_nd(p, ratio), 1e-11) << p;
        else
          ASSERT_EQ(in(p), kUntouched) << p;
      });
    }
    coarse.for_each_owned([](const Point<N>&, double& x) { x = kUntouched; });
    link.restrict_to(fine, coarse);
    coarse.for_each_owned([&](const Point<N>& p, const double& x) {
      if (fine_set.find(refine(Box<N>(p, p + one), ratio).lo))
        ASSERT_NEAR(x, linear_nd(p, one), 1e-11) << p;
      else
        ASSERT_EQ(x, kUntouched) << p;
    });
  }
}

/// Three levels, each made by `tag_and_cluster` from the one below (so level 2 is clustered inside
/// the nesting region of a level 1 with holes): the hierarchy accepts them, and prolongation down
/// the chain and restriction up it are exact on a linear function.
TEST(LevelTransferND, ThreeLevelsFromTagsNestAndTransferExactly) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {24, 24});
  const auto base =
      make_box_set(box, chop_boxes(std::vector<Box<2>>{box}, Point<2>{6, 6}), comm.size(), BoxAssignment::morton);
  RegridOptions<2> opt;
  opt.ratio = {2, 2};
  opt.cluster.blocking_factor = {2, 2};
  opt.cluster.max_extent = {6, 6};
  const Point<2> one = Point<2>::filled(1);
  const auto g = ghosts<2>(2);
  // Tag a ring: the finer levels have holes (the ring's inside), so nesting matters.
  const auto ring = [](const Point<2>& p, index_t cells) {
    const double x = (static_cast<double>(p[0]) + 0.5) / static_cast<double>(cells) - 0.5;
    const double y = (static_cast<double>(p[1]) + 0.5) / static_cast<double>(cells) - 0.5;
    const double r2 = x * x + y * y;
    return r2 > 0.04 && r2 < 0.09;
  };
  std::vector<Domain<2>> domains{Domain<2>(comm, Distribution<2>::from_box_set(base))};
  std::vector<std::unique_ptr<DistArray<double, 2>>> u;
  u.push_back(std::make_unique<DistArray<double, 2>>(domains[0], g));
  u[0]->for_each_owned([&](const Point<2>& p, double& x) { x = linear_nd(p, one); });
  LevelHierarchy<2> levels(base);
  Point<2> per_unit = one;
  index_t cells = 24;
  for (std::size_t l = 1; l <= 2; ++l) {
    const auto tagged = [&](const Point<2>& p, double) { return ring(p, cells); };
    const BoxSet<2> next = tag_and_cluster(*u[l - 1], tagged, opt);
    ASSERT_FALSE(next.empty());
    levels = levels.with_level(l, next, opt.ratio);  // throws if not properly nested
    domains.emplace_back(comm, Distribution<2>::from_box_set(next));
    u.push_back(std::make_unique<DistArray<double, 2>>(domains[l], g));
    per_unit = Point<2>{per_unit[0] * 2, per_unit[1] * 2};
    cells *= 2;
  }
  ASSERT_EQ(levels.levels(), 3u);
  for (std::size_t l = 1; l <= 2; ++l) {
    LevelTransfer<double, 2> link(domains[l - 1], domains[l], opt.ratio, g);
    link.prolong(*u[l - 1], *u[l]);
    link.fill_ghosts(*u[l - 1], *u[l]);
  }
  Point<2> scale = one;
  for (std::size_t l = 0; l <= 2; ++l) {
    u[l]->for_each_owned(
        [&](const Point<2>& p, const double& x) { ASSERT_NEAR(x, linear_nd(p, scale), 1e-11) << l << p; });
    scale = Point<2>{scale[0] * 2, scale[1] * 2};
  }
  // Restriction up the chain: level 0 holds the linear function again where level 1 lies.
  u[0]->for_each_owned([](const Point<2>&, double& x) { x = kUntouched; });
  for (std::size_t l = 2; l >= 1; --l)
    LevelTransfer<double, 2>(domains[l - 1], domains[l], opt.ratio, g).restrict_to(*u[l], *u[l - 1]);
  u[0]->for_each_owned([&](const Point<2>& p, const double& x) {
    if (levels.level(1).find(refine(Box<2>(p, p + one), opt.ratio).lo))
      ASSERT_NEAR(x, linear_nd(p, one), 1e-11) << p;
    else
      ASSERT_EQ(x, kUntouched) << p;
  });
}

TEST(LevelTransferND, ExactOnLinearFunctions1D) { exact_on_linear<1>(51, 12); }
TEST(LevelTransferND, ExactOnLinearFunctions3D) { exact_on_linear<3>(53, 5); }
TEST(LevelTransferND, WideGhostsOverHolesIn2D) { exact_on_linear<2>(52, 8); }

}  // namespace
}  // namespace tessera
