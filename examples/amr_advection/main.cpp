// Two-level AMR for 2-D linear advection u_t + a . grad u = 0 (first-order upwind, a = (1, 0.5))
// of a Gaussian blob moving across the unit square, with the fine level following it: every
// --regrid coarse steps the coarse cells where u > --tag are tagged, clustered (Berger–Rigoutsos), assigned
// (knapsack) and the fine level moved there (old values kept, new cells prolonged). Each coarse
// step is subcycled: the coarse level takes one step of ratio x dt, then the fine level `ratio`
// steps of dt, its ghosts filled from the fine boxes, else by linear interpolation from the coarse
// level blended in time between the two coarse states (LevelTransfer::fill_ghosts(old, new,
// alpha, fine)); then the fine level is averaged down. --no-subcycle steps both levels with dt
// instead. Checked (see README.md):
// - bit for bit against the same program on one rank (run here on MPI_COMM_SELF by rank 0);
// - against the same scheme on the uniform fine grid, within a stated bound.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "tessera/array/regrid.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

constexpr double kAx = 1.0, kAy = 0.5;

struct Setup {
  index_t n = 32;         // coarse cells per side
  index_t ratio = 2;      // refinement ratio
  int steps = 30;         // coarse steps; each is `ratio` fine steps
  int regrid = 2;         // coarse steps between regrids
  double tag = 0.02;      // tag coarse cells where u exceeds this
  bool subcycle = true;   // the coarse level steps dt_c = ratio dt (else both levels step dt, ratio times)
  double dt = 0;          // the fine step, from the fine CFL number 0.8
};

/// The initial blob at the centre of cell p of a grid of `cells` per side.
double blob(const Point<2>& p, index_t cells) {
  const double x = (static_cast<double>(p[0]) + 0.5) / static_cast<double>(cells) - 0.3;
  const double y = (static_cast<double>(p[1]) + 0.5) / static_cast<double>(cells) - 0.3;
  return std::exp(-(x * x + y * y) / (0.08 * 0.08));
}

/// One upwind step of cell p (the same expression in every run, so that they agree bit for bit).
double upwind(double here, double west, double south, double dt, index_t cells) {
  const double c = dt * static_cast<double>(cells);
  return here - c * (kAx * (here - west) + kAy * (here - south));
}

/// Advances `u` by one step into `next` (ghosts of u filled); then copies next back.
void advance(tessera::DistArray<double, 2>& u, tessera::DistArray<double, 2>& next, double dt, index_t cells) {
  for (std::size_t k = 0; k < u.patch_count(); ++k) {
    const auto in = u.stencil_access(k);
    const auto& out = next.layout().patches()[k];
    tessera::for_each_point(u.owned_box(k), [&](const Point<2>& p) {
      next.data()[out.element_offset(p)] = upwind(in(p), in({p[0] - 1, p[1]}), in({p[0], p[1] - 1}), dt, cells);
    });
  }
  std::copy(next.storage().begin(), next.storage().end(), u.storage().begin());
}

struct Result {
  std::vector<double> coarse, fine;  // gathered images (fine: -1 where no fine box is)
  std::vector<Box<2>> fine_boxes;    // the final fine level's boxes, sorted
  int regrids = 0;
};

