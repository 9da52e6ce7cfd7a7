// Sparse subdomains and sparse arrays (array/sparse_domain.hpp, array/sparse_array.hpp) against a
// serial reference (a std::map of point -> value every rank keeps alike), over distributions of
// every kind and random ones in 1-3 D: batched add and remove from every rank, membership,
// iteration order, reductions, gather and scatter, following the parent through redistribution
// and migration chains, stencil ghost fetches, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "named_distributions.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
using Reference = std::map<Point<N>, std::int64_t>;

template <std::size_t N>
std::int64_t code_of(const Point<N>& p) {
  std::int64_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 1009 + (p[d] + 100);
  return v;
}

template <std::size_t N>
Point<N> random_point(std::mt19937_64& rng, const Box<N>& box) {
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d) p[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d)));
  return p;
}

/// The same `count` random points of `box` on every rank (rng in step); this rank's batch is every
/// size-th one from its rank on, so that batches overlap in value (repeats) but not in position.
template <std::size_t N>
std::vector<Point<N>> random_batch(std::mt19937_64& rng, const Box<N>& box, int count, int rank, int size,
                                   std::vector<Point<N>>& all) {
  all.clear();
  for (int k = 0; k < count; ++k) all.push_back(random_point(rng, box));
  std::vector<Point<N>> mine;
  for (int k = rank; k < count; k += size) mine.push_back(all[static_cast<std::size_t>(k)]);
  return mine;
}

/// Every rank's indices and values agree with `ref`: each held index is owned here and sorted by
/// local offset, values are the reference's, and the union over the ranks is the reference.
template <std::size_t N>
void expect_matches(const SparseArray<std::int64_t, N>& a, const Reference<N>& ref, const std::string& what) {
  const SparseDomain<N>& s = a.domain();
  const Distribution<N>& dist = s.distribution();
  const int rank = s.comm().rank();
  const auto offsets = s.local().offsets();
  EXPECT_TRUE(std::is_sorted(offsets.begin(), offsets.end())) << what;
  std::size_t k = 0;
  a.for_each([&](const Point<N>& p, const std::int64_t& v) {
    EXPECT_EQ(dist.owner(p), rank) << what << " " << p;
    EXPECT_EQ(dist.local_offset(p), offsets[k++]) << what << " " << p;
    const auto it = ref.find(p);
    ASSERT_NE(it, ref.end()) << what << ": rank " << rank << " holds " << p << ", not in the reference";
    EXPECT_EQ(v, it->second) << what << " " << p;
  });
  EXPECT_EQ(s.size(), static_cast<index_t>(ref.size())) << what;
  const auto image = a.gather_to(0);
  if (rank == 0) {
    ASSERT_EQ(image.points.size(), ref.size()) << what;
    std::size_t i = 0;
    for (const auto& [p, v] : ref) {
      EXPECT_EQ(image.points[i], p) << what;
      EXPECT_EQ(image.values[i], v) << what;
      ++i;
    }
  } else {
    EXPECT_TRUE(image.points.empty());
  }
}

