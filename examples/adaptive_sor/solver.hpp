#pragma once
// One run of the adaptive red-black SOR solver (D3-ARC §V): rows distributed over all ranks
// (block x collapsed), one ghost row above and below, a ghost update before each half-sweep, an
// emulated load that slows chosen ranks, and a Balancer that measures the sweeps and moves rows.
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <cstdint>
#include <memory>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace adaptive_sor {

using tessera::index_t;

struct Problem {
  index_t n = 1024;       // interior points per dimension
  int iterations = 300;   // SOR iterations (the time to solution is the time they take)
  double omega = 1.9;
  int interval = 5;       // iterations between remap points
  // Emulated work per owned row and iteration, in seconds, spent sleeping: a heavier stencil
  // without burning CPU, so that 4 ranks on 2 cores behave like 4 ranks on 4 cores (the sweeps
  // themselves are real and timed too; see README.md).
  double work_per_row = 40e-6;
  // Arrays over the domain besides u and f, carried along by every migration (D3-ARC generalised its
  // solver "to use an arbitrary number of arrays"): more bytes per row moved, the same sweeps.
  int extra_arrays = 0;
};

/// One iteration as rank 0 records it (figures that are per rank are the largest over ranks).
struct IterationRecord {
  double wall = 0;           // the iteration as rank 0's clock saw it (what the run is made of)
  double compute = 0;        // sweeps + emulated slowdown, slowest rank
  double exchange = 0;       // ghost updates, slowest rank
  double coordination = 0;   // balancer: gather + decide + plan
  double migration = 0;      // balancer: moving rows
  double delta = 0;          // Δ chosen (0 when nothing moved)
  index_t rows_moved = 0;
  std::uint64_t bytes = 0;   // bytes the migration moved, every array together
  int active = 0;
};

struct RunResult {
  std::string name;
  double seconds = 0;            // time to solution: the whole iteration loop, rank 0's wall clock
  std::uint64_t bytes_moved = 0;
  int migrations = 0;
  std::uint64_t reallocations = 0;  // summed over ranks and arrays
  std::vector<IterationRecord> iterations;
  std::vector<double> solution;     // gathered on rank 0 (row-major n x n)
  std::string cache;                // the domain's exchange cache at the end, on this rank (stats line)
  std::uint64_t extra_mismatches = 0;  // elements of the extra arrays that lost their value (summed over ranks)
};

/// What extra array `k` holds at (i, j): distinct per array and element, so that a row moved to the
/// wrong place or from the wrong array shows.
inline double extra_value(int k, index_t i, index_t j, index_t n) { return static_cast<double>((k + 1) * n * n + i * n + j); }

/// h² f at interior point (i, j), with f such that u = sin(πx) sin(πy) solves -Δu = f.
inline double scaled_source(index_t i, index_t j, index_t n) {
  const double h = 1.0 / static_cast<double>(n + 1);
  const double x = static_cast<double>(i + 1) * h, y = static_cast<double>(j + 1) * h;
  return h * h * 2.0 * std::numbers::pi * std::numbers::pi * std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y);
}

/// One half-sweep over the owned rows: points of colour `color` get their SOR update. Points of a
/// colour read only the other colour, so the result does not depend on the distribution.
inline void half_sweep(tessera::DistArray<double, 2>& u, const tessera::DistArray<double, 2>& f, int color, double omega) {
  if (u.patch_count() == 0) return;  // a rank balanced (or withdrawn) down to nothing
  const auto v = u.local();
  const auto fv = f.local();
  const index_t first = u.owned_box().lo[0];
  const index_t su = v.strides[0], sf = fv.strides[0];
  for (index_t a = 0; a < v.count[0]; ++a) {
    const index_t i = first + a;
    double* row = v.data + (a + v.ghost_lo[0]) * su + v.ghost_lo[1];
    const double* frow = fv.data + a * sf;
    for (index_t b = ((color - i) % 2 + 2) % 2; b < v.count[1]; b += 2) {
      const double gauss_seidel = 0.25 * (row[b - su] + row[b + su] + row[b - 1] + row[b + 1] + frow[b]);
      row[b] += omega * (gauss_seidel - row[b]);
    }
  }
}

