// Gather to one rank and scatter from it: DistArray::gather_to(root) and scatter_from(root) against
// the code an HPC user writes by hand (anchors "mpi-gatherv-subarray" and "mpi-scatterv-subarray":
// on the root, MPI_Type_create_subarray of one rank's block resized to the extent of one double,
// so that MPI_Gatherv / MPI_Scatterv displacements are element offsets of each block's corner).
//
// Every case is an n x n array of doubles under block x block on a grid of ranks: "rows" is P x 1
// (each rank's block is contiguous in the global array), "blocks" the most nearly square grid with
// at least as many columns as rows (1 x 2 on 2 ranks: each block is a strided column panel). The
// anchor needs equal blocks, so a case whose n the grid does not divide is skipped, with a note.
//
// Both codes read the same data (the gather anchor sends straight from the DistArray's storage,
// which is the row-major owned block), every result is checked against the global values and the
// two are compared bit for bit; the job aborts on any difference. The gather timed against the
// anchor is gather_to(root, span), which writes into storage the caller keeps, as MPI_Gatherv does;
// gather_to(root), which returns a new zero-filled vector each call, is timed too (op
// "gather-vector", no anchor: that allocation is part of that form's API, not of the operation).
//
// Allocations: each driver run also reports "allocations_per_run" (op "gather" and "scatter"): the
// calls of operator new per gather_to(root, span) / scatter_from, counted over repetitions after
// the first execution (support/allocation_counter.hpp; max over ranks). The target is 0.
//
// Timing: the two codes alternate, each run timed with MPI_Wtime between barriers; the max over
// ranks is taken per repetition (bench/support/bench_timing.hpp). --breakdown splits tessera's
// calls into what each does per call: allocate the result (gather_to), make a Mover (its buffers
// and datatypes) and run it.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "support/allocation_counter.hpp"  // this driver's only TU: counts operator new
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_gather";
constexpr const char* kGatherAnchor = "mpi-gatherv-subarray";
constexpr const char* kScatterAnchor = "mpi-scatterv-subarray";
constexpr int kRoot = 0;

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

double value_of(index_t i, index_t j, index_t n) { return static_cast<double>(i * n + j + 1); }

struct Case {
  std::string kind;  // "rows" or "blocks"
  std::array<int, 2> grid{};
  index_t n = 0;
  [[nodiscard]] std::string name() const {
    return kind + "-" + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "-" + std::to_string(n);
  }
};

/// The hand-written gather and scatter: equal blocks of (n / g0) x (n / g1), rank r at grid
/// position (r / g1, r % g1) (row-major, as MPI_Cart; checked against tessera's grid by the caller).
class SubarrayGatherv {
 public:
  SubarrayGatherv(MPI_Comm comm, index_t n, const std::array<int, 2>& grid) : comm_(comm) {
    const int ranks = grid[0] * grid[1];
    rows_ = static_cast<int>(n / grid[0]);
    cols_ = static_cast<int>(n / grid[1]);
    const std::array<int, 2> sizes{static_cast<int>(n), static_cast<int>(n)}, sub{rows_, cols_}, start{0, 0};
    MPI_Datatype block = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_subarray(2, sizes.data(), sub.data(), start.data(), MPI_ORDER_C, MPI_DOUBLE, &block),
              "MPI_Type_create_subarray");
    // Extent of one double: displacement k then means "the block whose corner is element k".
    check_mpi(MPI_Type_create_resized(block, 0, sizeof(double), &block_), "MPI_Type_create_resized");
    check_mpi(MPI_Type_commit(&block_), "MPI_Type_commit");
    MPI_Type_free(&block);
    counts_.assign(static_cast<std::size_t>(ranks), 1);
    for (int r = 0; r < ranks; ++r)
      displs_.push_back((r / grid[1]) * rows_ * static_cast<int>(n) + (r % grid[1]) * cols_);
  }
  ~SubarrayGatherv() { MPI_Type_free(&block_); }
  SubarrayGatherv(const SubarrayGatherv&) = delete;
  SubarrayGatherv& operator=(const SubarrayGatherv&) = delete;

  /// Collective: every rank's block (`local`, row-major) into `global` (row-major n x n) on root.
  void gather(const double* local, double* global) const {
    check_mpi(
        MPI_Gatherv(local, rows_ * cols_, MPI_DOUBLE, global, counts_.data(), displs_.data(), block_, kRoot, comm_),
        "MPI_Gatherv");
  }
  /// Collective: root's `global` cut into every rank's `local` block.
  void scatter(const double* global, double* local) const {
    check_mpi(
        MPI_Scatterv(global, counts_.data(), displs_.data(), block_, local, rows_ * cols_, MPI_DOUBLE, kRoot, comm_),
        "MPI_Scatterv");
  }

 private:
  MPI_Comm comm_;
  int rows_ = 0, cols_ = 0;
  MPI_Datatype block_ = MPI_DATATYPE_NULL;
  std::vector<int> counts_, displs_;
};

