#pragma once
// What the corner-turn FFT (examples/zpl_fft) and its hand-written MPI version
// (experiments/zpl/fft_mpi.cpp) share: the input, the local 1-D FFTs and the serial reference.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace zpl_fft {

using Complex = std::complex<double>;
using index_t = std::int64_t;

/// The input value at (i, j): deterministic, so rank 0 can rebuild the whole array for its check,
/// and irregular enough that no FFT output is accidentally zero.
inline Complex input_value(index_t i, index_t j) {
  const double x = static_cast<double>(i), y = static_cast<double>(j);
  return {std::sin(0.37 * x + 1.3 * y) + 0.01 * x, std::cos(0.71 * x * y + 0.2) - 0.02 * y};
}

/// FFTW takes its complex numbers as double[2]; std::complex<double> is specified to have that
/// layout ([complex.numbers]), so the cast is well defined.
inline fftw_complex* as_fftw(Complex* p) { return reinterpret_cast<fftw_complex*>(p); }

/// In-place forward 1-D FFTs of length `length` over `howmany` sequences of the local storage at
/// `data`: element k of sequence s is at data[s * dist + k * stride]. One plan for all of them
/// (FFTW_ESTIMATE does not touch the data while planning, so planning on the live array is safe).
inline void local_ffts(Complex* data, index_t length, index_t howmany, index_t stride, index_t dist) {
  if (length == 0 || howmany == 0) return;  // this rank owns nothing in this phase
  const int n = static_cast<int>(length);
  fftw_plan plan = fftw_plan_many_dft(1, &n, static_cast<int>(howmany), as_fftw(data), nullptr,
                                      static_cast<int>(stride), static_cast<int>(dist), as_fftw(data), nullptr,
                                      static_cast<int>(stride), static_cast<int>(dist), FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
}

/// The serial 2-D FFT of the input, on rank 0: what every distributed run must match.
inline std::vector<Complex> serial_fft(index_t n, index_t m) {
  std::vector<Complex> ref(static_cast<std::size_t>(n * m));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) ref[static_cast<std::size_t>(i * m + j)] = input_value(i, j);
  fftw_plan plan = fftw_plan_dft_2d(static_cast<int>(n), static_cast<int>(m), as_fftw(ref.data()), as_fftw(ref.data()),
                                    FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return ref;
}

/// max |got - ref| / max |ref|: the serial 2-D transform and the row-then-column one round
/// differently, so they are compared with a tolerance relative to the largest output.
inline double relative_error(const std::vector<Complex>& got, const std::vector<Complex>& ref) {
  if (got.size() != ref.size()) return 1.0;
  double diff = 0.0, scale = 0.0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    diff = std::max(diff, std::abs(got[k] - ref[k]));
    scale = std::max(scale, std::abs(ref[k]));
  }
  return scale > 0.0 ? diff / scale : diff;
}

}  // namespace zpl_fft
