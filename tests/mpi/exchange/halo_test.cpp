// Halo fill and reverse halo (accumulate) on random box distributions, every rank checking its own
// storage against a serial reference built from geometry alone.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <sstream>
#include <type_traits>

#include "engine_checks.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// Random domains and ghost specs, the distribution from `make(rng, domain, ranks, ghosts)`; every
/// rank checks its storage against the serial halo reference.
template <std::size_t N, class MakeDistribution>
void halo_cases(int cases, index_t max_extent, std::uint64_t seed, index_t max_width, MakeDistribution&& make) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);  // same seed everywhere: every rank builds the same cases
  for (int k = 0; k < cases; ++k) {
    const auto domain = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng, max_width);
    const auto dist = make(rng, domain, comm.size(), g);
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << domain << ", " << g;
    SCOPED_TRACE(what.str());
    const auto layout = StorageLayout<N>::make(dist, comm.rank(), g);
    auto data = filled_storage(layout);
    Mover halo(comm, halo_schedule(dist, g, comm.rank()), sizeof(double));
    halo.run(data.data(), data.data());
    expect_halo_reference(layout, domain, g, [&](index_t offset) { return data[static_cast<std::size_t>(offset)]; },
                          comm.rank());
  }
}

/// Any built-in kind, interval kinds where the spec asks for ghosts.
constexpr auto built_in = [](std::mt19937_64& rng, const auto& domain, int ranks, const auto& g) {
  return random_distribution(rng, domain, ranks, ghosted_dims(g));
};

/// The user-defined Morton curve: several patches per rank, ghost zones overlapping a neighbouring
/// patch of the same rank.
constexpr auto morton = [](std::mt19937_64&, const auto& domain, int ranks, const auto&) {
  constexpr std::size_t N = std::remove_cvref_t<decltype(domain)>::rank;
  return Distribution<N>::user(std::make_shared<tessera_examples::MortonDistribution<N>>(domain, ranks));
};

TEST(Halo, OneDimension) { halo_cases<1>(120, 40, 100, 4, built_in); }
TEST(Halo, TwoDimensions) { halo_cases<2>(100, 16, 100, 4, built_in); }
TEST(Halo, ThreeDimensions) { halo_cases<3>(60, 8, 100, 4, built_in); }
TEST(Halo, MortonUserDistribution2D) { halo_cases<2>(40, 14, 500, 3, morton); }
TEST(Halo, MortonUserDistribution3D) { halo_cases<3>(20, 6, 500, 3, morton); }

template <std::size_t N>
void reverse_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(200 + N);
  for (int k = 0; k < cases; ++k) {
    const auto domain = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng, 4);
    const auto dist = random_distribution<N>(rng, domain, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << ", " << g;
    SCOPED_TRACE(what.str());
    // Reference: how many requested ghost cells, over all ranks, mirror each domain point.
    std::map<Point<N>, double> mirrors;
    for (int q = 0; q < comm.size(); ++q) {
      for_each_stored(StorageLayout<N>::make(dist, q, g),
                      [&](const PatchLayout<N>& patch, const Point<N>& x, index_t, bool owned) {
                        if (owned || !in_requested_ghost(patch.owned_box(), g, x)) return;
                        if (const auto w = wrap_point(domain, g.periodic, x)) mirrors[*w] += 1.0;
                      });
    }
    const auto layout = StorageLayout<N>::make(dist, comm.rank(), g);
    std::vector<double> data(static_cast<std::size_t>(layout.size()), 1.0);  // every ghost contributes 1
    for_each_stored(layout, [&](const PatchLayout<N>&, const Point<N>&, index_t offset, bool owned) {
      if (owned) data[static_cast<std::size_t>(offset)] = 0.0;
    });
    Mover accumulate(comm, halo_schedule(dist, g, comm.rank(), nullptr, true, CombineOp::add), sizeof(double),
                     combine_function<double>(CombineOp::add));
    accumulate.run(data.data(), data.data());
    for_each_stored(layout, [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
      const double want = owned ? (mirrors.count(p) ? mirrors[p] : 0.0) : 1.0;
      ASSERT_EQ(data[static_cast<std::size_t>(offset)], want) << "rank " << comm.rank() << " point " << p;
    });
  }
}

