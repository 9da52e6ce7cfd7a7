// Red-black SOR for -Δu = f on the unit square with rows distributed over a P x 1 grid (D3-ARC
// Fig. 2: block() x collapsed(), one ghost row above and below), the convergence test done by a
// DistArray reduction every k iterations, checked bit for bit against the same SOR run serially on
// rank 0. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using View = tessera::LocalView<double, 2>;
using ConstView = tessera::LocalView<const double, 2>;

/// h² f at interior point (i, j), with f chosen so that u = sin(πx) sin(πy) solves the problem.
double scaled_source(index_t i, index_t j, index_t n) {
  const double h = 1.0 / static_cast<double>(n + 1);
  const double x = static_cast<double>(i + 1) * h, y = static_cast<double>(j + 1) * h;
  return h * h * 2.0 * std::numbers::pi * std::numbers::pi * std::sin(std::numbers::pi * x) *
         std::sin(std::numbers::pi * y);
}

/// One half-sweep: every owned point of colour `color` ((i + j) % 2 == color in global indices)
/// gets its SOR update. `u` must hold one ghost layer on every side (ghosts beyond the domain are
/// the zero boundary), `f` holds h² f over the owned points, `first` is the global index of the
/// first owned point. Points of one colour read only the other colour, so the order in which they
/// are visited does not change a bit: the distributed and the serial runs agree exactly. When
/// `change` is given, |new - old| is stored there (same owned shape as `f`).
void sor_half_sweep(const View& u, const ConstView& f, const View* change, const Point<2>& first, int color,
                    double omega) {
  const index_t su = u.strides[0], sf = f.strides[0];
  for (index_t a = 0; a < u.count[0]; ++a) {
    const index_t i = first[0] + a;
    // First owned column of this row with the right colour.
    const index_t b0 = ((color - i - first[1]) % 2 + 2) % 2;
    double* row = u.data + (a + u.ghost_lo[0]) * su + u.ghost_lo[1];
    const double* frow = f.data + (a + f.ghost_lo[0]) * sf + f.ghost_lo[1];
    for (index_t b = b0; b < u.count[1]; b += 2) {
      double& x = row[b];
      const double gauss_seidel = 0.25 * (row[b - su] + row[b + su] + row[b - 1] + row[b + 1] + frow[b]);
      const double updated = x + omega * (gauss_seidel - x);
      if (change) (*change)({a + change->ghost_lo[0], b + change->ghost_lo[1]}) = std::abs(updated - x);
      x = updated;
    }
  }
}

