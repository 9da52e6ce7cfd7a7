// NAS FT on tessera (KeLP's Fig. 6 NAS-FT, issue 18): NPB's FT kernel (npb_ft.hpp) with the 3-D FFT
// distributed by tessera, as ZPL's corner turn (examples/zpl_fft) in three dimensions. The grid
// [z][y][x] lives on one domain with two distributions:
//   physical: z-slabs (block x collapsed x collapsed): whole xy-planes here, 2-D FFTs over them;
//   spectral: y-slabs (collapsed x block x collapsed): whole z-lines here, 1-D FFTs along z.
// A forward 3-D FFT is plane FFTs, the transpose (`Domain::redistribute(spectral, preserve)`), z-line
// FFTs; the inverse runs backwards. As NPB's 1-D layout, the spectrum stays transposed: the kept
// spectrum u0 and the evolution factors live on a second domain that is always spectral, so only the
// work array moves. After each checksum the work domain goes back to spectral destructively
// (nothing moved, storage reshaped) for the next evolve step to fill.
//
// As NPB, the whole problem runs once untimed and once timed; the timed run's checksums are checked
// against NPB's (npb_ft::report_checksums). Prints "timing: total_s=... transpose_s=..." (max over
// ranks) for experiments/nas_ft.py. See README.md here.
#include <fftw3.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "local_ffts.hpp"
#include "npb_ft.hpp"
#include "tessera/tessera.hpp"

namespace {

using npb_ft::Complex;
using npb_ft::LocalFfts;
using npb_ft::ProblemClass;
using tessera::Box;
using tessera::Distribution;
using tessera::index_t;

/// The slabs of `box` along `axis`: a grid of `ranks` along that axis, the other dimensions whole.
Distribution<3> slabs(const Box<3>& box, int ranks, std::size_t axis) {
  tessera::Point<3> shape = tessera::Point<3>::filled(1);
  std::array<tessera::DimSpec, 3> dims{tessera::collapsed(), tessera::collapsed(), tessera::collapsed()};
  shape[axis] = ranks;
  dims[axis] = tessera::block();
  return Distribution<3>(box, tessera::ProcGrid<3>::with_shape(ranks, shape), dims);
}

/// FFTW is handed raw pointers and strides: the local block must be dense, row-major, ghost-free.
template <class T>
void require_dense(const tessera::DistArray<T, 3>& a, const Box<3>& owned) {
  if (a.patch_count() == 0) return;
  const auto v = a.local();
  const bool dense = v.ghost_lo == tessera::Point<3>{} && v.extents == v.count && v.strides[2] == 1 &&
                     v.strides[1] == v.count[2] && v.strides[0] == v.count[1] * v.count[2];
  if (!dense || v.count != owned.hi - owned.lo)
    throw tessera::Error(tessera::ErrorCode::invalid_argument, "nas_ft_tessera: a local block is not dense");
}

/// One run of the benchmark: what the timed run reports.
struct RunResult {
  std::vector<Complex> sums;
  double total_s = 0, transpose_s = 0;
  double reshape_s = 0;  ///< the part of transpose_s in the destructive re-layouts (nothing sent)
};

class FtSolver {
 public:
  FtSolver(const tessera::Communicator& world, const ProblemClass& c, unsigned planner)
      : world_(world),
        c_(c),
        box_({0, 0, 0}, {c.nz, c.ny, c.nx}),
        physical_(slabs(box_, world.size(), 0)),
        spectral_(slabs(box_, world.size(), 1)),
        mine_physical_(physical_.owned_box(world.rank())),
        mine_spectral_(spectral_.owned_box(world.rank())),
        work_(world, physical_),
        w_(work_),
        fourier_(world, spectral_),
        u0_(fourier_),
        twiddle_(fourier_),
        lz_(mine_physical_.hi[0] - mine_physical_.lo[0]),
        ly_(mine_spectral_.hi[1] - mine_spectral_.lo[1]),
        // NPB's forward transform is FFTW's BACKWARD sign (+1), its inverse FFTW's FORWARD (-1).
        planes_forward_({int(c.ny), int(c.nx)}, lz_, 1, c.ny * c.nx, FFTW_BACKWARD, planner),
        planes_inverse_({int(c.ny), int(c.nx)}, lz_, 1, c.ny * c.nx, FFTW_FORWARD, planner),
        lines_forward_({int(c.nz)}, ly_ * c.nx, ly_ * c.nx, 1, FFTW_BACKWARD, planner),
        lines_inverse_({int(c.nz)}, ly_ * c.nx, ly_ * c.nx, 1, FFTW_FORWARD, planner) {
    require_dense(w_, mine_physical_);
    require_dense(u0_, mine_spectral_);
  }