TEST(ReverseHalo, AddAccumulatesEveryGhostIntoItsOwner1D) { reverse_cases<1>(80, 10); }
TEST(ReverseHalo, AddAccumulatesEveryGhostIntoItsOwner2D) { reverse_cases<2>(60, 8); }
TEST(ReverseHalo, AddAccumulatesEveryGhostIntoItsOwner3D) { reverse_cases<3>(30, 5); }

/// One split axis `a` over every rank, the other axes whole (`across` points) and periodic,
/// corners: the staged halo (local wraps first, then ghost-inclusive slabs;
/// plan/staged_halo_plan.hpp) on 2+ ranks, run by a Mover; `halo_schedule` picks it where it pays.
template <std::size_t N>
void staged_cases(std::size_t a, StorageOrder order, index_t across) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  Box<N> domain;
  for (std::size_t d = 0; d < N; ++d) domain.hi[d] = d == a ? 3 * P + 1 : across + static_cast<index_t>(d);
  Point<N> shape = Point<N>::filled(1);
  shape[a] = P;
  std::array<DimSpec, N> specs;
  specs.fill(block());
  const Distribution<N> dist(domain, ProcGrid<N>::with_shape(P, shape), specs);
  Periodicity<N> wrap;
  wrap.fill(true);
  for (const bool periodic_a : {true, false})
    for (const auto& g0 : {ghosts<N>(1), ghosts<N>(2), GhostSpec<N>::sides(Point<N>::filled(1), Point<N>::filled(2))}) {
      auto g = g0.periodic_along(wrap);
      g.periodic[a] = periodic_a;
      g.order = order;
      std::ostringstream what;
      what << dist << ", " << g;
      SCOPED_TRACE(what.str());
      const auto layout = StorageLayout<N>::make(dist, comm.rank(), g);
      auto data = filled_storage(layout);
      auto staged = staged_halo_schedule(dist, g, comm.rank());
      ASSERT_EQ(staged.has_value(), P > 1);
      EXPECT_EQ(halo_schedule(dist, g, comm.rank())->local_first, P > 1 && staged_halo_chosen(dist, g));
      Mover halo(comm, staged ? std::make_shared<const Schedule>(std::move(*staged)) : halo_schedule(dist, g, comm.rank()),
                 sizeof(double));
      halo.run(data.data(), data.data());
      expect_halo_reference(layout, domain, g, [&](index_t offset) { return data[static_cast<std::size_t>(offset)]; },
                            comm.rank());
      // Twice: the second execution must find its ghosts filled the same way.
      halo.run(data.data(), data.data());
      expect_halo_reference(layout, domain, g, [&](index_t offset) { return data[static_cast<std::size_t>(offset)]; },
                            comm.rank());
      if (halo.schedule().local_first) {  // its messages carry what its local copies fill: one array only, an Error on every rank
        std::vector<double> other(data.size());
        EXPECT_THROW(halo.start(data.data(), other.data()), Error);
        EXPECT_FALSE(halo.in_flight());
      }
    }
}

TEST(Halo, StagedSlabsAlongTheOutermostAxis2D) { staged_cases<2>(0, StorageOrder::row_major, 7); }
TEST(Halo, StagedSlabsAlongTheOutermostAxis3D) { staged_cases<3>(0, StorageOrder::row_major, 7); }
TEST(Halo, StagedSlabsAlongAnInnerAxis3D) { staged_cases<3>(1, StorageOrder::row_major, 7); }
TEST(Halo, StagedSlabsColumnMajor3D) { staged_cases<3>(2, StorageOrder::column_major, 7); }
TEST(Halo, StagedSlabsLargeEnoughForHaloSchedule3D) { staged_cases<3>(0, StorageOrder::row_major, 40); }

TEST(Halo, GhostAlongACyclicDimensionIsANamedError) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::automatic(comm.size(), {10, 10});
  const Distribution<2> dist(Box<2>({0, 0}, {10, 10}), grid, {block(), cyclic()});
  try {
    (void)halo_schedule(dist, ghosts<2>(1), comm.rank());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("dimension 1 is distributed cyclic"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW((void)halo_schedule(dist, GhostSpec<2>::sides({1, 0}, {1, 0}), comm.rank()));
}

}  // namespace
}  // namespace tessera
