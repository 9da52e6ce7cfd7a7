#pragma once
/// \file
/// `Distribution<N>`: which rank owns each index of a domain, and where it sits in that rank's
/// local storage (Chapel's Distribution, ZPL's distribution, D3-ARC's `d3_dist`).
///
/// A *dimensional* distribution is a processor grid plus one per-dimension distribution per axis:
/// the owner of point p is the grid position whose coordinate along axis d owns p[d]. The
/// *dimension order* (D3-ARC's `r`) says which axis is distributed first; it matters for
/// `general` axes, whose cuts are computed per slab of the axes before them (D3-ARC Fig. 6: the
/// rows are cut once, then each row slab gets its own column cuts, a tree of intervals). Every
/// other axis has one per-dimension distribution shared by all slabs, so replicated metadata is
/// O(sum of grid extents).
///
/// A *user-defined* distribution (`Distribution<N>::user`) wraps a `UserDistribution<N>`.
///
/// A *flooded* axis (`flooded()`, ZPL's `*`) is held whole by every coordinate of its grid axis:
/// the ranks that differ only in their flooded coordinates hold identical replicas
/// (`replicas(rank)`). Each rank's storage is its replica (`owned_sections`, `local_extents`);
/// `owner` and `pieces` name the canonical replica (coordinate 0 along every flooded axis),
/// `pieces_near(s, reader)` the reader's own replica, and `holders(s)` every replica. Movements
/// read from the reader's replica and write to every replica; reductions count the canonical one
/// (`is_primary`). Docs: docs/concepts.md, "Flooded axes".
///
/// Local storage of a dimensional distribution is one dense array per rank whose extent along d is
/// the number of indices its coordinate owns along d (compacted for cyclic kinds), row-major;
/// `local_offset` is the row-major offset in it. A user-defined distribution stores one patch per
/// owned box.
/// \code
///   auto grid = tessera::ProcGrid<2>::with_shape(6, {2, 3});
///   tessera::Distribution<2> dist(tessera::Box<2>({0, 0}, {6, 9}), grid,
///                                 {tessera::cut({0, 3, 6}), tessera::block()});
///   dist.owner({4, 7});          // rank 5: row coordinate 1, column coordinate 2
///   std::cout << dist;           // grid 2x3, [cut(0,3,6), block]
///   for (const auto& [section, rank] : dist.pieces(tessera::Box<2>({2, 2}, {4, 4}))) { ... }
/// \endcode
/// Copies are cheap (shared immutable state). Nothing here communicates: every rank computes the
/// same answers from the same replicated description.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/dim_distribution.hpp"
#include "tessera/layout/dim_spec.hpp"
#include "tessera/layout/proc_grid.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/box_set_distribution.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera {

/// Which rank owns each index of a domain, and where it is stored (see the file comment).
template <std::size_t N>
  requires(N >= 1)
class Distribution {
 public:
  /// D3-ARC's `r`: `order[0]` is the axis distributed first.
  using Order = std::array<int, N>;

  /// The identity order (0, 1, ..., N-1).
  [[nodiscard]] static constexpr Order natural_order() noexcept {
    Order o{};
    std::iota(o.begin(), o.end(), 0);
    return o;
  }

  /// A dimensional distribution of `domain` over `grid`, one spec per axis. `general` specs are
  /// refused here (they need weights: see `from_rank_weights`).
  Distribution(const Box<N>& domain, const ProcGrid<N>& grid, const std::array<DimSpec, N>& specs,
               const Order& order = natural_order())
      : state_(build(domain, grid, specs, order, nullptr)) {}

  /// D3-ARC's `d3_dist` with `D_GENERAL`: axes whose spec is `general()` get cuts in proportion to
  /// the summed weights of the ranks in each slab, slab by slab in the dimension order; the other
  /// axes are bound as usual. `rank_weights[l]` is the weight of the rank at logical position l.
  [[nodiscard]] static Distribution from_rank_weights(const Box<N>& domain, const ProcGrid<N>& grid,
                                                      const std::vector<double>& rank_weights,
                                                      const std::array<DimSpec, N>& specs,
                                                      const Order& order = natural_order()) {
    if (rank_weights.size() != static_cast<std::size_t>(grid.size()))
      fail_argument("Distribution::from_rank_weights", "rank_weights", rank_weights.size(),
                    detail::concat("entries given; the grid has ", grid.size(), " positions"));
    return Distribution(build(domain, grid, specs, order, &rank_weights));
  }

