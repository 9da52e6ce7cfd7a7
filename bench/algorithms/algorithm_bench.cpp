// Move algorithms and multi-array fusion (issue 6, "Beyond the anchors").
//
// Part 1, algorithms: one schedule run by a Mover with each MoveAlgorithm — point_to_point (the
// anchor: what every Mover did before), alltoallv (one MPI_Ialltoallv over the communicator,
// packed buffers) and neighborhood (one MPI_Ineighbor_alltoallw over a graph communicator of the
// schedule's peers) — on
//   halo-*       a 2-D halo update (faces and corners, periodic): few peers (up to 8);
//   cyclic-*     block x block -> cyclic x cyclic: every rank sends to every other;
//   small-*      the same on a small grid: many messages of a few hundred bytes.
// Records: op "move_algorithm", case "<case>/<algorithm>", anchor "point_to_point"; and one
// record "<case>/automatic" with the time of the algorithm `automatic` picks (its name is in the
// table), so the ratio shows what the automatic rule costs or saves.
//
// Part 2, fusion: k arrays of doubles (k = 1, 2, 4) moved by one FusedMover (one message per peer
// carrying all k) against k Movers started together and then completed together (anchor
// "separate"), for a halo update (small and large faces) and a block -> cyclic redistribution.
// Records: op "fusion", case "<case>-k<k>".
//
// Every implementation's result is checked bit for bit against point-to-point (or the separate
// movers) after the timing; the job aborts on any difference. Timing as the other MPI drivers: the
// implementations alternate, each run (a batch of executions, so that a run lasts well over the
// timer's resolution) between barriers, the max over ranks per repetition.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/fused_mover.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace {

using tessera::Box;
using tessera::Distribution;
using tessera::index_t;
using tessera::MoveAlgorithm;
using tessera::Point;
using tessera::Schedule;
using tessera::StorageLayout;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_algorithms";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

struct Options {
  int warmup = 3, repetitions = 30;
  std::size_t batch_bytes = 4 << 20;  // bytes a timed run moves at least (per rank), up to max_batch executions
  int max_batch = 50;
};

/// One rank's source and destination storage for a schedule, owned elements set to a value
/// that names their global point, the rest to -1.
struct Storage {
  std::vector<double> src, dst;
};

Storage make_storage(const StorageLayout<2>& from, const StorageLayout<2>& to, bool same) {
  Storage s;
  s.src.assign(static_cast<std::size_t>(std::max<index_t>(from.size(), 1)), -1.0);
  for (const auto& patch : from.patches())
    tessera::for_each_point(patch.owned_box(), [&](const Point<2>& p) {
      s.src[static_cast<std::size_t>(patch.element_offset(p))] = static_cast<double>(p[0] * 100003 + p[1]);
    });
  if (!same) s.dst.assign(static_cast<std::size_t>(std::max<index_t>(to.size(), 1)), -1.0);
  return s;
}

int batch_for(const tessera::Communicator& world, const Schedule& s, std::size_t bytes_per_element, const Options& o) {
  const double mine =
      static_cast<double>(s.send_elements() + s.local_elements()) * static_cast<double>(bytes_per_element);
  const double most = world.max(mine);
  const double runs = most > 0 ? static_cast<double>(o.batch_bytes) / most : o.max_batch;
  return std::max(1, std::min(o.max_batch, static_cast<int>(runs)));
}

struct AlgorithmCase {
  std::string name;
  Distribution<2> from, to;
  tessera::GhostSpec<2> ghosts;
  bool halo;
};

Summary per_run(Summary s, int batch) { return {s.median / batch, s.min / batch, s.max / batch}; }

