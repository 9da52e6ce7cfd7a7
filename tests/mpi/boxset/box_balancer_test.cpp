// BoxBalancer (balance/box_balancer.hpp): box timers summed at remap points, the policy's Δ, whole
// boxes moved by a preserving redistribution. Each case runs beside a serial shadow that composes
// the same public steps (weights, target, relabel, incremental_box_step) from the emulated costs;
// the owners must match it at every remap point and every stored value must survive each move.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/balance/box_balancer.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// The emulated seconds box i costs per iteration: its cells, and five times that for every third box.
double cost_of(const BoxSet<2>& set, std::size_t i) {
  return 1e-6 * static_cast<double>(volume(set.box(i))) * (i % 3 == 0 ? 5.0 : 1.0);
}

/// `f` must throw an `Error` of `code` whose message contains `text`, on every rank.
template <class F>
void expect_refused_on_every_rank(const Communicator& comm, ErrorCode code, const std::string& text, F&& f) {
  int refused = 0;
  try {
    f();
  } catch (const Error& e) {
    refused = e.code() == code && std::string(e.what()).find(text) != std::string::npos ? 1 : 0;
    EXPECT_EQ(refused, 1) << "rank " << comm.rank() << ": " << e.what();
  }
  for (const int r : comm.allgather(refused)) EXPECT_EQ(r, 1) << "some rank did not refuse with '" << text << "'";
}

/// What the balancer should do at a remap point, computed serially from the public pieces.
std::vector<int> shadow_step(const BoxSet<2>& set, int ranks, const BoxBalancerOptions& options, double delta) {
  std::vector<double> w(set.size());
  for (std::size_t i = 0; i < set.size(); ++i) w[i] = cost_of(set, i);
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  for (std::size_t i = 0; i < set.size(); ++i) load[static_cast<std::size_t>(set.owner(i))] += w[i];
  double mean = 0;
  for (const double l : load) mean += l;
  mean /= ranks;
  const double imbalance = mean > 0 ? *std::max_element(load.begin(), load.end()) / mean - 1 : 0;
  if (!(imbalance > 0)) return set.owners();  // StaticDelta(Δ, 0) moves only when uneven
  auto target = options.target == BoxTarget::morton ? assign_morton<2>(set.boxes(), ranks, w)
                                                    : assign_knapsack<2>(set.boxes(), ranks, w);
  if (options.relabel)
    target = relabel_for_locality(Distribution<2>::from_box_set(set), BoxSet<2>(set.domain(), set.boxes(), target, ranks))
                 .owners();
  // The byte budget in cells: the two double arrays of the test move 16 bytes per cell.
  const std::uint64_t max_cells = options.max_bytes_per_step ? options.max_bytes_per_step / 16 : no_cell_budget;
  return incremental_box_step<2>(set.boxes(), set.owners(), target, ranks, delta, w, max_cells).owners;
}

TEST(BoxBalancer, MovesWhatASerialShadowPicksAndKeepsEveryValue) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(4300);
  int migrations = 0;
  for (int k = 0; k < 8; ++k) {
    const auto box = random_domain<2>(rng, 24);
    const auto start = random_box_set<2>(rng, box, 4, 30, comm.size());
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << start);
    Domain<2> dom(comm, Distribution<2>::from_box_set(start));
    DistArray<double, 2> a(dom, ghosts<2>(1)), b(dom);
    a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    b.for_each_owned([](const Point<2>& p, double& x) { x = -value_of(p); });
    BoxBalancerOptions options;
    options.interval = 1 + k % 3;
    options.target = k % 2 == 0 ? BoxTarget::knapsack : BoxTarget::morton;
    options.relabel = k % 4 < 2;
    // Cases 5-7 also cap each step at a byte budget: a few boxes' worth.
    if (k >= 5) options.max_bytes_per_step = 16 * static_cast<std::uint64_t>(volume(box)) / (2 + k % 3);
    const double delta = k % 3 == 0 ? 1.0 : 0.4;
    BoxBalancer<2> balancer(dom, std::make_shared<StaticDelta>(delta, 0.0), options);
    BoxSet<2> shadow = start;
    for (int it = 1; it <= 6; ++it) {
      // Each rank times its own boxes: the emulated cost, added as a profiler's figure would be.
      for (std::size_t p = 0; p < a.patch_count(); ++p) balancer.timer(p).add(cost_of(shadow, balancer.box_of_patch(p)));
      const BalanceStep step = balancer.step();
      ASSERT_EQ(step.remap_point, it % options.interval == 0) << "iteration " << it;
      if (step.remap_point) {
        const auto owners = shadow_step(shadow, comm.size(), options, delta);
        if (owners != shadow.owners()) ++migrations;
        EXPECT_EQ(step.blocks > 0, owners != shadow.owners());
        if (options.max_bytes_per_step > 0) {
          EXPECT_LE(step.bytes, options.max_bytes_per_step);
        }
        shadow = BoxSet<2>(shadow.domain(), shadow.boxes(), owners, comm.size());
      }
      ASSERT_EQ(balancer.set().owners(), shadow.owners()) << "iteration " << it;
      ASSERT_EQ(a.patch_count(), shadow.boxes_of(comm.rank()).size());
      std::size_t checked = 0;
      a.for_each_owned([&](const Point<2>& p, const double& x) {
        EXPECT_EQ(x, value_of(p)) << "rank " << comm.rank() << " point " << p << " iteration " << it;
        ++checked;
      });
      b.for_each_owned([&](const Point<2>& p, const double& x) { EXPECT_EQ(x, -value_of(p)); });
      EXPECT_EQ(static_cast<index_t>(checked), shadow.cells_of(comm.rank()));
    }
    EXPECT_EQ(balancer.history().records().size(), static_cast<std::size_t>(std::count_if(
        balancer.history().records().begin(), balancer.history().records().end(), [](const auto& r) { return r.blocks > 0; })));
  }
  if (comm.size() > 1) {
    EXPECT_GT(migrations, 0) << "no case moved a box: the cases do not test the moves";
  }
}