/// The AMR run over `comm`; the images are complete on rank 0 of comm.
Result run_amr(const tessera::Communicator& comm, const Setup& s) {
  const Box<2> cbox({0, 0}, {s.n, s.n});
  const index_t nf = s.n * s.ratio;
  const Point<2> ratio{s.ratio, s.ratio};
  const auto g = tessera::ghosts<2>(1);
  const auto cset = tessera::make_box_set(cbox, tessera::chop_boxes(std::vector<Box<2>>{cbox}, Point<2>{8, 8}),
                                          comm.size(), tessera::BoxAssignment::knapsack);
  tessera::Domain<2> cdom(comm, tessera::Distribution<2>::from_box_set(cset));
  tessera::DistArray<double, 2> coarse(cdom, g), coarse_next(cdom, g), coarse_old(cdom, g);
  coarse.for_each_owned([&](const Point<2>& p, double& x) { x = blob(p, s.n); });
  tessera::RegridOptions<2> opt;
  opt.ratio = ratio;
  opt.buffer = 2;
  opt.cluster.blocking_factor = {2, 2};
  opt.cluster.max_extent = {8, 8};
  const auto tag = [&](const Point<2>&, double u) { return u > s.tag; };
  // The first fine level from the initial coarse data; its values from the initial condition.
  tessera::Domain<2> fdom(comm, tessera::Distribution<2>::from_box_set(tessera::tag_and_cluster(coarse, tag, opt)));
  tessera::DistArray<double, 2> fine(fdom, g), fine_next(fdom, g);
  fine.for_each_owned([&](const Point<2>& p, double& x) { x = blob(p, nf); });
  std::optional<tessera::LevelTransfer<double, 2>> link(std::in_place, cdom, fdom, ratio, g);
  link->restrict_to(fine, coarse);
  Result r;
  for (int step = 0; step < s.steps; ++step) {
    if (step > 0 && step % s.regrid == 0) {
      const auto boxes = tessera::tag_and_cluster(coarse, tag, opt);
      link.reset();
      link.emplace(tessera::regrid_level(coarse, fdom, boxes, {&fine}, ratio, g));
      ++r.regrids;
    }
    if (s.subcycle) {
      // The coarse level takes one step of ratio dt; the fine level `ratio` steps of dt, its ghosts
      // from the coarse level blended between the two coarse states at the fine level's time.
      std::copy(coarse.storage().begin(), coarse.storage().end(), coarse_old.storage().begin());
      coarse.update_ghosts();  // ghosts outside the square stay 0: inflow of u = 0
      advance(coarse, coarse_next, static_cast<double>(s.ratio) * s.dt, s.n);
      for (index_t sub = 0; sub < s.ratio; ++sub) {
        link->fill_ghosts(coarse_old, coarse, static_cast<double>(sub) / static_cast<double>(s.ratio), fine);
        advance(fine, fine_next, s.dt, nf);
      }
      link->restrict_to(fine, coarse);
    } else {
      for (index_t sub = 0; sub < s.ratio; ++sub) {  // both levels at the same time, with the fine step
        link->fill_ghosts(coarse, fine);
        coarse.update_ghosts();
        advance(coarse, coarse_next, s.dt, s.n);
        advance(fine, fine_next, s.dt, nf);
        link->restrict_to(fine, coarse);
      }
    }
  }
  r.coarse.assign(static_cast<std::size_t>(s.n * s.n), 0.0);
  r.fine.assign(static_cast<std::size_t>(nf * nf), -1.0);
  coarse.gather_to(0, r.coarse);
  fine.gather_to(0, r.fine);
  r.fine_boxes = fdom.distribution().box_set()->boxes();
  std::sort(r.fine_boxes.begin(), r.fine_boxes.end(), tessera::BoxLexLess{});
  return r;
}

