// Remaps between arrays (remap.hpp): copy, copy_section (shifted, zoom, in place with overlap),
// transpose, and index-array gather/scatter, each over random distributions of every kind
// (skeleton ranks and the user-defined Morton distribution included), checked element by element
// against a serial reference; and every error path, which must throw on every rank with nothing
// written.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <sstream>
#include <string>

#include "engine_checks.hpp"
#include "tessera/array/remap.hpp"
#include "tessera/tessera.hpp"
namespace tessera {
namespace {

using namespace tessera::testing;

/// A random distribution of any kind (Morton included); `interval_only` as a braced list of flags.
template <std::size_t N>
Distribution<N> any_distribution(std::mt19937_64& rng, const Box<N>& box, int comm_size,
                                 const std::array<bool, N>& interval_only) {
  return testing::any_distribution<N>(rng, box, comm_size, interval_only);
}

/// Ghost layers of width 0 or 1 on each side of dimension 0 only, so the others take every kind.
template <std::size_t N>
GhostSpec<N> dim0_ghosts(std::mt19937_64& rng) {
  Point<N> lo, hi;
  lo[0] = static_cast<index_t>(rng() % 2);
  hi[0] = static_cast<index_t>(rng() % 2);
  return GhostSpec<N>::sides(lo, hi);
}

/// Every stored element (ghosts too) set to kSentinel, then every owned one to f(point).
template <class T, std::size_t N, class F>
void fill(DistArray<T, N>& a, F f) {
  std::fill(a.storage().begin(), a.storage().end(), static_cast<T>(kSentinel));
  a.for_each_owned([&](const Point<N>& p, T& x) { x = f(p); });
}

/// Ghost layers still hold kSentinel (owned values never do in these tests).
template <class T, std::size_t N>
void expect_ghosts_untouched(const DistArray<T, N>& a) {
  std::size_t owned = 0;
  a.for_each_owned([&](const Point<N>&, const T&) { ++owned; });
  const auto sentinels = std::count(a.storage().begin(), a.storage().end(), static_cast<T>(kSentinel));
  EXPECT_EQ(static_cast<std::size_t>(sentinels), a.storage().size() - owned) << "a ghost layer was written";
}

/// Calls f() and expects an `Error` with `code` whose message contains `needle`.
template <class F>
void expect_error(ErrorCode code, F&& f, const std::string& needle = "") {
  try {
    f();
    ADD_FAILURE() << "no tessera::Error thrown (expected " << static_cast<int>(code) << ")";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(code)) << e.what();
    if (!needle.empty()) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

/// A random point of `box` determined by `i` and `salt` alone, so every rank computes the same.
template <std::size_t N, std::size_t M>
Point<N> index_of(const Point<M>& i, const Box<N>& box, std::uint64_t salt, index_t spread = 0) {
  std::uint64_t h = hash_value(i) ^ (salt * 0x9E3779B97F4A7C15ULL);
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d) {
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    index_t range = box.hi[d] - box.lo[d];
    if (spread > 0) range = std::min(range, spread);  // few targets: many-to-one
    p[d] = box.lo[d] + static_cast<index_t>(h % static_cast<std::uint64_t>(range));
  }
  return p;
}

// --- copy -----------------------------------------------------------------------------------------

template <std::size_t N>
void copy_trials(int trials, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto gs = dim0_ghosts<N>(rng), gd = dim0_ghosts<N>(rng);
    Domain<N> sd(comm, any_distribution<N>(rng, box, comm.size(), ghosted_dims(gs)));
    Domain<N> dd(comm, any_distribution<N>(rng, box, comm.size(), ghosted_dims(gd)));
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sd.distribution() << " -> " << dd.distribution());
    DistArray<double, N> a(sd, gs), b(dd, gd);
    fill(a, [](const Point<N>& p) { return value_of(p); });
    fill(b, [](const Point<N>& p) { return -value_of(p); });
    copy(a, b);
    b.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    expect_ghosts_untouched(b);
    copy(b, b);  // the same array: nothing changes
    b.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
  }
}

TEST(RemapCopy, RandomDistributions1D) { copy_trials<1>(40, 40, 11); }
TEST(RemapCopy, RandomDistributions2D) { copy_trials<2>(60, 10, 12); }
TEST(RemapCopy, RandomDistributions3D) { copy_trials<3>(30, 6, 13); }

// --- copy_section ---------------------------------------------------------------------------------

/// A random non-empty box of extents fitting both `a` and `b`, inside `a`; and a low corner in `b`.
template <std::size_t N>
std::pair<Box<N>, Point<N>> random_section(std::mt19937_64& rng, const Box<N>& a, const Box<N>& b) {
  Box<N> s;
  Point<N> lo;
  for (std::size_t d = 0; d < N; ++d) {
    const index_t ea = extent(a, d), eb = extent(b, d);
    const index_t e = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(std::min(ea, eb)));
    s.lo[d] = a.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(ea - e + 1));
    s.hi[d] = s.lo[d] + e;
    lo[d] = b.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(eb - e + 1));
  }
  return {s, lo};
}

