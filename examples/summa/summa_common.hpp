#pragma once
// SUMMA's pieces shared by the tessera program (main.cpp here) and the hand-written MPI and
// ScaLAPACK versions `make experiments` times it against (experiments/kelp/summa_anchors.cpp): the
// matrices, the panel cut, the local panel product and the serial check. Sharing them makes the
// three programs multiply the same matrices with the same local arithmetic, so that they differ
// only in how the panels travel.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "tessera/core/index.hpp"

namespace summa {

using tessera::index_t;

// Deterministic, non-integer inputs, so that rounding is exercised.
inline double a_value(index_t i, index_t j) {
  return std::sin(static_cast<double>(3 * i + j) + 0.5) / static_cast<double>(1 + j);
}
inline double b_value(index_t i, index_t j) {
  return std::cos(static_cast<double>(i - 2 * j)) + 1.0 / static_cast<double>(1 + i + j);
}

/// Panels [lo, hi) of the inner dimension k: at most `panel` wide, and never straddling a block
/// boundary of A's columns (`a_owner(t)`: the grid column owning column t of A) or of B's rows
/// (`b_owner(t)`: the grid row owning row t of B), so one grid column owns each A panel and one
/// grid row each B panel. On a non-square grid those boundaries differ, so panels are cut at both.
template <class OwnerA, class OwnerB>
std::vector<std::pair<index_t, index_t>> cut_panels(index_t k, index_t panel, OwnerA a_owner, OwnerB b_owner) {
  std::vector<std::pair<index_t, index_t>> panels;
  for (index_t lo = 0; lo < k;) {
    index_t hi = lo + 1;
    while (hi < k && hi - lo < panel && a_owner(hi) == a_owner(lo) && b_owner(hi) == b_owner(lo)) ++hi;
    panels.emplace_back(lo, hi);
    lo = hi;
  }
  return panels;
}

/// C += A_panel · B_panel for a rows x cols block of C (row i at c + i * c_stride), an A panel of
/// rows x w and a B panel of w x cols, both packed row-major. Every C(i, j) accumulates its terms
/// in increasing k, as the serial product does.
inline void add_panel_product(double* c, index_t c_stride, index_t rows, index_t cols, index_t w,
                              const double* a_panel, const double* b_panel) {
  for (index_t i = 0; i < rows; ++i) {
    double* crow = c + i * c_stride;
    for (index_t t = 0; t < w; ++t) {
      const double aik = a_panel[i * w + t];
      const double* brow = b_panel + t * cols;
      for (index_t j = 0; j < cols; ++j) crow[j] += aik * brow[j];
    }
  }
}

/// The serial product C = A B of the matrices above (m x n, row-major), each entry summed in
/// increasing k.
inline std::vector<double> serial_product(index_t m, index_t n, index_t k) {
  std::vector<double> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t t = 0; t < k; ++t) a[static_cast<std::size_t>(i * k + t)] = a_value(i, t);
  for (index_t t = 0; t < k; ++t)
    for (index_t j = 0; j < n; ++j) b[static_cast<std::size_t>(t * n + j)] = b_value(t, j);
  add_panel_product(c.data(), n, m, n, k, a.data(), b.data());
  return c;
}

/// How a gathered C compares with the serial product `want` (both row-major, same shape).
struct Check {
  double relative = 0.0;  ///< max |C - want| / max |want|
  index_t differing = 0;  ///< entries that are not bit-equal
};

inline Check compare(const std::vector<double>& c, const std::vector<double>& want) {
  double max_diff = 0.0, max_ref = 0.0;
  Check out;
  for (std::size_t e = 0; e < want.size(); ++e) {
    max_diff = std::max(max_diff, std::abs(c[e] - want[e]));
    max_ref = std::max(max_ref, std::abs(want[e]));
    out.differing += c[e] != want[e];
  }
  out.relative = max_ref > 0.0 ? max_diff / max_ref : max_diff;
  return out;
}

}  // namespace summa
