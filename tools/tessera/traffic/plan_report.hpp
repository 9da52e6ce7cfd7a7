#pragma once
// The output of `tessera plan`: the traffic matrix as a table and as an SVG heat map, with the
// totals (moved between ranks vs the least possible, messages, largest message).
#include <cstdint>
#include <string>

#include "traffic/traffic.hpp"

namespace tessera_tool {

/// Everything `tessera plan` reports; independent of the number of dimensions.
struct PlanReport {
  bool halo = false;            ///< a halo update (one spec) rather than a redistribution
  std::string from_text;        ///< canonical spec (halo: the spec)
  std::string from_layout;      ///< the distribution as the library prints it
  std::string to_text, to_layout;
  std::string ghost_text;       ///< halo: the ghost spec as the library prints it
  int ranks = 0;
  index_t element_size = 8;     ///< bytes per element
  TrafficMatrix traffic;
  index_t minimum = 0;          ///< the least any plan could move between ranks, in elements

  [[nodiscard]] std::uint64_t bytes(index_t elements) const {
    return static_cast<std::uint64_t>(elements) * static_cast<std::uint64_t>(element_size);
  }
};

/// Ranks up to which the terminal shows the whole matrix; beyond, the largest messages.
inline constexpr int max_table_ranks = 16;
/// Messages listed when the matrix is too wide for the terminal.
inline constexpr int listed_messages = 10;

/// `1536 bytes (1.5 KiB)`; exact below 1 KiB.
[[nodiscard]] std::string bytes_text(std::uint64_t bytes);

/// The whole text output of `tessera plan`.
[[nodiscard]] std::string render_plan_text(const PlanReport& report);

/// The heat map: one square per (source, destination) pair, darker for more bytes; the diagonal
/// (data that stays on its rank) in grey. More than `max_heat_map_ranks` ranks are binned into
/// groups of consecutive ranks.
[[nodiscard]] std::string render_heat_map(const PlanReport& report);
inline constexpr int max_heat_map_ranks = 128;

}  // namespace tessera_tool
