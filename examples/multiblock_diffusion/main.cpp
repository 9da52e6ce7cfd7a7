// Explicit heat diffusion on a ring held as four blocks (an O-grid-like ring, Multiblock PARTI),
// each block a quarter of the ring stored in an index space of its own — turned, flipped or
// transposed — with its own distribution (all ranks, a box set, a processor subset, one rank), glued
// to the next at faces with the orientations that this implies. The answer must equal, bit for bit,
// the same steps on one L x W rectangle, periodic along its length, walls held at 0 across it (or,
// with --across periodic, each block glued to itself across: a torus): the multiblock ghost update
// has to lay every neighbour down exactly where the rectangle has it. With --stencil 9 the update
// reads the diagonal neighbours too, which at a block's corner on the torus lie across two
// interfaces. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Orientation;
using tessera::OrientedMap;
using tessera::Point;

constexpr double kNu = 0.2;  // nu * dt / h^2, stable below 0.25

/// One step at a point from its value and its neighbours along each axis. The pairs are summed
/// first and the two pair sums then added, so that turning or flipping the axes (which swaps the
/// pairs or the terms of a pair) leaves every rounding the same.
double step(double centre, double lo0, double hi0, double lo1, double hi1) {
  return centre + kNu * (((lo0 + hi0) + (lo1 + hi1)) - 4.0 * centre);
}

/// The same with the diagonal neighbours (the 9-point Laplacian), summed as the two pairs of
/// opposite corners, which turning, flipping or transposing swaps as a whole or within: again no
/// rounding changes.
double step9(double centre, double lo0, double hi0, double lo1, double hi1, double lo_lo, double hi_hi, double lo_hi,
             double hi_lo) {
  const double edges = (lo0 + hi0) + (lo1 + hi1), corners = (lo_lo + hi_hi) + (lo_hi + hi_lo);
  return centre + kNu * ((4.0 * edges + corners) - 20.0 * centre) / 6.0;
}

/// The initial temperature at a point of the rectangle: a lopsided bump.
double initial(const Point<2>& p, index_t length, index_t width) {
  const double x = static_cast<double>(p[0]) / static_cast<double>(length);
  const double y = static_cast<double>(p[1] + 1) / static_cast<double>(width + 1);
  return (x < 0.3 ? 1.0 + x : 0.25 * x) * y * (1.0 - y) * (1.0 + y);
}

/// The serial reference: the L x W rectangle, periodic along axis 0, and along axis 1 either 0
/// beyond the walls or periodic too.
std::vector<double> serial(index_t length, index_t width, int steps, bool periodic_across, bool nine_points) {
  const auto at = [width](index_t i, index_t j) { return static_cast<std::size_t>(i * width + j); };
  std::vector<double> u(static_cast<std::size_t>(length * width)), next(u.size());
  for (index_t i = 0; i < length; ++i)
    for (index_t j = 0; j < width; ++j) u[at(i, j)] = initial({i, j}, length, width);
  const auto read = [&](index_t i, index_t j) {
    if (periodic_across) return u[at((i + length) % length, (j + width) % width)];
    return j < 0 || j >= width ? 0.0 : u[at((i + length) % length, j)];
  };
  for (int s = 0; s < steps; ++s) {
    for (index_t i = 0; i < length; ++i)
      for (index_t j = 0; j < width; ++j)
        next[at(i, j)] = nine_points ? step9(read(i, j), read(i - 1, j), read(i + 1, j), read(i, j - 1), read(i, j + 1),
                                             read(i - 1, j - 1), read(i + 1, j + 1), read(i - 1, j + 1), read(i + 1, j - 1))
                                     : step(read(i, j), read(i - 1, j), read(i + 1, j), read(i, j - 1), read(i, j + 1));
    std::swap(u, next);
  }
  return u;
}

/// The ring in four quarters: quarter k is the rectangle's [kL/4, (k+1)L/4) x [0, W), stored
/// turned by `turn[k]` (block index offsets = turn applied to rectangle offsets).
struct Ring {
  std::vector<Box<2>> quarters;            // in the rectangle
  std::vector<OrientedMap<2>> to_block;    // rectangle -> block k's index space
  std::vector<tessera::Distribution<2>> blocks;
  std::vector<tessera::BlockInterface<2>> interfaces;
};

