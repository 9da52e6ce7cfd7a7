// User-defined local layouts (layout/local_layout.hpp): arrays over user distributions that choose
// their ranks' storage order (Morton curve, column-major, padded, tiled, reversed) must give the
// same bits as the same operations over the default patch layout and as a serial reference:
// redistribution to and from built-in kinds, copies, index gathers, gather/scatter, reductions,
// and ghost updates and accumulations into ghost slabs (against a serial image). Every value is
// also checked at the offset the layout names, so the layout is really used.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "morton_distribution/morton_distribution.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using tessera_examples::MortonDistribution;
using tessera_examples::MortonStorage;

/// A test layout: the default patch numbering turned around (the last point first), so that no
/// run of a copy is contiguous in the order the engine enumerates it.
template <std::size_t N>
class ReversedLayout final : public UserDistribution<N> {
 public:
  explicit ReversedLayout(std::shared_ptr<const UserDistribution<N>> inner)
      : UserDistribution<N>(inner->domain(), inner->comm_size()), inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name() + " reversed"; }
  int owner(const Point<N>& p) const override { return inner_->owner(p); }
  BoxList<N> owned_boxes(int rank) const override { return inner_->owned_boxes(rank); }
  bool has_local_layout() const noexcept override { return true; }
  index_t local_offset(const Point<N>& p) const override {
    return volume(owned_boxes(owner(p))) - 1 - UserDistribution<N>::local_offset(p);
  }

 private:
  std::shared_ptr<const UserDistribution<N>> inner_;
};

/// A broken test layout: `shift` added to every offset (out of range), or every offset folded
/// modulo `fold` (two points at one offset).
template <std::size_t N>
class BrokenLayout final : public UserDistribution<N> {
 public:
  BrokenLayout(const Box<N>& domain, int ranks, index_t shift, index_t fold)
      : UserDistribution<N>(domain, ranks), inner_(domain, ranks), shift_(shift), fold_(fold) {}
  std::string name() const override { return "broken(" + inner_.name() + ")"; }
  int owner(const Point<N>& p) const override { return inner_.owner(p); }
  BoxList<N> owned_boxes(int rank) const override { return inner_.owned_boxes(rank); }
  bool has_local_layout() const noexcept override { return true; }
  index_t local_offset(const Point<N>& p) const override { return inner_.local_offset(p) % fold_ + shift_; }

 private:
  MortonDistribution<N> inner_;
  index_t shift_, fold_;
};

template <std::size_t N>
std::shared_ptr<const MortonDistribution<N>> morton_patches(const Box<N>& domain, int ranks) {
  return std::make_shared<const MortonDistribution<N>>(domain, ranks);
}

/// The user distributions with local layouts a case is run on, and their default-layout twin.
template <std::size_t N>
std::vector<Distribution<N>> laid_out_distributions(const Box<N>& domain, int ranks) {
  const auto plain = Distribution<N>::user(morton_patches(domain, ranks));
  return {Distribution<N>::user(std::make_shared<const MortonDistribution<N>>(domain, ranks, MortonStorage::curve)),
          with_local_order(plain, LocalOrder<N>::column_major()),
          with_local_order(plain, LocalOrder<N>::padded(4)),
          with_local_order(plain, LocalOrder<N>::tiled(3)),
          with_local_order(plain, LocalOrder<N>::row_major()),
          Distribution<N>::user(std::make_shared<const ReversedLayout<N>>(morton_patches(domain, ranks)))};
}

/// A value no two points share, exact in double.
template <std::size_t N>
double layout_value(const Point<N>& p) {
  double v = 0.25;
  for (std::size_t d = 0; d < N; ++d) v = v * 97.0 + static_cast<double>(p[d]) + 0.125 * static_cast<double>(d);
  return v;
}

