// Plan and cache: what a schedule costs when it is built (a cache miss: plan the copies of one rank,
// then compile them against its storage layouts) and when it is found in an ExchangeCache (every
// later halo fill, redistribution or transpose of the same arrays). Both are timed through the
// calls the array layer makes (halo_schedule, redistribution_schedule, section_move_schedule), so a
// cache hit includes building the key.
//
// Plans need no communication, so one process answers for any rank of any machine: the cases at
// P = 2 are the ones bench_halo, bench_redistribute and bench_transpose run; the simulated machines
// of 1,024 ... 1,048,576 ranks (1024^2 points per rank, as bench_layout's) show that the plan of one
// rank does not grow with P. bench_layout times the layout queries such a plan asks (owner, pieces,
// owned sections), not the plan itself.
//
// Local layouts (issue 17): the schedule of one rank of a redistribution from row blocks to column
// blocks stored in a user-defined local order, against the same columns stored as patches and the
// same order asked point by point (a layout that does not answer `local_run`, as every layout was
// compiled before it existed).
//
// Names are "plan/<case>/tessera" with no anchor (bench/run_all.py records anchor null). Issue 6
// targets: cache hit <= 1 us, halo plan <= 100 us, redistribution plan of one rank of a simulated
// 1,048,576-rank machine <= 1 ms.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/local_layout.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace {

using tessera::Box;
using tessera::Distribution;
using tessera::index_t;
using tessera::Point;
using tessera::ProcGrid;

constexpr index_t kPointsPerRankPerDim = 1024;  // simulated machines, as bench_layout

/// n^N points, block along dimension 0 only, over `ranks` (the drivers' P x 1 grids).
template <std::size_t N>
Distribution<N> rows(int ranks, index_t n) {
  Point<N> shape = Point<N>::filled(1);
  shape[0] = ranks;
  std::array<tessera::DimSpec, N> specs;
  specs.fill(tessera::block());
  return Distribution<N>(Box<N>::from_extents(Point<N>::filled(n)), ProcGrid<N>::with_shape(ranks, shape), specs);
}

/// A square grid of `ranks` (a power of 4) with 1024 x 1024 points per rank, every axis `spec`.
Distribution<2> simulated(int ranks, const tessera::DimSpec& spec) {
  const auto grid = ProcGrid<2>::automatic(ranks, Point<2>::filled(1));
  const Point<2> extents{grid.extent(0) * kPointsPerRankPerDim, grid.extent(1) * kPointsPerRankPerDim};
  return Distribution<2>(Box<2>::from_extents(extents), grid, {spec, spec});
}

/// Reports the messages (send and receive peers) of the schedule as a counter.
void count_peers(benchmark::State& state, const tessera::Schedule& s) {
  state.counters["peers"] = static_cast<double>(s.sends.size() + s.receives.size());
}

/// Times `make(cache)`: with a null cache every call builds; with a cache filled by one call
/// first, every timed call is a hit.
template <class Make>
void schedule_bench(benchmark::State& state, bool hit, Make make) {
  tessera::ExchangeCache cache;
  tessera::ExchangeCache* use = hit ? &cache : nullptr;
  const auto first = make(use);
  for (auto _ : state) {
    auto s = make(use);
    benchmark::DoNotOptimize(s.get());
  }
  if (hit && cache.stats().schedule_misses != 1) state.SkipWithError("the cache missed after it was filled");
  if (!hit) count_peers(state, *first);  // a property of the case: once is enough
}

template <std::size_t N>
void halo(benchmark::State& state, Distribution<N> dist, int rank, bool hit) {
  tessera::Periodicity<N> periodic{};
  periodic.fill(true);
  const auto g = tessera::ghosts<N>(1).faces_only().periodic_along(periodic);
  schedule_bench(state, hit, [&](tessera::ExchangeCache* c) { return tessera::halo_schedule(dist, g, rank, c); });
}

void redistribute(benchmark::State& state, Distribution<2> from, Distribution<2> to, int rank, bool hit) {
  const auto none = tessera::no_ghosts<2>();
  schedule_bench(state, hit, [&](tessera::ExchangeCache* c) {
    return tessera::redistribution_schedule(from, none, to, none, rank, c);
  });
}

