// Checked mode at every collective entry point: rank 1 passes one argument different from the
// other ranks' (or makes another call), every rank throws the same Error(mismatch) naming the
// operation and rank 1, and the arrays and the domain's distribution are exactly as before.
// On one rank nothing can disagree and the tests skip (collective_check_test.cpp covers agreeing
// calls on every rank count).
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "collective_check_support.hpp"
#include "tessera/array/remap.hpp"
#include "tessera/balance/balancer.hpp"
#include "tessera/balance/incremental.hpp"
#include "tessera/io/checkpoint.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

constexpr const char* kNeedsTwoRanks = "needs a second rank to disagree";

// Runs `call`, built to differ on rank 1, with checked mode on: it must fail everywhere naming
// `operation`, leaving `a` and `b` as they were.
template <class Call>
void expect_caught(CheckedFixture& f, std::string_view operation, Call&& call) {
  CheckedModeFor scope(true);
  const Kept<double, 2> a(f.a), b(f.b);
  expect_mismatch_everywhere(f.comm, call, {operation, "(rank 1 differs from rank 0)"});
  a.expect_unchanged();
  b.expect_unchanged();
}

TEST(CheckedEntryPoints, Redistribute) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  expect_caught(f, "Domain::redistribute with different arguments",
                [&] { f.dom.redistribute(f.odd() ? f.cols : f.rows); });
  expect_caught(f, "Domain::redistribute with different arguments", [&] {
    f.dom.redistribute(f.cols, f.odd() ? Redistribution::destructive : Redistribution::preserve);
  });
  // Agreeing calls still work afterwards.
  f.dom.redistribute(f.cols);
  EXPECT_TRUE(f.dom.distribution() == f.cols);
}

TEST(CheckedEntryPoints, Migrate) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  const Distribution<2> shifted(f.box, f.rows.grid(), {cut_weights(std::vector<double>(f.comm.size(), 1.0)), collapsed()});
  const Distribution<2> other(f.box, f.rows.grid(), {cyclic(), collapsed()});
  expect_caught(f, "Domain::migrate with different arguments", [&] { (void)f.dom.migrate(f.odd() ? other : shifted); });
}

TEST(CheckedEntryPoints, GhostUpdates) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  expect_caught(f, "DistArray::update_ghosts with different arguments", [&] { (f.odd() ? f.b : f.a).update_ghosts(); });
  expect_caught(f, "DistArray::begin_update_ghosts with different arguments",
                [&] { (f.odd() ? f.b : f.a).begin_update_ghosts(); });
  expect_caught(f, "DistArray::accumulate_ghosts with different arguments",
                [&] { f.a.accumulate_ghosts(f.odd() ? CombineOp::max : CombineOp::add); });
}

TEST(CheckedEntryPoints, EndUpdateGhostsLeavesTheUpdateInFlight) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  CheckedModeFor scope(true);
  f.a.begin_update_ghosts();
  // Rank 1 ends an update on the wrong array: caught, and a's update is still there to finish.
  // (No snapshot of a: its ghosts may be receiving while the update is in flight.)
  expect_mismatch_everywhere(f.comm, [&] { (f.odd() ? f.b : f.a).end_update_ghosts(); },
                             {"DistArray::end_update_ghosts with different arguments", "(rank 1 differs from rank 0)"});
  EXPECT_TRUE(f.a.ghost_update_in_flight());
  f.a.end_update_ghosts();
  const Box<2> owned = f.a.owned_box();
  if (owned.lo[0] > 0) {  // the row below comes from the neighbour
    EXPECT_EQ(f.a.at({owned.lo[0] - 1, 3}), static_cast<double>(100 * (owned.lo[0] - 1) + 3));
  }
}

TEST(CheckedEntryPoints, WholeArrayIo) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  const std::vector<double> whole(144, 1.5);
  expect_caught(f, "DistArray::scatter_from with different arguments", [&] {
    const int root = f.odd() ? 1 : 0;
    f.a.scatter_from(root, f.comm.rank() == root ? std::span<const double>(whole) : std::span<const double>());
  });
  expect_caught(f, "DistArray::gather_to with different arguments", [&] { (void)f.a.gather_to(f.odd() ? 1 : 0); });
  expect_caught(f, "DistArray::gather_to_all on rank", [&] {
    if (f.odd())
      (void)f.a.gather_to(0);
    else
      (void)f.a.gather_to_all();
  });
}

