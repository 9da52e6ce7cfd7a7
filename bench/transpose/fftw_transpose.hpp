#pragma once
/// \file
/// The anchor of bench_transpose: FFTW-MPI's distributed transpose of an n0 x n1 matrix of
/// `howmany`-tuples of doubles, block-distributed along its first dimension before and after
/// (input local_n0 x n1 x howmany, output local_n1 x n0 x howmany, both row-major), out of place.
/// With howmany = 1 it is the 2-D transpose; with howmany = n2 it swaps axes 0 and 1 of an
/// n0 x n1 x n2 array.

#include <fftw3-mpi.h>
#include <mpi.h>

#include <cstddef>
#include <span>

#include "tessera/core/index.hpp"

namespace tessera::bench {

class FftwTranspose {
 public:
  /// Collective over `comm`: sizes the local arrays with FFTW's default blocks, allocates them and
  /// plans with `flags` (FFTW_MEASURE runs trial transposes, overwriting both arrays: fill the
  /// input afterwards). Throws nothing; `planned()` is false if FFTW found no plan.
  FftwTranspose(MPI_Comm comm, index_t n0, index_t n1, index_t howmany, unsigned flags) {
    const std::ptrdiff_t n[2] = {static_cast<std::ptrdiff_t>(n0), static_cast<std::ptrdiff_t>(n1)};
    const std::ptrdiff_t alloc =
        fftw_mpi_local_size_many_transposed(2, n, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, comm,
                                            &local_n0_, &local_0_start_, &local_n1_, &local_1_start_);
    // FFTW may need more than either local array for scratch; never ask for zero bytes.
    const std::size_t size = static_cast<std::size_t>(alloc > 0 ? alloc : 1);
    in_ = fftw_alloc_real(size);
    out_ = fftw_alloc_real(size);
    in_size_ = static_cast<std::size_t>(local_n0_ * n1 * howmany);
    out_size_ = static_cast<std::size_t>(local_n1_ * n0 * howmany);
    const double t0 = MPI_Wtime();
    plan_ = fftw_mpi_plan_many_transpose(n0, n1, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, in_, out_,
                                         comm, flags);
    plan_seconds_ = MPI_Wtime() - t0;
  }
  ~FftwTranspose() {
    if (plan_) fftw_destroy_plan(plan_);
    fftw_free(in_);
    fftw_free(out_);
  }
  FftwTranspose(const FftwTranspose&) = delete;
  FftwTranspose& operator=(const FftwTranspose&) = delete;

  [[nodiscard]] bool planned() const noexcept { return plan_ != nullptr; }
  /// Collective: one transpose of the input into the output.
  void run() { fftw_execute(plan_); }

  /// This rank's input rows [local_0_start, local_0_start + local_n0) of the first dimension.
  [[nodiscard]] std::span<double> in() noexcept { return {in_, in_size_}; }
  /// This rank's output rows [local_1_start, local_1_start + local_n1) of the second dimension.
  [[nodiscard]] std::span<const double> out() const noexcept { return {out_, out_size_}; }
  [[nodiscard]] index_t local_n0() const noexcept { return local_n0_; }
  [[nodiscard]] index_t local_0_start() const noexcept { return local_0_start_; }
  [[nodiscard]] index_t local_n1() const noexcept { return local_n1_; }
  [[nodiscard]] index_t local_1_start() const noexcept { return local_1_start_; }
  /// Seconds this rank spent planning.
  [[nodiscard]] double plan_seconds() const noexcept { return plan_seconds_; }

 private:
  std::ptrdiff_t local_n0_ = 0, local_0_start_ = 0, local_n1_ = 0, local_1_start_ = 0;
  double* in_ = nullptr;
  double* out_ = nullptr;
  std::size_t in_size_ = 0, out_size_ = 0;
  fftw_plan plan_ = nullptr;
  double plan_seconds_ = 0;
};

}  // namespace tessera::bench