  /// Wraps a user-defined distribution.
  [[nodiscard]] static Distribution user(std::shared_ptr<const UserDistribution<N>> impl) {
    if (!impl) fail_argument("Distribution::user", "impl", "null", "must point to a distribution");
    auto s = std::make_shared<State>();
    s->domain = impl->domain();
    s->grid = ProcGrid<N>::with_shape(impl->comm_size(), shape_for_user(impl->comm_size()));
    s->order = natural_order();
    s->user = std::move(impl);
    s->hash = s->user->hash();
    return Distribution(std::move(s));
  }

  /// A box set (layout/box_set.hpp) as a distribution of its domain: one storage patch per box,
  /// indices no box holds owned by nobody (see layout/box_set_distribution.hpp).
  /// \code
  ///   auto dist = tessera::Distribution<2>::from_box_set(tessera::make_box_set(boxes, P, tessera::BoxAssignment::knapsack));
  ///   tessera::Domain<2> dom(comm, dist);   // arrays, ghosts, redistribution, gather: as any distribution
  /// \endcode
  [[nodiscard]] static Distribution from_box_set(const BoxSet<N>& set) {
    return user(std::make_shared<const BoxSetDistribution<N>>(set));
  }

  /// The index space distributed.
  [[nodiscard]] const Box<N>& domain() const noexcept { return state_->domain; }
  /// The processor grid. For a user-defined distribution: a grid of comm_size x 1 x ... positions
  /// in rank order, which only says how many ranks there are.
  [[nodiscard]] const ProcGrid<N>& grid() const noexcept { return state_->grid; }
  /// Ranks of the communicator the distribution is for (skeletons included).
  [[nodiscard]] int comm_size() const noexcept { return state_->grid.comm_size(); }
  /// The dimension order (D3-ARC's `r`).
  [[nodiscard]] const Order& order() const noexcept { return state_->order; }
  /// True for a distribution made by `user`.
  [[nodiscard]] bool is_user_defined() const noexcept { return state_->user != nullptr; }
  /// The user-defined distribution wrapped, or null.
  [[nodiscard]] const UserDistribution<N>* user_distribution() const noexcept { return state_->user.get(); }
  /// True if a user-defined distribution chooses its ranks' storage order itself
  /// (`UserDistribution::has_local_layout`, Chapel's LocalLayout): arrays over it store `p` at
  /// `local_offset(p)`, keep their ghost cells in slabs after the owned points
  /// (plan/storage_layout.hpp), and have no strided patches.
  [[nodiscard]] bool has_local_layout() const noexcept { return state_->user && state_->user->has_local_layout(); }
  /// Elements of `rank`'s local buffer: `local_size(rank)`, or more under a padded local layout.
  [[nodiscard]] index_t local_storage_size(int rank) const {
    if (!has_local_layout()) return local_size(rank);
    check_rank("Distribution::local_storage_size", rank);
    return state_->user->local_storage_size(rank);
  }
  /// The box set of a distribution made by `from_box_set`, or null.
  [[nodiscard]] const BoxSet<N>* box_set() const noexcept {
    const auto* b = dynamic_cast<const BoxSetDistribution<N>*>(state_->user.get());
    return b ? &b->box_set() : nullptr;
  }
  /// False if some indices of the domain have no owner (a box set with holes); such indices are
  /// stored nowhere and skipped by every movement.
  [[nodiscard]] bool covers_domain() const noexcept { return !state_->user || state_->user->covers_domain(); }

  /// True if every rank owns one box (every axis is block, cut, weights, general, collapsed or
  /// flooded): ghost layers can be kept along every axis.
  [[nodiscard]] bool owns_boxes() const noexcept {
    if (state_->user) return false;
    for (std::size_t d = 0; d < N; ++d)
      if (!state_->dims[d].front().owns_intervals()) return false;
    return true;
  }

  /// The per-dimension distribution of axis d in the slab of grid position `position` (the
  /// coordinates along the axes before d in the order select the slab; others are ignored).
  [[nodiscard]] const DimDistribution& dim(std::size_t d, const Point<N>& position = {}) const {
    require_dimensional("Distribution::dim");
    return state_->dims[d][slab_of(d, position)];
  }

  /// The rank that owns `p`. Throws `Error(out_of_range)` if p is outside the domain.
  [[nodiscard]] int owner(const Point<N>& p) const {
    check_in_domain("Distribution::owner", p);
    if (state_->user) return state_->user->owner(p);
    return state_->grid.rank_at(owner_position(p));
  }

