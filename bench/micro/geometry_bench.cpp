// Region calculus micro-benchmarks: intersect, difference and point iteration, the operations plan
// builders run most. Point iteration is compared with hand-written nested loops over the same box,
// the code a user would otherwise write. Also the nesting region of an AMR level with holes
// (layout/level_hierarchy.hpp), box by box through the set's spatial index, against the direct
// version that subtracts every grown hole from every box (what tessera did before, quadratic).
// And Berger-Rigoutsos clustering of a ring of tags inside that nesting region, against the same
// clustering with no allowed region (what the region adds to the clustering itself).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/geometry/berger_rigoutsos.hpp"
#include "tessera/layout/level_hierarchy.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

template <std::size_t N>
std::vector<Box<N>> random_boxes(std::size_t count) {
  std::mt19937_64 rng(N);
  std::uniform_int_distribution<index_t> coord(-1000, 1000), len(1, 600);
  std::vector<Box<N>> out(count);
  for (auto& b : out)
    for (std::size_t d = 0; d < N; ++d) b.lo[d] = coord(rng), b.hi[d] = b.lo[d] + len(rng);
  return out;
}

template <std::size_t N>
void intersect_pairs(benchmark::State& state) {
  const auto boxes = random_boxes<N>(1024);
  std::size_t i = 0;
  for (auto _ : state) {
    const auto r = intersect(boxes[i & 1023], boxes[(i * 7 + 3) & 1023]);
    benchmark::DoNotOptimize(r);
    ++i;
  }
}

template <std::size_t N>
void difference_pairs(benchmark::State& state) {
  const auto boxes = random_boxes<N>(1024);
  std::size_t i = 0;
  for (auto _ : state) {
    const auto r = difference(boxes[i & 1023], boxes[(i * 7 + 3) & 1023]);
    benchmark::DoNotOptimize(r);
    ++i;
  }
}

// Sum of row-major offsets of every point: the shape of a pack loop's index computation.
void iterate_for_each_point(benchmark::State& state) {
  const Box<3> b({0, 0, 0}, {64, 64, 64});
  for (auto _ : state) {
    index_t sum = 0;
    tessera::for_each_point(b, [&](const Point<3>& p) { sum += tessera::offset_row_major(b, p); });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * volume(b));
}

void iterate_points_range(benchmark::State& state) {
  const Box<3> b({0, 0, 0}, {64, 64, 64});
  for (auto _ : state) {
    index_t sum = 0;
    for (const auto& p : tessera::points(b)) sum += tessera::offset_row_major(b, p);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * volume(b));
}

void iterate_hand_loops(benchmark::State& state) {
  const Box<3> b({0, 0, 0}, {64, 64, 64});
  for (auto _ : state) {
    index_t sum = 0;
    for (index_t i = b.lo[0]; i < b.hi[0]; ++i)
      for (index_t j = b.lo[1]; j < b.hi[1]; ++j)
        for (index_t k = b.lo[2]; k < b.hi[2]; ++k)
          sum += ((i - b.lo[0]) * (b.hi[1] - b.lo[1]) + (j - b.lo[1])) * (b.hi[2] - b.lo[2]) + (k - b.lo[2]);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * volume(b));
}

/// A level of `side` x `side` boxes of 8 x 8 cells with every tenth box missing (holes).
tessera::BoxSet<2> level_with_holes(index_t side) {
  std::mt19937_64 rng(3);
  std::vector<Box<2>> boxes;
  for (index_t x = 0; x < side; ++x)
    for (index_t y = 0; y < side; ++y)
      if (rng() % 10 != 0) boxes.push_back(Box<2>({x * 8, y * 8}, {x * 8 + 8, y * 8 + 8}));
  return tessera::BoxSet<2>(Box<2>({0, 0}, {side * 8, side * 8}), boxes, std::vector<int>(boxes.size(), 0), 1);
}

