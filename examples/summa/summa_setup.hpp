#pragma once
// What the two tessera SUMMA programs (examples/summa: panels by MPI_Bcast; examples/zpl_summa:
// panels flooded) set up alike: their options, the one grid shaped after C, and A, B, C block-
// distributed over it with A and B filled. Only how the panels travel differs between them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "summa/summa_common.hpp"
#include "tessera/tessera.hpp"

namespace summa {

/// The command line both programs take.
struct Options {
  index_t m = 200, n = 180, k = 150, panel = 16;
  int grid_rows = 0;
};

/// Parses the options (`panel_what`: what one panel step is, for --help). Returns the exit code
/// when the program must stop (help, a bad option, --grid-rows not dividing the rank count),
/// nothing when it should go on.
inline std::optional<int> parse_options(CLI::App& app, Options& o, const char* panel_what, int argc, char** argv,
                                        const tessera::Communicator& world) {
  app.add_option("--m", o.m, "rows of A and C")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--n", o.n, "columns of B and C")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--k", o.k, "columns of A, rows of B")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--panel", o.panel, std::string("panel width (inner-dimension columns per ") + panel_what + ")")
      ->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--grid-rows", o.grid_rows, "processor grid rows (must divide the rank count; 0: automatic)")
      ->check(CLI::Range(0, 1 << 20));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  if (o.grid_rows > 0 && world.size() % o.grid_rows != 0) {
    if (world.rank() == 0) std::fprintf(stderr, "--grid-rows %d does not divide %d ranks\n", o.grid_rows, world.size());
    return 2;
  }
  return std::nullopt;
}

/// A, B and C over one grid shaped after C (the √P-ish grid), so that A's row blocks and C's row
/// blocks coincide, and likewise B's and C's column blocks; A and B hold a_value and b_value.
struct Matrices {
  Matrices(const tessera::Communicator& world, const Options& o)
      : grid(o.grid_rows > 0 ? tessera::ProcGrid<2>::with_shape(world.size(), {o.grid_rows, world.size() / o.grid_rows})
                             : tessera::ProcGrid<2>::automatic(world, {o.m, o.n})),
        dom_a(world, block2(o.m, o.k)),
        dom_b(world, block2(o.k, o.n)),
        dom_c(world, block2(o.m, o.n)),
        a(dom_a),
        b(dom_b),
        c(dom_c) {
    a.for_each_owned([](const tessera::Point<2>& p, double& x) { x = a_value(p[0], p[1]); });
    b.for_each_owned([](const tessera::Point<2>& p, double& x) { x = b_value(p[0], p[1]); });
  }
  [[nodiscard]] tessera::Distribution<2> block2(index_t rows, index_t cols) const {
    return tessera::Distribution<2>(tessera::Box<2>({0, 0}, {rows, cols}), grid, {tessera::block(), tessera::block()});
  }

  tessera::ProcGrid<2> grid;
  tessera::Domain<2> dom_a, dom_b, dom_c;
  tessera::DistArray<double, 2> a, b, c;
};

}  // namespace summa
