// Reductions against serial references, bit for bit, on every rank: sum, min/max with their
// points, user operations and ZPL partial reductions along every axis, over named distributions of
// every kind (block, cyclic, block-cyclic, cut with empty parts, irregular, skeleton ranks,
// user-defined) and over random ones.
//
// Two kinds of reference. Values that are multiples of 1/4 of small size add up exactly in any
// order, so their reference is the plain serial fold. Values with rounding (x/1000 + 1/3) are
// checked against the order the reductions document: every rank folds its owned elements in the
// order of `for_each_owned` (patch by patch, row-major in local storage), then the ranks' partial
// results are folded in rank order; the reference rebuilds that order from the storage layouts of
// every rank, without MPI.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "engine_checks.hpp"
#include "named_distributions.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// True if `v` has the same bytes on every rank.
template <class T>
bool same_everywhere(const Communicator& comm, const std::vector<T>& v) {
  std::uint64_t n = v.size(), n0 = n;
  MPI_Bcast(&n0, 1, MPI_UINT64_T, 0, comm.raw());
  int same = n == n0 ? 1 : 0;
  if (same) {
    std::vector<T> first = v;
    MPI_Bcast(first.data(), static_cast<int>(first.size() * sizeof(T)), MPI_BYTE, 0, comm.raw());
    same = v.empty() || std::memcmp(first.data(), v.data(), v.size() * sizeof(T)) == 0 ? 1 : 0;
  }
  int all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm.raw());
  return all == 1;
}
template <class T>
bool same_everywhere(const Communicator& comm, const T& value) {
  return same_everywhere(comm, std::vector<T>{value});
}
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Small values with many ties, so that the tie-break by smallest point matters.
template <std::size_t N>
std::int64_t tied(const Point<N>& p) {
  std::int64_t h = 0;
  for (std::size_t d = 0; d < N; ++d) h = h * 31 + p[d] * p[d] + 3 * p[d];
  return (h % 5 + 5) % 5 - 2;
}
/// Quarters: every sum of them over these domains is exact, whatever the order.
template <std::size_t N>
double quarter(const Point<N>& p) {
  return static_cast<double>(tied(p)) * 0.25 + static_cast<double>(p[0] % 3) * 0.5;
}
/// Values whose sum rounds: only the documented order gives the reference's bits.
template <std::size_t N>
double rounding(const Point<N>& p) {
  return value_of(p) * 1e-3 + 1.0 / 3.0;
}

/// The global points of every rank, in rank order, each rank's in the order of `for_each_owned`.
template <std::size_t N>
std::vector<std::vector<Point<N>>> owned_in_fold_order(const Distribution<N>& dist) {
  std::vector<std::vector<Point<N>>> out(static_cast<std::size_t>(dist.comm_size()));
  for (int r = 0; r < dist.comm_size(); ++r) {
    const auto layout = StorageLayout<N>::make(dist, r, no_ghosts<N>());
    for (const auto& patch : layout.patches()) {
      Box<N> local;  // the owned local indices, walked row-major
      for (std::size_t d = 0; d < N; ++d) local.hi[d] = patch.axes[d].count;
      for (const auto& l : points(local)) {
        Point<N> p;
        for (std::size_t d = 0; d < N; ++d) p[d] = patch.axes[d].global(patch.axes[d].ghost_lo + l[d]);
        out[static_cast<std::size_t>(r)].push_back(p);
      }
    }
  }
  return out;
}

/// `reduce`'s documented fold: per rank from `identity`, then the partials in rank order.
template <class T, std::size_t N, class Value, class Op>
T documented_reduce(const std::vector<std::vector<Point<N>>>& order, Value value, const T& identity, Op op) {
  T result = identity;
  for (const auto& rank : order) {
    T partial = identity;
    for (const auto& p : rank) partial = op(partial, value(p));
    result = op(result, partial);
  }
  return result;
}

/// `reduce_along`'s documented fold: per rank and output slot from `identity`, then the rank
/// partials of each slot in rank order (from `identity` again).
template <class T, std::size_t N, class Value, class Op>
std::vector<T> documented_reduce_along(const std::vector<std::vector<Point<N>>>& order, const Box<N>& box,
                                       std::size_t axis, Value value, const T& identity, Op op) {
  Box<N> outer = box;
  outer.hi[axis] = outer.lo[axis] + 1;
  const auto slot_of = [&](Point<N> p) {
    p[axis] = box.lo[axis];
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) k = k * extent(outer, d) + (p[d] - outer.lo[d]);
    return static_cast<std::size_t>(k);
  };
  std::vector<T> result(static_cast<std::size_t>(volume(outer)), identity);
  for (const auto& rank : order) {
    std::vector<T> partial(result.size(), identity);
    for (const auto& p : rank) partial[slot_of(p)] = op(partial[slot_of(p)], value(p));
    for (std::size_t k = 0; k < result.size(); ++k) result[k] = op(result[k], partial[k]);
  }
  return result;
}

