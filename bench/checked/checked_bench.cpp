// The price of checked mode (docs/checked-mode.md): DistArray::update_ghosts on a 2-D n x n array
// of doubles (block x block over an automatic grid, one periodic ghost layer with corners), with
// checked mode on against the same calls with it off (anchor "checked-off"), in the same job. The
// ratio is on / off; the difference is the check's one 16-byte allreduce per call.
//
// Each timed run is a batch of update_ghosts calls (one call of a small case is a few
// microseconds, too close to the timer's resolution); the modes alternate, each run timed with
// MPI_Wtime between barriers, the max over ranks kept per repetition. After the runs every rank
// checks that every ghost holds the value of the point it mirrors: the job aborts otherwise.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/dist_array.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/geometry/box_iteration.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_checked";
constexpr const char* kAnchor = "checked-off";

double value_at(const Point<2>& p) { return static_cast<double>(p[0]) * 65536.0 + static_cast<double>(p[1]); }

// Every stored element, ghosts included, must hold the value of the point it mirrors (periodic).
void verify_ghosts(const tessera::DistArray<double, 2>& u) {
  const Box<2> domain = u.domain().box();
  const double* data = u.data();
  for (const auto& patch : u.layout().patches())
    tessera::for_each_point(patch.storage_box(), [&](const Point<2>& q) {
      Point<2> w;
      for (std::size_t d = 0; d < 2; ++d)
        w[d] = domain.lo[d] + tessera::floor_mod(q[d] - domain.lo[d], domain.hi[d] - domain.lo[d]);
      if (data[patch.element_offset(q)] != value_at(w))
        tessera::bench::abort_job(kProgram, "update_ghosts left a wrong value at " + std::to_string(q[0]) + "," +
                                                std::to_string(q[1]));
    });
}

struct Result {
  std::string name;
  Summary on, off;  // seconds per update_ghosts call
};

Result run_case(const tessera::Communicator& world, index_t n, int batch, int warmup, int repetitions) {
  const Box<2> box({0, 0}, {n, n});
  const tessera::Distribution<2> dist(box, tessera::ProcGrid<2>::automatic(world.size(), {n, n}),
                                      {tessera::block(), tessera::block()});
  tessera::Domain<2> dom(world, dist);
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1).periodic_along({true, true}));
  u.for_each_owned([](const Point<2>& p, double& x) { x = value_at(p); });
  const auto updates = [&](bool checked) {
    return [&, checked] {
      tessera::set_checked_mode(checked);  // alike on every rank, between collective calls
      for (int i = 0; i < batch; ++i) u.update_ghosts();
    };
  };
  const auto t = tessera::bench::time_alternating(world.raw(), {updates(true), updates(false)}, warmup, repetitions);
  verify_ghosts(u);
  const auto per_call = [&](Summary s) { return Summary{s.median / batch, s.min / batch, s.max / batch}; };
  return {"update_ghosts-2d-w1-periodic-" + std::to_string(n), per_call(t[0]), per_call(t[1])};
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Checked mode's overhead: update_ghosts with checked mode on against off"};
  std::vector<index_t> sizes{64, 1024};
  int batch = 20, warmup = 3, repetitions = 30;
  std::string json;
  app.add_option("--sizes", sizes, "points per dimension")->delimiter(',')->check(CLI::Range(index_t{2}, index_t{65536}));
  app.add_option("--batch", batch, "update_ghosts calls per timed run")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed runs per mode first")->check(CLI::Range(0, 100000));
  app.add_option("--repetitions", repetitions, "timed runs per mode")->check(CLI::Range(1, 100000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const bool print = world.rank() == 0;
  const bool was_checked = tessera::checked_mode();
  const tessera::bench::Table table(print, "case", 36,
                                    {{"on us", 10, 2}, {"min", 10, 2}, {"off us", 10, 2}, {"min", 10, 2}, {"ratio", 7, 3}});
  if (print)
    std::printf("update_ghosts with checked mode on / off, %d ranks; microseconds per call, max over ranks\n",
                world.size());
  table.print_header();
  std::vector<Record> records;
  for (index_t n : sizes) {
    const Result r = run_case(world, n, batch, warmup, repetitions);
    table.print_row(r.name, {r.on.median * 1e6, r.on.min * 1e6, r.off.median * 1e6, r.off.min * 1e6,
                             r.on.median / r.off.median});
    records.push_back(Record::timing("checked", r.name, world.size(), r.on, kAnchor, r.off));
  }
  tessera::set_checked_mode(was_checked);
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
