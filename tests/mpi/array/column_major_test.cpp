// Column-major storage (GhostSpec::column_major): the layout's strides, and every operation on
// column-major arrays over random distributions of every kind checked against a serial reference
// (value_of(point)) or, for reductions, against the same array stored row-major, bit for bit:
// ghost updates (periodic too) and accumulation, fused updates, gather and scatter, copy between
// the two orders and across distributions, copy_section, transpose, index gather/scatter,
// redistribution and migration of domains holding arrays of both orders.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

constexpr StorageOrder kOrders[] = {StorageOrder::row_major, StorageOrder::column_major};

/// Every stored element (ghosts too) set to kSentinel, then every owned one to value_of(point).
template <std::size_t N>
void fill_with_points(DistArray<double, N>& a) {
  std::fill(a.storage().begin(), a.storage().end(), kSentinel);
  a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
}

/// Every owned element of `a` holds want(point).
template <std::size_t N, class Want>
void expect_owned(const DistArray<double, N>& a, Want&& want) {
  a.for_each_owned([&](const Point<N>& p, const double& x) { ASSERT_EQ(x, want(p)) << "at " << p; });
}

/// The row-major image of `box` with value_of at every point.
template <std::size_t N>
std::vector<double> point_image(const Box<N>& box) {
  std::vector<double> image;
  for_each_point(box, [&](const Point<N>& p) { image.push_back(value_of(p)); });
  return image;
}

TEST(ColumnMajorLayout, StridesRunFromTheFirstAxis) {
  const Box<3> box({0, 0, 0}, {5, 6, 7});
  const Distribution<3> dist(box, ProcGrid<3>::with_shape(1, {1, 1, 1}), {block(), block(), block()});
  const auto g = ghosts<3>(1).column_major();
  const auto layout = StorageLayout<3>::make(dist, 0, g);
  ASSERT_EQ(layout.order(), StorageOrder::column_major);
  EXPECT_EQ(layout.outermost_axis(), 2u);
  const auto& p = layout.patches().at(0);
  EXPECT_EQ(p.strides, (Point<3>{1, 7, 7 * 8}));  // extents 7 x 8 x 9 with ghosts
  EXPECT_EQ(p.element_offset({0, 0, 0}), 1 + 7 + 56);
  EXPECT_EQ(p.element_offset({1, 0, 0}) - p.element_offset({0, 0, 0}), 1);
  const auto row = StorageLayout<3>::make(dist, 0, ghosts<3>(1));
  EXPECT_EQ(row.patches().at(0).strides, (Point<3>{8 * 9, 9, 1}));
  // The order is part of the ghost spec's hash and equality (so of every schedule key), and row-major
  // specs keep the hash they had before orders existed.
  EXPECT_NE(g.hash(), ghosts<3>(1).hash());
  EXPECT_FALSE(g == ghosts<3>(1));
  EXPECT_EQ(g.stored(StorageOrder::row_major), ghosts<3>(1));
  std::ostringstream text;
  text << g;
  EXPECT_NE(text.str().find("column-major"), std::string::npos) << text.str();
}

TEST(ColumnMajorLayout, BlockCyclicLocalArrayIsScalapacks) {
  // 11 x 9 in blocks of 2 x 3 over a 2 x 2 grid: element (i, j) of rank r's part sits at
  // local_row(i) + lld * local_col(j), lld = local rows (ScaLAPACK's local array).
  const Box<2> box({0, 0}, {11, 9});
  const Distribution<2> dist(box, ProcGrid<2>::with_shape(4, {2, 2}), {block_cyclic(2), block_cyclic(3)});
  for (int r = 0; r < 4; ++r) {
    const auto layout = StorageLayout<2>::make(dist, r, no_ghosts<2>().column_major());
    const auto& p = layout.patches().at(0);
    const index_t lld = p.axes[0].count;
    for_each_point(box, [&](const Point<2>& q) {
      if (dist.owner(q) != r) return;
      const index_t li = (q[0] / 4) * 2 + q[0] % 2, lj = (q[1] / 6) * 3 + q[1] % 3;
      ASSERT_EQ(p.element_offset(q), li + lld * lj) << "rank " << r << " point " << q;
    });
  }
}