/// The same scheme on the uniform fine grid (plain loops, u = 0 outside).
std::vector<double> uniform_fine(const Setup& s) {
  const index_t nf = s.n * s.ratio;
  std::vector<double> u(static_cast<std::size_t>(nf * nf)), next = u;
  const auto at = [nf](index_t i, index_t j) { return static_cast<std::size_t>(i * nf + j); };
  for (index_t i = 0; i < nf; ++i)
    for (index_t j = 0; j < nf; ++j) u[at(i, j)] = blob({i, j}, nf);
  for (index_t step = 0; step < s.steps * s.ratio; ++step) {  // the fine steps of `steps` coarse ones
    for (index_t i = 0; i < nf; ++i)
      for (index_t j = 0; j < nf; ++j)
        next[at(i, j)] = upwind(u[at(i, j)], i > 0 ? u[at(i - 1, j)] : 0.0, j > 0 ? u[at(i, j - 1)] : 0.0, s.dt, nf);
    std::swap(u, next);
  }
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  CLI::App app("Two-level AMR advection of a blob, regridded as it moves");
  Setup s;
  double bound = 5e-3;
  app.add_option("--n", s.n, "coarse cells per side")->check(CLI::Range(8, 1024));
  app.add_option("--ratio", s.ratio, "refinement ratio")->check(CLI::Range(2, 4));
  app.add_option("--steps", s.steps, "coarse time steps (each is --ratio fine steps)")->check(CLI::Range(0, 100000));
  app.add_option("--regrid", s.regrid, "coarse steps between regrids")->check(CLI::Range(1, 100000));
  app.add_flag("!--no-subcycle", s.subcycle,
               "step both levels with the fine time step (the coarse level --ratio times per coarse step)");
  app.add_option("--tag", s.tag, "tag threshold")->check(CLI::Range(0.0, 1.0));
  app.add_option("--bound", bound, "largest difference from the uniform fine grid accepted");
  CLI11_PARSE(app, argc, argv);
  s.dt = 0.8 / (static_cast<double>(s.n * s.ratio) * (kAx + kAy));

  tessera::Communicator world(MPI_COMM_WORLD);
  const Result distributed = run_amr(world, s);
  int ok = 1;
  if (world.rank() == 0) {
    tessera::Communicator self(MPI_COMM_SELF);
    const Result serial = run_amr(self, s);
    const bool same = distributed.coarse == serial.coarse && distributed.fine == serial.fine &&
                      distributed.fine_boxes == serial.fine_boxes;
    // Against the uniform fine grid: fine cells directly, coarse-only cells against the mean of
    // the fine cells they cover.
    const auto u = uniform_fine(s);
    const index_t nf = s.n * s.ratio;
    double fine_error = 0, coarse_error = 0;
    for (std::size_t k = 0; k < u.size(); ++k)
      if (distributed.fine[k] != -1.0) fine_error = std::max(fine_error, std::abs(distributed.fine[k] - u[k]));
    for (index_t i = 0; i < s.n; ++i)
      for (index_t j = 0; j < s.n; ++j) {
        double mean = 0;
        bool covered = false;
        for (index_t a = 0; a < s.ratio; ++a)
          for (index_t b = 0; b < s.ratio; ++b) {
            const auto k = static_cast<std::size_t>((i * s.ratio + a) * nf + j * s.ratio + b);
            mean += u[k];
            covered = covered || distributed.fine[k] != -1.0;
          }
        mean /= static_cast<double>(s.ratio * s.ratio);
        if (!covered)
          coarse_error =
              std::max(coarse_error, std::abs(distributed.coarse[static_cast<std::size_t>(i * s.n + j)] - mean));
      }
    index_t fine_cells = 0;
    for (const auto& b : distributed.fine_boxes) fine_cells += tessera::volume(b);
    std::printf("%d coarse steps, %s %lld fine steps each, %d regrids, final fine level %zu boxes (%lld of %lld fine "
                "cells) over %d ranks\n",
                s.steps, s.subcycle ? "subcycled: one coarse step and" : "not subcycled: both levels take",
                static_cast<long long>(s.ratio), distributed.regrids, distributed.fine_boxes.size(),
                static_cast<long long>(fine_cells), static_cast<long long>(nf * nf), world.size());
    std::printf("max |AMR - uniform fine|: %.3e on fine cells, %.3e on coarse-only cells (bound %.1e)\n", fine_error,
                coarse_error, bound);
    ok = same && fine_error <= bound && coarse_error <= bound;
    if (!same) std::printf("the AMR run differs from the 1-rank run\n");
    if (ok)
      std::printf("AMR advection matches the 1-rank run bit for bit and the uniform fine grid within %.1e\n", bound);
  }
  world.bcast(std::span<int>(&ok, 1), 0);
  return ok ? 0 : 1;
}
