#pragma once
// Redblack3D's numerics, shared by the tessera solver (main.cpp here) and the hand-written MPI
// version that `make experiments` times it against (experiments/kelp/redblack_mpi.cpp): the
// source term, the red-black Gauss-Seidel sweep and the exact solution. Sharing them is what makes
// the two programs' answers bit-identical, so that only their communication differs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tessera/tessera.hpp"

namespace redblack3d {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using View = tessera::LocalView<double, 3>;
using ConstView = tessera::LocalView<const double, 3>;

/// h² f at interior point p, with f chosen so that u = sin(πx) sin(πy) sin(πz) is the solution.
inline double scaled_source(const Point<3>& p, index_t n) {
  const double h = 1.0 / static_cast<double>(n + 1);
  double s = 3.0 * std::numbers::pi * std::numbers::pi * h * h;
  for (std::size_t d = 0; d < 3; ++d) s *= std::sin(std::numbers::pi * static_cast<double>(p[d] + 1) * h);
  return s;
}

/// The exact solution of the continuous problem at interior point p.
inline double exact_solution(const Point<3>& p, index_t n) {
  const double h = 1.0 / static_cast<double>(n + 1);
  double s = 1.0;
  for (std::size_t d = 0; d < 3; ++d) s *= std::sin(std::numbers::pi * static_cast<double>(p[d] + 1) * h);
  return s;
}

/// Gauss-Seidel update of every point of colour `color` ((i + j + k) % 2 == color) in `region`, a
/// global box inside the owned block whose first point is `first`. `u` holds one ghost layer on
/// every face, `f` is h² f over the owned block. A point of one colour reads only its six
/// neighbours, all of the other colour, so neither the order of the points nor splitting the
/// block into pieces changes a bit.
inline void gauss_seidel(const View& u, const ConstView& f, const Point<3>& first, const Box<3>& region, int color) {
  if (region.empty()) return;
  const index_t s0 = u.strides[0], s1 = u.strides[1], s2 = u.strides[2];
  for (index_t i = region.lo[0]; i < region.hi[0]; ++i)
    for (index_t j = region.lo[1]; j < region.hi[1]; ++j) {
      const index_t k0 = region.lo[2] + ((color - i - j - region.lo[2]) % 2 + 2) % 2;
      for (index_t k = k0; k < region.hi[2]; k += 2) {
        const Point<3> l{i - first[0], j - first[1], k - first[2]};
        double* x = &u({l[0] + u.ghost_lo[0], l[1] + u.ghost_lo[1], l[2] + u.ghost_lo[2]});
        const double fx = f({l[0] + f.ghost_lo[0], l[1] + f.ghost_lo[1], l[2] + f.ghost_lo[2]});
        *x = (x[-s0] + x[s0] + x[-s1] + x[s1] + x[-s2] + x[s2] + fx) / 6.0;
      }
    }
}

/// A row-major view over a plain buffer holding a block of `count` points with `ghost` layers on
/// every side.
template <class T>
tessera::LocalView<T, 3> plain_view(T* data, const Point<3>& count, index_t ghost) {
  const Point<3> e{count[0] + 2 * ghost, count[1] + 2 * ghost, count[2] + 2 * ghost};
  return {data, e, {e[1] * e[2], e[2], 1}, {ghost, ghost, ghost}, count};
}

/// The serial reference: `iterations` red-black iterations over the whole n³ grid, as one rank
/// would run them; returns u over the grid (row-major, no ghosts).
inline std::vector<double> serial_solution(index_t n, int iterations) {
  const Box<3> box({0, 0, 0}, {n, n, n});
  std::vector<double> ref(static_cast<std::size_t>((n + 2) * (n + 2) * (n + 2)), 0.0);
  std::vector<double> f(static_cast<std::size_t>(n * n * n));
  const View rv = plain_view(ref.data(), {n, n, n}, 1);
  const ConstView fv = plain_view(static_cast<const double*>(f.data()), {n, n, n}, 0);
  tessera::for_each_point(box, [&](const Point<3>& p) {
    f[static_cast<std::size_t>(tessera::offset_row_major(box, p))] = scaled_source(p, n);
  });
  for (int it = 0; it < iterations; ++it)
    for (int color = 0; color < 2; ++color) gauss_seidel(rv, fv, {0, 0, 0}, box, color);
  std::vector<double> u(static_cast<std::size_t>(n * n * n));
  tessera::for_each_point(box, [&](const Point<3>& p) {
    u[static_cast<std::size_t>(tessera::offset_row_major(box, p))] = rv(p + Point<3>{1, 1, 1});
  });
  return u;
}

/// What rank 0 checks and prints for the gathered solution `u` (row-major n³): how many points
/// differ from the serial reference (bit for bit), the largest error against the exact solution
/// and a checksum (the sum in row-major order, so equal solutions give equal bits).
struct Verdict {
  index_t mismatches = 0;
  double max_error = 0.0;
  double checksum = 0.0;
};

inline Verdict verify(const std::vector<double>& u, index_t n, int iterations) {
  const Box<3> box({0, 0, 0}, {n, n, n});
  const std::vector<double> ref = serial_solution(n, iterations);
  Verdict v;
  tessera::for_each_point(box, [&](const Point<3>& p) {
    const auto at = static_cast<std::size_t>(tessera::offset_row_major(box, p));
    v.mismatches += u[at] != ref[at];
    v.max_error = std::max(v.max_error, std::abs(u[at] - exact_solution(p, n)));
    v.checksum += u[at];
  });
  return v;
}

/// Prints the verdict's lines (the same in both programs, so the experiment can compare them);
/// returns 1 if the solution differs from the serial reference.
inline int report(const Verdict& v, double max_residual) {
  std::printf("max |h^2 residual| %.17g, max |u - exact| %.17g, checksum %.17g\n", max_residual, v.max_error,
              v.checksum);
  if (v.mismatches == 0) {
    std::printf("distributed red-black Gauss-Seidel matches the serial reference bit for bit\n");
    return 0;
  }
  std::printf("MISMATCH: %lld points differ from the serial reference\n", static_cast<long long>(v.mismatches));
  return 1;
}

}  // namespace redblack3d