/// Adds, removes, queries and reduces over `dist`; then follows the parent to `next`.
template <std::size_t N>
void check_sparse(const Communicator& comm, const Distribution<N>& dist, const std::vector<Distribution<N>>& next,
                  std::uint64_t seed, const std::string& name) {
  std::mt19937_64 rng(seed);
  const int rank = comm.rank(), size = comm.size();
  Domain<N> dom(comm, dist);
  DistArray<double, N> dense(dom);  // a dense array over the same parent moves alongside
  dense.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
  SparseDomain<N> s(dom);
  SparseArray<std::int64_t, N> a(s);
  Reference<N> ref;
  std::vector<Point<N>> all;
  const int count = static_cast<int>(std::max<index_t>(3, volume(dist.domain()) / 3));
  // Add, set values, add again (new ones T{}), remove.
  s.add(random_batch(rng, dist.domain(), count, rank, size, all));
  for (const auto& p : all) ref[p] = 0;
  a.for_each([](const Point<N>& p, std::int64_t& v) { v = code_of(p); });
  for (auto& [p, v] : ref) v = code_of(p);
  expect_matches(a, ref, name + " after add");
  s.add(random_batch(rng, dist.domain(), count / 2, rank, size, all));
  for (const auto& p : all) ref.emplace(p, 0);
  expect_matches(a, ref, name + " after a second add");
  s.remove(random_batch(rng, dist.domain(), count / 2, rank, size, all));
  for (const auto& p : all) ref.erase(p);
  expect_matches(a, ref, name + " after remove");
  // Membership of random points, asked by every rank.
  const auto asked = random_batch(rng, dist.domain(), 20, rank, size, all);
  const auto held = s.contains(asked);
  for (std::size_t k = 0; k < asked.size(); ++k) EXPECT_EQ(held[k] != 0, ref.count(asked[k]) == 1) << name;
  // Reductions: integer sum, min, max and a user operator exactly; a double sum alike on every rank.
  std::int64_t sum = 0, lo = INT64_MAX, hi = INT64_MIN, x = 0;
  for (const auto& [p, v] : ref) sum += v, lo = std::min(lo, v), hi = std::max(hi, v), x ^= v;
  EXPECT_EQ(a.sum(), sum) << name;
  EXPECT_EQ(a.reduce(std::int64_t{0}, [](std::int64_t u, std::int64_t w) { return u ^ w; }), x) << name;
  if (!ref.empty()) {
    EXPECT_EQ(a.min(), lo) << name;
    EXPECT_EQ(a.max(), hi) << name;
  }
  SparseArray<double, N> b(s, 0.1);
  b.for_each([](const Point<N>& p, double& v) { v = 1.0 / static_cast<double>(code_of(p) % 97 + 1); });
  const double bits = b.sum();
  for (const double other : comm.allgather(bits)) EXPECT_EQ(std::memcmp(&other, &bits, sizeof bits), 0) << name;
  // Scatter a changed image back.
  auto image = a.gather_to(0);
  for (auto& v : image.values) v = -v;
  for (auto& [p, v] : ref) v = -v;
  a.scatter_from(0, image);
  expect_matches(a, ref, name + " after scatter");
  // Follow the parent through the chain (redistribute, or migrate when the box stays).
  Box<N> kept = dist.domain();  // where the dense array kept its values
  for (std::size_t i = 0; i < next.size(); ++i) {
    kept = intersect(kept, next[i].domain());
    if (next[i].domain() == dom.box() && !next[i].is_flooded() && i % 2 == 1)
      dom.migrate(next[i]);
    else
      dom.redistribute(next[i]);
    for (auto it = ref.begin(); it != ref.end();)
      it = detail::owner_or_none(next[i], it->first) < 0 ? ref.erase(it) : std::next(it);
    expect_matches(a, ref, name + " after following the parent to step " + std::to_string(i));
    dense.for_each_owned([&](const Point<N>& p, const double& v) {
      if (contains(kept, p)) {
        EXPECT_EQ(v, value_of(p)) << name;
      }
    });
  }
}

template <std::size_t N>
void check_every_kind(const Box<N>& box, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  const auto named = named_distributions<N>(box, comm.size());
  for (std::size_t i = 0; i < named.size(); ++i) {
    // A chain: two random distributions (one over a smaller box) and the next named one.
    Box<N> smaller = box;
    smaller.hi[0] = box.lo[0] + std::max<index_t>(1, extent(box, 0) - 2);
    const std::vector<Distribution<N>> chain{random_distribution<N>(rng, box, comm.size(), false),
                                             any_distribution<N>(rng, box, comm.size(), false),
                                             random_distribution<N>(rng, smaller, comm.size(), false),
                                             named[(i + 1) % named.size()].second};
    check_sparse<N>(comm, named[i].second, chain, seed + i, named[i].first);
  }
}

TEST(SparseDomain, EveryKindIn1D) { check_every_kind<1>(Box<1>({-3}, {40}), 11); }
TEST(SparseDomain, EveryKindIn2D) { check_every_kind<2>(Box<2>({0, -2}, {9, 8}), 12); }
TEST(SparseDomain, EveryKindIn3D) { check_every_kind<3>(Box<3>({0, 0, 1}, {5, 4, 6}), 13); }

TEST(SparseDomain, RandomDistributions) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(99);
  for (int round = 0; round < 4; ++round) {
    const Box<2> box = random_domain<2>(rng, 10);
    const auto from = any_distribution<2>(rng, box, comm.size(), false);
    check_sparse<2>(comm, from, {any_distribution<2>(rng, box, comm.size(), false)}, 100 + round,
                    "random round " + std::to_string(round));
  }
}

TEST(SparseDomain, BoxSetWithHoles) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {10, 10});
  std::vector<Box<2>> boxes{Box<2>({0, 0}, {5, 10}), Box<2>({6, 0}, {10, 4}), Box<2>({6, 6}, {10, 10})};
  std::vector<int> owners{0, comm.size() > 1 ? 1 : 0, comm.size() - 1};
  const auto holes = Distribution<2>::from_box_set(BoxSet<2>(box, boxes, owners, comm.size()));
  Domain<2> dom(comm, holes);
  SparseDomain<2> s(dom);
  const std::vector<Point<2>> in_hole{Point<2>{5, 3}};
  expect_error([&] { s.add(comm.rank() == comm.size() - 1 ? std::span<const Point<2>>(in_hole) : std::span<const Point<2>>()); },
               "hole");
  EXPECT_EQ(s.size(), 0);
  // Following a dense distribution into the box set drops indices in its holes.
  Domain<2> dense_dom(comm, named_distributions<2>(box, comm.size())[0].second);
  SparseDomain<2> t(dense_dom);
  SparseArray<std::int64_t, 2> a(t);
  std::vector<Point<2>> all;
  for (index_t i = 0; i < 10; ++i) all.push_back({i, (i * 3) % 10});
  t.add(comm.rank() == 0 ? std::span<const Point<2>>(all) : std::span<const Point<2>>());
  a.for_each([](const Point<2>& p, std::int64_t& v) { v = code_of(p); });
  dense_dom.redistribute(holes);
  Reference<2> ref;
  for (const auto& p : all)
    if (detail::owner_or_none(holes, p) >= 0) ref[p] = code_of(p);
  expect_matches(a, ref, "into a box set with holes");
}

