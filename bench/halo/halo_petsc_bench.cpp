// Halo exchange: tessera's Mover over halo_schedule against PETSc DMDA's DMGlobalToLocal (anchor
// "petsc-dmda-globaltolocal", PETSc 3.18), in the same MPI job, on the same array shape.
//
// DMGlobalToLocal is not a ghost update in place: it copies the whole global vector (every owned
// point) into the local, ghosted vector as well as the ghost points, so its time is dominated by
// that copy (about two memcpy of the local array; ANCHORS.md). It is reported because it is what a
// PETSc user calls before a stencil sweep, but the fair halo anchors are the hand-written MPI ones
// of bench_halo and GA's (bench_halo_ga): a ratio far below 1 here says little about the exchange.
//
// Cases: periodic (DM_BOUNDARY_PERIODIC) 2-D 5-point (DMDA_STENCIL_STAR) and 9-point (BOX), 3-D
// 7- and 27-point, widths 1 and 2. PETSc's x is the fastest index, so x is tessera's last dimension
// and the split dimension 0 is PETSc's y (2-D) or z (3-D), with ownership ranges = tessera's block
// counts; the local (ghosted) vector then has tessera's patch layout. Before the first exchange the
// local vector is set to the sentinel; with STAR, PETSc leaves the corners alone as tessera's
// faces-only exchange does. After one exchange each, tessera's array is checked against the halo
// semantics and PETSc's local vector against tessera's array, bit for bit; the job aborts on any
// difference.
//
// PETSc's logging header redefines MPI_Isend, MPI_Allreduce and others as counting wrappers;
// PETSC_HAVE_BROKEN_RECURSIVE_MACRO turns that off here, and this driver is its own translation
// unit and program in any case (the hand-written anchors live in bench_halo).
//
// Timing: tessera and PETSc take turns, each exchange timed with MPI_Wtime between barriers; the
// max over ranks per repetition. Fewer repetitions than bench_halo by default: DMGlobalToLocal of
// a 256 MiB local array takes tens of milliseconds.
#define PETSC_HAVE_BROKEN_RECURSIVE_MACRO 1
#include <petscdmda.h>

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "halo/halo_common.hpp"
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"

namespace {

using tessera::index_t;
using tessera::Point;
using tessera::bench::Summary;
using tessera::bench::halo::Case;
using tessera::bench::halo::for_each_local;
using tessera::bench::halo::TesseraHalo;

constexpr const char* kAnchor = "petsc-dmda-globaltolocal";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job("bench_halo_petsc", message); }

void check_petsc(PetscErrorCode e, const char* what) {
  if (e != 0) abort_job(std::string(what) + " failed with PETSc error " + std::to_string(static_cast<int>(e)));
}

struct Result {
  std::string name;
  Summary tessera, petsc;
};

