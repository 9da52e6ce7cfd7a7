// The adaptive Poisson SOR demo (D3-ARC §V, Figs. 12-15): the same red-black SOR problem run
// unloaded (the reference) and under an emulated load that appears on one rank, then on a
// second, then goes away, once per balancing policy. Prints the time to solution of each policy
// relative to no rebalancing and to the unloaded run, checks that every run computed the same
// solution, and writes demo-results/: summary.json, iterations.csv and balance.svg. See README.md.
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adaptive_sor/solver.hpp"
#include "svg/svg_chart.hpp"  // tools/svg: shared with the tessera command
#include "tessera/tessera.hpp"

namespace {

using adaptive_sor::RunResult;


// A progress bar on rank 0's terminal (one line per run when stderr is not a terminal).
struct Progress {
  std::string label;
  int total = 1;
  bool tty = isatty(fileno(stderr)) != 0;
  void operator()(int it) const {
    if (!tty || (it + 1) % 10 != 0) return;
    const int width = 30, done = (it + 1) * width / total;
    std::fprintf(stderr, "\r  %-16s [%s%s] %3d%%", label.c_str(), std::string(static_cast<std::size_t>(done), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - done), ' ').c_str(), (it + 1) * 100 / total);
  }
  void finish(double seconds) const {
    std::fprintf(stderr, tty ? "\r  %-16s done in %.2f s%30s\n" : "  %-16s done in %.2f s%s\n", label.c_str(), seconds, "");
  }
};

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return a.size() == b.size() ? worst : INFINITY;
}

void write_csv(const std::string& path, const std::vector<RunResult>& runs) {
  std::ofstream csv(path);
  csv << "policy,iteration,wall_s,compute_s,exchange_s,coordination_s,migration_s,rows_moved,delta,active_ranks,bytes\n";
  for (const auto& r : runs)
    for (std::size_t i = 0; i < r.iterations.size(); ++i) {
      const auto& x = r.iterations[i];
      csv << r.name << ',' << i << ',' << x.wall << ',' << x.compute << ',' << x.exchange << ',' << x.coordination << ',' << x.migration
          << ',' << x.rows_moved << ',' << x.delta << ',' << x.active << ',' << x.bytes << '\n';
    }
}

void write_summary(const std::string& path, const adaptive_sor::Problem& pb, int ranks, const std::string& load,
                   const RunResult& unloaded, const std::vector<RunResult>& runs, double none_seconds) {
  std::ofstream j(path);
  j << "{\n  \"demo\": \"adaptive red-black SOR (D3-ARC section V)\",\n  \"n\": " << pb.n << ",\n  \"iterations\": "
    << pb.iterations << ",\n  \"ranks\": " << ranks << ",\n  \"remap_interval\": " << pb.interval << ",\n  \"work_per_row_s\": " << pb.work_per_row
    << ",\n  \"load\": \"" << load << "\",\n  \"unloaded_seconds\": " << unloaded.seconds << ",\n  \"policies\": [\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    j << "    {\"name\": \"" << r.name << "\", \"time_to_solution_s\": " << r.seconds
      << ", \"relative_to_none\": " << (none_seconds > 0 ? r.seconds / none_seconds : 0)
      << ", \"relative_to_unloaded\": " << r.seconds / unloaded.seconds << ", \"bytes_moved\": " << r.bytes_moved
      << ", \"migrations\": " << r.migrations << ", \"reallocations\": " << r.reallocations << "}"
      << (i + 1 < runs.size() ? ",\n" : "\n");
  }
  j << "  ]\n}\n";
}

