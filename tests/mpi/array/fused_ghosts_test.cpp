// update_ghosts(u, v, ...): several arrays of different element types over one domain get the
// ghosts each array's own update_ghosts() gives, fused (small faces) or side by side (large
// faces); bad arguments are errors on every rank; the fused movers go with the distribution.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>

#include "tessera/tessera.hpp"

namespace tessera {
namespace {

template <class T, std::size_t N>
std::vector<T> stored(const DistArray<T, N>& a) {
  const T* p = a.data();
  return p ? std::vector<T>(p, p + a.layout().size()) : std::vector<T>{};
}

template <std::size_t N>
void check_fused_against_separate(const Communicator& comm, const Point<N>& extents, bool expect_fused) {
  std::array<DimSpec, N> specs;
  specs.fill(block());
  std::array<bool, N> periodic;
  periodic.fill(true);
  Domain<N> dom(comm,
                Distribution<N>(Box<N>(Point<N>{}, extents), ProcGrid<N>::automatic(comm.size(), extents), specs));
  const auto g = ghosts<N>(1).periodic_along(periodic);
  DistArray<double, N> u(dom, g), ru(dom, g);
  DistArray<float, N> v(dom, g), rv(dom, g);
  DistArray<std::int32_t, N> w(dom, g), rw(dom, g);
  const auto fill = [](auto& a, double scale) {
    a.for_each_owned([&](const Point<N>& p, auto& x) {
      double s = 0;
      for (std::size_t d = 0; d < N; ++d) s = s * 131 + static_cast<double>(p[d]);
      x = static_cast<std::remove_reference_t<decltype(x)>>(s * scale + 1);
    });
  };
  fill(u, 1.0), fill(ru, 1.0), fill(v, 0.5), fill(rv, 0.5), fill(w, 3.0), fill(rw, 3.0);
  ru.update_ghosts();
  rv.update_ghosts();
  rw.update_ghosts();
  for (int i = 0; i < 2; ++i) update_ghosts(u, v, w);
  EXPECT_EQ(stored(u), stored(ru));
  EXPECT_EQ(stored(v), stored(rv));
  EXPECT_EQ(stored(w), stored(rw));
  const std::array<std::size_t, 3> sizes{sizeof(double), sizeof(float), sizeof(std::int32_t)};
  const auto s = halo_schedule(dom.distribution(), g, dom.rank(), &dom.cache());
  EXPECT_EQ(dom.fused_movers().find_or_make(dom.comm(), s, sizes) != nullptr, expect_fused);
  EXPECT_EQ(dom.fused_movers().size(), 1u);
  // One array: its own update.
  update_ghosts(u);
  EXPECT_EQ(stored(u), stored(ru));
}

TEST(FusedGhosts, SmallFacesTravelFused) {
  check_fused_against_separate<2>(Communicator(MPI_COMM_WORLD), {20, 30}, true);
}

TEST(FusedGhosts, LargeFacesTravelSideBySide) {
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() == 1) GTEST_SKIP() << "one rank: no messages, nothing to choose";
  check_fused_against_separate<3>(comm, {48, 48, 48}, false);  // a face: 48 x 48 x 16 bytes > 16 KiB
}

TEST(FusedGhosts, BadArgumentsAndRedistribution) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {16, 16});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {16, 16});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  Domain<2> other(comm, Distribution<2>(box, grid, {block(), block()}));
  DistArray<double, 2> a(dom, ghosts<2>(1)), b(dom, ghosts<2>(2)), c(other, ghosts<2>(1)), d(dom, ghosts<2>(1));
  EXPECT_THROW(update_ghosts(a, b), Error);
  EXPECT_THROW(update_ghosts(a, c), Error);
  a.begin_update_ghosts();
  EXPECT_THROW(update_ghosts(a, d), Error);
  a.end_update_ghosts();
  update_ghosts(a, d);
  EXPECT_EQ(dom.fused_movers().size(), 1u);
  dom.redistribute(Distribution<2>(box, grid, {block(), block()}));
  EXPECT_EQ(dom.fused_movers().size(), 1u) << "same distribution: kept";
  dom.redistribute(Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {16, 16}, {1, 0}), {block(), block()}));
  if (comm.size() > 1) {
    EXPECT_EQ(dom.fused_movers().size(), 0u) << "a new distribution drops them";
  }
  update_ghosts(a, d);
}

}  // namespace
}  // namespace tessera
