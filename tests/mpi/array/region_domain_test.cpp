// Regions of a domain (ZPL's blk(lo, hi): distribution bounds apart from a region's bounds):
// `restricted` keeps every index's owner, for every kind of distribution; copies between arrays
// over the whole grid, its interior and a boundary strip move nothing between ranks; regions and
// their arrays follow every redistribution and migration of the parent, all or nothing; bad input.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/exchange/mover_totals.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

// The owner of p under `dist`, -1 where nobody owns it (a box set's hole).
template <std::size_t N>
int owner_or_hole(const Distribution<N>& dist, const Point<N>& p) {
  if (dist.covers_domain()) return dist.owner(p);
  for (int r = 0; r < dist.comm_size(); ++r)
    for (const Box<N>& b : dist.owned_boxes(r))
      if (contains(b, p)) return r;
  return -1;
}

// A random box inside `box` (possibly thin; empty along an axis now and then).
template <std::size_t N>
Box<N> random_inside(std::mt19937_64& rng, const Box<N>& box) {
  Box<N> r;
  for (std::size_t d = 0; d < N; ++d) {
    const auto n = static_cast<std::uint64_t>(box.hi[d] - box.lo[d]);
    r.lo[d] = box.lo[d] + static_cast<index_t>(rng() % (n + 1));
    r.hi[d] = r.lo[d] + static_cast<index_t>(rng() % (static_cast<std::uint64_t>(box.hi[d] - r.lo[d]) + 1));
  }
  return r;
}

// Every kind: the random dimensional ones and Morton (any_distribution), general axes, flooded
// axes and box sets (with holes unless `tiling`: a redistribution from one gives T{} where it had
// holes, which the value checks below do not model).
template <std::size_t N>
Distribution<N> every_kind(std::mt19937_64& rng, const Box<N>& box, int ranks, bool tiling = false) {
  const auto pick = rng() % 6;
  if (pick == 0) {
    const auto grid = random_grid<N>(rng, ranks);
    std::vector<double> w(static_cast<std::size_t>(grid.size()));
    for (double& x : w) x = 1.0 + static_cast<double>(rng() % 4);
    std::array<DimSpec, N> specs;
    specs.fill(general());
    return Distribution<N>::from_rank_weights(box, grid, w, specs);
  }
  if (pick == 1) {
    const auto grid = random_grid<N>(rng, ranks);
    std::array<DimSpec, N> specs;
    for (std::size_t d = 0; d < N; ++d)
      specs[d] = d == N - 1 ? flooded() : random_spec(rng, box.lo[d], box.hi[d], static_cast<int>(grid.extent(d)), false);
    return Distribution<N>(box, grid, specs);
  }
  if (pick == 2 && !tiling) return Distribution<N>::from_box_set(random_box_set<N>(rng, box, 4, 12, ranks));
  std::array<bool, N> any{};
  return any_distribution<N>(rng, box, ranks, any);
}

template <std::size_t N>
void restriction_keeps_owners(int cases, std::uint64_t seed) {
  const int ranks = Communicator(MPI_COMM_WORLD).size();
  std::mt19937_64 rng(seed + N);
  for (int c = 0; c < cases; ++c) {
    const Box<N> box = random_domain<N>(rng, 9);
    const Distribution<N> dist = every_kind<N>(rng, box, ranks);
    const Box<N> region = random_inside<N>(rng, box);
    SCOPED_TRACE(::testing::Message() << "case " << c << ": " << dist << " over " << box << " restricted to " << region);
    const Distribution<N> r = restricted(dist, region);
    ASSERT_EQ(r.domain(), region);
    ASSERT_EQ(r.comm_size(), dist.comm_size());
    EXPECT_TRUE(r == restricted(dist, region));
    EXPECT_EQ(r.hash(), restricted(dist, region).hash());
    for_each_point(region, [&](const Point<N>& p) { ASSERT_EQ(owner_or_hole(r, p), owner_or_hole(dist, p)) << p; });
    // Every index owned is stored, once, on its owner.
    index_t stored = 0;
    for (int k = 0; k < ranks; ++k) stored += r.is_flooded() ? 0 : r.local_size(k);
    if (!r.is_flooded() && r.covers_domain()) {
      EXPECT_EQ(stored, volume(region));
    }
  }
}

