// Arrays over box sets (holes, islands, thin boxes, boxes smaller than the ghost width, empty
// ranks) against serial references built from geometry alone: ghost update and accumulate, every
// stored value checked; redistribution chains between box sets and ordinary distributions,
// preserving and destructive; gather, scatter, reductions and copy_section (with ordinary arrays and
// between two box sets); bad input an error on every rank with nothing changed. 1-D, 2-D and 3-D.
#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <map>
#include <string>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// True if `dist` stores point p (a box set stores only the points its boxes hold).
template <std::size_t N>
bool stores(const Distribution<N>& dist, const Point<N>& p) {
  const BoxSet<N>* set = dist.box_set();
  return set ? set->find(p).has_value() : contains(dist.domain(), p);
}

/// A random box set over `box` for `ranks` ranks: boxes of extent 1..max_extent (1 and 2 are thin
/// and smaller than most ghost widths), holes wherever no candidate fitted.
template <std::size_t N>
BoxSet<N> some_box_set(std::mt19937_64& rng, const Box<N>& box, int ranks) {
  const index_t max_extent = 1 + static_cast<index_t>(rng() % 5);
  return random_box_set<N>(rng, box, max_extent, 25, ranks);
}

/// Runs `check(comm, rng, k, box, set)` for `cases` random box sets over random domains (extents up
/// to max_extent), every rank drawing the same ones from `seed`.
template <std::size_t N, class Check>
void for_random_box_sets(std::uint64_t seed, int cases, index_t max_extent, Check&& check) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto set = some_box_set<N>(rng, box, comm.size());
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << set);
    check(comm, rng, k, box, set);
  }
}

template <std::size_t N>
void ghost_cases(int cases, index_t max_extent) {
  for_random_box_sets<N>(3000 + N, cases, max_extent, [](const Communicator& comm, std::mt19937_64& rng, int,
                                                         const Box<N>& box, const BoxSet<N>& set) {
    const auto g = random_ghosts<N>(rng);
    SCOPED_TRACE(::testing::Message() << g);
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    DistArray<double, N> a(dom, g);
    ASSERT_EQ(a.patch_count(), set.boxes_of(comm.rank()).size());
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    for (int round = 0; round < 2; ++round) {  // the second update runs the cached mover
      a.update_ghosts();
      for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
        double want = 0.0;  // ghosts over holes, and ghosts not asked for, keep their initial 0
        if (owned) {
          want = value_of(q);
        } else if (in_requested_ghost(patch.owned_box(), g, q)) {
          if (const auto w = wrap_point(box, g.periodic, q); w && set.find(*w)) want = value_of(*w);
        }
        ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], want) << "rank " << comm.rank() << " point " << q;
      });
    }
  });
}

TEST(BoxSetGhosts, UpdateFillsFromWhicheverBoxOwnsTheIndex1D) { ghost_cases<1>(40, 40); }
TEST(BoxSetGhosts, UpdateFillsFromWhicheverBoxOwnsTheIndex2D) { ghost_cases<2>(40, 14); }
TEST(BoxSetGhosts, UpdateFillsFromWhicheverBoxOwnsTheIndex3D) { ghost_cases<3>(25, 7); }

template <std::size_t N>
void accumulate_cases(int cases, index_t max_extent) {
  for_random_box_sets<N>(4000 + N, cases, max_extent, [](const Communicator& comm, std::mt19937_64& rng, int,
                                                         const Box<N>& box, const BoxSet<N>& set) {
    const auto g = random_ghosts<N>(rng);
    SCOPED_TRACE(::testing::Message() << g);
    // Serial reference: how many requested ghost cells of all boxes mirror each owned point.
    std::map<Point<N>, double> mirrored;
    for (std::size_t i = 0; i < set.size(); ++i)
      for_each_point(grow(set.box(i), g.lower, g.upper), [&](const Point<N>& q) {
        if (contains(set.box(i), q) || !in_requested_ghost(set.box(i), g, q)) return;
        if (const auto w = wrap_point(box, g.periodic, q); w && set.find(*w)) mirrored[*w] += 1;
      });
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    DistArray<double, N> a(dom, g);
    for_each_stored(a.layout(), [&](const PatchLayout<N>&, const Point<N>&, index_t offset, bool owned) {
      a.storage()[static_cast<std::size_t>(offset)] = owned ? 0.0 : 1.0;
    });
    a.accumulate_ghosts();
    a.for_each_owned([&](const Point<N>& p, double& x) {
      const auto it = mirrored.find(p);
      ASSERT_EQ(x, it == mirrored.end() ? 0.0 : it->second) << "rank " << comm.rank() << " point " << p;
    });
  });
}

