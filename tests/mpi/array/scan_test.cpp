// Scans (scan.hpp) against serial references over distributions of every kind and random ones, on
// whatever rank count the harness runs: integer sums, max, xor and a non-commutative composition
// must give a serial left-to-right scan's values exactly; a rounding floating-point sum must give
// the bits of the documented order (segment totals, then prefixes from the line's segment totals),
// rebuilt here from the storage layouts of every rank without MPI.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "named_distributions.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// x -> a x + b modulo a prime: composing two is associative but not commutative.
struct Affine {
  std::int64_t a = 1, b = 0;
  friend bool operator==(const Affine&, const Affine&) = default;
};
constexpr std::int64_t kPrime = 1000003;
/// First f, then g.
Affine then(const Affine& f, const Affine& g) { return {g.a * f.a % kPrime, (g.a * f.b + g.b) % kPrime}; }

template <std::size_t N>
std::int64_t small(const Point<N>& p) {
  std::int64_t h = 0;
  for (std::size_t d = 0; d < N; ++d) h = h * 37 + p[d] * p[d] + 5 * p[d];
  return (h % 11 + 11) % 11 - 5;
}
template <std::size_t N>
Affine affine(const Point<N>& p) {
  return {(small(p) + 7) % kPrime, (small(p) * 3 + p[0] + 100) % kPrime};
}
template <std::size_t N>
double rounding(const Point<N>& p) {
  return value_of(p) * 1e-3 + 1.0 / 3.0;
}

/// The serial scan of `values` (row-major over `box`) along `axis` (none: the whole box in
/// row-major order), splitting each line into segments where `holder` changes (empty: one
/// segment per line). Each segment folds from `identity`; its prefix is the fold of the totals
/// before it; each element continues from its segment's prefix. With one segment per line this is
/// the plain left-to-right scan.
template <class T, std::size_t N, class Op>
std::vector<T> documented_scan(const Box<N>& box, std::optional<std::size_t> axis, const std::vector<T>& values,
                               const std::vector<int>& holder, ScanKind kind, const T& identity, Op op) {
  std::vector<T> out(values.size(), identity);
  // The lines as lists of row-major positions, in line order.
  std::vector<std::vector<std::size_t>> lines;
  if (!axis) {
    lines.emplace_back(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) lines[0][k] = k;
  } else {
    Box<N> outer = box;
    outer.hi[*axis] = outer.lo[*axis] + (box.empty() ? 0 : 1);
    index_t stride = 1;
    for (std::size_t d = *axis + 1; d < N; ++d) stride *= extent(box, d);
    for (const auto& o : points(outer)) {
      index_t first = 0;
      for (std::size_t d = 0; d < N; ++d) first = first * extent(box, d) + (o[d] - box.lo[d]);
      auto& line = lines.emplace_back();
      for (index_t i = 0; i < extent(box, *axis); ++i) line.push_back(static_cast<std::size_t>(first + i * stride));
    }
  }
  for (const auto& line : lines) {
    std::vector<T> totals;
    std::vector<std::size_t> segment_of(line.size());
    for (std::size_t k = 0; k < line.size(); ++k) {
      if (k == 0 || (!holder.empty() && holder[line[k]] != holder[line[k - 1]])) totals.push_back(identity);
      segment_of[k] = totals.size() - 1;
      totals.back() = op(totals.back(), values[line[k]]);
    }
    T prefix = identity, running = identity;
    std::size_t current = 0;
    for (std::size_t k = 0; k < line.size(); ++k) {
      if (k == 0 || segment_of[k] != segment_of[k - 1]) {
        if (k > 0)
          for (; current < segment_of[k]; ++current) prefix = op(prefix, totals[current]);
        running = prefix;
      }
      const T x = values[line[k]];
      if (kind == ScanKind::exclusive) out[line[k]] = running;
      running = op(running, x);
      if (kind == ScanKind::inclusive) out[line[k]] = running;
    }
  }
  return out;
}

