#pragma once
// `tessera plan FROM TO` / `tessera plan SPEC --halo`: what a redistribution or a halo update
// would move between every pair of ranks.
#include <iosfwd>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace tessera_tool {

struct PlanOptions {
  std::string from;            ///< FROM (or the SPEC of --halo); @FILE reads a file
  std::string to;              ///< TO; empty with --halo
  bool halo = false;           ///< --halo
  std::optional<int> ranks;    ///< --ranks
  int element_size = 8;        ///< --element-size, bytes
  std::string svg_path;        ///< --svg
};

/// Registers the subcommand and its options on `app`.
CLI::App* add_plan_command(CLI::App& app, PlanOptions& options);

/// Runs it: the report to `out`, the heat map to the SVG file.
void run_plan(const PlanOptions& options, std::ostream& out);

}  // namespace tessera_tool