TEST(CheckedEntryPoints, Reductions) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  expect_caught(f, "DistArray::reduce with different arguments",
                [&] { (void)(f.odd() ? f.b : f.a).reduce(0.0, std::plus<>{}); });
  expect_caught(f, "DistArray::min_loc on rank", [&] { (void)(f.odd() ? f.a.max_loc() : f.a.min_loc()); });
  expect_caught(f, "DistArray::reduce_along with different arguments",
                [&] { (void)f.a.reduce_along(f.odd() ? 1 : 0, 0.0, std::plus<>{}); });
}

TEST(CheckedEntryPoints, RegularRemaps) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  Domain<2> other(f.comm, f.cols);
  DistArray<double, 2> c(other);
  expect_caught(f, "copy with different arguments", [&] { copy(f.a, f.odd() ? c : f.b); });
  expect_caught(f, "copy_section with different arguments", [&] {
    copy_section(f.a, Box<2>({0, 0}, {4, f.odd() ? 5 : 4}), f.b, {2, 2});
  });
  expect_caught(f, "copy_section with different arguments",
                [&] { copy_section(f.a, Box<2>({0, 0}, {4, 4}), f.b, {f.odd() ? 3 : 2, 2}); });
  expect_caught(f, "transpose with different arguments",
                [&] { transpose(f.a, f.b, f.odd() ? std::array<int, 2>{0, 1} : std::array<int, 2>{1, 0}); });
}

TEST(CheckedEntryPoints, IndexRemaps) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  DistArray<Point<2>, 2> index(f.dom);
  index.for_each_owned([](const Point<2>& p, Point<2>& q) { q = {11 - p[0], p[1]}; });
  expect_caught(f, "gather with different arguments", [&] { gather(f.odd() ? f.b : f.a, index, f.b); });
  expect_caught(f, "scatter with different arguments",
                [&] { scatter(f.a, index, f.b, f.odd() ? CombineOp::add : CombineOp::replace); });
}

TEST(CheckedEntryPoints, Balancing) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  // Rank 1's balancer reaches its remap point at another iteration: caught at the first step.
  Balancer<2> balancer(f.dom, std::make_shared<StaticDelta>(1.0), {.interval = f.odd() ? 2 : 3});
  expect_caught(f, "Balancer::step with different arguments", [&] { (void)balancer.step(1e-3 * (1 + f.comm.rank())); });
  expect_caught(f, "Balancer::set_active_ranks with different arguments",
                [&] { (void)balancer.set_active_ranks(f.odd() ? std::vector<int>{1} : std::vector<int>{0, 1}); });
  std::vector<double> weights(static_cast<std::size_t>(f.comm.size()), 1.0);
  weights[0] = 3.0;
  const auto target = cut_target(f.dom.distribution(), weights);
  const StepPlan<2> plan = plan_step(f.dom, target, f.odd() ? 1.0 : 0.5);
  expect_caught(f, "migrate_step with different arguments", [&] { (void)migrate_step(f.dom, plan); });
}

TEST(CheckedEntryPoints, Checkpoints) {
  CheckedFixture f;
  if (f.comm.size() < 2) GTEST_SKIP() << kNeedsTwoRanks;
  // One path on every rank (it is never written): runs on other rank counts use other names.
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tessera-checked-np" + std::to_string(f.comm.size()) + ".h5")).string();
  // save and load are both checked, so ranks in different ones meet in the check.
  expect_caught(f, "tessera::io::load on rank 1", [&] {
    if (f.odd())
      (void)io::load(path, io::named("a", f.a));
    else
      io::save(path, {}, io::named("a", f.a));
  });
  expect_caught(f, "tessera::io::save with different arguments",
                [&] { io::save(path, {}, io::named("a", f.odd() ? f.b : f.a)); });
  EXPECT_FALSE(std::filesystem::exists(path)) << "a save that failed its check wrote " << path;
}

}  // namespace
}  // namespace tessera
