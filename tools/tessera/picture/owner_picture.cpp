#include "picture/owner_picture.hpp"

#include <cmath>
#include <cstdio>

namespace tessera_tool {

char rank_char(int rank) noexcept {
  static constexpr char chars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return chars[rank % 62];
}

std::string rank_colour(int rank) {
  // ColorBrewer Set3: light enough for black labels, distinct for the first twelve ranks.
  static const char* set3[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                               "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
  if (rank < 12) return set3[rank];
  // Beyond: hues 137.5 degrees apart (the golden angle) never repeat and keep neighbours apart;
  // two lightness levels alternate so that close hues still differ.
  const double hue = std::fmod(rank * 137.50776, 360.0);
  const double light = rank % 2 ? 0.70 : 0.82, sat = 0.60;
  const double c = (1 - std::fabs(2 * light - 1)) * sat, h = hue / 60, x = c * (1 - std::fabs(std::fmod(h, 2) - 1));
  double r = 0, g = 0, b = 0;
  if (h < 1) r = c, g = x;
  else if (h < 2) r = x, g = c;
  else if (h < 3) g = c, b = x;
  else if (h < 4) g = x, b = c;
  else if (h < 5) r = x, b = c;
  else r = c, b = x;
  const double m = light - c / 2;
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>((r + m) * 255), static_cast<int>((g + m) * 255),
                static_cast<int>((b + m) * 255));
  return buf;
}

}  // namespace tessera_tool
