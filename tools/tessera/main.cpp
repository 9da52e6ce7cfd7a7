// The `tessera` command: pictures of distributions (show), what redistributions and halo updates
// move (plan), and the demo and benchmark suite of the repository (demo, bench). Every subcommand
// exits 0 when done, 1 on a runtime failure, 2 on bad usage or a bad SPEC.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands/bench_command.hpp"
#include "commands/demo_command.hpp"
#include "commands/plan_command.hpp"
#include "commands/show_command.hpp"
#include "exit_status.hpp"

namespace {

using namespace tessera_tool;

constexpr const char* exit_status_help =
    "Exit status: 0 done, 1 runtime failure, 2 bad usage or bad SPEC.\n"
    "SPEC: fields such as domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p (docs/spec-format.md).";

int dispatch(int argc, char** argv) {
  CLI::App app{"tessera: pictures and plans of distributed arrays' distributions, the demo and the benchmarks",
               "tessera"};
  app.require_subcommand(1);
  app.footer(exit_status_help);
  ShowOptions show;
  PlanOptions plan;
  DemoOptions demo;
  BenchOptions bench;
  CLI::App* show_cmd = add_show_command(app, show);
  CLI::App* plan_cmd = add_plan_command(app, plan);
  CLI::App* demo_cmd = add_demo_command(app, demo);
  CLI::App* bench_cmd = add_bench_command(app, bench);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints the help of the subcommand asked about; status 0
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "tessera: " << e.what() << "\nRun 'tessera --help' or 'tessera <command> --help' for usage.\n";
    return exit_usage;
  }
  // The demo's and the benchmarks' own options pass through untouched.
  demo.args = demo_cmd->remaining();
  bench.args = bench_cmd->remaining();
  const char* name = "tessera";
  try {
    if (*show_cmd) {
      name = "tessera show";
      run_show(show, std::cout);
    } else if (*plan_cmd) {
      name = "tessera plan";
      run_plan(plan, std::cout);
    } else if (*demo_cmd) {
      name = "tessera demo";
      return run_demo(demo, std::cout);
    } else if (*bench_cmd) {
      name = "tessera bench";
      return run_bench(bench, std::cout);
    }
    return exit_ok;
  } catch (const UsageError& e) {
    std::cerr << name << ": " << e.what() << '\n';
    return exit_usage;
  } catch (const tessera::Error& e) {
    std::cerr << name << ": " << e.what() << '\n';
    return status_of(e);
  } catch (const RuntimeFailure& e) {
    std::cerr << name << ": " << e.what() << '\n';
    return exit_failure;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << '\n';
    return exit_failure;
  }
}

}  // namespace

int main(int argc, char** argv) { return dispatch(argc, argv); }
