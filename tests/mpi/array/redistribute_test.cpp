// Domain::redistribute: long random chains of preserving redistributions over every kind of
// distribution (skeleton ranks included) with several arrays of different types following the
// domain; destructive redistribution; changes of extent; validation and failures that leave every
// array as it was; elements whose T{} is not zero bytes; the Storage steps the domain drives.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
std::int64_t code_of(const Point<N>& p) {
  return static_cast<std::int64_t>(value_of(p) * 4.0) * 7919 + 13;
}

template <std::size_t N>
void chain(int steps, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  const auto box = random_domain<N>(rng, max_extent);
  // Ghosts along dimension 0 only, so that the other dimensions may take every kind.
  Point<N> lo{}, hi{};
  lo[0] = 1 + static_cast<index_t>(rng() % 2);
  hi[0] = static_cast<index_t>(rng() % 3);
  const auto g = GhostSpec<N>::sides(lo, hi);
  const auto ghost_dims = ghosted_dims(g);
  Domain<N> dom(comm, any_distribution<N>(rng, box, comm.size(), ghost_dims));
  DistArray<double, N> a(dom, g);
  DistArray<std::int64_t, N> b(dom);
  DistArray<float, N> c(dom, g);  // same ghosts as `a`: shares its schedules
  a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
  b.for_each_owned([](const Point<N>& p, std::int64_t& x) { x = code_of(p); });
  c.for_each_owned([](const Point<N>& p, float& x) { x = static_cast<float>(p[0]); });
  const auto a0 = a.gather_to_all();
  const auto b0 = b.gather_to_all();
  const std::int64_t checksum = b.sum();
  for (int s = 0; s < steps; ++s) {
    const auto to = any_distribution<N>(rng, box, comm.size(), ghost_dims);
    SCOPED_TRACE(::testing::Message() << "step " << s << ": " << dom.distribution() << " -> " << to);
    const auto hits = dom.cache().stats().schedule_hits;
    dom.redistribute(to, Redistribution::preserve);
    ASSERT_TRUE(dom.distribution() == to);
    EXPECT_GE(dom.cache().stats().schedule_hits, hits + 1) << "c did not reuse a's schedule";
    ASSERT_EQ(a.storage().size(), static_cast<std::size_t>(StorageLayout<N>::make(to, comm.rank(), g).size()));
    if (s % 40 == 0) {  // local check now and then: every owned element where the reference says
      a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
      b.for_each_owned([](const Point<N>& p, const std::int64_t& x) { ASSERT_EQ(x, code_of(p)) << p; });
      a.update_ghosts();  // the rebuilt halo mover works on the new layout
      a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    }
  }
  const auto a1 = a.gather_to_all();
  const auto b1 = b.gather_to_all();
  ASSERT_EQ(a1.size(), a0.size());
  EXPECT_EQ(std::memcmp(a1.data(), a0.data(), a0.size() * sizeof(double)), 0);
  EXPECT_TRUE(b1 == b0);
  EXPECT_EQ(b.sum(), checksum);
  c.for_each_owned([](const Point<N>& p, const float& x) { ASSERT_EQ(x, static_cast<float>(p[0])); });
}

TEST(ArrayRedistribute, TwoHundredRandomStepsKeepEveryElement1D) { chain<1>(200, 40, 500); }
TEST(ArrayRedistribute, TwoHundredRandomStepsKeepEveryElement2D) { chain<2>(200, 12, 600); }
TEST(ArrayRedistribute, TwoHundredRandomStepsKeepEveryElement3D) { chain<3>(120, 6, 700); }

TEST(ArrayRedistribute, DestructiveLeavesValueInitialisedStorage) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(800);
  const auto box = random_domain<2>(rng, 10);
  Domain<2> dom(comm, random_distribution<2>(rng, box, comm.size(), true));
  DistArray<double, 2> a(dom, ghosts<2>(1));
  DistArray<std::int64_t, 2> b(dom);
  for (int s = 0; s < 20; ++s) {
    for (auto& x : a.storage()) x = 3.5;
    for (auto& x : b.storage()) x = 42;
    const auto to = random_distribution<2>(rng, box, comm.size(), std::array<bool, 2>{true, s % 2 == 0});
    if (!to.owns_boxes()) {  // a's ghosts along a cyclic or irregular axis: refused, nothing changed
      EXPECT_THROW(dom.redistribute(to, Redistribution::destructive), Error);
      for (double x : a.storage()) ASSERT_EQ(x, 3.5);
      for (std::int64_t x : b.storage()) ASSERT_EQ(x, 42);
      continue;
    }
    dom.redistribute(to, Redistribution::destructive);
    for (double x : a.storage()) ASSERT_EQ(x, 0.0);
    for (std::int64_t x : b.storage()) ASSERT_EQ(x, 0);
    const auto layout = StorageLayout<2>::make(to, comm.rank(), ghosts<2>(1));
    EXPECT_EQ(a.storage().size(), static_cast<std::size_t>(layout.size()));
  }
}

