// The README's short tour, built against the installed package: if this compiles, links and
// prints "ok", the README's example is true.
#include <tessera/tessera.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const auto& world = env.world();
  const tessera::index_t n = 12;
  auto grid = tessera::ProcGrid<2>::automatic(world, {n, n});
  tessera::Distribution<2> dist(tessera::Box<2>({0, 0}, {n, n}), grid, {tessera::block(), tessera::block()});
  tessera::Domain<2> dom(world, dist);
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));
  u.for_each_owned([](const tessera::Point<2>& i, double& x) { x = double(i[0] * i[1]); });
  u.update_ghosts();
  const double total = u.sum();
  // Rows cut unevenly: the first grid row gets a third of the rows.
  std::vector<tessera::index_t> rows{0};
  for (tessera::index_t c = 1; c < grid.extent(0); ++c) rows.push_back(n / 3 + (c - 1) * (n - n / 3) / (grid.extent(0) - 1));
  rows.push_back(n);
  dom.redistribute(tessera::Distribution<2>(dom.box(), grid, {tessera::cut(rows), tessera::block()}));
  const std::vector<double> all = u.gather_to(0);
  bool ok = total == 66.0 * 66.0;
  if (world.rank() == 0)
    for (tessera::index_t i = 0; i < n; ++i)
      for (tessera::index_t j = 0; j < n; ++j) ok = ok && all[static_cast<std::size_t>(i * n + j)] == double(i * j);
  if (world.rank() == 0) std::printf("consumer: %d ranks, sum %.0f, %s\n", world.size(), total, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
