// Memory high-water mark of each movement (issue 21): how many bytes an operation holds at its
// peak beyond the arrays themselves, per operation and size.
//
// Every allocation goes through the counting operator new of support/memory_peak.hpp. For each
// case the driver notes the bytes held before the operation, restarts the high-water mark, runs
// the operation once, and reports, as the largest over the ranks:
//   beyond = peak - held before - new storage
// where "new storage" is the storage the operation gives the arrays (a redistribution's or a
// migration's new buffers, spare rows included; 0 for the others, which keep their storage). What
// remains is everything else the operation held at once: schedules, message buffers, staging
// copies, and movers kept in the domain's cache afterwards (a first use; a repeated use keeps none).
// Records: "beyond_arrays_bytes" and "beyond_arrays_ratio" (beyond / the bytes of the arrays this
// rank stores, the largest over the ranks), and "new_storage_bytes". MPI's own buffers come from
// malloc and are not counted. Also timed: one agreement on allocations with no failure
// ("allocation_agreement", the cost a redistribution pays twice).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/memory_peak.hpp"  // the one TU of bench_memory: counts every operator new
#include "support/bench_records.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::Communicator;
using tessera::DistArray;
using tessera::Distribution;
using tessera::Domain;
using tessera::GhostSpec;
using tessera::index_t;
using tessera::Point;
using tessera::ProcGrid;
using tessera::ReduceOp;
using tessera::bench::Record;

struct Measured {
  double beyond = 0;       // bytes, largest over the ranks
  double ratio = 0;        // beyond / array bytes of the rank, largest over the ranks
  double new_storage = 0;  // bytes, largest over the ranks
};

// Runs `op` once and measures it. `array_bytes()` gives the bytes of the arrays this rank stores
// after the op, `new_storage()` the storage the op allocated for them (0 if they kept theirs).
Measured measure(const Communicator& comm, const std::function<void()>& op, const std::function<double()>& array_bytes,
                 const std::function<double()>& new_storage) {
  comm.barrier();
  const auto before = static_cast<double>(tessera::bench::live_bytes());
  tessera::bench::reset_peak();
  op();
  const auto peak = static_cast<double>(tessera::bench::peak_bytes());
  const double fresh = new_storage();
  const double beyond = std::max(0.0, peak - before - fresh);
  const double bytes = std::max(1.0, array_bytes());
  return {comm.allreduce(beyond, ReduceOp::max), comm.allreduce(beyond / bytes, ReduceOp::max),
          comm.allreduce(fresh, ReduceOp::max)};
}

template <class T>
double bytes_of(const DistArray<T, 2>& a) {
  return static_cast<double>(a.storage().size() * sizeof(T));
}

struct Recorder {
  const Communicator& comm;
  const tessera::bench::Table& table;
  std::vector<Record> records;

  void add(const std::string& op, const std::string& name, const Measured& m, double array_mib) {
    const int ranks = comm.size();
    records.push_back(Record::count(op, name, ranks, "beyond_arrays_bytes", m.beyond));
    records.push_back(Record::count(op, name, ranks, "beyond_arrays_ratio", m.ratio));
    records.push_back(Record::count(op, name, ranks, "new_storage_bytes", m.new_storage));
    table.print_row(op + "/" + name, {array_mib, m.new_storage / (1 << 20), m.beyond / (1 << 20), m.ratio});
  }
};

double value(const Point<2>& p) { return static_cast<double>(p[0]) * 1e-3 + static_cast<double>(p[1]); }