template <std::size_t N>
void extent_changes(int steps, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  auto box = random_domain<N>(rng, max_extent);
  Domain<N> dom(comm, random_distribution<N>(rng, box, comm.size(), true));
  DistArray<double, N> a(dom, ghosts<N>(1));
  DistArray<std::int64_t, N> b(dom);
  a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
  b.for_each_owned([](const Point<N>& p, std::int64_t& x) { x = code_of(p); });
  // Every point ever present in all boxes so far keeps its value; the others are 0.
  Box<N> kept = box;
  for (int s = 0; s < steps; ++s) {
    const auto next = random_domain<N>(rng, max_extent);
    const auto to = any_distribution<N>(rng, next, comm.size(), true);
    SCOPED_TRACE(::testing::Message() << "step " << s << ": " << box << " -> " << next << ", " << to);
    dom.redistribute(to);
    EXPECT_EQ(dom.box(), next);
    kept = intersect(kept, next);
    index_t owned = 0;
    a.for_each_owned([&](const Point<N>& p, double& x) {
      ++owned;
      ASSERT_EQ(x, contains(kept, p) ? value_of(p) : 0.0) << p;
    });
    EXPECT_EQ(owned, to.local_size(comm.rank()));
    b.for_each_owned(
        [&](const Point<N>& p, std::int64_t& x) { ASSERT_EQ(x, contains(kept, p) ? code_of(p) : 0) << p; });
    const auto all = b.gather_to_all();
    ASSERT_EQ(all.size(), static_cast<std::size_t>(volume(next)));
    if (kept.empty()) {  // start again so that the chain keeps testing something
      a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
      b.for_each_owned([](const Point<N>& p, std::int64_t& x) { x = code_of(p); });
      kept = next;
    }
    box = next;
  }
}

TEST(ArrayRedistribute, ExtentChangeKeepsTheIntersection1D) { extent_changes<1>(40, 30, 900); }
TEST(ArrayRedistribute, ExtentChangeKeepsTheIntersection2D) { extent_changes<2>(40, 10, 900); }
TEST(ArrayRedistribute, ExtentChangeKeepsTheIntersection3D) { extent_changes<3>(25, 5, 900); }