template <std::size_t N>
void section_trials(int trials, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const auto abox = random_domain<N>(rng, max_extent), bbox = random_domain<N>(rng, max_extent);
    const auto gs = dim0_ghosts<N>(rng), gd = dim0_ghosts<N>(rng);
    Domain<N> sd(comm, any_distribution<N>(rng, abox, comm.size(), ghosted_dims(gs)));
    Domain<N> dd(comm, any_distribution<N>(rng, bbox, comm.size(), ghosted_dims(gd)));
    const auto [sbox, dlo] = random_section<N>(rng, abox, bbox);
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sbox << " of " << sd.distribution() << " -> "
                                      << dlo << " of " << dd.distribution());
    DistArray<double, N> a(sd, gs), b(dd, gd);
    fill(a, [](const Point<N>& p) { return value_of(p); });
    fill(b, [](const Point<N>& p) { return -value_of(p); });
    copy_section(a, sbox, b, dlo);
    const Box<N> dbox = Box<N>::from_extents(dlo, extents(sbox));
    b.for_each_owned([&](const Point<N>& q, const double& x) {
      ASSERT_EQ(x, contains(dbox, q) ? value_of(q - dlo + sbox.lo) : -value_of(q)) << q;
    });
    expect_ghosts_untouched(b);
  }
}

TEST(RemapCopySection, ShiftedAndZoomCopies1D) { section_trials<1>(40, 40, 21); }
TEST(RemapCopySection, ShiftedAndZoomCopies2D) { section_trials<2>(60, 10, 22); }
TEST(RemapCopySection, ShiftedAndZoomCopies3D) { section_trials<3>(30, 6, 23); }

/// src and dst the same array, boxes overlapping: as if every element were read before any write.
template <std::size_t N>
void in_place_trials(int trials, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  int overlapping = 0;
  for (int t = 0; t < trials; ++t) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = dim0_ghosts<N>(rng);
    Domain<N> dom(comm, any_distribution<N>(rng, box, comm.size(), ghosted_dims(g)));
    // A section a little smaller than the box, moved by a small shift (clamped into the box), so
    // that source and destination mostly overlap without coinciding.
    Box<N> sbox;
    Point<N> dlo;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t eb = extent(box, d);
      const index_t e = std::max<index_t>(1, eb - 1 - static_cast<index_t>(rng() % static_cast<std::uint64_t>(eb)) / 2);
      sbox.lo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(eb - e + 1));
      sbox.hi[d] = sbox.lo[d] + e;
      dlo[d] = std::clamp(sbox.lo[d] + static_cast<index_t>(rng() % 5) - 2, box.lo[d], box.hi[d] - e);
    }
    const Box<N> dbox = Box<N>::from_extents(dlo, extents(sbox));
    overlapping += intersects(sbox, dbox) && sbox != dbox ? 1 : 0;
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sbox << " -> " << dlo << " of "
                                      << dom.distribution());
    DistArray<double, N> a(dom, g);
    fill(a, [](const Point<N>& p) { return value_of(p); });
    copy_section(a, sbox, a, dlo);
    a.for_each_owned([&](const Point<N>& q, const double& x) {
      ASSERT_EQ(x, contains(dbox, q) ? value_of(q - dlo + sbox.lo) : value_of(q)) << q;
    });
    expect_ghosts_untouched(a);
  }
  EXPECT_GT(overlapping, trials / 5) << "too few overlapping trials to mean anything";
}

/// src and dst the same array, boxes disjoint (moved by a whole extent along one axis): no staging
/// copy is made then (remap.hpp, move_section), so this checks that none was needed.
template <std::size_t N>
void disjoint_in_place_trials(int trials, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    auto box = random_domain<N>(rng, max_extent);
    box.hi[0] = box.lo[0] + std::max<index_t>(2, extent(box, 0));  // room for two halves along axis 0
    const auto g = dim0_ghosts<N>(rng);
    Domain<N> dom(comm, any_distribution<N>(rng, box, comm.size(), ghosted_dims(g)));
    // A section of the lower part along axis 0, copied just above itself (or further up).
    Box<N> sbox;
    Point<N> dlo;
    const index_t e0 = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, 0) / 2));
    sbox.lo[0] = box.lo[0] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, 0) - 2 * e0 + 1));
    sbox.hi[0] = sbox.lo[0] + e0;
    dlo[0] = sbox.hi[0] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(box.hi[0] - e0 - sbox.hi[0] + 1));
    for (std::size_t d = 1; d < N; ++d) {
      const index_t eb = extent(box, d);
      const index_t e = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(eb));
      sbox.lo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(eb - e + 1));
      sbox.hi[d] = sbox.lo[d] + e;
      dlo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(eb - e + 1));
    }
    const Box<N> dbox = Box<N>::from_extents(dlo, extents(sbox));
    ASSERT_FALSE(intersects(sbox, dbox)) << sbox << " " << dbox;
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sbox << " -> " << dlo << " of "
                                      << dom.distribution());
    DistArray<double, N> a(dom, g);
    fill(a, [](const Point<N>& p) { return value_of(p); });
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second run reuses the kept mover
      copy_section(a, sbox, a, dlo);
      a.for_each_owned([&](const Point<N>& q, const double& x) {
        ASSERT_EQ(x, contains(dbox, q) ? value_of(q - dlo + sbox.lo) : value_of(q)) << q;
      });
    }
    expect_ghosts_untouched(a);
  }
}

