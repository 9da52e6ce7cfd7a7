// ZPL's disjoint grids (tessera::ProcessorGroups) against what an MPI user writes by hand with
// MPI_Comm_split. The ranks are cut into two groups (the first half and the rest), each with a
// block-rows array of n x n doubles over its own communicator; two cases:
//
// - tasks-<n>: both groups at once run one step of their own work, a periodic ghost update of one
//   row above and below and a sum over their array (DistArray::update_ghosts, DistArray::sum);
//   by hand, the same rows sent to the ring neighbours within the group with Isend/Irecv straight
//   from and into the buffer, then the local sum and MPI_Allreduce on the group's communicator.
//   Both measure that a group's collectives involve its ranks only (the other group runs
//   concurrently and never waits for it).
// - copy-<n>: the one operation of both groups, copy_between_groups from group 0's array to
//   group 1's (a pipeline between two tasks); by hand, every source rank sends each destination
//   rank the rows it owns of the destination's range, one Isend/Irecv per pair, straight from and
//   into the same arrays' row-major storage.
//
// Both codes are checked after their first run (every element and both sums against closed forms)
// and the job aborts on any difference. Timing: the two codes alternate, each run timed with
// MPI_Wtime between barriers on the parent, the max over ranks per repetition
// (bench/support/bench_timing.hpp). Needs at least 2 ranks.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/group_copy.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_groups";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

/// Small integers, so that every sum is exact in doubles and the same in any order.
double value_at(index_t i, index_t j) { return static_cast<double>((7 * i + 3 * j) % 17); }

/// The first half of the ranks (rounded up) and the rest.
std::vector<std::vector<int>> halves(int ranks) {
  std::vector<std::vector<int>> g(2);
  for (int r = 0; r < ranks; ++r) g[r < (ranks + 1) / 2 ? 0 : 1].push_back(r);
  return g;
}

/// Block rows of an n x n box over `ranks` ranks (a ranks x 1 grid).
tessera::Distribution<2> block_rows(index_t n, int ranks) {
  return tessera::Distribution<2>(Box<2>({0, 0}, {n, n}), tessera::ProcGrid<2>::with_shape(ranks, {ranks, 1}),
                                  {tessera::block(), tessera::collapsed()});
}

/// The rows [lo, hi) group rank `r` owns under `dist`.
std::pair<index_t, index_t> rows_of(const tessera::Distribution<2>& dist, int r) {
  const Box<2> b = dist.owned_box(r);
  return {b.lo[0], b.hi[0]};
}

struct Result {
  std::string name;
  Summary mine, anchor;
};

void print_row(const tessera::bench::Table& table, const Result& r, double bytes) {
  table.print_row(r.name, {bytes, 1e3 * r.mine.median, 1e3 * r.mine.min, 1e3 * r.anchor.median, 1e3 * r.anchor.min,
                           r.mine.median / r.anchor.median});
}

// --- tasks: each group's own ghost update and sum, concurrently ----------------------------------

