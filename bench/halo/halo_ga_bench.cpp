// Halo exchange: tessera's Mover over halo_schedule against Global Arrays' GA_Update_ghosts
// (anchor "ga-update-ghosts", GA 5.8 over ARMCI-MPI), in the same MPI job, on the same array shape.
//
// GA_Update_ghosts always wraps periodically and fills corners, so the cases are the periodic ones
// with corners: 2-D 9-point and 3-D 27-point, widths 1 and 2. The GA array is made with
// NGA_Create_ghosts_irreg so that each rank owns exactly tessera's block (P x 1 [x 1] grid; the
// driver checks NGA_Distribution against tessera's owned box); its local memory (NGA_Access_ghosts)
// then has tessera's patch layout. Both start from the same values (owned points their global
// value, ghost cells a sentinel); after one exchange each, tessera's array is checked against the
// halo semantics and GA's against tessera's, bit for bit, and the job aborts on any difference.
//
// Pitfall (ANCHORS.md): the library takes NGA_Create_ghosts_irreg(..., name, nblock[], map[]); an
// older ga.h declares (map, nblock), and following it aborts with "Mapc entries are not properly
// monotonic". GA_Update_ghosts synchronises all processes itself (GA_Sync); that is part of what a
// GA user pays, so it is timed.
//
// Timing: tessera and GA take turns (the order swapping every repetition), each exchange timed with
// MPI_Wtime between barriers; the max over ranks is taken per repetition. Issue 6's target: tessera
// <= 0.5x GA.
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "halo/halo_common.hpp"
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"

namespace {

using tessera::index_t;
using tessera::Point;
using tessera::bench::Summary;
using tessera::bench::halo::Case;
using tessera::bench::halo::TesseraHalo;

constexpr const char* kAnchor = "ga-update-ghosts";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job("bench_halo_ga", message); }

struct Result {
  std::string name;
  Summary tessera, ga;
};

