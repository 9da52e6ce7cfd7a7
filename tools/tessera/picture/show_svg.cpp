#include "picture/show_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "picture/show_text.hpp"
#include "svg/svg_chart.hpp"

namespace tessera_tool {
namespace {

// Page layout, in pixels.
constexpr double left = 80, top = 96, legend_width = 230, bottom_pad = 30;
constexpr double drawing_size = 720;  // the longer axis of the cell grid is about this long

// Where index i falls along an axis drawn from `origin` with `px` pixels per cell: cells are
// uniform on the page but not in indices, so interpolate within the cell holding i.
double pixel_of(const CellAxis& a, index_t i, double origin, double px) {
  if (i <= a.edges.front()) return origin;
  if (i >= a.edges.back()) return origin + a.cells() * px;
  const int k = a.cell_of(i);
  const double frac = static_cast<double>(i - a.first(k)) / static_cast<double>(a.end(k) - a.first(k));
  return origin + (k + frac) * px;
}

struct Geometry {
  double cw = 0, ch = 0;  // cell width and height
  double x(int col) const { return left + col * cw; }
  double y(int row) const { return top + row * ch; }
};

// Index values to label along an axis: the domain ends and the owned boxes' edges, thinned so that
// labels stay `spacing` pixels apart.
std::vector<index_t> ticks(const CellAxis& axis, std::vector<index_t> values, double origin, double px,
                           double spacing) {
  values.push_back(axis.lo);
  values.push_back(axis.hi);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<index_t> out;
  double last = -1e9;
  for (index_t v : values) {
    if (v < axis.lo || v > axis.hi) continue;
    const double p = pixel_of(axis, v, origin, px);
    if (p - last < spacing) {
      // Too close to the previous label. The domain's high end wins over an inner boundary.
      if (v != axis.hi || out.size() < 2) continue;
      out.pop_back();
    }
    out.push_back(v);
    last = p;
  }
  return out;
}

// What a cell shows: its owner, or for a mixed cell the pair of its two largest owners.
std::pair<int, int> cell_key(const OwnerPicture& pic, int r, int c) {
  const int owner = pic.owner_at(r, c);
  if (!pic.mixed(r, c)) return {owner, -1};
  const int second = pic.second_owner[pic.cell_index(r, c)];
  return {std::min(owner, second), std::max(owner, second)};
}

std::string fill_of(const std::pair<int, int>& key) {
  if (key.first == no_owner) return "url(#hole)";
  if (key.first < 0) return "#ffffff";
  if (key.second < 0) return rank_colour(key.first);
  return "url(#mix-" + std::to_string(key.first) + "-" + std::to_string(key.second) + ")";
}

void cells(std::ostringstream& out, const OwnerPicture& pic, const Geometry& g) {
  // Stripes in two ranks' colours for the mixed cells, one pattern per pair that occurs.
  std::vector<std::pair<int, int>> pairs;
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c)
      if (const auto key = cell_key(pic, r, c); key.second >= 0) pairs.push_back(key);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  // Holes: grey cross-hatching on white, unlike any rank's flat colour.
  if (pic.any_hole())
    out << "<defs><pattern id='hole' width='8' height='8' patternUnits='userSpaceOnUse'><rect width='8' height='8' "
           "fill='#fff'/><path d='M0 8L8 0M0 0L8 8' stroke='#999' stroke-width='1'/></pattern></defs>\n";
  if (!pairs.empty()) {
    out << "<defs>";
    for (const auto& [a, b] : pairs)
      out << "<pattern id='mix-" << a << '-' << b << "' width='8' height='8' patternUnits='userSpaceOnUse' "
          << "patternTransform='rotate(45)'><rect width='4' height='8' fill='" << rank_colour(a) << "'/><rect x='4' "
          << "width='4' height='8' fill='" << rank_colour(b) << "'/></pattern>";
    out << "</defs>\n";
  }
  // One rectangle per run of equal cells along a row keeps the file small.
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells();) {
      const auto key = cell_key(pic, r, c);
      int end = c + 1;
      while (end < pic.cols.cells() && cell_key(pic, r, end) == key) ++end;
      out << "<rect x='" << g.x(c) << "' y='" << g.y(r) << "' width='" << (end - c) * g.cw << "' height='" << g.ch
          << "' fill='" << fill_of(key) << "'/>\n";
      c = end;
    }
}