/// Runs the solver once with `policy` (null: never rebalance) under `load`; `progress(i)` is
/// called on rank 0 after iteration i.
template <class Progress>
RunResult run(const tessera::Communicator& comm, const Problem& pb, const std::string& name,
              std::shared_ptr<tessera::BalancePolicy> policy, const tessera::EmulatedLoad& load, Progress&& progress) {
  using namespace tessera;
  const int rank = comm.rank();
  const Box<2> box({0, 0}, {pb.n, pb.n});
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), collapsed()}));
  DistArray<double, 2> u(dom, ghosts<2>(1));  // ghosts beyond the domain stay 0: the boundary
  DistArray<double, 2> f(dom);
  f.for_each_owned([&](const Point<2>& p, double& x) { x = scaled_source(p[0], p[1], pb.n); });
  std::vector<DistArray<double, 2>> extra;
  for (int k = 0; k < pb.extra_arrays; ++k) {
    extra.emplace_back(dom);
    extra.back().for_each_owned([&](const Point<2>& p, double& x) { x = extra_value(k, p[0], p[1], pb.n); });
  }
  Balancer<2> balancer(dom, policy ? policy : std::make_shared<NoRebalancing>(), {.interval = pb.interval});

  std::vector<double> compute(static_cast<std::size_t>(pb.iterations)), exchange(compute.size());
  RunResult out;
  out.name = name;
  out.iterations.resize(compute.size());
  comm.barrier();
  const double started = MPI_Wtime();
  double iteration_started = started;
  for (int it = 0; it < pb.iterations; ++it) {
    double sweep = 0, ghosts_s = 0;
    for (int color = 0; color < 2; ++color) {
      const double t0 = MPI_Wtime();
      u.update_ghosts();
      const double t1 = MPI_Wtime();
      half_sweep(u, f, color, pb.omega);
      ghosts_s += t1 - t0;
      sweep += MPI_Wtime() - t1;
    }
    if (pb.work_per_row > 0 && u.patch_count() > 0) {
      const double t0 = MPI_Wtime();
      std::this_thread::sleep_for(std::chrono::duration<double>(pb.work_per_row * static_cast<double>(u.local().count[0])));
      sweep += MPI_Wtime() - t0;
    }
    sweep += load.slow_down(rank, it, sweep);  // sleeps: behaves like another process on the core
    compute[static_cast<std::size_t>(it)] = sweep;
    exchange[static_cast<std::size_t>(it)] = ghosts_s;
    const BalanceStep step = balancer.step(sweep);
    IterationRecord& r = out.iterations[static_cast<std::size_t>(it)];
    r.coordination = step.coordination_seconds;
    r.migration = step.migration_seconds;
    r.delta = step.bytes > 0 ? step.delta : 0;
    r.rows_moved = step.elements / pb.n;
    r.bytes = step.bytes;
    r.active = step.active_ranks;
    if (step.bytes > 0) {
      out.bytes_moved += step.bytes;
      ++out.migrations;
    }
    const double now = MPI_Wtime();
    r.wall = now - iteration_started;
    iteration_started = now;
    if (rank == 0) progress(it);
  }
  comm.barrier();
  out.seconds = MPI_Wtime() - started;
  // Per-iteration figures of the slowest rank, gathered once at the end (not in the timed loop).
  std::vector<double> all_compute(rank == 0 ? compute.size() * static_cast<std::size_t>(comm.size()) : 0);
  std::vector<double> all_exchange(all_compute.size());
  MPI_Gather(compute.data(), pb.iterations, MPI_DOUBLE, all_compute.data(), pb.iterations, MPI_DOUBLE, 0, comm.raw());
  MPI_Gather(exchange.data(), pb.iterations, MPI_DOUBLE, all_exchange.data(), pb.iterations, MPI_DOUBLE, 0, comm.raw());
  if (rank == 0)
    for (int q = 0; q < comm.size(); ++q)
      for (std::size_t i = 0; i < compute.size(); ++i) {
        auto& r = out.iterations[i];
        r.compute = std::max(r.compute, all_compute[static_cast<std::size_t>(q) * compute.size() + i]);
        r.exchange = std::max(r.exchange, all_exchange[static_cast<std::size_t>(q) * compute.size() + i]);
      }
  std::uint64_t reallocations = u.reallocations() + f.reallocations(), wrong = 0;
  for (int k = 0; k < pb.extra_arrays; ++k) {
    auto& a = extra[static_cast<std::size_t>(k)];
    reallocations += a.reallocations();
    a.for_each_owned([&](const Point<2>& p, double& x) { wrong += x != extra_value(k, p[0], p[1], pb.n); });
  }
  out.reallocations = static_cast<std::uint64_t>(comm.sum(static_cast<double>(reallocations)));
  out.extra_mismatches = static_cast<std::uint64_t>(comm.sum(static_cast<double>(wrong)));
  out.solution = u.gather_to(0);
  std::ostringstream cache;
  cache << dom.cache().stats();
  out.cache = cache.str();
  return out;
}

}  // namespace adaptive_sor
