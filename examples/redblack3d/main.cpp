// KeLP's Redblack3D: red-black Gauss-Seidel for -Δu = f on a 3-D grid (7-point stencil), block
// distributed over an automatic 3-D processor grid with faces-only ghosts. Each colour's ghost
// update is overlapped with that colour's sweep over the interior of the block. Checked bit for
// bit against the same sweeps run serially on rank 0. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <utility>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using View = tessera::LocalView<double, 3>;
using ConstView = tessera::LocalView<const double, 3>;

/// h² f at interior point p, with f chosen so that u = sin(πx) sin(πy) sin(πz) is the solution.
double scaled_source(const Point<3>& p, index_t n) {
  const double h = 1.0 / static_cast<double>(n + 1);
  double s = 3.0 * std::numbers::pi * std::numbers::pi * h * h;
  for (std::size_t d = 0; d < 3; ++d) s *= std::sin(std::numbers::pi * static_cast<double>(p[d] + 1) * h);
  return s;
}

/// Gauss-Seidel update of every point of colour `color` ((i + j + k) % 2 == color) in `region`, a
/// global box inside the owned block whose first point is `first`. `u` holds one ghost layer on
/// every face, `f` is h² f over the owned block. A point of one colour reads only its six
/// neighbours, all of the other colour, so neither the order of the points nor splitting the
/// block into pieces changes a bit.
void gauss_seidel(const View& u, const ConstView& f, const Point<3>& first, const Box<3>& region, int color) {
  if (region.empty()) return;
  const index_t s0 = u.strides[0], s1 = u.strides[1], s2 = u.strides[2];
  for (index_t i = region.lo[0]; i < region.hi[0]; ++i)
    for (index_t j = region.lo[1]; j < region.hi[1]; ++j) {
      const index_t k0 = region.lo[2] + ((color - i - j - region.lo[2]) % 2 + 2) % 2;
      for (index_t k = k0; k < region.hi[2]; k += 2) {
        const Point<3> l{i - first[0], j - first[1], k - first[2]};
        double* x = &u({l[0] + u.ghost_lo[0], l[1] + u.ghost_lo[1], l[2] + u.ghost_lo[2]});
        const double fx = f({l[0] + f.ghost_lo[0], l[1] + f.ghost_lo[1], l[2] + f.ghost_lo[2]});
        *x = (x[-s0] + x[s0] + x[-s1] + x[s1] + x[-s2] + x[s2] + fx) / 6.0;
      }
    }
}

/// A row-major view over a plain vector holding an n³ block with `ghost` layers on every side.
template <class T>
tessera::LocalView<T, 3> plain_view(T* data, index_t n, index_t ghost) {
  const index_t e = n + 2 * ghost;
  return {data, {e, e, e}, {e * e, e, 1}, {ghost, ghost, ghost}, {n, n, n}};
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"KeLP Redblack3D: red-black Gauss-Seidel on a 7-point stencil, block distributed in 3-D"};
  index_t n = 32;
  int iterations = 100;
  app.add_option("--n", n, "interior grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 11));
  app.add_option("--iterations", iterations, "red-black iterations")->check(CLI::Range(1, 1000000));
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
  rhs.for_each_owned([&](const Point<3>& p, double& x) { x = scaled_source(p, n); });
  const bool stores = u.patch_count() > 0;  // a rank may own nothing when n is small
  const Box<3> owned = stores ? u.owned_box() : Box<3>{};
  // Owned points no other rank holds as a ghost: with faces-only ghosts of width 1, others mirror
  // only the outermost layer of the block. Writing these while the exchange is in flight is allowed
  // (begin_update_ghosts: "owned elements other ranks' ghosts mirror must not be written"), and
  // their sweep reads only owned points, never a ghost that is still arriving. Blocks thinner than
  // 3 along an axis have no interior: shrink() then gives an empty box and all work is in the rim.
  const Box<3> interior = tessera::shrink(owned, 1);
  const auto rim = tessera::difference(owned, interior);

  const auto start = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it)
    for (int color = 0; color < 2; ++color) {
      // Colour c reads colour 1 - c, whose neighbours' values changed in the previous half-step:
      // every half-step starts a ghost update. The interior of colour c is swept while it runs; the
      // rim, which reads ghosts, only after it has completed.
      u.begin_update_ghosts();
      if (stores) gauss_seidel(u.local(), std::as_const(rhs).local(), owned.lo, interior, color);
      u.end_update_ghosts();
      if (stores)
        for (const auto& piece : rim) gauss_seidel(u.local(), std::as_const(rhs).local(), owned.lo, piece, color);
    }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

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
    std::vector<double> ref(static_cast<std::size_t>((n + 2) * (n + 2) * (n + 2)), 0.0);
    std::vector<double> f(static_cast<std::size_t>(n * n * n));
    const View rv = plain_view(ref.data(), n, 1);
    const ConstView fv = plain_view(static_cast<const double*>(f.data()), n, 0);
    tessera::for_each_point(box, [&](const Point<3>& p) {
      f[static_cast<std::size_t>(tessera::offset_row_major(box, p))] = scaled_source(p, n);
    });
    for (int it = 0; it < iterations; ++it)
      for (int color = 0; color < 2; ++color) gauss_seidel(rv, fv, {0, 0, 0}, box, color);
    index_t mismatches = 0;
    tessera::for_each_point(box, [&](const Point<3>& p) {
      mismatches += gathered[static_cast<std::size_t>(tessera::offset_row_major(box, p))] != rv(p + Point<3>{1, 1, 1});
    });
    const auto& shape = grid.shape();
    std::printf("%d ranks (%lldx%lldx%lld grid), n = %lld, %d iterations: %.3f s, max |h^2 residual| %.3e\n", size,
                static_cast<long long>(shape[0]), static_cast<long long>(shape[1]), static_cast<long long>(shape[2]),
                static_cast<long long>(n), iterations, seconds, max_residual);
    if (mismatches == 0) {
      std::printf("distributed red-black Gauss-Seidel matches the serial reference bit for bit\n");
    } else {
      std::printf("MISMATCH: %lld points differ from the serial reference\n", static_cast<long long>(mismatches));
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