template <std::size_t N>
Result run_case(const tessera::Communicator& world, const Case& c, int repetitions, int warmup,
                const tessera::bench::Table& table) {
  const int rank = world.rank(), size = world.size();
  TesseraHalo<N> t(world, c);
  const auto& patch = t.layout.patches()[0];

  // Ownership ranges along the split dimension: every rank's block count.
  std::vector<PetscInt> counts(static_cast<std::size_t>(size));
  const PetscInt mine = static_cast<PetscInt>(patch.axes[0].count);
  tessera::check_mpi(MPI_Allgather(&mine, 1, MPIU_INT, counts.data(), 1, MPIU_INT, world.raw()), "MPI_Allgather");
  const auto n = static_cast<PetscInt>(c.n), s = static_cast<PetscInt>(c.width);
  const DMDAStencilType stencil = c.corners ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
  const DMBoundaryType periodic = DM_BOUNDARY_PERIODIC;
  DM da = nullptr;
  if constexpr (N == 2)
    check_petsc(DMDACreate2d(world.raw(), periodic, periodic, stencil, n, n, 1, size, 1, s, nullptr, counts.data(), &da),
                "DMDACreate2d");
  else
    check_petsc(DMDACreate3d(world.raw(), periodic, periodic, periodic, stencil, n, n, n, 1, 1, size, 1, s, nullptr,
                             nullptr, counts.data(), &da),
                "DMDACreate3d");
  check_petsc(DMSetUp(da), "DMSetUp");
  Vec global = nullptr, local = nullptr;
  check_petsc(DMCreateGlobalVector(da, &global), "DMCreateGlobalVector");
  check_petsc(DMCreateLocalVector(da, &local), "DMCreateLocalVector");
  PetscInt local_size = 0, global_size = 0;
  check_petsc(VecGetLocalSize(local, &local_size), "VecGetLocalSize");
  check_petsc(VecGetLocalSize(global, &global_size), "VecGetLocalSize");
  index_t owned = 1;
  for (std::size_t d = 0; d < N; ++d) owned *= patch.axes[d].count;
  if (static_cast<std::size_t>(local_size) != t.a.size() || global_size != owned)
    abort_job(c.name() + ": PETSc's vectors are not the size of tessera's patch and owned block");

  // The global vector: the owned points in row-major order (x fastest), their global values.
  PetscScalar* gv = nullptr;
  check_petsc(VecGetArray(global, &gv), "VecGetArray");
  {
    index_t k = 0;
    const index_t w = c.width;
    for_each_local(t.ext, [&](const Point<N>& l, index_t off) {
      for (std::size_t d = 0; d < N; ++d)
        if (l[d] < w || l[d] >= t.ext[d] - w) return;
      gv[k++] = t.a[static_cast<std::size_t>(off)];
    });
  }
  check_petsc(VecRestoreArray(global, &gv), "VecRestoreArray");
  check_petsc(VecSet(local, tessera::bench::halo::kSentinel), "VecSet");

  t.mover.run(t.a.data(), t.a.data());
  if (const std::string e = t.check(t.a); !e.empty())
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera's halo is wrong at " + e);
  const auto exchange = [&] { check_petsc(DMGlobalToLocal(da, global, INSERT_VALUES, local), "DMGlobalToLocal"); };
  exchange();
  const PetscScalar* lv = nullptr;
  check_petsc(VecGetArrayRead(local, &lv), "VecGetArrayRead");
  if (std::memcmp(lv, t.a.data(), t.a.size() * sizeof(double)) != 0) {
    std::size_t at = 0;
    while (at < t.a.size() && lv[at] == t.a[at]) ++at;
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera and PETSc differ at local offset " +
              std::to_string(at) + ": " + tessera::bench::exact(t.a[at]) + " vs " + tessera::bench::exact(lv[at]));
  }
  check_petsc(VecRestoreArrayRead(local, &lv), "VecRestoreArrayRead");

  const double bytes = static_cast<double>(t.a.size() * sizeof(double));
  const int reps = repetitions > 0 ? repetitions : bytes <= 16.0 * (1 << 20) ? 100 : 20;
  const auto times = tessera::bench::time_alternating(
      world.raw(), {[&] { t.mover.run(t.a.data(), t.a.data()); }, exchange}, warmup, reps);
  check_petsc(VecDestroy(&local), "VecDestroy");
  check_petsc(VecDestroy(&global), "VecDestroy");
  check_petsc(DMDestroy(&da), "DMDestroy");
  Result res{c.name(), times[0], times[1]};
  table.print_row(res.name, {1e6 * res.tessera.median, 1e6 * res.tessera.min, 1e6 * res.petsc.median,
                             1e6 * res.petsc.min, res.tessera.median / res.petsc.median});
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Halo exchange: tessera's Mover against PETSc DMDA's DMGlobalToLocal (periodic)"};
  std::vector<index_t> sizes{256, 1024, 4096, 8192}, sizes_3d{64, 128, 256}, widths{1, 2};
  std::string json, filter;
  int repetitions = 0, warmup = 3;
  app.add_option("--sizes", sizes, "points per dimension of the 2-D cases")->delimiter(',');
  app.add_option("--sizes-3d", sizes_3d, "points per dimension of the 3-D cases")->delimiter(',');
  app.add_option("--widths", widths, "ghost widths")->delimiter(',')->check(CLI::Range(index_t{1}, index_t{16}));
  app.add_option("--repetitions", repetitions, "timed exchanges per case (0: 100, or 20 for arrays over 16 MiB)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed exchanges per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  // After MPI_Init (tessera::Environment), so PETSc leaves MPI up at PetscFinalize. No arguments:
  // PETSc would otherwise read this driver's options as its own.
  check_petsc(PetscInitializeNoArguments(), "PetscInitializeNoArguments");

  std::vector<Case> cases;
  for (bool corners : {false, true})
    for (index_t w : widths) {
      for (index_t n : sizes) cases.push_back({2, corners, w, true, n});
      for (index_t n : sizes_3d) cases.push_back({3, corners, w, true, n});
    }
  std::erase_if(cases, [&](const Case& c) { return c.name().find(filter) == std::string::npos; });

  const tessera::bench::Table table{world.rank() == 0,
                                    "case",
                                    30,
                                    {{"tessera med", 11, 2},
                                     {"tessera min", 11, 2},
                                     {"PETSc med", 11, 2},
                                     {"PETSc min", 11, 2},
                                     {"ratio", 7, 3}}};
  if (world.rank() == 0)
    std::printf("halo exchange against DMGlobalToLocal (which also copies the interior), %d ranks, grid %dx1[x1];"
                " microseconds, max over ranks\n",
                world.size(), world.size());
  table.print_header();
  std::vector<tessera::bench::Record> records;
  for (const Case& c : cases) {
    const Result r = c.dims == 2 ? run_case<2>(world, c, repetitions, warmup, table)
                                 : run_case<3>(world, c, repetitions, warmup, table);
    records.push_back(tessera::bench::Record::timing("halo", r.name, world.size(), r.tessera, kAnchor, r.petsc));
  }
  if (!json.empty() && world.rank() == 0) tessera::bench::write_json(json, records, "bench_halo_petsc");
  check_petsc(PetscFinalize(), "PetscFinalize");
  return 0;
}