bool any_mixed(const OwnerPicture& pic) {
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c)
      if (pic.mixed(r, c)) return true;
  return false;
}

// Thin lines between all cells when each is big enough to see, then darker lines wherever the
// owner changes: the boundaries of the distribution.
template <class Differs>
std::string edges_path(const OwnerPicture& pic, const Geometry& g, Differs differs) {
  std::ostringstream d;
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c) {
      if (c + 1 < pic.cols.cells() && differs(r, c, r, c + 1)) d << 'M' << g.x(c + 1) << ' ' << g.y(r) << 'v' << g.ch;
      if (r + 1 < pic.rows.cells() && differs(r, c, r + 1, c)) d << 'M' << g.x(c) << ' ' << g.y(r + 1) << 'h' << g.cw;
    }
  return d.str();
}

void grid_lines(std::ostringstream& out, const OwnerPicture& pic, const Geometry& g) {
  // Thin lines between cells of the domain and of the chosen rank's ghost layers, not across the
  // empty margin.
  const auto drawn = [&](int r, int c) {
    return pic.in_domain(r, c) || (pic.chosen_rank >= 0 && pic.mark_at(r, c) != CellMark::other);
  };
  if (!pic.downsampled() && std::min(g.cw, g.ch) >= 10) {
    const auto all = edges_path(pic, g, [&](int r0, int c0, int r1, int c1) { return drawn(r0, c0) || drawn(r1, c1); });
    if (!all.empty()) out << "<path d='" << all << "' stroke='#000' stroke-opacity='0.12' stroke-width='1'/>\n";
  }
  // Between two mixed cells only where they share no rank: at a coarse resolution the runner-up
  // of a cell flips with the parity of its width, which is not a boundary of the distribution.
  const auto boundaries = edges_path(pic, g, [&](int r0, int c0, int r1, int c1) {
    const auto a = cell_key(pic, r0, c0), b = cell_key(pic, r1, c1);
    if (a == b) return false;
    if (a.second < 0 || b.second < 0) return true;
    return a.first != b.first && a.first != b.second && a.second != b.first && a.second != b.second;
  });
  if (!boundaries.empty()) out << "<path d='" << boundaries << "' stroke='#222' stroke-width='1.5'/>\n";
  // The domain's outline (the margins for ghost layers lie outside it).
  const double x0 = pixel_of(pic.cols, pic.cols.lo, left, g.cw), x1 = pixel_of(pic.cols, pic.cols.hi, left, g.cw);
  const double y0 = pic.one_dimensional() ? top : pixel_of(pic.rows, pic.rows.lo, top, g.ch);
  const double y1 = pic.one_dimensional() ? top + g.ch : pixel_of(pic.rows, pic.rows.hi, top, g.ch);
  out << "<rect x='" << x0 << "' y='" << y0 << "' width='" << x1 - x0 << "' height='" << y1 - y0
      << "' fill='none' stroke='#000' stroke-width='2'/>\n";
}