  /// NPB's timed region: setup (evolution factors, initial conditions), the forward FFT, and per
  /// iteration evolve, inverse FFT and checksum.
  RunResult run() {
    RunResult r;
    world_.barrier();
    const double start = tessera::Communicator::wtime();
    fill_twiddle();
    if (lz_ > 0) npb_ft::fill_initial_conditions(c_, mine_physical_.lo[0], lz_, w_.local().data);
    forward_fft(r);
    if (ly_ > 0) std::copy_n(w_.local().data, ly_ * c_.nz * c_.nx, u0_.local().data);
    for (int t = 1; t <= c_.iterations(); ++t) {
      if (t > 1) transpose(spectral_, tessera::Redistribution::destructive, r);  // values not needed: reshape only
      evolve();
      inverse_fft(r);
      r.sums.push_back(checksum());
    }
    r.total_s = world_.max(tessera::Communicator::wtime() - start);
    r.transpose_s = world_.max(r.transpose_s);
    r.reshape_s = world_.max(r.reshape_s);
    return r;
  }

  [[nodiscard]] long replans() const {
    return planes_forward_.replans() + planes_inverse_.replans() + lines_forward_.replans() + lines_inverse_.replans();
  }

 private:
  void transpose(const Distribution<3>& to, tessera::Redistribution mode, RunResult& r) {
    const double t0 = tessera::Communicator::wtime();
    work_.redistribute(to, mode);
    const double seconds = tessera::Communicator::wtime() - t0;
    r.transpose_s += seconds;
    if (mode == tessera::Redistribution::destructive) r.reshape_s += seconds;
    require_dense(w_, to == physical_ ? mine_physical_ : mine_spectral_);
  }

  void forward_fft(RunResult& r) {
    if (lz_ > 0) planes_forward_.run(w_.local().data);
    transpose(spectral_, tessera::Redistribution::preserve, r);
    if (ly_ > 0) lines_forward_.run(w_.local().data);
  }

  void inverse_fft(RunResult& r) {
    if (ly_ > 0) lines_inverse_.run(w_.local().data);
    transpose(physical_, tessera::Redistribution::preserve, r);
    if (lz_ > 0) planes_inverse_.run(w_.local().data);
  }

  /// Spectral layout: [z][y - y0][x].
  void fill_twiddle() {
    if (ly_ == 0) return;
    double* tw = twiddle_.local().data;
    for (index_t z = 0; z < c_.nz; ++z)
      for (index_t y = 0; y < ly_; ++y)
        for (index_t x = 0; x < c_.nx; ++x) *tw++ = npb_ft::evolution_factor(c_, x, mine_spectral_.lo[1] + y, z);
  }

  /// NPB's evolve: u0 *= twiddle (the spectrum advances one step), w = u0.
  void evolve() {
    if (ly_ == 0) return;
    Complex* u0 = u0_.local().data;
    Complex* w = w_.local().data;
    const double* tw = twiddle_.local().data;
    const index_t n = ly_ * c_.nz * c_.nx;
    for (index_t i = 0; i < n; ++i) w[i] = u0[i] *= tw[i];
  }

  Complex checksum() {
    const Complex part = lz_ > 0 ? npb_ft::checksum_part(c_, mine_physical_.lo[0], lz_, w_.local().data) : Complex{};
    std::array<double, 2> sum{part.real(), part.imag()};
    world_.allreduce(std::span<double>(sum), tessera::ReduceOp::sum);
    return {sum[0], sum[1]};
  }

  const tessera::Communicator& world_;
  const ProblemClass& c_;
  Box<3> box_;
  Distribution<3> physical_, spectral_;
  Box<3> mine_physical_, mine_spectral_;
  tessera::Domain<3> work_;
  tessera::DistArray<Complex, 3> w_;
  tessera::Domain<3> fourier_;
  tessera::DistArray<Complex, 3> u0_;
  tessera::DistArray<double, 3> twiddle_;
  index_t lz_, ly_;
  LocalFfts planes_forward_, planes_inverse_, lines_forward_, lines_inverse_;
};

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"NAS FT (NPB 3.3) with tessera's redistribution as the 3-D FFT's transpose, FFTW for local FFTs"};
  std::string cls = "S", planner = "estimate";
  app.add_option("--class", cls, "NPB class")->check(CLI::IsMember({"S", "W", "A"}));
  app.add_option("--planner", planner, "FFTW planner for the local FFTs")
      ->check(CLI::IsMember({"estimate", "measure"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const ProblemClass c = npb_ft::problem_class(cls[0]);
  FtSolver ft(world, c, planner == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE);
  ft.run();  // NPB runs the whole problem once untimed: pages touched, tessera's schedules cached
  const RunResult r = ft.run();
  int failed = 0;
  if (world.rank() == 0) {
    std::printf(
        "NAS FT class %c on tessera: %lld x %lld x %lld, %d iterations, %d ranks (z-slabs <-> y-slabs), "
        "FFTW planner %s\n",
        c.name, static_cast<long long>(c.nx), static_cast<long long>(c.ny), static_cast<long long>(c.nz),
        c.iterations(), world.size(), planner.c_str());
    failed = npb_ft::report_checksums(c, r.sums) ? 0 : 1;
    std::printf("timing: total_s=%.6f transpose_s=%.6f (of which reshape_s=%.6f)\n", r.total_s, r.transpose_s,
                r.reshape_s);
  }
  if (world.max(static_cast<double>(ft.replans())) > 0 && world.rank() == 0)
    std::printf("note: some local FFTs needed a plan of their own (storage alignment differed)\n");
  world.bcast(std::span<int>(&failed, 1), 0);
  fftw_cleanup();
  return failed;
}
