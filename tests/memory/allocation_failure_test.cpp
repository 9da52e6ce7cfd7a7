// An allocation that fails inside a movement (issue 21): the operation throws
// Error(out_of_memory) on EVERY rank, naming the operation, and the arrays keep their values and
// distribution; a retry without the failure succeeds and gives the serial reference's values.
//
// The failure is injected by this executable's own global operator new (below): armed on one
// rank, it throws std::bad_alloc at the k-th allocation of at least kThreshold bytes. Each test
// sweeps k = 1, 2, ... (every large allocation the operation makes, in turn: schedules, new
// storage, movers' message buffers and staging) with the failure on the last rank, until k
// passes the operation's last large allocation and it succeeds. Covered: a redistribution of two
// arrays, migrate_step into new storage and in place, the first ghost update of one array and the
// first fused ghost update of two, the first index-array gather and scatter (inspector, mover and
// staging), and a large Communicator::allgatherv. Run again with each collective move algorithm
// forced (tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

// --- the injection ------------------------------------------------------------------------------
// Every form of the global new/delete is replaced (bench/support/global_new.hpp), the nothrow ones
// included: a sanitizer's own nothrow new (std::stable_sort's buffer) would otherwise meet free.
namespace {
constexpr std::size_t kThreshold = 256;  // bytes: smaller allocations (names, small vectors) never fail
long countdown = 0;                      // > 0: armed; the allocation that brings it to 0 fails
bool fired = false;
}  // namespace

#include "global_new.hpp"

namespace tessera::bench::detail {
inline void* replaced_new(std::size_t n, std::size_t alignment) {
  if (countdown > 0 && n >= kThreshold && --countdown == 0) {
    fired = true;
    throw std::bad_alloc();
  }
  return malloc_or_throw(n, alignment);
}
inline void replaced_delete(void* p) noexcept { std::free(p); }
}  // namespace tessera::bench::detail

