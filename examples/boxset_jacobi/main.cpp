// Jacobi iteration for -Δu = 1 on an irregular 2-D region — an L-shape with a square hole — held
// as a box set (KeLP's FloorPlan: the region chopped into boxes, dealt out by a policy), checked bit
// for bit against a serial run on a masked n x n grid. u = 0 outside the region: the ghost cells
// over the hole and outside the domain are never written by a ghost update, so they keep the 0
// the arrays start with. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

/// The region: the n x n square without its quarter [0,h) x [h,n) (an L) and without the square
/// hole [a,b)^2 in the quarter [0,h)^2, as five disjoint boxes.
std::vector<Box<2>> region(index_t n) {
  const index_t h = n / 2, a = n / 8, b = a + std::max<index_t>(1, n / 8);
  return {Box<2>({h, 0}, {n, n}),                          // the lower half
          Box<2>({0, 0}, {a, h}), Box<2>({b, 0}, {h, h}),  // the quarter [0,h)^2 above and below the hole
          Box<2>({a, 0}, {b, a}), Box<2>({a, b}, {b, h})}; // and beside it
}

bool in_region(const std::vector<Box<2>>& boxes, const Point<2>& p) {
  for (const auto& b : boxes)
    if (tessera::contains(b, p)) return true;
  return false;
}

/// f(p) = 1 scaled by h^2, the same expression on both sides so that the runs agree bit for bit.
double update(double north, double south, double west, double east, index_t n) {
  const double h2 = 1.0 / static_cast<double>((n + 1) * (n + 1));
  return 0.25 * (north + south + west + east + h2);
}

/// The serial reference: the n x n grid, cells outside the region held at 0.
std::vector<double> serial(const std::vector<Box<2>>& boxes, index_t n, int iterations) {
  const auto at = [n](index_t i, index_t j) { return static_cast<std::size_t>(i * n + j); };
  std::vector<double> u(static_cast<std::size_t>(n * n), 0.0), next = u;
  const auto read = [&](const std::vector<double>& v, index_t i, index_t j) {
    return i < 0 || j < 0 || i >= n || j >= n || !in_region(boxes, {i, j}) ? 0.0 : v[at(i, j)];
  };
  for (int it = 0; it < iterations; ++it) {
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j)
        if (in_region(boxes, {i, j}))
          next[at(i, j)] = update(read(u, i - 1, j), read(u, i + 1, j), read(u, i, j - 1), read(u, i, j + 1), n);
    std::swap(u, next);
  }
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  CLI::App app("Jacobi on an L-shaped region with a hole, held as a box set");
  index_t n = 48, chop = 8;
  int iterations = 100;
  std::string policy = "knapsack";
  app.add_option("--n", n, "grid points per side")->check(CLI::Range(8, 4096));
  app.add_option("--chop", chop, "largest box side after chopping")->check(CLI::Range(1, 4096));
  app.add_option("--iterations", iterations, "Jacobi sweeps (even)")->check(CLI::Range(0, 1000000));
  app.add_option("--policy", policy, "box assignment")->check(CLI::IsMember({"knapsack", "morton"}));
  CLI11_PARSE(app, argc, argv);
  iterations += iterations % 2;

  tessera::Communicator world(MPI_COMM_WORLD);
  const auto boxes = region(n);
  const Box<2> domain({0, 0}, {n, n});
  const auto set = tessera::make_box_set(domain, tessera::chop_boxes(boxes, Point<2>{chop, chop}), world.size(),
                                         policy == "morton" ? tessera::BoxAssignment::morton
                                                            : tessera::BoxAssignment::knapsack);
  tessera::Domain<2> dom(world, tessera::Distribution<2>::from_box_set(set));
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1).faces_only()), v(dom, tessera::ghosts<2>(1).faces_only());
  const auto sweep = [n](const auto& acc, const Point<2>& p) {
    return update(acc({p[0] - 1, p[1]}), acc({p[0] + 1, p[1]}), acc({p[0], p[1] - 1}), acc({p[0], p[1] + 1}), n);
  };
  for (int it = 0; it < iterations; it += 2) {
    u.update_ghosts();
    tessera::apply_stencil(u, v, sweep);
    v.update_ghosts();
    tessera::apply_stencil(v, u, sweep);
  }
  const std::vector<double> image = u.gather_to(0);
  int ok = 1;
  if (world.rank() == 0) {
    const auto reference = serial(boxes, n, iterations);
    for (index_t i = 0; i < n && ok; ++i)
      for (index_t j = 0; j < n && ok; ++j) {
        const auto k = static_cast<std::size_t>(i * n + j);
        if (in_region(boxes, {i, j}) && image[k] != reference[k]) {
          std::printf("mismatch at (%lld, %lld): %.17g vs %.17g\n", static_cast<long long>(i),
                      static_cast<long long>(j), image[k], reference[k]);
          ok = 0;
        }
      }
    std::printf("%zu boxes (%lld cells) over %d ranks by %s, max/mean load %.3f, %d sweeps\n", set.size(),
                static_cast<long long>(set.cells()), world.size(), policy.c_str(),
                tessera::max_over_mean_load<2>(set.boxes(), set.owners(), world.size()), iterations);
    if (ok) std::printf("box-set Jacobi matches the serial reference bit for bit\n");
  }
  return ok ? 0 : 1;
}
