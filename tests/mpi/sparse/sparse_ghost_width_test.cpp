// The width form of the sparse ghost update (SparseArray::update_ghosts(GhostSpec), all neighbours
// within a box or the face-only star of a width) and periodic wrap, against a serial reference (a
// std::map every rank keeps alike, neighbours enumerated by brute force), over every distribution
// kind in 1-3 D, box sets with holes, after value changes (cached plan) and after the parent moves;
// bad widths are an Error on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
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
using WidthReference = std::map<Point<N>, std::int64_t>;

// A value that tells points and rounds apart.
template <std::size_t N>
std::int64_t width_value(const Point<N>& p, int round) {
  std::int64_t v = round;
  for (std::size_t d = 0; d < N; ++d) v = v * 1013 + (p[d] + 50);
  return v;
}

// The neighbour offsets `spec` names, by brute force over the cube of the largest width: inside
// [-lower, upper], not zero, and (faces only) nonzero along one axis.
template <std::size_t N>
std::vector<Point<N>> brute_force_offsets(const GhostSpec<N>& spec) {
  index_t w = 0;
  for (std::size_t d = 0; d < N; ++d) w = std::max({w, spec.lower[d], spec.upper[d]});
  std::vector<Point<N>> out;
  index_t cube = 1;
  for (std::size_t d = 0; d < N; ++d) cube *= 2 * w + 1;
  for (index_t k = 0; k < cube; ++k) {
    Point<N> o;
    index_t rest = k, nonzero = 0;
    bool inside = true;
    for (std::size_t d = 0; d < N; ++d) {
      o[d] = rest % (2 * w + 1) - w;
      rest /= 2 * w + 1;
      inside = inside && o[d] >= -spec.lower[d] && o[d] <= spec.upper[d];
      nonzero += o[d] != 0 ? 1 : 0;
    }
    if (inside && nonzero > 0 && (spec.corners || nonzero == 1)) out.push_back(o);
  }
  return out;
}

// The index a read at `q` names: wrapped along periodic axes (by repeated steps, not the library's
// modulo), or nothing where it lies outside the box along another axis.
template <std::size_t N>
std::optional<Point<N>> reference_wrap(Point<N> q, const Box<N>& box, const Periodicity<N>& periodic) {
  for (std::size_t d = 0; d < N; ++d) {
    if (periodic[d]) {
      while (q[d] < box.lo[d]) q[d] += extent(box, d);
      while (q[d] >= box.hi[d]) q[d] -= extent(box, d);
    } else if (q[d] < box.lo[d] || q[d] >= box.hi[d]) {
      return std::nullopt;
    }
  }
  return q;
}

// After a ghost update with `spec`, every held p reads every neighbour p + o as the reference says.
template <std::size_t N>
void expect_neighbours(const SparseArray<std::int64_t, N>& a, const GhostSpec<N>& spec, const WidthReference<N>& ref,
                       const std::string& what) {
  const auto offsets = brute_force_offsets(spec);
  const Box<N> box = a.domain().distribution().domain();
  int wrong = 0;
  a.for_each([&](const Point<N>& p, const std::int64_t&) {
    for (const Point<N>& o : offsets) {
      const auto q = reference_wrap(p + o, box, spec.periodic);
      const auto it = q ? ref.find(*q) : ref.end();
      const std::int64_t* v = a.find(p + o);
      if (it == ref.end()) {
        if (v != nullptr && ++wrong < 5) ADD_FAILURE() << what << ": " << p << " + " << o << " is not in the set";
      } else if (v == nullptr || *v != it->second) {
        if (++wrong < 5) ADD_FAILURE() << what << ": " << p << " + " << o << " read wrong";
      }
    }
  });
  EXPECT_EQ(wrong, 0) << what;
}

