// Balancing a user-defined distribution by Δ through its split points (balance/split_balance.hpp):
// the Morton example under emulated load, a policy deciding Δ from split_step_preview, every value
// equal to the serial one after each preserving move, the imbalance shrinking; bad input refused
// on every rank with nothing changed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "engine_checks.hpp"
#include "tessera/balance/split_balance.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;
using tessera_examples::MortonDistribution;

// Emulated seconds of one iteration: a microsecond per index, times the rank's load factor. No
// clock is read, so the run is deterministic and the imbalance may be asserted on.
double emulated_seconds(const Domain<2>& dom, const EmulatedLoad& load, int iteration) {
  const int rank = dom.comm().rank();
  return 1e-6 * static_cast<double>(dom.distribution().local_size(rank)) * load.factor(rank, iteration);
}

double imbalance_of(const std::vector<double>& seconds) {
  double mean = 0;
  for (const double s : seconds) mean += s;
  mean /= static_cast<double>(seconds.size());
  return mean > 0 ? *std::max_element(seconds.begin(), seconds.end()) / mean - 1 : 0;
}

// A domain distributed along the Morton curve over every rank.
Domain<2> morton_domain(const Communicator& comm, const Box<2>& box) {
  return Domain<2>(comm, Distribution<2>::user(std::make_shared<const MortonDistribution<2>>(box, comm.size())));
}
void fill_with_points(DistArray<double, 2>& u) {
  u.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
}
// Every owned value is still the one its point was given (the serial reference).
void expect_point_values(const DistArray<double, 2>& u) {
  u.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
}

TEST(SplitBalance, MortonUnderEmulatedLoadKeepsEveryValueAndEvensTheTimes) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({-4, 1}, {19, 18});  // 23 x 17: the curve is padded to 32 x 32
  Domain<2> dom = morton_domain(comm, box);
  DistArray<double, 2> u(dom);
  DistArray<std::int64_t, 2> tag(dom);
  fill_with_points(u);
  tag.for_each_owned([](const Point<2>& p, std::int64_t& x) { x = p[0] * 1000 + p[1]; });
  const EmulatedLoad load = EmulatedLoad::parse("0:3@0-100," + std::to_string(P - 1) + ":2@0-100");
  StaticDelta policy(0.5);
  std::vector<double> imbalances;
  for (int it = 0; it < 8; ++it) {
    const std::vector<double> seconds = collect_all(comm, emulated_seconds(dom, load, it));
    BalanceView view;
    view.iteration = it;
    view.seconds = seconds;
    view.iteration_seconds = *std::max_element(seconds.begin(), seconds.end());
    view.imbalance = imbalance_of(seconds);
    view.preview = [&](double delta) { return split_step_preview(dom.distribution(), seconds, sizeof(double), delta); };
    imbalances.push_back(view.imbalance);
    const double delta = policy.decide(view);
    if (delta == 0) continue;
    const SplitStep<2> step = plan_split_step(dom.distribution(), seconds, delta);
    // Each split moved the fraction Δ toward the target, to the nearest index.
    ASSERT_EQ(step.stepped, step_split_counts(step.current, step.target, delta));
    for (std::size_t j = 0; j < step.stepped.size(); ++j)
      EXPECT_LE(std::abs(static_cast<double>(step.stepped[j]) -
                         (static_cast<double>(step.current[j]) + delta * static_cast<double>(step.target[j] - step.current[j]))),
                0.5)
          << "split " << j;
    const StepPreview preview = view.preview(delta);
    EXPECT_EQ(preview.blocks, step.elements);
    // Alternately migrate and redistribute (preserving): both keep every value.
    if (it % 2 == 0) {
      dom.migrate(step.to);
    } else {
      dom.redistribute(step.to, Redistribution::preserve);
    }
    EXPECT_TRUE(dom.distribution() == step.to);
    EXPECT_EQ(split_counts(dom.distribution()), step.stepped);
    expect_point_values(u);
    tag.for_each_owned([](const Point<2>& p, const std::int64_t& x) { ASSERT_EQ(x, p[0] * 1000 + p[1]) << p; });
  }
  if (P > 1) {
    EXPECT_LT(imbalances.back(), imbalances.front() / 2) << "imbalance first " << imbalances.front() << " last "
                                                          << imbalances.back();
  }
  EXPECT_EQ(comm.allreduce(static_cast<std::int64_t>(dom.distribution().local_size(comm.rank())), ReduceOp::sum), volume(box));
}

// The Balancer drives the same steps at its remap points: every value kept, the imbalance it
// reports shrinking, and its history recording the moves.
TEST(SplitBalance, BalancerMovesTheSplitPointsOfAUserDistribution) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {21, 15});
  Domain<2> dom = morton_domain(comm, box);
  DistArray<double, 2> u(dom);
  fill_with_points(u);
  const EmulatedLoad load = EmulatedLoad::parse("0:4@0-100");
  BalancerOptions options;
  options.interval = 2;
  Balancer<2> balancer(dom, std::make_shared<StaticDelta>(0.5), options);
  std::vector<double> imbalances;
  std::int64_t moved = 0;
  for (int it = 0; it < 16; ++it) {
    const BalanceStep step = balancer.step(emulated_seconds(dom, load, it));
    if (!step.remap_point) continue;
    imbalances.push_back(step.imbalance);
    moved += step.elements;
    EXPECT_EQ(step.blocks, step.elements);
    expect_point_values(u);
  }
  ASSERT_EQ(imbalances.size(), 8u);
  if (P > 1) {
    EXPECT_GT(moved, 0);
    EXPECT_FALSE(balancer.history().empty());
    EXPECT_LT(imbalances.back(), imbalances.front() / 2) << "imbalance first " << imbalances.front() << " last "
                                                          << imbalances.back();
  }
  // A user distribution keeps every rank: no processor sets.
  EXPECT_THROW(balancer.set_availability([](const AvailabilityContext&) { return true; }), Error);
  EXPECT_THROW((void)balancer.set_active_ranks({0}), Error);
  // A user distribution without split points is refused when the balancer is made.
  Domain<2> set(comm, Distribution<2>::from_box_set(BoxSet<2>(box, {box}, {0}, P)));
  EXPECT_THROW(Balancer<2>(set, std::make_shared<StaticDelta>(0.5)), Error);
}

TEST(SplitBalance, BadInputIsRefusedEverywhereAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {9, 7});
  Domain<2> dom = morton_domain(comm, box);
  DistArray<double, 2> u(dom);
  fill_with_points(u);
  const Distribution<2> before = dom.distribution();
  const std::vector<double> seconds(static_cast<std::size_t>(P), 1.0);
  for (const double delta : {0.0, -0.25, 1.25, std::nan("")})
    EXPECT_THROW((void)plan_split_step(dom.distribution(), seconds, delta), Error) << delta;
  EXPECT_THROW((void)plan_split_step(dom.distribution(), std::vector<double>(static_cast<std::size_t>(P) + 1, 1.0), 0.5),
               Error);
  EXPECT_THROW((void)split_step_preview(dom.distribution(), std::vector<double>(static_cast<std::size_t>(P) + 1, 1.0),
                                        sizeof(double), 0.5),
               Error);
  Domain<2> blocks(comm, Distribution<2>(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), block()}));
  EXPECT_THROW((void)plan_split_step(blocks.distribution(), seconds, 0.5), Error);
  EXPECT_TRUE(dom.distribution() == before);
  expect_point_values(u);
}

}  // namespace
}  // namespace tessera
