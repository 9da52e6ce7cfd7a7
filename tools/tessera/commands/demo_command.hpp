#pragma once
// `tessera demo [ARGS...]`: the adaptive SOR demo of `make demo` (examples/adaptive_sor) on local
// MPI ranks, with its progress bar, its table, and where it wrote its plots.
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tessera_tool {

struct DemoOptions {
  int ranks = 4;                  ///< --ranks
  bool program_help = false;      ///< --program-help: show the demo program's own options
  std::vector<std::string> args;  ///< everything else, passed to the demo program
};

/// Registers the subcommand; unknown arguments are kept for the demo program.
CLI::App* add_demo_command(CLI::App& app, DemoOptions& options);

/// Finds mpiexec and the demo program, runs it, and says where the plots are. Returns the exit
/// status; throws RuntimeFailure when a program cannot be found or started.
int run_demo(const DemoOptions& options, std::ostream& out);

}  // namespace tessera_tool
