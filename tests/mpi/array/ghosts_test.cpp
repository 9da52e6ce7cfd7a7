// DistArray construction, element access and ghost layers on random distributions of every kind,
// every rank checking its own storage against a serial reference built from geometry alone.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

#include "counting_new.hpp"  // g_allocations: operator new calls in this program
#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
void access_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(1000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, g);
    ASSERT_EQ(dom.array_count(), 1u);
    for (double x : a.storage()) ASSERT_EQ(x, 0.0);  // value-initialised, ghosts too
    index_t owned = 0;
    a.for_each_owned([&](const Point<N>& p, double& x) {
      ASSERT_EQ(dist.owner(p), comm.rank()) << p;
      x = value_of(p);
      ++owned;
    });
    ASSERT_EQ(owned, dist.local_size(comm.rank()));
    for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& p, index_t offset, bool is_owned) {
      const double want = is_owned ? value_of(p) : 0.0;
      ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], want) << p;
      const auto k2 = static_cast<std::size_t>(&patch - a.layout().patches().data());
      if (is_owned) {
        ASSERT_TRUE(contains(a.owned_box(k2), p));
      }
      if (is_owned || a.patch_count() == 1) {  // with several patches a ghost may be owned by another one
        ASSERT_EQ(&a.at(p), a.data() + offset) << p;
      }
      Point<N> l;
      for (std::size_t d = 0; d < N; ++d) l[d] = patch.axes[d].local(p[d]);
      ASSERT_EQ(&a.local(k2)(l), a.data() + offset) << p;
    });
    // A point this rank does not store is a named out_of_range error.
    for (int tries = 0; tries < 4; ++tries) {
      Point<N> p;
      for (std::size_t d = 0; d < N; ++d)
        p[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d)));
      const auto single = Section<N>::from_box(Box<N>(p, p + Point<N>::filled(1)));
      if (dist.owner(p) == comm.rank() || a.layout().patch_for(single) >= 0) continue;
      try {
        (void)a.at(p);
        FAIL() << "no error for " << p;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::out_of_range);
        EXPECT_NE(std::string(e.what()).find("is not stored on rank"), std::string::npos) << e.what();
      }
    }
    if (a.patch_count() == 0) {
      EXPECT_THROW((void)a.local(0), Error);
    }
  }
}

TEST(ArrayAccess, AgreesWithTheDistribution1D) { access_cases<1>(60, 30); }
TEST(ArrayAccess, AgreesWithTheDistribution2D) { access_cases<2>(50, 12); }
TEST(ArrayAccess, AgreesWithTheDistribution3D) { access_cases<3>(30, 6); }

TEST(ArrayAccess, GhostsAlongACyclicAxisAreANamedError) {
  Communicator comm(MPI_COMM_WORLD);
  const Distribution<2> dist(Box<2>({0, 0}, {10, 10}), ProcGrid<2>::automatic(comm.size(), {10, 10}),
                             {block(), cyclic()});
  Domain<2> dom(comm, dist);
  try {
    DistArray<double, 2> a(dom, ghosts<2>(1));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("dimension 1 is distributed cyclic"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dom.array_count(), 0u);  // the failed array did not stay registered
  DistArray<double, 2> rows(dom, GhostSpec<2>::sides({1, 0}, {1, 0}));
  EXPECT_EQ(dom.array_count(), 1u);
}

TEST(ArrayAccess, DomainNeedsAMatchingCommunicator) {
  Communicator comm(MPI_COMM_WORLD);
  const Distribution<1> dist(Box<1>({0}, {10}), ProcGrid<1>::with_shape(comm.size() + 1, {comm.size() + 1}), {block()});
  try {
    Domain<1> dom(comm, dist);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("argument 'dist'"), std::string::npos) << e.what();
  }
}

TEST(ArrayAccess, MovingAnArrayKeepsItRegistered) {
  Communicator comm(MPI_COMM_WORLD);
  Domain<1> dom(comm, Distribution<1>(Box<1>({0}, {17}), ProcGrid<1>::automatic(comm.size(), {17}), {block()}));
  DistArray<int, 1> a(dom);
  a.for_each_owned([](const Point<1>& p, int& x) { x = static_cast<int>(p[0]); });
  DistArray<int, 1> b(std::move(a));
  EXPECT_EQ(dom.array_count(), 1u);
  dom.redistribute(Distribution<1>(Box<1>({0}, {17}), ProcGrid<1>::automatic(comm.size(), {17}), {cyclic()}));
  b.for_each_owned([](const Point<1>& p, int& x) { EXPECT_EQ(x, static_cast<int>(p[0])); });
}