namespace tessera {
namespace {

double reference(const Point<2>& p) { return static_cast<double>(p[0] * 1000 + p[1]) + 0.25; }
std::int64_t code(const Point<2>& p) { return p[0] * 7919 + p[1] * 13 + 5; }

template <class T, class F>
bool owned_match(const DistArray<T, 2>& a, F&& expected) {
  bool ok = true;
  a.for_each_owned([&](const Point<2>& p, const T& x) { ok = ok && x == expected(p); });
  return ok;
}

// Every stored element of `a` (ghosts included) inside the domain box holds reference(p).
bool stored_match(const DistArray<double, 2>& a) {
  bool ok = true;
  for (std::size_t k = 0; k < a.patch_count(); ++k) {
    const auto acc = a.stencil_access(k);
    const Box<2> inside = intersect(acc.stored_box(), a.domain().box());
    for (index_t i = inside.lo[0]; i < inside.hi[0]; ++i)
      for (index_t j = inside.lo[1]; j < inside.hi[1]; ++j) ok = ok && acc({i, j}) == reference(Point<2>{i, j});
  }
  return ok;
}

// Runs `op` with the k-th large allocation failing on rank `failing`; sets `*fired_anywhere`.
// Returns whether the op failed; checks that it failed on every rank or on none, only when the
// injection fired, and with Error(out_of_memory) naming `where` and the failing rank.
template <class Op>
bool run_failing(bool* fired_anywhere, const Communicator& comm, int failing, long k, const char* where, Op&& op) {
  fired = false;
  countdown = comm.rank() == failing ? k : 0;
  bool failed = false;
  std::string message;
  try {
    op();
  } catch (const Error& e) {
    countdown = 0;
    failed = true;
    message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory) << message;
  }
  countdown = 0;
  const bool injected = comm.allreduce(fired ? 1 : 0, ReduceOp::max) == 1;
  *fired_anywhere = injected;
  // Every rank failed, or none did. A failure that fired without an error was absorbed where it
  // struck (an ostringstream sets its badbit, say): the operation then succeeded everywhere.
  const int failures = comm.allreduce(failed ? 1 : 0, ReduceOp::sum);
  EXPECT_TRUE(failures == 0 || failures == comm.size())
      << failures << " of " << comm.size() << " ranks failed (failure on rank " << failing << ", k " << k
      << "): " << message;
  EXPECT_TRUE(injected || !failed) << message;
  if (failed) {
    EXPECT_NE(message.find(where), std::string::npos) << message;
    EXPECT_NE(message.find("out of memory on rank " + std::to_string(failing)), std::string::npos) << message;
  }
  return failed;
}

struct Arrays {
  Arrays(const Communicator& comm, const Distribution<2>& dist, const GhostSpec<2>& ghosts)
      : dom(comm, dist), a(dom, ghosts), b(dom) {
    a.for_each_owned([](const Point<2>& p, double& x) { x = reference(p); });
    b.for_each_owned([](const Point<2>& p, std::int64_t& x) { x = code(p); });
  }
  [[nodiscard]] bool intact() const { return owned_match(a, reference) && owned_match(b, code); }
  Domain<2> dom;
  DistArray<double, 2> a;
  DistArray<std::int64_t, 2> b;
};

constexpr long kMaxSweep = 400;  // far more large allocations than any of these operations makes

// The rank the failure strikes: the last one, so that the runs on 1, 2, 3 and 4 ranks strike
// ranks 0, 1, 2 and 3 (a failing rank above 0 also tests that the others learn its message).
int failing_rank(const Communicator& comm) { return comm.size() - 1; }

const Box<2> kBox({0, 0}, {37, 23});

TEST(AllocationFailure, RedistributionOfSeveralArraysFailsOnEveryRankAndKeepsThem) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::automatic(comm.size(), {37, 23});
  const Distribution<2> from(kBox, grid, {block(), block()});
  const Distribution<2> to(kBox, grid, {cyclic(), block()});
  Arrays s(comm, from, GhostSpec<2>::sides({0, 1}, {0, 2}));  // none along the cyclic axis
  {
    const int failing = failing_rank(comm);
    int failures = 0;
    for (long k = 1; k < kMaxSweep; ++k) {
      SCOPED_TRACE(::testing::Message() << "failure on rank " << failing << " at large allocation " << k);
      bool fired_anywhere = false;
      const bool failed =
          run_failing(&fired_anywhere, comm, failing, k, "Domain::redistribute", [&] { s.dom.redistribute(to); });
      if (failed) {
        ++failures;
        ASSERT_TRUE(s.dom.distribution() == from);
        ASSERT_TRUE(s.intact());
        s.dom.redistribute(to);  // the retry
      }
      ASSERT_TRUE(s.dom.distribution() == to);
      ASSERT_TRUE(s.intact());
      s.dom.redistribute(from);
      if (!fired_anywhere) break;  // k passed the last large allocation
    }
    EXPECT_GT(failures, 2) << "too few allocations were made to fail";
  }
}

TEST(AllocationFailure, MigrationFailsOnEveryRankAndKeepsTheArrays) {
  Communicator comm(MPI_COMM_WORLD);
  const index_t p = comm.size();
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {p, 1});
  const auto cuts = [&](index_t shift) {
    std::vector<index_t> rows{0};
    for (index_t r = 1; r < p; ++r) rows.push_back(37 * r / p + shift);
    rows.push_back(37);
    return Distribution<2>(kBox, grid, {cut(rows), block()});
  };
  // Shifted by 3 rows: new storage with spare rows; then by 1 more: in place (a staging buffer).
  const std::vector<Distribution<2>> steps{cuts(0), cuts(3), cuts(4)};
  std::optional<Arrays> s;
  for (std::size_t step = 1; step < steps.size(); ++step) {
    const auto& from = steps[step - 1];
    const auto& to = steps[step];
    {
    const int failing = failing_rank(comm);
      int failures = 0;
      for (long k = 1; k < kMaxSweep; ++k) {
        SCOPED_TRACE(::testing::Message() << "step " << step << ", failure on rank " << failing << " at " << k);
        // Fresh arrays each time, brought to `from` by the steps before: the same path every k.
        s.emplace(comm, steps[0], GhostSpec<2>::sides({1, 0}, {2, 0}));
        for (std::size_t before = 1; before < step; ++before) s->dom.migrate(steps[before]);
        bool fired_anywhere = false;
        const bool failed = run_failing(&fired_anywhere, comm, failing, k, "Domain::migrate", [&] {
          (void)migrate_step(s->dom, StepPlan<2>{from, to});
        });
        if (failed) {
          ++failures;
          ASSERT_TRUE(s->dom.distribution() == from);
          ASSERT_TRUE(s->intact());
          s->dom.migrate(to);  // the retry
        }
        ASSERT_TRUE(s->dom.distribution() == to);
        ASSERT_TRUE(s->intact());
        if (!fired_anywhere) break;
      }
      EXPECT_GT(failures, 2) << "too few allocations were made to fail";
    }
  }
}