/// Checks every reduction of arrays over `dist` against its references.
template <std::size_t N>
void check_reductions(const Communicator& comm, const Distribution<N>& dist) {
  const Box<N>& box = dist.domain();
  Domain<N> dom(comm, dist);
  DistArray<std::int64_t, N> a(dom);
  DistArray<double, N> q(dom), x(dom);
  a.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = tied(p); });
  q.for_each_owned([](const Point<N>& p, double& v) { v = quarter(p); });
  x.for_each_owned([](const Point<N>& p, double& v) { v = rounding(p); });

  // Full reductions. Serial reference in row-major order = lexicographic: the first hit of an
  // extreme value is its smallest point.
  std::int64_t sum = 0, lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  double qsum = 0, qlo = std::numeric_limits<double>::infinity(), qhi = -qlo;
  Point<N> lo_at{}, hi_at{}, qlo_at{}, qhi_at{};
  std::int64_t xor_all = 0, product = 1;
  for (const auto& p : points(box)) {
    const std::int64_t v = tied(p);
    sum += v;
    if (v < lo) lo = v, lo_at = p;
    if (v > hi) hi = v, hi_at = p;
    const double w = quarter(p);
    qsum += w;
    if (w < qlo) qlo = w, qlo_at = p;
    if (w > qhi) qhi = w, qhi_at = p;
    xor_all ^= v * 1000003 + p[0];
    product = (product * (v + 4)) % 1000003;
  }
  const auto order = owned_in_fold_order(dist);
  const double xsum = documented_reduce(order, rounding<N>, 0.0, std::plus<>{});
  const double xmax_abs =
      documented_reduce(order, rounding<N>, 0.0, [](double u, double v) { return std::abs(u) < std::abs(v) ? v : u; });

  const std::int64_t got_sum = a.sum();
  EXPECT_EQ(got_sum, sum);
  EXPECT_TRUE(same_everywhere(comm, got_sum));
  const double got_qsum = q.sum();
  EXPECT_TRUE(same_bits(got_qsum, qsum)) << got_qsum << " != " << qsum;
  EXPECT_TRUE(same_everywhere(comm, got_qsum));
  const double got_xsum = x.sum();
  EXPECT_TRUE(same_bits(got_xsum, xsum)) << got_xsum << " != " << xsum << " (documented order)";
  EXPECT_TRUE(same_everywhere(comm, got_xsum));
  const double got_xmax_abs = x.reduce(0.0, [](double u, double v) { return std::abs(u) < std::abs(v) ? v : u; });
  EXPECT_TRUE(same_bits(got_xmax_abs, xmax_abs));

  if (box.empty()) {
    EXPECT_THROW((void)a.min_loc(), Error);
    EXPECT_THROW((void)q.max(), Error);
  } else {
    const std::int64_t mn = a.min(), mx = a.max();
    EXPECT_EQ(mn, lo);
    EXPECT_EQ(mx, hi);
    const auto amin = a.min_loc(), amax = a.max_loc();
    EXPECT_EQ(amin.value, lo);
    EXPECT_EQ(amin.at, lo_at);
    EXPECT_EQ(amax.value, hi);
    EXPECT_EQ(amax.at, hi_at);
    const auto qmin = q.min_loc(), qmax = q.max_loc();
    EXPECT_TRUE(same_bits(qmin.value, qlo));
    EXPECT_EQ(qmin.at, qlo_at);
    EXPECT_TRUE(same_bits(qmax.value, qhi));
    EXPECT_EQ(qmax.at, qhi_at);
    EXPECT_TRUE(same_bits(q.min(), qlo));
    EXPECT_TRUE(same_bits(q.max(), qhi));
    EXPECT_TRUE(same_everywhere(comm, std::vector<std::int64_t>{mn, mx, amin.value, amax.value}));
    EXPECT_TRUE(same_everywhere(comm, std::vector<Point<N>>{amin.at, amax.at, qmin.at, qmax.at}));
    EXPECT_TRUE(same_everywhere(comm, std::vector<double>{qmin.value, qmax.value}));
    const auto xmin = x.min_loc();
    EXPECT_EQ(xmin.at, box.lo);  // `rounding` grows with the point
    EXPECT_TRUE(same_bits(xmin.value, rounding(box.lo)));
  }

  // User operations (associative and commutative): xor, and a product modulo a prime.
  DistArray<std::int64_t, N> h(dom);
  h.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = tied(p) * 1000003 + p[0]; });
  const std::int64_t got_xor = h.reduce(0, [](std::int64_t u, std::int64_t v) { return u ^ v; });
  EXPECT_EQ(got_xor, xor_all);
  h.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = tied(p) + 4; });
  const std::int64_t got_product = h.reduce(1, [](std::int64_t u, std::int64_t v) { return (u * v) % 1000003; });
  EXPECT_EQ(got_product, product);
  EXPECT_TRUE(same_everywhere(comm, std::vector<std::int64_t>{got_xor, got_product}));

  for (std::size_t axis = 0; axis < N; ++axis) {
    SCOPED_TRACE(::testing::Message() << "axis " << axis);
    // Serial reference: row-major over the box without `axis`.
    Box<N> outer = box;
    outer.hi[axis] = outer.lo[axis] + (box.empty() ? 0 : 1);
    std::vector<std::int64_t> want_sum, want_max;
    std::vector<double> want_qsum;
    for (const auto& o : points(outer)) {
      std::int64_t s = 0, m = std::numeric_limits<std::int64_t>::min();
      double qs = 0;
      for (index_t i = box.lo[axis]; i < box.hi[axis]; ++i) {
        Point<N> p = o;
        p[axis] = i;
        s += tied(p);
        m = std::max(m, tied(p));
        qs += quarter(p);
      }
      want_sum.push_back(s);
      want_max.push_back(m);
      want_qsum.push_back(qs);
    }
    const auto max_op = [](std::int64_t u, std::int64_t v) { return std::max(u, v); };
    const auto got_sum_along = a.reduce_along(axis, std::int64_t{0}, std::plus<>{});
    const auto got_max_along = a.reduce_along(axis, std::numeric_limits<std::int64_t>::min(), max_op);
    const auto got_qsum_along = q.reduce_along(axis, 0.0, std::plus<>{});
    const auto got_xsum_along = x.reduce_along(axis, 0.0, std::plus<>{});
    if (!box.empty()) {  // an empty box reduces to whatever its empty-extent outputs are
      EXPECT_TRUE(got_sum_along == want_sum);
      EXPECT_TRUE(got_max_along == want_max);
      EXPECT_TRUE(same_bits(got_qsum_along, want_qsum));
      EXPECT_TRUE(same_bits(got_xsum_along, documented_reduce_along(order, box, axis, rounding<N>, 0.0, std::plus<>{})))
          << "reduce_along did not fold in the documented order";
    }
    EXPECT_TRUE(same_everywhere(comm, got_sum_along));
    EXPECT_TRUE(same_everywhere(comm, got_max_along));
    EXPECT_TRUE(same_everywhere(comm, got_qsum_along));
    EXPECT_TRUE(same_everywhere(comm, got_xsum_along)) << "reduce_along differs between ranks";
  }
}