template <std::size_t N>
void update_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(2000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, g);
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    a.update_ghosts();
    const auto check = [&] {
      for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
        double want = 0.0;  // ghosts nobody fills keep their value-initialised 0
        if (owned) {
          want = value_of(q);
        } else if (in_requested_ghost(patch.owned_box(), g, q)) {
          if (const auto w = wrap_point(box, g.periodic, q)) want = value_of(*w);
        }
        ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], want) << "rank " << comm.rank() << " point " << q;
      });
    };
    check();
    // Later updates reuse the mover: nothing allocates, and the result is the same.
    const long before = g_allocations.load();
    for (int it = 0; it < 3; ++it) a.update_ghosts();
    a.begin_update_ghosts();
    a.end_update_ghosts();
    EXPECT_EQ(g_allocations.load() - before, 0) << "update_ghosts allocated after its first call";
    check();
  }
}

// Boundary rules and region statements in a loop: after the first update (which makes the fill
// plan) and the first statements, nothing allocates (no temporaries, no per-call plans).
TEST(ArrayGhosts, BoundaryRulesAndStatementsAllocateNothingWhenRepeated) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {13, 11});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {13, 11}), {block(), block()}));
  DistArray<double, 2> a(dom, ghosts<2>(1)), b(dom, ghosts<2>(1).column_major());
  a.set_boundary(BoundaryRules<double, 2>()
                     .along(0, boundary::reflect(-1))
                     .low(1, boundary::constant(2.0))
                     .high(1, boundary::function([](const Point<2>& p) { return double(p[0]); })));
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const auto step = [&] {
    a.update_ghosts();
    assign(b, [](double n, double s, double w, double e) { return n + s + w + e; }, at(a, Point<2>{-1, 0}),
           at(a, Point<2>{1, 0}), at(a, Point<2>{0, -1}), at(a, Point<2>{0, 1}));
    apply_stencil(a, b, [](const auto& acc, const Point<2>& p) { return acc(p + Point<2>{1, 1}); });
  };
  step();
  const long before = g_allocations.load();
  for (int it = 0; it < 3; ++it) step();
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(ArrayGhosts, UpdateFillsWhatTheReferenceSays1D) { update_cases<1>(60, 30); }
TEST(ArrayGhosts, UpdateFillsWhatTheReferenceSays2D) { update_cases<2>(50, 12); }
TEST(ArrayGhosts, UpdateFillsWhatTheReferenceSays3D) { update_cases<3>(30, 6); }

// A 27-point periodic array split along one axis, large enough for `halo_schedule` to stage it
// (local wraps first, then ghost-inclusive slabs: plan/staged_halo_plan.hpp): one array, two
// arrays fused into one update, split-phase; every ghost checked, nothing allocated when repeated.
TEST(ArrayGhosts, StagedUpdateAlongOneSplitAxis) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<3> box({0, -3, 1}, {3 * comm.size() + 2, 37, 40});
  const auto g = GhostSpec<3>::sides({2, 1, 2}, {1, 2, 2}).periodic_along({true, true, true});
  Domain<3> dom(comm, Distribution<3>(box, ProcGrid<3>::with_shape(comm.size(), {comm.size(), 1, 1}),
                                      {block(), block(), block()}));
  EXPECT_EQ(staged_halo_chosen(dom.distribution(), g), comm.size() > 1);
  DistArray<double, 3> u(dom, g), v(dom, g);
  const auto expect_filled = [&](const DistArray<double, 3>& a, double offset) {
    for_each_stored(a.layout(), [&](const PatchLayout<3>& patch, const Point<3>& q, index_t at, bool owned) {
      if (!owned && !in_requested_ghost(patch.owned_box(), g, q)) return;
      const auto w = wrap_point(box, g.periodic, q);
      ASSERT_TRUE(w.has_value()) << q;
      ASSERT_EQ(a.storage()[static_cast<std::size_t>(at)], value_of(*w) + offset) << "rank " << comm.rank() << " " << q;
    });
  };
  long allocated = 0;
  for (int round = 0; round < 3; ++round) {
    u.for_each_owned([&](const Point<3>& p, double& x) { x = value_of(p) + round; });
    v.for_each_owned([&](const Point<3>& p, double& x) { x = value_of(p) - round; });
    const long before = g_allocations.load();
    u.update_ghosts();
    if (round > 0) allocated += g_allocations.load() - before;
    expect_filled(u, round);
    update_ghosts(u, v);  // fused: one mover for both
    expect_filled(u, round);
    expect_filled(v, -round);
    v.begin_update_ghosts();
    v.end_update_ghosts();
    expect_filled(v, -round);
  }
  EXPECT_EQ(allocated, 0) << "a staged update allocated after its first call";
}