TEST(AllocationFailure, FirstGhostUpdateFailsOnEveryRankAndARetryFillsTheGhosts) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::automatic(comm.size(), {37, 23});
  Arrays s(comm, Distribution<2>(kBox, grid, {block(), block()}), GhostSpec<2>::sides({1, 1}, {1, 1}));
  {
    const int failing = failing_rank(comm);
    int failures = 0;
    for (long k = 1; k < kMaxSweep; ++k) {
      SCOPED_TRACE(::testing::Message() << "failure on rank " << failing << " at large allocation " << k);
      s.dom.cache().clear();  // every update below is a first use: schedule and mover are made
      bool fired_anywhere = false;
      const bool failed = run_failing(&fired_anywhere, comm, failing, k, "DistArray::update_ghosts",
                                      [&] { s.a.update_ghosts(); });
      ASSERT_TRUE(s.intact());
      ASSERT_FALSE(s.a.ghost_update_in_flight());
      if (failed) {
        ++failures;
        s.a.update_ghosts();  // the retry
      }
      ASSERT_TRUE(stored_match(s.a));
      if (!fired_anywhere) break;
    }
    EXPECT_GT(failures, 0) << "no allocation was ever made to fail";
  }
}

TEST(AllocationFailure, FirstFusedGhostUpdateFailsOnEveryRankAndARetryFillsTheGhosts) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::automatic(comm.size(), {37, 23});
  const auto g = GhostSpec<2>::sides({1, 1}, {1, 1});
  Domain<2> dom(comm, Distribution<2>(kBox, grid, {block(), block()}));
  DistArray<double, 2> u(dom, g), v(dom, g);  // small faces: one fused mover for both
  u.for_each_owned([](const Point<2>& p, double& x) { x = reference(p); });
  v.for_each_owned([](const Point<2>& p, double& x) { x = reference(p); });
  {
    const int failing = failing_rank(comm);
    int failures = 0;
    for (long k = 1; k < kMaxSweep; ++k) {
      SCOPED_TRACE(::testing::Message() << "failure on rank " << failing << " at large allocation " << k);
      dom.cache().clear();
      bool fired_anywhere = false;
      const bool failed =
          run_failing(&fired_anywhere, comm, failing, k, "update_ghosts", [&] { update_ghosts(u, v); });
      ASSERT_TRUE(owned_match(u, reference) && owned_match(v, reference));
      if (failed) {
        ++failures;
        update_ghosts(u, v);  // the retry
      }
      ASSERT_TRUE(stored_match(u) && stored_match(v));
      if (!fired_anywhere) break;
    }
    EXPECT_GT(failures, 0) << "no allocation was ever made to fail";
  }
}