void ghost_overlay(std::ostringstream& out, const OwnerPicture& pic, const Geometry& g) {
  if (pic.chosen_rank < 0) return;
  out << "<defs><pattern id='filled' width='6' height='6' patternUnits='userSpaceOnUse' "
         "patternTransform='rotate(45)'><rect width='6' height='6' fill='#000' fill-opacity='0.18'/>"
         "<line x1='0' y1='0' x2='0' y2='6' stroke='#000' stroke-width='2.2'/></pattern>"
         "<pattern id='unfilled' width='6' height='6' patternUnits='userSpaceOnUse' patternTransform='rotate(45)'>"
         "<line x1='0' y1='0' x2='0' y2='6' stroke='#777' stroke-width='1' stroke-dasharray='2 2'/></pattern></defs>\n";
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c) {
      const CellMark m = pic.mark_at(r, c);
      if (m != CellMark::ghost_filled && m != CellMark::ghost_unfilled) continue;
      out << "<rect x='" << g.x(c) << "' y='" << g.y(r) << "' width='" << g.cw << "' height='" << g.ch << "' fill='url(#"
          << (m == CellMark::ghost_filled ? "filled" : "unfilled") << ")'/>\n";
    }
  // The chosen rank's owned cells, outlined.
  const auto outline = edges_path(pic, g, [&](int r0, int c0, int r1, int c1) {
    return (pic.mark_at(r0, c0) == CellMark::owned) != (pic.mark_at(r1, c1) == CellMark::owned);
  });
  std::ostringstream border;  // owned cells on the picture's edge
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c) {
      if (pic.mark_at(r, c) != CellMark::owned) continue;
      if (c == 0) border << 'M' << g.x(0) << ' ' << g.y(r) << 'v' << g.ch;
      if (c + 1 == pic.cols.cells()) border << 'M' << g.x(c + 1) << ' ' << g.y(r) << 'v' << g.ch;
      if (r == 0) border << 'M' << g.x(c) << ' ' << g.y(0) << 'h' << g.cw;
      if (r + 1 == pic.rows.cells()) border << 'M' << g.x(c) << ' ' << g.y(r + 1) << 'h' << g.cw;
    }
  const std::string d = outline + border.str();
  if (!d.empty()) out << "<path d='" << d << "' stroke='#000' stroke-width='3.5' fill='none'/>\n";
}

// A rectangle's corners in pixels.
struct Pixels {
  double x0, x1, y0, y1;
};
Pixels pixels_of(const OwnerPicture& pic, const OwnedRect& rect, const Geometry& g) {
  return {pixel_of(pic.cols, rect.col_lo, left, g.cw), pixel_of(pic.cols, rect.col_hi, left, g.cw),
          pic.one_dimensional() ? top : pixel_of(pic.rows, rect.row_lo, top, g.ch),
          pic.one_dimensional() ? top + g.ch : pixel_of(pic.rows, rect.row_hi, top, g.ch)};
}

// Font size for `chars` characters across a rectangle `p` (0 when no legible size fits).
double label_size(const Pixels& p, std::size_t chars, double lines = 1) {
  const double size =
      std::clamp(std::min((p.y1 - p.y0) / lines, (p.x1 - p.x0) / (0.62 * static_cast<double>(chars))) * 0.6, 0.0, 22.0);
  return size < 8 ? 0 : size;
}

// A box set's boxes: each outlined (the owner colours alone merge neighbouring boxes of one rank)
// and labelled `#i` with its owner `rank r` under it where both fit, `#i` alone where only it does.
void box_outlines_and_labels(std::ostringstream& out, const OwnerPicture& pic, const Geometry& g) {
  std::ostringstream outline;
  for (const auto& b : pic.boxes) {
    const Pixels p = pixels_of(pic, b.rect, g);
    outline << 'M' << p.x0 << ' ' << p.y0 << 'H' << p.x1 << 'V' << p.y1 << 'H' << p.x0 << 'Z';
  }
  if (!pic.boxes.empty()) out << "<path d='" << outline.str() << "' fill='none' stroke='#333' stroke-width='1'/>\n";
  for (const auto& b : pic.boxes) {
    const Pixels p = pixels_of(pic, b.rect, g);
    const std::string name = "#" + std::to_string(b.index), owner = "rank " + std::to_string(b.rect.rank);
    const double cx = (p.x0 + p.x1) / 2, cy = (p.y0 + p.y1) / 2;
    if (const double two = label_size(p, std::max(name.size(), owner.size()), 2.4); two > 0) {
      out << "<text x='" << cx << "' y='" << cy - two * 0.2 << "' font-size='" << svg::number(two)
          << "' text-anchor='middle' font-weight='bold' fill='#111'>" << name << "</text>"
          << "<text x='" << cx << "' y='" << cy + two * 0.95 << "' font-size='" << svg::number(two * 0.8)
          << "' text-anchor='middle' fill='#111'>" << owner << "</text>\n";
    } else if (const double one = label_size(p, name.size()); one > 0) {
      out << "<text x='" << cx << "' y='" << cy + one * 0.36 << "' font-size='" << svg::number(one)
          << "' text-anchor='middle' font-weight='bold' fill='#111'>" << name << "</text>\n";
    }
  }
}

