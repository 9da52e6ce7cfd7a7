// The Balancer end to end, with synthetic per-rank times (deterministic: a time proportional to
// the elements a rank holds times its emulated slowdown, no sleeping): it converges to shares in
// proportion to speed, keeps every value, and withdraws and re-adds ranks (down to one and back)
// through set_active_ranks, an availability file and a slowdown threshold.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

struct Fixture {
  Communicator comm{MPI_COMM_WORLD};
  Box<2> box{{0, 0}, {120, 7}};
  Domain<2> dom{comm, Distribution<2>(box, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}), {block(), collapsed()})};
  DistArray<double, 2> u{dom, ghosts<2>(1)};
  DistArray<int, 2> tag{dom};
  Fixture() {
    u.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    tag.for_each_owned([](const Point<2>& p, int& x) { x = static_cast<int>(p[0] * 10 + p[1]); });
  }
  void check_values() {
    u.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    tag.for_each_owned([](const Point<2>& p, const int& x) { ASSERT_EQ(x, static_cast<int>(p[0] * 10 + p[1])) << p; });
    u.update_ghosts();
  }
  // Seconds this rank would take: 1 µs per element, times its load factor.
  double synthetic_seconds(double factor) const {
    return 1e-6 * static_cast<double>(dom.distribution().local_size(comm.rank())) * factor;
  }
};

TEST(Balancer, FullStepsConvergeToSharesInProportionToSpeed) {
  Fixture s;
  if (s.comm.size() < 2) GTEST_SKIP() << "needs two ranks to have something to balance";
  Balancer<2> balancer(s.dom, std::make_shared<StaticDelta>(1.0), {.interval = 2});
  const double factor = s.comm.rank() == 0 ? 2.0 : 1.0;  // rank 0 twice as slow
  int migrations = 0;
  for (int it = 0; it < 12; ++it) {
    const auto step = balancer.step(s.synthetic_seconds(factor));
    migrations += step.bytes > 0;
    if (step.remap_point) {
      EXPECT_GE(step.coordination_seconds, 0.0);
    }
    s.check_values();
  }
  EXPECT_GE(migrations, 1);
  EXPECT_EQ(static_cast<int>(balancer.history().records().size()), migrations);
  // Rank 0 should hold about half the rows of each other rank: 120 rows, speeds 0.5,1,1,...
  const double total_speed = 0.5 + (s.comm.size() - 1);
  const double expect_rank0 = 120 * 0.5 / total_speed;
  EXPECT_NEAR(static_cast<double>(extent(s.dom.distribution().owned_box(0), 0)), expect_rank0, 1.01);
}

TEST(Balancer, AdaptivePoliciesKeepEveryValueAndStopWhenEven) {
  for (int which = 0; which < 3; ++which) {
    Fixture s;
    std::shared_ptr<BalancePolicy> policy;
    if (which == 0) policy = std::make_shared<D3arcAdaptiveDelta>(0.3);
    if (which == 1) policy = std::make_shared<AmortisedDelta>(50);
    if (which == 2) policy = std::make_shared<HorizonPolicy>();
    Balancer<2> balancer(s.dom, policy, {.interval = 1});
    int last_move = -1;
    for (int it = 0; it < 30; ++it) {
      const double factor = s.comm.rank() == s.comm.size() - 1 ? 1.5 : 1.0;
      const auto step = balancer.step(s.synthetic_seconds(factor));
      if (step.bytes > 0) last_move = it;
    }
    s.check_values();
    if (s.comm.size() > 1) {
      EXPECT_GE(last_move, 0) << policy->name() << " never moved";
    }
    EXPECT_LT(last_move, 25) << policy->name() << " still moving after the load was balanced";
  }
}