template <std::size_t N>
void named_cases(const Box<N>& box) {
  Communicator comm(MPI_COMM_WORLD);
  for (const auto& [name, dist] : named_distributions(box, comm.size())) {
    SCOPED_TRACE(::testing::Message() << name << ": " << dist << " over " << box);
    check_reductions(comm, dist);
  }
}

TEST(ArrayReduce, EveryKindOfDistribution1D) { named_cases(Box<1>({-3}, {17})); }
TEST(ArrayReduce, EveryKindOfDistribution2D) { named_cases(Box<2>({-2, 1}, {9, 8})); }
TEST(ArrayReduce, EveryKindOfDistribution3D) { named_cases(Box<3>({0, -1, 2}, {5, 4, 5})); }
// Fewer indices than ranks along axis 0: some ranks own nothing under every kind.
TEST(ArrayReduce, EveryKindOfDistributionThin) { named_cases(Box<2>({0, 0}, {2, 3})); }

template <std::size_t N>
void random_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(5000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto dist = any_distribution<N>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box);
    check_reductions(comm, dist);
  }
}

TEST(ArrayReduce, MatchesSerial1D) { random_cases<1>(30, 30); }
TEST(ArrayReduce, MatchesSerial2D) { random_cases<2>(30, 10); }
TEST(ArrayReduce, MatchesSerial3D) { random_cases<3>(20, 6); }

TEST(ArrayReduce, ErrorsAreNamed) {
  Communicator comm(MPI_COMM_WORLD);
  Domain<2> dom(
      comm, Distribution<2>(Box<2>({0, 0}, {3, 4}), ProcGrid<2>::automatic(comm.size(), {3, 4}), {block(), block()}));
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
  try {
    (void)e.max();
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("DistArray::max_loc"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("is empty"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace tessera