template <std::size_t N>
Result run_case(const tessera::Communicator& world, const Case& c, int repetitions, int warmup,
                const tessera::bench::Table& table) {
  const int rank = world.rank(), size = world.size();
  TesseraHalo<N> t(world, c);
  const auto& patch = t.layout.patches()[0];

  // The GA array: tessera's block along dimension 0 (map: the first index of every rank's block),
  // one block along the others.
  std::vector<int> starts(static_cast<std::size_t>(size));
  const int my_start = static_cast<int>(t.first[0]);
  tessera::check_mpi(MPI_Allgather(&my_start, 1, MPI_INT, starts.data(), 1, MPI_INT, world.raw()), "MPI_Allgather");
  std::array<int, N> dims{}, width{}, nblock{};
  std::vector<int> map = starts;
  for (std::size_t d = 0; d < N; ++d) {
    dims[d] = static_cast<int>(c.n);
    width[d] = static_cast<int>(c.width);
    nblock[d] = d == 0 ? size : 1;
    if (d > 0) map.push_back(0);
  }
  char name[] = "halo";
  const int g = NGA_Create_ghosts_irreg(C_DBL, static_cast<int>(N), dims.data(), width.data(), name, nblock.data(),
                                        map.data());
  if (g == 0) abort_job(c.name() + ": NGA_Create_ghosts_irreg failed");
  std::array<int, N> lo{}, hi{};
  NGA_Distribution(g, GA_Nodeid(), lo.data(), hi.data());
  for (std::size_t d = 0; d < N; ++d)
    if (lo[d] != t.first[d] || hi[d] != t.first[d] + patch.axes[d].count - 1)
      abort_job(c.name() + ": rank " + std::to_string(rank) + ": GA's block is not tessera's");
  std::array<int, N> ghost_dims{}, ld{};
  double* local = nullptr;
  NGA_Access_ghosts(g, ghost_dims.data(), &local, ld.data());
  for (std::size_t d = 0; d < N; ++d)
    if (ghost_dims[d] != t.ext[d] || (d + 1 < N && ld[d] != t.ext[d + 1]))
      abort_job(c.name() + ": GA's local array with ghosts is not laid out as tessera's patch");
  const std::size_t count = t.a.size();
  std::memcpy(local, t.a.data(), count * sizeof(double));  // owned values and sentinels
  NGA_Release_update_ghosts(g);
  GA_Sync();

  t.mover.run(t.a.data(), t.a.data());
  if (const std::string e = t.check(t.a); !e.empty())
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera's halo is wrong at " + e);
  GA_Update_ghosts(g);
  if (std::memcmp(local, t.a.data(), count * sizeof(double)) != 0) {
    std::size_t at = 0;
    while (at < count && local[at] == t.a[at]) ++at;
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera and GA differ at local offset " +
              std::to_string(at) + ": " + tessera::bench::exact(t.a[at]) + " vs " + tessera::bench::exact(local[at]));
  }

  const int reps = repetitions > 0 ? repetitions
                                   : tessera::bench::halo::default_repetitions(static_cast<double>(count * sizeof(double)));
  const auto times = tessera::bench::time_alternating(
      world.raw(), {[&] { t.mover.run(t.a.data(), t.a.data()); }, [&] { GA_Update_ghosts(g); }}, warmup, reps);
  GA_Destroy(g);
  Result res{c.name(), times[0], times[1]};
  table.print_row(res.name, {1e6 * res.tessera.median, 1e6 * res.tessera.min, 1e6 * res.ga.median, 1e6 * res.ga.min,
                             res.tessera.median / res.ga.median});
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Halo exchange: tessera's Mover against Global Arrays' GA_Update_ghosts (periodic, corners)"};
  std::vector<index_t> sizes{256, 1024, 4096, 8192}, sizes_3d{64, 128, 256}, widths{1, 2};
  std::string json, filter;
  int repetitions = 0, warmup = 10;
  app.add_option("--sizes", sizes, "points per dimension of the 2-D cases")->delimiter(',');
  app.add_option("--sizes-3d", sizes_3d, "points per dimension of the 3-D cases")->delimiter(',');
  app.add_option("--widths", widths, "ghost widths")->delimiter(',')->check(CLI::Range(index_t{1}, index_t{16}));
  app.add_option("--repetitions", repetitions, "timed exchanges per case (0: 200, or 100 for arrays over 64 MiB)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed exchanges per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  GA_Initialize();  // after MPI_Init (tessera::Environment); GA_Terminate leaves MPI up
  if (!MA_init(C_DBL, 1 << 20, 1 << 20)) abort_job("MA_init failed");

  std::vector<Case> cases;
  for (index_t w : widths) {
    for (index_t n : sizes) cases.push_back({2, true, w, true, n});
    for (index_t n : sizes_3d) cases.push_back({3, true, w, true, n});
  }
  std::erase_if(cases, [&](const Case& c) { return c.name().find(filter) == std::string::npos; });

  const tessera::bench::Table table{world.rank() == 0,
                                    "case",
                                    30,
                                    {{"tessera med", 11, 2},
                                     {"tessera min", 11, 2},
                                     {"GA med", 11, 2},
                                     {"GA min", 11, 2},
                                     {"ratio", 7, 2}}};
  if (world.rank() == 0)
    std::printf("halo exchange against GA_Update_ghosts, %d ranks, grid %dx1[x1]; microseconds, max over ranks\n",
                world.size(), world.size());
  table.print_header();
  std::vector<tessera::bench::Record> records;
  for (const Case& c : cases) {
    const Result r = c.dims == 2 ? run_case<2>(world, c, repetitions, warmup, table)
                                 : run_case<3>(world, c, repetitions, warmup, table);
    records.push_back(tessera::bench::Record::timing("halo", r.name, world.size(), r.tessera, kAnchor, r.ga));
  }
  if (!json.empty() && world.rank() == 0) tessera::bench::write_json(json, records, "bench_halo_ga");
  GA_Terminate();
  return 0;
}
