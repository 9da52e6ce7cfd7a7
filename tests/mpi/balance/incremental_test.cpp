// Incremental steps (plan_step + migrate): boundaries, moved elements, blocks and bytes checked
// against a brute-force count over every index; contents preserved exactly after every migration,
// for several arrays over one domain; spare rows absorb small moves without reallocating.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine_checks.hpp"
#include "tessera/balance/incremental.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

// Brute force: elements whose owner differs, point by point.
template <std::size_t N>
index_t brute_moved(const Distribution<N>& a, const Distribution<N>& b) {
  index_t moved = 0;
  for_each_point(a.domain(), [&](const Point<N>& p) { moved += a.owner(p) != b.owner(p); });
  return moved;
}

// Reference boundary step, written independently of step_boundary: the multiple of `block` from
// lo nearest to b + delta (t - b), a tie going toward t, clamped.
index_t reference_step(index_t b, index_t t, double delta, index_t lo, index_t hi, index_t block) {
  const double x = static_cast<double>(b) + delta * static_cast<double>(t - b);
  index_t best = lo;
  for (index_t c = lo; c <= hi + block; c += block) {
    const double dc = std::abs(static_cast<double>(c) - x), db = std::abs(static_cast<double>(best) - x);
    if (dc < db || (dc == db && std::abs(c - t) < std::abs(best - t))) best = c;
  }
  return std::min(best, hi);
}

template <std::size_t N>
void check_step(const Distribution<N>& from, const Distribution<N>& target, double delta, const StepPlan<N>& step,
                std::size_t bytes_per_element) {
  for (std::size_t d = 0; d < N; ++d) {
    if (from.grid().extent(d) <= 1) continue;
    const auto cur = from.slab_cuts(d), goal = target.slab_cuts(d), got = step.to.slab_cuts(d);
    for (std::size_t s = 0; s < cur.size(); ++s)
      for (std::size_t j = 1; j + 1 < cur[s].size(); ++j)
        ASSERT_EQ(got[s][j], reference_step(cur[s][j], goal[s][j], delta, from.domain().lo[d], from.domain().hi[d],
                                            from.dim(d).logical_block()))
            << "axis " << d << " slab " << s << " boundary " << j << " delta " << delta;
  }
  const index_t moved = brute_moved(from, step.to);
  EXPECT_EQ(step.elements, moved);
  EXPECT_EQ(step.bytes, static_cast<std::uint64_t>(moved) * bytes_per_element);
  const index_t unit = elements_per_block(from);
  EXPECT_EQ(step.blocks, (moved + unit - 1) / unit);
  if (delta == 0) {
    EXPECT_TRUE(step.to == from);
  }
  if (delta == 1) {
    EXPECT_TRUE(step.to == target) << step.to << " vs " << target;
  }
}

// D3-ARC's case: rows cut over all ranks, columns whole; arrays with and without ghosts.
TEST(Incremental, RowStepsMatchBruteForceAndKeepEveryElement) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {37, 11});
  const auto grid = ProcGrid<2>::with_shape(P, {P, 1});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block().with_logical_block(2), collapsed()}));
  DistArray<double, 2> u(dom, ghosts<2>(1));
  DistArray<std::int64_t, 2> v(dom);
  u.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  v.for_each_owned([](const Point<2>& p, std::int64_t& x) { x = p[0] * 1000 + p[1]; });
  std::mt19937_64 rng(42);
  for (int it = 0; it < 40; ++it) {
    std::vector<double> w(static_cast<std::size_t>(P));
    for (auto& x : w) x = 0.2 + static_cast<double>(rng() % 100) / 25.0;
    const auto target = cut_target(dom.distribution(), w);
    const double delta = std::array{0.0, 0.1, 0.5, 1.0}[static_cast<std::size_t>(it % 4)];
    const auto step = plan_step(dom, target, delta);
    SCOPED_TRACE(::testing::Message() << "step " << it << ": " << step.from << " -> " << step.to);
    check_step(dom.distribution(), target, delta, step, sizeof(double) + sizeof(std::int64_t));
    const double seconds = migrate_step(dom, step);
    EXPECT_GE(seconds, 0.0);
    ASSERT_TRUE(dom.distribution() == step.to);
    u.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    v.for_each_owned([](const Point<2>& p, const std::int64_t& x) { ASSERT_EQ(x, p[0] * 1000 + p[1]) << p; });
    u.update_ghosts();  // the halo schedule follows the new layout, wherever it now starts
    if (u.patch_count() == 1) {
      const Box<2> stored = intersect(grow(u.owned_box(), Point<2>{1, 0}), box);
      for_each_point(stored, [&](const Point<2>& p) { ASSERT_EQ(u.at(p), value_of(p)) << p; });
    }
    EXPECT_EQ(u.storage().size(), static_cast<std::size_t>(StorageLayout<2>::make(dom.distribution(), comm.rank(), ghosts<2>(1)).size()));
  }
}

