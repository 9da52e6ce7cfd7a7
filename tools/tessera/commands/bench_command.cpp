#include "commands/bench_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "process/child_process.hpp"
#include "exit_status.hpp"

#ifndef TESSERA_TOOL_SOURCE_DIR
#define TESSERA_TOOL_SOURCE_DIR ""
#endif
#ifndef TESSERA_TOOL_BUILD_DIR
#define TESSERA_TOOL_BUILD_DIR ""
#endif

namespace tessera_tool {

namespace fs = std::filesystem;

namespace {

bool has_option(const std::vector<std::string>& args, const std::string& name) {
  for (const auto& a : args)
    if (a == name || a.rfind(name + "=", 0) == 0) return true;
  return false;
}

// The build folder whose bench/ holds the drivers: the one this tool sits in (build/<preset>/
// tools/tessera/tessera), else the one it was configured in.
std::optional<fs::path> find_build_folder() {
  std::error_code ec;
  for (const fs::path& candidate : {own_directory() / ".." / "..", fs::path(TESSERA_TOOL_BUILD_DIR)})
    if (!candidate.empty() && fs::is_directory(candidate / "bench", ec)) return fs::weakly_canonical(candidate, ec);
  return std::nullopt;
}

}  // namespace

CLI::App* add_bench_command(CLI::App& app, BenchOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Run the benchmark suite (bench/run_all.py): latest.json, latest.md and the ratio plot ratios.svg");
  cmd->add_flag("--program-help", o.program_help, "show the options of bench/run_all.py itself");
  cmd->allow_extras();
  cmd->footer("Every other argument goes to bench/run_all.py: --out DIR (default bench-results), --repetitions K,\n"
              "--build DIR (default: the build folder of this tool), --plot-from FILE (redraw the report of a\n"
              "results file without running anything); --program-help lists them. Run it from a build tree:\n"
              "the drivers are not installed. `make bench` also installs the anchors (PETSc, ...).");
  return cmd;
}

int run_bench(const BenchOptions& o, std::ostream& out) {
  std::vector<fs::path> scripts;
  if (const char* env = std::getenv("TESSERA_BENCH_SCRIPT"); env && *env) scripts.emplace_back(env);
  scripts.push_back(fs::path(TESSERA_TOOL_SOURCE_DIR) / "bench" / "run_all.py");
  const auto script = first_file(scripts);
  if (!script)
    throw RuntimeFailure("bench: bench/run_all.py not found (set TESSERA_BENCH_SCRIPT; the benchmarks run from a "
                         "source and build tree)");
  const auto python = find_in_path("python3");
  if (!python) throw RuntimeFailure("bench: python3 not found in PATH");
  std::vector<std::string> args = o.args;
  if (!args.empty() && args.front() == "--") args.erase(args.begin());
  if (o.program_help) args = {"--help"};
  std::vector<std::string> argv{python->string(), script->string()};
  if (!has_option(args, "--build") && !has_option(args, "--plot-from") && !has_option(args, "--help") &&
      !has_option(args, "-h")) {
    const auto build = find_build_folder();
    if (!build) throw RuntimeFailure("bench: no build folder with bench/ found next to this tool; pass --build DIR");
    argv.push_back("--build");
    argv.push_back(build->string());
  }
  argv.insert(argv.end(), args.begin(), args.end());
  set_local_mpi_environment();
  out << "tessera bench: " << script->string() << '\n' << std::flush;
  return run_child(argv);
}

}  // namespace tessera_tool
