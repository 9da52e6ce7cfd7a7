// NPB MG (classes S, W, A, B) on tessera, for KeLP's Fig. 6 comparison with a hand-written MPI
// version (mg_mpi.cpp, same operators: mg_kernels.hpp, same procedure: mg_driver.hpp).
//
// Every level is a tessera Domain<3> over one ProcGrid<3> with cut() axes (the block cuts of
// mg_driver.hpp's level_cuts); u, r and v carry periodic ghosts of width 1 with edges and corners,
// filled by update_ghosts (NPB's comm3). Restriction and prolongation write into arrays over
// helper domains aligned with the level that computes them and reach their owners through
// tessera::copy, whose schedules the domains cache after the first V-cycle. Levels with fewer
// points than grid positions on an axis leave ranks without a block; tessera fills ghosts across
// them (ghost_spec.hpp: "from whichever ranks own those indices").
//
//   scripts/mpirun.sh 3 build/release/experiments/nas_mg_tessera --class S
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "mg_driver.hpp"
#include "tessera/tessera.hpp"

namespace {

using nas_mg::Block;
using nas_mg::Field;
using Array = tessera::DistArray<double, 3>;

/// A tessera distribution of an n^3 box (lo at 0) with the given cuts per axis.
tessera::Distribution<3> cut_distribution(nas_mg::index_t n, const tessera::ProcGrid<3>& grid,
                                          const std::array<std::vector<nas_mg::index_t>, 3>& cuts) {
  return tessera::Distribution<3>(tessera::Box<3>({0, 0, 0}, {n, n, n}), grid,
                                  {tessera::cut(cuts[0]), tessera::cut(cuts[1]), tessera::cut(cuts[2])});
}

/// The kernels' view of this rank's block of `a` (empty if it owns none).
Block block_of(Array& a) {
  if (a.patch_count() == 0) return {};
  const auto v = a.local();
  const auto box = a.owned_box();
  double* origin = v.data + v.ghost_lo[0] * v.strides[0] + v.ghost_lo[1] * v.strides[1] + v.ghost_lo[2];
  return {origin, {box.lo[0], box.lo[1], box.lo[2]}, {v.count[0], v.count[1], v.count[2]}, v.strides[0], v.strides[1]};
}

/// mg_driver.hpp's `Levels` on tessera.
class TesseraLevels {
 public:
  TesseraLevels(const tessera::Communicator& world, int lt, const std::array<int, 3>& shape) : world_(world) {
    const auto grid = tessera::ProcGrid<3>::with_shape(world.size(), {shape[0], shape[1], shape[2]});
    const auto cuts = nas_mg::level_cuts(lt, shape);
    const auto halo = tessera::ghosts<3>(1).periodic_along({true, true, true});
    levels_.resize(static_cast<std::size_t>(lt) + 1);
    for (int k = 1; k <= lt; ++k) {
      const auto& c = cuts[static_cast<std::size_t>(k)];
      auto& L = levels_[static_cast<std::size_t>(k)];
      L.own = std::make_unique<tessera::Domain<3>>(world, cut_distribution(c.n, grid, c.own));
      L.u = std::make_unique<Array>(*L.own, halo);
      L.r = std::make_unique<Array>(*L.own, halo);
      if (k == lt) L.v = std::make_unique<Array>(*L.own, halo);
      if (k == 1) continue;
      L.work = std::make_unique<Array>(*L.own);
      L.restrict_dom = std::make_unique<tessera::Domain<3>>(world, cut_distribution(c.n / 2, grid, c.restricted));
      L.restricted = std::make_unique<Array>(*L.restrict_dom);
      L.prolong_dom = std::make_unique<tessera::Domain<3>>(world, cut_distribution(c.n, grid, c.prolonged));
      L.prolonged = std::make_unique<Array>(*L.prolong_dom);
    }
  }

  Block block(Field f, int k) { return block_of(array(f, k)); }
  void update_ghosts(Field f, int k) { array(f, k).update_ghosts(); }
  void restrict_to_coarse(int k) { tessera::copy(array(Field::restricted, k), array(Field::r, k - 1)); }
  void prolong_to_fine(int k) { tessera::copy(array(Field::prolonged, k), array(Field::work, k)); }
  double sum(double x) { return world_.sum(x); }
  double max(double x) { return world_.max(x); }
  std::vector<nas_mg::ChargeCandidates> allgather(const nas_mg::ChargeCandidates& mine) {
    return world_.allgather(mine);
  }
  void barrier() { world_.barrier(); }
  static double wtime() { return tessera::Communicator::wtime(); }

 private:
  struct Level {
    std::unique_ptr<tessera::Domain<3>> own, restrict_dom, prolong_dom;
    std::unique_ptr<Array> u, r, v, work, restricted, prolonged;
  };

  Array& array(Field f, int k) {
    auto& L = levels_.at(static_cast<std::size_t>(k));
    const std::unique_ptr<Array>* p = nullptr;
    switch (f) {
      case Field::u: p = &L.u; break;
      case Field::r: p = &L.r; break;
      case Field::v: p = &L.v; break;
      case Field::work: p = &L.work; break;
      case Field::restricted: p = &L.restricted; break;
      case Field::prolonged: p = &L.prolonged; break;
    }
    if (!*p) tessera::fail_argument("TesseraLevels::array", "k", k, "has no such field on this level");
    return **p;
  }

  const tessera::Communicator& world_;
  std::vector<Level> levels_;
};

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"NPB MG on tessera: V-cycles on a periodic 3-D grid, verified against NPB's residual norm"};
  std::string name = "S";
  app.add_option("--class", name, "NPB class: S (32^3), W (128^3), A (256^3, 4 iterations), B (256^3, 20)")
      ->check(CLI::IsMember({"S", "W", "A", "B"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const nas_mg::ProblemClass& cls = *nas_mg::find_class(name[0]);
  const auto shape = nas_mg::grid_shape(world.size());
  TesseraLevels levels(world, cls.log2_n, shape);
  nas_mg::Solver<TesseraLevels> solver(levels, cls);
  const nas_mg::Result result = solver.run();
  if (world.rank() == 0) nas_mg::report("tessera", cls, world.size(), shape, result);
  return result.verified ? 0 : 1;
}
