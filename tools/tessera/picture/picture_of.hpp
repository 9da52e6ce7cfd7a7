#pragma once
// Builds the OwnerPicture of an N-d distribution: a 2-D view (the whole domain for 1-D and 2-D, one
// slice for 3-D) cut into at most K cells per axis, each coloured by its owner, with the owned
// boxes for labels and the ghost region of a chosen rank. Uses only the layout and plan layers, so
// any rank of any distribution can be drawn without MPI.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "exit_status.hpp"
#include "picture/owner_picture.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera_tool {

/// What to draw.
struct PictureOptions {
  int max_cells = 64;                              ///< cells per axis at most
  CellOwnerRule rule = CellOwnerRule::majority;    ///< colour of a cell holding several indices
  int chosen_rank = -1;                            ///< rank whose ghost region is shaded; -1: none
  std::optional<std::pair<int, index_t>> slice;    ///< 3-D: (dimension, index) of the slice shown
  /// Outline, label and list a box set's boxes (off for a multiblock embedding, whose boxes are
  /// the blocks' pieces rather than boxes the user gave).
  bool list_boxes = true;
};

/// Owned boxes listed for labels before the picture gives up and labels each rank once.
inline constexpr std::size_t max_labelled_rects = 4096;

namespace picture_detail {

/// The dimensions shown along rows and columns, and the slice (dimension, index) for 3-D.
struct ViewDims {
  int row_dim = -1, col_dim = 0;
  int slice_dim = -1;
  index_t slice_index = 0;
};

template <std::size_t N>
ViewDims choose_view(const tessera::Box<N>& domain, const PictureOptions& opt) {
  ViewDims v;
  if constexpr (N == 1) {
    if (opt.slice) throw UsageError("--slice: the spec has 1 dimension; a slice is taken of a 3-D spec");
    v.col_dim = 0;
  } else if constexpr (N == 2) {
    if (opt.slice) throw UsageError("--slice: the spec has 2 dimensions; a slice is taken of a 3-D spec");
    v.row_dim = 0;
    v.col_dim = 1;
  } else {
    v.slice_dim = opt.slice ? opt.slice->first : 0;
    if (v.slice_dim < 0 || v.slice_dim >= static_cast<int>(N))
      throw UsageError("--slice: dimension " + std::to_string(v.slice_dim) + " does not exist (0.." +
                       std::to_string(N - 1) + ")");
    const auto s = static_cast<std::size_t>(v.slice_dim);
    v.slice_index = opt.slice ? opt.slice->second : domain.lo[s];
    if (v.slice_index < domain.lo[s] || v.slice_index >= domain.hi[s])
      throw UsageError("--slice: index " + std::to_string(v.slice_index) + " is outside dimension " +
                       std::to_string(v.slice_dim) + " of the domain, [" + std::to_string(domain.lo[s]) + ", " +
                       std::to_string(domain.hi[s]) + ")");
    std::array<int, 2> shown{};
    std::size_t k = 0;
    for (int d = 0; d < static_cast<int>(N); ++d)
      if (d != v.slice_dim) shown[k++] = d;
    v.row_dim = shown[0];
    v.col_dim = shown[1];
  }
  return v;
}

/// The box of the cell (row, col); the slice dimension is pinned to the slice index.
template <std::size_t N>
tessera::Box<N> cell_box(const OwnerPicture& pic, const ViewDims& v, int row, int col) {
  tessera::Box<N> b;
  if (v.row_dim >= 0) {
    b.lo[static_cast<std::size_t>(v.row_dim)] = pic.rows.first(row);
    b.hi[static_cast<std::size_t>(v.row_dim)] = pic.rows.end(row);
  }
  b.lo[static_cast<std::size_t>(v.col_dim)] = pic.cols.first(col);
  b.hi[static_cast<std::size_t>(v.col_dim)] = pic.cols.end(col);
  if (v.slice_dim >= 0) {
    b.lo[static_cast<std::size_t>(v.slice_dim)] = v.slice_index;
    b.hi[static_cast<std::size_t>(v.slice_dim)] = v.slice_index + 1;
  }
  return b;
}

/// Who owns a cell: its owner by the picture's rule and, for the majority rule, the owner's share
/// and, when the ranks' indices interleave in the cell (some rank's part of it is not one box, as
/// under cyclic kinds seen coarsely), the runner-up. A cell that merely straddles a block boundary
/// has no runner-up: it is the boundary, drawn at the cell's edge.
struct CellOwners {
  int owner = -1, second = -1;
  float share = 1;
};

/// The owners of a cell inside the domain, by the picture's rule. Where the distribution leaves
/// holes (a box set), the indices no rank owns compete as `no_owner`, losing ties to a rank.
template <std::size_t N>
CellOwners cell_owners(const tessera::Distribution<N>& dist, const tessera::Box<N>& cell, CellOwnerRule rule) {
  if (rule == CellOwnerRule::first_index || tessera::volume(cell) == 1) {
    if (dist.covers_domain()) return {dist.owner(cell.lo), -1, 1};
    tessera::Box<N> first{cell.lo, cell.lo};
    for (std::size_t d = 0; d < N; ++d) first.hi[d] = cell.lo[d] + 1;
    const auto held = dist.pieces(first);
    return {held.empty() ? no_owner : held.front().rank, -1, 1};
  }
  std::vector<std::pair<int, index_t>> count;  // few ranks meet in one cell: a flat list is enough
  std::vector<std::pair<int, index_t>> boxes;  // per rank: boxes its part of the cell splits into
  for (const auto& piece : dist.pieces(cell)) {
    auto it = std::find_if(count.begin(), count.end(), [&](const auto& c) { return c.first == piece.rank; });
    if (it == count.end()) {
      it = count.insert(count.end(), {piece.rank, 0});
      boxes.push_back({piece.rank, 0});
    }
    it->second += tessera::volume(piece.section);
    index_t runs = 1;
    for (const auto& axis : piece.section.dim) runs = std::min<index_t>(runs * axis.run_count, 2);
    boxes[static_cast<std::size_t>(it - count.begin())].second += runs;
  }
  index_t held = 0;
  for (const auto& c : count) held += c.second;
  const index_t holes = dist.covers_domain() ? 0 : tessera::volume(cell) - held;
  if (count.empty() || holes > std::max_element(count.begin(), count.end(), [](const auto& a, const auto& b) {
                                  return a.second < b.second;
                                })->second)
    return {no_owner, -1, static_cast<float>(static_cast<double>(holes) / static_cast<double>(tessera::volume(cell)))};
  const bool interleaved = std::any_of(boxes.begin(), boxes.end(), [](const auto& b) { return b.second > 1; });
  // Most indices first; ties to the lowest rank.
  std::sort(count.begin(), count.end(),
            [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  CellOwners out;
  out.owner = count.front().first;
  out.second = interleaved && count.size() > 1 ? count[1].first : -1;
  out.share = static_cast<float>(static_cast<double>(count.front().second) / static_cast<double>(tessera::volume(cell)));
  return out;
}

/// Number of boxes section `s` splits into within the slice (a product of run counts).
template <std::size_t N>
index_t boxes_in_slice(const tessera::Section<N>& s, const ViewDims& v) {
  index_t count = 1;
  for (std::size_t d = 0; d < N; ++d) {
    if (static_cast<int>(d) == v.slice_dim) {
      if (!tessera::contains(s.dim[d], v.slice_index)) return 0;
      continue;
    }
    count = std::min<index_t>(count * s.dim[d].run_count, index_t{1} << 40);
  }
  return count;
}

/// Appends the boxes of `s` in the slice, projected on the picture's axes (at most `limit` boxes).
template <std::size_t N>
void append_rects(const tessera::Section<N>& s, int rank, const ViewDims& v, std::size_t limit,
                  std::vector<OwnedRect>& out) {
  const tessera::Section1 col = s.dim[static_cast<std::size_t>(v.col_dim)];
  const tessera::Section1 row = v.row_dim >= 0 ? s.dim[static_cast<std::size_t>(v.row_dim)]
                                               : tessera::Section1::interval(0, 1);
  for (index_t i = 0; i < row.run_count; ++i)
    for (index_t j = 0; j < col.run_count; ++j) {
      if (out.size() >= limit) return;
      const index_t r0 = row.first + i * row.stride, c0 = col.first + j * col.stride;
      out.push_back({rank, r0, r0 + row.run_length, c0, c0 + col.run_length});
    }
}

/// The boxes of a box set that meet the slice (`pic.boxes`, `pic.box_count`): every box is
/// outlined and labelled with its index, so that a picture shows the set's boxes as well as whose
/// they are. Lists at most `max_labelled_rects` of them.
template <std::size_t N>
void list_boxes(const tessera::BoxSet<N>& set, const ViewDims& v, OwnerPicture& pic) {
  for (std::size_t i = 0; i < set.size(); ++i) {
    const tessera::Box<N>& b = set.box(i);
    if (v.slice_dim >= 0) {
      const auto s = static_cast<std::size_t>(v.slice_dim);
      if (v.slice_index < b.lo[s] || v.slice_index >= b.hi[s]) continue;
    }
    ++pic.box_count;
    if (pic.boxes.size() >= max_labelled_rects) continue;
    BoxRect r;
    r.index = i;
    r.rect.rank = set.owner(i);
    const auto c = static_cast<std::size_t>(v.col_dim);
    r.rect.col_lo = b.lo[c], r.rect.col_hi = b.hi[c];
    if (v.row_dim >= 0) {
      const auto w = static_cast<std::size_t>(v.row_dim);
      r.rect.row_lo = b.lo[w], r.rect.row_hi = b.hi[w];
    }
    std::ostringstream text;
    text << b;
    r.text = text.str();
    pic.boxes.push_back(std::move(r));
  }
}

/// A rank's owned set in words: its box, or its first sections.
template <std::size_t N>
std::string owned_summary(const tessera::Distribution<N>& dist, int rank) {
  std::ostringstream out;
  const auto sections = dist.owned_sections(rank);
  if (sections.empty()) return "nothing";
  const std::size_t shown = std::min<std::size_t>(sections.size(), 2);
  for (std::size_t k = 0; k < shown; ++k) out << (k ? " " : "") << sections[k];
  if (sections.size() > shown)
    out << " (+" << sections.size() - shown << " more section" << (sections.size() - shown == 1 ? ")" : "s)");
  return out.str();
}

/// The ghost marks of the chosen rank, per cell.
template <std::size_t N>
void mark_ghosts(const tessera::Distribution<N>& dist, const tessera::GhostSpec<N>& ghosts, const ViewDims& v,
                 OwnerPicture& pic) {
  const int rank = pic.chosen_rank;
  const auto owned = dist.owned_sections(rank);
  std::vector<tessera::Section<N>> stored_ghosts, filled;
  if (!ghosts.none()) {
    const auto layout = tessera::StorageLayout<N>::make(dist, rank, ghosts);
    for (const auto& patch : layout.patches())
      for (const auto& ghost : tessera::detail::ghost_boxes(patch.owned_box(), ghosts))
        for (const auto& section : tessera::detail::ghost_sections(ghost, patch)) stored_ghosts.push_back(section);
    const auto plan = tessera::halo_plan(dist, ghosts, rank);
    for (const auto& copy : plan.copies())
      if (copy.dst_rank == rank) filled.push_back(copy.dst);
  }
  const auto meets = [](const std::vector<tessera::Section<N>>& sections, const tessera::Box<N>& box) {
    return std::any_of(sections.begin(), sections.end(),
                       [&](const tessera::Section<N>& s) { return !tessera::intersect(s, box).empty(); });
  };
  pic.marks.assign(pic.owner.size(), CellMark::other);
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c) {
      const auto box = cell_box<N>(pic, v, r, c);
      CellMark m = CellMark::other;
      if (meets(filled, box)) {
        m = CellMark::ghost_filled;
      } else if (meets(stored_ghosts, box)) {
        m = CellMark::ghost_unfilled;
      } else if (meets(owned, box)) {
        m = CellMark::owned;
      }
      pic.marks[pic.cell_index(r, c)] = m;
    }
}

}  // namespace picture_detail

/// The picture of `dist` (with the ghost layers `ghosts` of the chosen rank, if any). Throws
/// UsageError for a slice or rank that does not exist, `tessera::Error` for ghosts the
/// distribution cannot keep (along a cyclic dimension).
template <std::size_t N>
OwnerPicture picture_of(const tessera::Distribution<N>& dist, const tessera::GhostSpec<N>& ghosts,
                        const PictureOptions& opt) {
  using namespace picture_detail;
  const tessera::Box<N>& domain = dist.domain();
  const ViewDims v = choose_view(domain, opt);
  OwnerPicture pic;
  pic.ranks = dist.comm_size();
  pic.rule = opt.rule;
  pic.chosen_rank = opt.chosen_rank;
  if (opt.chosen_rank >= pic.ranks)
    throw UsageError("--rank: rank " + std::to_string(opt.chosen_rank) + " does not exist; the spec is laid out on " +
                     std::to_string(pic.ranks) + " ranks (0.." + std::to_string(pic.ranks - 1) + ")");
  {
    std::ostringstream text;
    text << dist;
    pic.distribution_text = text.str();
    if (!ghosts.none()) {
      std::ostringstream g;
      g << ghosts;
      pic.ghost_text = g.str();
    }
  }
  if (v.slice_dim >= 0)
    pic.slice_text = "dimension " + std::to_string(v.slice_dim) + " = " + std::to_string(v.slice_index);
  pic.indices = tessera::volume(domain);

  // A margin for the chosen rank's ghost layers that lie outside the domain.
  const bool margins = opt.chosen_rank >= 0 && !ghosts.none();
  const auto axis_for = [&](int d) {
    const auto u = static_cast<std::size_t>(d);
    return make_cell_axis(d, domain.lo[u], domain.hi[u], margins ? ghosts.lower[u] : 0, margins ? ghosts.upper[u] : 0,
                          opt.max_cells);
  };
  pic.rows = v.row_dim >= 0 ? axis_for(v.row_dim) : single_row_axis();
  pic.cols = axis_for(v.col_dim);

  const std::size_t cells = static_cast<std::size_t>(pic.rows.cells()) * static_cast<std::size_t>(pic.cols.cells());
  pic.owner.assign(cells, outside_domain);
  if (opt.rule == CellOwnerRule::majority) {
    pic.second_owner.assign(cells, -1);
    pic.owner_share.assign(cells, 1.0f);
  }
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c) {
      if ((v.row_dim >= 0 && !pic.rows.inside(r)) || !pic.cols.inside(c)) continue;
      const CellOwners who = cell_owners(dist, cell_box<N>(pic, v, r, c), opt.rule);
      const std::size_t i = pic.cell_index(r, c);
      pic.owner[i] = who.owner;
      if (opt.rule == CellOwnerRule::majority) {
        pic.second_owner[i] = who.second;
        pic.owner_share[i] = who.share;
      }
    }