TEST(RegionDomain, RestrictionKeepsEveryOwner1D) { restriction_keeps_owners<1>(120, 10); }
TEST(RegionDomain, RestrictionKeepsEveryOwner2D) { restriction_keeps_owners<2>(120, 20); }
TEST(RegionDomain, RestrictionKeepsEveryOwner3D) { restriction_keeps_owners<3>(60, 30); }

TEST(RegionDomain, RestrictionKeepsKindsWhereItCan) {
  const auto grid = ProcGrid<1>::with_shape(3, {3});
  const Box<1> box({0}, {12});
  // block over [0, 12) on 3: [0,4) [4,8) [8,12); restricted to [2, 9): cut at 2, 4, 8, 9
  EXPECT_TRUE(restricted(Distribution<1>(box, grid, {block()}), Box<1>({2}, {9})) ==
              Distribution<1>(Box<1>({2}, {9}), grid, {cut({2, 4, 8, 9})}));
  // block_cyclic(2) starting on a block boundary keeps its kind, with the phase of index 4: block 2, coordinate 2
  EXPECT_TRUE(restricted(Distribution<1>(box, grid, {block_cyclic(2)}), Box<1>({4}, {11})) ==
              Distribution<1>(Box<1>({4}, {11}), grid, {block_cyclic(2, 2)}));
  // ... and becomes an owner table off a block boundary
  EXPECT_EQ(restricted(Distribution<1>(box, grid, {block_cyclic(2)}), Box<1>({3}, {7})).dim(0).kind(), DimKind::irregular);
  EXPECT_TRUE(restricted(Distribution<1>(box, grid, {cyclic()}), Box<1>({5}, {10})) ==
              Distribution<1>(Box<1>({5}, {10}), grid, {block_cyclic(1, 2)}));
}

// Arrays over the whole grid, its interior and its west strip, filled from a serial reference.
template <std::size_t N>
struct Regions {
  Box<N> box, inner, strip;
  Domain<N> grid, interior, west;
  DistArray<double, N> u, f, b;
  Regions(const Communicator& comm, const Distribution<N>& dist)
      : box(dist.domain()),
        inner(shrunk(box)),
        strip(west_strip(box)),
        grid(comm, dist),
        interior(grid.region(inner)),
        west(grid.region(strip)),
        u(grid),
        f(interior),
        b(west) {}
  static Box<N> shrunk(Box<N> x) {
    for (std::size_t d = 0; d < N; ++d) ++x.lo[d], --x.hi[d];
    return x;
  }
  static Box<N> west_strip(Box<N> x) {
    x.hi[0] = x.lo[0] + 1;
    return x;
  }
};

// Sums over the ranks of what this rank's movers sent to others (messages, bytes, single copies).
std::array<std::uint64_t, 3> sent_since(const MoverStats& before, const Communicator& comm) {
  const MoverStats now = process_mover_stats();
  std::array<std::uint64_t, 3> v{now.messages_sent - before.messages_sent, now.bytes_sent - before.bytes_sent,
                                 now.bytes_copied_from_peers - before.bytes_copied_from_peers};
  for (auto& x : v) x = comm.allreduce(x, ReduceOp::sum);
  return v;
}

template <std::size_t N>
void aligned_copies_stay_on_rank(int cases, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  for (int c = 0; c < cases; ++c) {
    Box<N> box = random_domain<N>(rng, 9);
    for (std::size_t d = 0; d < N; ++d) box.hi[d] = std::max(box.hi[d], box.lo[d] + 3);  // a non-empty interior
    Regions<N> r(comm, every_kind<N>(rng, box, comm.size()));
    SCOPED_TRACE(::testing::Message() << "case " << c << ": " << r.grid.distribution());
    r.f.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    r.b.for_each_owned([](const Point<N>& p, double& x) { x = -value_of(p); });
    const MoverStats before = process_mover_stats();
    copy_section(r.f, r.inner, r.u, r.inner.lo);  // interior into the grid
    copy_section(r.b, r.strip, r.u, r.strip.lo);  // the boundary strip into the grid
    DistArray<double, N> g(r.interior);
    copy_section(r.u, r.inner, g, r.inner.lo);  // and the grid's interior back
    EXPECT_EQ(sent_since(before, comm), (std::array<std::uint64_t, 3>{0, 0, 0}));
    r.u.for_each_owned([&](const Point<N>& p, const double& x) {
      const double want = contains(r.strip, p) ? -value_of(p) : contains(r.inner, p) ? value_of(p) : 0.0;
      ASSERT_EQ(x, want) << p;
    });
    g.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
  }
}

