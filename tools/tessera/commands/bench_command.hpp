#pragma once
// `tessera bench [ARGS...]`: the benchmark suite (bench/run_all.py), which writes
// bench-results/latest.json, latest.md and the plot of the ratios against the anchors, ratios.svg.
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tessera_tool {

struct BenchOptions {
  bool program_help = false;      ///< --program-help: show run_all.py's own options
  std::vector<std::string> args;  ///< passed to run_all.py
};

/// Registers the subcommand; every other argument is kept for run_all.py (read them with
/// `remaining()`).
CLI::App* add_bench_command(CLI::App& app, BenchOptions& options);

/// Finds python3, run_all.py and the build folder with the drivers, and runs the suite. Returns
/// the exit status; throws RuntimeFailure when something cannot be found or started.
int run_bench(const BenchOptions& options, std::ostream& out);

}  // namespace tessera_tool
