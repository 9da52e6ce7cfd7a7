// The program behind io.sor_restart_after_kill (crash_restart.cmake) and `make soak`'s restart
// part: the adaptive SOR demo's solver (examples/adaptive_sor/solver.hpp: the same source term
// and red-black half-sweep, a ghost update before each, a Balancer moving rows under an emulated
// load) with a CheckpointSeries saved every --every iterations.
//
//   sor_restart --dir D --final F [--n 64] [--iterations 60] [--every 5] [--keep 3]
//               [--resume] [--damage-newest] [--compare REF]
//
// --resume starts from the newest valid checkpoint in D (io::latest_valid) on whatever number of
// ranks this run has; --damage-newest first flips one byte of the newest checkpoint's data (rank 0),
// so that the restart must skip it; --compare loads REF (a final solution saved by another run)
// and fails unless this run's solution is identical to it bit for bit. The environment variable
// TESSERA_TEST_KILL_AT=<iteration>:<rank> makes that rank raise(SIGKILL) as iteration <iteration>
// starts (iterations done = <iteration>): mpiexec then tears the whole job down, as after a node
// failure. The solution does not depend on the distribution (red-black: a colour reads only the
// other colour) nor on the balancer's timing-driven decisions, and the iteration count is fixed,
// so every run must end with the same bits.
#include <hdf5.h>
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "adaptive_sor/solver.hpp"
#include "tessera/io/checkpoint_series.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::index_t;
namespace io = tessera::io;

struct Options {
  std::string dir, final_path, compare;
  index_t n = 64;
  int iterations = 60, every = 5, keep = 3;
  bool resume = false, damage_newest = false;
  int kill_iteration = -1, kill_rank = -1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    const auto value = [&]() -> std::string {
      if (k + 1 >= argc) throw tessera::Error(tessera::ErrorCode::invalid_argument, a + " needs a value");
      return argv[++k];
    };
    if (a == "--dir") o.dir = value();
    else if (a == "--final") o.final_path = value();
    else if (a == "--compare") o.compare = value();
    else if (a == "--n") o.n = std::stoll(value());
    else if (a == "--iterations") o.iterations = std::stoi(value());
    else if (a == "--every") o.every = std::stoi(value());
    else if (a == "--keep") o.keep = std::stoi(value());
    else if (a == "--resume") o.resume = true;
    else if (a == "--damage-newest") o.damage_newest = true;
    else throw tessera::Error(tessera::ErrorCode::invalid_argument, "unknown argument " + a);
  }
  if (o.dir.empty() || o.final_path.empty() || o.every < 1 || o.iterations < 1 || o.n < 4)
    throw tessera::Error(tessera::ErrorCode::invalid_argument, "need --dir and --final, --every, --iterations >= 1");
  if (const char* kill = std::getenv("TESSERA_TEST_KILL_AT"))
    if (std::sscanf(kill, "%d:%d", &o.kill_iteration, &o.kill_rank) != 2)
      throw tessera::Error(tessera::ErrorCode::invalid_argument,
                           std::string("TESSERA_TEST_KILL_AT=") + kill + " is not <iteration>:<rank>");
  return o;
}

/// Rank 0 flips one byte in the middle of dataset `u` of `path` (found with plain HDF5).
void damage(const std::string& path, index_t n) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dset = H5Dopen2(file, "u", H5P_DEFAULT);
  const haddr_t at = H5Dget_offset(dset) + static_cast<haddr_t>(n * n / 2) * sizeof(double) + 5;
  H5Dclose(dset);
  H5Fclose(file);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
  std::printf("sor_restart: damaged '%s' (one byte of dataset u)\n", path.c_str());
}

int run(const tessera::Communicator& world, const Options& o) {
  using namespace tessera;
  const int rank = world.rank();
  const Box<2> box({0, 0}, {o.n, o.n});
  Domain<2> dom(world, Distribution<2>(box, ProcGrid<2>::with_shape(world.size(), {world.size(), 1}),
                                       {block(), collapsed()}));
  DistArray<double, 2> u(dom, ghosts<2>(1));  // ghosts beyond the domain stay 0: the boundary
  DistArray<double, 2> f(dom);
  f.for_each_owned([&](const Point<2>& p, double& x) { x = adaptive_sor::scaled_source(p[0], p[1], o.n); });
  io::CheckpointSeries series(o.dir, o.keep);
  int first = 0;
  if (o.resume) {
    if (o.damage_newest) {
      const auto steps = series.steps(world);
      if (rank == 0 && !steps.empty()) damage(series.path_of(steps.back()), o.n);
      world.barrier();
    }
    const io::LatestValid found = series.latest_valid(world);
    if (found) {
      (void)io::load(found.path, io::named("u", u));
      first = static_cast<int>(found.step);
    }
    if (rank == 0)
      std::printf("sor_restart: resumed at iteration %d from '%s' on %d ranks (%zu checkpoints skipped)\n", first,
                  found ? found.path.c_str() : "(none: from the start)", world.size(), found.skipped.size());
  }
  // Under an emulated load on rank 1 (and work proportional to the rows owned) the balancer moves
  // rows; where rows go changes no value.
  const EmulatedLoad load = world.size() > 1 ? EmulatedLoad::parse("1:3@0-1000000") : EmulatedLoad();
  Balancer<2> balancer(dom, make_policy("full"), {.interval = 4});
  int migrations = 0;
  for (int it = first; it < o.iterations; ++it) {
    if (it == o.kill_iteration && rank == o.kill_rank) {
      std::fprintf(stderr, "sor_restart: killing rank %d at iteration %d (SIGKILL)\n", rank, it);
      std::fflush(stderr);
      std::raise(SIGKILL);
    }
    const double started = MPI_Wtime();
    for (int color = 0; color < 2; ++color) {
      u.update_ghosts();
      adaptive_sor::half_sweep(u, f, color, 1.9);
    }
    if (u.patch_count() > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(10 * u.local().count[0]));
    double seconds = MPI_Wtime() - started;
    seconds += load.slow_down(rank, it, seconds);
    migrations += balancer.step(seconds).bytes > 0;
    if ((it + 1) % o.every == 0) series.save(it + 1, {{"iteration", std::int64_t{it + 1}}}, io::named("u", u));
  }
  io::save(o.final_path, {{"iteration", std::int64_t{o.iterations}}}, io::named("u", u));
  if (rank == 0)
    std::printf("sor_restart: finished %d iterations (%d run here) on %d ranks, %d migrations\n", o.iterations,
                o.iterations - first, world.size(), migrations);
  if (o.compare.empty()) return 0;
  DistArray<double, 2> reference(dom);
  (void)io::load(o.compare, io::named("u", reference));
  int differ = 0;
  u.for_each_owned([&](const Point<2>& p, const double& x) {
    const double want = reference.at(p);  // same domain: p is owned here too
    differ += std::memcmp(&x, &want, sizeof x) != 0;
  });
  differ = world.allreduce(differ, ReduceOp::sum);
  if (rank == 0)
    std::printf(differ == 0 ? "sor_restart: solution bit-identical to '%s'\n"
                            : "sor_restart: solution DIFFERS from '%s' in %d elements\n",
                o.compare.c_str(), differ);
  return differ == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  try {
    return run(world, parse(argc, argv));
  } catch (const tessera::Error& e) {
    if (world.rank() == 0) std::fprintf(stderr, "sor_restart: %s\n", e.what());
    return 2;
  }
}
