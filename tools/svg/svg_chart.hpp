#pragma once
// A tiny SVG writer shared by the demo (examples/adaptive_sor) and the `tessera` command
// (tools/tessera): line charts (one polyline per series), horizontal bar charts, and the few
// helpers the distribution pictures and heat maps use (escaping, numbers, the document wrapper).
// Plain text, no dependency; a browser or rsvg-convert renders it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace svg {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
  bool markers = false;                           // dots instead of a line (sparse events)
};

inline const char* colour(std::size_t i) {
  static const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

inline std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

/// `s` cut to at most `max` characters, ending in "..." when cut (long spec texts in titles).
inline std::string shorten(const std::string& s, std::size_t max) {
  return s.size() <= max ? s : s.substr(0, max > 3 ? max - 3 : 0) + "...";
}

inline std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// One line chart panel at (x0, y0) of size w x h inside a larger SVG.
inline void line_panel(std::ostringstream& out, double x0, double y0, double w, double h, const std::string& title,
                       const std::string& x_label, const std::string& y_label, const std::vector<Series>& series) {
  double xmin = 1e300, xmax = -1e300, ymin = 0, ymax = -1e300;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) {
      xmin = std::min(xmin, x), xmax = std::max(xmax, x);
      ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  if (xmin > xmax) xmin = 0, xmax = 1;
  if (ymax <= ymin) ymax = ymin + 1;
  if (xmax == xmin) xmax = xmin + 1;
  const double left = x0 + 60, right = x0 + w - 150, top = y0 + 30, bottom = y0 + h - 40;
  auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * (right - left); };
  auto py = [&](double y) { return bottom - (y - ymin) / (ymax - ymin) * (bottom - top); };
  out << "<text x='" << x0 + w / 2 << "' y='" << y0 + 18 << "' text-anchor='middle' font-size='14'>" << escape(title)
      << "</text>\n";
  out << "<rect x='" << left << "' y='" << top << "' width='" << right - left << "' height='" << bottom - top
      << "' fill='none' stroke='#444'/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double yv = ymin + (ymax - ymin) * k / 4, xv = xmin + (xmax - xmin) * k / 4;
    out << "<text x='" << left - 5 << "' y='" << py(yv) + 4 << "' text-anchor='end' font-size='10'>" << number(yv)
        << "</text>\n";
    out << "<text x='" << px(xv) << "' y='" << bottom + 14 << "' text-anchor='middle' font-size='10'>" << number(xv)
        << "</text>\n";
    out << "<line x1='" << left << "' x2='" << right << "' y1='" << py(yv) << "' y2='" << py(yv)
        << "' stroke='#ddd'/>\n";
  }
  out << "<text x='" << (left + right) / 2 << "' y='" << bottom + 32 << "' text-anchor='middle' font-size='11'>"
      << escape(x_label) << "</text>\n";
  out << "<text x='" << x0 + 14 << "' y='" << (top + bottom) / 2 << "' font-size='11' transform='rotate(-90 "
      << x0 + 14 << ' ' << (top + bottom) / 2 << ")' text-anchor='middle'>" << escape(y_label) << "</text>\n";
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    if (s.markers) {
      for (const auto& [x, y] : s.points)
        out << "<circle cx='" << px(x) << "' cy='" << py(y) << "' r='2.5' fill='" << colour(i) << "'/>\n";
    } else if (!s.points.empty()) {
      out << "<polyline fill='none' stroke-width='1.5' stroke='" << colour(i) << "' points='";
      for (const auto& [x, y] : s.points) out << px(x) << ',' << py(y) << ' ';
      out << "'/>\n";
    }
    out << "<rect x='" << right + 10 << "' y='" << top + 16 * i << "' width='10' height='10' fill='" << colour(i)
        << "'/><text x='" << right + 25 << "' y='" << top + 9 + 16 * i << "' font-size='11'>" << escape(s.name)
        << "</text>\n";
  }
}

/// Horizontal bars, one per (label, value), with a reference line at `reference` (e.g. 1.0).
inline void bar_panel(std::ostringstream& out, double x0, double y0, double w, const std::string& title,
                      const std::vector<std::pair<std::string, double>>& bars, double reference) {
  double vmax = reference;
  for (const auto& b : bars) vmax = std::max(vmax, b.second);
  vmax *= 1.1;
  const double left = x0 + 150, right = x0 + w - 20, top = y0 + 30;
  out << "<text x='" << x0 + w / 2 << "' y='" << y0 + 18 << "' text-anchor='middle' font-size='14'>" << escape(title)
      << "</text>\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double y = top + 22.0 * static_cast<double>(i);
    const double len = bars[i].second / vmax * (right - left);
    out << "<text x='" << left - 6 << "' y='" << y + 13 << "' text-anchor='end' font-size='11'>"
        << escape(bars[i].first) << "</text>\n";
    out << "<rect x='" << left << "' y='" << y << "' width='" << len << "' height='16' fill='" << colour(i) << "'/>\n";
    out << "<text x='" << left + len + 4 << "' y='" << y + 13 << "' font-size='11'>" << number(bars[i].second)
        << "</text>\n";
  }
  const double rx = left + reference / vmax * (right - left);
  out << "<line x1='" << rx << "' x2='" << rx << "' y1='" << top - 4 << "' y2='" << top + 22.0 * bars.size()
      << "' stroke='#000' stroke-dasharray='4 3'/>\n";
}

/// The SVG document of size w x h (pixels) around `body`, on a white background.
inline std::string document(double w, double h, const std::string& body) {
  std::ostringstream out;
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h << "' viewBox='0 0 " << w << ' '
      << h << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n"
      << body << "</svg>\n";
  return out.str();
}

/// Wraps panels into a document of size w x h and writes it to `path`. Returns false on I/O error.
inline bool write(const std::string& path, double w, double h, const std::ostringstream& body) {
  std::ofstream f(path);
  f << document(w, h, body.str());
  return static_cast<bool>(f);
}

}  // namespace svg
