// The program behind checkpoint.crash_leaves_previous_intact (see expect_previous_checkpoint.cmake):
//   checkpoint_crash save PATH ITERATION    saves two arrays whose values depend on ITERATION
//   checkpoint_crash check PATH ITERATION   loads them (another distribution) and checks both the
//                                           iteration attribute and every element
// Run "save" with TESSERA_TEST_ABORT_IN_SAVE set and it dies mid-save, as a crashed job would.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/io/checkpoint.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Point;

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// An arbitrary bit pattern per point and iteration.
std::uint64_t bits(const Point<2>& p, std::int64_t iteration) {
  return mix64(mix64(mix64(static_cast<std::uint64_t>(iteration)) ^ static_cast<std::uint64_t>(p[0])) ^
               static_cast<std::uint64_t>(p[1]));
}

double real_at(const Point<2>& p, std::int64_t iteration) {
  const std::uint64_t b = bits(p, iteration);
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const auto& world = env.world();
  if (argc != 4 || (std::strcmp(argv[1], "save") != 0 && std::strcmp(argv[1], "check") != 0)) {
    if (world.rank() == 0) std::fprintf(stderr, "usage: %s save|check PATH ITERATION\n", argv[0]);
    return 2;
  }
  const bool save = std::strcmp(argv[1], "save") == 0;
  const std::string path = argv[2];
  const std::int64_t iteration = std::atoll(argv[3]);
  const tessera::Box<2> box({0, 0}, {40, 30});
  const auto grid = tessera::ProcGrid<2>::automatic(world.size(), {40, 30});
  const tessera::Distribution<2> dist =
      save ? tessera::Distribution<2>(box, grid, {tessera::block(), tessera::block()})
           : tessera::Distribution<2>(box, grid, {tessera::cyclic(), tessera::block_cyclic(4)});
  tessera::Domain<2> dom(world, dist);
  tessera::DistArray<double, 2> u(dom, save ? tessera::ghosts<2>(1) : tessera::no_ghosts<2>());
  tessera::DistArray<std::int64_t, 2> id(dom);
  namespace io = tessera::io;
  if (save) {
    u.for_each_owned([&](const Point<2>& p, double& x) { x = real_at(p, iteration); });
    id.for_each_owned([&](const Point<2>& p, std::int64_t& x) { x = static_cast<std::int64_t>(bits(p, -iteration)); });
    io::save(path, {{"iteration", iteration}, {"time", 0.5 * static_cast<double>(iteration)}}, io::named("u", u),
             io::named("id", id));
    if (world.rank() == 0) std::printf("checkpoint_crash: saved iteration %lld\n", static_cast<long long>(iteration));
    return 0;
  }
  const io::Attributes at = io::load(path, io::named("u", u), io::named("id", id));
  int wrong = 0;
  u.for_each_owned([&](const Point<2>& p, const double& x) {
    const double want = real_at(p, iteration);
    wrong += std::memcmp(&x, &want, sizeof x) != 0;
  });
  id.for_each_owned(
      [&](const Point<2>& p, const std::int64_t& x) { wrong += x != static_cast<std::int64_t>(bits(p, -iteration)); });
  int total = 0;
  tessera::check_mpi(MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, world.raw()), "MPI_Allreduce");
  const auto found = at.find("iteration");
  const bool ok = total == 0 && found != at.end() && std::get<std::int64_t>(found->second) == iteration;
  if (world.rank() == 0)
    std::printf("checkpoint_crash: iteration %lld %s (%d wrong elements)\n", static_cast<long long>(iteration),
                ok ? "intact" : "NOT FOUND", total);
  return ok ? 0 : 1;
}
