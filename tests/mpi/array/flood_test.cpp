// Flooded axes (ZPL's `*`, array/flood.hpp) against serial references on random cases: every
// replica holds what a serial copy of the slice or the array says; reductions count each element
// once; reductions into a flooded axis leave the same bits on every replica; redistribution to
// and from flooded distributions, whole-array gather and scatter, index gathers and ghost updates
// work on them; what refuses them does so with an Error on every rank and changes nothing.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "named_distributions.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
std::int64_t small(const Point<N>& p) {
  std::int64_t h = 0;
  for (std::size_t d = 0; d < N; ++d) h = h * 37 + p[d] * p[d] + 5 * p[d];
  return (h % 17 + 17) % 17 - 8;
}

/// A random distribution of `box` with at least one flooded axis; the others of any kind (interval
/// kinds only where `interval_only`), on a random grid that may leave ranks out (skeletons).
template <std::size_t N>
Distribution<N> random_flooded(std::mt19937_64& rng, const Box<N>& box, int size, bool interval_only) {
  const auto grid = random_grid<N>(rng, size);
  std::array<DimSpec, N> specs;
  const auto always = static_cast<std::size_t>(rng() % N);
  for (std::size_t d = 0; d < N; ++d)
    specs[d] = d == always || rng() % 3 == 0
                   ? flooded()
                   : random_spec(rng, box.lo[d], box.hi[d], static_cast<int>(grid.extent(d)), interval_only);
  return Distribution<N>(box, grid, specs);
}

/// Every element `a` holds on this rank (its replica) equals want(point), and the rank holds
/// exactly what the distribution says it does.
template <class T, std::size_t N, class Want>
void expect_replica(const DistArray<T, N>& a, Want want) {
  index_t seen = 0;
  a.for_each_owned([&](const Point<N>& p, const T& v) {
    ++seen;
    ASSERT_EQ(v, want(p)) << "rank " << a.domain().rank() << " point " << p;
  });
  EXPECT_EQ(seen, a.distribution().local_size(a.domain().rank()));
}

template <std::size_t N>
void flood_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(1700 + N);
  for (int k = 0; k < cases; ++k) {
    const auto src_box = random_domain<N>(rng, max_extent);
    const auto src_dist = any_distribution<N>(rng, src_box, comm.size(), false);
    // A random slice of the source, flooded into an array over a box of its extents elsewhere.
    Box<N> slice, dst_box;
    for (std::size_t d = 0; d < N; ++d) {
      slice.lo[d] = src_box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(src_box, d)));
      slice.hi[d] = slice.lo[d] + 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(src_box.hi[d] - slice.lo[d]));
      dst_box.lo[d] = static_cast<index_t>(rng() % 5) - 2;
      dst_box.hi[d] = dst_box.lo[d] + (slice.hi[d] - slice.lo[d]);  // extent() of a box still empty elsewhere is 0
    }
    const auto dst_dist = random_flooded<N>(rng, dst_box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << src_dist << " over " << src_box << ", slice " << slice
                                      << " into " << dst_dist << " over " << dst_box);
    Domain<N> src_dom(comm, src_dist), dst_dom(comm, dst_dist);
    DistArray<double, N> a(src_dom), f(dst_dom);
    a.for_each_owned([](const Point<N>& p, double& v) { v = value_of(p); });
    flood(a, slice, f);
    expect_replica(f, [&](const Point<N>& p) { return value_of(p - dst_box.lo + slice.lo); });
    // Twice: the kept mover runs again and changes nothing.
    flood(a, slice, f);
    expect_replica(f, [&](const Point<N>& p) { return value_of(p - dst_box.lo + slice.lo); });
    // Reductions see each element once, whatever the number of replicas.
    std::int64_t serial_sum = 0, serial_min = std::numeric_limits<std::int64_t>::max();
    double serial_max = -1;
    for (const auto& p : points(slice)) {
      serial_sum += small(p);
      serial_min = std::min(serial_min, small(p));
      serial_max = std::max(serial_max, value_of(p));
    }
    DistArray<std::int64_t, N> fi(dst_dom);
    DistArray<std::int64_t, N> ai(src_dom);
    ai.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = small(p); });
    flood(ai, slice, fi);
    EXPECT_EQ(fi.sum(), serial_sum);
    EXPECT_EQ(f.max(), serial_max);
    EXPECT_EQ(f.max_loc().at, slice.hi - slice.lo - Point<N>::filled(1) + dst_box.lo);  // value_of grows with p
    EXPECT_EQ(fi.reduce(std::numeric_limits<std::int64_t>::max(), [](std::int64_t u, std::int64_t v) { return std::min(u, v); }),
              serial_min);
    // reduce_along: the same as over an unflooded copy.
    const auto along = static_cast<std::size_t>(rng() % N);
    Domain<N> plain_dom(comm, random_distribution<N>(rng, dst_box, comm.size(), false));
    DistArray<std::int64_t, N> plain(plain_dom);
    copy(fi, plain);  // from flooded: each reader takes its nearest replica
    EXPECT_EQ(fi.reduce_along(along, std::int64_t{0}, WrappingPlus{}),
              plain.reduce_along(along, std::int64_t{0}, WrappingPlus{}));
    std::vector<std::int64_t> serial;
    for (const auto& p : points(dst_box)) serial.push_back(small(p - dst_box.lo + slice.lo));
    EXPECT_EQ(plain.gather_to_all(), serial);
    EXPECT_EQ(fi.gather_to_all(), serial);
  }
}

