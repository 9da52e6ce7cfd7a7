#pragma once
// The SVG rendering of `tessera show`: a colour per rank, lines where the owner changes, each owned
// box labelled with its rank where the label fits, index ticks at the boundaries, and the chosen
// rank's ghost region hatched (filled ghosts dark, never-filled ghosts light).
#include <string>

#include "picture/owner_picture.hpp"

namespace tessera_tool {

/// The SVG document of `pic`.
[[nodiscard]] std::string render_svg(const OwnerPicture& pic);

}  // namespace tessera_tool
