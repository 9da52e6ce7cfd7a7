// Incremental box balancing against one-shot rebalancing (issue 16: D3-ARC's Δ applied to box
// sets), on an emulated load like the balancing demo's (examples/adaptive_sor), one MPI job.
//
// The program: Jacobi sweeps (5-point average, periodic) over an n x n domain tiled by boxes of
// tile x tile, Morton-assigned by cells at the start; each iteration updates the ghosts, sweeps
// every box of the rank into a second array, and then sleeps the emulated cost of the rank's boxes
// (tessera::EmulatedLoad's way: sleeping, so that 4 ranks on 2 cores behave like 4 cores). A box
// costs `work-per-cell-us` per cell, times `hot` while its centre lies within `radius` x n of a hot
// spot that moves along the diagonal from 0.2 n to 0.8 n over the run (AMR's moving feature).
// Every `interval` iterations each rank adds its boxes' costs since the last remap point (what a
// timer per box would read; here the emulated seconds, so that the run is reproducible), one
// MPI_Allreduce makes them every rank's weights, and when the slowest rank is more than 5 % above
// the mean, the strategy moves boxes toward the target assignment for those weights
// (tessera::assign_knapsack, or assign_morton with --target morton), through a preserving
// Domain::redistribute of both arrays:
//  - "none": never moves (the baseline);
//  - "one-shot": the target as it is (Δ = 1): every box whose owner differs moves;
//  - "step-D": tessera::incremental_box_step with Δ = D: the boxes with the best gain per cell
//    moved, until a fraction D of the excess load is gone;
//  - a policy of the balance layer by name (--policies, default "d3arc-adaptive,horizon":
//    tessera::make_policy), deciding Δ at each remap point: the run goes through
//    tessera::BoxBalancer (interval and target as above, not relabeled, like the strategies above),
//    each rank adding its boxes' emulated seconds to the balancer's timer of each box; the
//    migration's cost the policies learn from is measured (BalanceStep::migration_seconds, the
//    slowest rank's, which is also what migration_s sums for these strategies).
// Records per strategy (op "box-balance", case "<target>-hotspot-<n>-<boxes>boxes-<strategy>"):
// total_s (the run, from a barrier to a barrier, the slowest rank) and iteration_s (total_s /
// iterations: the time per iteration including migrations), both with "one-shot" as the anchor (the
// one-shot record itself has none); counts bytes_moved (cells of the boxes that changed owner x 8
// bytes x 2 arrays), migrations, and migration_s (seconds in Domain::redistribute, summed over the
// run, the slowest rank). Every strategy computes the same values: the final array is gathered on
// rank 0 and compared bit for bit with the first strategy's; the job aborts on any difference.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/balance/box_balance.hpp"
#include "tessera/balance/box_balancer.hpp"
#include "tessera/balance/policy.hpp"
#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/box_set_distribution.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_box_balance";
constexpr double kTolerance = 0.05;  // rebalance when the slowest rank is more than 5 % above the mean
constexpr int kArrays = 2;

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

struct Scenario {
  index_t n = 1024, tile = 32;
  int iterations = 60, interval = 10;
  double work_per_cell = 0.04e-6;  // seconds per cell and iteration, slept
  double hot = 8, radius = 0.15;
  bool morton_target = false;

  [[nodiscard]] std::vector<Box<2>> boxes() const {
    std::vector<Box<2>> out;
    for (index_t i = 0; i < n; i += tile)
      for (index_t j = 0; j < n; j += tile) out.push_back(Box<2>({i, j}, {std::min(n, i + tile), std::min(n, j + tile)}));
    return out;
  }
  /// The emulated seconds box b costs at iteration `it`.
  [[nodiscard]] double cost(const Box<2>& b, int it) const {
    const double at = static_cast<double>(n) * (0.2 + 0.6 * it / iterations);
    const double dx = 0.5 * static_cast<double>(b.lo[0] + b.hi[0]) - at, dy = 0.5 * static_cast<double>(b.lo[1] + b.hi[1]) - at;
    const bool spot = std::hypot(dx, dy) < radius * static_cast<double>(n);
    return work_per_cell * static_cast<double>(volume(b)) * (spot ? hot : 1.0);
  }
};

struct Strategy {
  std::string name;
  double delta = 0;    // 0: never move; 1: one-shot
  std::string policy;  // not empty: a tessera::make_policy name deciding Δ through a BoxBalancer
};

struct RunResult {
  double total = 0, migration = 0;
  std::uint64_t bytes = 0;
  int migrations = 0;
  std::vector<double> image;  // the final array, row-major, on rank 0
};

