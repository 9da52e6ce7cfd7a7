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
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::index_t;
using tessera::Point;
using View = tessera::LocalView<double, 2>;
using ConstView = tessera::LocalView<const double, 2>;
using Clock = std::chrono::steady_clock;

/// The one update both the distributed and the serial runs use, so that they round alike.
double smooth(double centre, double north, double south, double west, double east) {
  return 0.2 * (centre + north + south + west + east);
}

/// Deterministic initial value of global point (i, j): a hash mapped to [0, 1), the same on every
/// rank and in every layout.
double initial(index_t i, index_t j) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
  x ^= static_cast<std::uint64_t>(j) * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

/// One sweep over the owned points: `in` and `out` have the same layout (one ghost layer, zero
/// beyond the domain), so one set of local indices addresses both.
void sweep(const ConstView& in, const View& out) {
  const index_t s = in.strides[0];
  for (index_t a = 0; a < in.count[0]; ++a) {
    const double* row = in.data + (a + in.ghost_lo[0]) * s + in.ghost_lo[1];
    double* dst = out.data + (a + out.ghost_lo[0]) * s + out.ghost_lo[1];
    for (index_t b = 0; b < in.count[1]; ++b) dst[b] = smooth(row[b], row[b - s], row[b + s], row[b - 1], row[b + 1]);
  }
}

/// A row-major view over a plain vector of `rows` x `cols` owned points with one ghost layer.
template <class T>
tessera::LocalView<T, 2> plain_view(T* data, index_t rows, index_t cols) {
  return {data, {rows + 2, cols + 2}, {cols + 2, 1}, {1, 1}, {rows, cols}};
}

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

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"ZPL processor homogeneity test: one timed kernel under every rotation of the grid's rank table"};
  index_t n = 512;
  int sweeps = 40, permutations = 0;
  unsigned seed = 0;
  app.add_option("--n", n, "grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--sweeps", sweeps, "smoothing sweeps per run (rounded up to even)")->check(CLI::Range(0, 1000000));
  app.add_option("--permutations", permutations, "runs, rotation k of the rank list in run k (0: one per rank)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--seed", seed, "shuffle the rank list before rotating it (0: ranks in order)");
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

  tessera::Domain<2> dom(world, dist_of(0));
  // `input` is set once and only ever moved (preserving redistributions), standing for costly
  // initialisation; every run starts its work arrays from it.
  tessera::DistArray<double, 2> input(dom);
  tessera::DistArray<double, 2> work(dom, tessera::ghosts<2>(1).faces_only());
  tessera::DistArray<double, 2> next(dom, tessera::ghosts<2>(1).faces_only());
  input.for_each_owned([](const Point<2>& p, double& x) { x = initial(p[0], p[1]); });

  std::vector<double> compute(static_cast<std::size_t>(runs * size)), wall(compute.size());
  std::vector<int> block_of(compute.size());  // logical grid position of rank r in run k
  std::vector<std::vector<double>> results;
  for (int k = 0; k < runs; ++k) {
    // G <== procs: every array over the domain follows the new grid, values kept.
    if (k > 0) dom.redistribute(dist_of(k), tessera::Redistribution::preserve);
    tessera::copy(input, work);  // same distribution: a local copy, ghosts left for update_ghosts
    tessera::check_mpi(MPI_Barrier(dom.comm().raw()), "MPI_Barrier");  // start every rank's clock together
    const KernelTimes t = run_kernel(work, next, sweeps);
    const std::size_t row = static_cast<std::size_t>(k * size);
    tessera::check_mpi(MPI_Allgather(&t.compute, 1, MPI_DOUBLE, compute.data() + row, 1, MPI_DOUBLE, dom.comm().raw()),
                       "MPI_Allgather");
    tessera::check_mpi(MPI_Allgather(&t.wall, 1, MPI_DOUBLE, wall.data() + row, 1, MPI_DOUBLE, dom.comm().raw()),
                       "MPI_Allgather");
    const tessera::ProcGrid<2>& grid = dom.distribution().grid();
    for (int r = 0; r < size; ++r) block_of[row + static_cast<std::size_t>(r)] = grid.logical_of(r).value_or(-1);
    results.push_back(work.gather_to(0));
  }

  int failed = 0;
  if (rank == 0) {
    // The same kernel serially, from the same initial values.
    std::vector<double> a(static_cast<std::size_t>((n + 2) * (n + 2)), 0.0), b(a.size(), 0.0);
    const View av = plain_view(a.data(), n, n);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) av({i + 1, j + 1}) = initial(i, j);
    for (int s = 0; s < sweeps; ++s) {
      std::vector<double>& in = s % 2 == 0 ? a : b;
      std::vector<double>& out = s % 2 == 0 ? b : a;
      sweep(plain_view(static_cast<const double*>(in.data()), n, n), plain_view(out.data(), n, n));
    }
    int identical = 0;
    for (const auto& got : results) {
      index_t mismatches = 0;
      for (index_t i = 0; i < n; ++i)
        for (index_t j = 0; j < n; ++j) mismatches += got[static_cast<std::size_t>(i * n + j)] != av({i + 1, j + 1});
      identical += mismatches == 0;
    }

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
      const double t = total[static_cast<std::size_t>(r)];
      std::printf("%4d  %.6f     %.3f          ", r, t, t > 0.0 ? fastest / t : 1.0);
      for (int k = 0; k < std::min(runs, 8); ++k) {
        const std::size_t e = static_cast<std::size_t>(k * size + r);
        std::printf(" %d:%d %.2e", k, block_of[e], compute[e]);
      }
      std::printf("%s\n", runs > 8 ? " ..." : "");
    }
    if (identical == runs) {
      std::printf("homogeneity test: results identical under %d grid permutations (and to the serial run)\n", runs);
    } else {
      std::printf("MISMATCH: only %d of %d permutations match the serial run bit for bit\n", identical, runs);
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
