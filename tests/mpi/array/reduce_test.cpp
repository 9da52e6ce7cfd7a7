// Reductions over random distributions of every kind: full reductions, min_loc/max_loc with ties,
// user operations and ZPL partial reductions along an axis, against serial results, and the same
// bits on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <limits>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// True if `value` has the same bytes on every rank.
template <class T>
bool same_everywhere(const Communicator& comm, const T& value) {
  std::vector<unsigned char> all(sizeof(T) * static_cast<std::size_t>(comm.size()));
  MPI_Allgather(&value, sizeof(T), MPI_BYTE, all.data(), sizeof(T), MPI_BYTE, comm.raw());
  for (int r = 1; r < comm.size(); ++r)
    if (std::memcmp(all.data(), all.data() + sizeof(T) * static_cast<std::size_t>(r), sizeof(T)) != 0) return false;
  return true;
}
template <class T>
bool same_everywhere(const Communicator& comm, const std::vector<T>& v) {
  std::vector<T> first = v;
  MPI_Bcast(first.data(), static_cast<int>(first.size() * sizeof(T)), MPI_BYTE, 0, comm.raw());
  const int same = std::memcmp(first.data(), v.data(), v.size() * sizeof(T)) == 0 ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm.raw());
  return all == 1;
}

/// Small values with many ties, so that the tie-break by smallest point matters.
template <std::size_t N>
std::int64_t tied(const Point<N>& p) {
  std::int64_t h = 0;
  for (std::size_t d = 0; d < N; ++d) h = h * 31 + p[d] * p[d] + 3 * p[d];
  return (h % 5 + 5) % 5 - 2;
}

template <std::size_t N>
void reduction_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(5000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto dist = any_distribution<N>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box);
    Domain<N> dom(comm, dist);
    DistArray<std::int64_t, N> a(dom);
    DistArray<double, N> x(dom);
    a.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = tied(p); });
    x.for_each_owned([](const Point<N>& p, double& v) { v = value_of(p) * 1e-3 + 1.0 / 3.0; });

    std::int64_t sum = 0, lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    Point<N> lo_at{}, hi_at{};
    double xsum = 0;
    std::int64_t xor_all = 0, product = 1;
    for (const auto& p : points(box)) {  // row-major = lexicographic: the first hit is the smallest point
      const std::int64_t v = tied(p);
      sum += v;
      if (v < lo) lo = v, lo_at = p;
      if (v > hi) hi = v, hi_at = p;
      xsum += value_of(p) * 1e-3 + 1.0 / 3.0;
      xor_all ^= v * 1000003 + p[0];
      product = (product * (v + 4)) % 1000003;
    }
    EXPECT_EQ(a.sum(), sum);
    EXPECT_EQ(a.min(), lo);
    EXPECT_EQ(a.max(), hi);
    const auto mn = a.min_loc();
    const auto mx = a.max_loc();
    EXPECT_EQ(mn.value, lo);
    EXPECT_EQ(mn.at, lo_at);
    EXPECT_EQ(mx.value, hi);
    EXPECT_EQ(mx.at, hi_at);
    // User operations (associative and commutative): xor, and a product modulo a prime.
    DistArray<std::int64_t, N> h(dom);
    h.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = tied(p) * 1000003 + p[0]; });
    EXPECT_EQ(h.reduce(0, [](std::int64_t u, std::int64_t v) { return u ^ v; }), xor_all);
    h.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = tied(p) + 4; });
    EXPECT_EQ(h.reduce(1, [](std::int64_t u, std::int64_t v) { return (u * v) % 1000003; }), product);
    const double xs = x.sum();
    EXPECT_NEAR(xs, xsum, 1e-9 * std::abs(xsum));
    EXPECT_TRUE(same_everywhere(comm, xs)) << "double sum differs between ranks";
    EXPECT_TRUE(same_everywhere(comm, mn.at));
    const auto xmin = x.min_loc();
    EXPECT_EQ(xmin.at, box.lo);  // value_of grows with the point
    EXPECT_TRUE(same_everywhere(comm, xmin.value));

    for (std::size_t axis = 0; axis < N; ++axis) {
      SCOPED_TRACE(::testing::Message() << "axis " << axis);
      // Serial reference: row-major over the box without `axis`.
      Box<N> outer = box;
      outer.hi[axis] = outer.lo[axis] + 1;
      std::vector<std::int64_t> want;
      std::vector<double> xwant;
      for (const auto& q : points(outer)) {
        std::int64_t s = 0;
        double xs2 = 0;
        for (index_t i = box.lo[axis]; i < box.hi[axis]; ++i) {
          Point<N> p = q;
          p[axis] = i;
          s += tied(p);
          xs2 += value_of(p) * 1e-3 + 1.0 / 3.0;
        }
        want.push_back(s);
        xwant.push_back(xs2);
      }
      const auto got = a.reduce_along(axis, std::int64_t{0}, std::plus<>{});
      EXPECT_TRUE(got == want);
      const auto got_max = a.reduce_along(axis, std::numeric_limits<std::int64_t>::min(),
                                          [](std::int64_t u, std::int64_t v) { return std::max(u, v); });
      ASSERT_EQ(got_max.size(), want.size());
      const auto xgot = x.reduce_along(axis, 0.0, std::plus<>{});
      ASSERT_EQ(xgot.size(), xwant.size());
      for (std::size_t i = 0; i < xgot.size(); ++i) EXPECT_NEAR(xgot[i], xwant[i], 1e-9 * std::abs(xwant[i]));
      EXPECT_TRUE(same_everywhere(comm, xgot)) << "reduce_along differs between ranks";
    }
  }
}

TEST(ArrayReduce, MatchesSerial1D) { reduction_cases<1>(40, 30); }
TEST(ArrayReduce, MatchesSerial2D) { reduction_cases<2>(40, 10); }
TEST(ArrayReduce, MatchesSerial3D) { reduction_cases<3>(25, 6); }

TEST(ArrayReduce, ErrorsAreNamed) {
  Communicator comm(MPI_COMM_WORLD);
  Domain<2> dom(comm, Distribution<2>(Box<2>({0, 0}, {3, 4}), ProcGrid<2>::automatic(comm.size(), {3, 4}),
                                      {block(), block()}));
  DistArray<double, 2> a(dom);
  try {
    (void)a.reduce_along(2, 0.0, std::plus<>{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'axis' = 2"), std::string::npos) << e.what();
  }
  Domain<1> empty(comm, Distribution<1>(Box<1>({4}, {4}), ProcGrid<1>::automatic(comm.size(), {1}), {block()}));
  DistArray<double, 1> e(empty);
  EXPECT_EQ(e.sum(), 0.0);
  EXPECT_THROW((void)e.min_loc(), Error);
}

}  // namespace
}  // namespace tessera
