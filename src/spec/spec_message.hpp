#pragma once
// Pieces of the error messages of the spec parser and mapping (private to src/spec).

#include <string>
#include <string_view>

namespace tessera::detail {

/// `text` in double quotes for a message: non-printable bytes as \xNN, quotes and backslashes
/// escaped, cut after 40 bytes with "..." (a fuzzed text can be anything, and long).
[[nodiscard]] std::string spec_excerpt(std::string_view text);

/// "at column 4" on the first line, "at line 2, column 4" after it.
[[nodiscard]] std::string spec_location(int line, int column);

}  // namespace tessera::detail