/// Which (rank, patch) holds each point of the box, row-major: the segments of the documented
/// order break where it changes.
template <std::size_t N>
std::vector<int> holders(const Distribution<N>& dist) {
  const Box<N>& box = dist.domain();
  std::vector<int> out(static_cast<std::size_t>(volume(box)), -1);
  for (int r = 0; r < dist.comm_size(); ++r) {
    const auto layout = StorageLayout<N>::make(dist, r, no_ghosts<N>());
    for (std::size_t k = 0; k < layout.patches().size(); ++k) {
      const auto& patch = layout.patches()[k];
      Box<N> local;
      for (std::size_t d = 0; d < N; ++d) local.hi[d] = patch.axes[d].count;
      for (const auto& l : points(local)) {
        index_t at = 0;
        for (std::size_t d = 0; d < N; ++d)
          at = at * extent(box, d) + (patch.axes[d].global(patch.axes[d].ghost_lo + l[d]) - box.lo[d]);
        out[static_cast<std::size_t>(at)] = r * 1000 + static_cast<int>(k);
      }
    }
  }
  return out;
}

template <class T, std::size_t N, class Value>
std::vector<T> row_major(const Box<N>& box, Value value) {
  std::vector<T> out;
  for (const auto& p : points(box)) out.push_back(value(p));
  return out;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Runs one scan (`axis` empty: whole array) of `in` into `out`.
template <class T, std::size_t N, class Op>
void run_scan(const DistArray<T, N>& in, DistArray<T, N>& out, std::optional<std::size_t> axis, ScanKind kind,
              const T& identity, Op op) {
  if (axis)
    scan_along(in, *axis, out, kind, identity, op);
  else
    scan(in, out, kind, identity, op);
}

/// Every scan of arrays over `dist` against its references.
template <std::size_t N>
void check_scans(const Communicator& comm, const Distribution<N>& dist) {
  const Box<N>& box = dist.domain();
  Domain<N> dom(comm, dist);
  // `out` keeps ghosts where the distribution allows them: the scan must skip them.
  const GhostSpec<N> halo = dist.owns_boxes() ? ghosts<N>(1) : no_ghosts<N>();
  DistArray<std::int64_t, N> a(dom), s(dom, halo);
  DistArray<Affine, N> f(dom), g(dom);
  DistArray<double, N> x(dom), y(dom);
  a.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = small(p); });
  f.for_each_owned([](const Point<N>& p, Affine& v) { v = affine(p); });
  x.for_each_owned([](const Point<N>& p, double& v) { v = rounding(p); });
  const auto ints = row_major<std::int64_t>(box, small<N>);
  const auto maps = row_major<Affine>(box, affine<N>);
  const auto reals = row_major<double>(box, rounding<N>);
  const auto held = holders(dist);
  const auto max_op = [](std::int64_t u, std::int64_t v) { return std::max(u, v); };
  const auto xor_op = [](std::int64_t u, std::int64_t v) { return u ^ v; };
  const auto compose = user_op(then, {.commutative = false});
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();

  std::vector<std::optional<std::size_t>> axes{std::nullopt};
  for (std::size_t d = 0; d < N; ++d) axes.emplace_back(d);
  for (const auto& axis : axes) {
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      SCOPED_TRACE(::testing::Message() << to_string(kind) << (axis ? " along axis " : " whole array")
                                        << (axis ? std::to_string(*axis) : std::string()));
      run_scan(a, s, axis, kind, std::int64_t{0}, WrappingPlus{});
      EXPECT_EQ(s.gather_to_all(), documented_scan(box, axis, ints, {}, kind, std::int64_t{0}, std::plus<>{}));
      run_scan(a, s, axis, kind, lowest, max_op);
      EXPECT_EQ(s.gather_to_all(), documented_scan(box, axis, ints, {}, kind, lowest, max_op));
      run_scan(a, s, axis, kind, std::int64_t{0}, xor_op);
      EXPECT_EQ(s.gather_to_all(), documented_scan(box, axis, ints, {}, kind, std::int64_t{0}, xor_op));
      run_scan(f, g, axis, kind, Affine{}, compose);
      EXPECT_TRUE(g.gather_to_all() == documented_scan(box, axis, maps, {}, kind, Affine{}, then))
          << "a non-commutative operator was not applied in line order";
      run_scan(x, y, axis, kind, 0.0, std::plus<>{});
      EXPECT_TRUE(same_bits(y.gather_to_all(), documented_scan(box, axis, reals, held, kind, 0.0, std::plus<>{})))
          << "the floating-point sum did not follow the documented order";
      // In place: the same values as into another array.
      DistArray<std::int64_t, N> inplace(dom);
      inplace.for_each_owned([](const Point<N>& p, std::int64_t& v) { v = small(p); });
      run_scan(inplace, inplace, axis, kind, std::int64_t{0}, WrappingPlus{});
      EXPECT_EQ(inplace.gather_to_all(), documented_scan(box, axis, ints, {}, kind, std::int64_t{0}, std::plus<>{}));
    }
  }
  // The input is never written.
  EXPECT_EQ(a.gather_to_all(), ints);
}