template <std::size_t N>
void ghost_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7100 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng).column_major();
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, g), b(dom, g);
    fill_with_points(a);
    fill_with_points(b);
    a.update_ghosts();
    const auto read_a = [&](index_t offset) { return a.storage()[static_cast<std::size_t>(offset)]; };
    expect_halo_reference(a.layout(), box, g, read_a, comm.rank());
    // Split phase and fused: the same values.
    fill_with_points(a);
    a.begin_update_ghosts();
    a.end_update_ghosts();
    expect_halo_reference(a.layout(), box, g, read_a, comm.rank());
    fill_with_points(a);
    update_ghosts(a, b);
    expect_halo_reference(a.layout(), box, g, read_a, comm.rank());
    const auto read_b = [&](index_t offset) { return b.storage()[static_cast<std::size_t>(offset)]; };
    expect_halo_reference(b.layout(), box, g, read_b, comm.rank());
    // Accumulation: the same as a row-major array given the same values, element by element.
    DistArray<double, N> row(dom, g.stored(StorageOrder::row_major));
    for (auto* x : {&a, &row}) {
      for_each_stored(x->layout(), [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool) {
        x->storage()[static_cast<std::size_t>(offset)] = value_of(p) + 0.25;
      });
      x->accumulate_ghosts(CombineOp::add);
    }
    for_each_stored(a.layout(), [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
      if (owned) {
        ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], row.at(p)) << p;
      }
    });
  }
}

TEST(ColumnMajor, GhostUpdatesMatchTheReference) {
  ghost_cases<1>(20, 30);
  ghost_cases<2>(40, 14);
  ghost_cases<3>(25, 7);
}

TEST(ColumnMajor, StencilsReadNeighboursThroughColumnMajorGhosts) {
  // out(i, j) = in(i - 1, j) + in(i, j + 1) on a periodic 13 x 10 box, both arrays column-major.
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {13, 10});
  const auto grid = ProcGrid<2>::automatic(comm, {13, 10});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  const auto g = ghosts<2>(1).faces_only().periodic_along({true, true}).column_major();
  DistArray<double, 2> in(dom, g), out(dom, no_ghosts<2>().column_major());
  fill_with_points(in);
  in.update_ghosts();
  apply_stencil(in, out, [](const auto& acc, const Point<2>& p) {
    return acc(p + Point<2>{-1, 0}) + acc(p + Point<2>{0, 1});
  });
  expect_owned(out, [](const Point<2>& p) {
    return value_of(Point<2>{(p[0] + 12) % 13, p[1]}) + value_of(Point<2>{p[0], (p[1] + 1) % 10});
  });
}

template <std::size_t N>
void whole_array_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7200 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng, 2).column_major();
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    DistArray<double, N> a(dom, g), row(dom, g.stored(StorageOrder::row_major));
    const std::vector<double> image = point_image(box);
    // The global image stays row-major: scatter it, gather it back.
    a.scatter_from(0, comm.rank() == 0 ? std::span<const double>(image) : std::span<const double>());
    expect_owned(a, [](const Point<N>& p) { return value_of(p); });
    EXPECT_EQ(a.gather_to_all(), image);
    const int root = comm.size() - 1;
    std::vector<double> gathered(comm.rank() == root ? image.size() : 0);
    a.gather_to(root, std::span<double>(gathered));
    if (comm.rank() == root) {
      EXPECT_EQ(gathered, image);
    }
    // Reductions: the same bits as the row-major array (they visit local indices in one order).
    a.for_each_owned([](const Point<N>& p, double& x) { x = 1.0 / (3.0 + value_of(p)); });
    row.for_each_owned([](const Point<N>& p, double& x) { x = 1.0 / (3.0 + value_of(p)); });
    const double sa = a.sum(), sr = row.sum();
    EXPECT_EQ(std::memcmp(&sa, &sr, sizeof sa), 0) << sa << " vs " << sr;
    EXPECT_EQ(a.min_loc().at, row.min_loc().at);
    EXPECT_EQ(a.max(), row.max());
    for (std::size_t axis = 0; axis < N; ++axis) {
      const auto ra = a.reduce_along(axis, 0.0, std::plus<>{}), rr = row.reduce_along(axis, 0.0, std::plus<>{});
      ASSERT_EQ(ra.size(), rr.size());
      EXPECT_EQ(std::memcmp(ra.data(), rr.data(), ra.size() * sizeof(double)), 0) << "axis " << axis;
    }
  }
}

