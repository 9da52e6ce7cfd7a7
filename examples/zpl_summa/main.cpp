// SUMMA written the ZPL way (the flood of the ZPL seed, 004): C = A·B with A, B and C block
// distributed over one 2-D processor grid, and for every panel of the inner dimension
//   [1..m, *] Col := >>[1..m, lo..hi] A;     -- the column panel, replicated along grid rows
//   [*, 1..n] Row := >>[lo..hi, 1..n] B;     -- the row panel, replicated along grid columns
//   [R] C += Col * Row;                       -- local: every rank holds the panels it needs
// with `tessera::flood` into arrays whose second (first) axis is `tessera::flooded()`: no
// sub-communicators, no broadcasts written by hand (examples/summa does those with MPI_Bcast).
// Then the row sums of C are reduced into a flooded column (`[1..m, *] S := +<< C`). Both are
// checked against serial computations on rank 0. See README.md here.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "summa/summa_common.hpp"
#include "summa/summa_setup.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using Clock = std::chrono::steady_clock;

/// The flooded panels of one width w: Col (m x w, rows blocked as C's, replicated along the grid's
/// columns) and Row (w x n, columns blocked as C's, replicated along the grid's rows).
struct Panels {
  Panels(const tessera::Communicator& world, const tessera::ProcGrid<2>& grid, index_t m, index_t n, index_t w)
      : col_dom(world, tessera::Distribution<2>(Box<2>({0, 0}, {m, w}), grid, {tessera::block(), tessera::flooded()})),
        row_dom(world, tessera::Distribution<2>(Box<2>({0, 0}, {w, n}), grid, {tessera::flooded(), tessera::block()})),
        col(col_dom),
        row(row_dom) {}
  tessera::Domain<2> col_dom, row_dom;
  tessera::DistArray<double, 2> col, row;
};

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"SUMMA with flooded panels (ZPL) on a 2-D processor grid"};
  summa::Options options;
  if (const auto stop = summa::parse_options(app, options, "flood", argc, argv, world)) return *stop;
  const index_t m = options.m, n = options.n, k = options.k, panel = options.panel;
  const int rank = world.rank(), size = world.size();
  summa::Matrices matrices(world, options);
  const tessera::ProcGrid<2>& grid = matrices.grid;
  const tessera::Domain<2>& dom_c = matrices.dom_c;
  tessera::DistArray<double, 2>& a = matrices.a, & b = matrices.b, & c = matrices.c;

  // A panel may span several owners of A's columns or B's rows: the flood gathers its pieces.
  // Panels of at most two widths (the last may be narrower), each with its flooded arrays.
  std::map<index_t, std::unique_ptr<Panels>> by_width;
  const Point<2> ext_c = dom_c.distribution().local_extents(rank);
  const index_t rows = ext_c[0], cols = ext_c[1];

  world.barrier();  // everyone starts together: the time is the slowest rank's
  const auto start = Clock::now();
  double flooding = 0.0;  // time in the floods (the broadcasts of examples/summa)
  index_t panel_count = 0;
  for (index_t lo = 0; lo < k; lo += panel, ++panel_count) {
    const index_t hi = std::min(k, lo + panel), w = hi - lo;
    auto& p = by_width[w];
    if (!p) p = std::make_unique<Panels>(world, grid, m, n, w);
    const auto sent = Clock::now();
    tessera::flood(a, Box<2>({0, lo}, {m, hi}), p->col);  // Collective
    tessera::flood(b, Box<2>({lo, 0}, {hi, n}), p->row);  // Collective
    flooding += std::chrono::duration<double>(Clock::now() - sent).count();
    if (rows == 0 || cols == 0) continue;
    // No ghosts: each replica is one dense row-major block, rows x w and w x cols.
    const auto cv = c.local();
    summa::add_panel_product(&cv({cv.ghost_lo[0], cv.ghost_lo[1]}), cv.strides[0], rows, cols, w, p->col.data(),
                             p->row.data());
  }
  world.barrier();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // [1..m, *] S := +<< C: the row sums, on every rank of each grid row.
  tessera::Domain<2> dom_s(world, tessera::flooded_reduced_distribution(dom_c.distribution(), {1}));
  tessera::DistArray<double, 2> s(dom_s);
  tessera::reduce_into(c, {1}, s, 0.0, std::plus<>{});

  const std::vector<double> all_c = c.gather_to(0);
  const std::vector<double> sums = s.gather_to(0);
  int failed = 0;
  if (rank == 0) {
    const std::vector<double> want = summa::serial_product(m, n, k);
    const summa::Check check = summa::compare(all_c, want);
    std::vector<double> want_sums(static_cast<std::size_t>(m), 0.0);
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j)
        want_sums[static_cast<std::size_t>(i)] += want[static_cast<std::size_t>(i * n + j)];
    const summa::Check sums_check = summa::compare(sums, want_sums);
    std::printf(
        "%d ranks (%lldx%lld grid): C(%lldx%lld) = A(%lldx%lld) B(%lldx%lld), %lld flooded panels of width <= %lld: "
        "%.6f s, flooding %.6f s\n",
        size, static_cast<long long>(grid.shape()[0]), static_cast<long long>(grid.shape()[1]),
        static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(k),
        static_cast<long long>(k), static_cast<long long>(n), static_cast<long long>(panel_count),
        static_cast<long long>(panel), seconds, flooding);
    // Same terms in the same order as the serial product: normally identical bits (the tolerance
    // allows a compiler that contracts multiply-adds differently). The row sums add the same
    // entries in another grouping (per rank, then across ranks): equal up to rounding.
    if (check.relative <= 1e-10 && sums_check.relative <= 1e-12) {
      std::printf(
          "ZPL SUMMA with flooded panels matches the serial product (max relative difference %.3e, %lld entries not "
          "bit-equal; row sums reduced into a flooded column: %.3e)\n",
          check.relative, static_cast<long long>(check.differing), sums_check.relative);
    } else {
      std::printf("MISMATCH: product %.3e > 1e-10 or row sums %.3e > 1e-12\n", check.relative, sums_check.relative);
      failed = 1;
    }
  }
  world.bcast(std::span<int>(&failed, 1), 0);
  return failed;
}