  /// The grid position that owns `p` (dimensional distributions).
  [[nodiscard]] Point<N> owner_position(const Point<N>& p) const {
    require_dimensional("Distribution::owner_position");
    Point<N> c{};
    for (std::size_t k = 0; k < N; ++k) {
      const auto d = static_cast<std::size_t>(state_->order[k]);
      c[d] = state_->dims[d][slab_of(d, c)].owner(p[d]);
    }
    return c;
  }

  /// Position of `p` in its owner's local storage, in [0, local_storage_size(owner(p))) (which is
  /// `local_size` unless a user-defined local layout pads).
  [[nodiscard]] index_t local_offset(const Point<N>& p) const {
    check_in_domain("Distribution::local_offset", p);
    if (state_->user) return state_->user->local_offset(p);
    const Point<N> c = owner_position(p);
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const auto& dd = state_->dims[d][slab_of(d, c)];
      off = off * dd.local_count(static_cast<int>(c[d])) + dd.local_offset(p[d]);
    }
    return off;
  }

  /// How many of the `count` (>= 1) points p, p + e_axis, ... lie at consecutive offsets from
  /// local_offset(p), all owned by owner(p): a user-defined distribution's `local_run`, otherwise 1
  /// (always a correct answer). What plans compiled against a local layout ask per stretch of a row.
  /// Throws `Error(invalid_argument)` naming the distribution if it answers outside [1, count].
  [[nodiscard]] index_t local_run(const Point<N>& p, std::size_t axis, index_t count) const {
    if (!state_->user || count <= 1) return 1;
    const index_t n = state_->user->local_run(p, axis, count);
    if (n < 1 || n > count)
      fail_argument("Distribution::local_run", "distribution", *this,
                    detail::concat("answers ", n, " consecutive offsets from point ", p, " along axis ", axis,
                                   ", outside [1, ", count, "]"));
    return n;
  }

  /// The global point stored at `offset` in `rank`'s local storage (inverse of local_offset).
  [[nodiscard]] Point<N> global_point(int rank, index_t offset) const {
    require_dimensional("Distribution::global_point");
    const Point<N> c = position_or_fail("Distribution::global_point", rank);
    const Point<N> ext = local_extents(rank);
    Point<N> p{};
    for (std::size_t d = N; d-- > 0;) {
      p[d] = state_->dims[d][slab_of(d, c)].global_index(static_cast<int>(c[d]), offset % ext[d]);
      offset /= ext[d];
    }
    return p;
  }

  /// Extents of `rank`'s dense local storage (all zero for a skeleton rank). Dimensional only.
  [[nodiscard]] Point<N> local_extents(int rank) const {
    require_dimensional("Distribution::local_extents");
    check_rank("Distribution::local_extents", rank);
    const auto pos = state_->grid.position_of(rank);
    if (!pos) return Point<N>{};
    Point<N> e{};
    for (std::size_t d = 0; d < N; ++d)
      e[d] = state_->dims[d][slab_of(d, *pos)].local_count(static_cast<int>((*pos)[d]));
    return e;
  }

  /// Number of indices `rank` owns.
  [[nodiscard]] index_t local_size(int rank) const {
    if (state_->user) {
      check_rank("Distribution::local_size", rank);
      return volume(state_->user->owned_boxes(rank));
    }
    const Point<N> e = local_extents(rank);
    index_t v = 1;
    for (std::size_t d = 0; d < N; ++d) v = checked_mul(v, e[d], "Distribution::local_size");
    return v;
  }

  /// The indices `rank` owns, as disjoint N-d sections (the cartesian products of its per-axis
  /// sections; one box for box-owning distributions, none for a skeleton).
  [[nodiscard]] std::vector<Section<N>> owned_sections(int rank) const {
    check_rank("Distribution::owned_sections", rank);
    std::vector<Section<N>> out;
    if (state_->user) {
      for (const auto& b : state_->user->owned_boxes(rank)) out.push_back(Section<N>::from_box(b));
      return out;
    }
    const auto pos = state_->grid.position_of(rank);
    if (!pos) return out;
    std::array<SectionList1, N> per_dim;
    for (std::size_t d = 0; d < N; ++d) {
      per_dim[d] = state_->dims[d][slab_of(d, *pos)].owned(static_cast<int>((*pos)[d]));
      if (per_dim[d].empty()) return out;
    }
    Section<N> s;
    product(per_dim, 0, s, out);
    return out;
  }

  /// The box `rank` owns (D3-ARC's orthogonal region 0): requires `owns_boxes()`; empty for a rank
  /// that owns nothing.
  [[nodiscard]] Box<N> owned_box(int rank) const {
    if (!owns_boxes())
      fail_argument("Distribution::owned_box", "distribution", *this,
                    "does not give every rank one box (use owned_sections or owned_boxes)");
    const auto sections = owned_sections(rank);
    return sections.empty() ? Box<N>() : bounding_box(sections.front());
  }

  /// The indices `rank` owns as disjoint boxes. For cyclic axes this is one box per combination of
  /// runs, O(local size / block) boxes: prefer `owned_sections` there.
  [[nodiscard]] BoxList<N> owned_boxes(int rank) const {
    if (state_->user) {
      check_rank("Distribution::owned_boxes", rank);
      return state_->user->owned_boxes(rank);
    }
    BoxList<N> out;
    for (const auto& s : owned_sections(rank)) append_boxes(s, out);
    return out;
  }

  /// The (section, rank) pieces that cover `box ∩ domain()`, each inside one owned box (one
  /// storage patch) of its rank: for a dimensional distribution in O(pieces + N log g), visiting
  /// only the grid coordinates that own part of the box.
  [[nodiscard]] std::vector<DistPiece<N>> pieces(const Box<N>& box) const { return pieces(Section<N>::from_box(box)); }

  /// The pieces that cover the points of section `s` inside the domain.
  [[nodiscard]] std::vector<DistPiece<N>> pieces(const Section<N>& s) const {
    std::vector<DistPiece<N>> out;
    if (s.empty()) return out;
    if (state_->user) {
      // Every piece must lie in one owned box (one patch of storage), whatever the user's pieces()
      // returns: split each along its owner's boxes, unless the user promises it already does.
      const auto given = state_->user->pieces(intersect(bounding_box(s), state_->domain));
      if (state_->user->pieces_lie_in_owned_boxes()) {
        for (const auto& piece : given)
          for (const auto& part : intersect(piece.section, s)) out.push_back({part, piece.rank});
        return out;
      }
      std::map<int, BoxList<N>> boxes_of;
      for (const auto& piece : given) {
        auto it = boxes_of.find(piece.rank);
        if (it == boxes_of.end()) it = boxes_of.emplace(piece.rank, state_->user->owned_boxes(piece.rank)).first;
        for (const auto& part : intersect(piece.section, s))
          for (const auto& box : it->second)
            for (const auto& in_box : intersect(part, box)) out.push_back({in_box, piece.rank});
      }
      return out;
    }
    Point<N> c{};
    Section<N> acc;
    descend(s, 0, c, acc, out);
    return out;
  }

  // --- flooded axes: replicas ---------------------------------------------------------------------

  /// True if axis d is flooded (every coordinate of its grid axis holds all of it).
  [[nodiscard]] bool flooded(std::size_t d) const noexcept {
    return !state_->user && d < N && state_->dims[d].front().is_flooded();
  }
  /// True if some axis is flooded: ranks hold replicas.
  [[nodiscard]] bool is_flooded() const noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (flooded(d)) return true;
    return false;
  }
  /// The ranks holding the same replica as `rank` (its position with every flooded coordinate
  /// varied), ascending, `rank` included; just `rank` without flooded axes or for a skeleton.
  [[nodiscard]] std::vector<int> replicas(int rank) const {
    check_rank("Distribution::replicas", rank);
    const auto pos = is_flooded() ? state_->grid.position_of(rank) : std::nullopt;
    if (!pos) return {rank};
    std::vector<int> out;
    for_each_replica(*pos, [&](int r) { out.push_back(r); });
    std::sort(out.begin(), out.end());
    return out;
  }
  /// True if `rank` holds the canonical replica (coordinate 0 along every flooded axis), or owns
  /// nothing: what reductions count, so that replicated elements count once. True for every rank
  /// of a distribution without flooded axes.
  [[nodiscard]] bool is_primary(int rank) const {
    check_rank("Distribution::is_primary", rank);
    const auto pos = is_flooded() ? state_->grid.position_of(rank) : std::nullopt;
    if (!pos) return true;
    for (std::size_t d = 0; d < N; ++d)
      if (flooded(d) && (*pos)[d] != 0) return false;
    return true;
  }
  /// True if `reader` reads this distribution's elements from `holder`'s replica: holder's
  /// flooded coordinates are the reader's own (coordinate 0 for a reader outside the grid). True
  /// for every pair without flooded axes.
  [[nodiscard]] bool reads_from(int reader, int holder) const {
    if (!is_flooded()) return true;
    const auto pos = state_->grid.position_of(holder);
    if (!pos) return true;
    const Point<N> near = replica_position(reader);
    for (std::size_t d = 0; d < N; ++d)
      if (flooded(d) && (*pos)[d] != near[d]) return false;
    return true;
  }
  /// Like `pieces`, but along flooded axes each piece names the replica `reader` reads (its own
  /// coordinates; 0 for a reader outside the grid): where a movement into `reader` takes its data.
  [[nodiscard]] std::vector<DistPiece<N>> pieces_near(const Section<N>& s, int reader) const {
    if (!is_flooded()) return pieces(s);
    check_rank("Distribution::pieces_near", reader);
    std::vector<DistPiece<N>> out;
    if (s.empty()) return out;
    const Point<N> near = replica_position(reader);
    Point<N> c{};
    Section<N> acc;
    descend(s, 0, c, acc, out, &near);
    return out;
  }
  /// \copydoc pieces_near(const Section<N>&, int) const
  [[nodiscard]] std::vector<DistPiece<N>> pieces_near(const Box<N>& box, int reader) const {
    return pieces_near(Section<N>::from_box(box), reader);
  }
  /// The distinct ranks holding part of `s` in any replica, ascending: where a movement into an
  /// array over this distribution must write.
  [[nodiscard]] std::vector<int> holders(const Section<N>& s) const {
    std::vector<int> out;
    const bool flooded_somewhere = is_flooded();
    for (const auto& piece : pieces(s)) {
      const auto pos = flooded_somewhere ? state_->grid.position_of(piece.rank) : std::nullopt;
      if (!pos)
        out.push_back(piece.rank);
      else
        for_each_replica(*pos, [&](int r) { out.push_back(r); });
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // --- the cuts of interval axes (what incremental balancing moves) ------------------------------

  /// Number of slabs of axis d: the product of the grid extents of the axes before d in the order
  /// (D3-ARC's tree of intervals: each slab of the earlier axes cuts axis d its own way).
  [[nodiscard]] std::size_t slab_count(std::size_t d) const {
    require_dimensional("Distribution::slab_count");
    check_axis("Distribution::slab_count", d);
    return slab_count(state_->grid, state_->order, state_->position_in_order[d]);
  }
  /// The boundaries of interval axis d, one vector of g+1 entries per slab (`slab_count(d)` of
  /// them, in row-major order of the coordinates along the earlier axes); an axis cut alike in
  /// every slab repeats its one cut. Throws `Error(invalid_argument)` for an axis whose owned sets
  /// are not intervals (cyclic, block-cyclic, irregular).
  [[nodiscard]] std::vector<std::vector<index_t>> slab_cuts(std::size_t d) const {
    constexpr const char* where = "Distribution::slab_cuts";
    const std::size_t slabs = slab_count(d);
    const auto& dims = state_->dims[d];
    if (dims.front().is_flooded())
      fail_argument(where, "axis", d, "is flooded: every coordinate holds all of it, so it has no cuts");
    if (!dims.front().owns_intervals())
      fail_argument(where, "axis", d, detail::concat("is distributed ", to_string(dims.front().kind()), ": its owned sets are not intervals"));
    std::vector<std::vector<index_t>> out;
    out.reserve(slabs);
    for (std::size_t k = 0; k < slabs; ++k) out.push_back(dims[dims.size() == 1 ? 0 : k].boundaries());
    return out;
  }
  /// The same distribution with axis d cut at `cuts`: one vector of g+1 boundaries shared by every
  /// slab, or one per slab (`slab_count(d)` of them). Each keeps axis d's logical block. Throws
  /// `Error(invalid_argument)` for a wrong number of slabs or boundaries, boundaries that are not
  /// monotone, do not span the axis or do not lie on the logical block.
  [[nodiscard]] Distribution with_cuts(std::size_t d, std::vector<std::vector<index_t>> cuts) const {
    constexpr const char* where = "Distribution::with_cuts";
    const std::size_t slabs = slab_count(d);
    if (cuts.size() != 1 && cuts.size() != slabs)
      fail_argument(where, "cuts", cuts.size(), detail::concat("slabs given; axis ", d, " has ", slabs, " (or give 1)"));
    if (state_->dims[d].front().is_flooded())
      fail_argument(where, "axis", d, "is flooded: every coordinate holds all of it, so the grid cannot split it");
    if (is_flooded() && std::any_of(cuts.begin(), cuts.end(), [&](const auto& c) { return c != cuts.front(); }))
      fail_argument(where, "cuts", "one cut per slab",
                    "would make the replicas of a flooded distribution differ: give one cut for every slab");
    auto s = std::make_shared<State>(*state_);
    const index_t lb = state_->dims[d].front().logical_block();
    const auto g = static_cast<std::size_t>(state_->grid.extent(d));
    const std::string dim_where = detail::concat(where, " axis ", d);
    s->dims[d].clear();
    // Slabs cut alike are stored once, so that equal ownership gives equal distributions.
    if (std::all_of(cuts.begin(), cuts.end(), [&](const auto& c) { return c == cuts.front(); })) cuts.resize(1);
    for (auto& bounds : cuts) {
      if (bounds.size() != g + 1)
        fail_argument(dim_where, "boundaries", bounds.size(), detail::concat("entries given; the grid axis has ", g, " coordinates, so ", g + 1, " are needed"));
      if (bounds.front() != state_->domain.lo[d] || bounds.back() != state_->domain.hi[d])
        fail_argument(dim_where, "boundaries", detail::concat(bounds.front(), "..", bounds.back()),
                      detail::concat("must start at ", state_->domain.lo[d], " and end at ", state_->domain.hi[d]));
      s->dims[d].push_back(DimDistribution::bind_cut(cuts.size() == 1 ? DimKind::cut : DimKind::general,
                                                     std::move(bounds), lb, dim_where));
    }
    s->hash = hash_of(*s);
    return Distribution(std::move(s));
  }

  /// The same distribution over `grid`, a grid of the same shape that may hold other ranks or the
  /// same ranks in another order: every grid position owns what it owned before (same indices,
  /// same local storage), now on the rank `grid` places there. What rank relabeling builds its
  /// result with (`relabel_for_locality`, plan/relabel.hpp).
  /// \code
  ///   auto swapped = dist.with_grid(tessera::ProcGrid<2>::from_ranks(4, {2, 2}, {0, 2, 1, 3}));
  /// \endcode
  /// Throws `Error(invalid_argument)` for a user-defined distribution or a grid of another shape.
  [[nodiscard]] Distribution with_grid(const ProcGrid<N>& grid) const {
    constexpr const char* where = "Distribution::with_grid";
    require_dimensional(where);
    if (grid.shape() != state_->grid.shape())
      fail_argument(where, "grid", grid, detail::concat("has another shape than the distribution's ", state_->grid));
    auto s = std::make_shared<State>(*state_);
    s->grid = grid;
    s->hash = hash_of(*s);
    return Distribution(std::move(s));
  }

  /// Bytes of replicated metadata (boundaries, tables, grid tables): O(sum of grid extents) for
  /// dimensional distributions without `general` or `irregular` axes.
  [[nodiscard]] std::size_t metadata_bytes() const noexcept {
    std::size_t bytes = sizeof(State) + state_->grid.table_bytes();
    for (const auto& slabs : state_->dims)
      for (const auto& d : slabs) bytes += d.metadata_bytes();
    return bytes;
  }

  /// Same domain, grid, order and per-axis maps (or equal user distributions).
  friend bool operator==(const Distribution& a, const Distribution& b) {
    if (a.state_ == b.state_) return true;
    if (a.state_->hash != b.state_->hash || a.state_->domain != b.state_->domain) return false;
    if (a.state_->user || b.state_->user)
      return a.state_->user && b.state_->user && a.state_->user->equals(*b.state_->user);
    return a.state_->grid == b.state_->grid && a.state_->order == b.state_->order && a.state_->dims == b.state_->dims;
  }
  /// Stable hash (same value on every rank and run), consistent with ==.
  [[nodiscard]] std::uint64_t hash() const noexcept { return state_->hash; }

  /// `grid 2x3, [cut(0,3,6), block]`; per-slab axes as `{cut(..)|cut(..)}`; a non-natural order
  /// as `, order (1,0)`; a user-defined distribution by its name.
  friend std::ostream& operator<<(std::ostream& out, const Distribution& dist) {
    const State& s = *dist.state_;
    if (s.user) return out << s.user->name();
    out << s.grid << ", [";
    for (std::size_t d = 0; d < N; ++d) {
      out << (d ? ", " : "");
      if (s.dims[d].size() == 1) {
        out << s.dims[d].front();
      } else {
        out << '{';
        for (std::size_t k = 0; k < s.dims[d].size(); ++k) out << (k ? "|" : "") << s.dims[d][k];
        out << '}';
      }
    }
    out << ']';
    if (s.order != natural_order()) {
      out << ", order (";
      for (std::size_t k = 0; k < N; ++k) out << (k ? "," : "") << s.order[k];
      out << ')';
    }
    return out;
  }

 private:
  struct State {
    Box<N> domain;
    ProcGrid<N> grid;
    Order order{};
    std::array<std::vector<DimDistribution>, N> dims;  // one entry, or one per slab (general axes)
    std::array<std::size_t, N> position_in_order{};    // k such that order[k] == d
    std::shared_ptr<const UserDistribution<N>> user;
    std::uint64_t hash = 0;
  };

  explicit Distribution(std::shared_ptr<const State> s) : state_(std::move(s)) {}

  static Point<N> shape_for_user(int comm_size) {
    Point<N> shape = Point<N>::filled(1);
    shape[0] = comm_size;
    return shape;
  }

  static std::shared_ptr<const State> build(const Box<N>& domain, const ProcGrid<N>& grid,
                                            const std::array<DimSpec, N>& specs, const Order& order,
                                            const std::vector<double>* rank_weights) {
    constexpr const char* where = "Distribution";
    auto s = std::make_shared<State>();
    s->domain = domain;
    s->grid = grid;
    s->order = order;
    std::array<bool, N> seen{};
    for (std::size_t k = 0; k < N; ++k) {
      const int d = order[k];
      if (d < 0 || d >= static_cast<int>(N) || seen[static_cast<std::size_t>(d)])
        fail_argument(where, detail::concat("order[", k, "]"), d,
                      detail::concat("is out of range or repeated; the order must be a permutation of 0..", N - 1));
      seen[static_cast<std::size_t>(d)] = true;
      s->position_in_order[static_cast<std::size_t>(d)] = k;
    }
    for (std::size_t d = 0; d < N; ++d)
      if (domain.hi[d] < domain.lo[d])
        fail_argument(where, "domain", domain, detail::concat("has hi < lo along dimension ", d));
    const auto has = [&](DimKind k) {
      return std::any_of(specs.begin(), specs.end(), [k](const DimSpec& spec) { return spec.kind == k; });
    };
    // A general axis is cut per slab of the axes before it: along a flooded axis the slabs would be
    // replicas, and each would be cut its own way.
    if (has(DimKind::flooded) && has(DimKind::general))
      fail_argument(where, "specs", "flooded and general axes",
                    "cannot be combined: a general axis cuts each replica's slab differently");
    for (std::size_t k = 0; k < N; ++k) {
      const auto d = static_cast<std::size_t>(order[k]);
      const auto g = static_cast<int>(grid.extent(d));
      const std::string dim_where = detail::concat(where, " dimension ", d);
      if (specs[d].kind != DimKind::general) {
        s->dims[d].push_back(DimDistribution::bind(specs[d], domain.lo[d], domain.hi[d], g, dim_where));
        continue;
      }
      if (!rank_weights)
        fail_argument(dim_where, "spec", "general", "needs per-rank weights: use Distribution::from_rank_weights");
      // One cut per slab: the slab is fixed by the coordinates along the axes before d in the order.
      const std::size_t slabs = slab_count(grid, order, k);
      for (std::size_t slab = 0; slab < slabs; ++slab) {
        std::vector<double> w(static_cast<std::size_t>(g), 0.0);
        for (int l = 0; l < grid.size(); ++l) {
          const Point<N> pos = grid.position_at_logical(l);
          if (slab_key(grid, order, k, pos) == slab)
            w[static_cast<std::size_t>(pos[d])] += (*rank_weights)[static_cast<std::size_t>(l)];
        }
        auto bounds = DimDistribution::boundaries_from_weights(w, domain.lo[d], domain.hi[d], specs[d].logical_block,
                                                               detail::concat(dim_where, " slab ", slab));
        s->dims[d].push_back(
            DimDistribution::bind_cut(DimKind::general, std::move(bounds), specs[d].logical_block, dim_where));
      }
    }
    s->hash = hash_of(*s);
    return s;
  }

  static std::uint64_t hash_of(const State& s) noexcept {
    std::uint64_t h = hash_combine(hash_value(s.domain), s.grid.hash());
    for (std::size_t k = 0; k < N; ++k) h = hash_combine(h, static_cast<std::uint64_t>(s.order[k]));
    for (const auto& slabs : s.dims)
      for (const auto& d : slabs) h = hash_combine(h, d.hash());
    return h;
  }

  /// Number of slabs for the axis at order position k: the product of the grid extents before it.
  static std::size_t slab_count(const ProcGrid<N>& grid, const Order& order, std::size_t k) {
    std::size_t n = 1;
    for (std::size_t j = 0; j < k; ++j) n *= static_cast<std::size_t>(grid.extent(static_cast<std::size_t>(order[j])));
    return n;
  }
  /// Row-major key of the coordinates of `pos` along the axes before order position k.
  static std::size_t slab_key(const ProcGrid<N>& grid, const Order& order, std::size_t k, const Point<N>& pos) {
    std::size_t key = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const auto a = static_cast<std::size_t>(order[j]);
      key = key * static_cast<std::size_t>(grid.extent(a)) + static_cast<std::size_t>(pos[a]);
    }
    return key;
  }
  [[nodiscard]] std::size_t slab_of(std::size_t d, const Point<N>& pos) const noexcept {
    if (state_->dims[d].size() == 1) return 0;
    return slab_key(state_->grid, state_->order, state_->position_in_order[d], pos);
  }

  // Walks the axes in order; at each level only the coordinates owning part of s are visited.
  // With `near`, flooded axes take near's coordinate (a replica) instead of the canonical 0.
  void descend(const Section<N>& s, std::size_t k, Point<N>& c, Section<N>& acc, std::vector<DistPiece<N>>& out,
               const Point<N>* near = nullptr) const {
    if (k == N) {
      out.push_back({acc, state_->grid.rank_at(c)});
      return;
    }
    const auto d = static_cast<std::size_t>(state_->order[k]);
    std::vector<DimPiece> level;
    const DimDistribution& along = state_->dims[d][slab_of(d, c)];
    along.pieces(s.dim[d], level);
    for (const auto& piece : level) {
      c[d] = near && along.is_flooded() ? (*near)[d] : piece.coord;
      acc.dim[d] = piece.section;
      descend(s, k + 1, c, acc, out, near);
    }
  }

  // The coordinates of `reader`'s replica (its position; 0 along every axis if outside the grid).
  [[nodiscard]] Point<N> replica_position(int reader) const {
    check_rank("Distribution::replica_position", reader);
    const auto pos = state_->grid.position_of(reader);
    return pos ? *pos : Point<N>{};
  }

  // Calls f(rank) for every position that equals `pos` off the flooded axes.
  template <class F>
  void for_each_replica(const Point<N>& pos, F&& f) const {
    Box<N> around;
    for (std::size_t d = 0; d < N; ++d) {
      around.lo[d] = flooded(d) ? 0 : pos[d];
      around.hi[d] = flooded(d) ? state_->grid.extent(d) : pos[d] + 1;
    }
    for_each_point(around, [&](const Point<N>& q) { f(state_->grid.rank_at(q)); });
  }

  static void product(const std::array<SectionList1, N>& per_dim, std::size_t d, Section<N>& acc,
                      std::vector<Section<N>>& out) {
    if (d == N) {
      out.push_back(acc);
      return;
    }
    for (const auto& s : per_dim[d]) {
      acc.dim[d] = s;
      product(per_dim, d + 1, acc, out);
    }
  }

  static void append_boxes(const Section<N>& s, BoxList<N>& out) {
    // One box per combination of runs: enumerate the run starts of every dimension.
    std::array<std::vector<std::pair<index_t, index_t>>, N> runs;
    for (std::size_t d = 0; d < N; ++d)
      for_each_run(s.dim[d], [&](index_t first, index_t length) { runs[d].emplace_back(first, length); });
    std::array<std::size_t, N> at{};
    for (;;) {
      Box<N> b;
      for (std::size_t d = 0; d < N; ++d) {
        b.lo[d] = runs[d][at[d]].first;
        b.hi[d] = b.lo[d] + runs[d][at[d]].second;
      }
      out.push_back(b);
      std::size_t d = N;
      for (;;) {
        if (d == 0) return;
        --d;
        if (++at[d] < runs[d].size()) break;
        at[d] = 0;
      }
    }
  }

  void require_dimensional(const char* where) const {
    if (state_->user) fail_argument(where, "distribution", state_->user->name(), "is user-defined, not dimensional");
  }
  static void check_axis(const char* where, std::size_t d) {
    if (d >= N) fail_argument(where, "axis", d, detail::concat("is not in [0, ", N, ")"));
  }
  void check_in_domain(const char* where, const Point<N>& p) const {
    if (!contains(state_->domain, p))
      fail(ErrorCode::out_of_range, where, ": point ", p, " is outside the domain ", state_->domain);
  }
  void check_rank(const char* where, int rank) const {
    if (rank < 0 || rank >= state_->grid.comm_size())
      fail_argument(where, "rank", rank, detail::concat("is not in [0, ", state_->grid.comm_size(), ")"));
  }
  Point<N> position_or_fail(const char* where, int rank) const {
    check_rank(where, rank);
    const auto pos = state_->grid.position_of(rank);
    if (!pos) fail_argument(where, "rank", rank, "is a skeleton: it owns nothing");
    return *pos;
  }

  std::shared_ptr<const State> state_;
};

}  // namespace tessera