TEST(ArrayRedistribute, BadTargetsChangeNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {7, 9});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {7, 9});
  const Distribution<2> start(box, grid, {block(), block()});
  Domain<2> dom(comm, start);
  DistArray<double, 2> a(dom, GhostSpec<2>::sides({0, 1}, {0, 1}));
  DistArray<int, 2> b(dom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const auto before = a.gather_to_all();
  const auto misses = dom.cache().stats().schedule_misses;
  // Ghosts of `a` along a cyclic dimension: refused before anything moves (b included).
  try {
    dom.redistribute(Distribution<2>(box, grid, {block(), cyclic()}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("cyclic"), std::string::npos) << e.what();
  }
  // A distribution for another number of ranks.
  try {
    dom.redistribute(Distribution<2>(box, ProcGrid<2>::automatic(comm.size() + 1, {7, 9}), {block(), block()}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("argument 'to'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(dom.redistribute(start, static_cast<Redistribution>(7)), Error);
  EXPECT_TRUE(dom.distribution() == start);
  EXPECT_EQ(dom.cache().stats().schedule_misses, misses);  // nothing was even planned
  EXPECT_TRUE(a.gather_to_all() == before);
  // Redistributing to the same distribution keeps values and the kept halo mover (found without
  // even looking its schedule up).
  a.update_ghosts();
  dom.redistribute(start);
  const auto hits = dom.cache().stats().executor_hits;
  const auto executor_misses = dom.cache().stats().executor_misses;
  a.update_ghosts();
  EXPECT_EQ(dom.cache().stats().executor_hits, hits + 1);
  EXPECT_EQ(dom.cache().stats().executor_misses, executor_misses);
  EXPECT_TRUE(a.gather_to_all() == before);
}

// Arrays over one domain move together; arrays over another domain do not.
TEST(ArrayRedistribute, OnlyTheDomainsArraysMove) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<1> box({0}, {23});
  const auto grid = ProcGrid<1>::automatic(comm.size(), {23});
  Domain<1> d1(comm, Distribution<1>(box, grid, {block()}));
  Domain<1> d2(comm, Distribution<1>(box, grid, {block()}));
  Domain<1> d1_copy = d1;  // a handle to the same domain
  DistArray<int, 1> x(d1), y(d2);
  x.for_each_owned([](const Point<1>& p, int& v) { v = static_cast<int>(p[0]); });
  y.for_each_owned([](const Point<1>& p, int& v) { v = static_cast<int>(p[0]); });
  d1_copy.redistribute(Distribution<1>(box, grid, {cyclic()}));
  EXPECT_TRUE(d1.distribution() == d1_copy.distribution());
  EXPECT_EQ(x.storage().size(), static_cast<std::size_t>(d1.distribution().local_size(comm.rank())));
  x.for_each_owned([](const Point<1>& p, const int& v) { EXPECT_EQ(v, static_cast<int>(p[0])); });
  y.for_each_owned([](const Point<1>& p, const int& v) { EXPECT_EQ(v, static_cast<int>(p[0])); });
  EXPECT_TRUE(d2.distribution() == Distribution<1>(box, grid, {block()}));
}

// What every array of a domain holds on this rank: its layout (patch offsets and owned boxes), its
// buffer's address and capacity, and its bytes.
struct Snapshot {
  std::vector<std::pair<index_t, Box<2>>> patches;
  const void* data = nullptr;
  std::size_t capacity = 0;
  std::vector<unsigned char> bytes;

  template <class T>
  static Snapshot of(const DistArray<T, 2>& a) {
    Snapshot s;
    for (const auto& p : a.layout().patches()) s.patches.emplace_back(p.offset, p.owned_box());
    s.data = a.data();
    s.capacity = a.capacity();
    s.bytes.resize(a.storage().size_bytes());
    if (!s.bytes.empty()) std::memcpy(s.bytes.data(), a.storage().data(), s.bytes.size());
    return s;
  }
  bool operator==(const Snapshot&) const = default;
};

// A redistribution or migration that one array makes impossible (here the last one, whose ghosts
// cannot exist under the target) is refused before any array is staged: every array of the domain
// keeps its layout, buffer and values, and the domain its distribution. (A failure after staging,
// which relayout's discard undoes, has no test at this level: nothing here can make a mover throw
// on purpose; Storage's discard is tested on its own.)
TEST(ArrayRedistribute, AFailureLeavesEveryArrayAsItWas) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {11, 6});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {11, 6});
  const Distribution<2> start(box, grid, {block(), block()});
  Domain<2> dom(comm, start);
  DistArray<double, 2> a(dom, GhostSpec<2>::sides({1, 0}, {2, 0}));  // ghosts along axis 0
  DistArray<std::int64_t, 2> b(dom);
  DistArray<float, 2> c(dom, GhostSpec<2>::sides({0, 1}, {0, 2}));  // along axis 1: fails under cyclic_cols
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  b.for_each_owned([](const Point<2>& p, std::int64_t& x) { x = code_of(p); });
  c.for_each_owned([](const Point<2>& p, float& x) { x = static_cast<float>(p[1] - p[0]); });
  a.update_ghosts();
  c.update_ghosts();
  // One migration first, so that the arrays have spare rows and an origin inside their buffer.
  const index_t g0 = grid.extent(0);
  std::vector<index_t> rows{0};
  for (index_t k = 1; k < g0; ++k) rows.push_back(11 * k / g0 + 1);
  rows.push_back(11);
  const Distribution<2> moved(box, grid, {cut(rows), block()});
  dom.migrate(moved);
  a.update_ghosts();  // ghosts hold stale values after a migration; the in-flight check below refills c's
  c.update_ghosts();
  const std::array<Snapshot, 3> before{Snapshot::of(a), Snapshot::of(b), Snapshot::of(c)};
  const auto reallocations = a.reallocations() + b.reallocations() + c.reallocations();
  const auto expect_unchanged = [&](const char* what) {
    SCOPED_TRACE(what);
    EXPECT_TRUE(dom.distribution() == moved);
    EXPECT_TRUE(Snapshot::of(a) == before[0]);
    EXPECT_TRUE(Snapshot::of(b) == before[1]);
    EXPECT_TRUE(Snapshot::of(c) == before[2]);
    EXPECT_EQ(a.reallocations() + b.reallocations() + c.reallocations(), reallocations);
  };
  const Distribution<2> cyclic_cols(box, grid, {block(), cyclic()});
  for (const auto mode : {Redistribution::preserve, Redistribution::destructive}) {
    try {
      dom.redistribute(cyclic_cols, mode);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("cyclic"), std::string::npos) << e.what();
    }
    expect_unchanged(to_string(mode));
  }
  EXPECT_THROW((void)dom.migrate(cyclic_cols), Error);
  expect_unchanged("migrate");
  // A ghost update in flight refuses both as well, before anything is planned.
  c.begin_update_ghosts();
  EXPECT_THROW(dom.redistribute(start), Error);
  EXPECT_THROW((void)dom.migrate(start), Error);
  c.end_update_ghosts();
  expect_unchanged("in flight");
  // And the arrays still work: a migration back keeps every value.
  dom.migrate(start);
  a.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
  b.for_each_owned([](const Point<2>& p, const std::int64_t& x) { ASSERT_EQ(x, code_of(p)) << p; });
  c.for_each_owned([](const Point<2>& p, const float& x) { ASSERT_EQ(x, static_cast<float>(p[1] - p[0])) << p; });
}

