// ZPL's FFT corner turn (Deitz, Chamberlain, Snyder, "Abstractions for dynamic data distribution",
// section 4.2): a 2-D FFT of an n x m complex array done as 1-D FFTs along the rows while the rows
// are distributed (block x collapsed), then a change of the domain's distribution to columns
// (collapsed x block) -- the corner turn, one `Domain::redistribute` -- then 1-D FFTs along the
// columns. Checked against a serial 2-D FFTW transform on rank 0. See README.md here.
#include <fftw3.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "support/movement_count.hpp"
#include "zpl_fft/fft_kernels.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using zpl_fft::Complex;
using zpl_fft::input_value;
using zpl_fft::local_ffts;

/// The local view must be the owned block alone, row-major and dense: FFTW is handed raw pointers
/// and strides, so a ghost layer or padding would silently shift every sequence.
bool dense_without_ghosts(const tessera::LocalView<Complex, 2>& v) {
  return v.ghost_lo[0] == 0 && v.ghost_lo[1] == 0 && v.extents == v.count && v.strides[1] == 1 &&
         v.strides[0] == v.count[1];
}

/// One transform from a fresh domain: its seconds (row FFTs, corner turn, column FFTs), the
/// corner turn's alone, what the corner turn moved (this rank's part) and the gathered result.
struct Run {
  double seconds = 0, turn_seconds = 0;
  tessera::bench::Moved turn;
  bool layout_ok = true;
  std::vector<Complex> result;
};

Run transform(const tessera::Communicator& world, const tessera::Distribution<2>& rows,
              const tessera::Distribution<2>& columns, index_t n, index_t m) {
  tessera::Domain<2> dom(world, rows);
  tessera::DistArray<Complex, 2> x(dom);  // one array: the corner turn moves it in place
  x.for_each_owned([](const Point<2>& p, Complex& v) { v = input_value(p[0], p[1]); });
  Run run;
  world.barrier();
  const double start = MPI_Wtime();
  // Phase 1: whole rows here; sequence r starts at row r, elements contiguous.
  if (x.patch_count() > 0) {
    const auto v = x.local();
    run.layout_ok &= dense_without_ghosts(v) && v.count[1] == m;
    if (run.layout_ok) local_ffts(v.data, m, v.count[0], 1, v.strides[0]);
  }
  // The corner turn: every array over the domain (here just x) moves to whole columns, values kept.
  const tessera::bench::MovementCount count;
  const double turn_start = MPI_Wtime();
  dom.redistribute(columns, tessera::Redistribution::preserve);
  run.turn_seconds = MPI_Wtime() - turn_start;
  run.turn = count.mine();
  // Phase 2: whole columns here, stored row-major as an n x (owned columns) block: sequence c
  // starts at column c, its elements one local row apart.
  if (x.patch_count() > 0) {
    const auto v = x.local();
    run.layout_ok &= dense_without_ghosts(v) && v.count[0] == n;
    if (run.layout_ok) local_ffts(v.data, n, v.count[1], v.strides[0], 1);
  }
  run.seconds = MPI_Wtime() - start;
  run.result = x.gather_to(0);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"2-D FFT by ZPL's corner turn: row FFTs, redistribute rows -> columns, column FFTs"};
  index_t n = 37, m = 24;
  int repeat = 1;
  std::string json;
  app.add_option("--n", n, "rows")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--m", m, "columns")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--repeat", repeat, "transforms, each from a fresh domain and each checked")->check(CLI::Range(1, 10000));
  app.add_option("--json", json, "rank 0 writes the timings and the corner turn's bytes here (bench records)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  const int rank = world.rank(), size = world.size();
  const Box<2> box({0, 0}, {n, m});
  // ZPL's D = [blk, null] over a p x 1 grid and DT = [null, blk] over 1 x p: the two distributions
  // of one domain, each leaving the dimension being transformed whole on every rank. They split
  // different extents (n rows, m columns), so each phase is balanced on its own.
  const tessera::Distribution<2> rows(box, tessera::ProcGrid<2>::with_shape(size, {size, 1}),
                                      {tessera::block(), tessera::collapsed()});
  const tessera::Distribution<2> columns(box, tessera::ProcGrid<2>::with_shape(size, {1, size}),
                                         {tessera::collapsed(), tessera::block()});
  const std::vector<Complex> ref = rank == 0 ? zpl_fft::serial_fft(n, m) : std::vector<Complex>{};
  const double tolerance = 1e-12 * static_cast<double>(n * m);

  std::vector<double> seconds, turn_seconds;
  double worst = 0.0;
  int failed = 0;
  tessera::bench::Moved turn;
  for (int r = 0; r < repeat && !failed; ++r) {
    Run run = transform(world, rows, columns, n, m);
    int layout_ok = run.layout_ok ? 1 : 0;
    tessera::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &layout_ok, 1, MPI_INT, MPI_MIN, world.raw()), "MPI_Allreduce");
    if (rank == 0) {
      worst = std::max(worst, zpl_fft::relative_error(run.result, ref));
      failed = !layout_ok || worst > tolerance;
    }
    tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
    if (!layout_ok && rank == 0) std::printf("MISMATCH: a local view is not a dense block without ghosts\n");
    seconds.push_back(run.seconds);
    turn_seconds.push_back(run.turn_seconds);
    turn = tessera::bench::sum_over_ranks(run.turn, world.raw());  // every run moves the same
  }
  const tessera::bench::Summary t = tessera::bench::slowest_rank_summary(seconds, world.raw());
  const tessera::bench::Summary turn_t = tessera::bench::slowest_rank_summary(turn_seconds, world.raw());
  if (rank == 0) {
    std::printf("%d ranks, %lld x %lld complex FFT: rows %dx1 block x collapsed, corner turn to columns 1x%d "
                "collapsed x block, %.3f s (median of %d; corner turn %.3f s); max |error| / max |X| = %.3e "
                "(tolerance %.1e)\n",
                size, static_cast<long long>(n), static_cast<long long>(m), size, size, t.median, repeat,
                turn_t.median, worst, tolerance);
    const std::string domain = "domain=" + std::to_string(n) + "x" + std::to_string(m);
    tessera::bench::print_movement(true, "corner-turn", turn,
                                   "'" + domain + " grid=" + std::to_string(size) + "x1 dist=block,collapsed' '" + domain +
                                       " grid=1x" + std::to_string(size) + " dist=collapsed,block' --ranks " +
                                       std::to_string(size) + " --element-size " + std::to_string(sizeof(Complex)));
    if (!failed) {
      if (!json.empty()) {
        const std::string name = "n" + std::to_string(n) + "-m" + std::to_string(m);
        std::vector<tessera::bench::Record> records{
            tessera::bench::Record::timing("zpl_fft", name, size, t),
            tessera::bench::timing_record("zpl_fft", name, size, "movement_s", turn_t)};
        tessera::bench::add_movement_records(records, "zpl_fft", name, size, "corner_turn", turn);
        tessera::bench::write_json(json, records, "zpl_fft");
      }
      std::printf("corner-turn FFT matches the serial 2-D FFT\n");
    } else {
      std::printf("MISMATCH: corner-turn FFT differs from the serial 2-D FFT\n");
    }
  }
  fftw_cleanup();
  return failed;
}
