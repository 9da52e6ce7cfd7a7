// Partial reductions into a distributed array (partial_reduce.hpp) against serial references, for
// every set of axes, over distributions of every kind and random ones: integer sums and max
// exactly, a rounding floating-point sum bit for bit against `reduce_along` (the same documented
// order), into the aligned distribution (checked: each result point on the rank owning the same
// source point) and into unrelated ones.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
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
  for (std::size_t d = 0; d < N; ++d) h = h * 41 + p[d] * p[d] + 3 * p[d];
  return (h % 13 + 13) % 13 - 6;
}
template <std::size_t N>
double rounding(const Point<N>& p) {
  return value_of(p) * 1e-3 + 1.0 / 3.0;
}

/// The serial partial reduction: row-major over the reduced box.
template <class T, std::size_t N, class Value, class Op>
std::vector<T> serial_reduce(const Box<N>& box, const std::array<bool, N>& reduced, Value value, const T& identity,
                             Op op) {
  Box<N> outer = box;
  for (std::size_t d = 0; d < N; ++d)
    if (reduced[d]) outer.hi[d] = outer.lo[d] + 1;
  std::vector<T> out;
  for (const auto& q : points(outer)) {
    T acc = identity;
    for (const auto& p : points(box)) {
      bool match = true;
      for (std::size_t d = 0; d < N; ++d) match = match && (reduced[d] || p[d] == q[d]);
      if (match) acc = op(acc, value(p));
    }
    out.push_back(acc);
  }
  return out;
}

/// Checks `reduce_into` along `axes` from arrays over `dist` into an array distributed by `to`.
template <std::size_t N>
void check_into(const Communicator& comm, const Distribution<N>& dist, const std::vector<std::size_t>& axes,
                const Distribution<N>& to) {
  const Box<N>& box = dist.domain();
  std::array<bool, N> reduced{};
  for (const auto d : axes) reduced[d] = true;
  Domain<N> dom(comm, dist), rdom(comm, to);
  DistArray<std::int64_t, N> a(dom), r(rdom);
  DistArray<double, N> x(dom), rx(rdom);
  a.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = small(p); });
  x.for_each_owned([](const Point<N>& p, double& v) { v = rounding(p); });
  const auto max_op = [](std::int64_t u, std::int64_t v) { return std::max(u, v); };
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();

  reduce_into(a, axes, r, std::int64_t{0}, WrappingPlus{});
  EXPECT_EQ(r.gather_to_all(), serial_reduce(box, reduced, small<N>, std::int64_t{0}, std::plus<>{}));
  reduce_into(a, axes, r, lowest, max_op);
  EXPECT_EQ(r.gather_to_all(), serial_reduce(box, reduced, small<N>, lowest, max_op));
  // Along one axis, the documented order is reduce_along's: the same bits.
  if (axes.size() == 1 && !box.empty()) {
    reduce_into(x, axes, rx, 0.0, std::plus<>{});
    const auto got = rx.gather_to_all();
    const auto want = x.reduce_along(axes[0], 0.0, std::plus<>{});
    EXPECT_TRUE(got.size() == want.size() && std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0)
        << "reduce_into and reduce_along folded in different orders";
  }
}

/// Every set of axes, into the aligned distribution (when there is one) and into `other(box)`.
template <std::size_t N, class Other>
void check_partial_reductions(const Communicator& comm, const Distribution<N>& dist, Other other) {
  const Box<N>& box = dist.domain();
  for (unsigned mask = 1; mask < (1u << N); ++mask) {
    std::vector<std::size_t> axes;
    std::array<bool, N> reduced{};
    for (std::size_t d = 0; d < N; ++d)
      if (mask & (1u << d)) axes.push_back(d), reduced[d] = true;
    Box<N> rbox = box;
    for (std::size_t d = 0; d < N; ++d)
      if (reduced[d]) rbox.hi[d] = rbox.lo[d] + 1;
    SCOPED_TRACE(::testing::Message() << "axes mask " << mask);
    if (!dist.is_user_defined()) {
      const auto aligned = reduced_distribution(dist, std::span<const std::size_t>(axes));
      EXPECT_EQ(aligned.domain(), rbox);
      if (!box.empty()) {
        for (const auto& q : points(rbox)) EXPECT_EQ(aligned.owner(q), dist.owner(q)) << "not aligned at " << q;
      }
      check_into(comm, dist, axes, aligned);
    } else {
      EXPECT_THROW((void)reduced_distribution(dist, std::span<const std::size_t>(axes)), Error);
    }
    check_into(comm, dist, axes, other(rbox));
  }
}

