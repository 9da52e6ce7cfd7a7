#pragma once
// What ZPL's computational zoom (examples/zpl_zoom) and its hand-written MPI version
// (experiments/zpl/zoom_mpi.cpp) share: the problem, the update expressions, the interpolation and
// restriction, and the serial reference every run must match bit for bit.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "tessera/geometry.hpp"

namespace zpl_zoom {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

/// f, two bumps of different strength and width: the strong narrow one is what the zoom should find.
inline double source(double x, double y) {
  const double a = (x - 0.3) * (x - 0.3) + (y - 0.35) * (y - 0.35);
  const double b = (x - 0.7) * (x - 0.7) + (y - 0.6) * (y - 0.6);
  return 40.0 * std::exp(-a / 0.02) + 400.0 * std::exp(-b / 0.002);
}

/// Centre of cell i of a grid of spacing h (cell-centred, the unit square split into cells).
inline double centre(index_t i, double h) { return (static_cast<double>(i) + 0.5) * h; }

/// The one Jacobi update both the distributed and the serial runs use, so that they round alike.
inline double jacobi(double north, double south, double west, double east, double h2f) {
  return 0.25 * (north + south + west + east + h2f);
}

/// Floor of a / b for b > 0 (C++ division truncates towards zero).
inline index_t floor_div(index_t a, index_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// Bilinear interpolation of the coarse cell-centred values `coarse(i, j)` (i, j in `roi`) at the
/// centre of fine cell (fi, fj), fine cells being r x r times smaller. Indices are clamped to the
/// roi, so the edge cells extrapolate the nearest value. Reads coarse cells at most one outside
/// the r x r-shrunk fine box, which is why the zoom array carries one ghost layer.
template <class Coarse>
double interpolate(const Coarse& coarse, const Box<2>& roi, index_t fi, index_t fj, index_t r) {
  index_t lo[2], hi[2];
  double t[2];
  const index_t f[2] = {fi, fj};
  for (int d = 0; d < 2; ++d) {
    // Fine centre in coarse index units is (f + 1/2)/r - 1/2 = (2f + 1 - r) / 2r: integers only.
    const index_t num = 2 * f[d] + 1 - r, den = 2 * r;
    const index_t i0 = floor_div(num, den);
    t[d] = static_cast<double>(num - i0 * den) / static_cast<double>(den);
    lo[d] = std::clamp(i0, roi.lo[d], roi.hi[d] - 1);
    hi[d] = std::clamp(i0 + 1, roi.lo[d], roi.hi[d] - 1);
  }
  const double row0 = (1.0 - t[1]) * coarse(lo[0], lo[1]) + t[1] * coarse(lo[0], hi[1]);
  const double row1 = (1.0 - t[1]) * coarse(hi[0], lo[1]) + t[1] * coarse(hi[0], hi[1]);
  return (1.0 - t[0]) * row0 + t[0] * row1;
}

/// Mean of the r x r fine cells of coarse cell (i, j), summed in one fixed order.
template <class Fine>
double restrict_cell(const Fine& fine, index_t i, index_t j, index_t r) {
  double s = 0.0;
  for (index_t a = 0; a < r; ++a)
    for (index_t b = 0; b < r; ++b) s += fine(i * r + a, j * r + b);
  return s / static_cast<double>(r * r);
}

/// A plain serial array over `box` with one zero ghost layer, addressed by global indices.
struct Plain {
  Box<2> box;
  index_t width;
  std::vector<double> v;
  explicit Plain(const Box<2>& b)
      : box(b),
        width(b.hi[1] - b.lo[1] + 2),
        v(static_cast<std::size_t>((b.hi[0] - b.lo[0] + 2) * width), 0.0) {}
  double& operator()(index_t i, index_t j) {
    return v[static_cast<std::size_t>((i - box.lo[0] + 1) * width + (j - box.lo[1] + 1))];
  }
  double operator()(index_t i, index_t j) const {
    return v[static_cast<std::size_t>((i - box.lo[0] + 1) * width + (j - box.lo[1] + 1))];
  }
};

/// `sweeps` Jacobi sweeps over the points of `region`, alternating between `a` and `b` (both must
/// already agree outside the region): an even count leaves the result in `a`.
inline void serial_jacobi(Plain& a, Plain& b, const Box<2>& region, int sweeps, double h) {
  for (int s = 0; s < sweeps; ++s) {
    const Plain& in = s % 2 == 0 ? a : b;
    Plain& out = s % 2 == 0 ? b : a;
    for (index_t i = region.lo[0]; i < region.hi[0]; ++i)
      for (index_t j = region.lo[1]; j < region.hi[1]; ++j)
        out(i, j) = jacobi(in(i - 1, j), in(i + 1, j), in(i, j - 1), in(i, j + 1),
                           h * h * source(centre(i, h), centre(j, h)));
  }
}

/// The region of interest: an m x m box around `at`, shifted to lie inside [0, n)².
inline Box<2> region_of_interest(const Point<2>& at, index_t m, index_t n) {
  Point<2> lo;
  for (std::size_t d = 0; d < 2; ++d) lo[d] = std::clamp(at[d] - m / 2, index_t{0}, n - m);
  return Box<2>::from_extents(lo, {m, m});
}

/// The box shrunk by one on every side: the fine sweeps keep the interpolated ring as boundary.
inline Box<2> interior(const Box<2>& b) { return {b.lo + Point<2>{1, 1}, b.hi - Point<2>{1, 1}}; }


/// The whole computation serially: the coarse result (n x n, row-major), the fine result over the
/// region's refined box (row-major) and the region.
struct SerialZoom {
  std::vector<double> coarse, fine;
  Box<2> roi;
};

inline SerialZoom serial_zoom(index_t n, index_t m, index_t r, int coarse_sweeps, int fine_sweeps) {
  const double h = 1.0 / static_cast<double>(n), hf = h / static_cast<double>(r);
  const Box<2> box({0, 0}, {n, n});
  Plain a(box), b(box);
  serial_jacobi(a, b, box, coarse_sweeps, h);
  Point<2> at{};
  double best = a(0, 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      if (a(i, j) > best) best = a(i, j), at = {i, j};  // strict: the first (row-major) maximum wins
  SerialZoom out;
  out.roi = region_of_interest(at, m, n);
  const Box<2> fine_box(out.roi.lo * r, out.roi.hi * r);
  Plain f(fine_box), g(fine_box);
  for (index_t i = fine_box.lo[0]; i < fine_box.hi[0]; ++i)
    for (index_t j = fine_box.lo[1]; j < fine_box.hi[1]; ++j)
      f(i, j) = interpolate([&](index_t ci, index_t cj) { return a(ci, cj); }, out.roi, i, j, r);
  g = f;
  serial_jacobi(f, g, interior(fine_box), fine_sweeps, hf);
  for (index_t i = out.roi.lo[0]; i < out.roi.hi[0]; ++i)
    for (index_t j = out.roi.lo[1]; j < out.roi.hi[1]; ++j) a(i, j) = restrict_cell(f, i, j, r);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) out.coarse.push_back(a(i, j));
  for (index_t i = fine_box.lo[0]; i < fine_box.hi[0]; ++i)
    for (index_t j = fine_box.lo[1]; j < fine_box.hi[1]; ++j) out.fine.push_back(f(i, j));
  return out;
}

/// Values of `got` that differ from `want` (all of them, if the sizes differ).
inline index_t mismatches(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return static_cast<index_t>(std::max(got.size(), want.size()));
  index_t count = 0;
  for (std::size_t k = 0; k < got.size(); ++k) count += got[k] != want[k];
  return count;
}

}  // namespace zpl_zoom
