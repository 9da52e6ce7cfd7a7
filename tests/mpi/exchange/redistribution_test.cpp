// Redistribution between random pairs of distributions and section moves (with and without a
// transpose, gather to one rank, scatter from one rank): every rank checks its own storage element
// by element against the serial definition of the move.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
GhostSpec<N> maybe_ghosts(std::mt19937_64& rng, const Distribution<N>& dist) {
  // Ghost layers change the storage layout (not the data moved): use them where the kind allows.
  Point<N> w;
  for (std::size_t d = 0; d < N; ++d)
    w[d] = dist.dim(d).owns_intervals() && rng() % 2 ? static_cast<index_t>(rng() % 3) : 0;
  return GhostSpec<N>::sides(w, w);
}

template <std::size_t N>
void redistribution_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(300 + N);
  for (int k = 0; k < cases; ++k) {
    const auto domain = random_domain<N>(rng, max_extent);
    const auto from = random_distribution<N>(rng, domain, comm.size(), false);
    const auto to = random_distribution<N>(rng, domain, comm.size(), false);
    const auto gf = maybe_ghosts(rng, from), gt = maybe_ghosts(rng, to);
    std::ostringstream what;
    what << "case " << k << ": " << from << " -> " << to;
    SCOPED_TRACE(what.str());
    const auto src_layout = StorageLayout<N>::make(from, comm.rank(), gf);
    const auto dst_layout = StorageLayout<N>::make(to, comm.rank(), gt);
    const auto src = filled_storage(src_layout);
    std::vector<double> dst(static_cast<std::size_t>(dst_layout.size()), kSentinel);
    Mover move(comm, redistribution_schedule(from, gf, to, gt, comm.rank()), sizeof(double));
    move.run(src.data(), dst.data());
    for_each_stored(dst_layout, [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
      ASSERT_EQ(dst[static_cast<std::size_t>(offset)], owned ? value_of(p) : kSentinel)
          << "rank " << comm.rank() << " point " << p;
    });
  }
}

TEST(Redistribution, RandomPairs1D) { redistribution_cases<1>(150, 60); }
TEST(Redistribution, RandomPairs2D) { redistribution_cases<2>(120, 18); }
TEST(Redistribution, RandomPairs3D) { redistribution_cases<3>(60, 8); }

/// Redistributes `from` -> `to` (ghosts `gf`, `gt`) with elements of type T and `algorithm`, the
/// destination prefilled with `base` at owned points (a combine adds to it) and the sentinel in
/// its ghosts, twice; checks every stored element against the serial definition.
template <class T, std::size_t N>
void expect_redistributed(const Communicator& comm, const Distribution<N>& from, const GhostSpec<N>& gf,
                          const Distribution<N>& to, const GhostSpec<N>& gt, MoveAlgorithm algorithm, bool add) {
  const auto src_layout = StorageLayout<N>::make(from, comm.rank(), gf);
  const auto dst_layout = StorageLayout<N>::make(to, comm.rank(), gt);
  std::vector<T> src(static_cast<std::size_t>(src_layout.size()), T(kSentinel));
  for_each_stored(src_layout, [&](const PatchLayout<N>&, const Point<N>& p, index_t off, bool owned) {
    if (owned) src[static_cast<std::size_t>(off)] = static_cast<T>(value_of(p));
  });
  constexpr T base = 0.5;
  Mover move(comm, redistribution_schedule(from, gf, to, gt, comm.rank()), sizeof(T),
             add ? combine_function<T>(CombineOp::add) : nullptr, algorithm);
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<T> dst(static_cast<std::size_t>(dst_layout.size()), T(kSentinel));
    for_each_stored(dst_layout, [&](const PatchLayout<N>&, const Point<N>&, index_t off, bool owned) {
      if (owned) dst[static_cast<std::size_t>(off)] = base;
    });
    move.run(src.data(), dst.data());
    // Counted without a gtest assertion per element (hundreds of thousands under ASan are slow).
    std::size_t wrong = 0;
    std::ostringstream first;
    for_each_stored(dst_layout, [&](const PatchLayout<N>&, const Point<N>& p, index_t off, bool owned) {
      const T want = owned ? static_cast<T>(value_of(p)) + (add ? base : T(0)) : T(kSentinel);
      const T got = dst[static_cast<std::size_t>(off)];
      if (got != want && wrong++ == 0) first << "point " << p << ": " << got << " instead of " << want;
    });
    ASSERT_EQ(wrong, 0u) << "rank " << comm.rank() << ", execution " << rep << ", first " << first.str();
  }
}