TEST(RemapCopySection, SameArrayDisjoint1D) { disjoint_in_place_trials<1>(40, 30, 34); }
TEST(RemapCopySection, SameArrayDisjoint2D) { disjoint_in_place_trials<2>(40, 9, 35); }
TEST(RemapCopySection, SameArrayDisjoint3D) { disjoint_in_place_trials<3>(40, 7, 36); }

TEST(RemapCopySection, SameArrayOverlapping1D) { in_place_trials<1>(80, 30, 31); }
TEST(RemapCopySection, SameArrayOverlapping2D) { in_place_trials<2>(80, 9, 32); }
TEST(RemapCopySection, SameArrayOverlapping3D) { in_place_trials<3>(80, 7, 33); }

// --- transpose ------------------------------------------------------------------------------------

template <std::size_t N>
void transpose_trials(int trials, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    std::array<int, N> perm;
    std::iota(perm.begin(), perm.end(), 0);
    if (N == 2) perm = {1, 0};  // the transpose proper
    else std::shuffle(perm.begin(), perm.end(), rng);
    const auto sbox = random_domain<N>(rng, max_extent);
    Box<N> dbox;
    for (std::size_t d = 0; d < N; ++d) {
      dbox.lo[d] = static_cast<index_t>(rng() % 7) - 3;
      dbox.hi[d] = dbox.lo[d] + extent(sbox, static_cast<std::size_t>(perm[d]));
    }
    const auto gs = dim0_ghosts<N>(rng), gd = dim0_ghosts<N>(rng);
    Domain<N> sd(comm, any_distribution<N>(rng, sbox, comm.size(), ghosted_dims(gs)));
    Domain<N> dd(comm, any_distribution<N>(rng, dbox, comm.size(), ghosted_dims(gd)));
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": perm[0] " << perm[0] << ", " << sd.distribution()
                                      << " -> " << dd.distribution());
    DistArray<double, N> a(sd, gs), b(dd, gd);
    fill(a, [](const Point<N>& p) { return value_of(p); });
    fill(b, [](const Point<N>& p) { return -value_of(p); });
    transpose(a, b, perm);
    b.for_each_owned([&](const Point<N>& q, const double& x) {
      Point<N> p;
      for (std::size_t d = 0; d < N; ++d) {
        const auto s = static_cast<std::size_t>(perm[d]);
        p[s] = sbox.lo[s] + q[d] - dbox.lo[d];
      }
      ASSERT_EQ(x, value_of(p)) << q;
    });
    expect_ghosts_untouched(b);
  }
}

TEST(RemapTranspose, TwoDimensions) { transpose_trials<2>(40, 10, 41); }
TEST(RemapTranspose, ThreeDimensionsRandomPermutations) { transpose_trials<3>(40, 6, 42); }

TEST(RemapTranspose, SquareInPlace) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(43);
  for (int t = 0; t < 20; ++t) {
    const index_t n = 1 + static_cast<index_t>(rng() % 9);
    const Box<2> box({-1, 2}, {n - 1, n + 2});
    Domain<2> dom(comm, any_distribution<2>(rng, box, comm.size(), {false, false}));
    DistArray<double, 2> a(dom);
    fill(a, [](const Point<2>& p) { return value_of(p); });
    transpose(a, a, {1, 0});
    a.for_each_owned([&](const Point<2>& q, const double& x) {
      const Point<2> p{box.lo[0] + q[1] - box.lo[1], box.lo[1] + q[0] - box.lo[0]};
      ASSERT_EQ(x, value_of(p)) << q;
    });
  }
}

// --- gather / scatter -----------------------------------------------------------------------------