// An index remap's first use inspects (exchanges the requested points, with allocations between
// the exchanges) and makes its mover and staging buffer: a failure anywhere in that is
// Error(out_of_memory) on every rank with nothing written, and a retry gives the values.
TEST(AllocationFailure, FirstIndexGatherAndScatterFailOnEveryRankAndWriteNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::automatic(comm.size(), {37, 23});
  Domain<2> dom(comm, Distribution<2>(kBox, grid, {block(), block()}));
  DistArray<double, 2> source(dom), target(dom);
  source.for_each_owned([](const Point<2>& p, double& x) { x = reference(p); });
  // The index array and the gathered values over another distribution of the same box; index(i)
  // is a permutation of the box (i reflected along both axes).
  const auto reflect = [](const Point<2>& i) { return Point<2>{36 - i[0], 22 - i[1]}; };
  Domain<2> idom(comm, Distribution<2>(kBox, grid, {cyclic(), block()}));
  DistArray<Point<2>, 2> index(idom);
  index.for_each_owned([&](const Point<2>& i, Point<2>& p) { p = reflect(i); });
  DistArray<double, 2> gathered(idom), values(idom);
  values.for_each_owned([&](const Point<2>& i, double& x) { x = reference(reflect(i)); });
  const auto untouched = [](const Point<2>&) { return -1.0; };
  for (const char* where : {"gather", "scatter"}) {
    const bool is_gather = std::string(where) == "gather";
    DistArray<double, 2>& written = is_gather ? gathered : target;
    const int failing = failing_rank(comm);
    int failures = 0;
    for (long k = 1; k < kMaxSweep; ++k) {
      SCOPED_TRACE(::testing::Message() << where << ", failure on rank " << failing << " at large allocation " << k);
      idom.cache().clear();  // every remap below is a first use: inspected, mover and staging made
      dom.cache().clear();
      written.for_each_owned([](const Point<2>&, double& x) { x = -1.0; });
      const auto op = [&] {
        if (is_gather)
          gather(source, index, gathered);  // gathered(i) = source(reflect(i))
        else
          scatter(values, index, target);  // target(reflect(i)) = values(i) = reference(reflect(i))
      };
      bool fired_anywhere = false;
      const bool failed = run_failing(&fired_anywhere, comm, failing, k, where, op);
      if (failed) {
        ++failures;
        ASSERT_TRUE(owned_match(written, untouched));
        op();  // the retry
      }
      ASSERT_TRUE(is_gather ? owned_match(gathered, [&](const Point<2>& i) { return reference(reflect(i)); })
                            : owned_match(target, reference));
      if (!fired_anywhere) break;
    }
    EXPECT_GT(failures, 2) << where << ": too few allocations were made to fail";
  }
}

// Communicator::allgatherv of a large result (reduce_along's slices, say): a rank that cannot
// allocate the result makes every rank throw before the exchange; the retry gathers every value.
TEST(AllocationFailure, LargeAllgathervFailsOnEveryRankAndARetryGathersAll) {
  Communicator comm(MPI_COMM_WORLD);
  const std::size_t mine = Communicator::kAgreedReceiveBytes / sizeof(double) + 7 * static_cast<std::size_t>(comm.rank());
  std::vector<double> items(mine);
  for (std::size_t i = 0; i < mine; ++i) items[i] = static_cast<double>(comm.rank()) * 1e6 + static_cast<double>(i);
  const int failing = failing_rank(comm);
  int failures = 0;
  for (long k = 1; k < kMaxSweep; ++k) {
    SCOPED_TRACE(::testing::Message() << "failure on rank " << failing << " at large allocation " << k);
    std::vector<double> all;
    bool fired_anywhere = false;
    const auto gather_all = [&] { all = comm.allgatherv(std::span<const double>(items)); };
    if (run_failing(&fired_anywhere, comm, failing, k, "Communicator::allgatherv", gather_all)) {
      ++failures;
      gather_all();  // the retry
    }
    std::size_t at = 0;
    for (int r = 0; r < comm.size(); ++r)
      for (std::size_t i = 0; i < Communicator::kAgreedReceiveBytes / sizeof(double) + 7 * static_cast<std::size_t>(r); ++i)
        ASSERT_EQ(all.at(at++), static_cast<double>(r) * 1e6 + static_cast<double>(i));
    ASSERT_EQ(at, all.size());
    if (!fired_anywhere) break;
  }
  EXPECT_GT(failures, 0) << "no allocation was ever made to fail";
}

}  // namespace
}  // namespace tessera