Result run_tasks(const tessera::ProcessorGroups& groups, MPI_Comm group_comm, index_t n, int reps, int warmup,
                 const tessera::bench::Table& table) {
  const int g = *groups.my_group();
  const int size = groups.size(g);
  const int me = *groups.group_rank(g, groups.parent().rank());
  const tessera::Distribution<2> dist = block_rows(n, size);
  const auto [lo, hi] = rows_of(dist, me);
  const index_t rows = hi - lo;
  if (rows < 1) abort_job("tasks-" + std::to_string(n) + ": a rank owns no row; use a larger size");

  // tessera: one periodic ghost row above and below.
  tessera::Domain<2> dom(groups.communicator(), dist);
  tessera::DistArray<double, 2> a(dom, tessera::GhostSpec<2>::sides({1, 0}, {1, 0}).periodic_along({true, false}));
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_at(p[0], p[1]); });
  double mine_sum = 0;
  const auto mine = [&] {
    a.update_ghosts();
    mine_sum = a.sum();
  };

  // By hand: rows + 2 rows, ghost rows first and last, neighbours on the group's ring.
  std::vector<double> buf(static_cast<std::size_t>((rows + 2) * n));
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < n; ++j) buf[static_cast<std::size_t>((i + 1) * n + j)] = value_at(lo + i, j);
  const int up = (me + size - 1) % size, down = (me + 1) % size;
  const int count = static_cast<int>(n);
  double anchor_sum = 0;
  const auto anchor = [&] {
    MPI_Request req[4];
    double* first_ghost = buf.data();
    double* first_row = buf.data() + n;
    double* last_row = buf.data() + rows * n;
    double* last_ghost = buf.data() + (rows + 1) * n;
    check_mpi(MPI_Irecv(first_ghost, count, MPI_DOUBLE, up, 1, group_comm, &req[0]), "MPI_Irecv");
    check_mpi(MPI_Irecv(last_ghost, count, MPI_DOUBLE, down, 0, group_comm, &req[1]), "MPI_Irecv");
    check_mpi(MPI_Isend(first_row, count, MPI_DOUBLE, up, 0, group_comm, &req[2]), "MPI_Isend");
    check_mpi(MPI_Isend(last_row, count, MPI_DOUBLE, down, 1, group_comm, &req[3]), "MPI_Isend");
    check_mpi(MPI_Waitall(4, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
    double local = 0;
    for (index_t k = n; k < (rows + 1) * n; ++k) local += buf[static_cast<std::size_t>(k)];
    check_mpi(MPI_Allreduce(&local, &anchor_sum, 1, MPI_DOUBLE, MPI_SUM, group_comm), "MPI_Allreduce");
  };

  mine();
  anchor();
  double expected = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) expected += value_at(i, j);
  const std::string name = "tasks-" + std::to_string(n);
  if (mine_sum != expected || anchor_sum != expected) abort_job(name + ": a sum differs from the closed form");
  const index_t above = (lo + n - 1) % n, below = hi % n;  // the rows the ghosts mirror (periodic)
  for (index_t j = 0; j < n; ++j) {
    const double want_above = value_at(above, j), want_below = value_at(below, j);
    if (a.at({lo - 1, j}) != want_above || a.at({hi, j}) != want_below || buf[static_cast<std::size_t>(j)] != want_above ||
        buf[static_cast<std::size_t>((rows + 1) * n + j)] != want_below)
      abort_job(name + ": a ghost row differs from the row it mirrors at column " + std::to_string(j));
  }

  const auto t = tessera::bench::time_alternating(groups.parent().raw(), {mine, anchor}, warmup, reps);
  Result r{name, t[0], t[1]};
  print_row(table, r, static_cast<double>(2 * n) * 8);
  return r;
}

// --- copy: group 0's array into group 1's ----------------------------------------------------------

