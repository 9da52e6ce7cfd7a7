// The shared_memory way of moving on storage in shared-memory windows (docs/engine.md, "Single
// copy on the node"), with the algorithm asked for explicitly, so that these run in every suite
// whatever TESSERA_MOVE_ALGORITHM says. The whole exchange and array suites also run with it
// forced (mpi.{exchange,array}.shared_memory.np<K> in tests/CMakeLists.txt).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using namespace tessera;

double value_at(const Point<2>& p, int round) { return 1000.0 * static_cast<double>(p[0]) + static_cast<double>(p[1]) + 0.5 * round; }

// A point of the domain grown by the ghosts, wrapped into the (periodic) domain.
Point<2> wrapped(const Box<2>& domain, Point<2> p) {
  for (std::size_t d = 0; d < 2; ++d) {
    const index_t n = extent(domain, d);
    p[d] = ((p[d] - domain.lo[d]) % n + n) % n + domain.lo[d];
  }
  return p;
}

// Sets every owned element of `s` to value_at(., round) and every ghost to a poison value.
void fill(Storage<2>& s, int round) {
  if (s.layout().size() == 0) return;
  auto* v = static_cast<double*>(s.data());
  const PatchLayout<2>& patch = s.layout().patches().at(0);
  const Box<2> owned = patch.owned_box();
  for_each_point(patch.storage_box(), [&](const Point<2>& p) {
    v[patch.element_offset(p)] = contains(owned, p) ? value_at(p, round) : -1.0;
  });
}

// Every element of `s`, ghosts included, holds value_at of its wrapped point.
void expect_filled(const Storage<2>& s, const Box<2>& domain, int round) {
  if (s.layout().size() == 0) return;
  const auto* v = static_cast<const double*>(s.data());
  const PatchLayout<2>& patch = s.layout().patches().at(0);
  for_each_point(patch.storage_box(), [&](const Point<2>& p) {
    ASSERT_EQ(v[patch.element_offset(p)], value_at(wrapped(domain, p), round)) << p << " round " << round;
  });
}

struct Case2D {
  Communicator comm{MPI_COMM_WORLD};
  Box<2> domain{{0, 0}, {23, 17}};
  Distribution<2> dist{domain, ProcGrid<2>::automatic(comm.size(), {23, 17}), {block(), block()}};
  GhostSpec<2> g = ghosts<2>(2).periodic_along({true, true});
};

// A ghost update between arrays in windows: the readers copy from the owners' storage, and a second
// round after the owners changed their values sees the new values (the handshake orders them).
TEST(SharedMemoryMover, GhostUpdateCopiesStraightFromThePeersStorage) {
  Case2D t;
  Storage<2> s(t.dist, t.comm.rank(), t.g, detail::ElementBytes::of<double>(), &t.comm);
  Mover m(t.comm, halo_schedule(t.dist, t.g, t.comm.rank()), sizeof(double), nullptr, MoveAlgorithm::shared_memory);
  ASSERT_EQ(m.algorithm(), MoveAlgorithm::shared_memory);
  for (int round = 0; round < 3; ++round) {
    fill(s, round);
    m.run(s.buffer(), s.buffer());
    expect_filled(s, t.domain, round);
  }
  const auto peer_bytes = static_cast<std::uint64_t>(m.schedule().receive_elements()) * sizeof(double);
  // Every peer's part by single copy, unless the ranks are split into emulated nodes.
  if (std::getenv("TESSERA_SHARED_MEMORY_NODE_RANKS") == nullptr)
    EXPECT_EQ(m.stats().bytes_copied_from_peers, 3 * peer_bytes);
  else
    EXPECT_LE(m.stats().bytes_copied_from_peers, 3 * peer_bytes);
  EXPECT_EQ(m.stats().executions, 3u);
}