void algorithm_case(const tessera::Communicator& world, const AlgorithmCase& c, const Options& o,
                    const tessera::bench::Table& table, std::vector<Record>& records) {
  const int rank = world.rank();
  const auto schedule = c.halo
                            ? tessera::halo_schedule(c.from, c.ghosts, rank)
                            : tessera::redistribution_schedule(c.from, c.ghosts, c.to, tessera::no_ghosts<2>(), rank);
  const auto from_layout = StorageLayout<2>::make(c.from, rank, c.ghosts);
  const auto to_layout = StorageLayout<2>::make(c.to, rank, c.halo ? c.ghosts : tessera::no_ghosts<2>());
  const std::array<MoveAlgorithm, 3> algorithms{MoveAlgorithm::point_to_point, MoveAlgorithm::alltoallv,
                                                MoveAlgorithm::neighborhood};
  std::vector<std::unique_ptr<tessera::Mover>> movers;
  std::vector<Storage> storage;
  for (MoveAlgorithm a : algorithms) {
    movers.push_back(std::make_unique<tessera::Mover>(world, schedule, sizeof(double), nullptr, a));
    storage.push_back(make_storage(from_layout, to_layout, c.halo));
  }
  const tessera::Mover automatic(world, schedule, sizeof(double), nullptr, MoveAlgorithm::automatic);
  const int batch = batch_for(world, *schedule, sizeof(double), o);
  std::vector<std::function<void()>> impls;
  for (std::size_t i = 0; i < movers.size(); ++i)
    impls.emplace_back([&, i] {
      Storage& st = storage[i];
      for (int b = 0; b < batch; ++b) movers[i]->run(st.src.data(), c.halo ? st.src.data() : st.dst.data());
    });
  const auto t = tessera::bench::time_alternating(world.raw(), impls, o.warmup, o.repetitions);
  for (std::size_t i = 1; i < storage.size(); ++i) {
    const auto& mine = c.halo ? storage[i].src : storage[i].dst;
    const auto& ref = c.halo ? storage[0].src : storage[0].dst;
    if (mine != ref)
      abort_job(c.name + ": " + tessera::to_string(algorithms[i]) + " differs from point_to_point on rank " +
                std::to_string(rank));
  }
  double largest = 0;
  for (const auto& p : schedule->sends) largest = std::max(largest, static_cast<double>(p.elements) * 8.0);
  largest = world.max(largest);
  const double peers = world.max(static_cast<double>(schedule->sends.size()));
  const std::size_t pick = static_cast<std::size_t>(automatic.algorithm()) - 1;  // index into `algorithms`
  std::vector<Summary> s;
  for (const auto& x : t) s.push_back(per_run(x, batch));
  table.print_row(c.name,
                  {peers, largest, s[0].median * 1e6, s[1].median * 1e6, s[2].median * 1e6, s[1].median / s[0].median,
                   s[2].median / s[0].median},
                  std::string("  auto: ") + tessera::to_string(automatic.algorithm()));
  const int ranks = world.size();
  records.push_back(Record::timing("move_algorithm", c.name + "/alltoallv", ranks, s[1], "point_to_point", s[0]));
  records.push_back(Record::timing("move_algorithm", c.name + "/neighborhood", ranks, s[2], "point_to_point", s[0]));
  records.push_back(Record::timing("move_algorithm", c.name + "/automatic", ranks, s[pick], "point_to_point", s[0]));
  records.push_back(Record::count("move_algorithm", c.name, ranks, "largest_message_bytes", largest));
  records.push_back(Record::count("move_algorithm", c.name, ranks, "peers_max", peers));
}

