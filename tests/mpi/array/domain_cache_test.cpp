// gather_to(root, span) against a serial reference, the movers a domain keeps between calls in its
// exchange cache (Domain::cache(), plan/exchange_cache.hpp), and the tiled copy kernels on transposes large enough
// for whole tiles (16 x 16 elements) and ragged edges, for elements of 4, 8, 16 and 24 bytes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

struct Particle {  // 24 bytes: the kernels' generic element size
  std::int32_t id;
  double mass;
  char tag;
  friend bool operator==(const Particle&, const Particle&) = default;
};

template <class T, std::size_t N>
T make(const Point<N>& p, int round = 0) {
  const double v = value_of(p) + 1000.0 * round;
  if constexpr (std::is_same_v<T, double>) return v;
  else if constexpr (std::is_same_v<T, std::int32_t>) return static_cast<std::int32_t>(static_cast<std::int64_t>(v * 4.0) % 2000000011);
  else if constexpr (std::is_same_v<T, std::complex<double>>) return {v, -v / 3.0};
  else return Particle{static_cast<std::int32_t>(v), v * 0.5, static_cast<char>('a' + static_cast<int>(v) % 26)};
}

template <class T, std::size_t N>
void fill_round(DistArray<T, N>& a, int round) {
  a.for_each_owned([&](const Point<N>& p, T& x) { x = make<T>(p, round); });
}

// --- gather_to(root, span) ---------------------------------------------------------------------

template <class T, std::size_t N>
void gather_span_trials(int cases, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(comm.size()));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g << ", root " << root;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<T, N> a(dom, g);
    std::vector<T> out(comm.rank() == root ? static_cast<std::size_t>(volume(box)) : 0);
    for (int round = 0; round < 3; ++round) {  // rounds 1 and 2 run the kept schedule and mover
      fill_round(a, round);
      a.gather_to(root, std::span<T>(out));
      if (comm.rank() == root) {
        std::size_t i = 0;
        for (const auto& p : points(box)) ASSERT_EQ(out[i++], (make<T, N>(p, round))) << p << ", round " << round;
      }
      ASSERT_TRUE(a.gather_to(root) == out);  // the vector form agrees
    }
  }
}

TEST(GatherToSpan, MatchesSerialReference1D) { gather_span_trials<double, 1>(30, 30, 100); }
TEST(GatherToSpan, MatchesSerialReference2D) { gather_span_trials<double, 2>(30, 10, 101); }
TEST(GatherToSpan, MatchesSerialReference3D) { gather_span_trials<std::complex<double>, 3>(20, 6, 102); }
TEST(GatherToSpan, MatchesSerialReferenceInt32) { gather_span_trials<std::int32_t, 2>(20, 10, 103); }
TEST(GatherToSpan, MatchesSerialReferenceStruct) { gather_span_trials<Particle, 2>(20, 10, 104); }

TEST(GatherToSpan, WrongSizeOnRootIsAnErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {5, 7});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {5, 7}), {block(), cyclic()}));
  DistArray<double, 2> a(dom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const int root = comm.size() - 1;
  for (const std::size_t size : {std::size_t{0}, std::size_t{34}, std::size_t{36}}) {
    // Only the root's span counts: the others pass one of the right size, which is not touched.
    std::vector<double> mine(comm.rank() == root ? size : 35, kSentinel);
    try {
      a.gather_to(root, std::span<double>(mine));
      FAIL() << "no error for " << size << " elements on root";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("'out'"), std::string::npos) << e.what();
    }
    for (double x : mine) ASSERT_EQ(x, kSentinel);  // nothing written anywhere
  }
  std::vector<double> right(comm.rank() == 0 ? 35 : 0);
  EXPECT_THROW(a.gather_to(comm.size(), std::span<double>(right)), Error);
  EXPECT_THROW(a.gather_to(-1, std::span<double>(right)), Error);
  a.gather_to(0, std::span<double>(right));  // and the array still gathers after the errors
  if (comm.rank() == 0) {
    std::size_t i = 0;
    for (const auto& p : points(box)) EXPECT_EQ(right[i++], value_of(p));
  }
}

