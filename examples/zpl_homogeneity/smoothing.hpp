#pragma once
// The smoothing kernel of ZPL's homogeneity test (examples/zpl_homogeneity), shared with its
// hand-written MPI version (experiments/zpl/homogeneity_mpi.cpp): the same update, the same
// initial values, the same sweep over a block stored with one ghost layer.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/array/dist_array.hpp"

namespace zpl_homogeneity {

using tessera::index_t;
using View = tessera::LocalView<double, 2>;
using ConstView = tessera::LocalView<const double, 2>;

/// The one update both the distributed and the serial runs use, so that they round alike.
inline double smooth(double centre, double north, double south, double west, double east) {
  return 0.2 * (centre + north + south + west + east);
}

/// Deterministic initial value of global point (i, j): a hash mapped to [0, 1), the same on every
/// rank and in every layout.
inline double initial(index_t i, index_t j) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
  x ^= static_cast<std::uint64_t>(j) * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

/// One sweep over the owned points: `in` and `out` have the same layout (one ghost layer, zero
/// beyond the domain), so one set of local indices addresses both.
inline void sweep(const ConstView& in, const View& out) {
  const index_t s = in.strides[0];
  for (index_t a = 0; a < in.count[0]; ++a) {
    const double* row = in.data + (a + in.ghost_lo[0]) * s + in.ghost_lo[1];
    double* dst = out.data + (a + out.ghost_lo[0]) * s + out.ghost_lo[1];
    for (index_t b = 0; b < in.count[1]; ++b) dst[b] = smooth(row[b], row[b - s], row[b + s], row[b - 1], row[b + 1]);
  }
}

/// A row-major view over a plain vector of `rows` x `cols` owned points with one ghost layer.
template <class T>
tessera::LocalView<T, 2> plain_view(T* data, index_t rows, index_t cols) {
  return {data, {rows + 2, cols + 2}, {cols + 2, 1}, {1, 1}, {rows, cols}};
}

/// The kernel serially from the initial values: `sweeps` sweeps (even) over the n x n grid, zero
/// beyond it; the n x n result, row-major. What every distributed run must give bit for bit.
inline std::vector<double> serial_smoothing(index_t n, int sweeps) {
  std::vector<double> a(static_cast<std::size_t>((n + 2) * (n + 2)), 0.0), b(a.size(), 0.0);
  const View av = plain_view(a.data(), n, n);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) av({i + 1, j + 1}) = initial(i, j);
  for (int s = 0; s < sweeps; ++s) {
    std::vector<double>& in = s % 2 == 0 ? a : b;
    std::vector<double>& out = s % 2 == 0 ? b : a;
    sweep(plain_view(static_cast<const double*>(in.data()), n, n), plain_view(out.data(), n, n));
  }
  std::vector<double> result(static_cast<std::size_t>(n * n));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) result[static_cast<std::size_t>(i * n + j)] = av({i + 1, j + 1});
  return result;
}

}  // namespace zpl_homogeneity