/// Every owned element holds `expect(p)`, through for_each_owned, `at`, and the storage offset the
/// distribution names.
template <std::size_t N, class Expect>
void expect_layout_values(const DistArray<double, N>& a, Expect&& expect) {
  const Distribution<N>& dist = a.distribution();
  const auto storage = a.storage();
  if (a.ghosts().none()) {  // ghost slabs follow the owned storage
    EXPECT_EQ(static_cast<index_t>(storage.size()), dist.local_storage_size(a.domain().rank()));
  }
  a.for_each_owned([&](const Point<N>& p, const double& x) {
    ASSERT_EQ(x, expect(p)) << dist << " at " << p;
    ASSERT_EQ(a.at(p), x);
    if (dist.has_local_layout()) {
      ASSERT_EQ(storage[static_cast<std::size_t>(dist.local_offset(p))], x);
    }
  });
}

template <std::size_t N>
void fill_with_values(DistArray<double, N>& a) {
  a.for_each_owned([](const Point<N>& p, double& x) { x = layout_value(p); });
}

template <std::size_t N>
void redistribution_round_trips(std::uint64_t seed, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 3; ++k) {
    const Box<N> domain = testing::random_domain<N>(rng, max_extent);
    const auto laid_out = laid_out_distributions(domain, comm.size());
    for (std::size_t i = 0; i < laid_out.size(); ++i) {
      const auto built_in = testing::random_distribution<N>(rng, domain, comm.size(), false);
      std::ostringstream what;
      what << built_in << " <-> " << laid_out[i];
      SCOPED_TRACE(what.str());
      Domain<N> dom(comm, built_in);
      DistArray<double, N> a(dom);
      fill_with_values(a);
      dom.redistribute(laid_out[i]);  // built-in -> local layout
      expect_layout_values(a, layout_value<N>);
      dom.redistribute(laid_out[(i + 1) % laid_out.size()]);  // one local layout -> another
      expect_layout_values(a, layout_value<N>);
      dom.migrate(built_in);  // and back
      expect_layout_values(a, layout_value<N>);
    }
  }
}

TEST(LocalLayout, RedistributionToAndFromBuiltInKinds2D) { redistribution_round_trips<2>(1700, 13); }
TEST(LocalLayout, RedistributionToAndFromBuiltInKinds3D) { redistribution_round_trips<3>(1701, 6); }

TEST(LocalLayout, CopiesSectionsAndIndexGathersMatchTheDefaultLayout) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({-2, 1}, {11, 10});
  const Domain<2> blocks(comm, Distribution<2>(domain, ProcGrid<2>::automatic(comm, extents(domain)),
                                               {block_cyclic(2), block()}));
  DistArray<double, 2> source(blocks);
  fill_with_values(source);
  const Box<2> from({0, 2}, {5, 6});
  const Point<2> to{4, 5};
  const Box<2> onto = Box<2>::from_extents(to, extents(from));
  // What an array holds after the copy and the section copy below (the serial reference).
  const auto copied = [&](const Point<2>& p) { return layout_value<2>(contains(onto, p) ? p - to + from.lo : p); };
  const Box<2> turned({0, 0}, {extent(domain, 1), extent(domain, 0)});
  const auto laid_out = laid_out_distributions(domain, comm.size());
  const auto laid_out_turned = laid_out_distributions(turned, comm.size());
  for (std::size_t i = 0; i < laid_out.size(); ++i) {
    const auto& dist = laid_out[i];
    SCOPED_TRACE(detail::concat(dist));
    const Domain<2> dom(comm, dist);
    DistArray<double, 2> a(dom);
    copy(source, a);
    expect_layout_values(a, layout_value<2>);
    copy_section(source, from, a, to);
    expect_layout_values(a, copied);
    DistArray<double, 2> back(blocks);
    copy(a, back);
    expect_layout_values(back, copied);
    DistArray<double, 2> t{Domain<2>(comm, laid_out_turned[(i + 1) % laid_out.size()])};
    transpose(a, t, {1, 0});
    expect_layout_values(t, [&](const Point<2>& q) { return copied({domain.lo[0] + q[1], domain.lo[1] + q[0]}); });
    // An index gather reads through the layout's offsets: out(q) = a(index(q)), index a shuffle.
    DistArray<Point<2>, 2> index(dom);
    const auto shuffled = [&](const Point<2>& q) {
      return Point<2>{domain.lo[0] + (q[1] - domain.lo[1]) % extent(domain, 0), domain.hi[1] - 1 - (q[0] - domain.lo[0]) % extent(domain, 1)};
    };
    index.for_each_owned([&](const Point<2>& q, Point<2>& p) { p = shuffled(q); });
    DistArray<double, 2> out(dom);
    gather(a, index, out);
    expect_layout_values(out, [&](const Point<2>& q) { return copied(shuffled(q)); });
    // An index scatter writes through them: dst(mirror(q)) += a(q), mirror a bijection.
    const auto mirrored = [&](const Point<2>& q) { return domain.lo + domain.hi - Point<2>::filled(1) - q; };
    index.for_each_owned([&](const Point<2>& q, Point<2>& p) { p = mirrored(q); });
    DistArray<double, 2> sums(dom);
    copy(a, sums);
    scatter(a, index, sums, CombineOp::add);
    expect_layout_values(sums, [&](const Point<2>& p) { return copied(p) + copied(mirrored(p)); });
  }
}