TEST(ColumnMajor, GatherScatterAndReductions) {
  whole_array_cases<1>(15, 30);
  whole_array_cases<2>(30, 14);
  whole_array_cases<3>(20, 7);
}

template <std::size_t N>
void remap_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7300 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto src_dist = any_distribution<N>(rng, box, comm.size(), std::array<bool, N>{});
    const auto dst_dist = any_distribution<N>(rng, box, comm.size(), std::array<bool, N>{});
    const StorageOrder from = kOrders[rng() % 2], to = kOrders[rng() % 2];
    std::ostringstream what;
    what << "case " << k << ": " << src_dist << " (" << from << ") -> " << dst_dist << " (" << to << ") over " << box;
    SCOPED_TRACE(what.str());
    Domain<N> src_dom(comm, src_dist), dst_dom(comm, dst_dist);
    DistArray<double, N> a(src_dom, no_ghosts<N>().stored(from)), b(dst_dom, no_ghosts<N>().stored(to));
    fill_with_points(a);
    copy(a, b);
    expect_owned(b, [](const Point<N>& p) { return value_of(p); });
    // copy_section: the upper half of dimension 0 of a onto the lower half of b.
    const index_t half = extent(box, 0) / 2;
    if (half > 0) {
      Box<N> upper = box;
      upper.lo[0] = box.hi[0] - half;
      fill_with_points(b);
      copy_section(a, upper, b, box.lo);
      expect_owned(b, [&](const Point<N>& p) {
        Point<N> q = p;
        q[0] += box.hi[0] - half - box.lo[0];
        return p[0] < box.lo[0] + half ? value_of(q) : value_of(p);
      });
    }
    if constexpr (N >= 2) {
      // transpose: at(j, i, ...) = a(i, j, ...) for the permutation swapping axes 0 and 1.
      typename MotionPlan<N>::Permutation perm;
      for (std::size_t d = 0; d < N; ++d) perm[d] = static_cast<int>(d);
      std::swap(perm[0], perm[1]);
      Box<N> tbox = box;
      std::swap(tbox.lo[0], tbox.lo[1]);
      std::swap(tbox.hi[0], tbox.hi[1]);
      const auto tdist = any_distribution<N>(rng, tbox, comm.size(), std::array<bool, N>{});
      Domain<N> tdom(comm, tdist);
      DistArray<double, N> at(tdom, no_ghosts<N>().stored(to));
      transpose(a, at, perm);
      expect_owned(at, [](Point<N> p) {
        std::swap(p[0], p[1]);
        return value_of(p);
      });
    }
  }
}

TEST(ColumnMajor, CopyCopySectionAndTransposeBetweenOrders) {
  remap_cases<1>(15, 30);
  remap_cases<2>(40, 14);
  remap_cases<3>(25, 7);
}

