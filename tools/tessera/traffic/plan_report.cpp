#include "traffic/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "svg/svg_chart.hpp"

namespace tessera_tool {
namespace {

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string short_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "K", "M", "G", "T"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : v < 10 ? "%.1f%s" : "%.0f%s", v, units[u]);
  return buf;
}

void matrix_table(std::ostringstream& out, const PlanReport& rp) {
  const int p = rp.ranks;
  std::size_t width = 6;
  for (const auto& [pair, n] : rp.traffic.entries()) width = std::max(width, std::to_string(rp.bytes(n)).size() + 1);
  const std::size_t label = std::string("from ").size() + std::to_string(p - 1).size();
  out << std::string(label, ' ');
  for (int dst = 0; dst < p; ++dst) out << pad_left("to " + std::to_string(dst), width + 1);
  out << '\n';
  for (int src = 0; src < p; ++src) {
    out << "from " << pad_left(std::to_string(src), label - 5);
    for (int dst = 0; dst < p; ++dst) out << pad_left(std::to_string(rp.bytes(rp.traffic.at(src, dst))), width + 1);
    out << '\n';
  }
}

void largest_messages(std::ostringstream& out, const PlanReport& rp) {
  std::vector<std::pair<std::pair<int, int>, index_t>> messages;
  for (const auto& e : rp.traffic.entries())
    if (e.first.first != e.first.second) messages.push_back(e);
  std::stable_sort(messages.begin(), messages.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::size_t shown = std::min<std::size_t>(messages.size(), listed_messages);
  out << "the " << shown << " largest of " << messages.size() << " messages (" << rp.ranks
      << " ranks: too many columns for a table; --svg draws the whole matrix):\n";
  for (std::size_t k = 0; k < shown; ++k)
    out << "  from " << messages[k].first.first << " to " << messages[k].first.second << ": "
        << bytes_text(rp.bytes(messages[k].second)) << '\n';
}

// White -> dark blue, by the fraction t in [0, 1].
std::string blue(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const int r = static_cast<int>(247 + (8 - 247) * t), g = static_cast<int>(251 + (48 - 251) * t),
            b = static_cast<int>(255 + (107 - 255) * t);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

std::string grey(double t) {
  const int v = static_cast<int>(240 - 110 * std::clamp(t, 0.0, 1.0));
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", v, v, v);
  return buf;
}

}  // namespace

std::string bytes_text(std::uint64_t bytes) {
  std::string out = std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  if (bytes < 1024) return out;
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[48];
  std::snprintf(buf, sizeof buf, " (%.3g %s)", v, units[u]);
  return out + buf;
}

std::string render_plan_text(const PlanReport& rp) {
  std::ostringstream out;
  const TrafficMatrix& t = rp.traffic;
  if (rp.halo) {
    out << "plan: halo update (update_ghosts) on " << rp.ranks << " ranks, " << rp.element_size << "-byte elements\n";
    out << "  spec:   " << rp.from_text << "\n          " << rp.from_layout << "\n          " << rp.ghost_text << '\n';
  } else {
    out << "plan: redistribution on " << rp.ranks << " ranks, " << rp.element_size << "-byte elements\n";
    out << "  from: " << rp.from_text << "\n        " << rp.from_layout << '\n';
    out << "  to:   " << rp.to_text << "\n        " << rp.to_layout << '\n';
  }
  out << "\nbytes sent (row: from rank, column: to rank; the diagonal stays on its rank: a local copy, no message)\n";
  if (rp.ranks <= max_table_ranks) {
    matrix_table(out, rp);
  } else {
    largest_messages(out, rp);
  }
  const index_t moved = t.between_ranks();
  const auto largest = t.largest_message();
  out << "\nmoved between ranks: " << bytes_text(rp.bytes(moved)) << ", " << moved << " elements, in " << t.messages()
      << " message" << (t.messages() == 1 ? "" : "s") << '\n';
  out << "minimum possible:    " << bytes_text(rp.bytes(rp.minimum)) << ", " << rp.minimum << " elements ("
      << (rp.halo ? "ghost elements another rank owns: each arrives once" : "the elements that change owner") << ")";
  if (moved == rp.minimum) {
    out << ": the plan moves nothing more\n";
  } else {
    out << ": the plan moves " << moved - rp.minimum << " elements more\n";
  }
  out << "largest message:     ";
  if (largest.src < 0) {
    out << "none\n";
  } else {
    out << bytes_text(rp.bytes(largest.elements)) << ", from rank " << largest.src << " to rank " << largest.dst << '\n';
  }
  out << "kept on its rank:    " << bytes_text(rp.bytes(t.kept_local())) << " in " << t.local_copies()
      << " local cop" << (t.local_copies() == 1 ? "y" : "ies") << '\n';
  return out.str();
}

std::string render_heat_map(const PlanReport& rp) {
  // Consecutive ranks binned into groups when there are too many to draw one square each.
  const int p = rp.ranks;
  const int group = (p + max_heat_map_ranks - 1) / max_heat_map_ranks;
  const int cells = (p + group - 1) / group;
  std::vector<index_t> m(static_cast<std::size_t>(cells) * static_cast<std::size_t>(cells), 0);
  for (const auto& [pair, n] : rp.traffic.entries())
    m[static_cast<std::size_t>(pair.first / group) * static_cast<std::size_t>(cells) +
      static_cast<std::size_t>(pair.second / group)] += n;
  // Separate scales: what stays on a rank often dwarfs what moves, and only the latter costs messages.
  index_t off_max = 0, diag_max = 0;
  for (int i = 0; i < cells; ++i)
    for (int j = 0; j < cells; ++j) {
      const index_t v = m[static_cast<std::size_t>(i) * static_cast<std::size_t>(cells) + static_cast<std::size_t>(j)];
      if (i == j) {
        diag_max = std::max(diag_max, v);
      } else {
        off_max = std::max(off_max, v);
      }
    }

  const double cell = std::clamp(std::floor(512.0 / cells), 3.0, 64.0);
  const double left = 90, top = 120, size = cell * cells;
  std::ostringstream out;
  const std::string title = rp.halo ? "halo update of " + svg::shorten(rp.from_text, 90) : "redistribution";
  out << "<text x='10' y='22' font-size='15' font-weight='bold'>bytes per pair of ranks: " << svg::escape(title)
      << "</text>\n";
  if (rp.halo) {
    out << "<text x='10' y='42' font-size='11'>" << svg::escape(svg::shorten(rp.from_layout + ", " + rp.ghost_text, 150))
        << "</text>\n";
  } else {
    out << "<text x='10' y='42' font-size='11'>from " << svg::escape(svg::shorten(rp.from_text, 150)) << "</text>\n";
    out << "<text x='10' y='58' font-size='11'>to   " << svg::escape(svg::shorten(rp.to_text, 150)) << "</text>\n";
  }
  out << "<text x='10' y='74' font-size='11'>" << rp.ranks << " ranks, " << rp.element_size << "-byte elements"
      << (group > 1 ? "; each square sums a group of " + std::to_string(group) + " ranks" : "") << "</text>\n";

  for (int i = 0; i < cells; ++i)
    for (int j = 0; j < cells; ++j) {
      const index_t v = m[static_cast<std::size_t>(i) * static_cast<std::size_t>(cells) + static_cast<std::size_t>(j)];
      const bool diag = i == j;
      const double frac = diag ? (diag_max ? static_cast<double>(v) / diag_max : 0)
                               : (off_max ? static_cast<double>(v) / off_max : 0);
      out << "<rect x='" << left + j * cell << "' y='" << top + i * cell << "' width='" << cell << "' height='" << cell
          << "' fill='" << (v == 0 ? "#ffffff" : diag ? grey(frac) : blue(0.08 + 0.92 * frac)) << "'/>\n";
      if (cell >= 34 && v > 0)
        out << "<text x='" << left + (j + 0.5) * cell << "' y='" << top + (i + 0.5) * cell + 4
            << "' font-size='10' text-anchor='middle' fill='" << (!diag && frac > 0.5 ? "#fff" : "#000") << "'>"
            << short_bytes(rp.bytes(v)) << "</text>\n";
    }
  // Cell borders and the frame.
  if (cell >= 6) {
    std::ostringstream d;
    for (int k = 1; k < cells; ++k)
      d << 'M' << left + k * cell << ' ' << top << 'v' << size << 'M' << left << ' ' << top + k * cell << 'h' << size;
    out << "<path d='" << d.str() << "' stroke='#ccc' stroke-width='0.6'/>\n";
  }
  out << "<rect x='" << left << "' y='" << top << "' width='" << size << "' height='" << size
      << "' fill='none' stroke='#000'/>\n";
  // Rank labels, thinned to stay readable.
  const int step = std::max(1, static_cast<int>(std::ceil(16.0 / cell)));
  for (int k = 0; k < cells; k += step) {
    const std::string label = std::to_string(k * group);
    out << "<text x='" << left + (k + 0.5) * cell << "' y='" << top - 6 << "' font-size='10' text-anchor='middle'>"
        << label << "</text>\n";
    out << "<text x='" << left - 6 << "' y='" << top + (k + 0.5) * cell + 3.5 << "' font-size='10' text-anchor='end'>"
        << label << "</text>\n";
  }
  out << "<text x='" << left + size / 2 << "' y='" << top - 24 << "' font-size='12' text-anchor='middle'>to rank</text>\n";
  out << "<text x='22' y='" << top + size / 2 << "' font-size='12' text-anchor='middle' transform='rotate(-90 22 "
      << top + size / 2 << ")'>from rank</text>\n";

  // Colour bar and the totals.
  const double bx = left + size + 40;
  for (int k = 0; k < 50; ++k)
    out << "<rect x='" << bx << "' y='" << top + (49 - k) * 4 << "' width='16' height='4.5' fill='"
        << blue(0.08 + 0.92 * k / 49.0) << "'/>\n";
  out << "<text x='" << bx + 22 << "' y='" << top + 8 << "' font-size='10'>" << short_bytes(rp.bytes(off_max))
      << "</text><text x='" << bx + 22 << "' y='" << top + 200 << "' font-size='10'>&gt; 0</text>\n";
  out << "<text x='" << bx << "' y='" << top + 220 << "' font-size='10'>between ranks</text>\n";
  out << "<rect x='" << bx << "' y='" << top + 232 << "' width='16' height='12' fill='" << grey(0.6)
      << "'/><text x='" << bx + 22 << "' y='" << top + 242 << "' font-size='10'>stays on its rank</text>\n";

  const TrafficMatrix& t = rp.traffic;
  const auto largest = t.largest_message();
  const std::vector<std::string> lines = {
      "moved between ranks: " + bytes_text(rp.bytes(t.between_ranks())) + " in " + std::to_string(t.messages()) +
          " messages",
      "minimum possible: " + bytes_text(rp.bytes(rp.minimum)) +
          (rp.halo ? " (ghosts another rank owns)" : " (elements that change owner)"),
      "largest message: " + (largest.src < 0 ? std::string("none")
                                             : bytes_text(rp.bytes(largest.elements)) + ", rank " +
                                                   std::to_string(largest.src) + " to " + std::to_string(largest.dst)),
      "kept on its rank: " + bytes_text(rp.bytes(t.kept_local()))};
  double y = std::max(top + size, top + 250) + 28;
  for (const auto& line : lines) {
    out << "<text x='10' y='" << y << "' font-size='12'>" << svg::escape(line) << "</text>\n";
    y += 18;
  }
  // About 9 pixels per character of the bold title ("bytes per pair of ranks: " is 25 of them).
  const double width = std::min(1400.0, std::max(bx + 150, 20 + 9.0 * static_cast<double>(title.size() + 25)));
  return svg::document(std::ceil(std::max(width, 560.0)), std::ceil(y + 10), out.str());
}

}  // namespace tessera_tool
