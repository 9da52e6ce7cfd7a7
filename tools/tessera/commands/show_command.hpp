#pragma once
// `tessera show SPEC`: which rank owns which indices, in the terminal and as an SVG.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tessera_tool {

struct ShowOptions {
  std::vector<std::string> spec_words;  ///< the SPEC, one or more words (or @FILE)
  std::optional<int> ranks;             ///< --ranks: communicator size
  std::optional<int> rank;              ///< --rank: whose ghost region to shade
  std::string svg_path;                 ///< --svg: where to write the picture; empty: none
  int max_cells = 128;                  ///< --max-cells: cells per axis of the SVG
  std::string cell_owner = "majority";  ///< --cell-owner: majority | first
  std::string slice;                    ///< --slice D=I (3-D)
};

/// The terminal map is never wider than this, whatever --max-cells asks of the SVG.
inline constexpr int max_terminal_cells = 64;

/// Registers the subcommand and its options on `app`; the options land in `options`.
CLI::App* add_show_command(CLI::App& app, ShowOptions& options);

/// Runs it: the text to `out`, the SVG to the file. Throws UsageError / tessera::Error for bad
/// input, RuntimeFailure when the SVG cannot be written.
void run_show(const ShowOptions& options, std::ostream& out);

}  // namespace tessera_tool