TEST(ColumnMajor, IndexGatherAndScatter) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7400);
  for (int k = 0; k < 20; ++k) {
    const auto box = random_domain<2>(rng, 12);
    const auto dist = any_distribution<2>(rng, box, comm.size(), std::array<bool, 2>{});
    const auto idist = any_distribution<1>(rng, Box<1>({0}, {17}), comm.size(), std::array<bool, 1>{});
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist << " over " << box);
    Domain<2> dom(comm, dist);
    Domain<1> idom(comm, idist);
    DistArray<double, 2> a(dom, no_ghosts<2>().column_major()), s(dom, no_ghosts<2>().column_major());
    DistArray<Point<2>, 1> index(idom, no_ghosts<1>().column_major());
    DistArray<double, 1> picked(idom, no_ghosts<1>().column_major());
    fill_with_points(a);
    // index(i) = a point of the box that depends on i alone (the same on every rank).
    index.for_each_owned([&](const Point<1>& i, Point<2>& p) {
      p = Point<2>{box.lo[0] + (i[0] * 5) % extent(box, 0), box.lo[1] + (i[0] * 3) % extent(box, 1)};
    });
    gather(a, index, picked);
    picked.for_each_owned([&](const Point<1>& i, const double& x) {
      ASSERT_EQ(x, value_of(Point<2>{box.lo[0] + (i[0] * 5) % extent(box, 0), box.lo[1] + (i[0] * 3) % extent(box, 1)}));
    });
    // scatter with add: every target gets the sum of the values aimed at it, computed serially.
    std::map<Point<2>, double> want;
    for (index_t i = 0; i < 17; ++i)
      want[Point<2>{box.lo[0] + (i * 5) % extent(box, 0), box.lo[1] + (i * 3) % extent(box, 1)}] += double(i);
    picked.for_each_owned([](const Point<1>& i, double& x) { x = double(i[0]); });
    scatter(picked, index, s, CombineOp::add);
    expect_owned(s, [&](const Point<2>& p) { return want.count(p) ? want[p] : 0.0; });
  }
}

template <std::size_t N>
void relayout_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7500 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng, 2);
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    const auto next = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " -> " << next << " over " << box << ", " << g;
    SCOPED_TRACE(what.str());
    Domain<N> dom(comm, dist);
    // Arrays of both orders with one ghost spec otherwise: their schedules must not be shared.
    DistArray<double, N> row(dom, g), col(dom, g.column_major());
    fill_with_points(row);
    fill_with_points(col);
    dom.redistribute(next);
    expect_owned(row, [](const Point<N>& p) { return value_of(p); });
    expect_owned(col, [](const Point<N>& p) { return value_of(p); });
    col.update_ghosts();
    row.update_ghosts();
    const auto read = [&](index_t offset) { return col.storage()[static_cast<std::size_t>(offset)]; };
    expect_halo_reference(col.layout(), box, col.ghosts(), read, comm.rank(), 0.0);
    dom.redistribute(dist);
    expect_owned(col, [](const Point<N>& p) { return value_of(p); });
  }
}

TEST(ColumnMajor, RedistributionKeepsValuesBesideRowMajorArrays) {
  relayout_cases<1>(15, 30);
  relayout_cases<2>(30, 14);
  relayout_cases<3>(20, 7);
}

TEST(ColumnMajor, MigrationSlidesColumnsInPlace) {
  // Cuts along the last axis of a column-major array: a migration that moves a boundary by a few
  // columns stays inside the spare columns of the buffer (no reallocation the second time).
  Communicator comm(MPI_COMM_WORLD);
  const index_t n = 6, m = 12 * comm.size();
  const Box<2> box({0, 0}, {n, m});
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {1, comm.size()});
  const auto cuts = [&](index_t shift) {
    std::vector<index_t> b{0};
    for (int c = 1; c < comm.size(); ++c) b.push_back(12 * c + (c % 2 ? shift : -shift));
    b.push_back(m);
    return Distribution<2>(box, grid, {block(), cut(b)});
  };
  Domain<2> dom(comm, cuts(0));
  DistArray<double, 2> col(dom, ghosts<2>(1).column_major());
  fill_with_points(col);
  for (index_t shift : {1, 2, 1, 0}) {
    dom.migrate(cuts(shift));
    expect_owned(col, [](const Point<2>& p) { return value_of(p); });
    col.update_ghosts();
    const auto read = [&](index_t offset) { return col.storage()[static_cast<std::size_t>(offset)]; };
    const auto& layout = col.layout();
    for_each_stored(layout, [&](const PatchLayout<2>& patch, const Point<2>& q, index_t offset, bool owned) {
      if (!owned && in_requested_ghost(patch.owned_box(), col.ghosts(), q) && contains(box, q)) {
        ASSERT_EQ(read(offset), value_of(q)) << q;
      }
    });
  }
  EXPECT_LE(col.reallocations(), 1u);  // the first migration may allocate spare columns, later ones fit
}

}  // namespace
}  // namespace tessera