TEST(ArrayFlood, FillsEveryReplicaFromASlice1D) { flood_cases<1>(12, 20); }
TEST(ArrayFlood, FillsEveryReplicaFromASlice2D) { flood_cases<2>(20, 9); }
TEST(ArrayFlood, FillsEveryReplicaFromASlice3D) { flood_cases<3>(10, 5); }

// Redistribution to a flooded distribution replicates, and from one takes the replica each
// destination needs; scatter_from writes every replica; index gathers read from flooded sources.
template <std::size_t N>
void redistribution_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(1750 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto plain = any_distribution<N>(rng, box, comm.size(), false);
    const auto flood_a = random_flooded<N>(rng, box, comm.size(), false);
    const auto flood_b = random_flooded<N>(rng, box, comm.size(), false);
    const auto back = any_distribution<N>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << plain << " -> " << flood_a << " -> " << flood_b
                                      << " -> " << back << " over " << box);
    Domain<N> dom(comm, plain);
    DistArray<std::int64_t, N> a(dom);
    a.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = small(p); });
    std::vector<std::int64_t> serial;
    std::int64_t serial_sum = 0;
    for (const auto& p : points(box)) serial.push_back(small(p)), serial_sum += small(p);
    dom.redistribute(flood_a);
    expect_replica(a, [](const Point<N>& p) { return small(p); });
    EXPECT_EQ(a.sum(), serial_sum);
    dom.redistribute(flood_b);
    expect_replica(a, [](const Point<N>& p) { return small(p); });
    EXPECT_EQ(a.gather_to_all(), serial);
    dom.redistribute(back);
    EXPECT_EQ(a.gather_to_all(), serial);
    EXPECT_EQ(a.sum(), serial_sum);

    // scatter_from root into a flooded array: every replica gets the image.
    Domain<N> fdom(comm, flood_a);
    DistArray<std::int64_t, N> s(fdom);
    const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(comm.size()));
    s.scatter_from(root, comm.rank() == root ? std::span<const std::int64_t>(serial) : std::span<const std::int64_t>());
    expect_replica(s, [](const Point<N>& p) { return small(p); });
    EXPECT_EQ(s.gather_to(root), comm.rank() == root ? serial : std::vector<std::int64_t>());

    // An index gather from the flooded array: dst(i) = s(index(i)), index reversing the box.
    Domain<N> idom(comm, any_distribution<N>(rng, box, comm.size(), false));
    DistArray<Point<N>, N> index(idom);
    DistArray<std::int64_t, N> got(idom);
    index.for_each_owned([&](const Point<N>& p, Point<N>& q) { q = box.hi - Point<N>::filled(1) - (p - box.lo); });
    gather(s, index, got);
    expect_replica(got, [&](const Point<N>& p) { return small(box.hi - Point<N>::filled(1) - (p - box.lo)); });
  }
}