TEST(BoxBalancer, UntimedBoxesAreWeighedByTheirCells) {
  Communicator comm(MPI_COMM_WORLD);
  // Rank 0 holds every box at first; nobody times anything: one step of Δ = 1 to a knapsack of the
  // cells gives every rank its share, as assign_knapsack of the cells does (relabeled).
  std::vector<Box<2>> boxes;
  std::vector<int> owners;
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 2; ++j) boxes.push_back(Box<2>({4 * i, 4 * j}, {4 * i + 4, 4 * j + 4})), owners.push_back(0);
  const BoxSet<2> start(Box<2>({0, 0}, {24, 8}), boxes, owners, comm.size());
  Domain<2> dom(comm, Distribution<2>::from_box_set(start));
  DistArray<int, 2> a(dom);
  a.for_each_owned([](const Point<2>&, int& x) { x = 7; });
  BoxBalancerOptions options;
  options.interval = 1;
  BoxBalancer<2> balancer(dom, std::make_shared<StaticDelta>(1.0, 0.0), options);
  const BalanceStep step = balancer.step();
  const auto target = relabel_for_locality(Distribution<2>::from_box_set(start),
                                           BoxSet<2>(start.domain(), boxes, assign_knapsack<2>(boxes, comm.size()), comm.size()));
  EXPECT_EQ(balancer.set().owners(), target.owners());
  EXPECT_EQ(step.imbalance, comm.size() > 1 ? comm.size() - 1.0 : 0.0);
  a.for_each_owned([](const Point<2>&, const int& x) { EXPECT_EQ(x, 7); });
}

TEST(BoxBalancer, BadArgumentsAreErrorsOnEveryRankWithNothingChanged) {
  Communicator comm(MPI_COMM_WORLD);
  const auto policy = std::make_shared<StaticDelta>(1.0, 0.0);
  Domain<2> cut(comm, Distribution<2>(Box<2>({0, 0}, {8, 8}), ProcGrid<2>::automatic(comm, {8, 8}), {block(), block()}));
  expect_refused_on_every_rank(comm, ErrorCode::invalid_argument, "is not a box set",
                             [&] { BoxBalancer<2> b(cut, policy); });
  const BoxSet<2> set = make_box_set<2>(Box<2>({0, 0}, {8, 8}), {Box<2>({0, 0}, {8, 4}), Box<2>({0, 4}, {8, 8})},
                                        comm.size(), BoxAssignment::knapsack);
  Domain<2> dom(comm, Distribution<2>::from_box_set(set));
  expect_refused_on_every_rank(comm, ErrorCode::invalid_argument, "must point to a policy",
                             [&] { BoxBalancer<2> b(dom, nullptr); });
  BoxBalancerOptions zero;
  zero.interval = 0;
  expect_refused_on_every_rank(comm, ErrorCode::invalid_argument, "must be >= 1",
                             [&] { BoxBalancer<2> b(dom, policy, zero); });
  BoxBalancerOptions each;
  each.interval = 1;
  BoxBalancer<2> balancer(dom, policy, each);
  const std::size_t mine = set.boxes_of(comm.rank()).size();
  EXPECT_THROW((void)balancer.timer(mine), Error);
  EXPECT_THROW((void)balancer.box_of_patch(mine), Error);
  // A timer left running on rank 0 at a remap point: every rank refuses the step, nothing moves.
  if (comm.rank() == 0 && mine > 0) balancer.timer(0).start();
  if (set.boxes_of(0).empty()) return;  // (never: knapsack gives rank 0 a box)
  expect_refused_on_every_rank(comm, ErrorCode::invalid_argument, "still running at a remap point",
                             [&] { (void)balancer.step(); });
  EXPECT_EQ(balancer.iteration(), 0);
  EXPECT_EQ(balancer.set().owners(), set.owners());
  if (comm.rank() == 0) balancer.timer(0).stop();
  EXPECT_TRUE(balancer.step().remap_point);
  EXPECT_EQ(balancer.iteration(), 1);
}

}  // namespace
}  // namespace tessera