// Two arrays of one type and ghost spec with updates in flight at once: each gets its own kept
// mover (the cache's slots), both end right, and from the second round on nothing allocates.
TEST(ArrayGhosts, TwoUpdatesInFlightAtOnce) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {11, 9});
  const auto g = ghosts<2>(1).periodic_along({true, true});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {11, 9}), {block(), block()}));
  DistArray<double, 2> u(dom, g), v(dom, g);
  const auto expect_filled = [&](const DistArray<double, 2>& a, double sign, int round) {
    for_each_stored(a.layout(), [&](const PatchLayout<2>& patch, const Point<2>& q, index_t offset, bool owned) {
      if (!owned && !in_requested_ghost(patch.owned_box(), g, q)) return;
      const auto w = wrap_point(box, g.periodic, q);
      ASSERT_TRUE(w.has_value()) << q;
      ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], sign * (value_of(*w) + round)) << q;
    });
  };
  long allocated = 0;  // by the updates of rounds 1 and 2 (for_each_owned allocates: not counted)
  for (int round = 0; round < 3; ++round) {
    u.for_each_owned([&](const Point<2>& p, double& x) { x = value_of(p) + round; });
    v.for_each_owned([&](const Point<2>& p, double& x) { x = -value_of(p) - round; });
    const long before = g_allocations.load();
    u.begin_update_ghosts();
    v.begin_update_ghosts();
    v.end_update_ghosts();
    u.end_update_ghosts();
    if (round > 0) allocated += g_allocations.load() - before;
    expect_filled(u, 1.0, round);
    expect_filled(v, -1.0, round);
  }
  EXPECT_EQ(allocated, 0) << "split-phase updates allocated after the first round";
  EXPECT_EQ(dom.cache().stats().executor_misses, 2u);  // one mover per slot, made once
}

TEST(ArrayGhosts, SplitPhaseMisuseIsAnError) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<1> box({0}, {12});
  Domain<1> dom(comm, Distribution<1>(box, ProcGrid<1>::automatic(comm.size(), {12}), {block()}));
  DistArray<double, 1> a(dom, ghosts<1>(1));
  EXPECT_THROW(a.end_update_ghosts(), Error);
  a.begin_update_ghosts();
  EXPECT_TRUE(a.ghost_update_in_flight());
  EXPECT_THROW(a.begin_update_ghosts(), Error);
  EXPECT_THROW(dom.redistribute(Distribution<1>(box, ProcGrid<1>::automatic(comm.size(), {12}), {block()})), Error);
  a.end_update_ghosts();
  EXPECT_FALSE(a.ghost_update_in_flight());
}

// A 5-point (7-point in 3-D) stencil computed twice: after update_ghosts over every point, and with
// the interior computed while the update is in flight, then the boundary. Bit for bit equal, and
// equal to a serial reference.
template <std::size_t N>
void stencil_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(3000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    Periodicity<N> periodic{};
    for (auto& x : periodic) x = rng() % 2;
    const auto g = ghosts<N>(1).faces_only().periodic_along(periodic);
    const auto dist = any_distribution<N>(rng, box, comm.size(), true);
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, g), b1(dom), b2(dom);
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    const auto five_point = [](const auto& acc, const Point<N>& p) {
      double s = -2.0 * static_cast<double>(N) * acc(p);
      for (std::size_t d = 0; d < N; ++d) s += 0.5 * acc(p - Point<N>::unit(d)) + 1.5 * acc(p + Point<N>::unit(d));
      return s;
    };
    a.update_ghosts();
    apply_stencil(a, b1, five_point);
    for (std::size_t patch_index = 0; patch_index < a.patch_count(); ++patch_index) {  // what a stencil may read: all
      const auto acc = a.stencil_access(patch_index);
      ASSERT_EQ(acc.stored_box(), grow(a.owned_box(patch_index), g.lower, g.upper));
      const PatchLayout<N>& patch = a.layout().patches()[patch_index];
      for_each_point(acc.stored_box(),
                     [&](const Point<N>& q) { ASSERT_EQ(&acc(q), a.data() + patch.element_offset(q)) << q; });
    }

    DistArray<double, N> a2(dom, g);
    a2.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    a2.begin_update_ghosts();
    for (std::size_t k2 = 0; k2 < a2.patch_count(); ++k2)  // interiors read owned values only
      apply_stencil(a2, b2, five_point, grow(a2.owned_box(k2), -1));
    a2.end_update_ghosts();
    for (std::size_t k2 = 0; k2 < a2.patch_count(); ++k2)
      for (const auto& piece : difference(a2.owned_box(k2), grow(a2.owned_box(k2), -1)))
        apply_stencil(a2, b2, five_point, piece);
    ASSERT_EQ(b1.storage().size(), b2.storage().size());
    if (!b1.storage().empty()) {  // memcmp of an empty rank's null pointers is undefined
      EXPECT_EQ(std::memcmp(b1.data(), b2.data(), b1.storage().size() * sizeof(double)), 0);
    }

    // Serial reference: a neighbour outside the domain along a non-periodic axis is a ghost nobody
    // fills, so it reads 0.
    const auto ref = [&](const Point<N>& q) {
      const auto w = wrap_point(box, periodic, q);
      return w ? value_of(*w) : 0.0;
    };
    b1.for_each_owned([&](const Point<N>& p, const double& x) {
      double s = -2.0 * static_cast<double>(N) * ref(p);
      for (std::size_t d = 0; d < N; ++d) s += 0.5 * ref(p - Point<N>::unit(d)) + 1.5 * ref(p + Point<N>::unit(d));
      ASSERT_EQ(x, s) << p;
    });
  }
}

