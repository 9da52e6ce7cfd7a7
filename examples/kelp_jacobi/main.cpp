// Jacobi iteration for -Δu = f on the unit square, with the halo exchange planned by hand from the
// region calculus (KeLP Fig. 4/5) and executed by tessera's Mover, checked bit for bit against a
// serial run. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/geometry.hpp"
#include "tessera/plan/compile_schedule.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

/// Grid data over a box (owned block plus ghosts), row-major, addressed by global index.
struct Patch {
  Box<2> box;
  std::vector<double> data;
  explicit Patch(const Box<2>& b) : box(b), data(static_cast<std::size_t>(tessera::volume(b)), 0.0) {}
  double& at(const Point<2>& p) { return data[static_cast<std::size_t>(tessera::offset_row_major(box, p))]; }
};

double source_term(index_t i, index_t j, index_t n) {
  const double h = 1.0 / static_cast<double>(n + 1), x = static_cast<double>(i + 1) * h,
               y = static_cast<double>(j + 1) * h;
  return 2.0 * std::numbers::pi * std::numbers::pi * std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y);
}

/// One Jacobi sweep over `owned`, reading `u` (with ghosts) and writing `next`. Returns max |change|.
double sweep(Patch& u, Patch& next, const Box<2>& owned, index_t n) {
  const double h2 = 1.0 / static_cast<double>((n + 1) * (n + 1));
  double change = 0.0;
  tessera::for_each_point(owned, [&](const Point<2>& p) {
    const double v = 0.25 * (u.at({p[0] - 1, p[1]}) + u.at({p[0] + 1, p[1]}) + u.at({p[0], p[1] - 1}) +
                             u.at({p[0], p[1] + 1}) + h2 * source_term(p[0], p[1], n));
    change = std::max(change, std::abs(v - u.at(p)));
    next.at(p) = v;
  });
  return change;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Jacobi Poisson solver with a KeLP-style halo plan built from the region calculus"};
  index_t n = 64;
  int iterations = 8000;
  app.add_option("--n", n, "interior grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 15));
  app.add_option("--iterations", iterations, "Jacobi iterations")->check(CLI::Range(1, 1000000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  const int rank = world.rank(), size = world.size();
  int dims[2] = {0, 0};
  tessera::check_mpi(MPI_Dims_create(size, 2, dims), "MPI_Dims_create");
  const Box<2> domain({0, 0}, {n, n});
  const auto grid = tessera::ProcGrid<2>::with_shape(size, {dims[0], dims[1]});
  const tessera::Distribution<2> dist(domain, grid, {tessera::block(), tessera::block()});
  const auto ghosts = tessera::ghosts<2>(1);
  const Box<2> owned = dist.owned_box(rank);

  // The motion plan, KeLP style (Fig. 4): every rank lists every copy, i <- j for the part of j's
  // block inside i's block grown by one ghost layer. Points outside the domain are the zero
  // boundary and never move. The plan is checked, compiled for this rank and run by a Mover.
  tessera::MotionPlan<2> plan;
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j)
      if (const auto r = intersect(grow(dist.owned_box(i), 1), dist.owned_box(j)); i != j && !r.empty())
        plan.copy(j, r, i, r);
  tessera::validate_plan(plan, dist, ghosts, dist, ghosts);
  const auto layout = tessera::StorageLayout<2>::make(dist, rank, ghosts);
  tessera::Mover halo(world,
                      std::make_shared<const tessera::Schedule>(tessera::compile_schedule(plan, rank, layout, layout)),
                      sizeof(double));

  // The patch of the layout is exactly owned grown by one, row-major: the Patch below.
  Patch u(grow(owned, 1)), next(grow(owned, 1));
  const auto start = std::chrono::steady_clock::now();
  double change = 0.0;
  for (int it = 0; it < iterations; ++it) {
    halo.run(u.data.data(), u.data.data());
    const double local_change = owned.empty() ? 0.0 : sweep(u, next, owned, n);
    std::swap(u.data, next.data);
    tessera::check_mpi(MPI_Allreduce(&local_change, &change, 1, MPI_DOUBLE, MPI_MAX, world.raw()), "MPI_Allreduce");
    if (rank == 0 && (it + 1) % std::max(1, iterations / 5) == 0)
      std::printf("iteration %6d  max change %.3e\n", it + 1, change);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Gather every block to rank 0 and compare with the same iterations run serially there.
  std::vector<double> mine;
  tessera::for_each_point(owned, [&](const Point<2>& p) { mine.push_back(u.at(p)); });
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  for (int j = 0; j < size; ++j) counts[static_cast<std::size_t>(j)] = static_cast<int>(volume(dist.owned_box(j)));
  for (int j = 1; j < size; ++j)
    displs[static_cast<std::size_t>(j)] =
        displs[static_cast<std::size_t>(j - 1)] + counts[static_cast<std::size_t>(j - 1)];
  std::vector<double> gathered(rank == 0 ? static_cast<std::size_t>(volume(domain)) : 0);
  tessera::check_mpi(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, gathered.data(), counts.data(),
                                 displs.data(), MPI_DOUBLE, 0, world.raw()),
                     "MPI_Gatherv");
  int failed = 0;
  if (rank == 0) {
    Patch ref(grow(domain, 1)), ref_next(grow(domain, 1));
    for (int it = 0; it < iterations; ++it) {
      sweep(ref, ref_next, domain, n);
      std::swap(ref.data, ref_next.data);
    }
    index_t mismatches = 0;
    double error = 0.0;
    const double h = 1.0 / static_cast<double>(n + 1);
    for (int j = 0; j < size; ++j) {
      std::size_t i = static_cast<std::size_t>(displs[static_cast<std::size_t>(j)]);
      tessera::for_each_point(dist.owned_box(j), [&](const Point<2>& p) {
        mismatches += gathered[i++] != ref.at(p);
        error =
            std::max(error, std::abs(ref.at(p) - std::sin(std::numbers::pi * static_cast<double>(p[0] + 1) * h) *
                                                     std::sin(std::numbers::pi * static_cast<double>(p[1] + 1) * h)));
      });
    }
    std::printf("%d ranks (%dx%d), n = %lld, %d iterations: %.3f s, max change %.3e, error vs exact %.3e\n", size,
                dims[0], dims[1], static_cast<long long>(n), iterations, seconds, change, error);
    if (mismatches == 0) {
      std::printf("distributed result matches the serial reference bit for bit\n");
    } else {
      std::printf("MISMATCH: %lld points differ from the serial reference\n", static_cast<long long>(mismatches));
      failed = 1;
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw());
  return failed;
}