// Random sparse sets over `dist`, each spec's ghost update twice (values changed between: the
// cached plan must move the new ones), then the same after the parent moves to `next`.
template <std::size_t N>
void check_widths(const Communicator& comm, const Distribution<N>& dist, const Distribution<N>& next,
                  const std::vector<GhostSpec<N>>& specs, std::uint64_t seed, const std::string& name) {
  std::mt19937_64 rng(seed);
  Domain<N> dom(comm, dist);
  SparseDomain<N> s(dom);
  SparseArray<std::int64_t, N> a(s);
  WidthReference<N> ref;
  const Box<N> box = dist.domain();
  const int count = static_cast<int>(volume(box) / 3 + 1);
  std::vector<Point<N>> mine;
  for (int k = 0; k < count; ++k) {
    Point<N> p;
    for (std::size_t d = 0; d < N; ++d) p[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d)));
    if (detail::owner_or_none(dist, p) < 0) continue;  // holes of a box set hold no index
    ref[p] = 0;
    if (k % comm.size() == comm.rank()) mine.push_back(p);
  }
  s.add(mine);
  const auto set_round = [&](int round) {
    a.for_each([&](const Point<N>& p, std::int64_t& v) { v = width_value(p, round); });
    for (auto& [p, v] : ref) v = width_value(p, round);
  };
  int round = 0;
  for (const GhostSpec<N>& spec : specs) {
    for (int twice = 0; twice < 2; ++twice) {
      set_round(++round);
      a.update_ghosts(spec);
      expect_neighbours(a, spec, ref, name + " " + detail::concat(spec) + " run " + std::to_string(twice));
    }
  }
  dom.redistribute(next);
  for (auto it = ref.begin(); it != ref.end();)
    it = detail::owner_or_none(next, it->first) < 0 ? ref.erase(it) : std::next(it);
  for (const GhostSpec<N>& spec : specs) {
    set_round(++round);
    a.update_ghosts(spec);
    expect_neighbours(a, spec, ref, name + " " + detail::concat(spec) + " after the parent moved");
  }
}

template <std::size_t N>
void check_width_kinds(const Box<N>& box, const std::vector<GhostSpec<N>>& specs, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  const auto named = named_distributions<N>(box, comm.size());
  for (std::size_t i = 0; i < named.size(); ++i)
    check_widths<N>(comm, named[i].second, random_distribution<N>(rng, box, comm.size(), false), specs, seed + i,
                    named[i].first);
}

TEST(SparseGhostWidth, EveryKindIn1D) {
  // Width 3 over an extent of 2 wraps more than once around; one side wider than the other.
  check_width_kinds<1>(Box<1>({-3}, {20}), {ghosts<1>(2), GhostSpec<1>::sides({1}, {3}).periodic_along({true})}, 21);
  Communicator comm(MPI_COMM_WORLD);
  check_widths<1>(comm, Distribution<1>(Box<1>({4}, {6}), ProcGrid<1>::automatic(comm.size(), {2}), {cyclic()}),
                  Distribution<1>(Box<1>({4}, {6}), ProcGrid<1>::automatic(comm.size(), {2}), {block()}),
                  {ghosts<1>(3).periodic_along({true})}, 5, "extent 2, width 3");
}

TEST(SparseGhostWidth, EveryKindIn2D) {
  check_width_kinds<2>(Box<2>({0, -2}, {9, 8}),
                       {ghosts<2>(1), ghosts<2>(2).faces_only(),
                        GhostSpec<2>::sides({1, 0}, {2, 1}).periodic_along({true, false}),
                        ghosts<2>(1).periodic_along({true, true}), no_ghosts<2>()},
                       22);
}

TEST(SparseGhostWidth, EveryKindIn3D) {
  check_width_kinds<3>(Box<3>({0, 0, 1}, {5, 4, 6}),
                       {ghosts<3>(1).periodic_along({false, true, true}), ghosts<3>(2).faces_only().periodic_along({true, false, true})},
                       23);
}

