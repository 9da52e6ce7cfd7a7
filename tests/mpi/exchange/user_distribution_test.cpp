// The engine on a user-defined distribution (the Morton curve of examples/): several patches per
// rank, ghost zones that overlap a neighbouring patch of the same rank, and redistributions to and
// from built-in kinds.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedules.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
Distribution<N> morton(const Box<N>& domain, int ranks) {
  return Distribution<N>::user(std::make_shared<tessera_examples::MortonDistribution<N>>(domain, ranks));
}

template <std::size_t N>
void morton_halo_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(500 + N);
  for (int k = 0; k < cases; ++k) {
    const auto domain = random_domain<N>(rng, max_extent);
    const auto dist = morton(domain, comm.size());
    const auto g = random_ghosts<N>(rng);
    std::ostringstream what;
    what << "case " << k << ": " << dist << ", " << g;
    SCOPED_TRACE(what.str());
    const auto layout = StorageLayout<N>::make(dist, comm.rank(), g);
    auto data = filled_storage(layout);
    Mover halo(comm, halo_schedule(dist, g, comm.rank()), sizeof(double));
    halo.run(data.data(), data.data());
    expect_halo_reference(layout, domain, g, [&](index_t offset) { return data[static_cast<std::size_t>(offset)]; },
                          comm.rank());
  }
}

TEST(UserDistribution, MortonHalo2D) { morton_halo_cases<2>(40, 14); }
TEST(UserDistribution, MortonHalo3D) { morton_halo_cases<3>(20, 6); }

TEST(UserDistribution, RedistributionToAndFromBuiltInKinds) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(600);
  for (int k = 0; k < 40; ++k) {
    const auto domain = random_domain<2>(rng, 15);
    const auto built_in = random_distribution<2>(rng, domain, comm.size(), false);
    const auto user = morton(domain, comm.size());
    const bool to_user = k % 2 == 0;
    const auto& from = to_user ? built_in : user;
    const auto& to = to_user ? user : built_in;
    std::ostringstream what;
    what << "case " << k << ": " << from << " -> " << to;
    SCOPED_TRACE(what.str());
    const auto src_layout = StorageLayout<2>::make(from, comm.rank(), no_ghosts<2>());
    const auto dst_layout = StorageLayout<2>::make(to, comm.rank(), no_ghosts<2>());
    const auto src = filled_storage(src_layout);
    std::vector<double> dst(static_cast<std::size_t>(dst_layout.size()), kSentinel);
    Mover move(comm, redistribution_schedule(from, no_ghosts<2>(), to, no_ghosts<2>(), comm.rank()), sizeof(double));
    move.run(src.data(), dst.data());
    for_each_stored(dst_layout, [&](const PatchLayout<2>&, const Point<2>& p, index_t offset, bool) {
      ASSERT_EQ(dst[static_cast<std::size_t>(offset)], value_of(p)) << "rank " << comm.rank() << " point " << p;
    });
  }
}

}  // namespace
}  // namespace tessera