/// Axes 0 and 1 swapped (the transpose of bench_transpose): n^N rows to n^N rows.
template <std::size_t N>
void transpose(benchmark::State& state, int ranks, index_t n, bool hit) {
  const auto src = rows<N>(ranks, n), dst = rows<N>(ranks, n);
  auto perm = tessera::MotionPlan<N>::identity();
  std::swap(perm[0], perm[1]);
  const auto none = tessera::no_ghosts<N>();
  schedule_bench(state, hit, [&](tessera::ExchangeCache* c) {
    return tessera::section_move_schedule(src, none, src.domain(), dst, none, dst.domain(), perm, 0, c);
  });
}

/// A box set (issue 16) of about `boxes` boxes: a k x k lattice of 16 x 16 boxes with every 7th left
/// out (holes), Morton-assigned over boxes / 100 ranks. Built once per size (10^6 boxes take about
/// half a second), kept for every run of the case.
const Distribution<2>& lattice_box_set(index_t boxes) {
  static std::map<index_t, Distribution<2>> made;
  if (const auto it = made.find(boxes); it != made.end()) return it->second;
  const auto k = static_cast<index_t>(std::ceil(std::sqrt(static_cast<double>(boxes) * 7.0 / 6.0)));
  std::vector<Box<2>> lattice;
  for (index_t i = 0; i < k; ++i)
    for (index_t j = 0; j < k; ++j)
      if ((i * k + j) % 7 != 3) lattice.push_back(Box<2>({16 * i, 16 * j}, {16 * i + 16, 16 * j + 16}));
  const int ranks = static_cast<int>(std::max<index_t>(1, boxes / 100));
  const Box<2> domain({0, 0}, {16 * k, 16 * k});
  auto set = tessera::make_box_set(domain, std::move(lattice), ranks, tessera::BoxAssignment::morton);
  return made.emplace(boxes, Distribution<2>::from_box_set(set)).first->second;
}

/// An n x n domain in `ranks` blocks of whole columns, user-defined (so that it can take a local order).
class ColumnBlocks final : public tessera::UserDistribution<2> {
 public:
  ColumnBlocks(index_t n, int ranks) : UserDistribution<2>(Box<2>::from_extents({n, n}), ranks), n_(n) {}
  [[nodiscard]] std::string name() const override { return "column blocks"; }
  [[nodiscard]] int owner(const Point<2>& p) const override { return static_cast<int>(p[1] * this->comm_size() / n_); }
  [[nodiscard]] tessera::BoxList<2> owned_boxes(int rank) const override {
    const index_t lo = first_column(rank), hi = first_column(rank + 1);
    if (lo == hi) return {};
    return {Box<2>({0, lo}, {n_, hi})};
  }

 private:
  // The first column whose owner is `rank`: ceil(rank * n / ranks).
  [[nodiscard]] index_t first_column(int rank) const { return (rank * n_ + this->comm_size() - 1) / this->comm_size(); }
  index_t n_;
};

/// `inner` with everything but `local_run`, which stays the default (1): one `local_offset` per point.
class PointByPoint final : public tessera::UserDistribution<2> {
 public:
  explicit PointByPoint(Distribution<2> inner)
      : UserDistribution<2>(inner.domain(), inner.comm_size()), inner_(std::move(inner)) {}
  [[nodiscard]] std::string name() const override { return inner_.user_distribution()->name() + ", point by point"; }
  [[nodiscard]] int owner(const Point<2>& p) const override { return inner_.owner(p); }
  [[nodiscard]] tessera::BoxList<2> owned_boxes(int rank) const override { return inner_.owned_boxes(rank); }
  [[nodiscard]] index_t local_offset(const Point<2>& p) const override { return inner_.local_offset(p); }
  [[nodiscard]] bool has_local_layout() const noexcept override { return true; }
  [[nodiscard]] index_t local_storage_size(int rank) const override { return inner_.local_storage_size(rank); }

 private:
  Distribution<2> inner_;
};