/// A row-major view over a plain vector: `count` owned points with `ghost` layers on every side.
template <class T>
tessera::LocalView<T, 2> plain_view(T* data, index_t rows, index_t cols, index_t ghost) {
  return {data, {rows + 2 * ghost, cols + 2 * ghost}, {cols + 2 * ghost, 1}, {ghost, ghost}, {rows, cols}};
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Red-black SOR Poisson solver over rows distributed block x collapsed (D3-ARC Fig. 2)"};
  index_t n = 64;
  double omega = 1.9, tolerance = 1e-10;
  int max_iterations = 5000, check_every = 10;
  app.add_option("--n", n, "interior grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--omega", omega, "over-relaxation factor")->check(CLI::Range(0.0, 2.0));
  app.add_option("--tolerance", tolerance, "stop when the max |change| of an iteration is below this");
  app.add_option("--max-iterations", max_iterations, "iteration limit")->check(CLI::Range(1, 10000000));
  app.add_option("--check-every", check_every, "iterations between convergence checks")->check(CLI::Range(1, 1000000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  const int rank = world.rank(), size = world.size();
  // D3-ARC Fig. 2: a P x 1 grid, rows split into blocks, columns not distributed.
  const Box<2> box({0, 0}, {n, n});
  const tessera::Distribution<2> dist(box, tessera::ProcGrid<2>::with_shape(size, {size, 1}),
                                      {tessera::block(), tessera::collapsed()});
  tessera::Domain<2> dom(world, dist);
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));  // the solution, zero start, zero boundary
  tessera::DistArray<double, 2> rhs(dom);                       // h² f
  tessera::DistArray<double, 2> change(dom);                    // |change| of the last checked iteration
  rhs.for_each_owned([&](const Point<2>& p, double& x) { x = scaled_source(p[0], p[1], n); });
  // Ranks beyond the n-th own nothing and store no patch; they still join every collective call.
  const bool stores = u.patch_count() > 0;

  const auto start = std::chrono::steady_clock::now();
  int iterations = 0;
  double max_change = std::numeric_limits<double>::infinity();
  while (iterations < max_iterations && !(max_change < tolerance)) {
    const bool check = (iterations + 1) % check_every == 0 || iterations + 1 == max_iterations;
    for (int color = 0; color < 2; ++color) {
      // Each colour reads the other one's latest values, in the ghosts too: refresh them first.
      u.update_ghosts();
      if (stores) {
        View cv = change.local();
        sor_half_sweep(u.local(), std::as_const(rhs).local(), check ? &cv : nullptr, u.owned_box().lo, color, omega);
      }
    }
    ++iterations;
    // The convergence test is a DistArray reduction: the same bits on every rank, so every rank
    // leaves the loop at the same iteration.
    if (check) max_change = change.max();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<double> gathered = u.gather_to(0);
  int failed = 0;
  if (rank == 0) {
    // The same iterations, checks and stopping rule, serially over the whole grid.
    std::vector<double> ref(static_cast<std::size_t>((n + 2) * (n + 2)), 0.0), f(static_cast<std::size_t>(n * n));
    std::vector<double> ref_change(f.size());
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) f[static_cast<std::size_t>(i * n + j)] = scaled_source(i, j, n);
    const View rv = plain_view(ref.data(), n, n, 1), cv = plain_view(ref_change.data(), n, n, 0);
    const ConstView fv = plain_view(static_cast<const double*>(f.data()), n, n, 0);
    int ref_iterations = 0;
    double ref_max_change = std::numeric_limits<double>::infinity();
    while (ref_iterations < max_iterations && !(ref_max_change < tolerance)) {
      const bool check = (ref_iterations + 1) % check_every == 0 || ref_iterations + 1 == max_iterations;
      for (int color = 0; color < 2; ++color) sor_half_sweep(rv, fv, check ? &cv : nullptr, {0, 0}, color, omega);
      ++ref_iterations;
      if (check) {
        ref_max_change = 0.0;
        for (const double c : ref_change) ref_max_change = std::max(ref_max_change, c);
      }
    }
    index_t mismatches = 0;
    double error = 0.0;
    const double h = 1.0 / static_cast<double>(n + 1);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        const double x = gathered[static_cast<std::size_t>(i * n + j)];
        mismatches += x != rv({i + 1, j + 1});
        error = std::max(error, std::abs(x - std::sin(std::numbers::pi * static_cast<double>(i + 1) * h) *
                                                 std::sin(std::numbers::pi * static_cast<double>(j + 1) * h)));
      }
    std::printf(
        "%d ranks (%dx1 grid, block x collapsed), n = %lld, omega = %.3f: %d iterations, max change %.3e"
        " (%s), error vs exact %.3e, %.3f s\n",
        size, size, static_cast<long long>(n), omega, iterations, max_change,
        max_change < tolerance ? "converged" : "not converged", error, seconds);
    if (mismatches == 0 && ref_iterations == iterations && ref_max_change == max_change) {
      std::printf("distributed red-black SOR matches the serial reference bit for bit\n");
    } else {
      std::printf("MISMATCH: %lld points differ; serial run stopped after %d iterations (max change %.3e)\n",
                  static_cast<long long>(mismatches), ref_iterations, ref_max_change);
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