struct Options {
  int repetitions = 0;  // 0: by size
  int warmup = 2;
  bool breakdown = false;
};

struct Result {
  std::string name;
  Summary gather, gather_anchor, scatter, scatter_anchor;
  Summary gather_vector;  // gather_to(root): returns a new vector (no anchor)
  double gather_allocations = 0, scatter_allocations = 0;  // per run after the first, max over ranks
};

/// Collective: calls of operator new per run of `f`, over `runs` runs (f has run before), max over ranks.
template <class F>
double allocations_per_run(MPI_Comm comm, int runs, F&& f) {
  const auto before = tessera::bench::allocations();
  for (int i = 0; i < runs; ++i) f();
  double per_run = static_cast<double>(tessera::bench::allocations() - before) / runs;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &per_run, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return per_run;
}

/// Aborts unless `got` equals the global row-major n x n array of value_of, bit for bit.
void check_global(const std::vector<double>& got, index_t n, const std::string& what) {
  if (static_cast<index_t>(got.size()) != n * n)
    abort_job(what + ": holds " + std::to_string(got.size()) + " elements, expected " + std::to_string(n * n));
  for (index_t k = 0; k < n * n; ++k)
    if (got[static_cast<std::size_t>(k)] != value_of(k / n, k % n, n))
      abort_job(what + ": wrong at global (" + std::to_string(k / n) + ", " + std::to_string(k % n) +
                "): " + tessera::bench::exact(got[static_cast<std::size_t>(k)]));
}

/// Where gather_to and scatter_from spend their time: the same schedules (the ones they keep in the
/// domain's cache: gather_schedule, scatter_schedule), a Mover made per call, and a Mover made once
/// and run on preallocated arrays. The anchor runs untimed before each part. Prints on rank 0. Collective.
void breakdown(const tessera::Communicator& world, tessera::DistArray<double, 2>& a, const SubarrayGatherv& anchor,
               const std::vector<double>& global, std::vector<double>& by_anchor, std::vector<double>& block,
               int reps) {
  const auto& dom = a.domain();
  const int rank = world.rank();
  const auto misses = dom.cache().stats().schedule_misses;
  const auto to_root = tessera::gather_schedule(dom.distribution(), a.ghosts(), kRoot, rank, &dom.cache());
  const auto from_root = tessera::scatter_schedule(dom.distribution(), a.ghosts(), kRoot, rank, &dom.cache());
  // Cache hits prove these are the schedules gather_to and scatter_from ran.
  const bool same = dom.cache().stats().schedule_misses == misses;
  const MPI_Comm comm = world.raw();
  const auto gather_first = [&] { anchor.gather(a.data(), by_anchor.data()); };
  const auto scatter_first = [&] { anchor.scatter(global.data(), block.data()); };
  std::vector<double> result(global.size());
  const double allocate = tessera::bench::time_part(comm, reps, gather_first, [&] {
    std::vector<double> fresh(global.size());  // what gather_to returns on the root, zero-filled
    tessera::bench::escape(fresh.data());
  });
  const double make_gather =
      tessera::bench::time_part(comm, reps, gather_first, [&] { tessera::Mover m(world, to_root, sizeof(double)); });
  const double make_scatter =
      tessera::bench::time_part(comm, reps, scatter_first, [&] { tessera::Mover m(world, from_root, sizeof(double)); });
  tessera::Mover gather_mover(world, to_root, sizeof(double)), scatter_mover(world, from_root, sizeof(double));
  double* into = result.empty() ? &result.emplace_back() : result.data();  // never hand the mover null
  const double* from = global.empty() ? into : global.data();
  const double run_gather =
      tessera::bench::time_part(comm, reps, gather_first, [&] { gather_mover.run(a.data(), into); });
  const double run_scatter =
      tessera::bench::time_part(comm, reps, scatter_first, [&] { scatter_mover.run(from, a.data()); });
  if (rank != 0) return;
  std::printf("  breakdown (ms, medians, max over ranks)%s:\n",
              same ? "" : " [schedules NOT those of gather_to/scatter_from: cache missed]");
  std::printf(
      "    gather_to per call: allocate the zero-filled result %.3f + make a Mover %.3f (%llu buffer(s)) + run "
      "%.3f\n",
      1e3 * allocate, 1e3 * make_gather, static_cast<unsigned long long>(gather_mover.stats().buffer_allocations),
      1e3 * run_gather);
  std::printf("    scatter_from per call: make a Mover %.3f (%llu buffer(s)) + run %.3f\n", 1e3 * make_scatter,
              static_cast<unsigned long long>(scatter_mover.stats().buffer_allocations), 1e3 * run_scatter);
  std::fflush(stdout);
}

