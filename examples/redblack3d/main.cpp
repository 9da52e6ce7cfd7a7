// KeLP's Redblack3D: red-black Gauss-Seidel for -Δu = f on a 3-D grid (7-point stencil), block
// distributed over an automatic 3-D processor grid with faces-only ghosts. Each colour's ghost
// update is overlapped with that colour's sweep over the interior of the block (--no-overlap:
// completed first). Checked bit for bit against the same sweeps run serially on rank 0. See
// README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "redblack3d/solver.hpp"
#include "tessera/tessera.hpp"

namespace {

using redblack3d::gauss_seidel;
using tessera::Box;
using tessera::index_t;
using tessera::Point;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"KeLP Redblack3D: red-black Gauss-Seidel on a 7-point stencil, block distributed in 3-D"};
  index_t n = 32;
  int iterations = 100;
  bool no_overlap = false;
  app.add_option("--n", n, "interior grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 11));
  app.add_option("--iterations", iterations, "red-black iterations")->check(CLI::Range(1, 1000000));
  app.add_flag("--no-overlap", no_overlap, "complete each ghost update before sweeping (KeLP Fig. 7's baseline)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  const int rank = world.rank(), size = world.size();
  const Box<3> box({0, 0, 0}, {n, n, n});
  const auto grid = tessera::ProcGrid<3>::automatic(world, {n, n, n});
  tessera::Domain<3> dom(world,
                         tessera::Distribution<3>(box, grid, {tessera::block(), tessera::block(), tessera::block()}));
  // The 7-point stencil reads no edge or corner neighbour: faces-only ghosts are enough.
  tessera::DistArray<double, 3> u(dom, tessera::ghosts<3>(1).faces_only());
  tessera::DistArray<double, 3> rhs(dom);
  rhs.for_each_owned([&](const Point<3>& p, double& x) { x = redblack3d::scaled_source(p, n); });
  const bool stores = u.patch_count() > 0;  // a rank may own nothing when n is small
  const Box<3> owned = stores ? u.owned_box() : Box<3>{};
  // Owned points no other rank holds as a ghost: with faces-only ghosts of width 1, others mirror
  // only the outermost layer of the block. Writing these while the exchange is in flight is allowed
  // (begin_update_ghosts: "owned elements other ranks' ghosts mirror must not be written"), and
  // their sweep reads only owned points, never a ghost that is still arriving. Blocks thinner than
  // 3 along an axis have no interior: shrink() then gives an empty box and all work is in the rim.
  const Box<3> interior = tessera::shrink(owned, 1);
  const auto rim = tessera::difference(owned, interior);

  world.barrier();  // everyone starts together: the time is the slowest rank's
  const auto start = Clock::now();
  double waiting = 0.0;  // time spent completing ghost updates (KeLP's "communicate")
  for (int it = 0; it < iterations; ++it)
    for (int color = 0; color < 2; ++color) {
      // Colour c reads colour 1 - c, whose neighbours' values changed in the previous half-step:
      // every half-step starts a ghost update. The interior of colour c is swept while it runs
      // (unless --no-overlap); the rim, which reads ghosts, only after it has completed.
      u.begin_update_ghosts();
      if (stores && !no_overlap) gauss_seidel(u.local(), std::as_const(rhs).local(), owned.lo, interior, color);
      const auto wait = Clock::now();
      u.end_update_ghosts();
      waiting += since(wait);
      if (stores && no_overlap) gauss_seidel(u.local(), std::as_const(rhs).local(), owned.lo, interior, color);
      if (stores)
        for (const auto& piece : rim) gauss_seidel(u.local(), std::as_const(rhs).local(), owned.lo, piece, color);
    }
  world.barrier();
  const double seconds = since(start);

  // The residual h²(f + Δu) with apply_stencil (ZPL's shift idiom) and a max reduction.
  u.update_ghosts();
  tessera::DistArray<double, 3> residual(dom);
  tessera::apply_stencil(u, residual, [](const auto& acc, const Point<3>& p) {
    double s = -6.0 * acc(p);
    for (std::size_t d = 0; d < 3; ++d) {
      Point<3> e{};
      e[d] = 1;
      s += acc(p + e) + acc(p - e);
    }
    return s;
  });
  residual.for_each_owned([&](const Point<3>& p, double& r) { r = std::abs(r + rhs.at(p)); });
  const double max_residual = residual.max();

  const std::vector<double> gathered = u.gather_to(0);
  int failed = 0;
  if (rank == 0) {
    const auto& shape = grid.shape();
    std::printf("%d ranks (%lldx%lldx%lld grid), n = %lld, %d iterations%s: %.6f s, waiting for ghosts %.6f s\n",
                size, static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
                static_cast<long long>(shape[2]), static_cast<long long>(n), iterations,
                no_overlap ? " (no overlap)" : "", seconds, waiting);
    failed = redblack3d::report(redblack3d::verify(gathered, n, iterations), max_residual);
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
