#include "picture/cell_axis.hpp"

#include <algorithm>

namespace tessera_tool {
namespace {

// Appends the cells of [lo, hi) cut into `cells` near-equal parts: edge k is lo + floor(n k / cells),
// computed as q k + floor(r k / cells) with n = q cells + r, since n k overflows 64 bits for
// extents near 10^18.
void append_even_cells(std::vector<index_t>& edges, index_t lo, index_t hi, index_t cells) {
  const index_t n = hi - lo, q = n / cells, r = n % cells;
  for (index_t k = 1; k <= cells; ++k) edges.push_back(lo + q * k + r * k / cells);
}

}  // namespace

bool CellAxis::downsampled() const noexcept { return max_cell_width() > 1; }

index_t CellAxis::min_cell_width() const noexcept {
  index_t w = 0;
  bool any = false;
  for (int k = 0; k < cells(); ++k)
    if (inside(k)) w = any ? std::min(w, end(k) - first(k)) : end(k) - first(k), any = true;
  return w;
}

index_t CellAxis::max_cell_width() const noexcept {
  index_t w = 0;
  for (int k = 0; k < cells(); ++k)
    if (inside(k)) w = std::max(w, end(k) - first(k));
  return w;
}

int CellAxis::cell_of(index_t i) const noexcept {
  const auto it = std::upper_bound(edges.begin(), edges.end(), i);
  if (it == edges.begin() || it == edges.end()) return -1;
  return static_cast<int>(it - edges.begin()) - 1;
}

CellAxis make_cell_axis(int dim, index_t lo, index_t hi, index_t margin_below, index_t margin_above, int max_cells) {
  CellAxis axis;
  axis.dim = dim;
  axis.lo = lo;
  axis.hi = hi;
  const index_t k = std::max(1, max_cells);
  const index_t margin_cells = std::max<index_t>(1, k / 16);
  axis.edges.push_back(lo - margin_below);
  if (margin_below > 0) append_even_cells(axis.edges, lo - margin_below, lo, std::min(margin_below, margin_cells));
  if (hi > lo) append_even_cells(axis.edges, lo, hi, std::min(hi - lo, k));
  if (margin_above > 0) append_even_cells(axis.edges, hi, hi + margin_above, std::min(margin_above, margin_cells));
  return axis;
}

CellAxis single_row_axis() {
  CellAxis axis;
  axis.edges = {0, 1};
  axis.hi = 1;
  return axis;
}

}  // namespace tessera_tool