Result run_case(const tessera::Communicator& world, const Case& c, const Options& opt,
                const tessera::bench::Table& table) {
  const int rank = world.rank(), size = world.size();
  const index_t n = c.n;
  const auto grid = tessera::ProcGrid<2>::with_shape(size, Point<2>{c.grid[0], c.grid[1]});
  if (grid.position_of(rank) != std::optional<Point<2>>(Point<2>{rank / c.grid[1], rank % c.grid[1]}))
    abort_job(c.name() + ": tessera's grid does not place ranks in row-major (MPI_Cart) order");
  tessera::Domain<2> dom(world, tessera::Distribution<2>(Box<2>::from_extents(Point<2>::filled(n)), grid,
                                                         {tessera::block(), tessera::block()}));
  tessera::DistArray<double, 2> a(dom);
  SubarrayGatherv anchor(MPI_COMM_WORLD, n, c.grid);  // tessera's messages are on its own duplicate

  const Box<2> mine =
      Box<2>::from_extents(Point<2>{rank / c.grid[1] * (n / c.grid[0]), rank % c.grid[1] * (n / c.grid[1])},
                           Point<2>{n / c.grid[0], n / c.grid[1]});
  if (a.patch_count() != 1 || a.owned_box() != mine || static_cast<index_t>(a.storage().size()) != volume(mine))
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera's local block is not the anchor's equal block");

  // --- gather: both codes send the same storage ------------------------------------------------------
  a.for_each_owned([&](const Point<2>& p, double& x) { x = value_of(p[0], p[1], n); });
  const bool root = rank == kRoot;
  std::vector<double> by_anchor(root ? static_cast<std::size_t>(n * n) : 0, -1.0), by_tessera;
  std::vector<double> into(root ? static_cast<std::size_t>(n * n) : 0, -1.0);  // gather_to(root, span)
  by_tessera = a.gather_to(kRoot);
  a.gather_to(kRoot, std::span<double>(into));
  anchor.gather(a.data(), by_anchor.data());
  if (root) {
    check_global(by_tessera, n, c.name() + ": gather_to");
    check_global(into, n, c.name() + ": gather_to (span)");
    if (std::memcmp(by_tessera.data(), by_anchor.data(), by_anchor.size() * sizeof(double)) != 0)
      abort_job(c.name() + ": gather_to and MPI_Gatherv differ");
  }

  // --- scatter: the same global array on root into tessera's array and the anchor's block ----------
  std::vector<double> global(root ? static_cast<std::size_t>(n * n) : 0);
  for (std::size_t k = 0; k < global.size(); ++k)
    global[k] = value_of(static_cast<index_t>(k) / n, static_cast<index_t>(k) % n, n);
  std::vector<double> block(a.storage().size(), -1.0);
  std::fill(a.storage().begin(), a.storage().end(), -1.0);
  a.scatter_from(kRoot, global);
  anchor.scatter(global.data(), block.data());
  a.for_each_owned([&](const Point<2>& p, const double& x) {
    if (x != value_of(p[0], p[1], n))
      abort_job(c.name() + ": rank " + std::to_string(rank) + ": scatter_from wrote a wrong value at (" +
                std::to_string(p[0]) + ", " + std::to_string(p[1]) + ")");
  });
  if (std::memcmp(a.data(), block.data(), block.size() * sizeof(double)) != 0)
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": scatter_from and MPI_Scatterv differ");

  const double array_bytes = static_cast<double>(n) * static_cast<double>(n) * sizeof(double);
  const int reps = opt.repetitions > 0                ? opt.repetitions
                   : array_bytes <= 8.0 * (1 << 20)   ? 50
                   : array_bytes <= 128.0 * (1 << 20) ? 20
                                                      : 10;
  const std::span<const double> source(global);
  const std::span<double> out(into);
  const auto g = tessera::bench::time_alternating(world.raw(),
                                                  {[&] { a.gather_to(kRoot, out); },
                                                   [&] { anchor.gather(a.data(), by_anchor.data()); },
                                                   [&] { by_tessera = a.gather_to(kRoot); }},
                                                  opt.warmup, reps);
  const auto s = tessera::bench::time_alternating(
      world.raw(), {[&] { a.scatter_from(kRoot, source); }, [&] { anchor.scatter(global.data(), block.data()); }},
      opt.warmup, reps);

  if (root) check_global(into, n, c.name() + ": gather_to (span), after the timed runs");
  Result res{c.name(), g[0], g[1], s[0], s[1], g[2], 0, 0};
  res.gather_allocations = allocations_per_run(world.raw(), reps, [&] { a.gather_to(kRoot, out); });
  res.scatter_allocations = allocations_per_run(world.raw(), reps, [&] { a.scatter_from(kRoot, source); });
  table.print_row("gather  " + res.name,
                  {array_bytes, 1e3 * res.gather.median, 1e3 * res.gather.min, 1e3 * res.gather_anchor.median,
                   1e3 * res.gather_anchor.min, res.gather.median / res.gather_anchor.median});
  table.print_row("scatter " + res.name,
                  {array_bytes, 1e3 * res.scatter.median, 1e3 * res.scatter.min, 1e3 * res.scatter_anchor.median,
                   1e3 * res.scatter_anchor.min, res.scatter.median / res.scatter_anchor.median});
  table.print_row("gather (vector) " + res.name,
                  {array_bytes, 1e3 * res.gather_vector.median, 1e3 * res.gather_vector.min,
                   1e3 * res.gather_anchor.median, 1e3 * res.gather_anchor.min,
                   res.gather_vector.median / res.gather_anchor.median});
  if (world.rank() == 0)
    std::printf("  allocations per run after the first: gather_to(span) %g, scatter_from %g\n",
                res.gather_allocations, res.scatter_allocations);
  if (opt.breakdown) breakdown(world, a, anchor, global, by_anchor, block, reps);
  return res;
}

