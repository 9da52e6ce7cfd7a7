#pragma once
// The terminal rendering of `tessera show`: a header, one character per display cell (the owner's
// character, 0-9a-zA-Z), a table of what each rank owns, a box set's boxes (index, owner, extent),
// and the chosen rank's ghost region.
#include <cstddef>
#include <string>

#include "picture/owner_picture.hpp"

namespace tessera_tool {

/// Ranks listed in the table before it is cut short.
inline constexpr int max_listed_ranks = 64;
/// A box set's boxes listed in the table before it is cut short.
inline constexpr std::size_t max_listed_boxes = 64;

/// The whole text output of `tessera show` for `pic` (ends with a newline).
[[nodiscard]] std::string render_text(const OwnerPicture& pic);

/// One line saying how the picture samples the domain: `one character per index`, or the cell
/// sizes and the rule that colours a cell.
[[nodiscard]] std::string sampling_text(const OwnerPicture& pic, const char* unit);

}  // namespace tessera_tool