TEST(ArrayFlood, RedistributesToAndFromFlooded1D) { redistribution_cases<1>(10, 20); }
TEST(ArrayFlood, RedistributesToAndFromFlooded2D) { redistribution_cases<2>(15, 8); }
TEST(ArrayFlood, RedistributesToAndFromFlooded3D) { redistribution_cases<3>(8, 5); }

/// The serial partial reduction along `reduced`, at point q of the reduced box.
template <std::size_t N>
std::int64_t serial_reduced(const Box<N>& box, const std::array<bool, N>& reduced, const Point<N>& q) {
  std::int64_t acc = 0;
  for (const auto& p : points(box)) {
    bool match = true;
    for (std::size_t d = 0; d < N; ++d) match = match && (reduced[d] || p[d] == q[d]);
    if (match) acc += small(p);
  }
  return acc;
}

// ZPL's `[1..n, *] S := +<< A`: every replica of the result holds the serial sums, with the same
// bits for a rounding floating-point sum; a flooded source counts each element once.
template <std::size_t N>
void reduce_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(1800 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto dist = rng() % 2 ? random_distribution<N>(rng, box, comm.size(), false)
                                : random_flooded<N>(rng, box, comm.size(), false);
    std::vector<std::size_t> axes;
    std::array<bool, N> reduced{};
    for (std::size_t d = 0; d < N; ++d)
      if (rng() % 2 || (d == N - 1 && axes.empty())) axes.push_back(d), reduced[d] = true;
    const auto to = flooded_reduced_distribution(dist, std::span<const std::size_t>(axes));
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box << " reduced into " << to);
    ASSERT_TRUE(to.is_flooded());
    for (std::size_t d = 0; d < N; ++d) EXPECT_EQ(to.flooded(d), reduced[d] || dist.flooded(d)) << "axis " << d;
    Domain<N> dom(comm, dist), rdom(comm, to);
    DistArray<std::int64_t, N> a(dom), r(rdom);
    a.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = small(p); });
    reduce_into(a, std::span<const std::size_t>(axes), r, std::int64_t{0}, WrappingPlus{});
    expect_replica(r, [&](const Point<N>& q) { return serial_reduced(box, reduced, q); });
    // A rounding sum: every replica holds the bits of the canonical one (gathered from rank 0's
    // nearest replica and sent to all).
    DistArray<double, N> x(dom), rx(rdom);
    x.for_each_owned([](const Point<N>& p, double& v) { v = value_of(p) * 1e-3 + 1.0 / 3.0; });
    reduce_into(x, std::span<const std::size_t>(axes), rx, 0.0, std::plus<>{});
    const auto everywhere = rx.gather_to_all();
    const Box<N>& rbox = to.domain();
    rx.for_each_owned([&](const Point<N>& q, const double& v) {
      index_t at = 0;
      for (std::size_t d = 0; d < N; ++d) at = at * extent(rbox, d) + (q[d] - rbox.lo[d]);
      const double want = everywhere[static_cast<std::size_t>(at)];
      EXPECT_EQ(std::memcmp(&v, &want, sizeof v), 0) << "replica differs at " << q;
    });
    // Into an unrelated unflooded result: the same sums.
    Domain<N> pdom(comm, any_distribution<N>(rng, rbox, comm.size(), false));
    DistArray<std::int64_t, N> p(pdom);
    reduce_into(a, std::span<const std::size_t>(axes), p, std::int64_t{0}, WrappingPlus{});
    EXPECT_EQ(p.gather_to_all(), r.gather_to_all());
  }
}

TEST(ArrayFlood, ReducesIntoAFloodedAxis2D) { reduce_cases<2>(20, 8); }
TEST(ArrayFlood, ReducesIntoAFloodedAxis3D) { reduce_cases<3>(10, 5); }

