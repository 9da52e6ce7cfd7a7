#pragma once
// What `tessera show` draws, computed once from a distribution and rendered twice (terminal text
// and SVG): a 2-D grid of display cells, each with the rank that owns it, the boxes each rank owns
// (for labels), and optionally the ghost region of one chosen rank. No templates here: the
// renderers do not depend on the number of dimensions.
#include <cstdint>
#include <string>
#include <vector>

#include "picture/cell_axis.hpp"

namespace tessera_tool {

/// How a display cell holding several indices gets its colour.
enum class CellOwnerRule {
  majority,     ///< the rank owning most of the cell's indices (ties: the lowest rank)
  first_index,  ///< the owner of the cell's first index (cheaper; aliases cyclic patterns)
};

/// What a cell is to the chosen rank of a ghost overlay.
enum class CellMark : std::uint8_t {
  other,           ///< neither owned by the rank nor one of its ghosts
  owned,           ///< owned by the rank
  ghost_filled,    ///< a ghost of the rank that update_ghosts fills
  ghost_unfilled,  ///< a ghost stored by the rank that nothing fills (beyond a non-periodic edge)
};

/// `OwnerPicture::owner` of a cell outside the domain (a margin for the chosen rank's ghosts).
inline constexpr int outside_domain = -1;
/// `OwnerPicture::owner` of a cell of the domain that no rank owns, or mostly not (a hole of a box set).
inline constexpr int no_owner = -2;

/// A box a rank owns, projected onto the picture's two axes (index coordinates, half-open).
struct OwnedRect {
  int rank = 0;
  index_t row_lo = 0, row_hi = 1, col_lo = 0, col_hi = 1;
};

/// A box of a box-set distribution that meets the slice: its index in the set, its owner, its
/// rectangle on the picture's axes and its extent in words (`[0,8)x[4,12)`), for outlines and labels.
struct BoxRect {
  std::size_t index = 0;
  OwnedRect rect;
  std::string text;
};

/// Everything the renderers need.
struct OwnerPicture {
  std::string spec_text;          ///< canonical spec
  std::string distribution_text;  ///< `grid 2x3, [cut(0,2,6), block]`
  std::string ghost_text;         ///< the ghost spec as the library prints it; empty for none
  int ranks = 0;                  ///< ranks the distribution is laid out on (skeletons included)
  index_t indices = 0;            ///< indices in the whole domain
  std::vector<index_t> owned_count;         ///< per rank, in the whole domain
  std::vector<std::string> owned_summary;   ///< per rank: its box, or its sections (cut short)
  std::string slice_text;                   ///< for 3-D: `dimension 0 = 5`; empty otherwise
  CellAxis rows, cols;                      ///< rows: the slower dimension shown; 1-D: a single row
  CellOwnerRule rule = CellOwnerRule::majority;
  /// rows.cells() x cols.cells(), row-major: a rank, `outside_domain` or `no_owner` (a hole).
  std::vector<int> owner;
  /// Majority rule only, per cell: the rank owning the second most of it where the ranks'
  /// indices interleave (-1 otherwise), and the share of the cell the owner holds, so that the SVG
  /// can show mixed cells as mixed.
  std::vector<int> second_owner;
  std::vector<float> owner_share;
  std::vector<OwnedRect> rects;             ///< owned boxes in the slice (or one per rank, see below)
  bool rects_cut_short = false;             ///< too many boxes: only each rank's first box is listed
  /// A box-set distribution's boxes that meet the slice, in the set's order (the first
  /// `max_labelled_rects`; `box_count` says how many meet it). Empty for other distributions.
  std::vector<BoxRect> boxes;
  std::size_t box_count = 0;                ///< boxes of the box set meeting the slice
  [[nodiscard]] bool boxes_cut_short() const noexcept { return boxes.size() < box_count; }

  int chosen_rank = -1;        ///< the rank whose ghost region is shown; -1 for none
  std::vector<CellMark> marks; ///< per cell, when chosen_rank >= 0

  [[nodiscard]] int owner_at(int row, int col) const {
    return owner[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols.cells()) + static_cast<std::size_t>(col)];
  }
  [[nodiscard]] std::size_t cell_index(int row, int col) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols.cells()) + static_cast<std::size_t>(col);
  }
  /// True if the ranks' indices interleave in the cell and its owner holds less than 3/4 of it
  /// (cyclic distributions seen at a coarse resolution).
  [[nodiscard]] bool mixed(int row, int col) const {
    if (second_owner.empty()) return false;
    const std::size_t i = cell_index(row, col);
    return second_owner[i] >= 0 && owner_share[i] < 0.75f;
  }
  [[nodiscard]] CellMark mark_at(int row, int col) const {
    return marks[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols.cells()) + static_cast<std::size_t>(col)];
  }
  /// True if the cell lies in the domain (owned or a hole).
  [[nodiscard]] bool in_domain(int row, int col) const { return owner_at(row, col) != outside_domain; }
  /// True if some cell is a hole (`no_owner`).
  [[nodiscard]] bool any_hole() const noexcept {
    for (int o : owner)
      if (o == no_owner) return true;
    return false;
  }
  [[nodiscard]] bool downsampled() const noexcept { return rows.downsampled() || cols.downsampled(); }
  [[nodiscard]] bool one_dimensional() const noexcept { return rows.dim < 0; }
};

/// The character of a hole (a cell no rank owns) in the terminal map.
inline constexpr char hole_char = '.';
/// The character of a rank in the terminal map: 0-9, a-z, A-Z, repeating after 62 ranks.
[[nodiscard]] char rank_char(int rank) noexcept;
/// The fill colour of a rank in the SVG: 12 light qualitative colours, then hues spaced by the
/// golden angle so that neighbouring ranks differ.
[[nodiscard]] std::string rank_colour(int rank);

}  // namespace tessera_tool
