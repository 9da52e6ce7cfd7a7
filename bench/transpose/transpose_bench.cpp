// Transpose: tessera's transpose() of a distributed array against FFTW-MPI's transpose plan (anchor
// "fftw-mpi-transpose": fftw_mpi_plan_many_transpose, out of place, FFTW_MEASURE unless --estimate),
// in the same MPI job, on the same data.
//
// Cases: "2d-<n>", the transpose of an n x n array of doubles (perm {1, 0}); "3d-swap01-<n>", axes 0
// and 1 of an n^3 array swapped (perm {1, 0, 2}; FFTW: an n x n transpose of n-tuples). Source and
// destination are split into blocks of rows along dimension 0 over all ranks, with FFTW's default
// blocks, which are tessera's block() when the rank count divides n (and a cut() at FFTW's
// boundaries otherwise); the driver checks that tessera's local arrays are FFTW's, element for
// element. After one transpose each, tessera's destination is checked against the values the
// transpose requires, FFTW's output against tessera's bit for bit, and FFTW's input against its
// original (out of place without FFTW_DESTROY_INPUT it must be preserved); the job aborts on any
// difference, so the timings are of two codes that provably do the same work.
//
// tessera's time is the whole transpose() call, as users make it: schedule lookup and mover lookup
// (both kept after the first call in the destination domain's exchange cache) and the
// execution. --breakdown times the parts apart (with a Mover made per call, as before the cache).
//
// Allocations: each case also reports "allocations_per_run", the calls of operator new per
// transpose() after the first execution (support/allocation_counter.hpp; max over ranks). Target 0.
//
// Timing: the two codes alternate (the order swaps every repetition), each transpose timed with
// MPI_Wtime between barriers; the max over ranks is taken per repetition.
#include <fftw3-mpi.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fftw_transpose.hpp"
#include "support/allocation_counter.hpp"  // this driver's only TU: counts operator new
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/array/remap.hpp"
#include "transpose_breakdown.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::FftwTranspose;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_transpose";
constexpr const char* kAnchor = "fftw-mpi-transpose";
constexpr const char* kAnchorEstimate = "fftw-mpi-transpose-estimate";  // planned without trial runs

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

struct Case {
  std::size_t dims = 2;
  index_t n = 0;
  [[nodiscard]] std::string name() const { return (dims == 2 ? "2d-" : "3d-swap01-") + std::to_string(n); }
};

struct Options {
  int repetitions = 0;  // 0: by size
  int warmup = 2;
  bool estimate = false;
  bool breakdown = false;
};

struct Result {
  std::string name;
  Summary tessera, anchor;
  double bytes_moved = 0;  // bytes that leave their rank, summed over ranks
  double fftw_plan_s = 0;  // FFTW's planning, max over ranks (reported, not part of the ratio)
  double allocations = 0;  // operator new calls per transpose() after the first, max over ranks
};

/// The value at global point p of an n^N array: 1 + its row-major index (exact in a double).
template <std::size_t N>
double value_of(const Point<N>& p, index_t n) {
  index_t linear = 0;
  for (std::size_t d = 0; d < N; ++d) linear = linear * n + p[d];
  return static_cast<double>(linear + 1);
}

/// The split of dimension 0 among the ranks, from every rank's (first row, row count) as FFTW
/// reports them: the ranks' boundaries, rank r owning [b[r], b[r + 1]).
std::vector<index_t> row_boundaries(MPI_Comm comm, index_t start, index_t count, index_t n) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const std::array<index_t, 2> mine{start, count};
  std::vector<index_t> all(2 * static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(mine.data(), 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm), "MPI_Allgather");
  std::vector<index_t> b{0};
  for (int r = 0; r < size; ++r) {
    const index_t first = all[2 * static_cast<std::size_t>(r)], rows = all[2 * static_cast<std::size_t>(r) + 1];
    if (rows > 0 && first != b.back()) abort_job("FFTW's row blocks are not contiguous in rank order");
    b.push_back(b.back() + rows);
  }
  if (b.back() != n) abort_job("FFTW's row blocks do not cover the " + std::to_string(n) + " rows");
  return b;
}