// More ranks than indices: most ranks own nothing; an empty domain gathers nothing.
TEST(GatherToSpan, EmptyRanksAndEmptyDomain) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(177);
  for (int k = 0; k < 30; ++k) {
    const Box<2> box({0, -1}, {1 + static_cast<index_t>(rng() % 2), 1});
    const auto dist = any_distribution<2>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist);
    Domain<2> dom(comm, dist);
    DistArray<double, 2> a(dom);
    a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    const int root = k % comm.size();
    std::vector<double> out(comm.rank() == root ? static_cast<std::size_t>(volume(box)) : 0);
    a.gather_to(root, std::span<double>(out));
    if (comm.rank() == root) {
      std::size_t i = 0;
      for (const auto& p : points(box)) EXPECT_EQ(out[i++], value_of(p));
    }
  }
  const Box<1> empty({3}, {3});
  Domain<1> dom(comm, Distribution<1>(empty, ProcGrid<1>::automatic(comm.size(), {1}), {block()}));
  DistArray<double, 1> a(dom);
  a.gather_to(0, std::span<double>());
}

// --- tiled transposes ---------------------------------------------------------------------------

template <class T>
void tiled_transpose_trials(int trials, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    // Extents around the tile edge and its multiples: whole tiles and ragged edges on both axes.
    constexpr std::array<index_t, 6> extents{1, 15, 16, 17, 40, 67};
    const index_t n0 = extents[rng() % extents.size()], n1 = extents[rng() % extents.size()];
    const Box<2> sbox({0, 0}, {n0, n1}), dbox({-2, 5}, {n1 - 2, n0 + 5});
    const bool rows = rng() % 2 == 0;  // rows on both sides (FFTW's layout) or anything
    const auto sdist = rows ? Distribution<2>(sbox, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}),
                                              {block(), block()})
                            : any_distribution<2>(rng, sbox, comm.size(), false);
    const auto ddist = rows ? Distribution<2>(dbox, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}),
                                              {block(), block()})
                            : any_distribution<2>(rng, dbox, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sdist << " -> " << ddist);
    Domain<2> sd(comm, sdist), dd(comm, ddist);
    DistArray<T, 2> a(sd), b(dd);
    for (int round = 0; round < 2; ++round) {
      fill_round(a, round);
      transpose(a, b, {1, 0});
      b.for_each_owned([&](const Point<2>& q, const T& x) {
        const Point<2> p{q[1] - dbox.lo[1], q[0] - dbox.lo[0]};
        ASSERT_EQ(x, (make<T, 2>(p, round))) << q;
      });
    }
  }
}

TEST(TiledTranspose, Int32) { tiled_transpose_trials<std::int32_t>(25, 200); }
TEST(TiledTranspose, Double) { tiled_transpose_trials<double>(25, 201); }
TEST(TiledTranspose, Complex) { tiled_transpose_trials<std::complex<double>>(25, 202); }
TEST(TiledTranspose, Struct) { tiled_transpose_trials<Particle>(15, 203); }

// --- the domain's exchange cache ----------------------------------------------------------------

// Several arrays of several element types over two domains, transposed, copied and gathered again
// and again with new values: every result right, later rounds served by kept movers.
TEST(DomainCache, RepeatedRemapsOfSeveralArraysAndTypes) {
  Communicator comm(MPI_COMM_WORLD);
  const index_t n = 37, m = 21;
  const Box<2> box({0, 0}, {n, m}), tbox({0, 0}, {m, n});
  Domain<2> sd(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {n, m}), {block(), block()}));
  Domain<2> other(comm, Distribution<2>(box, ProcGrid<2>::with_shape(comm.size(), {1, comm.size()}),
                                        {block(), cyclic()}));
  Domain<2> td(comm, Distribution<2>(tbox, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}),
                                     {cyclic(), block()}));
  DistArray<double, 2> a(sd, ghosts<2>(1)), a_other(other), a_t(td);
  DistArray<std::int32_t, 2> b(sd), b_other(other), b_t(td);
  DistArray<Particle, 2> c(sd), c_t(td);
  std::vector<double> all_a(comm.rank() == 0 ? static_cast<std::size_t>(n * m) : 0);
  std::vector<Particle> all_c(comm.rank() == comm.size() - 1 ? static_cast<std::size_t>(n * m) : 0);
  const auto check_t = [&](const auto& t, auto type_tag, int round) {
    using T = decltype(type_tag);
    t.for_each_owned([&](const Point<2>& q, const T& x) { ASSERT_EQ(x, (make<T, 2>(Point<2>{q[1], q[0]}, round))); });
  };
  const auto check_same = [&](const auto& t, auto type_tag, int round) {
    using T = decltype(type_tag);
    t.for_each_owned([&](const Point<2>& p, const T& x) { ASSERT_EQ(x, (make<T, 2>(p, round))); });
  };
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(::testing::Message() << "round " << round);
    fill_round(a, round);
    fill_round(b, round);
    fill_round(c, round);
    transpose(a, a_t, {1, 0});
    transpose(b, b_t, {1, 0});
    transpose(c, c_t, {1, 0});
    copy(a, a_other);
    copy(b, b_other);
    a.gather_to(0, std::span<double>(all_a));
    c.gather_to(comm.size() - 1, std::span<Particle>(all_c));
    check_t(a_t, double{}, round);
    check_t(b_t, std::int32_t{}, round);
    check_t(c_t, Particle{}, round);
    check_same(a_other, double{}, round);
    check_same(b_other, std::int32_t{}, round);
    std::size_t i = 0;
    for (const auto& p : points(box)) {
      if (comm.rank() == 0) {
        ASSERT_EQ(all_a[i], (make<double, 2>(p, round)));
      }
      if (comm.rank() == comm.size() - 1) {
        ASSERT_EQ(all_c[i], (make<Particle, 2>(p, round)));
      }
      ++i;
    }
  }
  // Transposes into td, copies into `other`, gathers from sd: each domain kept its movers and
  // served rounds 1..3 from them.
  EXPECT_EQ(td.cache().stats().executor_misses, 3u);  // double, int32 and Particle share one schedule, not one mover
  EXPECT_EQ(td.cache().stats().executor_hits, 9u);
  EXPECT_EQ(td.cache().stats().schedule_misses, 2u);  // a has ghosts, b and c not: two source layouts
  EXPECT_EQ(other.cache().stats().executor_misses, 2u);
  EXPECT_EQ(sd.cache().stats().executor_misses, 2u);  // a's gather to 0 and c's to the last rank
  EXPECT_EQ(sd.cache().stats().executor_hits, 6u);
  EXPECT_LE(td.cache().size(), td.cache().max_entries());
}