TEST(LocalLayout, GatherScatterAndReductionsGiveTheDefaultLayoutsBits) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({0, 0}, {9, 14});
  std::vector<double> global(static_cast<std::size_t>(volume(domain)));
  std::mt19937_64 rng(1702);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& x : global) x = u(rng);  // sums whose rounding depends on the order of the fold
  const Domain<2> plain(comm, Distribution<2>::user(morton_patches(domain, comm.size())));
  DistArray<double, 2> reference(plain);
  reference.scatter_from(0, comm.rank() == 0 ? global : std::vector<double>{});
  const double sum = reference.sum(), smallest = reference.min();
  const auto largest = reference.max_loc();
  for (const auto& dist : laid_out_distributions(domain, comm.size())) {
    SCOPED_TRACE(detail::concat(dist));
    DistArray<double, 2> a{Domain<2>(comm, dist)};
    a.scatter_from(0, comm.rank() == 0 ? global : std::vector<double>{});
    expect_layout_values(a, [&](const Point<2>& p) { return global[static_cast<std::size_t>(offset_row_major(domain, p))]; });
    EXPECT_EQ(a.sum(), sum);  // same bits: every layout folds in for_each_owned order
    EXPECT_EQ(a.min(), smallest);
    EXPECT_EQ(a.max_loc().value, largest.value);
    EXPECT_EQ(a.max_loc().at, largest.at);
    const std::vector<double> back = a.gather_to(0);
    if (comm.rank() == 0) {
      EXPECT_EQ(back, global);
    }
    a.update_ghosts();  // no ghost layers: nothing to do, and no error
  }
}

/// Point p wrapped into `domain` along the periodic axes of `g`.
template <std::size_t N>
Point<N> wrapped(Point<N> p, const Box<N>& domain, const GhostSpec<N>& g) {
  for (std::size_t d = 0; d < N; ++d)
    if (g.periodic[d]) p[d] = domain.lo[d] + ((p[d] - domain.lo[d]) % extent(domain, d) + extent(domain, d)) % extent(domain, d);
  return p;
}

/// Whether some box of `dist` holds p (not a hole, not outside).
template <std::size_t N>
bool held(const Distribution<N>& dist, const Point<N>& p) {
  if (!contains(dist.domain(), p)) return false;
  for (int r = 0; r < dist.comm_size(); ++r)
    if (contains(dist.owned_boxes(r), p)) return true;
  return false;
}

