// Incremental box balancing on real arrays: steps of growing Δ toward a knapsack target, each
// carried out by a preserving redistribution between box sets, every stored value checked after
// every step, on random irregular box sets with an emulated heavy rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <random>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/balance/box_balance.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
void step_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(4100 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    auto set = random_box_set<N>(rng, box, 4, 30, comm.size());
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << set);
    // Rank 0's boxes cost three times their cells (an emulated load), so there is work to shed.
    std::vector<double> weights;
    for (std::size_t i = 0; i < set.size(); ++i)
      weights.push_back(static_cast<double>(volume(set.box(i))) * (set.owner(i) == 0 ? 3.0 : 1.0));
    const auto target = assign_knapsack<N>(set.boxes(), comm.size(), weights);
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    DistArray<double, N> a(dom, ghosts<N>(1));
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    double excess = -1;
    for (const double delta : {0.25, 0.5, 1.0}) {
      const auto step = incremental_box_step<N>(set.boxes(), set.owners(), target, comm.size(), delta, weights);
      if (excess >= 0) {
        EXPECT_LE(step.excess_before, excess + 1e-9);
      }
      excess = step.excess_after;
      set = BoxSet<N>(set.domain(), set.boxes(), step.owners, comm.size());
      dom.redistribute(Distribution<N>::from_box_set(set));
      ASSERT_EQ(a.patch_count(), set.boxes_of(comm.rank()).size());
      std::size_t checked = 0;
      a.for_each_owned([&](const Point<N>& p, const double& x) {
        EXPECT_EQ(x, value_of(p)) << "rank " << comm.rank() << " point " << p << " after delta " << delta;
        ++checked;
      });
      EXPECT_EQ(static_cast<index_t>(checked), set.cells_of(comm.rank()));
      if (delta == 1.0) {
        EXPECT_EQ(set.owners(), target);
      }
    }
  }
}

TEST(BoxSetBalancing, StepsTowardATargetKeepEveryValue2D) { step_cases<2>(12, 16); }
TEST(BoxSetBalancing, StepsTowardATargetKeepEveryValue3D) { step_cases<3>(6, 8); }

}  // namespace
}  // namespace tessera