/// Rows split at `boundaries` along dimension 0 of an n^N array over all ranks: block() where the
/// boundaries are block()'s (the first n mod P ranks one row more), cut() otherwise.
template <std::size_t N>
tessera::Distribution<N> row_distribution(int ranks, index_t n, const std::vector<index_t>& boundaries) {
  std::vector<index_t> balanced;
  for (index_t c = 0; c <= ranks; ++c) balanced.push_back(c * (n / ranks) + std::min(c, n % ranks));
  Point<N> shape = Point<N>::filled(1);
  shape[0] = ranks;
  std::array<tessera::DimSpec, N> specs;
  specs.fill(tessera::block());
  if (boundaries != balanced) specs[0] = tessera::cut(boundaries);
  return tessera::Distribution<N>(Box<N>::from_extents(Point<N>::filled(n)),
                                  tessera::ProcGrid<N>::with_shape(ranks, shape), specs);
}

/// Aborts unless `array` stores rows [first, first + rows) of dimension 0 and nothing else, as FFTW
/// does (row-major, every other dimension whole).
template <std::size_t N>
void check_layout(const tessera::DistArray<double, N>& array, index_t first, index_t rows, const std::string& what) {
  const index_t n = extent(array.domain().box(), 1);
  index_t expected = rows;
  for (std::size_t d = 1; d < N; ++d) expected *= n;
  const bool same = static_cast<index_t>(array.storage().size()) == expected &&
                    (rows == 0 || (array.patch_count() == 1 && array.owned_box().lo[0] == first));
  if (!same) abort_job(what + ": tessera's local array is not laid out as FFTW's");
}

template <std::size_t N>
Result run_case(const tessera::Communicator& world, const Case& c, const Options& opt,
                const tessera::bench::Table& table) {
  const int rank = world.rank(), size = world.size();
  const index_t n = c.n, howmany = N == 3 ? n : 1;
  const std::string name = c.name();
  std::array<int, N> perm{};
  for (std::size_t d = 0; d < N; ++d) perm[d] = static_cast<int>(d);
  std::swap(perm[0], perm[1]);

  FftwTranspose fftw(MPI_COMM_WORLD, n, n, howmany, opt.estimate ? FFTW_ESTIMATE : FFTW_MEASURE);
  if (!fftw.planned()) abort_job(name + ": FFTW found no transpose plan");
  tessera::Domain<N> src_dom(
      world, row_distribution<N>(size, n, row_boundaries(world.raw(), fftw.local_0_start(), fftw.local_n0(), n)));
  tessera::Domain<N> dst_dom(
      world, row_distribution<N>(size, n, row_boundaries(world.raw(), fftw.local_1_start(), fftw.local_n1(), n)));
  tessera::DistArray<double, N> a(src_dom), at(dst_dom);
  check_layout(a, fftw.local_0_start(), fftw.local_n0(), name + " (source)");
  check_layout(at, fftw.local_1_start(), fftw.local_n1(), name + " (destination)");

  // The same data in both inputs (FFTW's planning has overwritten its arrays by now).
  a.for_each_owned([&](const Point<N>& p, double& x) { x = value_of(p, n); });
  std::copy(a.storage().begin(), a.storage().end(), fftw.in().begin());

  tessera::transpose(a, at, perm);
  fftw.run();
  at.for_each_owned([&](const Point<N>& q, const double& x) {
    Point<N> p;  // the source point: q[d] = p[perm[d]]
    for (std::size_t d = 0; d < N; ++d) p[static_cast<std::size_t>(perm[d])] = q[d];
    if (x != value_of(p, n))
      abort_job(name + ": rank " + std::to_string(rank) + ": tessera's transpose is wrong at destination point (" +
                std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", ...): " + tessera::bench::exact(x));
  });
  if (std::memcmp(at.data(), fftw.out().data(), fftw.out().size_bytes()) != 0)
    abort_job(name + ": rank " + std::to_string(rank) + ": tessera and FFTW-MPI differ");
  if (std::memcmp(a.data(), fftw.in().data(), fftw.in().size_bytes()) != 0)
    abort_job(name + ": rank " + std::to_string(rank) + ": FFTW-MPI changed its input (the timing assumes not)");

  const double array_bytes = static_cast<double>(a.storage().size()) * size * sizeof(double);
  const int reps = opt.repetitions > 0                ? opt.repetitions
                   : array_bytes <= 32.0 * (1 << 20)  ? 30
                   : array_bytes <= 256.0 * (1 << 20) ? 15
                                                      : 10;
  const auto t = tessera::bench::time_alternating(
      world.raw(), {[&] { tessera::transpose(a, at, perm); }, [&] { fftw.run(); }}, opt.warmup, reps);

  Result res{name, t[0], t[1], 0, 0, 0};
  {
    const auto before = tessera::bench::allocations();
    for (int i = 0; i < reps; ++i) tessera::transpose(a, at, perm);
    double per_run = static_cast<double>(tessera::bench::allocations() - before) / reps;
    check_mpi(MPI_Allreduce(&per_run, &res.allocations, 1, MPI_DOUBLE, MPI_MAX, world.raw()), "MPI_Allreduce");
  }
  const auto schedule =
      tessera::section_move_schedule(a.distribution(), a.ghosts(), a.domain().box(), at.distribution(), at.ghosts(),
                                     at.domain().box(), perm, rank, &dst_dom.cache());
  double sent = static_cast<double>(schedule->send_elements()) * sizeof(double), plan = fftw.plan_seconds();
  check_mpi(MPI_Allreduce(&sent, &res.bytes_moved, 1, MPI_DOUBLE, MPI_SUM, world.raw()), "MPI_Allreduce");
  check_mpi(MPI_Allreduce(&plan, &res.fftw_plan_s, 1, MPI_DOUBLE, MPI_MAX, world.raw()), "MPI_Allreduce");
  table.print_row(res.name, {res.bytes_moved, 1e3 * res.tessera.median, 1e3 * res.tessera.min, 1e3 * res.anchor.median,
                             1e3 * res.anchor.min, res.tessera.median / res.anchor.median, res.fftw_plan_s});
  if (rank == 0) std::printf("  allocations per transpose after the first: %g\n", res.allocations);
  if (opt.breakdown) tessera::bench::transpose_breakdown<N>(world, a, at, perm, reps, [&] { fftw.run(); });
  return res;
}