TEST(RegionDomain, AlignedCopiesMoveNothingBetweenRanks1D) { aligned_copies_stay_on_rank<1>(20, 40); }
TEST(RegionDomain, AlignedCopiesMoveNothingBetweenRanks2D) { aligned_copies_stay_on_rank<2>(20, 50); }

// Every owned element of `a` is `value(p)`.
template <std::size_t N, class Value>
void expect_values(const DistArray<double, N>& a, Value&& value) {
  a.for_each_owned([&](const Point<N>& p, const double& x) { ASSERT_EQ(x, value(p)) << p; });
}

template <std::size_t N>
void regions_follow_parent(int steps, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  Box<N> box = random_domain<N>(rng, 9);
  for (std::size_t d = 0; d < N; ++d) box.hi[d] = std::max(box.hi[d], box.lo[d] + 4);
  Regions<N> r(comm, every_kind<N>(rng, box, comm.size(), true));
  const Domain<N> inner2 = r.interior.region(Regions<N>::shrunk(r.inner));  // a region of a region
  DistArray<double, N> h(inner2);
  const auto value = [](const Point<N>& p) { return value_of(p); };
  r.u.for_each_owned([&](const Point<N>& p, double& x) { x = value(p); });
  r.f.for_each_owned([&](const Point<N>& p, double& x) { x = 2 * value(p); });
  r.b.for_each_owned([&](const Point<N>& p, double& x) { x = 3 * value(p); });
  h.for_each_owned([&](const Point<N>& p, double& x) { x = 4 * value(p); });
  double scale = 1;  // 0 after a destructive step
  for (int s = 0; s < steps; ++s) {
    const bool migration = s % 3 == 1 && !r.grid.distribution().is_flooded();
    Distribution<N> to = every_kind<N>(rng, box, comm.size(), true);
    while (migration && to.is_flooded()) to = every_kind<N>(rng, box, comm.size(), true);
    const bool destructive = !migration && s % 5 == 4;
    SCOPED_TRACE(::testing::Message() << "step " << s << (migration ? " migrate " : destructive ? " destructive " : " ")
                                      << r.grid.distribution() << " -> " << to);
    if (migration)
      r.grid.migrate(to);
    else
      r.grid.redistribute(to, destructive ? Redistribution::destructive : Redistribution::preserve);
    if (destructive) scale = 0;
    ASSERT_TRUE(r.interior.distribution() == restricted(to, r.inner));
    ASSERT_TRUE(r.west.distribution() == restricted(to, r.strip));
    ASSERT_TRUE(inner2.distribution() == restricted(r.interior.distribution(), inner2.box()));
    expect_values(r.u, [&](const Point<N>& p) { return scale * value(p); });
    expect_values(r.f, [&](const Point<N>& p) { return scale * 2 * value(p); });
    expect_values(r.b, [&](const Point<N>& p) { return scale * 3 * value(p); });
    expect_values(h, [&](const Point<N>& p) { return scale * 4 * value(p); });
  }
  // Still aligned: a copy from the region of a region into the grid moves nothing between ranks.
  const MoverStats before = process_mover_stats();
  copy_section(h, inner2.box(), r.u, inner2.box().lo);
  EXPECT_EQ(sent_since(before, comm), (std::array<std::uint64_t, 3>{0, 0, 0}));
}

TEST(RegionDomain, RegionsFollowEveryChangeOfTheParent1D) { regions_follow_parent<1>(20, 60); }
TEST(RegionDomain, RegionsFollowEveryChangeOfTheParent2D) { regions_follow_parent<2>(20, 70); }
TEST(RegionDomain, RegionsFollowEveryChangeOfTheParent3D) { regions_follow_parent<3>(10, 80); }