// Nested cuts over a 2-D grid (general along the second axis of the order) and 3-D.
template <std::size_t N>
void nested_chain(std::uint64_t seed, const typename Distribution<N>::Order& order) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  Box<N> box;
  for (std::size_t d = 0; d < N; ++d) box.hi[d] = 5 + static_cast<index_t>(rng() % 9);
  const auto grid = ProcGrid<N>::automatic(comm.size(), box.hi);
  std::array<DimSpec, N> specs;
  for (auto& s : specs) s = block();
  Domain<N> dom(comm, Distribution<N>(box, grid, specs, order));
  DistArray<double, N> a(dom, ghosts<N>(1));
  DistArray<float, N> b(dom);
  a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
  b.for_each_owned([](const Point<N>& p, float& x) { x = static_cast<float>(p[0] - p[N - 1]); });
  const auto reference = a.gather_to_all();
  for (int it = 0; it < 24; ++it) {
    std::vector<double> w(static_cast<std::size_t>(grid.size()));
    for (auto& x : w) x = 0.5 + static_cast<double>(rng() % 50) / 10.0;
    const auto target = cut_target(dom.distribution(), w);
    const double delta = std::array{0.0, 0.1, 0.5, 1.0}[static_cast<std::size_t>(rng() % 4)];
    const auto step = plan_step(dom, target, delta);
    SCOPED_TRACE(::testing::Message() << "step " << it << ": " << step.from << " -> " << step.to);
    check_step(dom.distribution(), target, delta, step, sizeof(double) + sizeof(float));
    migrate_step(dom, step);
    b.for_each_owned([](const Point<N>& p, const float& x) { ASSERT_EQ(x, static_cast<float>(p[0] - p[N - 1])) << p; });
  }
  const auto after = a.gather_to_all();
  ASSERT_EQ(after.size(), reference.size());
  EXPECT_EQ(std::memcmp(after.data(), reference.data(), after.size() * sizeof(double)), 0);
}

TEST(Incremental, NestedCuts2D) { nested_chain<2>(7, {0, 1}); }
TEST(Incremental, NestedCuts2DColumnsFirst) { nested_chain<2>(8, {1, 0}); }
TEST(Incremental, NestedCuts3D) { nested_chain<3>(9, {2, 0, 1}); }

// Small moves of the row boundaries stay inside the spare rows: one allocation (the first
// migration's), then none; the rows that stay keep their addresses.
TEST(Incremental, SpareRowsAbsorbSmallMoves) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const index_t rows = 64L * P;
  const Box<2> box({0, 0}, {rows, 8});
  const auto grid = ProcGrid<2>::with_shape(P, {P, 1});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  dom.set_spare_rows(0.25);  // 16 rows each side
  EXPECT_EQ(dom.spare_rows_fraction(), 0.25);
  DistArray<double, 2> u(dom, ghosts<2>(1));
  u.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  // Shift every interior boundary by +2 rows, four times (8 rows in all, within the 16 spare).
  for (int k = 1; k <= 5; ++k) {
    std::vector<index_t> cut{0};
    for (int c = 1; c < P; ++c) cut.push_back(64L * c + 2 * k);
    cut.push_back(rows);
    const auto to = dom.distribution().with_cuts(0, {cut});
    const double* before = u.patch_count() ? &u.at(u.owned_box().hi - Point<2>{1, 1}) : nullptr;
    const Point<2> probe = u.patch_count() ? u.owned_box().hi - Point<2>{1, 1} : Point<2>{};
    dom.migrate(to);
    u.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    if (k > 1 && before && contains(u.owned_box(), probe)) {
      EXPECT_EQ(&u.at(probe), before) << "row moved in memory";
    }
  }
  EXPECT_LE(u.reallocations(), 1u) << "spare rows should absorb 8 rows of drift";
  EXPECT_GE(u.capacity(), u.storage().size());
}

TEST(Incremental, BadInputIsRefusedEverywhereAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {20, 20});
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), collapsed()}));
  DistArray<double, 2> u(dom);
  const auto target = cut_target(dom.distribution(), std::vector<double>(static_cast<std::size_t>(comm.size()), 1.0));
  EXPECT_THROW((void)plan_step(dom, target, 1.5), Error);
  EXPECT_THROW((void)plan_step(dom, target, -0.1), Error);
  EXPECT_THROW((void)cut_target(dom.distribution(), {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}), Error);
  const Distribution<2> other(Box<2>({0, 0}, {21, 20}), grid, {block(), collapsed()});
  EXPECT_THROW((void)plan_step(dom, other, 0.5), Error);
  // A cyclic axis the grid does not split is refused too (found by the soak test).
  const Distribution<2> unsplit_cyclic(box, grid, {block(), cyclic()});
  EXPECT_THROW((void)cut_target(unsplit_cyclic, std::vector<double>(static_cast<std::size_t>(comm.size()), 1.0)), Error);
  if (comm.size() > 1) {
    const Distribution<2> cyc(box, grid, {cyclic(), collapsed()});
    EXPECT_THROW((void)cut_target(cyc, std::vector<double>(static_cast<std::size_t>(comm.size()), 1.0)), Error);
    // A stale step: planned, then the domain moved elsewhere.
    std::vector<double> w(static_cast<std::size_t>(comm.size()), 1.0);
    w[0] = 3.0;
    const auto step = plan_step(dom, cut_target(dom.distribution(), w), 1.0);
    dom.migrate(step.to);
    try {
      StepPlan<2> stale = step;
      migrate_step(dom, stale);
      ADD_FAILURE() << "a stale step was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("planned from"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tessera