std::vector<Case> make_cases(const std::vector<index_t>& sizes, int ranks) {
  // The most nearly square grid (MPI_Dims_create: non-increasing extents), turned to have at least
  // as many columns as rows, so that on 2 ranks the blocks are column panels, not rows again.
  std::array<int, 2> dims{0, 0};
  check_mpi(MPI_Dims_create(ranks, 2, dims.data()), "MPI_Dims_create");
  const std::array<int, 2> blocks{dims[1], dims[0]}, rows{ranks, 1};
  std::vector<Case> cases;
  for (const index_t n : sizes) {
    cases.push_back({"rows", rows, n});
    if (blocks != rows) cases.push_back({"blocks", blocks, n});
  }
  return cases;
}

std::vector<Record> records_of(const std::vector<Result>& results, int ranks) {
  std::vector<Record> out;
  for (const Result& r : results) {
    out.push_back(Record::timing("gather", r.name, ranks, r.gather, kGatherAnchor, r.gather_anchor));
    out.push_back(Record::timing("scatter", r.name, ranks, r.scatter, kScatterAnchor, r.scatter_anchor));
    out.push_back(Record::timing("gather-vector", r.name, ranks, r.gather_vector));
    out.push_back(Record::count("gather", r.name, ranks, "allocations_per_run", r.gather_allocations));
    out.push_back(Record::count("scatter", r.name, ranks, "allocations_per_run", r.scatter_allocations));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Gather to / scatter from one rank: DistArray against MPI_Gatherv / MPI_Scatterv with subarray types"};
  std::vector<index_t> sizes{1024, 4096};
  std::string json, filter;
  Options opt;
  // n * n must fit MPI's int counts and displacements.
  app.add_option("--sizes", sizes, "points per dimension")
      ->delimiter(',')
      ->check(CLI::Range(index_t{1}, index_t{46340}));
  app.add_option("--repetitions", opt.repetitions, "timed runs per case and operation (0: 50, 20 or 10 by size)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", opt.warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  app.add_flag("--breakdown", opt.breakdown, "also time the parts of gather_to and scatter_from apart");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  auto cases = make_cases(sizes, world.size());
  std::erase_if(cases, [&](const Case& c) { return c.name().find(filter) == std::string::npos; });
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(
      print, "operation case", 30,
      {{"bytes", 12, 0}, {"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf(
        "gather to / scatter from rank %d of n x n doubles, %d ranks; milliseconds per run, max over ranks\n"
        "anchors: %s, %s\n",
        kRoot, world.size(), kGatherAnchor, kScatterAnchor);
  table.print_header();
  std::vector<Result> results;
  for (const Case& c : cases) {
    if (c.n % c.grid[0] != 0 || c.n % c.grid[1] != 0) {
      if (print)
        std::printf("%s: skipped (the anchor needs equal blocks: %d x %d does not divide n)\n", c.name().c_str(),
                    c.grid[0], c.grid[1]);
      continue;
    }
    results.push_back(run_case(world, c, opt, table));
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records_of(results, world.size()), kProgram);
  return 0;
}