/// dst(i) = src(index(i)) with random index values (src of dimension N, index and dst of M).
template <std::size_t N, std::size_t M>
void gather_trials(int trials, index_t max_src, index_t max_dst, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const auto abox = random_domain<N>(rng, max_src);
    const auto ibox = random_domain<M>(rng, max_dst);
    const auto gs = dim0_ghosts<N>(rng), gd = random_ghosts<M>(rng);
    Domain<N> sd(comm, any_distribution<N>(rng, abox, comm.size(), ghosted_dims(gs)));
    Domain<M> id(comm, any_distribution<M>(rng, ibox, comm.size(), ghosted_dims(gd)));
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sd.distribution() << " via " << id.distribution());
    DistArray<double, N> a(sd, gs);
    DistArray<Point<N>, M> idx(id);
    DistArray<double, M> out(id, gd);
    const std::uint64_t salt = rng();
    fill(a, [](const Point<N>& p) { return value_of(p); });
    idx.for_each_owned([&](const Point<M>& i, Point<N>& p) { p = index_of(i, abox, salt); });
    fill(out, [](const Point<M>& p) { return -value_of(p); });
    gather(a, idx, out);
    out.for_each_owned([&](const Point<M>& i, const double& x) {
      ASSERT_EQ(x, value_of(index_of(i, abox, salt))) << i;
    });
    expect_ghosts_untouched(out);
    a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    if constexpr (N == M) {  // src and dst the same array (a permutation-like shuffle in place)
      DistArray<Point<N>, N> self(sd);
      self.for_each_owned([&](const Point<N>& i, Point<N>& p) { p = index_of(i, abox, salt + 1); });
      gather(a, self, a);
      a.for_each_owned([&](const Point<N>& i, const double& x) {
        ASSERT_EQ(x, value_of(index_of(i, abox, salt + 1))) << i;
      });
    }
  }
}

TEST(RemapGather, OneToOneDimension) { gather_trials<1, 1>(30, 40, 40, 51); }
TEST(RemapGather, TwoFromOneDimension) { gather_trials<2, 1>(30, 8, 50, 52); }
TEST(RemapGather, OneFromTwoDimensions) { gather_trials<1, 2>(30, 40, 8, 53); }
TEST(RemapGather, ThreeFromTwoDimensions) { gather_trials<3, 2>(20, 5, 9, 54); }
TEST(RemapGather, TwoToTwoDimensions) { gather_trials<2, 2>(30, 9, 9, 55); }

template <std::size_t N>
std::int64_t code_of(const Point<N>& p) {
  return static_cast<std::int64_t>(value_of(p) * 4.0) * 31 + 7;
}

/// dst(index(i)) op= values(i), many-to-one, against a serial reference that applies the hits in
/// increasing row-major order of i.
template <std::size_t N, std::size_t M>
void scatter_trials(int trials, index_t max_dst, index_t max_src, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  const CombineOp ops[] = {CombineOp::replace, CombineOp::add, CombineOp::max, CombineOp::min};
  for (int t = 0; t < trials; ++t) {
    const auto abox = random_domain<N>(rng, max_dst);
    const auto ibox = random_domain<M>(rng, max_src);
    const auto gd = dim0_ghosts<N>(rng);
    Domain<N> dd(comm, any_distribution<N>(rng, abox, comm.size(), ghosted_dims(gd)));
    Domain<M> id(comm, any_distribution<M>(rng, ibox, comm.size(), std::array<bool, M>{}));
    const CombineOp op = ops[t % 4];
    const index_t spread = t % 3 == 0 ? 2 : 0;  // a third of the trials hit at most 2^N points
    SCOPED_TRACE(::testing::Message() << "trial " << t << " op " << to_string(op) << ": " << id.distribution()
                                      << " -> " << dd.distribution());
    DistArray<std::int64_t, N> dst(dd, gd);
    DistArray<Point<N>, M> idx(id);
    DistArray<std::int64_t, M> vals(id);
    const std::uint64_t salt = rng();
    // Even values: never the (odd) sentinel the ghost check looks for.
    const auto v_of = [&](const Point<M>& i) { return 2 * (code_of(i) % 500) - 500; };
    fill(dst, [](const Point<N>& p) { return code_of(p); });
    idx.for_each_owned([&](const Point<M>& i, Point<N>& p) { p = index_of(i, abox, salt, spread); });
    vals.for_each_owned([&](const Point<M>& i, std::int64_t& v) { v = v_of(i); });
    scatter(vals, idx, dst, op);
    // Serial reference: for_each_point walks row-major, the order the contract promises.
    std::map<Point<N>, std::int64_t> ref;
    for_each_point(ibox, [&](const Point<M>& i) {
      const Point<N> p = index_of(i, abox, salt, spread);
      const auto v = v_of(i);
      auto [it, fresh] = ref.try_emplace(p, code_of(p));
      std::int64_t& x = it->second;
      (void)fresh;
      switch (op) {
        case CombineOp::replace: x = v; break;
        case CombineOp::add: x += v; break;
        case CombineOp::max: x = std::max(x, v); break;
        default: x = std::min(x, v); break;
      }
    });
    dst.for_each_owned([&](const Point<N>& p, const std::int64_t& x) {
      const auto it = ref.find(p);
      ASSERT_EQ(x, it == ref.end() ? code_of(p) : it->second) << p;
    });
    expect_ghosts_untouched(dst);
  }
}