// One kept mover serves every array of a layout (the exchange cache shares it): each execution
// finds where the array it runs on is now, so alternating arrays, or an array whose buffer was
// replaced, never read a stale address.
TEST(SharedMemoryMover, OneMoverServesEveryArrayOfTheLayout) {
  Case2D t;
  Storage<2> a(t.dist, t.comm.rank(), t.g, detail::ElementBytes::of<double>(), &t.comm);
  Storage<2> b(t.dist, t.comm.rank(), t.g, detail::ElementBytes::of<double>(), &t.comm);
  Mover m(t.comm, halo_schedule(t.dist, t.g, t.comm.rank()), sizeof(double), nullptr, MoveAlgorithm::shared_memory);
  fill(a, 1);
  fill(b, 2);
  m.run(b.buffer(), b.buffer());
  m.run(a.buffer(), a.buffer());
  expect_filled(a, t.domain, 1);
  expect_filled(b, t.domain, 2);
  // A new buffer for the same layout (a redistribution onto the same distribution commits one).
  a.stage(StorageLayout<2>::make(t.dist, t.comm.rank(), t.g), 0);
  a.commit(false);
  fill(a, 3);
  m.run(a.buffer(), a.buffer());
  expect_filled(a, t.domain, 3);
}

// A source that is not in a window (a plain buffer) travels as messages, with the same result.
TEST(SharedMemoryMover, PlainBuffersTravelAsMessages) {
  Case2D t;
  Storage<2> shared(t.dist, t.comm.rank(), t.g, detail::ElementBytes::of<double>(), &t.comm);
  Storage<2> plain(t.dist, t.comm.rank(), t.g, detail::ElementBytes::of<double>());
  Mover m(t.comm, halo_schedule(t.dist, t.g, t.comm.rank()), sizeof(double), nullptr, MoveAlgorithm::shared_memory);
  fill(plain, 4);
  m.run(plain.buffer(), plain.buffer());
  expect_filled(plain, t.domain, 4);
  EXPECT_EQ(m.stats().bytes_copied_from_peers, 0u);
  fill(shared, 5);
  m.run(shared.buffer(), shared.buffer());
  expect_filled(shared, t.domain, 5);
}

// Block rows onto block-cyclic columns: the owner's and the reader's blocks have different shapes,
// so the single copy pairs them stretch by stretch; accumulate (combine) is checked too.
TEST(SharedMemoryMover, RedistributionBetweenShapesThatDiffer) {
  Case2D t;
  const auto grid = ProcGrid<2>::with_shape(t.comm.size(), {1, t.comm.size()});
  const Distribution<2> to(t.domain, grid, {block(), block_cyclic(3)});
  Storage<2> from_storage(t.dist, t.comm.rank(), no_ghosts<2>(), detail::ElementBytes::of<double>(), &t.comm);
  std::vector<double> into(static_cast<std::size_t>(StorageLayout<2>::make(to, t.comm.rank(), no_ghosts<2>()).size()), 1.0);
  fill(from_storage, 6);
  const auto schedule = redistribution_schedule(t.dist, no_ghosts<2>(), to, no_ghosts<2>(), t.comm.rank());
  Mover copy(t.comm, schedule, sizeof(double), nullptr, MoveAlgorithm::shared_memory);
  Mover add(t.comm, schedule, sizeof(double), combine_function<double>(CombineOp::add), MoveAlgorithm::shared_memory);
  void* out = into.empty() ? static_cast<void*>(detail::empty_storage) : into.data();
  copy.run(from_storage.buffer(), out);
  add.run(from_storage.buffer(), out);  // now twice the values
  const auto layout = StorageLayout<2>::make(to, t.comm.rank(), no_ghosts<2>());
  for (const PatchLayout<2>& patch : layout.patches())
    for (index_t i = 0; i < patch.axes[0].count; ++i)
      for (index_t j = 0; j < patch.axes[1].count; ++j) {
        const Point<2> p{patch.axes[0].global(i + patch.axes[0].ghost_lo), patch.axes[1].global(j + patch.axes[1].ghost_lo)};
        ASSERT_EQ(into[static_cast<std::size_t>(patch.element_offset(p))], 2 * value_at(p, 6)) << p;
      }
  if (t.comm.size() > 1 && std::getenv("TESSERA_SHARED_MEMORY_NODE_RANKS") == nullptr) {
    EXPECT_GT(copy.stats().bytes_copied_from_peers + add.stats().bytes_copied_from_peers, 0u);
  }
}

TEST(SharedMemoryMover, NamesParse) {
  EXPECT_EQ(parse_move_algorithm("shared_memory"), MoveAlgorithm::shared_memory);
  EXPECT_EQ(parse_move_algorithm("shm"), MoveAlgorithm::shared_memory);
  EXPECT_STREQ(to_string(MoveAlgorithm::shared_memory), "shared_memory");
}

}  // namespace