/// One iteration's Jacobi sweep of every patch of `from` into `to` (both over the same domain).
void sweep(const tessera::DistArray<double, 2>& from, tessera::DistArray<double, 2>& to) {
  for (std::size_t p = 0; p < from.patch_count(); ++p) {
    const auto a = from.local(p);
    const auto b = to.local(p);
    for (index_t i = 0; i < a.count[0]; ++i)
      for (index_t j = 0; j < a.count[1]; ++j) {
        const index_t x = i + a.ghost_lo[0], y = j + a.ghost_lo[1];
        b({i + b.ghost_lo[0], j + b.ghost_lo[1]}) = 0.25 * (a({x - 1, y}) + a({x + 1, y}) + a({x, y - 1}) + a({x, y + 1}));
      }
  }
}

RunResult run(const tessera::Communicator& world, const Scenario& sc, const Strategy& strategy) {
  const int P = world.size(), me = world.rank();
  const Box<2> domain({0, 0}, {sc.n, sc.n});
  const auto boxes = sc.boxes();
  tessera::BoxSet<2> set = tessera::make_box_set(domain, boxes, P, tessera::BoxAssignment::morton);
  tessera::Domain<2> dom(world, tessera::Distribution<2>::from_box_set(set));
  const auto g = tessera::ghosts<2>(1).faces_only().periodic_along({true, true});
  tessera::DistArray<double, 2> u(dom, g), v(dom, g);
  u.for_each_owned([](const Point<2>& p, double& x) { x = static_cast<double>((p[0] * 7 + p[1] * 13) % 101); });
  std::vector<double> box_seconds(boxes.size(), 0.0);
  std::optional<tessera::BoxBalancer<2>> balancer;
  if (!strategy.policy.empty()) {
    tessera::BoxBalancerOptions options;
    options.interval = sc.interval;
    options.target = sc.morton_target ? tessera::BoxTarget::morton : tessera::BoxTarget::knapsack;
    options.relabel = false;
    balancer.emplace(dom, tessera::make_policy(strategy.policy), options);
  }
  RunResult res;
  check_mpi(MPI_Barrier(world.raw()), "MPI_Barrier");
  const double start = MPI_Wtime();
  for (int it = 0; it < sc.iterations; ++it) {
    auto& from = it % 2 == 0 ? u : v;
    auto& to = it % 2 == 0 ? v : u;
    from.update_ghosts();
    sweep(from, to);
    double mine = 0;
    for (const std::size_t b : set.boxes_of(me)) {
      const double c = sc.cost(boxes[b], it);
      box_seconds[b] += c;
      mine += c;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(mine));
    if (balancer) {
      if (it + 1 == sc.iterations) continue;  // no remap after the last iteration, as below
      for (std::size_t p = 0; p < from.patch_count(); ++p) balancer->timer(p).add(sc.cost(boxes[balancer->box_of_patch(p)], it));
      const tessera::BalanceStep step = balancer->step();
      if (step.blocks > 0) {
        set = balancer->set();
        res.migration += step.migration_seconds;
        res.bytes += step.bytes;
        ++res.migrations;
      }
      continue;
    }
    if (strategy.delta <= 0 || (it + 1) % sc.interval != 0 || it + 1 == sc.iterations) continue;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, box_seconds.data(), static_cast<int>(box_seconds.size()), MPI_DOUBLE, MPI_SUM,
                            world.raw()),
              "MPI_Allreduce");
    const std::vector<double> weights = box_seconds;
    std::fill(box_seconds.begin(), box_seconds.end(), 0.0);
    if (tessera::max_over_mean_load<2>(boxes, set.owners(), P, weights) <= 1 + kTolerance) continue;
    const auto target = sc.morton_target ? tessera::assign_morton<2>(boxes, P, weights) : tessera::assign_knapsack<2>(boxes, P, weights);
    const auto step = tessera::incremental_box_step<2>(boxes, set.owners(), target, P, strategy.delta, weights);
    if (step.moves.empty()) continue;
    const double t0 = MPI_Wtime();
    set = tessera::BoxSet<2>(domain, boxes, step.owners, P);
    dom.redistribute(tessera::Distribution<2>::from_box_set(set));
    res.migration += MPI_Wtime() - t0;
    res.bytes += step.cells * sizeof(double) * kArrays;
    ++res.migrations;
  }
  check_mpi(MPI_Barrier(world.raw()), "MPI_Barrier");
  std::vector<double> t{MPI_Wtime() - start, res.migration};
  tessera::bench::max_over_ranks(t, world.raw());
  res.total = t[0];
  res.migration = t[1];
  res.image = (sc.iterations % 2 == 0 ? u : v).gather_to(0);
  return res;
}