  // Per rank: how much it owns, in words, and its boxes in the slice (for labels).
  std::vector<std::vector<tessera::Section<N>>> sections(static_cast<std::size_t>(pic.ranks));
  index_t boxes = 0;
  for (int rank = 0; rank < pic.ranks; ++rank) {
    pic.owned_count.push_back(dist.local_size(rank));
    pic.owned_summary.push_back(owned_summary(dist, rank));
    sections[static_cast<std::size_t>(rank)] = dist.owned_sections(rank);
    for (const auto& s : sections[static_cast<std::size_t>(rank)])
      boxes = std::min<index_t>(boxes + boxes_in_slice(s, v), index_t{1} << 40);
  }
  pic.rects_cut_short = boxes > static_cast<index_t>(max_labelled_rects);
  for (int rank = 0; rank < pic.ranks; ++rank)
    for (const auto& s : sections[static_cast<std::size_t>(rank)]) {
      if (boxes_in_slice(s, v) == 0) continue;
      append_rects(s, rank, v, pic.rects_cut_short ? pic.rects.size() + 1 : max_labelled_rects, pic.rects);
      if (pic.rects_cut_short) break;  // one box per rank
    }

  if (const tessera::BoxSet<N>* set = dist.box_set(); set && opt.list_boxes) list_boxes(*set, v, pic);

  if (opt.chosen_rank >= 0) mark_ghosts(dist, ghosts, v, pic);
  return pic;
}

}  // namespace tessera_tool