TEST(RemapScatter, OneToOneDimension) { scatter_trials<1, 1>(32, 30, 40, 61); }
TEST(RemapScatter, OneToTwoDimensions) { scatter_trials<2, 1>(32, 8, 50, 62); }
TEST(RemapScatter, TwoToOneDimension) { scatter_trials<1, 2>(32, 30, 8, 63); }
TEST(RemapScatter, TwoToThreeDimensions) { scatter_trials<3, 2>(24, 5, 9, 64); }

TEST(RemapScatter, ReplaceHighestLinearIndexWins) {
  // Every i hits one point: it must end up with the value of the last i in row-major order.
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(65);
  for (int t = 0; t < 10; ++t) {
    const Box<2> ibox = random_domain<2>(rng, 7);
    const Box<1> abox({0}, {3});
    Domain<2> id(comm, any_distribution<2>(rng, ibox, comm.size(), {false, false}));
    Domain<1> dd(comm, any_distribution<1>(rng, abox, comm.size(), {false}));
    DistArray<double, 2> vals(id);
    DistArray<Point<1>, 2> idx(id);
    DistArray<double, 1> dst(dd);
    vals.for_each_owned([](const Point<2>& i, double& v) { v = value_of(i); });
    idx.for_each_owned([](const Point<2>&, Point<1>& p) { p = Point<1>{1}; });
    fill(dst, [](const Point<1>&) { return 0.5; });
    scatter(vals, idx, dst);
    dst.for_each_owned([&](const Point<1>& p, const double& x) {
      ASSERT_EQ(x, p[0] == 1 ? value_of(ibox.last()) : 0.5) << p;
    });
  }
}

// --- the plan cache: a repeated index remap reuses its inspection ---------------------------------

/// Executor counters of the cache of `dom`, where index remaps into `dom` keep plan and mover.
struct PlanCounts {
  std::uint64_t hits = 0, misses = 0;
};
template <std::size_t N>
PlanCounts plan_counts(const Domain<N>& dom) {
  const auto s = dom.cache().stats();
  return {s.executor_hits, s.executor_misses};
}

/// Runs `f`, a remap into `dom`, and expects it to have reused a kept plan (`hit`) or inspected.
template <std::size_t N, class F>
void expect_plan(const Domain<N>& dom, bool hit, F&& f, const char* what) {
  const PlanCounts before = plan_counts(dom);
  f();
  const PlanCounts after = plan_counts(dom);
  EXPECT_EQ(after.hits - before.hits, hit ? 1u : 0u) << what;
  EXPECT_EQ(after.misses - before.misses, hit ? 0u : 1u) << what;
}

/// The rank that owns `i` in `a` (the same answer on every rank).
template <class T, std::size_t M>
int owner_rank(const DistArray<T, M>& a, const Point<M>& i) {
  return a.distribution().owner(i);
}

TEST(RemapIndexCache, RepeatedGatherReusesThePlanUntilAnIndexOrADistributionChanges) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(81);
  for (int t = 0; t < 12; ++t) {
    auto abox = random_domain<2>(rng, 9);
    abox.hi[1] = std::max(abox.hi[1], abox.lo[1] + 2);  // two points at least: an index entry can change
    const auto ibox = random_domain<2>(rng, 9);
    const auto gs = dim0_ghosts<2>(rng), gd = dim0_ghosts<2>(rng);
    Domain<2> sd(comm, any_distribution<2>(rng, abox, comm.size(), ghosted_dims(gs)));
    Domain<2> id(comm, any_distribution<2>(rng, ibox, comm.size(), ghosted_dims(gd)));
    SCOPED_TRACE(::testing::Message() << "trial " << t << ": " << sd.distribution() << " via " << id.distribution());
    DistArray<double, 2> a(sd, gs);
    DistArray<Point<2>, 2> idx(id);
    DistArray<double, 2> out(id, gd);
    const std::uint64_t salt = rng();
    const index_t spread = t % 2 == 0 ? 2 : 0;  // half the trials many-to-one
    idx.for_each_owned([&](const Point<2>& i, Point<2>& p) { p = index_of(i, abox, salt, spread); });
    const auto expect_gathered = [&](double shift, const std::map<Point<2>, Point<2>>& changed) {
      out.for_each_owned([&](const Point<2>& i, const double& x) {
        const auto it = changed.find(i);
        ASSERT_EQ(x, value_of(it == changed.end() ? index_of(i, abox, salt, spread) : it->second) + shift) << i;
      });
      expect_ghosts_untouched(out);
    };
    // The values change from call to call, the index does not: one inspection, then reuses.
    for (int round = 0; round < 3; ++round) {
      fill(a, [&](const Point<2>& p) { return value_of(p) + round; });
      fill(out, [](const Point<2>& p) { return -value_of(p); });
      expect_plan(id, round > 0, [&] { gather(a, idx, out); }, "same index");
      expect_gathered(round, {});
    }
    // One entry changed on the one rank that owns it: every rank inspects again.
    const Point<2> i0 = ibox.lo, original = index_of(i0, abox, salt, spread);
    const Point<2> moved = original == abox.lo ? abox.last() : abox.lo;
    const bool mine = owner_rank(idx, i0) == comm.rank();
    if (mine) idx.at(i0) = moved;
    expect_plan(id, false, [&] { gather(a, idx, out); }, "one entry changed");
    expect_gathered(2, {{i0, moved}});
    // Changed back: every rank's key is the first one again, and the first inspection's plans
    // (still kept, beside the second's) are right again on every rank.
    if (mine) idx.at(i0) = original;
    expect_plan(id, true, [&] { gather(a, idx, out); }, "entry changed back");
    expect_gathered(2, {});
    // A bad entry still throws on every rank after plans were kept, with nothing written.
    if (mine) idx.at(i0) = Point<2>{abox.hi[0], abox.lo[1]};
    fill(out, [](const Point<2>& p) { return -value_of(p); });
    expect_error(ErrorCode::out_of_range, [&] { gather(a, idx, out); }, "gather: argument 'index'");
    out.for_each_owned([](const Point<2>& i, const double& x) { ASSERT_EQ(x, -value_of(i)) << "written at " << i; });
    if (mine) idx.at(i0) = original;
    // src is dst, twice: a permutation-like shuffle in place, staged, from the kept plan the second time.
    if (t % 3 == 0) {
      DistArray<Point<2>, 2> self(sd);
      self.for_each_owned([&](const Point<2>& i, Point<2>& p) { p = index_of(i, abox, salt + 1); });
      fill(a, [](const Point<2>& p) { return value_of(p); });
      gather(a, self, a);
      expect_plan(sd, true, [&] { gather(a, self, a); }, "in place, again");
      a.for_each_owned([&](const Point<2>& i, const double& x) {
        ASSERT_EQ(x, value_of(index_of(index_of(i, abox, salt + 1), abox, salt + 1))) << i;
      });
    }
    // A new distribution of the source: the key changes on every rank (unless it is the same).
    const auto to = any_distribution<2>(rng, abox, comm.size(), ghosted_dims(gs));
    const bool same = to == sd.distribution();
    sd.redistribute(to);
    fill(a, [](const Point<2>& p) { return value_of(p); });
    expect_plan(id, same, [&] { gather(a, idx, out); }, "source redistributed");
    expect_gathered(0, {});
  }
}

