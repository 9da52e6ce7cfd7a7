#pragma once
// The --balance mode of the Morton example: the curve's split points balanced by Δ under emulated
// load (tessera/balance/split_balance.hpp) by a tessera::Balancer. Every iteration updates each
// element of an array pointwise (`work` times, so that there is something to time); chosen ranks
// run slower (tessera::EmulatedLoad sleeps after their sweep; with `point_seconds` > 0 every rank
// also sleeps that long per point it owns, a costlier kernel emulated without contending for the
// cores of a loaded machine, whose timings of the bare sweep are mostly noise). Every `interval`
// iterations the balancer gathers the ranks' seconds, a static-Δ policy decides from
// split_step_preview, and the split points move (the array migrated, values kept). After every
// remap point each rank compares its values with a serial run of the same updates over the whole
// domain: the run fails (exit 1) on any difference. The imbalance (slowest / mean - 1) is printed
// at each remap point; being measured, it is reported, not checked.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "morton_distribution.hpp"
#include "tessera/balance/split_balance.hpp"
#include "tessera/tessera.hpp"

struct BalanceOptions {
  int iterations = 0;      // 0: no balancing run
  double delta = 0.5;      // fraction of the way to the target per step
  int interval = 3;        // iterations between remap points
  std::string load = "0:3@0-1000000";
  int work = 100;          // sweeps of the update per iteration
  double point_seconds = 0;  // emulated seconds per owned point and iteration, slept (0: none)
};

// The pointwise update, the same function for the distributed and the serial run (bit for bit).
inline double morton_update(double x, const tessera::Point<2>& p) {
  return 0.5 * x + 0.001 * static_cast<double>(p[0]) + 0.0001 * static_cast<double>(p[1]) + 1.0;
}

inline int balance_under_load(int& argc, char**& argv, const std::vector<tessera::index_t>& ext, const BalanceOptions& o) {
  using tessera::Point;
  tessera::Environment env(argc, argv);
  const tessera::Communicator& comm = env.world();
  const int rank = comm.rank(), P = comm.size();
  if (!(o.delta > 0 && o.delta <= 1)) tessera::fail_argument("morton_distribution", "--delta", o.delta, "must be in (0, 1]");
  const tessera::EmulatedLoad load = tessera::EmulatedLoad::parse(o.load);
  const auto box = tessera::Box<2>::from_extents({ext[0], ext[1]});
  tessera::Domain<2> dom(comm, tessera::Distribution<2>::user(
                                   std::make_shared<const tessera_examples::MortonDistribution<2>>(
                                   box, P, tessera_examples::MortonStorage::curve)));  // points in curve order
  tessera::DistArray<double, 2> u(dom);
  u.for_each_owned([](const Point<2>&, double& x) { x = 0; });
  std::vector<double> serial(static_cast<std::size_t>(tessera::volume(box)), 0.0);  // row-major over box
  tessera::BalancerOptions options;
  options.interval = o.interval;
  tessera::Balancer<2> balancer(dom, std::make_shared<tessera::StaticDelta>(o.delta), options);
  if (rank == 0)
    std::cout << dom.distribution() << ", load " << load << ", policy " << balancer.policy().name()
              << ", remap every " << o.interval << " iterations\n";

  const auto matches_serial = [&] {
    int wrong = 0;
    u.for_each_owned([&](const Point<2>& p, const double& x) {
      wrong += x != serial[static_cast<std::size_t>(tessera::offset_row_major(box, p))];
    });
    return comm.allreduce(wrong, tessera::ReduceOp::sum) == 0;
  };
  bool ok = true;
  std::vector<double> imbalances;
  for (int it = 0; it < o.iterations; ++it) {
    {
      auto measured = balancer.timer().measure();
      for (int w = 0; w < o.work; ++w) u.for_each_owned([](const Point<2>& p, double& x) { x = morton_update(x, p); });
      const auto points = static_cast<double>(dom.distribution().local_size(rank));
      if (o.point_seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(points * o.point_seconds));
    }
    // The emulated slowdown: the loaded rank sleeps (factor - 1) times what it measured.
    balancer.timer().add(load.slow_down(rank, it, balancer.timer().seconds()));
    tessera::for_each_point(box, [&](const Point<2>& p) {
      double& x = serial[static_cast<std::size_t>(tessera::offset_row_major(box, p))];
      for (int w = 0; w < o.work; ++w) x = morton_update(x, p);
    });
    // Collective: at a remap point the policy decides Δ and the split points move (every array of
    // the domain redistributed, values kept).
    const tessera::BalanceStep step = balancer.step();
    if (!step.remap_point) continue;
    imbalances.push_back(step.imbalance);
    const bool same = matches_serial();
    ok = ok && same;
    if (rank == 0) {
      std::cout << "iteration " << std::setw(3) << it + 1 << ": imbalance " << std::fixed << std::setprecision(2)
                << step.imbalance << ", delta " << step.delta << ", moved " << step.elements << " points; points per rank";
      const auto counts = tessera::split_counts(dom.distribution());
      for (int r = 0; r < P; ++r) std::cout << ' ' << counts[static_cast<std::size_t>(r) + 1] - counts[static_cast<std::size_t>(r)];
      std::cout << (same ? "" : "  VALUES DIFFER FROM THE SERIAL RUN") << '\n';
    }
  }
  ok = ok && matches_serial();
  if (rank == 0) {
    if (!imbalances.empty())
      std::cout << "imbalance at the first remap point " << imbalances.front() << ", at the last " << imbalances.back()
                << " (measured: timings vary from run to run)\n";
    std::cout << (ok ? "values match the serial run after every redistribution\n"
                     : "FAILED: values differ from the serial run\n");
  }
  return ok ? 0 : 1;
}
