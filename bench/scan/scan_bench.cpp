// Scans of a 1-D block-distributed array of int64 sums (tessera::scan, inclusive and exclusive)
// against the code an MPI user writes by hand on the same data: each rank folds its block, one
// MPI_Scan (inclusive, anchor "mpi-scan") or MPI_Exscan (exclusive, anchor "mpi-exscan") of the
// totals gives the rank's offset, then each rank scans its block from it.
//
// Both codes read the same DistArray storage and write arrays of the same layout; their results are
// compared element for element with each other and with the closed form of the prefix sums, and
// the job aborts on any difference (integer sums: any order gives the same values).
//
// Timing: the two codes alternate, each run timed with MPI_Wtime between barriers; the max over
// ranks is taken per repetition (bench/support/bench_timing.hpp). tessera's scan pays two
// all-to-alls of one record per segment (here: one segment per rank) where the anchor pays one
// MPI_Scan/MPI_Exscan of one integer: at small sizes that latency is the ratio.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/scan.hpp"
#include "tessera/core/wrapping_arithmetic.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_scan";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

/// Element i of the input: small and varied, so that wrong offsets show.
std::int64_t value_of(index_t i) { return i % 7 + 1; }
/// The inclusive prefix sum of value_of up to i, in closed form.
std::int64_t prefix_of(index_t i) {
  const index_t weeks = (i + 1) / 7, rest = (i + 1) % 7;
  return weeks * 28 + rest * (rest + 1) / 2;
}

/// The hand-written scan of a rank's block `in` (count elements) into `out`.
void mpi_scan(MPI_Comm comm, const std::int64_t* in, std::int64_t* out, index_t count, bool inclusive) {
  std::int64_t total = 0;
  for (index_t k = 0; k < count; ++k) total += in[k];
  std::int64_t offset = 0;
  if (inclusive) {
    std::int64_t through_me = 0;
    check_mpi(MPI_Scan(&total, &through_me, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Scan");
    offset = through_me - total;
  } else {
    check_mpi(MPI_Exscan(&total, &offset, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's undefined
  }
  for (index_t k = 0; k < count; ++k) {
    const std::int64_t x = in[k];
    if (inclusive) offset += x;
    out[k] = offset;
    if (!inclusive) offset += x;
  }
}

struct Result {
  std::string op, name;
  Summary mine, anchor;
  const char* anchor_name;
};

Result run_case(const tessera::Communicator& world, index_t n, bool inclusive, int reps, int warmup,
                const tessera::bench::Table& table) {
  const int size = world.size();
  tessera::Domain<1> dom(world, tessera::Distribution<1>(Box<1>({0}, {n}), tessera::ProcGrid<1>::with_shape(size, {size}),
                                                         {tessera::block()}));
  tessera::DistArray<std::int64_t, 1> a(dom), s(dom), by_anchor(dom);
  a.for_each_owned([](const Point<1>& p, std::int64_t& x) { x = value_of(p[0]); });
  const index_t count = static_cast<index_t>(a.storage().size());
  const auto kind = inclusive ? tessera::ScanKind::inclusive : tessera::ScanKind::exclusive;
  const auto mine = [&] { tessera::scan(a, s, kind, std::int64_t{0}, tessera::WrappingPlus{}); };
  const auto anchor = [&] { mpi_scan(world.raw(), a.data(), by_anchor.data(), count, inclusive); };
  mine();
  anchor();
  s.for_each_owned([&](const Point<1>& p, const std::int64_t& x) {
    const std::int64_t want = inclusive ? prefix_of(p[0]) : (p[0] == 0 ? 0 : prefix_of(p[0] - 1));
    if (x != want || by_anchor.at(p) != want)
      abort_job("n = " + std::to_string(n) + ": wrong prefix at " + std::to_string(p[0]) + ": tessera " +
                std::to_string(x) + ", anchor " + std::to_string(by_anchor.at(p)) + ", expected " + std::to_string(want));
  });
  const auto t = tessera::bench::time_alternating(world.raw(), {mine, anchor}, warmup, reps);
  Result r{inclusive ? "scan-inclusive" : "scan-exclusive", "1d-block-int64-" + std::to_string(n), t[0], t[1],
           inclusive ? "mpi-scan" : "mpi-exscan"};
  table.print_row(r.op + " " + r.name, {static_cast<double>(n) * 8, 1e3 * r.mine.median, 1e3 * r.mine.min,
                                        1e3 * r.anchor.median, 1e3 * r.anchor.min, r.mine.median / r.anchor.median});
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Scans: tessera::scan of a 1-D block array against MPI_Scan / MPI_Exscan of the rank totals"};
  std::vector<index_t> sizes{index_t{1} << 12, index_t{1} << 18, index_t{1} << 22};
  std::string json;
  int reps = 0, warmup = 2;
  app.add_option("--sizes", sizes, "elements of the array")->delimiter(',')->check(CLI::Range(index_t{1}, index_t{1} << 30));
  app.add_option("--repetitions", reps, "timed runs per case (0: 200 small, 20 large)")->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(
      print, "operation case", 36,
      {{"bytes", 12, 0}, {"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf("scans of n int64 under block, %d ranks; milliseconds per run, max over ranks\n"
                "anchors: mpi-scan (inclusive), mpi-exscan (exclusive)\n",
                world.size());
  table.print_header();
  std::vector<Record> records;
  for (const index_t n : sizes)
    for (const bool inclusive : {true, false}) {
      const int r = reps > 0 ? reps : (n <= (index_t{1} << 18) ? 200 : 20);
      const Result res = run_case(world, n, inclusive, r, warmup, table);
      records.push_back(Record::timing(res.op, res.name, world.size(), res.mine, res.anchor_name, res.anchor));
    }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