/// Ghost layers under a local layout live in ghost slabs after the owned storage: after a ghost
/// update every ghost cell of every owned box, read at the offset the storage layout names for
/// that box (`custom_offset(q, box)`) and through `at`, holds its (periodically wrapped) owner's
/// value — or keeps 0 over a hole or outside a non-periodic side — against a serial image; ghost
/// offsets are distinct and past the owned storage. accumulate_ghosts then adds every ghost cell
/// (set to 1) into the element it mirrors: each owned element ends with the serial count of ghost
/// cells, on every rank's boxes, that mirror it. Finally the array moves to a built-in kind and
/// back with its values. Every local order, the Morton curve and a reversed layout; corners and
/// faces only, widths 1 and 2, periodic and not, a box set with a hole.
template <std::size_t N>
void ghosts_under_local_layouts(const std::vector<Distribution<N>>& dists, const std::vector<GhostSpec<N>>& specs) {
  Communicator comm(MPI_COMM_WORLD);
  for (const auto& dist : dists)
    for (const auto& g : specs) {
      SCOPED_TRACE(detail::concat(dist, " ghosts ", g));
      const Box<N> domain = dist.domain();
      Domain<N> dom(comm, dist);
      DistArray<double, N> a(dom, g);
      fill_with_values(a);
      a.update_ghosts();
      const StorageLayout<N>& layout = a.layout();
      ASSERT_TRUE(layout.custom());
      const auto storage = a.storage();
      const index_t owned_size = dist.local_storage_size(comm.rank());
      std::vector<index_t> ghost_offsets;
      const auto& boxes = layout.custom_boxes();
      for (std::size_t b = 0; b < boxes.size(); ++b) {
        if (boxes[b].empty()) continue;
        for (const auto& slab : detail::ghost_boxes(boxes[b], g))
          for_each_point(slab, [&](const Point<N>& q) {
            const index_t at = layout.custom_offset(q, static_cast<int>(b));
            ghost_offsets.push_back(at);
            const Point<N> from = wrapped(q, domain, g);
            const double want = held(dist, from) ? layout_value(from) : 0.0;
            ASSERT_EQ(storage[static_cast<std::size_t>(at)], want) << "ghost " << q << " of box " << boxes[b];
            ASSERT_EQ(a.at(q), want) << "at(" << q << ")";
          });
      }
      std::sort(ghost_offsets.begin(), ghost_offsets.end());
      EXPECT_EQ(std::adjacent_find(ghost_offsets.begin(), ghost_offsets.end()), ghost_offsets.end()) << "two ghosts share an offset";
      if (!ghost_offsets.empty()) {
        EXPECT_GE(ghost_offsets.front(), owned_size);
        EXPECT_LT(ghost_offsets.back(), static_cast<index_t>(storage.size()));
      }
      expect_layout_values(a, layout_value<N>);  // the update wrote no owned element

      // Accumulation: owned 0, every ghost cell 1; each owned element gets the ghosts mirroring it.
      a.for_each_owned([](const Point<N>&, double& x) { x = 0; });
      auto writable = a.storage();
      for (const index_t at : ghost_offsets) writable[static_cast<std::size_t>(at)] = 1;
      a.accumulate_ghosts(CombineOp::add);
      std::map<Point<N>, int> mirrors;  // serial: over every rank's boxes
      for (int r = 0; r < comm.size(); ++r)
        for (const auto& box : dist.owned_boxes(r))
          if (!box.empty())
            for (const auto& slab : detail::ghost_boxes(box, g))
              for_each_point(slab, [&](const Point<N>& q) {
                const Point<N> to = wrapped(q, domain, g);
                if (held(dist, to)) ++mirrors[to];
              });
      a.for_each_owned([&](const Point<N>& p, const double& x) {
        const auto it = mirrors.find(p);
        ASSERT_EQ(x, it == mirrors.end() ? 0.0 : it->second) << "accumulated at " << p;
      });

      // Off the layout and back, values kept; the ghosts fill again.
      fill_with_values(a);
      dom.redistribute(Distribution<N>::user(morton_patches(domain, comm.size())));
      const auto kept = [&](const Point<N>& p) { return held(dist, p) ? layout_value(p) : 0.0; };  // holes: T{}
      expect_layout_values(a, kept);
      dom.redistribute(dist);
      expect_layout_values(a, layout_value<N>);
      a.update_ghosts();
      for (std::size_t b = 0; b < boxes.size(); ++b)
        if (!boxes[b].empty())
          for (const auto& slab : detail::ghost_boxes(boxes[b], g))
            for_each_point(slab, [&](const Point<N>& q) {
              const Point<N> from = wrapped(q, domain, g);
              ASSERT_EQ(a.at(q), held(dist, from) ? layout_value(from) : 0.0) << "after the round trip, ghost " << q;
            });
    }
}