void nesting_region_indexed(benchmark::State& state, index_t side) {
  const auto level = level_with_holes(side);
  for (auto _ : state) benchmark::DoNotOptimize(tessera::nesting_region(level, 1));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(level.size()));
}

void nesting_region_direct(benchmark::State& state, index_t side) {
  const auto level = level_with_holes(side);
  for (auto _ : state) {
    tessera::BoxList<2> holes{level.domain()};
    for (const Box<2>& b : level.boxes()) holes = difference(holes, b);
    tessera::BoxList<2> region(level.boxes());
    for (const Box<2>& h : holes) region = difference(region, grow(h, 1));
    benchmark::DoNotOptimize(region);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(level.size()));
}

/// The cells of a ring (a moving front) of width 6 around the centre of a side*8 square.
std::vector<Point<2>> ring_tags(index_t side) {
  const index_t n = side * 8;
  const double centre = static_cast<double>(n) / 2.0, radius = static_cast<double>(n) / 3.0;
  std::vector<Point<2>> tags;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      if (std::abs(std::hypot(static_cast<double>(i) - centre, static_cast<double>(j) - centre) - radius) < 3.0)
        tags.push_back(Point<2>{i, j});
  return tags;
}

tessera::ClusterOptions<2> ring_options() {
  tessera::ClusterOptions<2> opt;
  opt.blocking_factor = {2, 2};
  opt.max_extent = {64, 64};
  return opt;
}

void cluster_in_nesting_region(benchmark::State& state, index_t side) {
  const auto level = level_with_holes(side);
  const auto allowed = tessera::nesting_region(level, 1);
  const auto tags = ring_tags(side);
  for (auto _ : state) benchmark::DoNotOptimize(tessera::cluster_tags<2>(tags, level.domain(), ring_options(), allowed));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(allowed.size()));
}

void cluster_unrestricted(benchmark::State& state, index_t side) {
  const auto level = level_with_holes(side);
  const auto tags = ring_tags(side);
  for (auto _ : state) benchmark::DoNotOptimize(tessera::cluster_tags<2>(tags, level.domain(), ring_options()));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(level.size()));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("geometry/intersect-2d/tessera", intersect_pairs<2>);
  benchmark::RegisterBenchmark("geometry/intersect-3d/tessera", intersect_pairs<3>);
  benchmark::RegisterBenchmark("geometry/difference-2d/tessera", difference_pairs<2>);
  benchmark::RegisterBenchmark("geometry/difference-3d/tessera", difference_pairs<3>);
  benchmark::RegisterBenchmark("geometry/iterate-64^3-for_each_point/tessera", iterate_for_each_point);
  benchmark::RegisterBenchmark("geometry/iterate-64^3-for_each_point/anchor=hand-written-loops", iterate_hand_loops);
  benchmark::RegisterBenchmark("geometry/iterate-64^3-points-range/tessera", iterate_points_range);
  benchmark::RegisterBenchmark("geometry/iterate-64^3-points-range/anchor=hand-written-loops", iterate_hand_loops);
  for (const index_t side : {32, 100}) {  // about 900 and 9000 boxes
    const std::string name = "geometry/nesting-region-" + std::to_string(side) + "x" + std::to_string(side) + "-boxes";
    benchmark::RegisterBenchmark((name + "/tessera").c_str(), nesting_region_indexed, side);
    benchmark::RegisterBenchmark((name + "/anchor=every-hole-from-every-box").c_str(), nesting_region_direct, side);
  }
  for (const index_t side : {32, 100}) {
    const std::string name = "geometry/cluster-tags-in-nesting-region-" + std::to_string(side) + "x" +
                             std::to_string(side) + "-boxes";
    benchmark::RegisterBenchmark((name + "/tessera").c_str(), cluster_in_nesting_region, side);
    benchmark::RegisterBenchmark((name + "/anchor=no-allowed-region").c_str(), cluster_unrestricted, side);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