TEST(Redistribution, LargeStridedPiecesTravelAsMessagesOfTheirOwn) {
  // Block <-> block-cyclic(128) of 256 P^2 x 64 on P ranks: every rank's block holds 2P chunks of
  // 128 rows, so its copy to each other rank is two runs of 8192 elements, which compile_schedule
  // cuts into pieces sent as messages of their own (in place where contiguous, packed where ghost
  // layers across the rows or a combine get in the way). 40 more rows leave chunks cut by the
  // block boundaries: single-run copies beside cut ones. Point-to-point in both directions, ghosts
  // on the block side (along the rows only, the pieces still contiguous, or across them) or none,
  // 8- and 4-byte elements, replace and add; the other ways of moving, replace and add.
  Communicator comm(MPI_COMM_WORLD);
  const index_t rows = 256 * comm.size() * comm.size();
  for (index_t extra : {index_t{0}, index_t{40}}) {
    const Box<2> domain({0, 0}, {rows + extra, 64});
    const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
    const Distribution<2> blocks(domain, grid, {block(), block()});
    const Distribution<2> chunks(domain, grid, {block_cyclic(128), block()});
    const auto schedule = redistribution_schedule(blocks, no_ghosts<2>(), chunks, no_ghosts<2>(), comm.rank());
    int cut = 0;  // peers this rank exchanges pieces with
    for (const auto* list : {&schedule->sends, &schedule->receives})
      for (const PeerBlocks& p : *list) {
        cut += p.block_messages ? 1 : 0;
        if (p.block_messages) {
          EXPECT_GT(p.blocks.size(), 1u);
          for (const Block& b : p.blocks) EXPECT_TRUE(schedule->contiguous(b)) << "peer " << p.peer;
        }
      }
    if (extra == 0) EXPECT_EQ(cut, 2 * (comm.size() - 1)) << "rank " << comm.rank() << ": a copy was not cut";
    // Point-to-point (the way of moving that sends the pieces apart): ghosts, types, combine.
    for (const auto& g : {no_ghosts<2>(), GhostSpec<2>::sides({1, 0}, {2, 0}), ghosts<2>(1)})
      for (bool add : {false, true}) {
        SCOPED_TRACE(::testing::Message() << domain << " ghosts " << g << (add ? " add" : " replace"));
        const auto p2p = MoveAlgorithm::point_to_point;
        expect_redistributed<double>(comm, blocks, g, chunks, no_ghosts<2>(), p2p, add);
        expect_redistributed<double>(comm, chunks, no_ghosts<2>(), blocks, g, p2p, add);
        expect_redistributed<float>(comm, blocks, g, chunks, no_ghosts<2>(), p2p, add);
        if (::testing::Test::HasFatalFailure()) return;
      }
    // The other ways treat the pieces as blocks like any other.
    for (MoveAlgorithm algorithm : {MoveAlgorithm::alltoallv, MoveAlgorithm::neighborhood, MoveAlgorithm::automatic})
      for (bool add : {false, true}) {
        SCOPED_TRACE(::testing::Message() << domain << " " << to_string(algorithm) << (add ? " add" : " replace"));
        expect_redistributed<double>(comm, blocks, ghosts<2>(1), chunks, no_ghosts<2>(), algorithm, add);
        expect_redistributed<double>(comm, chunks, no_ghosts<2>(), blocks, no_ghosts<2>(), algorithm, add);
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

/// A record type moved as raw bytes: 24 bytes, no arithmetic.
struct Particle {
  double x, y;
  std::int64_t id;
  friend bool operator==(const Particle&, const Particle&) = default;
};

TEST(Redistribution, AnyTriviallyCopyableTypeMovesAsBytes) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({0, 0}, {13, 7});
  const Distribution<2> from(domain, ProcGrid<2>::automatic(comm.size(), {13, 7}), {block(), block()});
  const Distribution<2> to(domain, ProcGrid<2>::with_shape(comm.size(), {1, comm.size()}), {collapsed(), cyclic()});
  const auto src_layout = StorageLayout<2>::make(from, comm.rank(), no_ghosts<2>());
  const auto dst_layout = StorageLayout<2>::make(to, comm.rank(), no_ghosts<2>());
  const auto particle = [](const Point<2>& p) { return Particle{double(p[0]) / 3, double(p[1]) * 7, p[0] * 100 + p[1]}; };
  std::vector<Particle> src(static_cast<std::size_t>(src_layout.size())), dst(static_cast<std::size_t>(dst_layout.size()));
  for_each_stored(src_layout, [&](const PatchLayout<2>&, const Point<2>& p, index_t off, bool) {
    src[static_cast<std::size_t>(off)] = particle(p);
  });
  Mover move(comm, redistribution_schedule(from, no_ghosts<2>(), to, no_ghosts<2>(), comm.rank()), sizeof(Particle));
  move.run(src.data(), dst.data());
  for_each_stored(dst_layout, [&](const PatchLayout<2>&, const Point<2>& p, index_t off, bool) {
    EXPECT_EQ(dst[static_cast<std::size_t>(off)], particle(p)) << p;
  });
}

template <std::size_t N>
void section_move_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(400 + N);
  for (int k = 0; k < cases; ++k) {
    const auto src_domain = random_domain<N>(rng, max_extent);
    // A random permutation and a destination domain large enough to hold the permuted box.
    typename MotionPlan<N>::Permutation perm = MotionPlan<N>::identity();
    if (rng() % 2) std::shuffle(perm.begin(), perm.end(), rng);
    Box<N> src_box = random_box<N>(rng, max_extent);
    src_box = intersect(shift(src_box, src_domain.lo), src_domain);
    if (src_box.empty()) src_box = Box<N>(src_domain.lo, src_domain.lo + Point<N>::filled(1));
    Box<N> dst_domain, dst_box;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t e = extent(src_box, static_cast<std::size_t>(perm[d]));
      dst_domain.lo[d] = static_cast<index_t>(rng() % 5) - 2;
      dst_domain.hi[d] = dst_domain.lo[d] + e + static_cast<index_t>(rng() % 4);
      const index_t room = dst_domain.hi[d] - dst_domain.lo[d] - e;  // extent() is 0 until the box is complete
      dst_box.lo[d] = dst_domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(room + 1));
      dst_box.hi[d] = dst_box.lo[d] + e;
    }
    const auto src = random_distribution<N>(rng, src_domain, comm.size(), false);
    const auto dst = random_distribution<N>(rng, dst_domain, comm.size(), false);
    std::ostringstream what;
    what << "case " << k << ": " << src << " box " << src_box << " -> " << dst << " box " << dst_box << " perm";
    for (int p : perm) what << ' ' << p;
    SCOPED_TRACE(what.str());
    const auto src_layout = StorageLayout<N>::make(src, comm.rank(), no_ghosts<N>());
    const auto dst_layout = StorageLayout<N>::make(dst, comm.rank(), no_ghosts<N>());
    const auto src_data = filled_storage(src_layout);
    std::vector<double> dst_data(static_cast<std::size_t>(dst_layout.size()), kSentinel);
    Mover move(comm, section_move_schedule(src, no_ghosts<N>(), src_box, dst, no_ghosts<N>(), dst_box, perm, comm.rank()),
               sizeof(double));
    move.run(src_data.data(), dst_data.data());
    for_each_stored(dst_layout, [&](const PatchLayout<N>&, const Point<N>& q, index_t offset, bool) {
      double want = kSentinel;
      if (contains(dst_box, q)) {
        Point<N> p;  // the source point: dst axis d runs along src axis perm[d]
        for (std::size_t d = 0; d < N; ++d) {
          const auto a = static_cast<std::size_t>(perm[d]);
          p[a] = src_box.lo[a] + (q[d] - dst_box.lo[d]);
        }
        want = value_of(p);
      }
      ASSERT_EQ(dst_data[static_cast<std::size_t>(offset)], want) << "rank " << comm.rank() << " point " << q;
    });
  }
}