void run_size(const Communicator& comm, index_t n, Recorder& rec) {
  const std::string size = std::to_string(n);
  const int p = comm.size();
  const Box<2> box({0, 0}, {n, n});
  const auto grid = ProcGrid<2>::automatic(p, {n, n});
  const auto rows = ProcGrid<2>::with_shape(p, {p, 1});
  const auto cols = ProcGrid<2>::with_shape(p, {1, p});
  const Distribution<2> block(box, grid, {tessera::block(), tessera::block()});
  const Distribution<2> cyclic(box, grid, {tessera::cyclic(), tessera::block()});
  const Distribution<2> by_rows(box, rows, {tessera::block(), tessera::block()});
  const Distribution<2> by_cols(box, cols, {tessera::block(), tessera::block()});
  const double array_mib = static_cast<double>(n) * static_cast<double>(n) * sizeof(double) / p / (1 << 20);

  {  // one array, preserving
    Domain<2> dom(comm, block);
    DistArray<double, 2> a(dom);
    a.for_each_owned([](const Point<2>& q, double& x) { x = value(q); });
    const auto bytes = [&] { return bytes_of(a); };
    rec.add("redistribute", "one-array-block-to-cyclic-" + size,
            measure(comm, [&] { dom.redistribute(cyclic); }, bytes, bytes), array_mib);
    dom.redistribute(by_rows);
    rec.add("redistribute", "one-array-rows-to-cols-" + size,
            measure(comm, [&] { dom.redistribute(by_cols); }, bytes, bytes), array_mib);
  }
  {  // three arrays over one domain, moved together
    Domain<2> dom(comm, block);
    DistArray<double, 2> a(dom, GhostSpec<2>::sides({0, 1}, {0, 1}));  // none along the cyclic axis
    DistArray<double, 2> b(dom);
    DistArray<float, 2> c(dom);
    const auto bytes = [&] { return bytes_of(a) + bytes_of(b) + bytes_of(c); };
    rec.add("redistribute", "three-arrays-block-to-cyclic-" + size,
            measure(comm, [&] { dom.redistribute(cyclic); }, bytes, bytes), array_mib * 2.5);
  }
  {  // incremental migration: a shift of n/8 rows (new storage with spare rows), then 1 row (in place)
    const auto cuts = [&](index_t shift) {
      std::vector<index_t> r{0};
      for (index_t k = 1; k < p; ++k) r.push_back(n * k / p + shift);
      r.push_back(n);
      return Distribution<2>(box, rows, {tessera::cut(r), tessera::block()});
    };
    Domain<2> dom(comm, cuts(0));
    DistArray<double, 2> a(dom, GhostSpec<2>::sides({1, 0}, {1, 0}));
    const auto bytes = [&] { return bytes_of(a); };
    for (const auto& [name, shift] : {std::pair<std::string, index_t>{"shift-eighth-new-storage-", n / 8},
                                      std::pair<std::string, index_t>{"shift-one-row-in-place-", n / 8 + 1}}) {
      const auto allocations = a.reallocations();
      const auto step = tessera::StepPlan<2>{dom.distribution(), cuts(p > 1 ? shift : 0)};
      std::size_t capacity_after = 0;
      const Measured m = measure(
          comm, [&] { (void)tessera::migrate_step(dom, step); }, bytes,
          [&] {
            capacity_after = a.reallocations() > allocations ? a.capacity() * sizeof(double) : 0;
            return static_cast<double>(capacity_after);
          });
      rec.add("migrate_step", name + size, m, array_mib);
    }
  }
  {  // ghost update: the first (schedule and mover made and kept), then a repeated one
    Domain<2> dom(comm, block);
    DistArray<double, 2> a(dom, GhostSpec<2>::sides({1, 1}, {1, 1}));
    const auto bytes = [&] { return bytes_of(a); };
    const auto none = [] { return 0.0; };
    rec.add("update_ghosts", "first-w1-" + size, measure(comm, [&] { a.update_ghosts(); }, bytes, none), array_mib);
    rec.add("update_ghosts", "repeat-w1-" + size, measure(comm, [&] { a.update_ghosts(); }, bytes, none), array_mib);
  }
  {  // transpose, gather, scatter, copy_section: first use, then repeated
    Domain<2> dom(comm, block);
    DistArray<double, 2> a(dom), at(dom);
    a.for_each_owned([](const Point<2>& q, double& x) { x = value(q); });
    const auto bytes = [&] { return bytes_of(a) + bytes_of(at); };
    const auto one = [&] { return bytes_of(a); };
    const auto none = [] { return 0.0; };
    for (const char* when : {"first-", "repeat-"}) {
      rec.add("transpose", when + size, measure(comm, [&] { tessera::transpose(a, at, {1, 0}); }, bytes, none),
              array_mib * 2);
    }
    // The whole image on rank 0 is the caller's (allocated before the measurement).
    std::vector<double> image(comm.rank() == 0 ? static_cast<std::size_t>(n * n) : 0);
    for (const char* when : {"first-", "repeat-"}) {
      rec.add("gather_to", when + size, measure(comm, [&] { a.gather_to(0, image); }, one, none), array_mib);
      rec.add("scatter_from", when + size, measure(comm, [&] { a.scatter_from(0, image); }, one, none), array_mib);
    }
    const Box<2> half({0, 0}, {n / 2, n});
    for (const char* when : {"first-", "repeat-"}) {
      rec.add("copy_section", std::string("between-arrays-") + when + size,
              measure(comm, [&] { tessera::copy_section(a, half, at, {n / 2, 0}); }, bytes, none), array_mib * 2);
      rec.add("copy_section", std::string("within-one-array-") + when + size,
              measure(comm, [&] { tessera::copy_section(a, half, a, {n / 2, 0}); }, one, none), array_mib);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const Communicator& world = env.world();
  CLI::App app{"Memory high-water mark of each movement, beyond the arrays themselves"};
  std::vector<index_t> sizes{256, 1024, 2048};
  std::string json;
  app.add_option("--sizes", sizes, "points per dimension (n x n doubles)")
      ->delimiter(',')
      ->check(CLI::Range(index_t{8}, index_t{1} << 15));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const tessera::bench::Table table(world.rank() == 0, "operation/case", 48,
                                    {{"array MiB", 10, 2}, {"new MiB", 10, 2}, {"beyond MiB", 11, 3}, {"ratio", 8, 3}});
  if (world.rank() == 0)
    std::printf("bytes held at the peak beyond the arrays (largest over %d ranks); ratio: to the rank's array bytes\n",
                world.size());
  table.print_header();
  Recorder rec{world, table, {}};
  for (const index_t n : sizes) run_size(world, n, rec);
  // What the agreement on allocations costs a movement that allocates (two of these per
  // redistribution or first use): Communicator::agree with no failure, one allreduce of one int.
  std::vector<double> samples;
  for (int rep = 0; rep < 200; ++rep) {
    world.barrier();
    const double t0 = tessera::Communicator::wtime();
    for (int i = 0; i < 100; ++i) world.agree(std::nullopt);
    samples.push_back(world.max(tessera::Communicator::wtime() - t0) / 100);
  }
  const auto agree = tessera::bench::summarize(samples);
  rec.records.push_back(Record::timing("allocation_agreement", "one-agree-no-failure", world.size(), agree));
  if (world.rank() == 0) std::printf("one agreement (no failure): %.2f us median\n", agree.median * 1e6);
  if (!json.empty() && world.rank() == 0) tessera::bench::write_json(json, rec.records, "bench_memory");
  return 0;
}