void labels(std::ostringstream& out, const OwnerPicture& pic, const Geometry& g) {
  if (!pic.boxes.empty() && !pic.boxes_cut_short()) return box_outlines_and_labels(out, pic, g);
  for (const auto& rect : pic.rects) {
    const Pixels p = pixels_of(pic, rect, g);
    const std::string text = std::to_string(rect.rank);
    const double size = label_size(p, text.size());
    if (size == 0) continue;  // no room: the legend still says which colour is which rank
    out << "<text x='" << (p.x0 + p.x1) / 2 << "' y='" << (p.y0 + p.y1) / 2 + size * 0.36 << "' font-size='"
        << svg::number(size) << "' text-anchor='middle' font-weight='bold' fill='#111'>" << text << "</text>\n";
  }
}

void axes(std::ostringstream& out, const OwnerPicture& pic, const Geometry& g) {
  std::vector<index_t> col_edges, row_edges;
  for (const auto& r : pic.rects) {
    col_edges.push_back(r.col_lo), col_edges.push_back(r.col_hi);
    row_edges.push_back(r.row_lo), row_edges.push_back(r.row_hi);
  }
  for (index_t v : ticks(pic.cols, col_edges, left, g.cw, 34)) {
    const double x = pixel_of(pic.cols, v, left, g.cw);
    out << "<line x1='" << x << "' x2='" << x << "' y1='" << top - 5 << "' y2='" << top << "' stroke='#000'/>"
        << "<text x='" << x << "' y='" << top - 8 << "' font-size='10' text-anchor='middle'>" << v << "</text>\n";
  }
  out << "<text x='" << left + pic.cols.cells() * g.cw / 2 << "' y='" << top - 24
      << "' font-size='11' text-anchor='middle'>dimension " << pic.cols.dim << " →</text>\n";
  if (pic.one_dimensional()) return;
  for (index_t v : ticks(pic.rows, row_edges, top, g.ch, 14)) {
    const double y = pixel_of(pic.rows, v, top, g.ch);
    out << "<line x1='" << left - 5 << "' x2='" << left << "' y1='" << y << "' y2='" << y << "' stroke='#000'/>"
        << "<text x='" << left - 8 << "' y='" << y + 3.5 << "' font-size='10' text-anchor='end'>" << v << "</text>\n";
  }
  const double cy = top + pic.rows.cells() * g.ch / 2;
  out << "<text x='" << 18 << "' y='" << cy << "' font-size='11' text-anchor='middle' transform='rotate(-90 18 " << cy
      << ")'>← dimension " << pic.rows.dim << "</text>\n";
}