void fusion_case(const tessera::Communicator& world, const AlgorithmCase& c, int k, const Options& o,
                 const tessera::bench::Table& table, std::vector<Record>& records) {
  const int rank = world.rank();
  const auto schedule = c.halo
                            ? tessera::halo_schedule(c.from, c.ghosts, rank)
                            : tessera::redistribution_schedule(c.from, c.ghosts, c.to, tessera::no_ghosts<2>(), rank);
  const auto from_layout = StorageLayout<2>::make(c.from, rank, c.ghosts);
  const auto to_layout = StorageLayout<2>::make(c.to, rank, c.halo ? c.ghosts : tessera::no_ghosts<2>());
  const auto uk = static_cast<std::size_t>(k);
  std::vector<Storage> fused_data, separate_data;
  for (std::size_t j = 0; j < uk; ++j) {
    fused_data.push_back(make_storage(from_layout, to_layout, c.halo));
    separate_data.push_back(make_storage(from_layout, to_layout, c.halo));
  }
  const auto dst_of = [&](Storage& s) { return c.halo ? s.src.data() : s.dst.data(); };
  std::vector<const void*> fsrc;
  std::vector<void*> fdst;
  for (auto& s : fused_data) {
    fsrc.push_back(s.src.data());
    fdst.push_back(dst_of(s));
  }
  tessera::FusedMover fused(world, schedule, std::vector<std::size_t>(uk, sizeof(double)));
  std::vector<std::unique_ptr<tessera::Mover>> separate;
  for (std::size_t j = 0; j < uk; ++j)
    separate.push_back(
        std::make_unique<tessera::Mover>(world, schedule, sizeof(double), nullptr, MoveAlgorithm::point_to_point));
  const int batch = batch_for(world, *schedule, sizeof(double) * uk, o);
  const auto t =
      tessera::bench::time_alternating(world.raw(),
                                       {[&] {
                                          for (int b = 0; b < batch; ++b) fused.run(fsrc, fdst);
                                        },
                                        [&] {
                                          for (int b = 0; b < batch; ++b) {
                                            for (std::size_t j = 0; j < uk; ++j)
                                              separate[j]->start(separate_data[j].src.data(), dst_of(separate_data[j]));
                                            for (auto& m : separate) m->wait();
                                          }
                                        }},
                                       o.warmup, o.repetitions);
  for (std::size_t j = 0; j < uk; ++j)
    if ((c.halo ? fused_data[j].src : fused_data[j].dst) != (c.halo ? separate_data[j].src : separate_data[j].dst))
      abort_job(c.name + ": fused array " + std::to_string(j) + " differs from separate on rank " +
                std::to_string(rank));
  double largest = 0;
  for (const auto& p : schedule->sends) largest = std::max(largest, static_cast<double>(p.elements) * 8.0 * k);
  largest = world.max(largest);
  const Summary f = per_run(t[0], batch), s = per_run(t[1], batch);
  const std::string name = c.name + "-k" + std::to_string(k);
  table.print_row(name, {largest, f.median * 1e6, s.median * 1e6, f.median / s.median});
  records.push_back(Record::timing("fusion", name, world.size(), f, "separate", s));
  records.push_back(Record::count("fusion", name, world.size(), "largest_fused_message_bytes", largest));
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Move algorithms (point-to-point, alltoallv, neighborhood) and multi-array fusion"};
  Options o;
  std::vector<index_t> halo_sizes{64, 512, 2048}, cyclic_sizes{32, 256, 1024}, fusion_halo{64, 2048},
      fusion_cyclic{64, 512};
  std::vector<int> arrays{1, 2, 4};
  std::string json;
  bool skip_fusion = false, skip_algorithms = false;
  app.add_option("--halo-sizes", halo_sizes, "halo cases: points per dimension")->delimiter(',');
  app.add_option("--cyclic-sizes", cyclic_sizes, "block -> cyclic cases: points per dimension")->delimiter(',');
  app.add_option("--fusion-halo-sizes", fusion_halo, "fusion halo cases: points per dimension")->delimiter(',');
  app.add_option("--fusion-cyclic-sizes", fusion_cyclic, "fusion redistribution cases")->delimiter(',');
  app.add_option("--arrays", arrays, "array counts of the fusion cases")->delimiter(',');
  app.add_option("--warmup", o.warmup, "untimed runs per implementation first")->check(CLI::Range(0, 100000));
  app.add_option("--repetitions", o.repetitions, "timed runs per implementation")->check(CLI::Range(1, 100000));
  app.add_option("--max-batch", o.max_batch, "executions per timed run at most")->check(CLI::Range(1, 100000));
  app.add_flag("--no-fusion", skip_fusion, "only the algorithm cases");
  app.add_flag("--no-algorithms", skip_algorithms, "only the fusion cases");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const bool print = world.rank() == 0;
  const int p = world.size();
  std::vector<Record> records;
  const auto grid = [&](index_t n) { return tessera::ProcGrid<2>::automatic(p, {n, n}); };
  const auto halo_case = [&](index_t n) {
    const Distribution<2> d(Box<2>({0, 0}, {n, n}), grid(n), {tessera::block(), tessera::block()});
    return AlgorithmCase{"halo-2d-9pt-w1-" + std::to_string(n), d, d,
                         tessera::ghosts<2>(1).periodic_along({true, true}), true};
  };
  const auto cyclic_case = [&](index_t n) {
    const Box<2> box({0, 0}, {n, n});
    const Distribution<2> from(box, grid(n), {tessera::block(), tessera::block()});
    const Distribution<2> to(box, grid(n), {tessera::cyclic(), tessera::cyclic()});
    return AlgorithmCase{(n <= 64 ? "small-block-to-cyclic-" : "cyclic-block-to-cyclic-") + std::to_string(n), from, to,
                         tessera::no_ghosts<2>(), false};
  };
  if (!skip_algorithms) {
    const tessera::bench::Table table(print, "case", 30,
                                      {{"peers", 6, 0},
                                       {"max msg B", 10, 0},
                                       {"p2p us", 10, 2},
                                       {"a2av us", 10, 2},
                                       {"neigh us", 10, 2},
                                       {"a2av/p2p", 9, 2},
                                       {"ngh/p2p", 8, 2}});
    if (print)
      std::printf(
          "move algorithms, %d ranks; microseconds per execution (median, max over ranks); anchor "
          "point_to_point\n",
          p);
    table.print_header();
    for (index_t n : halo_sizes) algorithm_case(world, halo_case(n), o, table, records);
    for (index_t n : cyclic_sizes) algorithm_case(world, cyclic_case(n), o, table, records);
  }
  if (!skip_fusion) {
    const tessera::bench::Table table(
        print, "case", 34, {{"max msg B", 10, 0}, {"fused us", 10, 2}, {"separate us", 12, 2}, {"ratio", 7, 2}});
    if (print)
      std::printf("\nfusion, %d ranks; microseconds per execution of all k arrays; anchor: k movers side by side\n", p);
    table.print_header();
    for (index_t n : fusion_halo)
      for (int k : arrays) fusion_case(world, halo_case(n), k, o, table, records);
    for (index_t n : fusion_cyclic)
      for (int k : arrays) fusion_case(world, cyclic_case(n), k, o, table, records);
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