// A sparse subdomain over a region is a follower of the region, which follows the parent: its
// indices and values move with every change of the parent.
TEST(RegionDomain, SparseSubdomainsOfARegionFollowTheParent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(90);
  const Box<2> box({0, 0}, {9, 7});
  Domain<2> dom(comm, random_distribution<2>(rng, box, comm.size(), false));
  const Domain<2> inner = dom.region(Box<2>({1, 1}, {8, 6}));
  std::vector<Point<2>> mine;  // rank r names every (i, j) of the region with i + j = r mod P
  for_each_point(inner.box(), [&](const Point<2>& p) {
    if ((p[0] + p[1]) % comm.size() == comm.rank() && (p[0] * 3 + p[1]) % 4 == 0) mine.push_back(p);
  });
  SparseDomain<2> s(inner, mine);
  SparseArray<double, 2> a(s);
  a.for_each([](const Point<2>& p, double& v) { v = value_of(p); });
  const index_t count = s.size();
  for (int step = 0; step < 6; ++step) {
    dom.redistribute(random_distribution<2>(rng, box, comm.size(), false));
    EXPECT_EQ(s.size(), count);
    a.for_each([&](const Point<2>& p, const double& v) {
      ASSERT_EQ(inner.distribution().owner(p), comm.rank()) << p;
      ASSERT_EQ(v, value_of(p)) << p;
    });
  }
}

TEST(RegionDomain, BadInputIsRefusedOnEveryRankAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
  const Box<2> box({0, 0}, {8, 6});
  const Distribution<2> rows(box, grid, {block(), block()});
  Domain<2> dom(comm, rows);
  EXPECT_THROW(
      {
        try {
          (void)dom.region(Box<2>({1, 1}, {9, 5}));
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), ErrorCode::out_of_range);
          EXPECT_NE(std::string(e.what()).find("[1,9)x[1,5)"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  EXPECT_THROW((void)dom.region(Box<2>({3, 1}, {2, 5})), Error);  // hi < lo
  Domain<2> inner = dom.region(Box<2>({1, 1}, {7, 5}));
  EXPECT_TRUE(inner.is_region());
  EXPECT_TRUE(inner.parent().same_as(dom));
  EXPECT_FALSE(dom.is_region());
  EXPECT_THROW((void)dom.parent(), Error);
  DistArray<double, 2> u(dom);
  DistArray<double, 2> f(inner, GhostSpec<2>::sides({1, 0}, {1, 0}));  // ghosts along rows
  u.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  f.for_each_owned([](const Point<2>& p, double& x) { x = -value_of(p); });
  const auto unchanged = [&] {
    EXPECT_TRUE(dom.distribution() == rows);
    EXPECT_TRUE(inner.distribution() == restricted(rows, inner.box()));
    expect_values(u, [](const Point<2>& p) { return value_of(p); });
    expect_values(f, [](const Point<2>& p) { return -value_of(p); });
  };
  // A region is aligned with its parent: it cannot be redistributed or migrated itself.
  const Distribution<2> inner_cols(inner.box(), ProcGrid<2>::with_shape(comm.size(), {1, comm.size()}), {block(), block()});
  EXPECT_THROW(inner.redistribute(inner_cols), Error);
  EXPECT_THROW((void)inner.migrate(inner_cols), Error);
  unchanged();
  // The parent may not leave a region outside its box ...
  EXPECT_THROW(dom.redistribute(Distribution<2>(Box<2>({0, 0}, {6, 6}), grid, {block(), block()})), Error);
  unchanged();
  // ... nor take a kind a region's array cannot keep its ghosts under: u would move, f cannot.
  if (comm.size() > 1) {
    EXPECT_THROW(dom.redistribute(Distribution<2>(box, grid, {cyclic(), block()})), Error);
    unchanged();
  }
  // A parent change that fits moves both.
  dom.redistribute(Distribution<2>(box, grid, {cut_weights(std::vector<double>(static_cast<std::size_t>(comm.size()), 1.0)), block()}));
  expect_values(f, [](const Point<2>& p) { return -value_of(p); });
}

}  // namespace
}  // namespace tessera
