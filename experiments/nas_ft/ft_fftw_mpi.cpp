// NAS FT on FFTW-MPI's own distributed 3-D transform: the anchor of experiments/nas_ft.py (KeLP's
// Fig. 6 compares its FT with the hand-written MPI one; here the hand-tuned code is FFTW-MPI's).
// The same NPB kernel as ft_tessera.cpp (npb_ft.hpp), with FFTW-MPI's slab decomposition: z-slabs in
// physical space, and, as NPB's 1-D layout, the spectrum kept transposed (FFTW_MPI_TRANSPOSED_OUT on
// the forward plan, FFTW_MPI_TRANSPOSED_IN on the inverse one: y-slabs [y][z][x]), so each 3-D
// FFT does one global transpose, as tessera's does. FFTW chooses the local sizes (blocks of
// ceil(n / P), so the last rank may get fewer planes).
//
// The share of the transposes cannot be timed inside FFTW's plan; the program times the same
// transpose (fftw_mpi_plan_many_transpose of nz x ny tuples of nx complex numbers, the one a
// TRANSPOSED_OUT plan performs) as often as the run transposes, after the timed run, and prints it
// as transpose_s. As NPB, the whole problem runs once untimed and once timed.
#include <fftw3-mpi.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "npb_ft.hpp"

namespace {

using npb_ft::Complex;
using npb_ft::index_t;
using npb_ft::ProblemClass;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "nas_ft_fftw_mpi: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

double max_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

Complex* as_complex(fftw_complex* p) { return reinterpret_cast<Complex*>(p); }

class FftwMpiFt {
 public:
  FftwMpiFt(const ProblemClass& c, unsigned planner) : c_(c) {
    ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(c.nz, c.ny, c.nx, MPI_COMM_WORLD, &lz_, &z0_, &ly_, &y0_);
    // The transpose timed apart must fit the same arrays (it counts doubles, not complex numbers).
    const ptrdiff_t planes[2] = {c.nz, c.ny};
    ptrdiff_t n0 = 0, s0 = 0, n1 = 0, s1 = 0;
    const ptrdiff_t doubles = fftw_mpi_local_size_many_transposed(
        2, planes, 2 * c.nx, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &n0, &s0, &n1, &s1);
    alloc = std::max({alloc, (doubles + 1) / 2, ptrdiff_t{1}});
    u0_ = fftw_alloc_complex(static_cast<std::size_t>(alloc));
    u1_ = fftw_alloc_complex(static_cast<std::size_t>(alloc));
    check(u0_ != nullptr && u1_ != nullptr, "out of memory");
    // Planned before any data is written: FFTW_MEASURE overwrites the arrays it plans on.
    // NPB's forward transform has FFTW's BACKWARD sign (+1), its inverse FFTW's FORWARD (-1).
    forward_ = fftw_mpi_plan_dft_3d(c.nz, c.ny, c.nx, u1_, u0_, MPI_COMM_WORLD, FFTW_BACKWARD,
                                    planner | FFTW_MPI_TRANSPOSED_OUT);
    inverse_ = fftw_mpi_plan_dft_3d(c.nz, c.ny, c.nx, u1_, u1_, MPI_COMM_WORLD, FFTW_FORWARD,
                                    planner | FFTW_MPI_TRANSPOSED_IN);
    transpose_ = fftw_mpi_plan_many_transpose(c.nz, c.ny, 2 * c.nx, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                              reinterpret_cast<double*>(u1_), reinterpret_cast<double*>(u0_),
                                              MPI_COMM_WORLD, planner);
    check(forward_ != nullptr && inverse_ != nullptr && transpose_ != nullptr, "FFTW-MPI could not plan");
    twiddle_.resize(static_cast<std::size_t>(ly_ * c.nz * c.nx));
  }
  ~FftwMpiFt() {
    for (fftw_plan p : {forward_, inverse_, transpose_}) fftw_destroy_plan(p);
    fftw_free(u0_);
    fftw_free(u1_);
  }
  FftwMpiFt(const FftwMpiFt&) = delete;
  FftwMpiFt& operator=(const FftwMpiFt&) = delete;

  /// NPB's timed region, as ft_tessera.cpp's: setup, forward FFT, iterations of evolve, inverse FFT
  /// and checksum. Returns the checksums and the time (max over ranks).
  std::vector<Complex> run(double& seconds) {
    std::vector<Complex> sums;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    fill_twiddle();
    npb_ft::fill_initial_conditions(c_, z0_, lz_, as_complex(u1_));
    fftw_execute(forward_);
    for (int t = 1; t <= c_.iterations(); ++t) {
      evolve();
      fftw_execute(inverse_);
      sums.push_back(checksum());
    }
    seconds = max_over_ranks(MPI_Wtime() - start);
    return sums;
  }

  /// The run's transposes (one per 3-D FFT) timed apart; max over ranks.
  double transposes_alone() {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int k = 0; k <= c_.iterations(); ++k) fftw_execute(transpose_);
    return max_over_ranks(MPI_Wtime() - start);
  }

 private:
  /// Transposed spectral layout: [y - y0][z][x].
  void fill_twiddle() {
    double* tw = twiddle_.data();
    for (index_t y = 0; y < ly_; ++y)
      for (index_t z = 0; z < c_.nz; ++z)
        for (index_t x = 0; x < c_.nx; ++x) *tw++ = npb_ft::evolution_factor(c_, x, y0_ + y, z);
  }

  void evolve() {
    Complex* u0 = as_complex(u0_);
    Complex* u1 = as_complex(u1_);
    const index_t n = ly_ * c_.nz * c_.nx;
    for (index_t i = 0; i < n; ++i) u1[i] = u0[i] *= twiddle_[static_cast<std::size_t>(i)];
  }

  Complex checksum() {
    const Complex part = npb_ft::checksum_part(c_, z0_, lz_, as_complex(u1_));
    double sum[2] = {part.real(), part.imag()};
    MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return {sum[0], sum[1]};
  }

  const ProblemClass& c_;
  ptrdiff_t lz_ = 0, z0_ = 0, ly_ = 0, y0_ = 0;
  fftw_complex *u0_ = nullptr, *u1_ = nullptr;
  fftw_plan forward_ = nullptr, inverse_ = nullptr, transpose_ = nullptr;
  std::vector<double> twiddle_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"NAS FT (NPB 3.3) on FFTW-MPI's distributed 3-D FFT (slabs, transposed spectrum)"};
  std::string cls = "S", planner = "estimate";
  app.add_option("--class", cls, "NPB class")->check(CLI::IsMember({"S", "W", "A"}));
  app.add_option("--planner", planner, "FFTW planner")->check(CLI::IsMember({"estimate", "measure"}));
  int failed = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    failed = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return failed;
  }
  const ProblemClass c = npb_ft::problem_class(cls[0]);
  {
    FftwMpiFt ft(c, planner == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE);
    double seconds = 0;
    ft.run(seconds);  // untimed, as NPB
    const std::vector<Complex> sums = ft.run(seconds);
    const double transpose_s = ft.transposes_alone();
    if (rank == 0) {
      std::printf(
          "NAS FT class %c on FFTW-MPI: %lld x %lld x %lld, %d iterations, %d ranks (slabs, transposed "
          "spectrum), FFTW planner %s\n",
          c.name, static_cast<long long>(c.nx), static_cast<long long>(c.ny), static_cast<long long>(c.nz),
          c.iterations(), size, planner.c_str());
      failed = npb_ft::report_checksums(c, sums) ? 0 : 1;
      std::printf("timing: total_s=%.6f transpose_s=%.6f\n", seconds, transpose_s);
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return failed;
}