TEST(LocalLayout, GhostLayersLiveInSlabsAndFillFromEveryNeighbour2D) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({0, 0}, {9, 14});
  auto dists = laid_out_distributions(domain, comm.size());
  // A box set with a hole (cells of [3,6)x[5,9) in no box), boxes round robin, tiled 2 x 2.
  const std::vector<Box<2>> boxes = {Box<2>({0, 0}, {3, 14}), Box<2>({3, 0}, {6, 5}), Box<2>({3, 9}, {6, 14}),
                                     Box<2>({6, 0}, {9, 7}), Box<2>({6, 7}, {9, 14})};
  std::vector<int> owners;
  for (std::size_t b = 0; b < boxes.size(); ++b) owners.push_back(static_cast<int>(b) % comm.size());
  dists.push_back(with_local_order(Distribution<2>::from_box_set(BoxSet<2>(domain, boxes, owners, comm.size())),
                                   LocalOrder<2>::tiled(2)));
  ghosts_under_local_layouts<2>(dists, {ghosts<2>(1), ghosts<2>(2).periodic_along({true, true}),
                                        ghosts<2>(1).faces_only().periodic_along({false, true})});
}

TEST(LocalLayout, GhostLayersLiveInSlabsAndFillFromEveryNeighbour3D) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<3> domain({0, 0, 0}, {5, 6, 4});
  ghosts_under_local_layouts<3>(laid_out_distributions(domain, comm.size()),
                                {ghosts<3>(1).periodic_along({true, false, true}), ghosts<3>(1).faces_only()});
}

TEST(LocalLayout, StridedViewsAndBoundaryRulesAreRefusedOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({0, 0}, {8, 8});
  const Domain<2> dom(comm, laid_out_distributions(domain, comm.size()).front());
  DistArray<double, 2> a(dom, ghosts<2>(1));
  if (a.distribution().local_size(comm.rank()) > 0) {
    try {
      (void)a.local(0);
      ADD_FAILURE() << "a strided view of storage under a local layout was given";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("does not support a user-defined local layout"), std::string::npos)
          << e.what();
    }
  }
  // Boundary rules need strided patches: refused by the next ghost update, on every rank.
  a.set_boundary(BoundaryRules<double, 2>().along(0, boundary::reflect()));
  try {
    a.update_ghosts();
    ADD_FAILURE() << "boundary rules under a local layout were applied";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("local layout"), std::string::npos) << e.what();
  }
}

TEST(LocalLayout, BadLayoutsAreErrorsOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({0, 0}, {7, 6});
  const auto expect_refused = [&](index_t shift, index_t fold, const std::string& says) {
    const auto dist = Distribution<2>::user(std::make_shared<const BrokenLayout<2>>(domain, comm.size(), shift, fold));
    try {
      Domain<2> dom(comm, dist);
      ADD_FAILURE() << "the layout " << dist << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    // Redistributing onto it is refused as well, before anything moves.
    Domain<2> good(comm, Distribution<2>::user(morton_patches(domain, comm.size())));
    DistArray<double, 2> a(good);
    fill_with_values(a);
    EXPECT_THROW(good.redistribute(dist), Error);
    expect_layout_values(a, layout_value<2>);
  };
  expect_refused(1, volume(domain), "outside [0, ");  // the last point of each rank past the end
  expect_refused(0, 3, "at one offset");               // rank 0 owns more than 3 points on <= 5 ranks
}

}  // namespace
}  // namespace tessera