// What a program inspects between steps: the policy, the domain, the iteration count, the history,
// the adaptive Δ, and the timer's own accounting (add, seconds, last, measure).
TEST(Balancer, ReportsItsStateThroughItsAccessors) {
  Fixture s;
  auto policy = std::make_shared<D3arcAdaptiveDelta>(0.4);
  Balancer<2> balancer(s.dom, policy, {.interval = 1});
  EXPECT_TRUE(balancer.domain().same_as(s.dom));
  EXPECT_EQ(&balancer.policy(), policy.get());
  EXPECT_EQ(balancer.iteration(), 0);
  EXPECT_TRUE(balancer.history().empty());
  EXPECT_EQ(policy->current_delta(), 0.4);
  for (int it = 0; it < 6; ++it) (void)balancer.step(s.synthetic_seconds(s.comm.rank() == 0 ? 2.0 : 1.0));
  EXPECT_EQ(balancer.iteration(), 6);
  if (s.comm.size() > 1) {  // rank 0 is twice as slow: something moved, and Δ stayed a fraction
    EXPECT_FALSE(balancer.history().empty());
    EXPECT_GT(policy->current_delta(), 0.0);
    EXPECT_LE(policy->current_delta(), 1.0);
  }
  s.check_values();

  SectionTimer& t = balancer.timer();
  (void)t.take();
  t.add(0.5);
  t.add(0.25);
  EXPECT_EQ(t.seconds(), 0.75);
  EXPECT_THROW(t.add(-1.0), Error);
  {
    const auto scope = t.measure();
    EXPECT_TRUE(t.running());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_FALSE(t.running());
  EXPECT_GE(t.last(), 0.002);
  EXPECT_DOUBLE_EQ(t.seconds(), 0.75 + t.last());
  EXPECT_EQ(balancer.step().iteration, 7);  // step() takes the timer's seconds
  EXPECT_EQ(t.seconds(), 0.0);
}

TEST(Balancer, WithdrawDownToOneRankAndBack) {
  Fixture s;
  Balancer<2> balancer(s.dom, std::make_shared<NoRebalancing>());
  const int P = s.comm.size();
  for (int keep = P - 1; keep >= 1; --keep) {  // withdraw the highest ranks one by one
    std::vector<int> active;
    for (int r = 0; r < keep; ++r) active.push_back(r);
    balancer.set_active_ranks(active);
    EXPECT_EQ(s.dom.distribution().grid().size(), keep);
    EXPECT_EQ(s.u.patch_count(), s.comm.rank() < keep ? 1u : 0u);
    s.check_values();
  }
  // Re-add in another logical order: the last rank first.
  std::vector<int> all;
  for (int r = P - 1; r >= 0; --r) all.push_back(r);
  balancer.set_active_ranks(all);
  EXPECT_EQ(s.dom.distribution().grid().size(), P);
  EXPECT_EQ(s.dom.distribution().grid().rank_at_logical(0), P - 1);
  s.check_values();
  EXPECT_THROW(balancer.set_active_ranks({}), Error);
  EXPECT_THROW(balancer.set_active_ranks({0, 0}), Error);
  EXPECT_THROW(balancer.set_active_ranks({P}), Error);
  s.check_values();
}

TEST(Balancer, AvailabilityFileWithdrawsAndReadds) {
  Fixture s;
  if (s.comm.size() < 2) GTEST_SKIP() << "needs a rank to withdraw";
  const std::string dir = "/tmp/tessera-availability-test";
  const std::string pattern = dir + "/withdraw.{rank}";
  const std::string file = dir + "/withdraw.1";
  if (s.comm.rank() == 0) {
    std::filesystem::create_directories(dir);
    std::filesystem::remove(file);
  }
  s.comm.barrier();
  Balancer<2> balancer(s.dom, std::make_shared<NoRebalancing>(), {.interval = 1});
  balancer.set_availability(availability_file(pattern));
  EXPECT_FALSE(balancer.step(1e-3).processor_set_changed);
  if (s.comm.rank() == 0) std::ofstream(file) << "operator says: not now\n";
  s.comm.barrier();
  const auto withdrawn = balancer.step(1e-3);
  EXPECT_TRUE(withdrawn.processor_set_changed);
  EXPECT_EQ(withdrawn.active_ranks, s.comm.size() - 1);
  EXPECT_FALSE(s.dom.distribution().grid().is_active(1));
  s.check_values();
  s.comm.barrier();
  if (s.comm.rank() == 0) std::filesystem::remove(file);
  s.comm.barrier();
  const auto back = balancer.step(1e-3);
  EXPECT_TRUE(back.processor_set_changed);
  EXPECT_TRUE(s.dom.distribution().grid().is_active(1));
  s.check_values();
}

TEST(Balancer, SlowdownThresholdWithdrawsASlowRankAndRetriesIt) {
  Fixture s;
  if (s.comm.size() < 3) GTEST_SKIP() << "the median needs three ranks to single one out";
  Balancer<2> balancer(s.dom, std::make_shared<NoRebalancing>(), {.interval = 1});
  balancer.set_availability(slowdown_threshold(3.0, 2));
  const double factor = s.comm.rank() == 1 ? 5.0 : 1.0;
  EXPECT_TRUE(balancer.step(s.synthetic_seconds(factor)).processor_set_changed);
  EXPECT_FALSE(s.dom.distribution().grid().is_active(1));
  EXPECT_FALSE(balancer.step(s.synthetic_seconds(1.0)).processor_set_changed);  // 1 remap point out
  EXPECT_TRUE(balancer.step(s.synthetic_seconds(1.0)).processor_set_changed);   // 2: offered again
  EXPECT_TRUE(s.dom.distribution().grid().is_active(1));
  s.check_values();
}

TEST(Balancer, BadArguments) {
  Fixture s;
  EXPECT_THROW(Balancer<2>(s.dom, nullptr), Error);
  EXPECT_THROW(Balancer<2>(s.dom, std::make_shared<NoRebalancing>(), {.interval = 0}), Error);
  EXPECT_THROW(Balancer<2>(s.dom, std::make_shared<NoRebalancing>(), {.weights = WeightRule::d3arc, .lb = 2, .ub = 1}), Error);
  Balancer<2> ok(s.dom, std::make_shared<NoRebalancing>());
  EXPECT_THROW(ok.step(-1.0), Error);
  EXPECT_THROW(ok.step(std::nan("")), Error);
  EXPECT_THROW(slowdown_threshold(0.5), Error);
  EXPECT_THROW(availability_file(""), Error);
  if (s.comm.size() > 1) {
    Domain<2> cyc(s.comm, Distribution<2>(s.box, ProcGrid<2>::with_shape(s.comm.size(), {s.comm.size(), 1}), {cyclic(), collapsed()}));
    EXPECT_THROW(Balancer<2>(cyc, std::make_shared<NoRebalancing>()), Error);
  }
}

}  // namespace
}  // namespace tessera
