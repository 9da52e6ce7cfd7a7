// Checked mode, the mechanism (exchange/collective_check.hpp): calls that agree pass and cost one
// allreduce each however deep they nest; with checked mode off no check communication happens;
// ranks in different operations, or in one operation with different arguments, all get the same
// Error(mismatch) naming the operations and the ranks that differ from rank 0.
//
// Reductions are counted through MPI's profiling interface: this file defines MPI_Allreduce and
// MPI_Iallreduce (the check's, polled against checked mode's deadline), which forward to PMPI_*,
// for the whole tessera_mpi_exchange executable.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <string>

#include "collective_check_support.hpp"
#include "tessera/array/remap.hpp"

namespace {
std::atomic<long> allreduce_calls{0};
}  // namespace

extern "C" int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  allreduce_calls.fetch_add(1, std::memory_order_relaxed);
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

extern "C" int MPI_Iallreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  allreduce_calls.fetch_add(1, std::memory_order_relaxed);
  return PMPI_Iallreduce(send, recv, count, type, op, comm, request);
}

namespace tessera {
namespace {

using namespace tessera::testing;

// MPI_Allreduce and MPI_Iallreduce calls and checked-mode comparisons made while `work` runs.
template <class Work>
std::pair<long, std::uint64_t> communication_of(Work&& work) {
  const long calls = allreduce_calls.load();
  const std::uint64_t checks = detail::collective_checks_made();
  work();
  return {allreduce_calls.load() - calls, detail::collective_checks_made() - checks};
}

TEST(CheckedMode, SetCheckedModeSwitchesAtRunTime) {
  CheckedModeFor scope(true);
  EXPECT_TRUE(checked_mode());
  set_checked_mode(false);
  EXPECT_FALSE(checked_mode());
  set_checked_mode(true);
  EXPECT_TRUE(checked_mode());
}

TEST(CheckedMode, AgreeingCallsPassWithOneAllreduceEachHoweverDeepTheyNest) {
  CheckedFixture f;
  CheckedModeFor scope(true);
  // First uses agree that every rank could allocate its mover (two allreduces each, see
  // docs/arrays.md, "Memory"): made before the count, which is of the checks alone.
  f.a.update_ghosts();
  (void)f.a.gather_to_all();
  // update_ghosts = begin + end, gather_to_all = gather_to + broadcast, sum = reduce: one check each.
  const auto [calls, checks] = communication_of([&] {
    for (int i = 0; i < 5; ++i) f.a.update_ghosts();
    (void)f.a.gather_to_all();
    (void)f.a.sum();
  });
  EXPECT_EQ(checks, 7u);
  // sum's own allgather is not an allreduce, so every allreduce here is a check's.
  EXPECT_EQ(calls, 7);
}

TEST(CheckedMode, OffMakesNoCheckCommunication) {
  CheckedFixture f;
  CheckedModeFor scope(false);
  // Repeated operations (their movers made by a first use before the count) need no allreduce.
  f.a.update_ghosts();
  (void)f.a.gather_to_all();
  copy(f.a, f.b);
  const auto [calls, checks] = communication_of([&] {
    for (int i = 0; i < 5; ++i) f.a.update_ghosts();
    (void)f.a.gather_to_all();
    copy(f.a, f.b);
  });
  EXPECT_EQ(checks, 0u);
  EXPECT_EQ(calls, 0);
  // A redistribution and the first ghost update after it allocate, and agree that every rank
  // could: two allreduces each (docs/arrays.md, "Memory"), none of them a check. (On one rank the
  // two distributions are equal: the ghost update keeps its mover and needs none.)
  const auto [moving_calls, moving_checks] = communication_of([&] {
    f.dom.redistribute(f.cols);
    f.b.begin_update_ghosts();
    f.b.end_update_ghosts();
  });
  EXPECT_EQ(moving_checks, 0u);
  EXPECT_EQ(moving_calls, f.rows == f.cols ? 2 : 4);
}

TEST(CheckedMode, DifferentOperationsMeetInTheCheck) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << "needs a second rank to disagree";
  CheckedModeFor scope(true);
  const Kept<double, 2> kept(f.a);
  expect_mismatch_everywhere(
      f.comm,
      [&] {
        if (f.odd())
          (void)f.a.gather_to(0);
        else
          f.a.update_ghosts();
      },
      {"the ranks made different collective calls", "DistArray::update_ghosts on rank", "DistArray::gather_to on rank 1",
       "(rank 1 differs from rank 0)"});
  kept.expect_unchanged();
}

TEST(CheckedMode, SameOperationWithOtherArgumentsIsNamed) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << "needs a second rank to disagree";
  CheckedModeFor scope(true);
  // The same shape, type and ghosts: only the array's place in the domain tells b from a.
  expect_mismatch_everywhere(
      f.comm, [&] { (f.odd() ? f.b : f.a).update_ghosts(); },
      {"the ranks called DistArray::update_ghosts with different arguments", "on rank 1", "(rank 1 differs from rank 0)"});
}

TEST(CheckedMode, MessageNamesEveryRankThatDiffers) {
  CheckedFixture f;
  if (f.comm.size() < 3) GTEST_SKIP() << "needs three ranks for two culprits";
  CheckedModeFor scope(true);
  expect_mismatch_everywhere(
      f.comm,
      [&] {
        if (f.comm.rank() == 1)
          (void)f.a.sum();
        else if (f.comm.rank() == 2)
          (void)f.a.max();
        else
          (void)f.a.min();
      },
      {"DistArray::min on rank", "DistArray::sum on rank 1;", "DistArray::max on rank 2", "(ranks 1, 2 differ from rank 0)"});
}

TEST(CheckedMode, ABadArgumentOnOneRankIsAnErrorEverywhereNotAHang) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << "needs a second rank to disagree";
  CheckedModeFor scope(true);
  // Unchecked, rank 1 would throw invalid_argument alone and the others would wait in the gather.
  expect_mismatch_everywhere(
      f.comm, [&] { (void)f.a.gather_to(f.odd() ? f.comm.size() : 0); },
      {"DistArray::gather_to with different arguments", "(rank 1 differs from rank 0)"});
}

TEST(CheckedMode, AMismatchLeavesTheCommunicatorUsable) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << "needs a second rank to disagree";
  CheckedModeFor scope(true);
  expect_mismatch_everywhere(f.comm, [&] { (void)f.a.gather_to(f.odd() ? 1 : 0); }, {"DistArray::gather_to"});
  // Nothing of the failed call is left in flight: the next collective calls work.
  f.a.update_ghosts();
  const std::vector<double> all = f.a.gather_to_all();
  EXPECT_EQ(all[13], 101.0);  // point (1, 1)
}

}  // namespace
}  // namespace tessera
