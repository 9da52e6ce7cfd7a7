#include "picture/show_text.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace tessera_tool {
namespace {

// Built with a stream: GCC 12 warns (-Wrestrict, a false positive) on "[" + std::to_string(...).
std::string axis_text(const CellAxis& axis) {
  std::ostringstream out;
  out << "dimension " << axis.dim << " [" << axis.lo << "," << axis.hi << ")";
  if (axis.downsampled()) {
    const index_t lo = axis.min_cell_width(), hi = axis.max_cell_width();
    out << " in cells of " << lo;
    if (hi != lo) out << "-" << hi;
    out << " indices";
  }
  return out.str();
}

// Labels above the columns: the first index of each column where the owner changes in some row
// (every 10th column when it never does), left to right wherever the label fits.
std::string column_ruler(const OwnerPicture& pic, std::size_t indent) {
  std::vector<int> marked{0};
  for (int c = 1; c < pic.cols.cells(); ++c)
    for (int r = 0; r < pic.rows.cells(); ++r)
      if (pic.owner_at(r, c) != pic.owner_at(r, c - 1) && pic.in_domain(r, c) && pic.in_domain(r, c - 1)) {
        marked.push_back(c);
        break;
      }
  if (marked.size() == 1)
    for (int c = 10; c < pic.cols.cells(); c += 10) marked.push_back(c);
  std::string line(indent, ' ');
  for (int c : marked) {
    const std::string label = std::to_string(pic.cols.first(c));
    const std::size_t at = indent + static_cast<std::size_t>(c);
    if (line.size() > at) continue;  // the previous label runs into this column
    line.resize(at, ' ');
    line += label + " ";
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

template <class CellChar>
void draw_map(std::ostringstream& out, const OwnerPicture& pic, CellChar cell_char) {
  std::size_t label_width = 0;
  if (!pic.one_dimensional())
    for (int r = 0; r < pic.rows.cells(); ++r)
      label_width = std::max(label_width, std::to_string(pic.rows.first(r)).size());
  const std::size_t indent = pic.one_dimensional() ? 2 : label_width + 3;
  if (pic.cols.cells() > 0) out << column_ruler(pic, indent) << '\n';
  for (int r = 0; r < pic.rows.cells(); ++r) {
    std::string label = pic.one_dimensional() ? "" : std::to_string(pic.rows.first(r));
    std::string line = std::string(indent > label.size() + 1 ? indent - 1 - label.size() : 0, ' ') + label + ' ';
    for (int c = 0; c < pic.cols.cells(); ++c) line += cell_char(r, c);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

char mark_char(CellMark m) {
  switch (m) {
    case CellMark::owned:
      return '#';
    case CellMark::ghost_filled:
      return '+';
    case CellMark::ghost_unfilled:
      return '-';
    default:
      return '.';
  }
}

}  // namespace

std::string sampling_text(const OwnerPicture& pic, const char* unit) {
  if (!pic.downsampled()) return std::string("one ") + unit + " per index";
  return std::string("one ") + unit + " per cell; each cell shows " +
         (pic.rule == CellOwnerRule::majority ? "the rank owning most of its indices (ties: the lowest rank)"
                                              : "the owner of its first index");
}

std::string render_text(const OwnerPicture& pic) {
  std::ostringstream out;
  out << "spec: " << pic.spec_text << '\n';
  out << "distribution: " << pic.distribution_text << " on " << pic.ranks << " rank" << (pic.ranks == 1 ? "" : "s")
      << ", " << pic.indices << " indices\n";
  if (!pic.slice_text.empty()) out << "slice: " << pic.slice_text << '\n';
  if (pic.one_dimensional()) {
    out << "view: " << axis_text(pic.cols) << "; " << sampling_text(pic, "character") << '\n';
  } else {
    out << "view: rows = " << axis_text(pic.rows) << ", columns = " << axis_text(pic.cols) << "; "
        << sampling_text(pic, "character") << '\n';
  }
  if (pic.ranks > 62) out << "(rank characters repeat every 62 ranks: rank r is drawn as rank r mod 62)\n";
  out << '\n';
  draw_map(out, pic, [&](int r, int c) {
    const int owner = pic.owner_at(r, c);
    return owner == outside_domain ? ' ' : owner == no_owner ? hole_char : rank_char(owner);
  });
  if (pic.any_hole()) out << hole_char << " a hole: indices no rank owns\n";

  out << "\nrank char indices owns\n";
  const int listed = std::min(pic.ranks, max_listed_ranks);
  for (int rank = 0; rank < listed; ++rank) {
    char row[64];
    std::snprintf(row, sizeof row, "%4d %4c %7lld ", rank, rank_char(rank),
                  static_cast<long long>(pic.owned_count[static_cast<std::size_t>(rank)]));
    out << row << pic.owned_summary[static_cast<std::size_t>(rank)] << '\n';
  }
  if (listed < pic.ranks) out << "(" << pic.ranks - listed << " more ranks not listed)\n";

  if (pic.box_count > 0) {
    out << '\n' << pic.box_count << " box" << (pic.box_count == 1 ? "" : "es")
        << (pic.slice_text.empty() ? "" : " meet the slice") << "\n  box rank extent\n";
    const std::size_t shown = std::min(pic.boxes.size(), max_listed_boxes);
    for (std::size_t k = 0; k < shown; ++k) {
      char row[48];
      std::snprintf(row, sizeof row, "%5zu %4d ", pic.boxes[k].index, pic.boxes[k].rect.rank);
      out << row << pic.boxes[k].text << '\n';
    }
    if (shown < pic.box_count) out << "(" << pic.box_count - shown << " more boxes not listed)\n";
  }

  if (pic.chosen_rank >= 0) {
    out << "\nrank " << pic.chosen_rank << (pic.ghost_text.empty() ? " (no ghost layers)" : " with " + pic.ghost_text)
        << ":\n  # owned   + ghost filled by update_ghosts   - ghost never filled (beyond a non-periodic edge)   . other\n";
    draw_map(out, pic, [&](int r, int c) {
      const CellMark m = pic.mark_at(r, c);
      return m == CellMark::other && !pic.in_domain(r, c) ? ' ' : mark_char(m);
    });
  }
  return out.str();
}

}  // namespace tessera_tool