// Ghost updates over a flooded distribution fill each replica's ghosts as the serial reference
// says, periodic wraps along the flooded axis included; the replicas exchange among themselves.
template <std::size_t N>
void ghost_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(1850 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto dist = random_flooded<N>(rng, box, comm.size(), true);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box << " ghosts " << g);
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, g);
    std::fill(a.storage().begin(), a.storage().end(), kSentinel);
    a.for_each_owned([](const Point<N>& p, double& v) { v = value_of(p); });
    a.update_ghosts();
    expect_halo_reference(a.layout(), box, g, [&](index_t offset) { return a.data()[offset]; }, comm.rank());
    // No message crosses between replicas: every copy into this rank comes from its own replica.
    const auto plan = halo_plan(dist, g, comm.rank());
    for (const auto& c : plan.copies()) {
      if (c.dst_rank == comm.rank()) {
        EXPECT_TRUE(dist.reads_from(comm.rank(), c.src_rank)) << "from " << c.src_rank;
      }
    }
  }
}

TEST(ArrayFlood, GhostUpdatesFillEveryReplica2D) { ghost_cases<2>(20, 8); }
TEST(ArrayFlood, GhostUpdatesFillEveryReplica3D) { ghost_cases<3>(10, 5); }

// Pieces large enough to be relayed (remap.hpp: 64 KiB, two or more other replicas): every rank
// holds a replica of a 16384 x 4 panel whose rows are split over the ranks, so on 3 ranks or more
// each owner fills its replica, then sends the others from it (relayed_section_move_plans). Every
// replica checked against the closed form, twice (the second run reuses the kept movers).
TEST(ArrayFlood, LargePiecesAreRelayedFromTheOwnersReplica) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {16384, 4});
  const Distribution<2> rows(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), collapsed()});
  const Distribution<2> everywhere(box, ProcGrid<2>::with_shape(P, {1, P}), {collapsed(), flooded()});
  Domain<2> src_dom(comm, rows), dst_dom(comm, everywhere);
  DistArray<double, 2> src(src_dom), dst(dst_dom);
  const auto value = [](const Point<2>& p) { return static_cast<double>(p[0] * 7 + p[1]) * 0.5; };
  src.for_each_owned([&](const Point<2>& p, double& x) { x = value(p); });
  const auto plans = relayed_section_move_plans(rows, box, everywhere, box, MotionPlan<2>::identity(), comm.rank(),
                                                index_t{65536 / 8});
  EXPECT_EQ(plans.relay.size() > 0, P >= 3) << "the relay " << (P >= 3 ? "is not" : "is") << " used";
  for (int run = 0; run < 2; ++run) {
    dst.for_each_owned([](const Point<2>&, double& x) { x = -1; });
    flood(src, box, dst);
    std::size_t wrong = 0, seen = 0;
    dst.for_each_owned([&](const Point<2>& p, const double& x) {
      wrong += x != value(p);
      ++seen;
    });
    EXPECT_EQ(wrong, 0U) << "run " << run;
    EXPECT_EQ(seen, static_cast<std::size_t>(volume(box)));  // every rank holds the whole panel
  }
}

TEST(ArrayFlood, ReplicasOfAGrid) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::automatic(comm.size(), {6, 6});
  const Distribution<2> dist(Box<2>({0, 0}, {6, 4}), grid, {block(), flooded()});
  std::ostringstream printed;
  printed << dist;
  EXPECT_NE(printed.str().find("[block, flooded]"), std::string::npos) << printed.str();
  EXPECT_TRUE(dist.is_flooded());
  EXPECT_FALSE(dist.flooded(0));
  EXPECT_TRUE(dist.flooded(1));
  const auto pos = *grid.position_of(comm.rank());
  const auto replicas = dist.replicas(comm.rank());
  EXPECT_EQ(static_cast<index_t>(replicas.size()), grid.extent(1));
  for (int r : replicas) {
    EXPECT_EQ((*grid.position_of(r))[0], pos[0]);
    EXPECT_EQ(dist.owned_box(r), dist.owned_box(comm.rank()));
  }
  EXPECT_EQ(dist.is_primary(comm.rank()), pos[1] == 0);
  EXPECT_EQ(dist.owned_box(comm.rank()).lo[1], 0);
  EXPECT_EQ(dist.owned_box(comm.rank()).hi[1], 4);
  // The canonical owner has column coordinate 0; the reader's nearest replica its own column.
  const Point<2> p{dist.owned_box(comm.rank()).lo[0], 3};
  if (!dist.owned_box(comm.rank()).empty()) {
    EXPECT_EQ(dist.owner(p), grid.rank_at({pos[0], 0}));
    const auto near = dist.pieces_near(Box<2>(p, p + Point<2>::filled(1)), comm.rank());
    ASSERT_EQ(near.size(), 1u);
    EXPECT_EQ(near.front().rank, comm.rank());
    EXPECT_EQ(dist.holders(Section<2>::from_box(Box<2>(p, p + Point<2>::filled(1)))), replicas);
  }
  // The spec format says it and reads it back.
  const auto spec = parse_spec("domain=6x4 grid=" + std::to_string(grid.extent(0)) + "x" + std::to_string(grid.extent(1)) +
                               " dist=block,flooded");
  std::ostringstream again;
  again << to_distribution<2>(spec, comm.size());
  EXPECT_EQ(again.str(), printed.str());
  EXPECT_NE(to_string(spec).find("flooded"), std::string::npos);
}

