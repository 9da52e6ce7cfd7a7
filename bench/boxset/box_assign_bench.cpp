// Box assignment at scale (issue 16): greedy knapsack (tessera::assign_knapsack) against the
// space-filling curves (tessera::assign_morton, tessera::assign_hilbert) for about 10^6 boxes over
// 10^4 simulated ranks. No
// communication is involved (every rank would compute the same owners); the driver runs on one rank
// and every rank of a larger job repeats the same work.
//
// The boxes: a K x K lattice whose column widths and row heights are drawn (fixed seed) from
// [4, 32], so box cell counts range over 16-1024, with every 7th box left out (holes); weights are
// the cell counts (the policies' default, what make_box_set uses without measured times).
//
// Records per policy (op "box-assign", case "<policy>-<boxes>boxes-<ranks>ranks"):
//  - median_s: seconds per assignment (the policy call alone, not the BoxSet built from it); the
//    policies alternate (support/bench_timing.hpp). No anchor: both are tessera's, and neither
//    is the other's reference (anchor null).
//  - max_over_mean: the heaviest simulated rank's cells over the mean (1 is perfect).
//  - halo_cells: ghost cells of width 1 (corners too, not periodic) that a box receives from a box
//    of another rank, summed over boxes: the communication volume a halo exchange would move.
//  - neighbour_pairs: unordered pairs of ranks whose boxes touch (within the ghost width): the
//    messages of a halo exchange, halved.
// The last three from tessera::assignment_quality (through a BoxIndex). Checks, aborting on failure:
// every owner a rank in range, the knapsack's heaviest load at most the mean plus the heaviest box
// (its guarantee), and every rank's Morton and Hilbert run within one heaviest box of the mean.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/balance/box_balance.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/box_assignment.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_box_assign";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

/// About `count` boxes: a K x K lattice of cuts 4-32 apart (fixed seed), every 7th box left out.
std::vector<Box<2>> lattice(std::size_t count) {
  const auto k = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count) * 7.0 / 6.0)));
  std::mt19937_64 random(16);
  std::uniform_int_distribution<index_t> gap(4, 32);
  std::vector<index_t> cuts(k + 1, 0);
  for (std::size_t i = 1; i <= k; ++i) cuts[i] = cuts[i - 1] + gap(random);
  std::vector<index_t> rows(k + 1, 0);
  for (std::size_t i = 1; i <= k; ++i) rows[i] = rows[i - 1] + gap(random);
  std::vector<Box<2>> boxes;
  boxes.reserve(count);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j)
      if ((i * k + j) % 7 != 3) boxes.push_back(Box<2>({rows[i], cuts[j]}, {rows[i + 1], cuts[j + 1]}));
  return boxes;
}

/// Each simulated rank's cells.
std::vector<double> loads(const std::vector<Box<2>>& boxes, const std::vector<int>& owners, int ranks) {
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  for (std::size_t i = 0; i < boxes.size(); ++i) load[static_cast<std::size_t>(owners[i])] += static_cast<double>(volume(boxes[i]));
  return load;
}

/// Aborts unless every rank's load lies in [mean - low, mean + high] (`what` names the policy).
void check_loads(const std::vector<Box<2>>& boxes, const std::vector<int>& owners, int ranks, double low, double high,
                 const std::string& what) {
  for (const int o : owners)
    if (o < 0 || o >= ranks) abort_job(what + ": owner " + std::to_string(o) + " is not a rank");
  const auto load = loads(boxes, owners, ranks);
  double total = 0;
  for (const double l : load) total += l;
  const double mean = total / ranks;
  for (std::size_t r = 0; r < load.size(); ++r)
    if (load[r] > mean + high || load[r] < mean - low)
      abort_job(what + ": rank " + std::to_string(r) + " holds " + tessera::bench::exact(load[r]) +
                " cells, outside its bound around the mean " + tessera::bench::exact(mean));
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Box assignment at scale: knapsack against Morton and Hilbert order, time and quality"};
  std::vector<std::size_t> counts{1000000};
  int per_rank = 100, reps = 5, warmup = 1;
  std::string json;
  app.add_option("--boxes", counts, "about this many boxes per case")->delimiter(',')->check(CLI::Range(std::size_t{1}, std::size_t{1} << 26));
  app.add_option("--boxes-per-rank", per_rank, "simulated ranks = boxes / this")->check(CLI::Range(1, 1 << 20));
  app.add_option("--repetitions", reps, "timed assignments per policy")->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", warmup, "untimed assignments per policy first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(print, "policy case", 34,
                                    {{"assign ms", 10, 1}, {"min", 9, 1}, {"max/mean", 9, 4}, {"halo cells", 12, 0},
                                     {"rank pairs", 11, 0}});
  if (print)
    std::printf("box assignment on one rank, simulated ranks = boxes / %d; time per assignment, quality of the result\n",
                per_rank);
  table.print_header();
  std::vector<Record> records;
  for (const std::size_t count : counts) {
    const auto boxes = lattice(count);
    const int ranks = std::max(1, static_cast<int>(boxes.size() / static_cast<std::size_t>(per_rank)));
    std::vector<int> knapsack, morton, hilbert;
    const auto t = tessera::bench::time_alternating(
        world.raw(),
        {[&] { knapsack = tessera::assign_knapsack<2>(boxes, ranks); }, [&] { morton = tessera::assign_morton<2>(boxes, ranks); },
         [&] { hilbert = tessera::assign_hilbert<2>(boxes, ranks); }},
        warmup, reps);
    double heaviest = 0;
    for (const auto& b : boxes) heaviest = std::max(heaviest, static_cast<double>(volume(b)));
    check_loads(boxes, knapsack, ranks, std::numeric_limits<double>::infinity(), heaviest, "knapsack");
    check_loads(boxes, morton, ranks, heaviest, heaviest, "morton");
    check_loads(boxes, hilbert, ranks, heaviest, heaviest, "hilbert");
    const std::string tail = "-" + std::to_string(boxes.size()) + "boxes-" + std::to_string(ranks) + "ranks";
    const std::vector<std::pair<std::string, const std::vector<int>*>> policies{{"knapsack", &knapsack}, {"morton", &morton},
                                                                                {"hilbert", &hilbert}};
    for (std::size_t p = 0; p < policies.size(); ++p) {
      const auto& [policy, owners] = policies[p];
      const auto q = tessera::assignment_quality<2>(boxes, *owners, ranks);
      const std::string name = policy + tail;
      records.push_back(Record::timing("box-assign", name, world.size(), t[p]));
      records.push_back(Record::count("box-assign", name, world.size(), "max_over_mean", q.max_over_mean));
      records.push_back(Record::count("box-assign", name, world.size(), "halo_cells", static_cast<double>(q.halo_cells)));
      records.push_back(
          Record::count("box-assign", name, world.size(), "neighbour_pairs", static_cast<double>(q.neighbour_pairs)));
      table.print_row(name, {1e3 * t[p].median, 1e3 * t[p].min, q.max_over_mean, static_cast<double>(q.halo_cells),
                             static_cast<double>(q.neighbour_pairs)});
    }
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
