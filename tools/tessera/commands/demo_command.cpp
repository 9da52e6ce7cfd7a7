#include "commands/demo_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "process/child_process.hpp"
#include "exit_status.hpp"

#ifndef TESSERA_TOOL_DEMO_PROGRAM
#define TESSERA_TOOL_DEMO_PROGRAM ""
#endif
#ifndef TESSERA_TOOL_LIBEXECDIR
#define TESSERA_TOOL_LIBEXECDIR "libexec"
#endif

namespace tessera_tool {

namespace fs = std::filesystem;

namespace {

// The folder the demo writes to: the value of its --out option, or its default.
std::string demo_output_folder(const std::vector<std::string>& args) {
  std::string out = "demo-results";
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k] == "--out" && k + 1 < args.size()) out = args[k + 1];
    if (args[k].rfind("--out=", 0) == 0) out = args[k].substr(6);
  }
  return out;
}

fs::path find_demo_program() {
  const fs::path here = own_directory();
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("TESSERA_DEMO_PROGRAM"); env && *env) candidates.emplace_back(env);
  candidates.push_back(here / ".." / TESSERA_TOOL_LIBEXECDIR / "tessera" / "adaptive_sor");  // installed
  candidates.push_back(here / ".." / ".." / "examples" / "adaptive_sor");                     // build tree
  candidates.emplace_back(TESSERA_TOOL_DEMO_PROGRAM);  // the build tree this tool came from
  if (auto found = first_executable(candidates)) return *found;
  std::string tried;
  for (const auto& c : candidates)
    if (!c.empty()) tried += "\n  " + c.lexically_normal().string();
  throw RuntimeFailure("demo: the demo program adaptive_sor was not found; looked for" + tried +
                       "\n(build it: cmake --build <build folder> --target adaptive_sor, or set TESSERA_DEMO_PROGRAM)");
}

}  // namespace

CLI::App* add_demo_command(CLI::App& app, DemoOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "demo", "Run the adaptive SOR demo of `make demo` on local MPI ranks (progress bar, table, plots)");
  cmd->add_option("--ranks", o.ranks, "local MPI ranks (default 4)")->check(CLI::Range(1, 1024));
  cmd->add_flag("--program-help", o.program_help, "show the options of the demo program itself");
  cmd->allow_extras();
  cmd->footer("Every other argument goes to the demo program (examples/adaptive_sor): --n, --iterations,\n"
              "--interval, --work-per-row-us, --load, --policies, --out; --program-help lists them.\n"
              "Example: tessera demo --n 256 --iterations 60 --policies none horizon --out /tmp/demo");
  return cmd;
}

int run_demo(const DemoOptions& o, std::ostream& out) {
  const auto mpiexec = find_mpiexec();
  if (!mpiexec) throw RuntimeFailure("demo: no mpiexec found (set MPIEXEC, or install openmpi-bin)");
  const fs::path program = find_demo_program();
  set_local_mpi_environment();
  std::vector<std::string> argv{mpiexec->string(), "-n", std::to_string(o.ranks), program.string()};
  std::vector<std::string> args = o.args;
  if (!args.empty() && args.front() == "--") args.erase(args.begin());
  if (o.program_help) args = {"--help"};
  argv.insert(argv.end(), args.begin(), args.end());
  out << "tessera demo: " << mpiexec->string() << " -n " << o.ranks << ' ' << program.string() << '\n' << std::flush;
  const int status = run_child(argv);
  const std::string folder = demo_output_folder(args);
  std::error_code ec;
  if (status == exit_ok && !o.program_help && !folder.empty() && fs::exists(fs::path(folder) / "balance.svg", ec)) {
    const fs::path abs = fs::absolute(folder, ec);
    out << "\nplots:   " << (abs / "balance.svg").string() << "\nresults: " << (abs / "summary.json").string()
        << ", " << (abs / "iterations.csv").string() << '\n';
  }
  return status;
}

}  // namespace tessera_tool