TEST(RemapIndexCache, RepeatedScatterReusesThePlanAndKeepsTheOrderOfApplication) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(82);
  const CombineOp ops[] = {CombineOp::add, CombineOp::replace, CombineOp::min};
  for (int t = 0; t < 12; ++t) {
    const auto abox = random_domain<1>(rng, 12);
    const auto ibox = random_domain<2>(rng, 8);
    const auto gd = dim0_ghosts<1>(rng);
    Domain<1> dd(comm, any_distribution<1>(rng, abox, comm.size(), ghosted_dims(gd)));
    Domain<2> id(comm, any_distribution<2>(rng, ibox, comm.size(), {false, false}));
    const CombineOp op = ops[t % 3];
    SCOPED_TRACE(::testing::Message() << "trial " << t << " op " << to_string(op) << ": " << id.distribution()
                                      << " -> " << dd.distribution());
    DistArray<double, 1> dst(dd, gd);
    DistArray<Point<1>, 2> idx(id);
    DistArray<double, 2> vals(id);
    const std::uint64_t salt = rng();
    idx.for_each_owned([&](const Point<2>& i, Point<1>& p) { p = index_of(i, abox, salt, 3); });  // many-to-one
    for (int round = 0; round < 3; ++round) {
      // Values of mixed magnitude, so that `add` rounds differently in another order.
      const auto v_of = [&](const Point<2>& i) { return (value_of(i) + round) * (hash_value(i) % 3 == 0 ? 1e16 : 0.1); };
      vals.for_each_owned([&](const Point<2>& i, double& v) { v = v_of(i); });
      fill(dst, [](const Point<1>& p) { return value_of(p); });
      expect_plan(dd, round > 0, [&] { scatter(vals, idx, dst, op); }, "same index");
      std::map<Point<1>, double> ref;
      for_each_point(ibox, [&](const Point<2>& i) {
        const Point<1> p = index_of(i, abox, salt, 3);
        double& x = ref.try_emplace(p, value_of(p)).first->second;
        const double v = v_of(i);
        x = op == CombineOp::add ? x + v : op == CombineOp::replace ? v : std::min(x, v);
      });
      dst.for_each_owned([&](const Point<1>& p, const double& x) {
        const auto it = ref.find(p);
        ASSERT_EQ(x, it == ref.end() ? value_of(p) : it->second) << p;  // bit for bit
      });
      expect_ghosts_untouched(dst);
    }
  }
}

