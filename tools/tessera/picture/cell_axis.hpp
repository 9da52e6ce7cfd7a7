#pragma once
// One axis of a picture: the indices along one dimension cut into at most K display cells, plus
// optional margins outside the domain where a rank's ghost layers lie.
#include <cstdint>
#include <vector>

#include "tessera/core/index.hpp"

namespace tessera_tool {

using tessera::index_t;

/// The cells of one displayed axis. Cell k covers the indices `[edges[k], edges[k+1])`; the cells
/// inside the domain `[lo, hi)` are as even as integer division allows, and the margin cells below
/// lo and above hi (ghost layers outside the domain) never straddle a domain edge.
struct CellAxis {
  int dim = -1;  ///< the dimension shown along this axis; -1 for the single row of a 1-D picture
  index_t lo = 0, hi = 0;      ///< the domain along `dim`
  std::vector<index_t> edges;  ///< cells + 1 increasing boundaries

  [[nodiscard]] int cells() const noexcept { return static_cast<int>(edges.size()) - 1; }
  [[nodiscard]] index_t first(int k) const { return edges[static_cast<std::size_t>(k)]; }
  [[nodiscard]] index_t end(int k) const { return edges[static_cast<std::size_t>(k) + 1]; }
  [[nodiscard]] bool inside(int k) const { return first(k) >= lo && end(k) <= hi; }
  /// True if some cell holds more than one index (the picture is downsampled along this axis).
  [[nodiscard]] bool downsampled() const noexcept;
  /// Smallest and largest number of indices in one cell inside the domain.
  [[nodiscard]] index_t min_cell_width() const noexcept;
  [[nodiscard]] index_t max_cell_width() const noexcept;
  /// The cell holding index i, or -1 if i lies outside every cell.
  [[nodiscard]] int cell_of(index_t i) const noexcept;
};

/// The axis of dimension `dim` over `[lo, hi)` in at most `max_cells` cells, with `margin_below`
/// and `margin_above` indices of margin (each in at most max(1, max_cells / 16) cells).
[[nodiscard]] CellAxis make_cell_axis(int dim, index_t lo, index_t hi, index_t margin_below, index_t margin_above,
                                      int max_cells);

/// The single row of a 1-D picture: one cell standing for "every index of the other axis".
[[nodiscard]] CellAxis single_row_axis();

}  // namespace tessera_tool