TEST(BoxSetGhosts, AccumulateAddsEveryGhostIntoItsOwner1D) { accumulate_cases<1>(30, 40); }
TEST(BoxSetGhosts, AccumulateAddsEveryGhostIntoItsOwner2D) { accumulate_cases<2>(30, 12); }
TEST(BoxSetGhosts, AccumulateAddsEveryGhostIntoItsOwner3D) { accumulate_cases<3>(15, 6); }

/// Every owned element of `a` holds model[p] (the model lists exactly the stored points).
template <std::size_t N>
void expect_model(const DistArray<double, N>& a, const std::map<Point<N>, double>& model, const char* step) {
  a.for_each_owned([&](const Point<N>& p, const double& x) {
    const auto it = model.find(p);
    ASSERT_TRUE(it != model.end()) << step << ": rank " << a.domain().rank() << " stores " << p;
    ASSERT_EQ(x, it->second) << step << ": rank " << a.domain().rank() << " point " << p;
  });
}

template <std::size_t N>
void redistribution_chains(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(5000 + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    SCOPED_TRACE(::testing::Message() << "case " << k << " over " << box);
    const auto first = Distribution<N>::from_box_set(some_box_set<N>(rng, box, comm.size()));
    Domain<N> dom(comm, first);
    DistArray<double, N> a(dom, ghosts<N>(1)), b(dom);
    std::map<Point<N>, double> model;  // the values the stored points must hold
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    b.for_each_owned([](const Point<N>& p, double& x) { x = -value_of(p); });
    for_each_point(box, [&](const Point<N>& p) {
      if (stores(first, p)) model[p] = value_of(p);
    });
    // box set -> box set -> ordinary -> box set (by a policy) -> ordinary -> box set
    for (int step = 0; step < 5; ++step) {
      Distribution<N> to = first;
      if (step == 2 || step == 4) {
        to = random_distribution<N>(rng, box, comm.size(), true);
      } else if (step == 3) {
        auto boxes = chop_boxes(random_disjoint_boxes(rng, box, 4, 20), Point<N>::filled(2));
        const auto policy = k % 2 ? BoxAssignment::morton : BoxAssignment::knapsack;
        to = Distribution<N>::from_box_set(make_box_set(box, std::move(boxes), comm.size(), policy));
      } else {
        to = Distribution<N>::from_box_set(some_box_set<N>(rng, box, comm.size()));
      }
      SCOPED_TRACE(::testing::Message() << "step " << step << " to " << to);
      std::map<Point<N>, double> next;
      for_each_point(box, [&](const Point<N>& p) {
        if (!stores(to, p)) return;
        const auto it = model.find(p);
        next[p] = it == model.end() ? 0.0 : it->second;  // new points are value-initialised
      });
      dom.redistribute(to, Redistribution::preserve);
      model = std::move(next);
      expect_model(a, model, "a");
      std::map<Point<N>, double> negated;
      for (const auto& [p, v] : model) negated[p] = -v;
      expect_model(b, negated, "b");
    }
  }
}

TEST(BoxSetRedistribution, ChainsKeepEveryValueOnTheOverlap1D) { redistribution_chains<1>(12, 40); }
TEST(BoxSetRedistribution, ChainsKeepEveryValueOnTheOverlap2D) { redistribution_chains<2>(12, 12); }
TEST(BoxSetRedistribution, ChainsKeepEveryValueOnTheOverlap3D) { redistribution_chains<3>(8, 6); }