TEST(RemapIndexCache, ScatterOntoItsOwnValuesReadsEveryValueFirst) {
  // dst(index(i)) = dst(i): the values are the destination itself.
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(83);
  for (int t = 0; t < 8; ++t) {
    const auto box = random_domain<2>(rng, 8);
    Domain<2> dom(comm, any_distribution<2>(rng, box, comm.size(), {false, false}));
    DistArray<double, 2> a(dom);
    DistArray<Point<2>, 2> idx(dom);
    const std::uint64_t salt = rng();
    idx.for_each_owned([&](const Point<2>& i, Point<2>& p) { p = index_of(i, box, salt); });
    fill(a, [](const Point<2>& p) { return value_of(p); });
    scatter(a, idx, a);
    std::map<Point<2>, double> ref;
    for_each_point(box, [&](const Point<2>& i) { ref[index_of(i, box, salt)] = value_of(i); });
    a.for_each_owned([&](const Point<2>& p, const double& x) {
      const auto it = ref.find(p);
      ASSERT_EQ(x, it == ref.end() ? value_of(p) : it->second) << p;
    });
  }
}

TEST(RemapIndexCache, RanksWithNothingToAskOrToOwnTakePart) {
  // One index entry and a source of two points, block-distributed over every rank: most ranks
  // own nothing of either, and only the owners of the two talk.
  Communicator comm(MPI_COMM_WORLD);
  const Box<1> sbox({0}, {2}), ibox({5}, {6});
  std::vector<int> reversed(static_cast<std::size_t>(comm.size()));
  std::iota(reversed.rbegin(), reversed.rend(), 0);  // the index entry lives on the last rank
  Domain<1> sd(comm, Distribution<1>(sbox, ProcGrid<1>::with_shape(comm.size(), {comm.size()}), {block()}));
  Domain<1> id(comm, Distribution<1>(ibox, ProcGrid<1>::from_ranks(comm.size(), {comm.size()}, reversed), {block()}));
  DistArray<double, 1> a(sd), out(id), vals(id);
  DistArray<Point<1>, 1> idx(id);
  fill(a, [](const Point<1>& p) { return value_of(p); });
  idx.for_each_owned([](const Point<1>&, Point<1>& p) { p = Point<1>{1}; });
  for (int round = 0; round < 2; ++round) {
    fill(out, [](const Point<1>&) { return 0.0; });
    expect_plan(id, round > 0, [&] { gather(a, idx, out); }, "gather");
    const double added = round == 0 ? 0.0 : 10.0;  // by the scatter of round 0
    out.for_each_owned([&](const Point<1>&, const double& x) { ASSERT_EQ(x, value_of(Point<1>{1}) + added); });
    vals.for_each_owned([&](const Point<1>&, double& v) { v = 10.0 + round; });
    expect_plan(sd, round > 0, [&] { scatter(vals, idx, a, CombineOp::add); }, "scatter");
  }
  a.for_each_owned([](const Point<1>& p, const double& x) {
    ASSERT_EQ(x, p[0] == 1 ? value_of(p) + 21.0 : value_of(p)) << p;
  });
}

// --- errors: every rank throws, nothing is written ------------------------------------------------

TEST(RemapErrors, RegularRemapsRejectMismatchesOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  Communicator other(MPI_COMM_WORLD);
  std::mt19937_64 rng(71);
  const Box<2> box({0, 0}, {5, 7}), wide({0, 0}, {7, 5}), moved({1, 0}, {6, 7});
  Domain<2> a_dom(comm, any_distribution<2>(rng, box, comm.size(), {false, false}));
  Domain<2> b_dom(comm, any_distribution<2>(rng, box, comm.size(), {false, false}));
  Domain<2> w_dom(comm, any_distribution<2>(rng, wide, comm.size(), {false, false}));
  Domain<2> m_dom(comm, any_distribution<2>(rng, moved, comm.size(), {false, false}));
  Domain<2> o_dom(other, any_distribution<2>(rng, box, comm.size(), {false, false}));
  DistArray<double, 2> a(a_dom), b(b_dom), w(w_dom), m(m_dom), o(o_dom);
  fill(a, [](const Point<2>& p) { return value_of(p); });
  for (auto* x : {&b, &w, &m, &o}) fill(*x, [](const Point<2>& p) { return -value_of(p); });

  expect_error(ErrorCode::invalid_argument, [&] { copy(a, m); }, "copy: argument 'dst'");
  expect_error(ErrorCode::invalid_argument, [&] { copy(a, w); }, "copy: argument 'dst'");
  expect_error(ErrorCode::invalid_argument, [&] { copy(a, o); }, "Communicator");
  expect_error(ErrorCode::out_of_range, [&] { copy_section(a, Box<2>({0, 0}, {6, 2}), b, {0, 0}); }, "'src_box'");
  expect_error(ErrorCode::out_of_range, [&] { copy_section(a, Box<2>({0, 0}, {2, 2}), b, {4, 0}); }, "'dst_lo'");
  expect_error(ErrorCode::out_of_range, [&] { copy_section(a, Box<2>({0, 0}, {2, 2}), m, {0, 0}); }, "'dst_lo'");
  expect_error(ErrorCode::invalid_argument, [&] { copy_section(a, Box<2>({3, 0}, {2, 2}), b, {0, 0}); },
               "malformed");
  expect_error(ErrorCode::invalid_argument, [&] { transpose(a, b, {1, 0}); }, "transpose: argument 'dst'");
  expect_error(ErrorCode::invalid_argument, [&] { transpose(a, w, {0, 0}); }, "perm[1]");
  expect_error(ErrorCode::invalid_argument, [&] { transpose(a, w, {2, 0}); }, "perm[0]");
  expect_error(ErrorCode::invalid_argument, [&] { transpose(a, w, {0, 1}); }, "transpose: argument 'dst'");
  for (auto* x : {&b, &w, &m, &o})
    x->for_each_owned([](const Point<2>& p, const double& v) { ASSERT_EQ(v, -value_of(p)) << "written at " << p; });
  // An empty section moves nothing and is fine anywhere in the box.
  copy_section(a, Box<2>({2, 3}, {2, 9}), b, {4, 0});
  // The arrays still work: the failed calls left no mover half-way.
  copy(a, b);
  b.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
}

