// ZPL's flood (tessera::flood into an array {block(), flooded()}) against the code an MPI user
// writes by hand for the same panel, SUMMA's broadcast: the grid column owning columns [k, k + b)
// of an n x n block x block matrix packs its rows of them and MPI_Bcast sends them along each grid
// row (a communicator split per grid row).
//
// Both end with every rank holding its row block of the panel, dense and row-major; the results are
// compared with each other and with the closed form of A's elements, and the job aborts on any
// difference. Timing: the two codes alternate, each run timed with MPI_Wtime between barriers; the
// max over ranks is taken per repetition (bench/support/bench_timing.hpp). The flood's owner copies
// the panel into its own replica, then sends it from there to each other rank of the grid row as
// point-to-point messages (no tree); MPI_Bcast may use one.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/flood.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_flood";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

double value_of(const Point<2>& p) { return static_cast<double>(p[0]) * 1e-3 + static_cast<double>(p[1]); }

struct Result {
  std::string name;
  Summary mine, anchor;
};

Result run_case(const tessera::Communicator& world, index_t n, index_t b, const std::vector<int>& grid_shape, int reps,
                int warmup, const tessera::bench::Table& table) {
  const auto grid = grid_shape.empty()
                        ? tessera::ProcGrid<2>::automatic(world, {n, n})
                        : tessera::ProcGrid<2>::with_shape(world.size(), {grid_shape[0], grid_shape[1]});
  tessera::Domain<2> dom(world, tessera::Distribution<2>(Box<2>({0, 0}, {n, n}), grid, {tessera::block(), tessera::block()}));
  tessera::Domain<2> panel_dom(world, tessera::Distribution<2>(Box<2>({0, 0}, {n, b}), grid,
                                                               {tessera::block(), tessera::flooded()}));
  tessera::DistArray<double, 2> a(dom), col(panel_dom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  // The panel: the last b columns of grid column 0's block, so that one rank of each grid row owns it.
  const tessera::DimDistribution& cols = dom.distribution().dim(1);
  const index_t k = std::max<index_t>(0, cols.local_count(0) - b);
  if (cols.owner(k) != cols.owner(k + b - 1)) abort_job("the panel straddles two grid columns: use a smaller --panel");
  const Point<2> me = *grid.position_of(world.rank());
  MPI_Comm row_comm = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(world.raw(), static_cast<int>(me[0]), static_cast<int>(me[1]), &row_comm), "MPI_Comm_split");
  const int root = cols.owner(k);
  const index_t rows = dom.distribution().local_extents(world.rank())[0];
  std::vector<double> by_anchor(static_cast<std::size_t>(rows * b));
  const Box<2> own = a.patch_count() > 0 ? a.owned_box() : Box<2>{};
  const auto mine = [&] { tessera::flood(a, Box<2>({0, k}, {n, k + b}), col); };
  const auto anchor = [&] {
    if (by_anchor.empty()) return;
    if (me[1] == root) {
      const auto av = std::as_const(a).local();
      for (index_t i = 0; i < rows; ++i)
        for (index_t t = 0; t < b; ++t)
          by_anchor[static_cast<std::size_t>(i * b + t)] = av({i + av.ghost_lo[0], k + t - own.lo[1] + av.ghost_lo[1]});
    }
    check_mpi(MPI_Bcast(by_anchor.data(), static_cast<int>(by_anchor.size()), MPI_DOUBLE, root, row_comm), "MPI_Bcast");
  };
  mine();
  anchor();
  col.for_each_owned([&](const Point<2>& p, const double& x) {
    const double want = value_of({p[0], p[1] + k});
    const std::size_t at = static_cast<std::size_t>((p[0] - col.owned_box().lo[0]) * b + p[1]);
    if (x != want || by_anchor[at] != want)
      abort_job("n = " + std::to_string(n) + ": wrong panel element at (" + std::to_string(p[0]) + ", " +
                std::to_string(p[1]) + ")");
  });
  const auto t = tessera::bench::time_alternating(world.raw(), {mine, anchor}, warmup, reps);
  MPI_Comm_free(&row_comm);
  Result r{"panel-" + std::to_string(n) + "x" + std::to_string(b), t[0], t[1]};
  table.print_row("flood " + r.name, {static_cast<double>(n * b) * 8, 1e3 * r.mine.median, 1e3 * r.mine.min,
                                      1e3 * r.anchor.median, 1e3 * r.anchor.min, r.mine.median / r.anchor.median});
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Flood of a SUMMA panel (tessera::flood) against MPI_Bcast along the grid rows"};
  std::vector<index_t> sizes{256, 1024, 4096, 8192};
  index_t panel = 32;
  std::string json;
  int reps = 0, warmup = 2;
  app.add_option("--sizes", sizes, "n of the n x n matrix")->delimiter(',')->check(CLI::Range(index_t{1}, index_t{1} << 16));
  app.add_option("--panel", panel, "panel width b")->check(CLI::Range(index_t{1}, index_t{1} << 12));
  std::vector<int> grid_shape;
  app.add_option("--grid", grid_shape, "grid rows,columns (their product the rank count; default: automatic)")
      ->delimiter(',')
      ->expected(2)
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--repetitions", reps, "timed runs per case (0: 200 up to n = 8192, 20 above)")->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  if (!grid_shape.empty() && grid_shape[0] * grid_shape[1] != world.size()) {
    if (world.rank() == 0)
      std::fprintf(stderr, "bench_flood: --grid %d,%d has %d positions for %d ranks\n", grid_shape[0], grid_shape[1],
                   grid_shape[0] * grid_shape[1], world.size());
    return 2;
  }
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(
      print, "operation case", 28,
      {{"bytes", 12, 0}, {"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf("flood of an n x %lld panel along the grid rows, %d ranks; milliseconds per run, max over ranks\n"
                "anchor: mpi-bcast (pack on the owner, MPI_Bcast on a row communicator)\n",
                static_cast<long long>(panel), world.size());
  table.print_header();
  std::vector<Record> records;
  for (const index_t n : sizes) {
    const int r = reps > 0 ? reps : (n <= 8192 ? 200 : 20);
    const Result res = run_case(world, n, std::min(panel, n), grid_shape, r, warmup, table);
    records.push_back(Record::timing("flood", res.name, world.size(), res.mine, "mpi-bcast", res.anchor));
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