TEST(SectionMove, RandomBoxesAndPermutations2D) { section_move_cases<2>(120, 16); }
TEST(SectionMove, RandomBoxesAndPermutations3D) { section_move_cases<3>(60, 7); }

TEST(SectionMove, GatherToOneRankAndScatterBack) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({-2, 3}, {9, 14});
  const int root = comm.size() - 1;
  const Distribution<2> spread(domain, ProcGrid<2>::automatic(comm.size(), {11, 11}), {block_cyclic(2), block()});
  // "Everything on the root": a one-position grid holding the root, both dimensions collapsed.
  const Distribution<2> on_root(domain, ProcGrid<2>::from_ranks(comm.size(), {1, 1}, {root}), {collapsed(), collapsed()});
  const auto spread_layout = StorageLayout<2>::make(spread, comm.rank(), no_ghosts<2>());
  const auto root_layout = StorageLayout<2>::make(on_root, comm.rank(), no_ghosts<2>());
  const auto data = filled_storage(spread_layout);
  std::vector<double> whole(static_cast<std::size_t>(root_layout.size()), kSentinel);
  Mover gather(comm, redistribution_schedule(spread, no_ghosts<2>(), on_root, no_ghosts<2>(), comm.rank()), sizeof(double));
  gather.run(data.data(), whole.data());
  EXPECT_EQ(static_cast<index_t>(whole.size()), comm.rank() == root ? volume(domain) : 0);
  for_each_stored(root_layout, [&](const PatchLayout<2>&, const Point<2>& p, index_t off, bool) {
    ASSERT_EQ(whole[static_cast<std::size_t>(off)], value_of(p)) << p;
  });
  std::vector<double> back(static_cast<std::size_t>(spread_layout.size()), kSentinel);
  Mover scatter(comm, redistribution_schedule(on_root, no_ghosts<2>(), spread, no_ghosts<2>(), comm.rank()), sizeof(double));
  scatter.run(whole.data(), back.data());
  EXPECT_EQ(back, data);
}

}  // namespace
}  // namespace tessera