Ring make_ring(index_t length, index_t width, int ranks, bool periodic_across) {
  const std::vector<Orientation<2>> turn{
      Orientation<2>(),                                  // as is
      Orientation<2>({1, 0}, {true, false}),             // a quarter turn
      Orientation<2>({0, 1}, {true, true}),              // a half turn
      Orientation<2>({1, 0}, {false, false})};           // transposed (a mirror)
  Ring r;
  for (std::size_t k = 0; k < 4; ++k) {
    const index_t lo = length * static_cast<index_t>(k) / 4, hi = length * static_cast<index_t>(k + 1) / 4;
    r.quarters.push_back(Box<2>({lo, 0}, {hi, width}));
    const Point<2> size{r.quarters[k].hi[turn[k].source_axis(0)] - r.quarters[k].lo[turn[k].source_axis(0)],
                        r.quarters[k].hi[turn[k].source_axis(1)] - r.quarters[k].lo[turn[k].source_axis(1)]};
    const Box<2> block_box(Point<2>{10 * static_cast<index_t>(k), -3}, Point<2>{10 * static_cast<index_t>(k) + size[0], size[1] - 3});
    r.to_block.push_back(OrientedMap<2>::onto(turn[k], r.quarters[k], block_box));
  }
  // Each block its own distribution: all ranks in a column of blocks, a box set dealt out along a
  // space-filling curve, the lower half of the ranks, and the last rank alone.
  const auto& b = r.to_block;
  const Box<2> box0 = b[0].map(r.quarters[0]), box1 = b[1].map(r.quarters[1]);
  const Box<2> box2 = b[2].map(r.quarters[2]), box3 = b[3].map(r.quarters[3]);
  r.blocks.push_back(tessera::Distribution<2>(box0, tessera::ProcGrid<2>::with_shape(ranks, {ranks, 1}),
                                              {tessera::block(), tessera::block()}));
  r.blocks.push_back(tessera::Distribution<2>::from_box_set(tessera::make_box_set(
      box1, tessera::chop_boxes(std::vector<Box<2>>{box1}, Point<2>{5, 5}), ranks, tessera::BoxAssignment::morton)));
  const int half = std::max(1, ranks / 2);
  std::vector<int> lower_half(static_cast<std::size_t>(half));
  for (int q = 0; q < half; ++q) lower_half[static_cast<std::size_t>(q)] = q;
  r.blocks.push_back(tessera::Distribution<2>(box2, tessera::ProcGrid<2>::from_ranks(ranks, {1, half}, lower_half),
                                              {tessera::block(), tessera::block()}));
  r.blocks.push_back(tessera::Distribution<2>(box3, tessera::ProcGrid<2>::from_ranks(ranks, {1, 1}, {ranks - 1}),
                                              {tessera::block(), tessera::block()}));
  // Quarter k's upper end along the ring meets quarter k+1's lower end. In block terms: the block
  // axis the rectangle's axis 0 runs along, on the side its flip puts that end; the glue maps
  // block k+1's offsets back to the rectangle and on into block k.
  for (std::size_t k = 0; k < 4; ++k) {
    const std::size_t n = (k + 1) % 4;
    const Orientation<2>& ta = b[k].orientation;
    const Orientation<2>& tb = b[n].orientation;
    const std::size_t axis_a = ta.image_axis(0), axis_b = tb.image_axis(0);
    r.interfaces.push_back({{k, axis_a, !ta.flipped(axis_a), {}}, {n, axis_b, tb.flipped(axis_b), {}},
                            tb.inverse().then(ta)});
  }
  // Closed across too: each block's end of the rectangle's axis 1 glued to its own other end (a
  // block glued to itself, the identity orientation: periodic along that block axis).
  if (periodic_across)
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t axis = b[k].orientation.image_axis(1);
      r.interfaces.push_back({{k, axis, true, {}}, {k, axis, false, {}}, Orientation<2>()});
    }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  CLI::App app("Heat diffusion on a ring of four differently oriented blocks");
  index_t length = 48, width = 12;
  int steps = 200;
  std::string across = "walls";
  int points = 5;
  app.add_option("--length", length, "cells around the ring (a multiple of 4)")->check(CLI::Range(8, 1 << 20));
  app.add_option("--width", width, "cells across the ring")->check(CLI::Range(2, 1 << 20));
  app.add_option("--steps", steps, "explicit steps (even)")->check(CLI::Range(0, 1000000));
  app.add_option("--across", across, "across the ring: walls held at 0, or periodic (a torus)")
      ->check(CLI::IsMember({"walls", "periodic"}));
  app.add_option("--stencil", points, "5 points, or 9 (diagonal neighbours too)")->check(CLI::IsMember({5, 9}));
  CLI11_PARSE(app, argc, argv);
  length -= length % 4;
  steps += steps % 2;

  tessera::Communicator world(MPI_COMM_WORLD);
  const bool periodic_across = across == "periodic", nine_points = points == 9;
  const Ring ring = make_ring(length, width, world.size(), periodic_across);
  tessera::MultiblockDomain<2> dom(world, tessera::MultiblockLayout<2>(ring.blocks, ring.interfaces, 1));
  // The 9-point update reads the corner ghosts: at a block's corner on the torus they come across
  // two interfaces (the next block, then its own glue across), filled by the same update.
  const auto g = nine_points ? tessera::ghosts<2>(1) : tessera::ghosts<2>(1).faces_only();
  tessera::MultiblockArray<double, 2> u(dom, g), v(dom, g);  // ghosts beyond the walls stay 0
  const auto to_rectangle = [&](std::size_t block, const Point<2>& p) { return ring.to_block[block].inverse().map(p); };
  u.for_each_owned([&](std::size_t block, const Point<2>& p, double& x) {
    x = initial(to_rectangle(block, p), length, width);
  });
  const auto sweep = [](const auto& acc, const Point<2>& p) {
    return step(acc(p), acc({p[0] - 1, p[1]}), acc({p[0] + 1, p[1]}), acc({p[0], p[1] - 1}), acc({p[0], p[1] + 1}));
  };
  const auto sweep9 = [](const auto& acc, const Point<2>& p) {
    return step9(acc(p), acc({p[0] - 1, p[1]}), acc({p[0] + 1, p[1]}), acc({p[0], p[1] - 1}), acc({p[0], p[1] + 1}),
                 acc({p[0] - 1, p[1] - 1}), acc({p[0] + 1, p[1] + 1}), acc({p[0] - 1, p[1] + 1}),
                 acc({p[0] + 1, p[1] - 1}));
  };
  const auto advance = [&](tessera::MultiblockArray<double, 2>& from, tessera::MultiblockArray<double, 2>& to) {
    from.update_ghosts();  // each block's halo and the interfaces: one schedule
    if (nine_points)
      tessera::apply_stencil(from.array(), to.array(), sweep9);
    else
      tessera::apply_stencil(from.array(), to.array(), sweep);
  };
  for (int s = 0; s < steps; s += 2) {
    advance(u, v);
    advance(v, u);
  }

  const auto reference = serial(length, width, steps, periodic_across, nine_points);
  double mismatches = 0;
  u.for_each_owned([&](std::size_t block, const Point<2>& p, double& x) {
    const Point<2> q = to_rectangle(block, p);
    if (x != reference[static_cast<std::size_t>(q[0] * width + q[1])]) mismatches += 1;
  });
  mismatches = world.sum(mismatches);
  if (world.rank() == 0) {
    std::printf("ring of %lld x %lld cells in 4 blocks (turned, half-turned, transposed), %s across, %d-point "
                "stencil, %d ranks, %d steps\n",
                static_cast<long long>(length), static_cast<long long>(width), across.c_str(), points, world.size(),
                steps);
    if (mismatches == 0)
      std::printf("multiblock diffusion matches the single-block reference bit for bit\n");
    else
      std::printf("%.0f cells differ from the single-block reference\n", mismatches);
  }
  return mismatches == 0 ? 0 : 1;
}