Result run_copy(const tessera::ProcessorGroups& groups, index_t n, int reps, int warmup,
                const tessera::bench::Table& table) {
  const MPI_Comm parent = groups.parent().raw();
  const int g = *groups.my_group();
  const tessera::Distribution<2> from = block_rows(n, groups.size(0)), to = block_rows(n, groups.size(1));
  const int me = *groups.group_rank(g, groups.parent().rank());
  const tessera::Distribution<2>& mine_dist = g == 0 ? from : to;
  const auto [lo, hi] = rows_of(mine_dist, me);

  tessera::Domain<2> dom(groups.communicator(), mine_dist);
  std::optional<tessera::DistArray<double, 2>> src, dst;  // this rank's group's array only
  (g == 0 ? src : dst).emplace(dom);
  if (src) src->for_each_owned([](const Point<2>& p, double& x) { x = value_at(p[0], p[1]); });
  const std::function<void()> mine = [&] {
    tessera::copy_between_groups<double>(groups, 0, from, src ? &*src : nullptr, 1, to, dst ? &*dst : nullptr);
  };

  // By hand: one message per (source rank, destination rank) pair whose rows meet, straight from
  // and into the same arrays' row-major storage. The same buffers for both codes: with buffers of
  // its own the anchor measured 0.9-1.2x tessera's time depending on which was allocated first (a
  // property of this VM's memory, bench/groups-memory-experiment.txt), not of either code.
  double* rows_at = src ? src->data() : dst->data();
  const tessera::Distribution<2>& other_dist = g == 0 ? to : from;
  const std::vector<int>& other_ranks = groups.parent_ranks(1 - g);
  struct Message {
    int peer;
    index_t first_row, rows;
  };
  std::vector<Message> messages;
  for (int r = 0; r < static_cast<int>(other_ranks.size()); ++r) {
    const auto [olo, ohi] = rows_of(other_dist, r);
    const index_t a = std::max(lo, olo), b = std::min(hi, ohi);
    if (a < b) messages.push_back({other_ranks[static_cast<std::size_t>(r)], a, b - a});
  }
  std::vector<MPI_Request> requests(messages.size());
  const std::function<void()> anchor = [&] {
    for (std::size_t k = 0; k < messages.size(); ++k) {
      double* at = rows_at + (messages[k].first_row - lo) * n;
      const int count = static_cast<int>(messages[k].rows * n);
      if (g == 0)
        check_mpi(MPI_Isend(at, count, MPI_DOUBLE, messages[k].peer, 7, parent, &requests[k]), "MPI_Isend");
      else
        check_mpi(MPI_Irecv(at, count, MPI_DOUBLE, messages[k].peer, 7, parent, &requests[k]), "MPI_Irecv");
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  };

  // Each code on a destination of -1s, then every element checked.
  const std::string name = "copy-" + std::to_string(n);
  for (const auto& [code, run] : {std::pair<const char*, const std::function<void()>&>{"tessera", mine},
                                  std::pair<const char*, const std::function<void()>&>{"the anchor", anchor}}) {
    if (dst) dst->for_each_owned([](const Point<2>&, double& x) { x = -1; });
    run();
    if (dst)
      dst->for_each_owned([&](const Point<2>& p, const double& x) {
        if (x != value_at(p[0], p[1]))
          abort_job(name + ": " + code + " left a wrong element at (" + std::to_string(p[0]) + ", " +
                    std::to_string(p[1]) + ")");
      });
  }
  const auto t = tessera::bench::time_alternating(parent, {mine, anchor}, warmup, reps);
  Result r{name, t[0], t[1]};
  print_row(table, r, static_cast<double>(n * n) * 8);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Two processor groups (tessera::ProcessorGroups) against MPI_Comm_split by hand"};
  std::vector<index_t> sizes{256, 1024, 4096};
  std::string json;
  int reps = 0, warmup = 3;
  app.add_option("--sizes", sizes, "n of the n x n arrays")->delimiter(',')->check(CLI::Range(index_t{2}, index_t{1} << 15));
  app.add_option("--repetitions", reps, "timed runs per case (0: 300 up to n = 1024, 60 above)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  if (world.size() < 2) {
    if (world.rank() == 0) std::fprintf(stderr, "bench_groups: needs at least 2 ranks (two groups)\n");
    return 2;
  }
  const tessera::ProcessorGroups groups(world, halves(world.size()));
  MPI_Comm group_comm = MPI_COMM_NULL;  // the anchor's own split, as a user would make it
  check_mpi(MPI_Comm_split(world.raw(), *groups.my_group(), world.rank(), &group_comm), "MPI_Comm_split");

  const bool print = world.rank() == 0;
  const tessera::bench::Table table(
      print, "case", 16,
      {{"bytes", 12, 0}, {"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf("two processor groups of %d and %d ranks, n x n doubles in block rows; milliseconds per run, max over "
                "ranks\ntasks: each group's periodic ghost update + sum at once (anchor: Isend/Irecv + MPI_Allreduce "
                "on MPI_Comm_split's communicator)\ncopy: group 0's array into group 1's (anchor: one Isend/Irecv per "
                "pair of ranks whose rows meet)\n",
                groups.size(0), groups.size(1));
  table.print_header();
  std::vector<Record> records;
  for (const index_t n : sizes) {
    const int r = reps > 0 ? reps : (n <= 1024 ? 300 : 60);
    const Result tasks = run_tasks(groups, group_comm, n, r, warmup, table);
    records.push_back(Record::timing("groups", tasks.name, world.size(), tasks.mine, "mpi-comm-split", tasks.anchor));
    const Result copy = run_copy(groups, n, r, warmup, table);
    records.push_back(Record::timing("groups", copy.name, world.size(), copy.mine, "mpi-isend-irecv", copy.anchor));
  }
  MPI_Comm_free(&group_comm);
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
