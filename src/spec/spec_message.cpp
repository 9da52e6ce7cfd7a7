#include "spec_message.hpp"

#include "tessera/core/error.hpp"

namespace tessera::detail {

std::string spec_excerpt(std::string_view text) {
  constexpr std::size_t shown = 40;
  constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > shown) out += "...";
  return out + '"';
}

std::string spec_location(int line, int column) {
  if (line <= 1) return concat("at column ", column);
  return concat("at line ", line, ", column ", column);
}

}  // namespace tessera::detail