/// Ordered but not additive: `add` is not defined for it. (It needs an operator<: combine_function's
/// `requires { std::min(a, b); }` is a hard error, not false, for a type without one.)
struct Opaque {
  int x;
  friend bool operator==(const Opaque&, const Opaque&) = default;
  friend bool operator<(const Opaque& a, const Opaque& b) { return a.x < b.x; }
};

TEST(RemapErrors, IndexRemapsRejectBadIndicesOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(72);
  const Box<2> abox({-2, 0}, {4, 5});
  const Box<1> ibox({0}, {23});
  Domain<2> sd(comm, any_distribution<2>(rng, abox, comm.size(), {false, false}));
  Domain<1> id(comm, any_distribution<1>(rng, ibox, comm.size(), {false}));
  // Over another box, so its distribution differs from idx's on any number of ranks.
  Domain<1> other(comm, Distribution<1>(Box<1>({0}, {24}), ProcGrid<1>::from_ranks(comm.size(), {1}, {0}), {block()}));
  DistArray<double, 2> a(sd);
  DistArray<Point<2>, 1> idx(id);
  DistArray<double, 1> out(id), misplaced(other);
  fill(a, [](const Point<2>& p) { return value_of(p); });
  fill(out, [](const Point<1>& p) { return -value_of(p); });
  // One bad entry, on whichever rank owns i = 17.
  const Point<2> bad{4, 0};
  idx.for_each_owned([&](const Point<1>& i, Point<2>& p) { p = i[0] == 17 ? bad : index_of(i, abox, 5); });
  expect_error(ErrorCode::out_of_range, [&] { gather(a, idx, out); }, "gather: argument 'index'");
  expect_error(ErrorCode::out_of_range, [&] { scatter(out, idx, a); }, "scatter: argument 'index'");
  out.for_each_owned([](const Point<1>& p, const double& x) { ASSERT_EQ(x, -value_of(p)) << "written at " << p; });
  a.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << "written at " << p; });
  // Every rank reports the same message, from the rank owning i = 17.
  std::string message;
  try {
    gather(a, idx, out);
  } catch (const Error& e) {
    message = e.what();
  }
  int length = static_cast<int>(message.size()), lo = 0, hi = 0;
  MPI_Allreduce(&length, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&length, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi) << message;
  EXPECT_GT(lo, 0);
  std::ostringstream want;
  want << "index(" << Point<1>{17} << ") = " << bad;
  EXPECT_NE(message.find(want.str()), std::string::npos) << message << " lacks " << want.str();

  idx.for_each_owned([&](const Point<1>& i, Point<2>& p) { p = index_of(i, abox, 5); });
  expect_error(ErrorCode::invalid_argument, [&] { gather(a, idx, misplaced); }, "gather: argument 'dst'");
  expect_error(ErrorCode::invalid_argument, [&] { scatter(misplaced, idx, a); }, "scatter: argument 'values'");
  DistArray<Opaque, 1> opaque_vals(id);
  DistArray<Opaque, 2> opaque_dst(sd);
  expect_error(ErrorCode::invalid_argument, [&] { scatter(opaque_vals, idx, opaque_dst, CombineOp::add); },
               "scatter: argument 'op' = add");
  expect_error(ErrorCode::invalid_argument, [&] { scatter(out, idx, a, static_cast<CombineOp>(42)); },
               "scatter: argument 'op'");
  a.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << "written at " << p; });
  // Replace works for any trivially copyable type.
  opaque_vals.for_each_owned([](const Point<1>& i, Opaque& v) { v.x = static_cast<int>(i[0]); });
  scatter(opaque_vals, idx, opaque_dst);
  gather(a, idx, out);
  out.for_each_owned([&](const Point<1>& i, const double& x) { ASSERT_EQ(x, value_of(index_of(i, abox, 5))) << i; });
}

}  // namespace
}  // namespace tessera