void write_plot(const std::string& path, const std::vector<RunResult>& runs, double unloaded_seconds) {
  std::vector<svg::Series> delta, cost, compute;
  for (const auto& r : runs) {
    svg::Series d{r.name, {}, true}, c{r.name, {}, true}, t{r.name, {}, false};
    for (std::size_t i = 0; i < r.iterations.size(); ++i) {
      const auto& x = r.iterations[i];
      if (x.delta > 0) d.points.emplace_back(static_cast<double>(i), x.delta);
      if (x.migration > 0) c.points.emplace_back(static_cast<double>(i), x.migration * 1e3);
      t.points.emplace_back(static_cast<double>(i), x.wall * 1e3);
    }
    delta.push_back(d);
    cost.push_back(c);
    compute.push_back(t);
  }
  // Where the time of one policy's iterations goes (the last policy run: the demo's own, by default).
  const RunResult& shown = runs.back();
  std::vector<svg::Series> parts{{"compute", {}, false}, {"ghost exchange", {}, false},
                                 {"coordination", {}, false}, {"migration", {}, false}};
  std::vector<svg::Series> rows;
  for (std::size_t i = 0; i < shown.iterations.size(); ++i) {
    const auto& x = shown.iterations[i];
    const double at = static_cast<double>(i);
    parts[0].points.emplace_back(at, x.compute * 1e3);
    parts[1].points.emplace_back(at, x.exchange * 1e3);
    parts[2].points.emplace_back(at, x.coordination * 1e3);
    parts[3].points.emplace_back(at, x.migration * 1e3);
  }
  for (const auto& r : runs) {
    svg::Series s{r.name, {}, true};
    for (std::size_t i = 0; i < r.iterations.size(); ++i)
      if (r.iterations[i].rows_moved > 0) s.points.emplace_back(static_cast<double>(i), static_cast<double>(r.iterations[i].rows_moved));
    rows.push_back(s);
  }
  std::vector<std::pair<std::string, double>> bars{{"unloaded", 1.0}};
  for (const auto& r : runs) bars.emplace_back(r.name, r.seconds / unloaded_seconds);
  std::ostringstream body;
  svg::line_panel(body, 0, 0, 900, 260, "Δ of each migration (D3-ARC Fig. 14)", "iteration", "Δ", delta);
  svg::line_panel(body, 0, 260, 900, 260, "migration cost (D3-ARC Fig. 15)", "iteration", "ms", cost);
  svg::line_panel(body, 0, 520, 900, 260, "time per iteration (wall clock of rank 0, balancing included)",
                  "iteration", "ms", compute);
  svg::line_panel(body, 0, 780, 900, 260, "rows moved by each migration", "iteration", "rows", rows);
  svg::line_panel(body, 0, 1040, 900, 260, "where the time of '" + shown.name + "' goes (slowest rank per part)",
                  "iteration", "ms", parts);
  svg::bar_panel(body, 0, 1310, 900, "time to solution relative to the unloaded run", bars, 1.0);
  svg::write(path, 900, 1350 + 22.0 * static_cast<double>(bars.size()), body);
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Adaptive red-black SOR under emulated load: time to solution per balancing policy"};
  adaptive_sor::Problem pb;
  std::string load_text = "1:2@40-220,2:2@100-220";
  std::vector<std::string> policies{"none", "full", "static-0.1", "static-0.3", "static-0.6",
                                    "d3arc-adaptive", "amortised-20", "horizon"};
  std::string out_dir = "demo-results";
  app.add_option("--n", pb.n, "interior grid points per dimension")->check(CLI::Range(tessera::index_t{8}, tessera::index_t{1} << 15));
  app.add_option("--iterations", pb.iterations, "SOR iterations per run")->check(CLI::Range(1, 1000000));
  app.add_option("--interval", pb.interval, "iterations between remap points")->check(CLI::Range(1, 100000));
  double work_us = pb.work_per_row * 1e6;
  app.add_option("--work-per-row-us", work_us,
                 "emulated work per owned row and iteration, slept (0: only the real sweeps)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--extra-arrays", pb.extra_arrays,
                 "arrays besides u and f that every migration carries (checked at the end of each run)")
      ->check(CLI::Range(0, 64));
  app.add_option("--load", load_text, "emulated load: RANK:FACTOR@FIRST-LAST,... (iterations [FIRST, LAST)) or none");
  app.add_option("--policies", policies, "policies to run: none full static-<Δ> d3arc-adaptive amortised-<K> horizon");
  app.add_option("--out", out_dir, "folder for summary.json, iterations.csv and balance.svg (none: write nothing)");
  std::string solution_path;
  app.add_option("--solution-out", solution_path,
                 "also write the unloaded run's solution here: n x n doubles, row-major, native byte order "
                 "(the Python version, examples/python/adaptive_sor.py, is compared with it)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  pb.work_per_row = work_us * 1e-6;
  try {
    const auto load = tessera::EmulatedLoad::parse(load_text);
    for (const auto& p : load.periods())
      if (p.rank >= world.size())
        throw tessera::Error(tessera::ErrorCode::invalid_argument,
                             "--load: rank " + std::to_string(p.rank) + " does not exist in a run on " +
                                 std::to_string(world.size()) + " ranks");
    std::vector<std::shared_ptr<tessera::BalancePolicy>> made;
    for (const auto& name : policies) made.push_back(tessera::make_policy(name));  // all errors before any run
    const bool root = world.rank() == 0;
    if (root)
      std::printf("adaptive SOR: %lld x %lld, %d iterations, %d ranks, remap every %d, emulated work %.0f us/row, load %s\n",
                  static_cast<long long>(pb.n), static_cast<long long>(pb.n), pb.iterations, world.size(), pb.interval,
                  work_us, load_text.c_str());
    Progress progress{"unloaded", pb.iterations};
    const RunResult unloaded = adaptive_sor::run(world, pb, "unloaded", nullptr, tessera::EmulatedLoad(), progress);
    bool all_equal = unloaded.extra_mismatches == 0;
    if (root) progress.finish(unloaded.seconds);
    if (root && !solution_path.empty()) {
      std::ofstream file(solution_path, std::ios::binary);
      file.write(reinterpret_cast<const char*>(unloaded.solution.data()),
                 static_cast<std::streamsize>(unloaded.solution.size() * sizeof(double)));
      if (!file) {  // rank 0 alone knows: end the job rather than leave the others waiting
        std::fprintf(stderr, "adaptive_sor: --solution-out: cannot write '%s'\n", solution_path.c_str());
        MPI_Abort(world.raw(), 2);
      }
    }
    std::vector<RunResult> runs;
    for (std::size_t k = 0; k < policies.size(); ++k) {
      progress.label = policies[k];
      runs.push_back(adaptive_sor::run(world, pb, policies[k], made[k], load, progress));
      if (root) {
        progress.finish(runs.back().seconds);
        // Red-black SOR does not depend on the distribution: every run must match the reference exactly.
        all_equal = all_equal && max_difference(runs.back().solution, unloaded.solution) == 0 &&
                    runs.back().extra_mismatches == 0;
      }
    }
    int ok = all_equal ? 1 : 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, world.raw());
    if (!root) return ok ? 0 : 1;
    double none_seconds = 0;
    for (const auto& r : runs)
      if (r.name == "none") none_seconds = r.seconds;
    std::printf("\n| policy | time to solution (s) | vs no rebalancing | vs unloaded | migrations | MB moved | reallocations |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::printf("| unloaded | %.3f | %s | 1.00 | 0 | 0 | 0 |\n", unloaded.seconds,
                none_seconds > 0 ? (std::to_string(unloaded.seconds / none_seconds).substr(0, 4)).c_str() : "-");
    for (const auto& r : runs)
      std::printf("| %s | %.3f | %s | %.2f | %d | %.1f | %llu |\n", r.name.c_str(), r.seconds,
                  none_seconds > 0 ? std::to_string(r.seconds / none_seconds).substr(0, 4).c_str() : "-",
                  r.seconds / unloaded.seconds, r.migrations, static_cast<double>(r.bytes_moved) / 1e6,
                  static_cast<unsigned long long>(r.reallocations));
    // What the domain's exchange cache did in each run (rank 0): after the first iteration every
    // ghost update and gather is a hit; a migration retires the distribution's entries.
    std::printf("\nexchange cache on rank 0 at the end of each run:\n");
    for (const auto& r : runs) std::printf("  %-16s %s\n", r.name.c_str(), r.cache.c_str());
    if (out_dir != "none" && !out_dir.empty()) {
      std::filesystem::create_directories(out_dir);
      write_csv(out_dir + "/iterations.csv", runs);
      write_summary(out_dir + "/summary.json", pb, world.size(), load_text, unloaded, runs, none_seconds);
      write_plot(out_dir + "/balance.svg", runs, unloaded.seconds);
      std::printf("\nwrote %s/summary.json, %s/iterations.csv, %s/balance.svg\n", out_dir.c_str(), out_dir.c_str(),
                  out_dir.c_str());
    }
    std::printf("%s\n", all_equal ? "every run computed the unloaded run's solution bit for bit"
                                   : "MISMATCH: a run computed a different solution");
    return all_equal ? 0 : 1;
  } catch (const tessera::Error& e) {
    if (world.rank() == 0) std::fprintf(stderr, "adaptive_sor: %s\n", e.what());
    return 2;
  }
}