template <std::size_t N>
void named_cases(const Box<N>& box) {
  Communicator comm(MPI_COMM_WORLD);
  for (const auto& [name, dist] : named_distributions(box, comm.size())) {
    SCOPED_TRACE(::testing::Message() << name << ": " << dist << " over " << box);
    check_scans(comm, dist);
  }
}

TEST(ArrayScan, EveryKindOfDistribution1D) { named_cases(Box<1>({-3}, {17})); }
TEST(ArrayScan, EveryKindOfDistribution2D) { named_cases(Box<2>({-2, 1}, {9, 8})); }
TEST(ArrayScan, EveryKindOfDistribution3D) { named_cases(Box<3>({0, -1, 2}, {5, 4, 5})); }
TEST(ArrayScan, EveryKindOfDistributionThin) { named_cases(Box<2>({0, 0}, {2, 3})); }
TEST(ArrayScan, EmptyBox) { named_cases(Box<2>({1, 1}, {1, 4})); }

template <std::size_t N>
void random_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7100 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto dist = any_distribution<N>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box);
    check_scans(comm, dist);
  }
}

// Case counts kept small: each case runs every operator, kind and axis, and the whole file runs
// on 1-5 ranks and again with each collective move algorithm forced (CI's time, under ASan too).
TEST(ArrayScan, MatchesSerial1D) { random_cases<1>(12, 40); }
TEST(ArrayScan, MatchesSerial2D) { random_cases<2>(10, 10); }
TEST(ArrayScan, MatchesSerial3D) { random_cases<3>(6, 6); }

TEST(ArrayScan, BadInputIsAnErrorAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {5, 6});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {5, 6});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  Domain<2> other(comm, Distribution<2>(box, grid, {cyclic(), block()}));
  DistArray<std::int64_t, 2> a(dom), out(dom), elsewhere(other);
  a.for_each_owned([](const Point<2>& p, std::int64_t& v) { v = small(p); });
  out.for_each_owned([](const Point<2>&, std::int64_t& v) { v = 42; });
  const auto untouched = out.gather_to_all();
  expect_error([&] { scan_along(a, 2, out, ScanKind::inclusive, std::int64_t{0}, std::plus<>{}); }, "argument 'axis' = 2");
  expect_error([&] { scan(a, elsewhere, ScanKind::inclusive, std::int64_t{0}, std::plus<>{}); }, "argument 'out'");
  expect_error([&] { scan(a, out, static_cast<ScanKind>(7), std::int64_t{0}, std::plus<>{}); }, "argument 'kind' = 7");
  const auto minus = user_op([](std::int64_t u, std::int64_t v) { return u - v; }, {.associative = false});
  expect_error([&] { scan(a, out, ScanKind::inclusive, std::int64_t{0}, minus); }, "not associative");
  expect_error([&] { scan_along(a, 0, out, ScanKind::exclusive, std::int64_t{0}, minus); }, "not associative");
  EXPECT_EQ(out.gather_to_all(), untouched);
}

}  // namespace
}  // namespace tessera