TEST(ArrayStencil, OverlappedUpdateEqualsBlockingUpdate1D) { stencil_cases<1>(40, 30); }
TEST(ArrayStencil, OverlappedUpdateEqualsBlockingUpdate2D) { stencil_cases<2>(40, 12); }
TEST(ArrayStencil, OverlappedUpdateEqualsBlockingUpdate3D) { stencil_cases<3>(25, 6); }

TEST(ArrayStencil, CyclicAxesAndForeignDomainsAreErrors) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {6, 6});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {6, 6});
  Domain<2> cyc(comm, Distribution<2>(box, grid, {block(), cyclic()}));
  DistArray<double, 2> a(cyc), b(cyc);
  const auto f = [](const auto& acc, const Point<2>& p) { return acc(p); };
  EXPECT_THROW(apply_stencil(a, b, f), Error);
  Domain<2> one(comm, Distribution<2>(box, grid, {block(), block()}));
  Domain<2> two(comm, Distribution<2>(box, grid, {block(), block()}));
  DistArray<double, 2> c(one), d(two);
  EXPECT_THROW(apply_stencil(c, d, f), Error);
  EXPECT_THROW(apply_stencil(c, c, f), Error);
}

template <std::size_t N>
void accumulate_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(4000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << ", " << g;
    SCOPED_TRACE(what.str());
    std::map<Point<N>, std::int64_t> mirrors;  // requested ghost cells, over all ranks, per point
    for (int q = 0; q < comm.size(); ++q)
      for_each_stored(StorageLayout<N>::make(dist, q, g),
                      [&](const PatchLayout<N>& patch, const Point<N>& x, index_t, bool owned) {
                        if (owned || !in_requested_ghost(patch.owned_box(), g, x)) return;
                        if (const auto w = wrap_point(box, g.periodic, x)) mirrors[*w] += 1;
                      });
    Domain<N> dom(comm, dist);
    DistArray<std::int64_t, N> a(dom, g);
    for (auto& x : a.storage()) x = 1;  // every ghost contributes 1
    a.for_each_owned([](const Point<N>&, std::int64_t& x) { x = 100; });
    a.accumulate_ghosts();
    for_each_stored(a.layout(), [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
      const std::int64_t want = owned ? 100 + (mirrors.count(p) ? mirrors[p] : 0) : 1;
      ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], want) << "rank " << comm.rank() << " point " << p;
    });
    // max: every owner ends at the largest of itself and its mirrors.
    for (auto& x : a.storage()) x = 7;
    a.for_each_owned([](const Point<N>&, std::int64_t& x) { x = 5; });
    a.accumulate_ghosts(CombineOp::max);
    a.for_each_owned([&](const Point<N>& p, const std::int64_t& x) { ASSERT_EQ(x, mirrors.count(p) ? 7 : 5) << p; });
    // Both kept movers (add, max) are found again: nothing allocates, and max is still max.
    // (for_each_owned allocates: only the accumulations are counted.)
    for (auto& x : a.storage()) x = 9;
    a.for_each_owned([](const Point<N>&, std::int64_t& x) { x = 5; });
    long before = g_allocations.load();
    a.accumulate_ghosts(CombineOp::add);
    long allocated = g_allocations.load() - before;
    a.for_each_owned([&](const Point<N>&, std::int64_t& x) { x = 5; });
    before = g_allocations.load();
    a.accumulate_ghosts(CombineOp::max);
    allocated += g_allocations.load() - before;
    EXPECT_EQ(allocated, 0) << "accumulate_ghosts allocated after its first calls";
    a.for_each_owned([&](const Point<N>& p, const std::int64_t& x) { ASSERT_EQ(x, mirrors.count(p) ? 9 : 5) << p; });
  }
}

TEST(ArrayGhosts, AccumulateAddsEveryGhostIntoItsOwner1D) { accumulate_cases<1>(40, 12); }
TEST(ArrayGhosts, AccumulateAddsEveryGhostIntoItsOwner2D) { accumulate_cases<2>(40, 8); }
TEST(ArrayGhosts, AccumulateAddsEveryGhostIntoItsOwner3D) { accumulate_cases<3>(20, 5); }

}  // namespace
}  // namespace tessera