/// Destructive redistributions (ZPL's `<=#`) box set -> box set -> ordinary -> box set: afterwards
/// every array has the new distribution's shape (over a box set one patch per box of the rank, in
/// the set's order; each point the rank owns visited once, every stored point by one rank) and every
/// element it stores, ghosts included, is T{} (Domain::redistribute: "with destructive, all storage
/// is value-initialised"), whatever it held before.
template <std::size_t N>
void destructive_chains(int cases, index_t max_extent) {
  for_random_box_sets<N>(5500 + N, cases, max_extent, [](const Communicator& comm, std::mt19937_64& rng, int,
                                                         const Box<N>& box, const BoxSet<N>& set) {
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    DistArray<double, N> a(dom, ghosts<N>(1)), b(dom);
    for (int step = 0; step < 3; ++step) {
      const Distribution<N> to = step == 1 ? random_distribution<N>(rng, box, comm.size(), true)
                                           : Distribution<N>::from_box_set(some_box_set<N>(rng, box, comm.size()));
      SCOPED_TRACE(::testing::Message() << "step " << step << " to " << to);
      for (auto* x : {&a, &b}) std::fill(x->storage().begin(), x->storage().end(), 3.5);
      dom.redistribute(to, Redistribution::destructive);
      EXPECT_EQ(dom.distribution(), to);
      std::set<Point<N>> mine;  // what this rank must own, by brute force over the domain box
      index_t stored = 0;
      for_each_point(box, [&](const Point<N>& p) {
        if (!stores(to, p)) return;
        ++stored;
        if (to.owner(p) == comm.rank()) mine.insert(p);
      });
      for (auto* x : {&a, &b}) {
        [&] {  // this rank's checks: an ASSERT leaves them, not the collective calls below
          ASSERT_EQ(x->storage().size(), static_cast<std::size_t>(x->layout().size()));
          for (std::size_t e = 0; e < x->storage().size(); ++e) ASSERT_EQ(x->storage()[e], 0.0) << "element " << e;
          if (const BoxSet<N>* to_set = to.box_set()) {
            const auto boxes = to_set->boxes_of(comm.rank());
            ASSERT_EQ(x->patch_count(), boxes.size());
            for (std::size_t i = 0; i < boxes.size(); ++i)
              EXPECT_EQ(x->owned_box(i), to_set->box(boxes[i])) << "patch " << i;
          }
        }();
        std::set<Point<N>> visited;
        index_t visits = 0;
        x->for_each_owned([&](const Point<N>& p, const double&) { visited.insert(p), ++visits; });
        EXPECT_EQ(visits, static_cast<index_t>(visited.size())) << "a point visited twice";
        EXPECT_EQ(visited, mine);
        EXPECT_EQ(comm.sum(static_cast<double>(visits)), static_cast<double>(stored));
      }
    }
  });
}

TEST(BoxSetRedistribution, DestructiveLeavesTheNewShapeValueInitialised1D) { destructive_chains<1>(10, 40); }
TEST(BoxSetRedistribution, DestructiveLeavesTheNewShapeValueInitialised2D) { destructive_chains<2>(10, 12); }
TEST(BoxSetRedistribution, DestructiveLeavesTheNewShapeValueInitialised3D) { destructive_chains<3>(6, 6); }

template <std::size_t N>
void whole_array_cases(int cases, index_t max_extent) {
  for_random_box_sets<N>(6000 + N, cases, max_extent, [](const Communicator& comm, std::mt19937_64& rng, int k,
                                                         const Box<N>& box, const BoxSet<N>& set) {
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    DistArray<double, N> a(dom, ghosts<N>(1));
    const int root = k % comm.size();
    // Scatter a row-major image; every owned element takes its value.
    std::vector<double> image;
    if (comm.rank() == root) {
      for_each_point(box, [&](const Point<N>& p) { image.push_back(value_of(p)); });
    }
    a.scatter_from(root, image);
    a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    // Gather into an image that holds -1: the holes keep it.
    std::vector<double> out(comm.rank() == root ? static_cast<std::size_t>(volume(box)) : 0, -1.0);
    a.gather_to(root, out);
    if (comm.rank() == root) {
      std::size_t at = 0;
      for_each_point(box, [&](const Point<N>& p) {
        EXPECT_EQ(out[at++], set.find(p) ? value_of(p) : -1.0) << p;
      });
    }
    // Reductions over the owned cells only.
    double sum = 0, max = -1e300;
    index_t cells = 0;
    for (std::size_t i = 0; i < set.size(); ++i)
      for_each_point(set.box(i), [&](const Point<N>& p) { sum += value_of(p), max = std::max(max, value_of(p)), ++cells; });
    EXPECT_EQ(a.max(), cells ? max : a.max());
    EXPECT_NEAR(a.sum(), sum, 1e-9 * (1 + std::abs(sum)));
    // copy_section onto an ordinary array and back: cells no box holds are not copied.
    Domain<N> plain(comm, random_distribution<N>(rng, box, comm.size(), true));
    DistArray<double, N> c(plain);
    c.for_each_owned([](const Point<N>&, double& x) { x = 7.0; });
    Box<N> section;  // a non-empty random box inside the domain
    for (std::size_t d = 0; d < N; ++d) {
      section.lo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d)));
      section.hi[d] = section.lo[d] + 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(box.hi[d] - section.lo[d]));
    }
    copy_section(a, section, c, section.lo);
    c.for_each_owned([&](const Point<N>& p, const double& x) {
      ASSERT_EQ(x, contains(section, p) && set.find(p) ? value_of(p) : 7.0) << "copy to plain, " << p;
    });
    c.for_each_owned([](const Point<N>& p, double& x) { x = 2 * value_of(p); });
    copy_section(c, section, a, section.lo);
    a.for_each_owned([&](const Point<N>& p, const double& x) {
      ASSERT_EQ(x, (contains(section, p) ? 2 : 1) * value_of(p)) << "copy from plain, " << p;
    });
  });
}

