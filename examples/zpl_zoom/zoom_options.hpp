#pragma once
// The zoom's command-line options, shared by the tessera example (main.cpp) and its straight-MPI
// anchor (experiments/zpl/zoom_mpi.cpp), so that both accept the same problem the same way.
#include <CLI/CLI.hpp>

#include <string>

#include "tessera/geometry.hpp"

namespace zpl_zoom {

struct ZoomOptions {
  tessera::index_t n = 96, m = 16, r = 4;
  int coarse_sweeps = 200, fine_sweeps = 400, repeat = 1;
  std::string json;
};

inline void add_zoom_options(CLI::App& app, ZoomOptions& o) {
  using tessera::index_t;
  app.add_option("--n", o.n, "coarse cells per dimension")->check(CLI::Range(index_t{4}, index_t{1} << 13));
  app.add_option("--zoom", o.m, "coarse cells per dimension of the region of interest")
      ->check(CLI::Range(index_t{3}, index_t{1} << 13));
  app.add_option("--refine", o.r, "fine cells per coarse cell per dimension")->check(CLI::Range(index_t{1}, index_t{64}));
  app.add_option("--coarse-sweeps", o.coarse_sweeps, "Jacobi sweeps on the coarse grid (rounded up to even)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--fine-sweeps", o.fine_sweeps, "Jacobi sweeps on the fine grid (rounded up to even)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--repeat", o.repeat, "zooms, each checked")->check(CLI::Range(1, 10000));
  app.add_option("--json", o.json, "rank 0 writes the timings and the movements' bytes here (bench records)");
}

}  // namespace zpl_zoom