/// Rows (dimensional, block) to column blocks stored in `order` (or as patches without one), n^2
/// points over `ranks`, the schedule of rank 0; `point_by_point`: the layout does not answer local_run.
void redistribute_to_local_order(benchmark::State& state, const std::optional<tessera::LocalOrder<2>>& order,
                                 bool point_by_point, int ranks, index_t n, bool hit) {
  Distribution<2> to = Distribution<2>::user(std::make_shared<const ColumnBlocks>(n, ranks));
  if (order) to = tessera::with_local_order(to, *order);
  if (point_by_point) to = Distribution<2>::user(std::make_shared<const PointByPoint>(to));
  redistribute(state, rows<2>(ranks, n), to, 0, hit);
}

/// Registers "plan/<name>-build/tessera" and "plan/<name>-cache-hit/tessera".
template <class F>
void register_pair(const std::string& name, F bench) {
  for (const bool hit : {false, true})
    benchmark::RegisterBenchmark(("plan/" + name + (hit ? "-cache-hit" : "-build") + "/tessera").c_str(),
                                 [bench, hit](benchmark::State& state) { bench(state, hit); })
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  // The drivers' cases (2 ranks, rank 0).
  register_pair("halo-2d-5pt-w1-periodic-8192-P2",
                [](benchmark::State& s, bool hit) { halo<2>(s, rows<2>(2, 8192), 0, hit); });
  register_pair("halo-3d-7pt-w1-periodic-256-P2",
                [](benchmark::State& s, bool hit) { halo<3>(s, rows<3>(2, 256), 0, hit); });
  register_pair("redistribute-block-to-blockcyclic64-8192-P2", [](benchmark::State& s, bool hit) {
    const auto from = rows<2>(2, 8192);
    const Distribution<2> to(from.domain(), from.grid(), {tessera::block_cyclic(64), tessera::block_cyclic(64)});
    redistribute(s, from, to, 0, hit);
  });
  register_pair("transpose-2d-8192-P2", [](benchmark::State& s, bool hit) { transpose<2>(s, 2, 8192, hit); });
  register_pair("transpose-3d-swap01-256-P2", [](benchmark::State& s, bool hit) { transpose<3>(s, 2, 256, hit); });
  // Local layouts: 1024^2 over 4 ranks, rank 0's quarter of the rows to its block of columns.
  using Order = tessera::LocalOrder<2>;
  const std::vector<std::pair<std::string, std::optional<Order>>> orders{{"patches", std::nullopt},
                                                                         {"row-major", Order::row_major()},
                                                                         {"padded8", Order::padded(8)},
                                                                         {"tiled16", Order::tiled(16)},
                                                                         {"column-major", Order::column_major()}};
  for (const auto& [label, order] : orders)
    for (const bool point_by_point : {false, true}) {
      if (!order && point_by_point) continue;
      register_pair("redistribute-rows-to-columns-" + label + (point_by_point ? "-point-by-point" : "") + "-1024-P4",
                    [order, point_by_point](benchmark::State& s, bool hit) {
                      redistribute_to_local_order(s, order, point_by_point, 4, 1024, hit);
                    });
    }
  // Simulated machines: one rank in the middle of the grid, whose plan involves all its neighbours.
  for (const int ranks : {1024, 16384, 262144, 1048576}) {
    const std::string p = "-P" + std::to_string(ranks);
    const int rank = ranks / 3;
    register_pair("halo-2d-5pt-w1-periodic" + p, [ranks, rank](benchmark::State& s, bool hit) {
      halo<2>(s, simulated(ranks, tessera::block()), rank, hit);
    });
    register_pair("redistribute-block-to-blockcyclic64" + p, [ranks, rank](benchmark::State& s, bool hit) {
      redistribute(s, simulated(ranks, tessera::block()), simulated(ranks, tessera::block_cyclic(64)), rank, hit);
    });
  }
  // Box sets: the halo plan of one rank holding about 100 of 10^4 ... 10^6 boxes (issue 16 target:
  // <= 10 ms at 10^6), planned through the set's spatial index; replicated metadata per box.
  for (const index_t boxes : {10000, 100000, 1000000}) {
    register_pair("halo-boxset-2d-5pt-w1-periodic-" + std::to_string(boxes) + "boxes",
                  [boxes](benchmark::State& s, bool hit) {
                    const auto& dist = lattice_box_set(boxes);
                    halo<2>(s, dist, dist.comm_size() / 3, hit);
                    s.counters["bytes_per_box"] = static_cast<double>(dist.box_set()->metadata_bytes()) /
                                                  static_cast<double>(dist.box_set()->size());
                  });
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
