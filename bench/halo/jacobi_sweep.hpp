#pragma once
// The work between two exchanges in bench_halo's "in-loop" mode: one Jacobi sweep of the
// (2N)-point average over the owned points of a row-major patch with `w` ghost layers on every
// side, reading `in` (ghosts included) and writing the owned points of `out`. The same function
// runs between tessera's exchanges and the anchor's, so the mode times what a stencil program
// feels per iteration: exchange plus sweep, with the caches as the sweep leaves them.
#include <array>
#include <cstddef>

#include "tessera/geometry.hpp"

namespace tessera::bench::halo {

template <std::size_t N>
void jacobi_sweep(const Point<N>& extents, index_t w, const double* in, double* out) {
  static_assert(N == 2 || N == 3, "jacobi_sweep: 2-D or 3-D patches");
  std::array<index_t, N> stride{};
  stride[N - 1] = 1;
  for (std::size_t d = N - 1; d-- > 0;) stride[d] = stride[d + 1] * extents[d + 1];
  constexpr double scale = 1.0 / (2.0 * N);
  if constexpr (N == 2) {
    for (index_t i = w; i < extents[0] - w; ++i) {
      const double* x = in + i * stride[0];
      double* y = out + i * stride[0];
      for (index_t j = w; j < extents[1] - w; ++j)
        y[j] = scale * (x[j - stride[0]] + x[j + stride[0]] + x[j - 1] + x[j + 1]);
    }
  } else {
    for (index_t i = w; i < extents[0] - w; ++i)
      for (index_t j = w; j < extents[1] - w; ++j) {
        const index_t row = i * stride[0] + j * stride[1];
        const double* x = in + row;
        double* y = out + row;
        for (index_t k = w; k < extents[2] - w; ++k)
          y[k] = scale * (x[k - stride[0]] + x[k + stride[0]] + x[k - stride[1]] + x[k + stride[1]] + x[k - 1] +
                          x[k + 1]);
      }
  }
}

}  // namespace tessera::bench::halo
