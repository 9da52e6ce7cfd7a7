// The mover itself: several in flight at once, reuse without growth, polling, and hand-built
// (KeLP-style) plans, good and bad.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>

#include "engine_checks.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/exchange/mover_totals.hpp"
#include "tessera/plan/schedule_builders.hpp"

// The messages a mover really posts are counted through MPI's profiling interface (as
// collective_check_test.cpp counts MPI_Allreduce): MPI_Isend calls on one watched tag.
namespace {
std::atomic<int> watched_isend_tag{-1};
std::atomic<long> watched_isends{0};
std::atomic<long> largest_watched_isend_bytes{0};
}  // namespace

extern "C" int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                         MPI_Request* request) {
  if (tag == watched_isend_tag.load(std::memory_order_relaxed)) {
    watched_isends.fetch_add(1, std::memory_order_relaxed);
    int type_size = 0;
    PMPI_Type_size(type, &type_size);
    const long bytes = static_cast<long>(count) * type_size;
    if (bytes > largest_watched_isend_bytes.load(std::memory_order_relaxed))
      largest_watched_isend_bytes.store(bytes, std::memory_order_relaxed);
  }
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

namespace tessera {
namespace {

using namespace tessera::testing;

Distribution<2> grid_distribution(const Communicator& comm, index_t n) {
  return Distribution<2>(Box<2>({0, 0}, {n, n}), ProcGrid<2>::automatic(comm.size(), {n, n}), {block(), block()});
}

/// Checks a halo-filled array: owned values, and every requested ghost holds its wrapped point's value.
void expect_halo_filled(const Distribution<2>& dist, const GhostSpec<2>& g, const StorageLayout<2>& layout,
                        const std::vector<double>& data, double scale) {
  for_each_stored(layout, [&](const PatchLayout<2>& patch, const Point<2>& q, index_t off, bool owned) {
    double want = kSentinel;
    if (owned) {
      want = scale * value_of(q);
    } else if (in_requested_ghost(patch.owned_box(), g, q)) {
      if (const auto w = wrap_point(dist.domain(), g.periodic, q)) want = scale * value_of(*w);
    }
    ASSERT_EQ(data[static_cast<std::size_t>(off)], want) << q;
  });
}

TEST(Mover, TwoMoversInFlightAtOnce) {
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = grid_distribution(comm, 17);
  const auto g = ghosts<2>(2).periodic_along({true, true});
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  auto a = filled_storage(layout), b = filled_storage(layout);
  for (double& x : b)
    if (x != kSentinel) x *= 2;
  const auto schedule = halo_schedule(dist, g, comm.rank());
  Mover first(comm, schedule, sizeof(double)), second(comm, schedule, sizeof(double));
  EXPECT_NE(first.tag(), second.tag());
  // Start both, then complete them in the opposite order.
  first.start(a.data(), a.data());
  second.start(b.data(), b.data());
  second.wait();
  first.wait();
  expect_halo_filled(dist, g, layout, a, 1.0);
  expect_halo_filled(dist, g, layout, b, 2.0);
}

TEST(Mover, ProcessTotalsAddUpEveryMover) {
  // process_mover_stats() is what a program reads around an array operation whose movers it never
  // sees: it must grow by exactly what the movers made and run in between counted themselves.
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = grid_distribution(comm, 19);
  const auto g = ghosts<2>(1).periodic_along({true, true});
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  auto a = filled_storage(layout), b = filled_storage(layout);
  const MoverStats before = process_mover_stats();
  Mover first(comm, halo_schedule(dist, g, comm.rank()), sizeof(double));
  Mover second(comm, halo_schedule(dist, ghosts<2>(1).faces_only(), comm.rank()), sizeof(double));
  for (int i = 0; i < 3; ++i) first.run(a.data(), a.data());
  second.run(b.data(), b.data());
  const MoverStats after = process_mover_stats();
  const MoverStats& s1 = first.stats();
  const MoverStats& s2 = second.stats();
  EXPECT_EQ(after.executions - before.executions, s1.executions + s2.executions);
  EXPECT_EQ(after.messages_sent - before.messages_sent, s1.messages_sent + s2.messages_sent);
  EXPECT_EQ(after.bytes_sent - before.bytes_sent, s1.bytes_sent + s2.bytes_sent);
  EXPECT_EQ(after.bytes_copied_locally - before.bytes_copied_locally, s1.bytes_copied_locally + s2.bytes_copied_locally);
  EXPECT_EQ(after.buffer_allocations - before.buffer_allocations, s1.buffer_allocations + s2.buffer_allocations);
  EXPECT_EQ(s1.executions, 3u);
}

TEST(Mover, ThousandExecutionsReuseEverything) {
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = grid_distribution(comm, 23);
  const auto g = ghosts<2>(1).faces_only().periodic_along({true, false});
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  auto data = filled_storage(layout);
  ExchangeCache cache;
  Mover mover(comm, halo_schedule(dist, g, comm.rank(), &cache), sizeof(double));
  const auto allocations = mover.stats().buffer_allocations;
  watched_isend_tag = mover.tag();
  const long isends_before = watched_isends.load();
  for (int i = 0; i < 1000; ++i) {
    // What a solver does every iteration: ask for the schedule again (a cache hit) and execute it.
    EXPECT_EQ(halo_schedule(dist, g, comm.rank(), &cache).get(), &mover.schedule());
    mover.run(data.data(), data.data());
  }
  EXPECT_EQ(cache.stats().schedule_misses, 1u);
  EXPECT_EQ(cache.stats().schedule_hits, 1000u);
  EXPECT_EQ(mover.stats().executions, 1000u);
  EXPECT_EQ(mover.stats().buffer_allocations, allocations) << "the mover allocated after it was made";
  // One message per peer and execution, counted where MPI sees it: point-to-point posts one
  // MPI_Isend per peer; so does the shared-memory single copy (its header: the values themselves
  // are copied, not sent); a collective algorithm posts none (its one collective call carries them all).
  const long isends = watched_isends.load() - isends_before;
  watched_isend_tag = -1;
  const auto peers = static_cast<long>(mover.schedule().sends.size());
  const bool one_isend_per_peer =
      mover.algorithm() == MoveAlgorithm::point_to_point || mover.algorithm() == MoveAlgorithm::shared_memory;
  EXPECT_EQ(isends, one_isend_per_peer ? 1000 * peers : 0)
      << "MPI_Isend calls of " << to_string(mover.algorithm()) << " to " << peers << " peers in 1000 executions";
  EXPECT_EQ(mover.stats().messages_sent, 1000u * mover.schedule().sends.size());
  expect_halo_filled(dist, g, layout, data, 1.0);
  // A redistribution retires the distribution: its schedules leave the cache.
  cache.invalidate(dist.hash());
  EXPECT_EQ(cache.size(), 0u);
}

// Long face rows with a few short corner rows go as one MPI datatype (src/exchange/channel.cpp,
// kMaxShortRows): a 9-point exchange of wide rows on a P x 1 grid, periodic both ways (on 2 ranks
// both faces and the four corners go to the one neighbour), widths 1 and 2, every ghost checked.
TEST(Mover, FacesWithTheirCornersAsOneDatatype) {
  Communicator comm(MPI_COMM_WORLD);
  for (const index_t width : {index_t{1}, index_t{2}}) {
    const index_t rows = 4 * comm.size(), columns = 2000;  // rows of 16 KB: a datatype's long rows, above the eager pieces
    const Distribution<2> dist(Box<2>({0, 0}, {rows, columns}), ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}),
                               {block(), block()});
    const auto g = ghosts<2>(width).periodic_along({true, true});
    const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
    auto data = filled_storage(layout);
    Mover mover(comm, halo_schedule(dist, g, comm.rank()), sizeof(double));
    mover.run(data.data(), data.data());
    expect_halo_filled(dist, g, layout, data, 1.0);
  }
}

TEST(Mover, TestPollsUntilDone) {
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = grid_distribution(comm, 31);
  const auto g = ghosts<2>(1);
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  auto data = filled_storage(layout);
  Mover mover(comm, halo_schedule(dist, g, comm.rank()), sizeof(double));
  mover.start(data.data(), data.data());
  EXPECT_THROW(mover.start(data.data(), data.data()), Error);  // one execution at a time
  while (!mover.test()) {
  }
  EXPECT_FALSE(mover.in_flight());
  mover.wait();  // returns at once
  expect_halo_filled(dist, g, layout, data, 1.0);
}

// A peer's message a little over the transport's eager limit (4 KiB in OpenMPI's shared memory)
// travels in eager pieces (src/exchange/channel.cpp); smaller and much larger ones in one message.
// Each rank sends a row of its array to the next rank, which stores it as a column (contiguous on
// one side, strided on the other, so the two sides' channels differ in kind), and back: the values
// land, whether completed by wait or by polling, and the sends are cut as the size says.
TEST(Mover, MessagesJustOverTheEagerLimitTravelInEagerPieces) {
  Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size();
  const auto next = [p](int r) { return (r + 1) % p; };
  for (const index_t length : {index_t{400}, index_t{497}, index_t{1000}, index_t{1900}, index_t{8000}}) {
    SCOPED_TRACE(::testing::Message() << "rows of " << length << " doubles");
    const Distribution<2> rows(Box<2>({0, 0}, {p, length}), ProcGrid<2>::with_shape(p, {p, 1}), {block(), block()});
    const Distribution<2> columns(Box<2>({0, 0}, {length, p}), ProcGrid<2>::with_shape(p, {1, p}),
                                  {block(), block()});
    MotionPlan<2> to_columns({1, 0}), to_rows({1, 0});
    for (int r = 0; r < p; ++r) {
      to_columns.copy(r, Box<2>({r, 0}, {r + 1, length}), next(r), Box<2>({0, next(r)}, {length, next(r) + 1}));
      to_rows.copy(next(r), Box<2>({0, next(r)}, {length, next(r) + 1}), r, Box<2>({r, 0}, {r + 1, length}));
    }
    const auto row_layout = StorageLayout<2>::make(rows, comm.rank(), GhostSpec<2>{});
    const auto column_layout = StorageLayout<2>::make(columns, comm.rank(), GhostSpec<2>{});
    const auto row_data = filled_storage(row_layout);
    std::vector<double> column_data(row_data.size(), kSentinel), back(row_data.size(), kSentinel);
    Mover out(comm, std::make_shared<const Schedule>(compile_schedule(to_columns, comm.rank(), row_layout, column_layout)),
              sizeof(double));
    Mover in(comm, std::make_shared<const Schedule>(compile_schedule(to_rows, comm.rank(), column_layout, row_layout)),
             sizeof(double));
    watched_isend_tag = out.tag();
    watched_isends = 0;
    largest_watched_isend_bytes = 0;
    out.run(row_data.data(), column_data.data());
    const long isends = watched_isends.load(), largest = largest_watched_isend_bytes.load();
    watched_isend_tag = -1;
    in.start(column_data.data(), back.data());
    while (!in.test()) {
    }
    const int from = (comm.rank() + p - 1) % p;  // whose row this rank's column holds
    for (index_t i = 0; i < length; ++i)
      ASSERT_EQ(column_data[static_cast<std::size_t>(i)], value_of(Point<2>{from, i})) << i;
    EXPECT_EQ(back, row_data) << "the round trip";
    const index_t bytes = length * static_cast<index_t>(sizeof(double));
    if (out.algorithm() != MoveAlgorithm::point_to_point) continue;  // forced by TESSERA_MOVE_ALGORITHM: values only
    if (p == 1) {
      EXPECT_EQ(isends, 0) << "a local copy";
    } else if (bytes <= 3968 || bytes >= 32 * 1024) {
      EXPECT_EQ(isends, 1) << bytes << " bytes";
      EXPECT_EQ(largest, bytes);
    } else {
      EXPECT_GT(isends, 1) << bytes << " bytes";
      EXPECT_LE(largest, 4096 - 128) << "every piece eager";
    }
  }
}

TEST(MotionPlan, HandBuiltKelpStylePlan) {
  // KeLP Fig. 4: every rank builds the same plan from the region calculus, then executes its part.
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = grid_distribution(comm, 12);
  const auto g = ghosts<2>(1);
  MotionPlan<2> plan;
  for (int i = 0; i < comm.size(); ++i)
    for (int j = 0; j < comm.size(); ++j) {
      if (i == j) continue;
      const Box<2> inner = grow(dist.owned_box(i), 1), theirs = dist.owned_box(j);
      if (const auto r = intersect(inner, theirs); !r.empty()) plan.copy(j, r, i, r);
    }
  validate_plan(plan, dist, g, dist, g);
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  auto data = filled_storage(layout);
  Mover mover(comm, std::make_shared<const Schedule>(compile_schedule(plan, comm.rank(), layout, layout)), sizeof(double));
  mover.run(data.data(), data.data());
  expect_halo_filled(dist, g, layout, data, 1.0);  // non-periodic ghosts with corners: what the plan fills
}

TEST(MotionPlan, BadHandBuiltPlansAreErrorsOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = grid_distribution(comm, 12);
  const auto g = ghosts<2>(1);
  MotionPlan<2> plan;
  try {
    plan.copy(0, Box<2>({0, 0}, {2, 3}), 0, Box<2>({0, 0}, {3, 2}));
    FAIL() << "mismatched extents accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("the volumes do not match"), std::string::npos) << e.what();
  }
  // A source box that rank 0 does not store (its whole domain): every rank sees the same error.
  MotionPlan<2> outside;
  outside.copy(0, Box<2>({0, 0}, {12, 12}), comm.size() - 1, Box<2>({0, 0}, {12, 12}));
  if (comm.size() == 1) {
    EXPECT_NO_THROW(validate_plan(outside, dist, g, dist, g));
  } else {
    try {
      validate_plan(outside, dist, g, dist, g);
      FAIL() << "a copy of data rank 0 does not store was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::out_of_range);
      EXPECT_NE(std::string(e.what()).find("copy 0: the source section"), std::string::npos) << e.what();
    }
  }
  MotionPlan<2> bad_rank;
  bad_rank.copy(comm.size(), Box<2>({0, 0}, {1, 1}), 0, Box<2>({0, 0}, {1, 1}));
  EXPECT_THROW(validate_plan(bad_rank, dist, g, dist, g), Error);
  EXPECT_THROW(MotionPlan<2>({0, 0}), Error);  // not a permutation
}

}  // namespace
}  // namespace tessera