std::vector<Record> records_of(const std::vector<Result>& results, int ranks, const char* anchor) {
  std::vector<Record> out;
  for (const Result& r : results) {
    out.push_back(Record::timing("transpose", r.name, ranks, r.tessera, anchor, r.anchor));
    out.push_back(Record::count("transpose", r.name, ranks, "bytes_moved", r.bytes_moved));
    out.push_back(Record::count("transpose", r.name, ranks, "allocations_per_run", r.allocations));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Transpose: tessera's transpose() against FFTW-MPI's transpose plan"};
  std::vector<index_t> sizes{1024, 8192}, sizes_3d{128, 256};
  std::string json, filter;
  Options opt;
  // n^2 (2-D) and n^3 (3-D) stay under 2^31 elements, so that every MPI count (FFTW's too) fits an int.
  app.add_option("--sizes", sizes, "points per dimension of the 2-D transposes")
      ->delimiter(',')
      ->check(CLI::Range(index_t{1}, index_t{46340}));
  app.add_option("--sizes-3d", sizes_3d, "points per dimension of the 3-D axis swaps")
      ->delimiter(',')
      ->check(CLI::Range(index_t{1}, index_t{1290}));
  app.add_option("--repetitions", opt.repetitions, "timed transposes per case (0: 30, 15 or 10 by size)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", opt.warmup, "untimed transposes per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  app.add_flag("--estimate", opt.estimate, "plan FFTW with FFTW_ESTIMATE instead of FFTW_MEASURE (quick checks)");
  app.add_flag("--breakdown", opt.breakdown, "also time the parts of tessera's transpose apart");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  fftw_mpi_init();

  std::vector<Case> cases;
  for (const index_t n : sizes) cases.push_back({2, n});
  for (const index_t n : sizes_3d) cases.push_back({3, n});
  std::erase_if(cases, [&](const Case& c) { return c.name().find(filter) == std::string::npos; });

  const bool print = world.rank() == 0;
  const tessera::bench::Table table(print, "case", 20,
                                    {{"bytes moved", 12, 0},
                                     {"tessera", 10, 3},
                                     {"min", 10, 3},
                                     {kAnchor, 10, 3},
                                     {"min", 10, 3},
                                     {"ratio", 7, 2},
                                     {"fftw plan s", 12, 2}});
  if (print)
    std::printf("transpose of doubles, rows over %d ranks; milliseconds per transpose, max over ranks; FFTW %s\n",
                world.size(), opt.estimate ? "FFTW_ESTIMATE" : "FFTW_MEASURE");
  table.print_header();
  std::vector<Result> results;
  for (const Case& c : cases)
    results.push_back(c.dims == 2 ? run_case<2>(world, c, opt, table) : run_case<3>(world, c, opt, table));
  if (!json.empty() && print)
    tessera::bench::write_json(json, records_of(results, world.size(), opt.estimate ? kAnchorEstimate : kAnchor),
                               kProgram);
  fftw_mpi_cleanup();
  return 0;
}