template <std::size_t N>
Distribution<N> cyclic_over(const Box<N>& box, int size) {
  Point<N> extents;
  for (std::size_t d = 0; d < N; ++d) extents[d] = extent(box, d);
  std::array<DimSpec, N> specs;
  specs.fill(cyclic());
  return Distribution<N>(box, ProcGrid<N>::automatic(size, extents), specs);
}

template <std::size_t N>
void named_cases(const Box<N>& box) {
  Communicator comm(MPI_COMM_WORLD);
  for (const auto& [name, dist] : named_distributions(box, comm.size())) {
    SCOPED_TRACE(::testing::Message() << name << ": " << dist << " over " << box);
    check_partial_reductions(comm, dist, [&](const Box<N>& b) { return cyclic_over(b, comm.size()); });
  }
}

TEST(ArrayPartialReduce, EveryKindOfDistribution1D) { named_cases(Box<1>({-3}, {17})); }
TEST(ArrayPartialReduce, EveryKindOfDistribution2D) { named_cases(Box<2>({-2, 1}, {9, 8})); }
TEST(ArrayPartialReduce, EveryKindOfDistribution3D) { named_cases(Box<3>({0, -1, 2}, {5, 4, 5})); }
TEST(ArrayPartialReduce, EveryKindOfDistributionThin) { named_cases(Box<2>({0, 0}, {2, 3})); }

// Per-slab cuts (D3-ARC's general): the aligned result keeps every slab's cuts.
TEST(ArrayPartialReduce, PerSlabCuts) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {8, 11});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {8, 11});
  std::vector<double> weights;
  for (int r = 0; r < comm.size(); ++r) weights.push_back(1.0 + r % 3);
  const auto dist = Distribution<2>::from_rank_weights(box, grid, weights, {general(), general()});
  SCOPED_TRACE(::testing::Message() << dist);
  check_partial_reductions(comm, dist, [&](const Box<2>& b) { return cyclic_over(b, comm.size()); });
}

template <std::size_t N>
void random_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(8200 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto dist = any_distribution<N>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box);
    // Every rank draws the same result distributions: the generator is seeded alike everywhere.
    check_partial_reductions(comm, dist, [&](const Box<N>& b) { return any_distribution<N>(rng, b, comm.size(), false); });
  }
}

TEST(ArrayPartialReduce, MatchesSerial1D) { random_cases<1>(20, 30); }
TEST(ArrayPartialReduce, MatchesSerial2D) { random_cases<2>(20, 10); }
TEST(ArrayPartialReduce, MatchesSerial3D) { random_cases<3>(10, 6); }

TEST(ArrayPartialReduce, BadInputIsAnErrorAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {5, 6});
  const auto dist = Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {5, 6}), {block(), block()});
  Domain<2> dom(comm, dist), rows(comm, reduced_distribution(dist, {1})), cols(comm, reduced_distribution(dist, {0}));
  DistArray<std::int64_t, 2> a(dom), r(rows), c(cols);
  a.for_each_owned([](const Point<2>& p, std::int64_t& v) { v = small(p); });
  r.for_each_owned([](const Point<2>&, std::int64_t& v) { v = 42; });
  const auto untouched = r.gather_to_all();
  const auto plus = std::plus<>{};
  expect_error([&] { reduce_into(a, {2}, r, std::int64_t{0}, plus); }, "argument 'axes' = 2");
  expect_error([&] { reduce_into(a, {1, 1}, r, std::int64_t{0}, plus); }, "named twice");
  expect_error([&] { reduce_into(a, std::span<const std::size_t>(), r, std::int64_t{0}, plus); }, "at least one axis");
  expect_error([&] { reduce_into(a, {0}, r, std::int64_t{0}, plus); }, "is not the reduced box");
  const auto ordered = user_op([](std::int64_t u, std::int64_t v) { return u * 3 + v; }, {.commutative = false});
  expect_error([&] { reduce_into(a, {1}, r, std::int64_t{0}, ordered); }, "not commutative");
  const auto minus = user_op([](std::int64_t u, std::int64_t v) { return u - v; }, {.associative = false});
  expect_error([&] { reduce_into(a, {1}, r, std::int64_t{0}, minus); }, "not associative");
  expect_error([&] { (void)reduced_distribution(dist, {3}); }, "argument 'axes' = 3");
  EXPECT_EQ(r.gather_to_all(), untouched);
  // The valid call after all that: rows reduced, columns reduced.
  reduce_into(a, {1}, r, std::int64_t{0}, plus);
  reduce_into(a, {0}, c, std::int64_t{0}, plus);
  EXPECT_EQ(r.gather_to_all(), serial_reduce(box, std::array<bool, 2>{false, true}, small<2>, std::int64_t{0}, plus));
  EXPECT_EQ(c.gather_to_all(), serial_reduce(box, std::array<bool, 2>{true, false}, small<2>, std::int64_t{0}, plus));
}

}  // namespace
}  // namespace tessera