TEST(BoxSetWholeArray, ScatterGatherAndReductions1D) { whole_array_cases<1>(20, 40); }
TEST(BoxSetWholeArray, ScatterGatherAndReductions2D) { whole_array_cases<2>(20, 12); }
TEST(BoxSetWholeArray, ScatterGatherAndReductions3D) { whole_array_cases<3>(10, 6); }

/// copy_section between arrays over two different random box sets of one domain box (holes on both
/// sides), the section placed anywhere in the destination, twice (the second through the kept
/// mover): a destination cell whose source index is a hole keeps its value, every other one in the
/// destination box gets its source's, cells outside it and ghosts are untouched, against a serial
/// image; the source is unchanged. Across the cases cells must land and cells over source holes
/// must be kept.
template <std::size_t N>
void box_set_to_box_set_sections(int cases, index_t max_extent) {
  double landed = 0, kept_over_holes = 0;  // this rank's, over every case
  index_t dropped = 0;  // held source cells whose destination is a hole (the same count on every rank)
  for_random_box_sets<N>(6500 + N, cases, max_extent, [&](const Communicator& comm, std::mt19937_64& rng, int,
                                                          const Box<N>& box, const BoxSet<N>& set) {
    const BoxSet<N> other = some_box_set<N>(rng, box, comm.size());
    SCOPED_TRACE(::testing::Message() << "onto " << other);
    Domain<N> from_dom(comm, Distribution<N>::from_box_set(set)), to_dom(comm, Distribution<N>::from_box_set(other));
    DistArray<double, N> a(from_dom), c(to_dom, ghosts<N>(1));
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    Box<N> section;  // a random non-empty box of the domain, and a random place for it there
    Point<N> dst_lo;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t e = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d)));
      const auto room = static_cast<std::uint64_t>(extent(box, d) - e + 1);
      section.lo[d] = box.lo[d] + static_cast<index_t>(rng() % room);
      section.hi[d] = section.lo[d] + e;
      dst_lo[d] = box.lo[d] + static_cast<index_t>(rng() % room);
    }
    const Box<N> dst_box = Box<N>::from_extents(dst_lo, extents(section));
    SCOPED_TRACE(::testing::Message() << section << " onto " << dst_box);
    for_each_point(section, [&](const Point<N>& p) {
      Point<N> q;
      for (std::size_t d = 0; d < N; ++d) q[d] = dst_lo[d] + p[d] - section.lo[d];
      dropped += set.find(p) && !other.find(q) ? 1 : 0;
    });
    for (int round = 0; round < 2; ++round) {
      std::fill(c.storage().begin(), c.storage().end(), kSentinel);
      c.for_each_owned([](const Point<N>& q, double& x) { x = -value_of(q); });
      copy_section(a, section, c, dst_lo);
      for_each_stored(c.layout(), [&](const PatchLayout<N>&, const Point<N>& q, index_t offset, bool owned) {
        double want = owned ? -value_of(q) : kSentinel;
        if (owned && contains(dst_box, q)) {
          Point<N> p;  // the source index of q
          for (std::size_t d = 0; d < N; ++d) p[d] = section.lo[d] + q[d] - dst_lo[d];
          if (set.find(p))
            want = value_of(p), landed += round == 0 ? 1 : 0;
          else
            kept_over_holes += round == 0 ? 1 : 0;
        }
        ASSERT_EQ(c.storage()[static_cast<std::size_t>(offset)], want)
            << "round " << round << ", rank " << comm.rank() << " point " << q << (owned ? "" : " (a ghost)");
      });
    }
    a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << "source changed at " << p; });
  });
  Communicator comm(MPI_COMM_WORLD);
  EXPECT_GT(comm.sum(landed), 0.0);
  EXPECT_GT(comm.sum(kept_over_holes), 0.0);
  EXPECT_GT(dropped, 0);
}

