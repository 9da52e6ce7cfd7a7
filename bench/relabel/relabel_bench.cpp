// Rank relabeling (plan/relabel.hpp): a redistribution to the target as the user wrote it (anchor
// "no-relabel") against the same target with its ranks relabeled by relabel_for_locality, so that
// each rank keeps what it already owns where it can.
//
// Every case moves an n x n array of doubles between two distributions whose grid positions the
// user does not care about: back from a subset of ranks to all of them (AMP's processor sets; the
// Balancer's withdrawn ranks), onto fewer ranks, onto a grid whose ranks are numbered in another
// order, and reshapes where relabeling gains nothing (which shows what computing it costs).
// Records per case: `bytes_moved` (bytes sent between ranks, every rank together, as the mover
// counted them) relabeled against not; `median_s` of the redistribution (Mover over the
// redistribution schedule, schedules built beforehand) relabeled against not; and the time to
// compute the relabeling (on one rank; every rank computes the same). Both destinations must hold
// the right global values; the job aborts otherwise.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/relabel.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace {

using tessera::Box;
using tessera::Distribution;
using tessera::index_t;
using tessera::Point;
using tessera::ProcGrid;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kAnchor = "no-relabel";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job("bench_relabel", message); }

struct Case {
  std::string name;
  Distribution<2> from, target;
  tessera::RelabelOptions options{};
};

struct Result {
  std::string name;
  double bytes_with = 0, bytes_without = 0;
  Summary with, without;
  double relabel_seconds = 0;
};

double value_of(const Point<2>& p, index_t n) { return static_cast<double>(p[0] * n + p[1]) + 0.5; }

/// Rank `rank`'s storage under `dist`, every owned element holding value_of its global index
/// (at least one element, so that the movers never see a null pointer).
std::vector<double> filled(const Distribution<2>& dist, int rank, index_t n) {
  const index_t size = dist.local_size(rank);
  std::vector<double> out(static_cast<std::size_t>(std::max<index_t>(size, 1)), 0.0);
  for (index_t off = 0; off < size; ++off) out[static_cast<std::size_t>(off)] = value_of(dist.global_point(rank, off), n);
  return out;
}

void check(const Distribution<2>& dist, int rank, index_t n, const std::vector<double>& got, const std::string& what) {
  for (index_t off = 0; off < dist.local_size(rank); ++off)
    if (got[static_cast<std::size_t>(off)] != value_of(dist.global_point(rank, off), n))
      abort_job(what + ": rank " + std::to_string(rank) + ": wrong value at local offset " + std::to_string(off));
}

std::vector<int> first_ranks(int k) {
  std::vector<int> r(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) r[static_cast<std::size_t>(i)] = i;
  return r;
}

std::vector<Case> make_cases(index_t n, int p) {
  using tessera::block;
  const Box<2> box({0, 0}, {n, n});
  const auto rows = [&](const ProcGrid<2>& g) { return Distribution<2>(box, g, {block(), block()}); };
  const auto all_rows = rows(ProcGrid<2>::with_shape(p, {p, 1}));
  const std::string sz = "-" + std::to_string(n);
  std::vector<Case> cases;
  if (p >= 2) {
    // AMP: half of the ranks were withdrawn; all come back (block rows).
    const int h = (p + 1) / 2;
    cases.push_back({"half-ranks-to-all" + sz, rows(ProcGrid<2>::from_ranks(p, {h, 1}, first_ranks(h))), all_rows});
    // Balancer::set_active_ranks withdrew rank 0 (general cuts by speed over the others); all come
    // back, block rows.
    std::vector<int> rest;
    for (int r = 1; r < p; ++r) rest.push_back(r);
    const auto g = ProcGrid<2>::automatic(p, rest, {n, n}, {0, 1});
    const auto withdrawn = Distribution<2>::from_rank_weights(box, g, std::vector<double>(rest.size(), 1.0),
                                                              {tessera::general(), block()});
    cases.push_back({"withdrawn-rank0-to-all" + sz, withdrawn, all_rows});
    // Onto half of the ranks, any of them (the user asks for p/2 row blocks and lets tessera pick).
    const int k = p / 2;
    cases.push_back({"all-to-half-any-ranks" + sz, all_rows, rows(ProcGrid<2>::from_ranks(p, {k, 1}, first_ranks(k))),
                     {tessera::RelabelScope::any_rank}});
  }
  // The 2-D grid numbered column-major (ScaLAPACK's "Col" order, as another library might hand it).
  const auto grid2 = ProcGrid<2>::automatic(p, {n, n});
  std::vector<int> colmajor;
  for (index_t j = 0; j < grid2.extent(1); ++j)
    for (index_t i = 0; i < grid2.extent(0); ++i) colmajor.push_back(grid2.rank_at({i, j}));
  const auto blocks2 = Distribution<2>(box, grid2, {block(), block()});
  cases.push_back({"rowmajor-to-colmajor-grid" + sz, blocks2,
                   Distribution<2>(box, ProcGrid<2>::from_ranks(p, grid2.shape(), colmajor), {block(), block()})});
  // Reshapes where the natural numbering is already the best one (relabeling's cost only).
  cases.push_back({"rows-to-2d-grid" + sz, all_rows, blocks2});
  cases.push_back({"block-to-cyclic" + sz, all_rows, Distribution<2>(box, all_rows.grid(), {tessera::cyclic(), block()})});
  return cases;
}