TEST(SparseArray, StencilGhostFetch) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(7);
  const Box<2> box({0, 0}, {12, 11});
  const std::vector<Point<2>> star{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {2, 2}};
  for (const auto& [name, dist] : named_distributions<2>(box, comm.size())) {
    Domain<2> dom(comm, dist);
    SparseDomain<2> s(dom);
    SparseArray<std::int64_t, 2> a(s);
    std::vector<Point<2>> all;
    std::map<Point<2>, std::int64_t> ref;
    for (int round = 0; round < 2; ++round) {
      s.add(random_batch(rng, box, 50, comm.rank(), comm.size(), all));
      for (const auto& p : all) ref[p] = code_of(p);
      a.for_each([](const Point<2>& p, std::int64_t& v) { v = code_of(p); });
      for (int twice = 0; twice < 2; ++twice) {  // the second run reuses the schedule
        a.update_ghosts(star);
        a.for_each([&](const Point<2>& p, const std::int64_t&) {
          for (const auto& o : star) {
            const Point<2> q = p + o;
            const std::int64_t* v = a.find(q);
            if (ref.count(q) == 1) {
              ASSERT_NE(v, nullptr) << name << ": " << q << " not fetched";
              EXPECT_EQ(*v, code_of(q)) << name << " " << q;
            } else {
              EXPECT_EQ(v, nullptr) << name << ": " << q << " is not in the set";
            }
          }
        });
      }
    }
    // After the parent moves, the fetch is rebuilt against the new owners.
    dom.redistribute(random_distribution<2>(rng, box, comm.size(), false));
    a.update_ghosts(star);
    a.for_each([&](const Point<2>& p, const std::int64_t&) {
      for (const auto& o : star)
        if (ref.count(p + o) == 1) {
          const std::int64_t* v = a.find(p + o);
          ASSERT_NE(v, nullptr) << name;
          EXPECT_EQ(*v, code_of(p + o)) << name;
        }
    });
  }
}

TEST(SparseDomain, BadInputIsAnErrorOnEveryRankWithNothingChanged) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {6, 6});
  Domain<2> dom(comm, named_distributions<2>(box, comm.size())[0].second);
  SparseDomain<2> s(dom);
  SparseArray<std::int64_t, 2> a(s);
  const std::vector<Point<2>> good{Point<2>{1, 1}, Point<2>{4, 5}};
  s.add(comm.rank() == 0 ? std::span<const Point<2>>(good) : std::span<const Point<2>>());
  a.for_each([](const Point<2>&, std::int64_t& v) { v = 5; });
  const std::vector<Point<2>> bad{Point<2>{2, 2}, Point<2>{6, 0}};
  const bool last = comm.rank() == comm.size() - 1;
  const auto before = s.local();
  expect_error([&] { s.add(last ? std::span<const Point<2>>(bad) : std::span<const Point<2>>()); }, "outside the parent");
  expect_error([&] { s.remove(last ? std::span<const Point<2>>(bad) : std::span<const Point<2>>()); }, "outside the parent");
  EXPECT_TRUE(s.local() == before);
  EXPECT_EQ(s.size(), 2);
  // A scatter naming an index not in the set changes no value.
  SparseImage<std::int64_t, 2> image{{Point<2>{1, 1}, Point<2>{2, 2}}, {7, 8}};
  expect_error([&] { a.scatter_from(0, image); }, "not in the sparse set");
  a.for_each([](const Point<2>&, const std::int64_t& v) { EXPECT_EQ(v, 5); });
  expect_error([&] { (void)a.gather_to(comm.size()); }, "root");
  // A flooded parent is refused.
  if (comm.size() > 1) {
    const auto flood = Distribution<2>(box, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}), {flooded(), block()});
    Domain<2> fd(comm, flood);
    expect_error([&] { SparseDomain<2> f(fd); }, "flooded");
    expect_error([&] { dom.redistribute(flood); }, "flooded");
    EXPECT_EQ(s.size(), 2);
  }
}

}  // namespace
}  // namespace tessera