TEST(BoxSetCopySection, BetweenTwoBoxSetsHolesOnBothSides1D) { box_set_to_box_set_sections<1>(20, 40); }
TEST(BoxSetCopySection, BetweenTwoBoxSetsHolesOnBothSides2D) { box_set_to_box_set_sections<2>(20, 12); }
TEST(BoxSetCopySection, BetweenTwoBoxSetsHolesOnBothSides3D) { box_set_to_box_set_sections<3>(10, 6); }

/// The hash of the message of the Error `f` throws (0 if it throws none), gathered from every rank.
template <class F>
std::vector<std::uint64_t> error_on_every_rank(const Communicator& comm, F&& f) {
  std::uint64_t h = 0;
  try {
    f();
  } catch (const Error& e) {
    for (char c : std::string(e.what())) h = hash_combine(h, static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
    h = hash_combine(h, static_cast<std::uint64_t>(e.code()));
  }
  return comm.allgather(h);
}

TEST(BoxSetErrors, BadInputIsTheSameErrorOnEveryRankAndChangesNothing) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {10, 10});
  const BoxSet<2> set(box, {Box<2>({0, 0}, {5, 10}), Box<2>({5, 0}, {10, 4})}, {0, P - 1}, P);
  Domain<2> dom(comm, Distribution<2>::from_box_set(set));
  DistArray<double, 2> a(dom, ghosts<2>(2));
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const auto unchanged = [&] {
    EXPECT_EQ(dom.distribution(), Distribution<2>::from_box_set(set));
    a.for_each_owned([](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
  };
  const std::vector<std::function<void()>> bad{
      [&] { (void)BoxSet<2>(box, {Box<2>({0, 0}, {5, 5}), Box<2>({4, 4}, {6, 6})}, {0, 0}, P); },  // overlap
      [&] { (void)BoxSet<2>(box, {Box<2>({0, 0}, {5, 5}), Box<2>({8, 8}, {11, 9})}, {0, 0}, P); },  // outside
      [&] { (void)BoxSet<2>(box, {Box<2>({0, 0}, {5, 5})}, {P}, P); },                            // owner
      [&] { (void)BoxSet<2>(box, {Box<2>({0, 0}, {5, 5}), Box<2>({6, 6}, {6, 9})}, {0, 0}, P); },  // empty box
      [&] {  // a box set for another number of ranks
        dom.redistribute(Distribution<2>::from_box_set(BoxSet<2>(box, {Box<2>({0, 0}, {3, 3})}, {0}, P + 1)));
      },
  };
  for (std::size_t k = 0; k < bad.size(); ++k) {
    const auto hashes = error_on_every_rank(comm, bad[k]);
    EXPECT_NE(hashes[0], 0U) << "case " << k << " threw no Error";
    for (int r = 1; r < P; ++r) EXPECT_EQ(hashes[static_cast<std::size_t>(r)], hashes[0]) << "case " << k << ", rank " << r;
    unchanged();
  }
  // An index of a hole has no owner: the same out_of_range error everywhere, also when only rank
  // 0's index array points there; with every index valid, the index gather moves every value.
  DistArray<Point<2>, 2> index(dom);
  DistArray<double, 2> got(dom);
  index.for_each_owned([](const Point<2>& p, Point<2>& q) { q = Point<2>{p[1] % 5, p[0]}; });  // in box 0
  gather(a, index, got);
  got.for_each_owned([&](const Point<2>& p, const double& x) { ASSERT_EQ(x, value_of(Point<2>{p[1] % 5, p[0]})) << p; });
  if (comm.rank() == 0) index.at({0, 0}) = Point<2>{7, 7};
  for (const auto& f : std::vector<std::function<void()>>{[&] { (void)dom.distribution().owner({7, 7}); },
                                                          [&] { gather(a, index, got); }}) {
    const auto hashes = error_on_every_rank(comm, f);
    EXPECT_NE(hashes[0], 0U);
    for (int r = 1; r < P; ++r) EXPECT_EQ(hashes[static_cast<std::size_t>(r)], hashes[0]);
  }
  unchanged();
}

}  // namespace
}  // namespace tessera