TEST(ArrayFlood, BadInputIsAnErrorOnEveryRankAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {6, 5});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {6, 5});
  const Distribution<2> plain(box, grid, {block(), block()});
  const Distribution<2> panel(Box<2>({0, 0}, {6, 2}), grid, {block(), flooded()});
  Domain<2> dom(comm, plain), pdom(comm, panel);
  DistArray<std::int64_t, 2> a(dom), f(pdom), other(dom);
  a.for_each_owned([](const Point<2>& p, std::int64_t& v) { v = small(p); });
  f.for_each_owned([](const Point<2>&, std::int64_t& v) { v = 42; });
  other.for_each_owned([](const Point<2>&, std::int64_t& v) { v = 7; });
  const auto untouched = [&] { expect_replica(f, [](const Point<2>&) { return std::int64_t{42}; }); };

  // A flooded axis the grid would split, or cut per slab, or cut per rank weights.
  expect_error([&] { (void)panel.with_cuts(1, {{0, 1, 2}}); }, "flooded");
  expect_error([&] { (void)panel.slab_cuts(1); }, "is flooded");
  expect_error([&] { (void)Distribution<2>(box, grid, {flooded().with_logical_block(2), block()}); }, "never split");
  expect_error([&] { (void)Distribution<2>::from_rank_weights(box, grid, std::vector<double>(static_cast<std::size_t>(grid.size()), 1.0),
                                                               {flooded(), general()}); },
               "flooded and general");
  expect_error([&] { (void)parse_spec("domain=4x4 dist=flooded(2),block"); }, "takes none");
  // A slice that does not match, or lies outside, or a destination with no flooded axis.
  expect_error([&] { flood(a, Box<2>({0, 0}, {6, 3}), f); }, "has extents");
  expect_error([&] { flood(a, Box<2>({0, 4}, {6, 6}), f); }, "is not inside the source domain");
  expect_error([&] { flood(a, box, other); }, "has no flooded axis");
  untouched();
  // Operations that refuse flooded arrays.
  expect_error([&] { (void)dom.migrate(Distribution<2>(box, grid, {flooded(), block()})); }, "flooded");
  expect_error([&] { (void)pdom.migrate(Distribution<2>(panel.domain(), grid, {block(), block()})); }, "flooded");
  DistArray<std::int64_t, 2> out(pdom);
  expect_error([&] { scan(f, out, ScanKind::inclusive, std::int64_t{0}, WrappingPlus{}); }, "flooded");
  DistArray<Point<2>, 2> index(dom);
  index.for_each_owned([](const Point<2>& p, Point<2>& q) { q = {p[0], p[1] % 2}; });
  expect_error([&] { scatter(a, index, f); }, "flooded");
  expect_error([&] { io::save("flooded-never-written.h5", io::Attributes{}, io::named("f", f)); }, "flooded");
  expect_error([&] { (void)io::load("flooded-never-read.h5", io::named("f", f)); }, "flooded");
  expect_error([&] { (void)scalapack_descriptor(panel, no_ghosts<2>(), comm.rank(), 0, ScalapackView::transposed); },
               "flooded");
  untouched();
  EXPECT_EQ(a.distribution(), plain);
  // The valid calls after all that.
  flood(a, Box<2>({0, 3}, {6, 5}), f);
  expect_replica(f, [](const Point<2>& p) { return small(Point<2>{p[0], p[1] + 3}); });
}

}  // namespace
}  // namespace tessera
