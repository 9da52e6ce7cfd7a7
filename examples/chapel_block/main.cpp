// Chapel section 3.2: a user-defined block distribution (owner map and local layout overridden),
// two arrays sharing one domain over it, and forall loops over the distributed index set, checked
// bit for bit against the same loops run serially. See README.md here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "chapel_block.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::index_t;
using tessera::Point;

/// Chapel's `forall i in D { ... }` over an array's domain: every process runs the body for the
/// indices it owns, locally (the iteration space is split by the distribution).
template <class T, std::size_t N, class Body>
void forall(tessera::DistArray<T, N>& a, Body&& body) {
  a.for_each_owned([&](const Point<N>& i, T& element) { body(i, element); });
}

double initial(const Point<2>& i) {
  return std::sin(0.1 * static_cast<double>(i[0])) + 0.01 * static_cast<double>(i[1]);
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Chapel's user-defined block distribution (section 3.2) with forall loops"};
  index_t m = 50, n = 37;
  int sweeps = 10;
  app.add_option("--m", m, "rows (indices 1..m)")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--n", n, "columns (indices 1..n)")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--sweeps", sweeps, "forall sweeps")->check(CLI::Range(1, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const int size = world.size(), rank = world.rank();

  // var rMesh : domain(2) = [1..m, 1..n] distributed (block, block) on L2D: the locale grid L2D
  // holds the ranks in reverse, so that the target (locale array) is not the identity.
  const tessera::Box<2> mesh({1, 1}, {m + 1, n + 1});
  const auto locales = tessera::ProcGrid<2>::automatic(size, {m, n}).shape();
  std::vector<int> target(static_cast<std::size_t>(size));
  std::iota(target.rbegin(), target.rend(), 0);
  auto block = std::make_shared<const tessera_examples::ChapelBlock<2>>(mesh, locales, target, size);

  // The overridden LocalLayout must give the numbers the patch layout would (one patch per block):
  // checked for every index against UserDistribution's default.
  index_t layout_errors = 0;
  tessera::for_each_point(mesh, [&](const Point<2>& i) {
    layout_errors += block->local_offset(i) != block->tessera::UserDistribution<2>::local_offset(i);
  });

  // All data collections defined on the domain are distributed by it.
  tessera::Domain<2> domain(world, tessera::Distribution<2>::user(block));
  tessera::DistArray<double, 2> reg_array(domain, tessera::ghosts<2>(1)), next(domain);

  forall(reg_array, [](const Point<2>& i, double& a) { a = initial(i); });
  for (int s = 0; s < sweeps; ++s) {
    reg_array.update_ghosts();  // regArray(i-1) may live on another locale
    // forall i in rMesh { next(i) = regArray(i-1) + ... }: the neighbours above and to the left.
    forall(next, [&](const Point<2>& i, double& out) {
      out = 0.5 * reg_array.at(i) + 0.25 * (reg_array.at(i - Point<2>{1, 0}) + reg_array.at(i - Point<2>{0, 1}));
    });
    forall(reg_array, [&](const Point<2>& i, double& a) { a = next.at(i); });
  }

  const std::vector<double> gathered = reg_array.gather_to(0);
  int failed = 0;
  if (rank == 0) {
    // The same sweeps serially over an (m+1) x (n+1) array whose row and column 0 are the zero
    // boundary outside [1..m] x [1..n].
    const auto at = [&](std::vector<double>& u, index_t i, index_t j) -> double& {
      return u[static_cast<std::size_t>(i * (n + 1) + j)];
    };
    std::vector<double> u(static_cast<std::size_t>((m + 1) * (n + 1)), 0.0), v = u;
    for (index_t i = 1; i <= m; ++i)
      for (index_t j = 1; j <= n; ++j) at(u, i, j) = initial({i, j});
    for (int s = 0; s < sweeps; ++s) {
      for (index_t i = 1; i <= m; ++i)
        for (index_t j = 1; j <= n; ++j) at(v, i, j) = 0.5 * at(u, i, j) + 0.25 * (at(u, i - 1, j) + at(u, i, j - 1));
      for (index_t i = 1; i <= m; ++i)
        for (index_t j = 1; j <= n; ++j) at(u, i, j) = at(v, i, j);
    }
    index_t mismatches = 0;
    for (index_t i = 1; i <= m; ++i)
      for (index_t j = 1; j <= n; ++j) {
        const double x = gathered[static_cast<std::size_t>((i - 1) * n + (j - 1))];
        mismatches += std::memcmp(&x, &at(u, i, j), sizeof x) != 0;
      }
    std::printf("%s, block size %lldx%lld, %d sweeps\n", block->name().c_str(),
                static_cast<long long>(block->block_size()[0]), static_cast<long long>(block->block_size()[1]), sweeps);
    if (layout_errors != 0) {
      std::printf("LAYOUT: %lld indices where LocalLayout disagrees with the patch layout\n",
                  static_cast<long long>(layout_errors));
      failed = 1;
    } else if (mismatches != 0) {
      std::printf("MISMATCH: %lld elements differ from the serial loops\n", static_cast<long long>(mismatches));
      failed = 1;
    } else {
      std::printf("Chapel 3.2: the user-defined block distribution matches the serial forall bit for bit\n");
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
