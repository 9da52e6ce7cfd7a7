// ZPL's processor homogeneity test (Deitz et al., section 4.4): one timed kernel (Jacobi-like
// smoothing sweeps with ghost updates) run once per permutation of the grid's rank table
// (ProcGrid::from_ranks over rotations of a rank list), so each rank computes each block once.
// The arrays follow each new grid through Domain::redistribute (preserve: ZPL's `<==`). Prints
// every rank's relative speed and checks that every permutation gives the serial result bit for
// bit. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/movement_count.hpp"
#include "tessera/tessera.hpp"
#include "zpl_homogeneity/smoothing.hpp"

namespace {

using tessera::index_t;
using tessera::Point;
using zpl_homogeneity::initial;
using zpl_homogeneity::sweep;
using Clock = std::chrono::steady_clock;

/// Seconds spent by this rank in local sweeps and in the whole kernel (ghost updates included).
struct KernelTimes {
  double compute = 0.0;
  double wall = 0.0;
};

/// The timed kernel: `sweeps` smoothing sweeps alternating between `a` and `b` (even count: the
/// result is in `a`). Only the local sweeps count as compute: waiting for neighbours in the ghost
/// update would charge a fast rank for a slow one.
KernelTimes run_kernel(tessera::DistArray<double, 2>& a, tessera::DistArray<double, 2>& b, int sweeps) {
  KernelTimes t;
  const auto start = Clock::now();
  for (int s = 0; s < sweeps; ++s) {
    tessera::DistArray<double, 2>& in = s % 2 == 0 ? a : b;
    tessera::DistArray<double, 2>& out = s % 2 == 0 ? b : a;
    in.update_ghosts();
    if (in.patch_count() == 0) continue;  // a rank that owns nothing still joins the ghost updates
    const auto c0 = Clock::now();
    sweep(std::as_const(in).local(), out.local());
    t.compute += std::chrono::duration<double>(Clock::now() - c0).count();
  }
  t.wall = std::chrono::duration<double>(Clock::now() - start).count();
  return t;
}

/// `total` split evenly over `count` movements (0 when there were none).
tessera::bench::Moved per(const tessera::bench::Moved& total, std::uint64_t count) {
  if (count == 0) return {};
  return {total.bytes_sent / count, total.messages / count, total.bytes_local / count};
}

/// Bytes the redistribution plans from `from` to `to` send between ranks, over every rank (as
/// `tessera plan` counts them; a spec cannot place ranks in a permuted order, so the program asks
/// the planning layer itself): every copy counted once, from its sender's plan.
double planned_bytes(const tessera::Distribution<2>& from, const tessera::Distribution<2>& to,
                     std::size_t bytes_per_element) {
  index_t elements = 0;
  for (int r = 0; r < from.comm_size(); ++r) {
    // The plan is a value: name it, or the loop would walk the copies of a destroyed temporary.
    const auto plan = tessera::redistribution_plan(from, to, r);
    for (const auto& copy : plan.copies())
      if (copy.src_rank == r && copy.dst_rank != r) elements += tessera::volume(copy.src);
  }
  return static_cast<double>(elements) * static_cast<double>(bytes_per_element);
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"ZPL processor homogeneity test: one timed kernel under every rotation of the grid's rank table"};
  index_t n = 512;
  int sweeps = 40, permutations = 0;
  unsigned seed = 0;
  int repeat = 1;
  std::string json;
  app.add_option("--n", n, "grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--sweeps", sweeps, "smoothing sweeps per run (rounded up to even)")->check(CLI::Range(0, 1000000));
  app.add_option("--permutations", permutations, "runs, rotation k of the rank list in run k (0: one per rank)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--seed", seed, "shuffle the rank list before rotating it (0: ranks in order)");
  app.add_option("--repeat", repeat, "whole tests, each from a fresh domain and each run checked")
      ->check(CLI::Range(1, 10000));
  app.add_option("--json", json, "rank 0 writes the timings and the movements' bytes here (bench records)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  sweeps += sweeps % 2;
  const int rank = world.rank(), size = world.size();
  const int runs = permutations > 0 ? permutations : size;

  // permute(procs, p): rotation k of a base list puts rank base[(l + k) % p] at logical position
  // l, so over p runs every rank holds every position (computes every block) exactly once. The
  // shuffle is seeded identically everywhere, so every rank builds the same grids.
  std::vector<int> base(static_cast<std::size_t>(size));
  std::iota(base.begin(), base.end(), 0);
  if (seed != 0) std::shuffle(base.begin(), base.end(), std::mt19937(seed));
  const Point<2> shape = tessera::ProcGrid<2>::automatic(size, {n, n}).shape();
  const tessera::Box<2> box({0, 0}, {n, n});
  const auto grid_of = [&](int k) {
    std::vector<int> ranks(base.size());
    for (std::size_t l = 0; l < ranks.size(); ++l) ranks[l] = base[(l + static_cast<std::size_t>(k)) % base.size()];
    return tessera::ProcGrid<2>::from_ranks(size, shape, std::move(ranks));
  };
  const auto dist_of = [&](int k) {
    return tessera::Distribution<2>(box, grid_of(k), {tessera::block(), tessera::block()});
  };

  const std::vector<double> reference = rank == 0 ? zpl_homogeneity::serial_smoothing(n, sweeps) : std::vector<double>{};
  std::vector<double> compute(static_cast<std::size_t>(runs * size)), wall(compute.size());
  std::vector<int> block_of(compute.size());  // logical grid position of rank r in run k
  std::vector<double> seconds;                // per repetition: every run's permutation, copy and kernel
  int identical = 0;
  std::size_t bytes_per_element = 0;
  tessera::bench::Moved halo, permute;
  for (int rep = 0; rep < repeat; ++rep) {
    tessera::Domain<2> dom(world, dist_of(0));
    // `input` is set once and only ever moved (preserving redistributions), standing for costly
    // initialisation; every run starts its work arrays from it.
    tessera::DistArray<double, 2> input(dom);
    tessera::DistArray<double, 2> work(dom, tessera::ghosts<2>(1).faces_only());
    tessera::DistArray<double, 2> next(dom, tessera::ghosts<2>(1).faces_only());
    input.for_each_owned([](const Point<2>& p, double& x) { x = initial(p[0], p[1]); });
    bytes_per_element = dom.bytes_per_element();
    double repetition_seconds = 0.0;
    tessera::bench::Moved halo_mine, permute_mine;
    for (int k = 0; k < runs; ++k) {
      world.barrier();
      const double t0 = MPI_Wtime();
      // G <== procs: every array over the domain follows the new grid, values kept.
      if (k > 0) {
        const tessera::bench::MovementCount permute_count;
        dom.redistribute(dist_of(k), tessera::Redistribution::preserve);
        permute_mine += permute_count.mine();
      }
      tessera::copy(input, work);  // same distribution: a local copy, ghosts left for update_ghosts
      const double t1 = MPI_Wtime();
      tessera::check_mpi(MPI_Barrier(dom.comm().raw()), "MPI_Barrier");  // start every rank's clock together
      const tessera::bench::MovementCount halo_count;
      const KernelTimes t = run_kernel(work, next, sweeps);
      halo_mine += halo_count.mine();
      repetition_seconds += (t1 - t0) + t.wall;
      const std::size_t row = static_cast<std::size_t>(k * size);
      tessera::check_mpi(MPI_Allgather(&t.compute, 1, MPI_DOUBLE, compute.data() + row, 1, MPI_DOUBLE, dom.comm().raw()),
                         "MPI_Allgather");
      tessera::check_mpi(MPI_Allgather(&t.wall, 1, MPI_DOUBLE, wall.data() + row, 1, MPI_DOUBLE, dom.comm().raw()),
                         "MPI_Allgather");
      const tessera::ProcGrid<2>& grid = dom.distribution().grid();
      for (int r = 0; r < size; ++r) block_of[row + static_cast<std::size_t>(r)] = grid.logical_of(r).value_or(-1);
      const std::vector<double> got = work.gather_to(0);
      identical += rank == 0 && got == reference;
    }
    seconds.push_back(repetition_seconds);
    halo = tessera::bench::sum_over_ranks(halo_mine, world.raw());  // every repetition moves the same
    permute = tessera::bench::sum_over_ranks(permute_mine, world.raw());
  }

  const tessera::bench::Summary t = tessera::bench::slowest_rank_summary(seconds, world.raw());
  int failed = 0;
  if (rank == 0) {
    std::printf("%d ranks, grid %lldx%lld, n = %lld, %d sweeps, %d permutations of the rank table%s\n", size,
                static_cast<long long>(shape[0]), static_cast<long long>(shape[1]), static_cast<long long>(n), sweeps,
                runs, seed != 0 ? " (shuffled)" : "");
    std::printf("run  kernel wall [s] (slowest rank)\n");
    for (int k = 0; k < runs; ++k) {
      const auto first = wall.begin() + k * size;
      std::printf("%3d  %.6f\n", k, *std::max_element(first, first + size));
    }
    // A rank's relative speed: the fastest rank's total compute time over its own, both summed
    // over the same runs, so over `size` rotations each total covers every block once.
    std::vector<double> total(static_cast<std::size_t>(size), 0.0);
    for (int k = 0; k < runs; ++k)
      for (int r = 0; r < size; ++r)
        total[static_cast<std::size_t>(r)] += compute[static_cast<std::size_t>(k * size + r)];
    const double fastest = *std::min_element(total.begin(), total.end());
    std::printf("rank  compute [s]  relative speed  blocks (run: block) compute [s]\n");
    for (int r = 0; r < size; ++r) {
      const double rank_total = total[static_cast<std::size_t>(r)];
      std::printf("%4d  %.6f     %.3f          ", r, rank_total, rank_total > 0.0 ? fastest / rank_total : 1.0);
      for (int k = 0; k < std::min(runs, 8); ++k) {
        const std::size_t e = static_cast<std::size_t>(k * size + r);
        std::printf(" %d:%d %.2e", k, block_of[e], compute[e]);
      }
      std::printf("%s\n", runs > 8 ? " ..." : "");
    }
    std::printf("%d repetitions of the whole test: %.3f s (median; permutations, copies and kernels)\n", repeat,
                t.median);
    // Per ghost update and per permutation: every update (and every rotation) moves the same.
    const tessera::bench::Moved per_update = per(halo, static_cast<std::uint64_t>(runs) * sweeps);
    const tessera::bench::Moved per_permutation = per(permute, static_cast<std::uint64_t>(runs - 1));
    tessera::bench::print_movement(true, "halo", per_update,
                                   "'domain=" + std::to_string(n) + "x" + std::to_string(n) + " grid=" +
                                       std::to_string(shape[0]) + "x" + std::to_string(shape[1]) +
                                       " dist=block,block ghosts=1,faces' --halo --ranks " + std::to_string(size) +
                                       " --element-size " + std::to_string(sizeof(double)));
    tessera::bench::print_movement(true, "permute", per_permutation);
    const double planned = runs > 1 ? planned_bytes(dist_of(0), dist_of(1), bytes_per_element) : 0.0;
    std::printf("permute: the redistribution plans move %.0f bytes between ranks (%zu bytes per element: every "
                "array over the domain)\n",
                planned, bytes_per_element);
    if (identical == runs * repeat) {
      if (!json.empty()) {
        const std::string name = "n" + std::to_string(n) + "-sweeps" + std::to_string(sweeps);
        std::vector<tessera::bench::Record> records{tessera::bench::Record::timing("zpl_homogeneity", name, size, t)};
        tessera::bench::add_movement_records(records, "zpl_homogeneity", name, size, "halo", per_update);
        tessera::bench::add_movement_records(records, "zpl_homogeneity", name, size, "permute", per_permutation);
        records.push_back(tessera::bench::Record::count("zpl_homogeneity", name, size, "permute_planned_bytes", planned));
        tessera::bench::write_json(json, records, "zpl_homogeneity");
      }
      std::printf("homogeneity test: results identical under %d grid permutations (and to the serial run)\n", runs);
    } else {
      std::printf("MISMATCH: only %d of %d permuted runs match the serial run bit for bit\n", identical, runs * repeat);
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