// Distinct remaps beyond the bounds: the cache never keeps more than it may, results stay right,
// and every rank evicts alike (a mismatch would hang or mix messages up).
TEST(DomainCache, StaysBounded) {
  Communicator comm(MPI_COMM_WORLD);
  const index_t n = 30;
  const Box<2> box({0, 0}, {n, n});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {n, n}), {block(), cyclic()}));
  DistArray<double, 2> a(dom), b(dom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const auto shifted_copy = [&](index_t s) {  // a distinct schedule per s
    const Box<2> from({0, 0}, {n - s, n - s});
    b.for_each_owned([](const Point<2>&, double& x) { x = kSentinel; });
    copy_section(a, from, b, Point<2>{s, s});
    b.for_each_owned([&](const Point<2>& q, const double& x) {
      const bool inside = q[0] >= s && q[1] >= s;
      ASSERT_EQ(x, inside ? value_of(Point<2>{q[0] - s, q[1] - s}) : kSentinel) << q << ", shift " << s;
    });
  };
  // Each shifted copy keeps a schedule and a mover: 6 entries hold three copies' worth.
  ExchangeCache& cache = dom.cache();
  cache.set_limits(6, ExchangeCache::kDefaultMaxBytes);
  for (int pass = 0; pass < 2; ++pass)
    for (index_t s = 0; s < 6; ++s) {
      shifted_copy(s);
      ASSERT_LE(cache.size(), 6u);
      ASSERT_LE(cache.stats().executors, 3u);
    }
  EXPECT_EQ(cache.stats().executor_hits, 0u);  // 6 distinct copies in turn through 3 places: LRU never hits
  shifted_copy(5);
  EXPECT_EQ(cache.stats().executor_hits, 1u);
  EXPECT_LE(cache.bytes(), cache.max_bytes());
  cache.set_limits(16, 1);  // every mover is charged more than a byte: none kept (schedules, charged 0, are)
  EXPECT_EQ(cache.stats().executors, 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  for (index_t s = 0; s < 3; ++s) shifted_copy(s);
  EXPECT_EQ(cache.stats().executors, 0u);
  EXPECT_GT(cache.stats().not_kept, 0u);
  cache.set_limits(0, ExchangeCache::kDefaultMaxBytes);  // caching off: neither schedules nor movers
  shifted_copy(2);
  EXPECT_EQ(cache.size(), 0u);
  cache.set_limits(ExchangeCache::kDefaultMaxEntries, ExchangeCache::kDefaultMaxBytes);
  shifted_copy(1);
  EXPECT_EQ(cache.stats().executors, 1u);
  EXPECT_EQ(cache.stats().schedules, 1u);
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  shifted_copy(1);
}

}  // namespace
}  // namespace tessera
