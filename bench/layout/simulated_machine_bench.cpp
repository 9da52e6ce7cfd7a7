// Layout queries on simulated machines of 1,024 ... 1,048,576 ranks, in one process (the layout
// layer never communicates, so one process can answer for any rank). Reports time per owner query,
// per pieces query (a box the size of one rank's block, placed at random: what a redistribution
// plan asks), per owned-box query of one rank, and the replicated metadata held per rank. None of
// these may grow linearly with P for dimensional distributions.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "tessera/layout/distribution.hpp"

namespace {

using tessera::Box;
using tessera::DimSpec;
using tessera::Distribution;
using tessera::index_t;
using tessera::Point;
using tessera::ProcGrid;

constexpr index_t kPointsPerRankPerDim2d = 1024, kPointsPerRankPerDim3d = 64;

template <std::size_t N>
Distribution<N> make(int ranks, const std::string& kind) {
  const index_t per = N == 2 ? kPointsPerRankPerDim2d : kPointsPerRankPerDim3d;
  const auto grid = ProcGrid<N>::automatic(ranks, Point<N>::filled(1));  // cube-like for a cube domain
  Point<N> extents;
  for (std::size_t d = 0; d < N; ++d) extents[d] = grid.extent(d) * per;
  std::array<DimSpec, N> specs;
  for (auto& s : specs) s = kind == "block" ? tessera::block() : tessera::block_cyclic(64);
  return Distribution<N>(Box<N>::from_extents(extents), grid, specs);
}

template <std::size_t N>
Point<N> random_point(std::mt19937_64& rng, const Box<N>& b) {
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d)
    p[d] = b.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(b.hi[d] - b.lo[d]));
  return p;
}

template <std::size_t N>
void owner_query(benchmark::State& state, int ranks, std::string kind) {
  const auto dist = make<N>(ranks, kind);
  std::mt19937_64 rng(1);
  std::vector<Point<N>> points(4096);
  for (auto& p : points) p = random_point(rng, dist.domain());
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(dist.owner(points[i++ & 4095]));
  state.counters["metadata_bytes"] = static_cast<double>(dist.metadata_bytes());
}

template <std::size_t N>
void pieces_query(benchmark::State& state, int ranks, std::string kind) {
  const auto dist = make<N>(ranks, kind);
  const index_t per = N == 2 ? kPointsPerRankPerDim2d : kPointsPerRankPerDim3d;
  std::mt19937_64 rng(2);
  std::vector<Box<N>> boxes(1024);
  for (auto& b : boxes) {
    const Point<N> lo = random_point(rng, dist.domain());
    b = Box<N>::from_extents(lo, Point<N>::filled(per));
  }
  std::size_t i = 0, pieces = 0;
  for (auto _ : state) {
    const auto out = dist.pieces(boxes[i++ & 1023]);
    pieces += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["pieces_per_query"] = static_cast<double>(pieces) / static_cast<double>(state.iterations());
}

template <std::size_t N>
void owned_query(benchmark::State& state, int ranks, std::string kind) {
  const auto dist = make<N>(ranks, kind);
  int r = ranks / 3;
  for (auto _ : state) {
    const auto sections = dist.owned_sections(r);
    benchmark::DoNotOptimize(sections.data());
    r = (r + 7919) % ranks;
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int ranks : {1024, 16384, 262144, 1048576}) {
    for (const std::string kind : {"block", "block_cyclic64"}) {
      const std::string p = "-P" + std::to_string(ranks);
      benchmark::RegisterBenchmark(("layout/owner-2d-" + kind + p + "/tessera").c_str(), owner_query<2>, ranks, kind);
      benchmark::RegisterBenchmark(("layout/owner-3d-" + kind + p + "/tessera").c_str(), owner_query<3>, ranks, kind);
      benchmark::RegisterBenchmark(("layout/pieces-2d-" + kind + p + "/tessera").c_str(), pieces_query<2>, ranks, kind);
      benchmark::RegisterBenchmark(("layout/pieces-3d-" + kind + p + "/tessera").c_str(), pieces_query<3>, ranks, kind);
      benchmark::RegisterBenchmark(("layout/owned-2d-" + kind + p + "/tessera").c_str(), owned_query<2>, ranks, kind);
      benchmark::RegisterBenchmark(("layout/owned-3d-" + kind + p + "/tessera").c_str(), owned_query<3>, ranks, kind);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
