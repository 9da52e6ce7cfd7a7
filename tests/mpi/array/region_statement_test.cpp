// Region-scoped statements with shifted reads (ZPL's `[R] C := 2A + B@s`), on random domains,
// regions, ghost specs, storage orders (each array its own) and distributions of every kind,
// checked against a serial reference; and the statement's errors, which must leave the target as
// it was.
#include <gtest/gtest.h>
#include <mpi.h>

#include <sstream>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;
namespace bc = tessera::boundary;

constexpr double kUnwritten = -1.5;
constexpr double kOutside = 7.0;  // what B's boundary rules put outside the domain

template <std::size_t N>
StorageOrder random_order(std::mt19937_64& rng) {
  return rng() % 2 ? StorageOrder::column_major : StorageOrder::row_major;
}

// A shift that `g` covers: along axes with ghosts, within the widths; along one axis only for
// faces-only ghosts.
template <std::size_t N>
Point<N> random_covered_shift(std::mt19937_64& rng, const GhostSpec<N>& g) {
  Point<N> s;
  const auto only = static_cast<std::size_t>(rng() % N);
  for (std::size_t d = 0; d < N; ++d) {
    if (!g.corners && d != only) continue;
    const index_t span = g.lower[d] + g.upper[d] + 1;
    s[d] = static_cast<index_t>(rng() % static_cast<std::uint64_t>(span)) - g.lower[d];
  }
  return s;
}

template <std::size_t N>
Box<N> random_region(std::mt19937_64& rng, const Box<N>& box) {
  Box<N> r;
  for (std::size_t d = 0; d < N; ++d) {
    const auto ext = static_cast<std::uint64_t>(extent(box, d));
    r.lo[d] = box.lo[d] + static_cast<index_t>(rng() % ext);
    r.hi[d] = r.lo[d] + static_cast<index_t>(rng() % (ext - static_cast<std::uint64_t>(r.lo[d] - box.lo[d]) + 1));
  }
  return r;
}

template <std::size_t N>
void statement_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(61000 + N);
  index_t written = 0;
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto gb = random_ghosts<N>(rng).stored(random_order<N>(rng));
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(gb));
    const Box<N> region = rng() % 4 == 0 ? box : random_region(rng, box);
    const Point<N> s1 = random_covered_shift(rng, gb), s2 = random_covered_shift(rng, gb);
    const bool with_point = rng() % 2;
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", B " << gb << ", region " << region << ", shifts "
         << s1 << " " << s2;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, no_ghosts<N>().stored(random_order<N>(rng)));
    DistArray<float, N> b(dom, gb);  // another element type: reads need not share the target's
    DistArray<double, N> c(dom, random_ghosts<N>(rng, 1).stored(random_order<N>(rng)).periodic_along({}));
    BoundaryRules<float, N> rules;
    for (std::size_t d = 0; d < N; ++d)
      if (!gb.periodic[d]) rules.along(d, bc::constant(kOutside));
    b.set_boundary(rules);
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    b.for_each_owned([](const Point<N>& p, float& x) { x = static_cast<float>(p[0] % 1000) + 0.5f; });
    for (double& x : c.storage()) x = kUnwritten;
    b.update_ghosts();
    const auto ref_b = [&](const Point<N>& q) -> double {
      const auto w = wrap_point(box, gb.periodic, q);
      return w ? static_cast<double>(static_cast<float>((*w)[0] % 1000) + 0.5f) : kOutside;
    };
    // [region] C := 2A + B@s1 - B@s2 (+ p[0] with the point), then [region] C := C + A.
    if (with_point) {
      assign(region, c, [](const Point<N>& p, double x, float y, float z) { return 2 * x + y - z + double(p[0]); }, a,
             at(b, s1), at(b, s2));
    } else {
      assign(region, c, [](double x, float y, float z) { return 2 * x + y - z; }, a, at(b, s1), at(b, s2));
    }
    assign(region, c, [](double x, double y) { return x + y; }, c, a);
    c.for_each_owned([&](const Point<N>& p, const double& x) {
      double want = kUnwritten;
      if (contains(region, p)) {
        want = 2 * value_of(p) + ref_b(p + s1) - ref_b(p + s2) + (with_point ? double(p[0]) : 0.0);
        want += value_of(p);
        ++written;
      }
      ASSERT_EQ(x, want) << p;
    });
  }
  EXPECT_GT(comm.allreduce(written, ReduceOp::sum), 0);
}

TEST(RegionStatement, ShiftedReadsMatchSerialReference1D) { statement_cases<1>(60, 20); }
TEST(RegionStatement, ShiftedReadsMatchSerialReference2D) { statement_cases<2>(60, 10); }
TEST(RegionStatement, ShiftedReadsMatchSerialReference3D) { statement_cases<3>(40, 6); }

// The statement over a cyclic axis: reads at zero shift along it are fine (the arrays share the
// distribution, so their compacted axes match).
TEST(RegionStatement, CyclicAxesAtZeroShift) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {9, 11});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {9, 11}), {block(), block_cyclic(2)}));
  DistArray<double, 2> a(dom, GhostSpec<2>::sides({1, 0}, {1, 0})), c(dom, no_ghosts<2>().column_major());
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  a.update_ghosts();
  const Box<2> region({1, 2}, {8, 9});
  for (double& x : c.storage()) x = kUnwritten;
  assign(region, c, [](double n, double s) { return n - s; }, at(a, Point<2>{-1, 0}), at(a, Point<2>{1, 0}));
  c.for_each_owned([&](const Point<2>& p, const double& x) {
    ASSERT_EQ(x, contains(region, p) ? value_of(Point<2>{p[0] - 1, p[1]}) - value_of(Point<2>{p[0] + 1, p[1]})
                                     : kUnwritten)
        << p;
  });
  EXPECT_THROW(assign(region, c, [](double x) { return x; }, at(a, Point<2>{0, 1})), Error);  // no ghosts along 1
}

TEST(RegionStatement, BadStatementsAreErrorsAndWriteNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {8, 6});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {8, 6});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  Domain<2> other(comm, Distribution<2>(box, grid, {block(), block()}));
  DistArray<double, 2> a(dom, ghosts<2>(1).faces_only()), c(dom, ghosts<2>(1)), elsewhere(other);
  for (double& x : c.storage()) x = kUnwritten;
  const auto copy = [](double x) { return x; };
  const Point<2> east{0, 1}, far_east{0, 2}, north_east{-1, 1};
  try {
    assign(c, copy, at(a, far_east));
    ADD_FAILURE() << "a shift wider than the ghosts was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reads[0]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(0, 2)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(assign(c, copy, at(a, north_east)), Error);          // faces only: no corners
  EXPECT_THROW(assign(c, copy, at(c, east)), Error);                // the target at a shift
  EXPECT_THROW(assign(c, copy, elsewhere), Error);                  // another domain
  EXPECT_THROW(assign(Box<2>({0, 0}, {9, 6}), c, copy, a), Error);  // region beyond the box
  EXPECT_THROW(assign(c, [](const auto& acc) { return acc({0, 0}); }, around(c)), Error);
  for (double x : c.storage()) ASSERT_EQ(x, kUnwritten);
  assign(c, copy, c);  // the target at shift 0 is fine
  assign(Box<2>{}, c, copy, at(a, east));  // an empty region writes nothing
  for (double x : c.storage()) ASSERT_EQ(x, kUnwritten);
}

}  // namespace
}  // namespace tessera