Result run_case(const tessera::Communicator& world, const Case& c, index_t n, int warmup, int reps,
                const tessera::bench::Table& table) {
  const int rank = world.rank();
  // What computing the relabeling costs: every rank does it; the median of a few runs on each.
  std::vector<double> compute(5);
  Distribution<2> relabeled = c.target;
  for (auto& t : compute) {
    const auto t0 = std::chrono::steady_clock::now();
    relabeled = tessera::relabel_for_locality(c.from, c.target, c.options);
    t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  tessera::bench::max_over_ranks(compute, world.raw());

  const tessera::GhostSpec<2> none{};
  const auto src = filled(c.from, rank, n);
  std::vector<double> dst_with(static_cast<std::size_t>(std::max<index_t>(relabeled.local_size(rank), 1)));
  std::vector<double> dst_without(static_cast<std::size_t>(std::max<index_t>(c.target.local_size(rank), 1)));
  tessera::Mover with(world, tessera::redistribution_schedule(c.from, none, relabeled, none, rank), sizeof(double));
  tessera::Mover without(world, tessera::redistribution_schedule(c.from, none, c.target, none, rank), sizeof(double));
  with.run(src.data(), dst_with.data());
  without.run(src.data(), dst_without.data());
  check(relabeled, rank, n, dst_with, c.name + " relabeled");
  check(c.target, rank, n, dst_without, c.name + " as given");
  // Bytes sent between ranks by one run, as the movers counted them, against the plan's count.
  const double sent_with = world.sum(static_cast<double>(with.stats().bytes_sent));
  const double sent_without = world.sum(static_cast<double>(without.stats().bytes_sent));
  const auto predicted_with = tessera::ownership_change(c.from, relabeled).bytes_moving(sizeof(double));
  const auto predicted_without = tessera::ownership_change(c.from, c.target).bytes_moving(sizeof(double));
  if (sent_with != static_cast<double>(predicted_with) || sent_without != static_cast<double>(predicted_without))
    abort_job(c.name + ": the movers sent " + tessera::bench::number(sent_with) + " and " +
              tessera::bench::number(sent_without) + " bytes; ownership_change predicted " +
              std::to_string(predicted_with) + " and " + std::to_string(predicted_without));

  const auto t = tessera::bench::time_alternating(
      world.raw(), {[&] { with.run(src.data(), dst_with.data()); }, [&] { without.run(src.data(), dst_without.data()); }},
      warmup, reps);
  Result r{c.name, sent_with, sent_without, t[0], t[1], tessera::bench::summarize(compute).median};
  table.print_row(r.name, {r.bytes_with, r.bytes_without, 1e3 * r.with.median, 1e3 * r.without.median,
                           r.without.median > 0 ? r.with.median / r.without.median : 0.0, 1e3 * r.relabel_seconds});
  return r;
}

std::vector<Record> records_of(const std::vector<Result>& results, int ranks) {
  std::vector<Record> out;
  for (const Result& r : results) {
    const Summary bw{r.bytes_with, r.bytes_with, r.bytes_with}, bo{r.bytes_without, r.bytes_without, r.bytes_without};
    if (r.bytes_without > 0)
      out.push_back({"relabel", r.name, ranks, "bytes_moved", bw, std::string(kAnchor), bo});
    else
      out.push_back(Record::count("relabel", r.name, ranks, "bytes_moved", r.bytes_with));
    out.push_back(Record::timing("relabel", r.name, ranks, r.with, kAnchor, r.without));
    out.push_back(Record::count("relabel", r.name, ranks, "relabel_compute_s", r.relabel_seconds));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Rank relabeling: redistribution to a relabeled target against the target as given"};
  std::vector<index_t> sizes{1024, 4096};
  std::string json, filter;
  int repetitions = 0, warmup = 3;
  app.add_option("--sizes", sizes, "points per dimension")->delimiter(',')->check(CLI::Range(index_t{1}, index_t{1} << 20));
  app.add_option("--repetitions", repetitions, "timed runs per case (0: 50, or 20 above 8 MiB)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  const tessera::bench::Table table(world.rank() == 0, "case", 34,
                                    {{"bytes relabeled", 16, 0},
                                     {"bytes as given", 15, 0},
                                     {"relabeled ms", 13, 3},
                                     {"as given ms", 12, 3},
                                     {"ratio", 7, 2},
                                     {"relabel ms", 11, 3}});
  if (world.rank() == 0)
    std::printf("redistribution of n x n doubles to a relabeled target and to the target as given, %d ranks;\n"
                "bytes sent between ranks per run, milliseconds per run (median, max over ranks)\n",
                world.size());
  table.print_header();
  std::vector<Result> results;
  for (const index_t n : sizes) {
    const double bytes = static_cast<double>(n) * static_cast<double>(n) * sizeof(double);
    const int reps = repetitions > 0 ? repetitions : bytes <= 8.0 * (1 << 20) ? 50 : 20;
    for (const Case& c : make_cases(n, world.size())) {
      if (c.name.find(filter) == std::string::npos) continue;
      results.push_back(run_case(world, c, n, warmup, reps, table));
    }
  }
  if (!json.empty() && world.rank() == 0) tessera::bench::write_json(json, records_of(results, world.size()), "bench_relabel");
  return 0;
}