// Swatches for the ranks (as many as fit) and for the ghost marks; returns the height used.
double legend(std::ostringstream& out, const OwnerPicture& pic, double x0) {
  double y = top;
  const int listed = std::min(pic.ranks, 32);
  out << "<text x='" << x0 << "' y='" << y - 8 << "' font-size='11' font-weight='bold'>rank: indices owned</text>\n";
  for (int rank = 0; rank < listed; ++rank, y += 17) {
    out << "<rect x='" << x0 << "' y='" << y << "' width='12' height='12' fill='" << rank_colour(rank)
        << "' stroke='#444' stroke-width='0.5'/><text x='" << x0 + 18 << "' y='" << y + 10 << "' font-size='11'>"
        << rank << ": " << pic.owned_count[static_cast<std::size_t>(rank)] << "</text>\n";
  }
  if (listed < pic.ranks) {
    out << "<text x='" << x0 << "' y='" << y + 10 << "' font-size='11'>... " << pic.ranks - listed
        << " more ranks</text>\n";
    y += 17;
  }
  if (pic.any_hole()) {
    out << "<rect x='" << x0 << "' y='" << y << "' width='12' height='12' fill='url(#hole)' stroke='#444' "
        << "stroke-width='0.5'/><text x='" << x0 + 18 << "' y='" << y + 10 << "' font-size='11'>hole: no rank owns it"
        << "</text>\n";
    y += 17;
  }
  if (pic.box_count > 0) {
    out << "<text x='" << x0 << "' y='" << y + 10 << "' font-size='11'>" << pic.box_count << " box"
        << (pic.box_count == 1 ? "" : "es") << (pic.boxes_cut_short() ? " (too many to outline)" : ", outlined: #index")
        << "</text>\n";
    y += 17;
  }
  if (pic.chosen_rank >= 0) {
    y += 12;
    out << "<text x='" << x0 << "' y='" << y << "' font-size='11' font-weight='bold'>rank " << pic.chosen_rank
        << "</text>\n";
    y += 8;
    const char* entries[][2] = {{"none", "owned (outlined)"},
                                {"url(#filled)", "ghost, filled by update_ghosts"},
                                {"url(#unfilled)", "ghost, never filled (edge)"}};
    for (const auto& e : entries) {
      out << "<rect x='" << x0 << "' y='" << y << "' width='12' height='12' fill='" << e[0] << "' stroke='#000' stroke-width='"
          << (e[0][0] == 'n' ? 2.5 : 0.5) << "'/><text x='" << x0 + 18 << "' y='" << y + 10 << "' font-size='11'>" << e[1]
          << "</text>\n";
      y += 17;
    }
  }
  return y - top;
}

}  // namespace

std::string render_svg(const OwnerPicture& pic) {
  Geometry g;
  const int longest = std::max(pic.rows.cells(), pic.cols.cells());
  g.cw = std::clamp(std::floor(drawing_size / std::max(1, longest)), 2.0, 48.0);
  g.ch = pic.one_dimensional() ? std::max(g.cw, 40.0) : g.cw;
  const double grid_w = pic.cols.cells() * g.cw, grid_h = pic.rows.cells() * g.ch;

  std::ostringstream body;
  body << "<text x='10' y='20' font-size='14' font-weight='bold'>" << svg::escape(svg::shorten(pic.spec_text, 110)) << "</text>\n";
  body << "<text x='10' y='38' font-size='11'>" << svg::escape(svg::shorten(pic.distribution_text, 90)) << " on " << pic.ranks
       << " ranks" << (pic.slice_text.empty() ? "" : "; slice " + pic.slice_text) << "; "
       << svg::escape(sampling_text(pic, "square")) << "</text>\n";
  if (any_mixed(pic))
    body << "<text x='10' y='54' font-size='11'>striped: a cell no rank holds 3/4 of, in the colours of its two "
            "largest owners</text>\n";
  cells(body, pic, g);
  ghost_overlay(body, pic, g);
  grid_lines(body, pic, g);
  labels(body, pic, g);
  axes(body, pic, g);
  const double legend_h = legend(body, pic, left + grid_w + 30);
  const double width = std::max(left + grid_w + 30 + legend_width, 640.0);
  const double height = top + std::max(grid_h, legend_h) + bottom_pad;
  return svg::document(std::ceil(width), std::ceil(height), body.str());
}

}  // namespace tessera_tool