TEST(SparseGhostWidth, BoxSetWithHolesAndOffsetsWithWrap) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {10, 10});
  std::vector<Box<2>> boxes{Box<2>({0, 0}, {5, 10}), Box<2>({6, 0}, {10, 4}), Box<2>({6, 6}, {10, 10})};
  std::vector<int> owners{0, comm.size() > 1 ? 1 : 0, comm.size() - 1};
  const auto holes = Distribution<2>::from_box_set(BoxSet<2>(box, boxes, owners, comm.size()));
  check_widths<2>(comm, holes, named_distributions<2>(box, comm.size())[1].second,
                  {ghosts<2>(1).periodic_along({true, true}), ghosts<2>(2).faces_only()}, 24, "box set with holes");
  // The offsets form wraps too: a star read across both boundaries.
  Domain<2> dom(comm, named_distributions<2>(box, comm.size())[2].second);
  SparseDomain<2> s(dom);
  SparseArray<std::int64_t, 2> a(s);
  const std::vector<Point<2>> corners{Point<2>{0, 0}, Point<2>{9, 9}, Point<2>{0, 9}, Point<2>{9, 0}};
  s.add(comm.rank() == 0 ? std::span<const Point<2>>(corners) : std::span<const Point<2>>());
  a.for_each([](const Point<2>& p, std::int64_t& v) { v = width_value(p, 0); });
  const std::vector<Point<2>> star{{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
  a.update_ghosts(star, {true, true});
  a.for_each([&](const Point<2>& p, const std::int64_t&) {
    for (const Point<2>& o : star) {
      const auto q = *reference_wrap(p + o, box, {true, true});
      const std::int64_t* v = a.find(p + o);
      if (std::find(corners.begin(), corners.end(), q) == corners.end()) {
        EXPECT_EQ(v, nullptr) << p << " + " << o;
        continue;
      }
      ASSERT_NE(v, nullptr) << p << " + " << o;
      EXPECT_EQ(*v, width_value(q, 0)) << p << " + " << o;
    }
  });
  // Without the wrap, the same reads across the boundary find nothing.
  a.update_ghosts(star);
  a.for_each([&](const Point<2>& p, const std::int64_t&) {
    for (const Point<2>& o : star) {
      if (!reference_wrap(p + o, box, {false, false})) {
        EXPECT_EQ(a.find(p + o), nullptr) << p << " + " << o;
      }
    }
  });
}

TEST(SparseGhostWidth, BadWidthsAreAnErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {6, 6});
  Domain<2> dom(comm, named_distributions<2>(box, comm.size())[0].second);
  SparseDomain<2> s(dom);
  SparseArray<std::int64_t, 2> a(s);
  const std::vector<Point<2>> pts{Point<2>{1, 1}, Point<2>{1, 2}};
  s.add(comm.rank() == 0 ? std::span<const Point<2>>(pts) : std::span<const Point<2>>());
  a.for_each([](const Point<2>& p, std::int64_t& v) { v = width_value(p, 0); });
  a.update_ghosts(ghosts<2>(1));
  GhostSpec<2> negative = ghosts<2>(1);
  negative.upper[1] = -1;  // set by hand: GhostSpec::sides would refuse it already
  expect_error([&] { a.update_ghosts(negative); }, "negative width along dimension 1");
  expect_error([&] { (void)ghosts<2>(-1); }, "must be >= 0");
  expect_error([&] { a.update_ghosts(ghosts<2>(index_t{1} << 40)); }, "more than 2^20 neighbours");
  expect_error([&] { a.update_ghosts(std::span<const Point<2>>()); }, "at least one offset");
  // The last good update still stands.
  a.for_each([&](const Point<2>& p, const std::int64_t&) {
    const std::int64_t* v = a.find(p + Point<2>{0, p[1] == 1 ? 1 : -1});
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(*v, width_value(p + Point<2>{0, p[1] == 1 ? 1 : -1}, 0));
  });
}

}  // namespace
}  // namespace tessera