// A trivially copyable element whose T{} is not all zero bytes: new storage (construction,
// redistribution, the indices a growing extent adds) starts as T{}, not as zeros.
struct Tagged {
  std::int32_t tag = -1;
  float weight = 0.5f;
  bool operator==(const Tagged&) const = default;
};

TEST(ArrayRedistribute, NewElementsAreValueInitialised) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<1> box({0}, {13});
  const auto grid = ProcGrid<1>::automatic(comm.size(), {13});
  Domain<1> dom(comm, Distribution<1>(box, grid, {block()}));
  DistArray<Tagged, 1> a(dom, ghosts<1>(2));
  for (const Tagged& x : a.storage()) ASSERT_EQ(x, Tagged{});
  a.for_each_owned([](const Point<1>& p, Tagged& x) { x = Tagged{static_cast<std::int32_t>(p[0]), 1.0f}; });
  const Box<1> bigger({-4}, {20});
  dom.redistribute(Distribution<1>(bigger, grid, {block()}));
  a.for_each_owned([&](const Point<1>& p, const Tagged& x) {
    const Tagged want = contains(box, p) ? Tagged{static_cast<std::int32_t>(p[0]), 1.0f} : Tagged{};
    ASSERT_EQ(x, want) << p;
  });
  dom.redistribute(Distribution<1>(bigger, grid, {block()}), Redistribution::destructive);
  for (const Tagged& x : a.storage()) ASSERT_EQ(x, Tagged{});
}

// The steps Domain's relayout takes with each array's storage: whatever was staged (a new buffer,
// or a layout in place) and then discarded leaves the storage as it was; a commit replaces it.
TEST(ArrayRedistribute, StorageDiscardKeepsEverythingCommitReplacesIt) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {10, 4});
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
  const Distribution<2> from(box, grid, {block(), block()});
  std::vector<index_t> rows{0};
  for (int k = 1; k < comm.size(); ++k) rows.push_back(std::min<index_t>(10, 10 * k / comm.size() + 1));
  rows.push_back(10);
  const Distribution<2> to(box, grid, {cut(rows), block()});
  Storage<2> s(from, comm.rank(), ghosts<2>(1), detail::ElementBytes::of<Tagged>());
  auto* values = static_cast<Tagged*>(s.data());
  const auto size = static_cast<std::size_t>(s.layout().size());
  for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(values[i], Tagged{});
  for (std::size_t i = 0; i < size; ++i) values[i] = Tagged{static_cast<std::int32_t>(i), 2.0f};
  const auto unchanged = [&] {
    EXPECT_EQ(s.data(), static_cast<void*>(values));
    EXPECT_EQ(s.layout().size(), StorageLayout<2>::make(from, comm.rank(), ghosts<2>(1)).size());
    EXPECT_EQ(s.generation(), 0u);
    EXPECT_EQ(s.reallocations(), 0u);
    for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(values[i], (Tagged{static_cast<std::int32_t>(i), 2.0f}));
  };
  s.stage(StorageLayout<2>::make(to, comm.rank(), s.ghosts()), 2);
  EXPECT_NE(s.staged(), s.buffer());
  s.discard();
  unchanged();
  const auto same = StorageLayout<2>::make(from, comm.rank(), s.ghosts());
  const auto origin = s.in_place_origin(same);
  ASSERT_EQ(origin.has_value(), size > 0);  // one patch: it fits where it is
  if (origin) {
    EXPECT_EQ(*origin, 0);
    s.stage_in_place(same, *origin);
    EXPECT_EQ(s.staged(), s.buffer());
    s.discard();
  }
  unchanged();
  const auto next = StorageLayout<2>::make(to, comm.rank(), s.ghosts());
  s.stage(next, 2);
  s.commit(true);
  EXPECT_EQ(s.generation(), 1u);
  EXPECT_EQ(s.layout().size(), next.size());
  EXPECT_EQ(s.reallocations(), next.size() > 0 ? 1u : 0u);
  EXPECT_EQ(s.slack_rows(), next.size() > 0 ? 2 : 0);
  EXPECT_GE(s.capacity(), static_cast<std::size_t>(next.size()));
  if (next.size() > 0) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s.data()) % alignof(Tagged), 0u);
    const auto* fresh = static_cast<const Tagged*>(s.data());
    for (index_t i = 0; i < next.size(); ++i) ASSERT_EQ(fresh[i], Tagged{});
  }
}

}  // namespace
}  // namespace tessera
