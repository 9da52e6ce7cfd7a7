// Redistributions between the user-defined Morton distribution of examples/ and built-in kinds
// (its halos are tested in halo_test.cpp).
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
Distribution<N> morton_distribution_over(const Box<N>& domain, int ranks) {
  return Distribution<N>::user(std::make_shared<tessera_examples::MortonDistribution<N>>(domain, ranks));
}

TEST(UserDistribution, RedistributionToAndFromBuiltInKinds) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(600);
  for (int k = 0; k < 40; ++k) {
    const auto domain = random_domain<2>(rng, 15);
    const auto built_in = random_distribution<2>(rng, domain, comm.size(), false);
    const auto user = morton_distribution_over(domain, comm.size());
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