std::vector<Strategy> strategies(const std::vector<double>& deltas, const std::vector<std::string>& policies) {
  std::vector<Strategy> out{{"none", 0, {}}, {"one-shot", 1, {}}};
  for (const double d : deltas) out.push_back({"step-" + tessera::bench::number(d, 3), d, {}});
  for (const std::string& p : policies) out.push_back({tessera::make_policy(p)->name(), 0, p});
  return out;
}

Summary once(double x) { return {x, x, x}; }

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Incremental box balancing against one-shot rebalancing under an emulated moving hot spot"};
  Scenario sc;
  std::vector<double> deltas{0.25, 0.5};
  std::vector<std::string> policies{"d3arc-adaptive", "horizon"};
  double work_us = sc.work_per_cell * 1e6;
  std::string target = "knapsack", json;
  app.add_option("--n", sc.n, "n of the n x n domain")->check(CLI::Range(index_t{8}, index_t{1} << 15));
  app.add_option("--tile", sc.tile, "box extent (the domain tiled by tile x tile boxes)")->check(CLI::Range(index_t{1}, index_t{1} << 15));
  app.add_option("--iterations", sc.iterations, "iterations per run")->check(CLI::Range(1, 1000000));
  app.add_option("--interval", sc.interval, "iterations between remap points")->check(CLI::Range(1, 1000000));
  app.add_option("--work-per-cell-us", work_us, "emulated work per cell and iteration (slept)")->check(CLI::Range(0.0, 1e3));
  app.add_option("--hot", sc.hot, "cost factor of a box in the hot spot")->check(CLI::Range(1.0, 1e6));
  app.add_option("--radius", sc.radius, "hot spot radius, a fraction of n")->check(CLI::Range(0.0, 2.0));
  app.add_option("--deltas", deltas, "Δ of the incremental strategies")->delimiter(',')->check(CLI::Range(0.0, 1.0));
  app.add_option("--policies", policies, "balance-layer policies deciding Δ (tessera::make_policy names; none: \"\")")
      ->delimiter(',')
      ->check([](const std::string& name) {
        if (name.empty()) return std::string();
        try {
          (void)tessera::make_policy(name);
        } catch (const tessera::Error& e) {
          return std::string(e.what());
        }
        return std::string();
      });
  app.add_option("--target", target, "target assignment at each remap point")->check(CLI::IsMember({"knapsack", "morton"}));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  sc.work_per_cell = work_us * 1e-6;
  sc.morton_target = target == "morton";
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(print, "strategy", 15,
                                    {{"total s", 9, 3}, {"per it ms", 10, 2}, {"migr s", 8, 3}, {"migrations", 11, 0},
                                     {"MB moved", 10, 2}});
  const std::string scenario = target + "-hotspot-" + std::to_string(sc.n) + "-" + std::to_string(sc.boxes().size()) + "boxes";
  if (print)
    std::printf("box balancing, %d ranks, %s: %d iterations, remap every %d, hot spot x%g of radius %g n\n", world.size(),
                scenario.c_str(), sc.iterations, sc.interval, sc.hot, sc.radius);
  table.print_header();
  policies.erase(std::remove(policies.begin(), policies.end(), std::string()), policies.end());
  const auto all = strategies(deltas, policies);
  std::vector<RunResult> results;
  for (const Strategy& s : all) {
    results.push_back(run(world, sc, s));
    const RunResult& r = results.back();
    if (print && r.image != results.front().image)
      abort_job(s.name + " computed other values than " + all.front().name);
    table.print_row(s.name, {r.total, 1e3 * r.total / sc.iterations, r.migration, static_cast<double>(r.migrations),
                             static_cast<double>(r.bytes) / 1e6});
  }
  std::vector<Record> records;
  const RunResult& one_shot = results[1];
  for (std::size_t i = 0; i < all.size(); ++i) {
    const RunResult& r = results[i];
    const std::string name = scenario + "-" + all[i].name;
    const int P = world.size();
    const double per_it = r.total / sc.iterations, anchor_per_it = one_shot.total / sc.iterations;
    if (i == 1) {
      records.push_back({"box-balance", name, P, "total_s", once(r.total), std::nullopt, {}});
      records.push_back({"box-balance", name, P, "iteration_s", once(per_it), std::nullopt, {}});
    } else {
      records.push_back({"box-balance", name, P, "total_s", once(r.total), "one-shot", once(one_shot.total)});
      records.push_back({"box-balance", name, P, "iteration_s", once(per_it), "one-shot", once(anchor_per_it)});
    }
    records.push_back(Record::count("box-balance", name, P, "bytes_moved", static_cast<double>(r.bytes)));
    records.push_back(Record::count("box-balance", name, P, "migrations", r.migrations));
    records.push_back(Record::count("box-balance", name, P, "migration_s", r.migration));
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
