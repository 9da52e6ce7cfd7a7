// ZPL's FFT corner turn (Deitz, Chamberlain, Snyder, "Abstractions for dynamic data distribution",
// section 4.2): a 2-D FFT of an n x m complex array done as 1-D FFTs along the rows while the rows
// are distributed (block x collapsed), then a change of the domain's distribution to columns
// (collapsed x block) -- the corner turn, one `Domain::redistribute` -- then 1-D FFTs along the
// columns. Checked against a serial 2-D FFTW transform on rank 0. See README.md here.
#include <fftw3.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using Complex = std::complex<double>;

/// The input value at (i, j): deterministic, so rank 0 can rebuild the whole array for its check,
/// and irregular enough that no FFT output is accidentally zero.
Complex input_value(index_t i, index_t j) {
  const double x = static_cast<double>(i), y = static_cast<double>(j);
  return {std::sin(0.37 * x + 1.3 * y) + 0.01 * x, std::cos(0.71 * x * y + 0.2) - 0.02 * y};
}

/// FFTW takes its complex numbers as double[2]; std::complex<double> is specified to have that
/// layout ([complex.numbers]), so the cast is well defined.
fftw_complex* as_fftw(Complex* p) { return reinterpret_cast<fftw_complex*>(p); }

/// In-place forward 1-D FFTs of length `length` over `howmany` sequences of the local storage at
/// `data`: element k of sequence s is at data[s * dist + k * stride]. One plan for all of them
/// (FFTW_ESTIMATE does not touch the data while planning, so planning on the live array is safe).
void local_ffts(Complex* data, index_t length, index_t howmany, index_t stride, index_t dist) {
  if (length == 0 || howmany == 0) return;  // this rank owns nothing in this phase
  const int n = static_cast<int>(length);
  fftw_plan plan = fftw_plan_many_dft(1, &n, static_cast<int>(howmany), as_fftw(data), nullptr,
                                      static_cast<int>(stride), static_cast<int>(dist), as_fftw(data), nullptr,
                                      static_cast<int>(stride), static_cast<int>(dist), FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
}

/// The local view must be the owned block alone, row-major and dense: FFTW is handed raw pointers
/// and strides, so a ghost layer or padding would silently shift every sequence.
bool dense_without_ghosts(const tessera::LocalView<Complex, 2>& v) {
  return v.ghost_lo[0] == 0 && v.ghost_lo[1] == 0 && v.extents == v.count && v.strides[1] == 1 &&
         v.strides[0] == v.count[1];
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"2-D FFT by ZPL's corner turn: row FFTs, redistribute rows -> columns, column FFTs"};
  index_t n = 37, m = 24;
  app.add_option("--n", n, "rows")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--m", m, "columns")->check(CLI::Range(index_t{1}, index_t{1} << 14));
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
  tessera::Domain<2> dom(world, rows);
  tessera::DistArray<Complex, 2> x(dom);  // one array: the corner turn moves it in place
  x.for_each_owned([](const Point<2>& p, Complex& v) { v = input_value(p[0], p[1]); });

  int layout_ok = 1;
  const auto start = std::chrono::steady_clock::now();
  // Phase 1: whole rows here; sequence r starts at row r, elements contiguous.
  if (x.patch_count() > 0) {
    const auto v = x.local();
    layout_ok &= dense_without_ghosts(v) && v.count[1] == m;
    if (layout_ok) local_ffts(v.data, m, v.count[0], 1, v.strides[0]);
  }
  // The corner turn: every array over the domain (here just x) moves to whole columns, values kept.
  dom.redistribute(columns, tessera::Redistribution::preserve);
  // Phase 2: whole columns here, stored row-major as an n x (owned columns) block: sequence c
  // starts at column c, its elements one local row apart.
  if (x.patch_count() > 0) {
    const auto v = x.local();
    layout_ok &= dense_without_ghosts(v) && v.count[0] == n;
    if (layout_ok) local_ffts(v.data, n, v.count[1], v.strides[0], 1);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  tessera::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &layout_ok, 1, MPI_INT, MPI_MIN, world.raw()), "MPI_Allreduce");

  const std::vector<Complex> gathered = x.gather_to(0);
  int failed = layout_ok ? 0 : 1;
  if (rank == 0) {
    if (!layout_ok) std::printf("MISMATCH: a local view is not a dense block without ghosts\n");
    std::vector<Complex> ref(static_cast<std::size_t>(n * m));
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < m; ++j) ref[static_cast<std::size_t>(i * m + j)] = input_value(i, j);
    fftw_plan plan = fftw_plan_dft_2d(static_cast<int>(n), static_cast<int>(m), as_fftw(ref.data()),
                                      as_fftw(ref.data()), FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    // The serial 2-D transform and the row-then-column one round differently, so compare with a
    // tolerance relative to the largest output, growing with the transform size.
    double diff = 0.0, scale = 0.0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
      diff = std::max(diff, std::abs(gathered[k] - ref[k]));
      scale = std::max(scale, std::abs(ref[k]));
    }
    const double relative = scale > 0.0 ? diff / scale : diff;
    const double tolerance = 1e-12 * static_cast<double>(n * m);
    std::printf("%d ranks, %lld x %lld complex FFT: rows %dx1 block x collapsed, corner turn to columns 1x%d "
                "collapsed x block, %.3f s; max |error| / max |X| = %.3e (tolerance %.1e)\n",
                size, static_cast<long long>(n), static_cast<long long>(m), size, size, seconds, relative, tolerance);
    if (layout_ok && relative <= tolerance) {
      std::printf("corner-turn FFT matches the serial 2-D FFT\n");
    } else {
      std::printf("MISMATCH: corner-turn FFT differs from the serial 2-D FFT\n");
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  fftw_cleanup();
  return failed;
}
