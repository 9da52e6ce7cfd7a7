#include "spec_input.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace tessera_tool {

std::string name_spec_argument(std::string_view message, std::string_view what) {
  // The parser's messages start with "spec: "; say which argument instead.
  constexpr std::string_view prefix = "spec: ";
  if (message.substr(0, prefix.size()) == prefix) message.remove_prefix(prefix.size());
  return std::string(what) + ": " + std::string(message);
}

std::string read_spec_text(const std::vector<std::string>& words, std::string_view what) {
  std::string out;
  if (words.size() == 1 && !words.front().empty() && words.front().front() == '@') {
    const std::string path = words.front().substr(1);
    std::ifstream file(path);
    if (!file) throw UsageError(std::string(what) + ": cannot read the spec file '" + path + "'");
    std::ostringstream text;
    text << file.rdbuf();
    out = text.str();
  } else {
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  }
  if (out.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError(std::string(what) + ": the spec is empty (it needs at least domain=...)");
  return out;
}

SpecArgument read_spec(const std::vector<std::string>& words, std::string_view what) {
  SpecArgument out;
  out.text = read_spec_text(words, what);
  if (tessera::is_multiblock_spec(out.text))
    throw UsageError(std::string(what) +
                     ": a multiblock spec (block ... glue ...): `tessera show` draws one and `tessera plan --halo` counts its ghost update; this takes one distribution");
  try {
    out.spec = tessera::parse_spec(out.text);
  } catch (const tessera::Error& e) {
    throw tessera::Error(e.code(), name_spec_argument(e.what(), what));
  }
  return out;
}

MultiblockArgument read_multiblock_spec(std::string text, std::string_view what) {
  MultiblockArgument out;
  out.text = std::move(text);
  try {
    out.spec = tessera::parse_multiblock_spec(out.text);
  } catch (const tessera::Error& e) {
    throw tessera::Error(e.code(), name_spec_argument(e.what(), what));
  }
  return out;
}

int ranks_placed_by(const tessera::Spec& spec) {
  if (spec.grid_ranks > 0) return static_cast<int>(spec.grid_ranks);
  if (spec.is_box_set()) {
    // Given owners: up to the highest one; a policy without @K spreads over the communicator.
    int highest = -1;
    for (const auto& box : spec.boxes) highest = std::max(highest, box.owner);
    return highest + 1;
  }
  tessera::index_t positions = 1;
  for (const auto& axis : spec.axes) {
    tessera::index_t g = axis.grid_extent;
    if (g == 0) {
      // The lists of cut and weights axes, and collapsed axes, fix their grid extent.
      switch (axis.dist.kind) {
        case tessera::DimKind::cut:
          g = static_cast<tessera::index_t>(axis.dist.boundaries.size()) - 1;
          break;
        case tessera::DimKind::cut_weights:
          g = static_cast<tessera::index_t>(axis.dist.weights.size());
          break;
        case tessera::DimKind::collapsed:
          g = 1;
          break;
        default:
          return 0;  // chosen over the communicator
      }
    }
    positions *= g;  // the parser caps the positions at 2^20, so this cannot overflow
    if (positions > tessera::spec_limits::max_ranks) return 0;
  }
  return static_cast<int>(positions);
}

int communicator_size(std::optional<int> asked, const std::vector<const tessera::Spec*>& specs) {
  if (asked) return *asked;
  int placed = 0;
  for (const auto* s : specs) placed = std::max(placed, ranks_placed_by(*s));
  return placed > 0 ? placed : default_ranks;
}

}  // namespace tessera_tool
