#pragma once
/// \file
/// `SparseDomain<N>`: a distributed sparse set of indices of a parent `Domain<N>` (Chapel's sparse
/// subdomains). Each rank keeps the indices it owns under the parent's distribution, sorted by
/// their offset in its local storage order (`SparseIndexSet`, layout/sparse_index_set.hpp), and
/// `SparseArray<T, N>`s over it keep one value per index, aligned with that order
/// (array/sparse_array.hpp). When the parent is redistributed or migrated, the indices and every
/// sparse array's values move with it, in the same collective step as the dense arrays.
/// \code
///   tessera::Domain<2> dom(world, tessera::Distribution<2>(box, grid, {tessera::block(), tessera::block()}));
///   tessera::SparseDomain<2> nz(dom);
///   nz.add(my_points);                     // collective: any rank may add any index of the box
///   tessera::SparseArray<double, 2> a(nz);
///   nz.remove(other_points);               // a follows: removed values vanish, kept ones stay
///   dom.redistribute(other_distribution);  // nz and a move with the parent, values kept
/// \endcode
/// Batched `add`, `remove` and `contains` are inspector–executor exchanges: every rank routes its
/// points to their owners in one all-to-all. Every distribution kind that gives each index one
/// owner works (block, cyclic, block-cyclic, cut, irregular, skeleton ranks, user-defined and box
/// sets, whose holes hold no index); flooded (replicated) parents are refused, since a sparse
/// index would have several owners that each must change alike.
///
/// A `SparseDomain` is a handle: copies share one state. It keeps its parent alive, and the
/// parent's communicator must outlive it. Sparse domains and arrays must be declared in the same
/// order on every rank.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tessera/array/domain.hpp"
#include "tessera/array/point_fetch.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/geometry/periodic.hpp"
#include "tessera/layout/sparse_index_set.hpp"
#include "tessera/plan/ghost_spec.hpp"

namespace tessera {

namespace detail {

/// The values of one sparse array, untyped: what a sparse domain reorders when its set changes.
/// Every `stage_*` builds the new values beside the current ones; `commit` swaps them in.
class SparseValues {
 public:
  virtual ~SparseValues() = default;
  [[nodiscard]] virtual std::size_t element_size() const noexcept = 0;
  /// New values of `new_size` elements: old position i goes to `moved[i]` (dropped where -1);
  /// the others are value-initialised.
  virtual void stage_remap(std::span<const index_t> moved, std::size_t new_size) = 0;
  /// New values of `new_size` elements: element k of `bytes` goes to `placement[k]`; the others are
  /// value-initialised. `bytes` empty: all value-initialised.
  virtual void stage_bytes(std::span<const std::byte> bytes, std::span<const std::size_t> placement,
                           std::size_t new_size) = 0;
  /// Appends the values at `positions`, as bytes, to `out`.
  virtual void pack(std::span<const std::size_t> positions, std::vector<std::byte>& out) const = 0;
  virtual void commit() noexcept = 0;
  virtual void discard() noexcept = 0;
  /// The set changed: cached ghost values and movers are stale.
  virtual void forget_ghosts() noexcept = 0;
};

/// The owner of `p` under `dist`, or -1 where it has none (outside the box, or in a box set's hole).
template <std::size_t N>
[[nodiscard]] int owner_or_none(const Distribution<N>& dist, const Point<N>& p) {
  if (!contains(dist.domain(), p)) return -1;
  if (dist.covers_domain()) return dist.owner(p);
  try {
    return dist.owner(p);
  } catch (const Error&) {
    return -1;
  }
}

/// `p` wrapped into `box` along the axes marked in `periodic` (the index a periodic ghost at `p`
/// reads: `box.lo + (p - box.lo) mod extent`); other axes, and empty axes, are left as they are.
template <std::size_t N>
[[nodiscard]] Point<N> wrap_point(Point<N> p, const Box<N>& box, const Periodicity<N>& periodic) noexcept {
  for (std::size_t d = 0; d < N; ++d) {
    const index_t length = box.hi[d] - box.lo[d];
    if (periodic[d] && length > 0) p[d] = box.lo[d] + floor_mod(p[d] - box.lo[d], length);
  }
  return p;
}

/// The stencil offsets a ghost spec names for a sparse ghost update: with corners, every offset of
/// the box [-lower, upper] but zero (all neighbours within that box, as the dense ghost shell); faces
/// only, the offsets along one axis (the star of that width, as dense face-only ghosts). The spec's
/// storage order does not matter here. Throws `Error(invalid_argument)` for a negative width, or for
/// more than 2^20 offsets (widths far beyond any stencil).
template <std::size_t N>
[[nodiscard]] std::vector<Point<N>> ghost_stencil_offsets(const char* where, const GhostSpec<N>& spec) {
  constexpr index_t limit = index_t{1} << 20;
  index_t count = 1;  // offsets named so far, zero included; at most limit, so no product overflows
  for (std::size_t d = 0; d < N; ++d) {
    if (spec.lower[d] < 0 || spec.upper[d] < 0)
      fail_argument(where, "ghosts", spec, detail::concat("has a negative width along dimension ", d));
    const index_t across = spec.lower[d] >= limit || spec.upper[d] >= limit ? limit + 1 : spec.lower[d] + spec.upper[d] + 1;
    count = spec.corners ? count * std::min(across, limit + 1) : count + across - 1;
    if (count > limit)
      fail_argument(where, "ghosts", spec, "names more than 2^20 neighbours of each index (widths beyond any stencil)");
  }
  std::vector<Point<N>> offsets;
  if (!spec.corners) {
    for (std::size_t d = 0; d < N; ++d)
      for (index_t k = -spec.lower[d]; k <= spec.upper[d]; ++k)
        if (k != 0) {
          Point<N> o{};
          o[d] = k;
          offsets.push_back(o);
        }
    return offsets;
  }
  Point<N> o = -spec.lower;
  for (;;) {
    if (o != Point<N>{}) offsets.push_back(o);
    std::size_t d = N;
    for (;;) {  // next offset, last dimension fastest
      if (d == 0) return offsets;
      --d;
      if (++o[d] <= spec.upper[d]) break;
      o[d] = -spec.lower[d];
    }
  }
}

/// `items` grouped by `owner[k]` (stable), with counts per rank, for `Communicator::alltoallv`.
template <class T>
void group_by_rank(std::span<const T> items, std::span<const int> owner, int ranks, std::vector<T>& grouped,
                   std::vector<int>& counts) {
  counts.assign(static_cast<std::size_t>(ranks), 0);
  for (const int r : owner) ++counts[static_cast<std::size_t>(r)];
  std::vector<std::size_t> next(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) next[static_cast<std::size_t>(r) + 1] = next[static_cast<std::size_t>(r)] + static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  grouped.resize(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) grouped[next[static_cast<std::size_t>(owner[k])]++] = items[k];
}

}  // namespace detail

/// A distributed sparse set of indices of a parent domain (see the file comment).
template <std::size_t N>
  requires(N >= 1)
class SparseDomain {
 public:
  /// An empty sparse subdomain of `parent`. Not collective, but declare it alike on every rank.
  /// Throws `Error(invalid_argument)` if the parent's distribution has a flooded axis.
  explicit SparseDomain(const Domain<N>& parent) : state_(std::make_shared<State>(parent)) {
    refuse_flooded("SparseDomain", parent.distribution());
    parent.attach_follower(state_.get());
  }
  /// Collective: a sparse subdomain of `parent` holding `indices` (this rank's share of them: see
  /// `add`).
  SparseDomain(const Domain<N>& parent, std::span<const Point<N>> indices) : SparseDomain(parent) { add(indices); }

  /// The parent domain.
  [[nodiscard]] const Domain<N>& parent() const noexcept { return state_->parent; }
  /// The parent's communicator.
  [[nodiscard]] const Communicator& comm() const noexcept { return state_->parent.comm(); }
  /// The parent's current distribution (which decides who owns each sparse index).
  [[nodiscard]] const Distribution<N>& distribution() const noexcept { return state_->parent.distribution(); }
  /// This rank's indices, sorted by local offset.
  [[nodiscard]] const SparseIndexSet<N>& local() const noexcept { return state_->set; }
  /// Number of indices this rank holds.
  [[nodiscard]] std::size_t local_size() const noexcept { return state_->set.size(); }
  /// This rank's indices, in local order.
  [[nodiscard]] std::span<const Point<N>> points() const noexcept { return state_->set.points(); }
  /// Collective: number of indices on all ranks.
  [[nodiscard]] index_t size() const {
    const auto checked = detail::check_collective(comm(), "SparseDomain::size");
    return comm().allreduce(static_cast<index_t>(local_size()), ReduceOp::sum);
  }
  /// Grows by one each time the set changes (add, remove, a move with the parent): cached ghost
  /// schedules of an older generation are stale.
  [[nodiscard]] std::uint64_t generation() const noexcept { return state_->generation; }
  /// True if both handles share one state.
  [[nodiscard]] bool same_as(const SparseDomain& other) const noexcept { return state_ == other.state_; }

  /// Local position of `p` if this rank holds it (owns it and it is in the set). Not collective.
  [[nodiscard]] std::optional<std::size_t> position(const Point<N>& p) const {
    const Distribution<N>& dist = distribution();
    if (detail::owner_or_none(dist, p) != comm().rank()) return std::nullopt;
    return state_->set.find(dist.local_offset(p));
  }

  /// Calls `f(point)` for each index this rank holds, in local order.
  template <class F>
  void for_each(F&& f) const {
    for (const Point<N>& p : state_->set.points()) f(p);
  }

  /// Collective: adds `indices` (this rank's batch: any indices of the parent's box, repeats and
  /// indices already present allowed); each goes to its owner in one exchange. Values of arrays
  /// over this domain stay with their indices; new indices get T{}.
  /// Throws on every rank, with nothing changed, `Error(out_of_range)` if some rank passed an index
  /// outside the parent's box or in a hole of its distribution (the lowest such rank's first
  /// one is named), and `Error(out_of_memory)` as `Communicator::alltoallv` does.
  void add(std::span<const Point<N>> indices) {
    constexpr const char* where = "SparseDomain::add";
    const auto checked = detail::check_collective(comm(), where);
    const std::vector<Point<N>> arrived = route(where, indices);
    const Distribution<N>& dist = distribution();
    change(where, [&](SparseIndexSet<N>& set) {
      std::vector<SparseEntry<N>> entries(arrived.size());
      for (std::size_t k = 0; k < arrived.size(); ++k) entries[k] = {dist.local_offset(arrived[k]), arrived[k]};
      return set.insert(std::move(entries));
    });
  }

  /// Collective: removes `indices` (this rank's batch; indices not in the set are ignored), with
  /// their values in every array over this domain. Throws as `add` does.
  void remove(std::span<const Point<N>> indices) {
    constexpr const char* where = "SparseDomain::remove";
    const auto checked = detail::check_collective(comm(), where);
    const std::vector<Point<N>> arrived = route(where, indices);
    const Distribution<N>& dist = distribution();
    change(where, [&](SparseIndexSet<N>& set) {
      std::vector<index_t> offsets(arrived.size());
      for (std::size_t k = 0; k < arrived.size(); ++k) offsets[k] = dist.local_offset(arrived[k]);
      return set.erase(std::move(offsets));
    });
  }

  /// Collective: for each of this rank's `indices`, 1 if the sparse set holds it, else 0 (two
  /// exchanges: the questions to the owners, the answers back). Indices outside the parent's box
  /// are answered 0.
  [[nodiscard]] std::vector<std::uint8_t> contains(std::span<const Point<N>> indices) const {
    const auto checked = detail::check_collective(comm(), "SparseDomain::contains");
    std::vector<std::uint8_t> answer(indices.size(), 0);
    std::vector<Point<N>> asked;
    std::vector<std::size_t> asked_at;
    std::vector<int> owners;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const int o = detail::owner_or_none(distribution(), indices[k]);
      if (o < 0) continue;
      asked.push_back(indices[k]);
      asked_at.push_back(k);
      owners.push_back(o);
    }
    std::vector<Point<N>> grouped;
    std::vector<std::size_t> grouped_at;
    std::vector<int> counts, received;
    detail::group_by_rank<Point<N>>(asked, owners, comm().size(), grouped, counts);
    detail::group_by_rank<std::size_t>(asked_at, owners, comm().size(), grouped_at, counts);
    const auto questions = comm().template alltoallv<Point<N>>(grouped, counts, &received);
    std::vector<std::uint8_t> held(questions.size());
    for (std::size_t k = 0; k < questions.size(); ++k) held[k] = position(questions[k]).has_value() ? 1 : 0;
    const auto replies = comm().template alltoallv<std::uint8_t>(held, received);
    for (std::size_t k = 0; k < replies.size(); ++k) answer[grouped_at[k]] = replies[k];
    return answer;
  }

  /// Collective: the points every rank must fetch for a stencil with `offsets` over this set, and
  /// the plan that fetches them (see `PointFetch`): for each held index p and offset o, p + o when
  /// another rank holds it. Along the axes marked in `periodic`, p + o wraps around the parent's box
  /// (`detail::wrap_point`), as a dense periodic ghost does; along the others a neighbour outside the
  /// box has no value. Kept until the set or the distribution changes, keyed by `offsets` and
  /// `periodic`, so a repeated ghost update costs no inspector. Throws `Error(invalid_argument)` for
  /// no offsets.
  [[nodiscard]] std::shared_ptr<const PointFetch<N>> stencil_fetch(std::span<const Point<N>> offsets,
                                                                   const Periodicity<N>& periodic = {}) const {
    constexpr const char* where = "SparseDomain::stencil_fetch";
    if (offsets.empty()) fail_argument(where, "offsets", 0, "must name at least one offset");
    FetchKey key{std::vector<Point<N>>(offsets.begin(), offsets.end()), periodic};
    auto& cache = state_->fetches;
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    const Distribution<N>& dist = distribution();
    const int rank = comm().rank();
    std::vector<Point<N>> needed;
    for (const Point<N>& p : state_->set.points())
      for (const Point<N>& o : offsets) {
        const Point<N> q = detail::wrap_point(p + o, dist.domain(), periodic);
        const int owner = detail::owner_or_none(dist, q);
        if (owner >= 0 && owner != rank) needed.push_back(q);
      }
    auto plan = std::make_shared<const PointFetch<N>>(comm(), dist, std::span<const Point<N>>(needed),
                                                      [&](const Point<N>& q) -> index_t {
                                                        const auto at = state_->set.find(dist.local_offset(q));
                                                        return at ? static_cast<index_t>(*at) : -1;
                                                      });
    cache.emplace(std::move(key), plan);
    return plan;
  }

 private:
  template <class T, std::size_t M>
    requires(M >= 1) && detail::Transferable<T>
  friend class SparseArray;

  // A stencil fetch's cache key: the offsets exactly (no hash that could collide) and the wrap.
  using FetchKey = std::pair<std::vector<Point<N>>, Periodicity<N>>;

  struct State final : detail::DomainFollower<N> {
    explicit State(const Domain<N>& p) : parent(p) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() override { parent.detach_follower(this); }

    void stage(const Distribution<N>& from, const Distribution<N>& to, Redistribution mode) override;
    void commit() noexcept override {
      set = std::move(*staged);
      staged.reset();
      for (auto* a : arrays) a->commit();
      changed();
    }
    void discard() noexcept override {
      staged.reset();
      for (auto* a : arrays) a->discard();
    }
    void changed() noexcept {
      ++generation;
      fetches.clear();
      for (auto* a : arrays) a->forget_ghosts();
    }

    Domain<N> parent;
    SparseIndexSet<N> set;
    std::optional<SparseIndexSet<N>> staged;
    std::uint64_t generation = 0;
    std::vector<detail::SparseValues*> arrays;  // in declaration order
    std::map<FetchKey, std::shared_ptr<const PointFetch<N>>> fetches;
  };

  static void refuse_flooded(const char* where, const Distribution<N>& dist) {
    if (dist.is_flooded())
      fail_argument(where, "distribution", dist,
                    "has a flooded axis: a sparse index would have several owners (use a distribution without "
                    "flooded axes)");
  }

  // This rank's `indices` sent to their owners in one exchange; returns what arrived here.
  // An index without owner is an Error on every rank before anything moves.
  std::vector<Point<N>> route(const char* where, std::span<const Point<N>> indices) const {
    const Distribution<N>& dist = distribution();
    std::vector<int> owners(indices.size());
    std::optional<Error> failed;
    detail::capture_failure(failed, comm(), where, indices.size_bytes(), "the routing of the indices", [&] {
      for (std::size_t k = 0; k < indices.size(); ++k) {
        owners[k] = detail::owner_or_none(dist, indices[k]);
        if (owners[k] < 0)
          fail(ErrorCode::out_of_range, where, ": index ", k, " of rank ", comm().rank(), ", ", indices[k],
               ", lies outside the parent domain ", dist.domain(),
               dist.covers_domain() ? "" : " or in a hole of its distribution");
      }
    });
    comm().agree(failed);
    std::vector<Point<N>> grouped;
    std::vector<int> counts;
    detail::group_by_rank<Point<N>>(indices, owners, comm().size(), grouped, counts);
    return comm().template alltoallv<Point<N>>(grouped, counts);
  }

  // Applies `edit` to a copy of the set and every array's values to match, agrees that every rank
  // could (allocations), then commits.
  template <class Edit>
  void change(const char* where, Edit&& edit) {
    State& s = *state_;
    std::optional<Error> failed;
    SparseIndexSet<N> next;
    detail::capture_failure(failed, comm(), where, 0, "the new sparse set and values", [&] {
      next = s.set;
      const std::vector<index_t> moved = edit(next);
      for (auto* a : s.arrays) a->stage_remap(moved, next.size());
    });
    try {
      comm().agree(failed);
    } catch (...) {
      for (auto* a : s.arrays) a->discard();
      throw;
    }
    s.set = std::move(next);
    for (auto* a : s.arrays) a->commit();
    s.changed();
  }

  std::shared_ptr<State> state_;
};

// Collective (the parent's redistribute or migrate calls it): every held index goes to its owner
// under `to` with every array's values, in one exchange per array; indices outside `to`'s box or
// in its holes are dropped. With `destructive` the indices move and the values start over as T{}.
template <std::size_t N>
  requires(N >= 1)
void SparseDomain<N>::State::stage(const Distribution<N>&, const Distribution<N>& to, Redistribution mode) {
  constexpr const char* where = "SparseDomain (following its parent)";
  refuse_flooded(where, to);
  const Communicator& comm = parent.comm();
  const auto pts = set.points();
  std::vector<int> owners(pts.size());
  std::vector<std::size_t> keep;
  std::vector<int> keep_owner;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const int o = detail::owner_or_none(to, pts[k]);
    if (o < 0) continue;
    keep.push_back(k);
    keep_owner.push_back(o);
  }
  std::vector<std::size_t> order;
  std::vector<int> counts, received;
  detail::group_by_rank<std::size_t>(keep, keep_owner, comm.size(), order, counts);
  std::vector<Point<N>> out(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) out[k] = pts[order[k]];
  const std::vector<Point<N>> in = comm.alltoallv<Point<N>>(out, counts, &received);
  // Where each arrived index lands in the new sorted set.
  std::vector<SparseEntry<N>> entries(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) entries[k] = {to.local_offset(in[k]), in[k]};
  SparseIndexSet<N> next = SparseIndexSet<N>::from_entries(entries);
  std::vector<std::size_t> placement(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) placement[k] = *next.find(entries[k].offset);
  // Every rank runs every exchange; a rank whose packing or staging fails (allocation) sends
  // nothing more and stages nothing, and the agreement at the end makes it every rank's Error.
  std::optional<Error> failed;
  try {
    for (detail::SparseValues* a : arrays) {
      if (mode == Redistribution::destructive) {
        detail::capture_failure(failed, comm, where, next.size() * a->element_size(), "the new sparse values",
                                [&] { a->stage_bytes({}, {}, next.size()); });
        continue;
      }
      const std::size_t es = a->element_size();
      std::vector<std::byte> bytes;
      std::vector<int> byte_counts(counts.size(), 0);
      detail::capture_failure(failed, comm, where, order.size() * es, "the sparse values to send", [&] {
        a->pack(order, bytes);
        for (std::size_t r = 0; r < counts.size(); ++r) byte_counts[r] = counts[r] * static_cast<int>(es);
      });
      if (failed) byte_counts.assign(counts.size(), 0), bytes.clear();
      const auto arrived = comm.alltoallv<std::byte>(bytes, byte_counts);
      if (!failed && arrived.size() == placement.size() * es)
        detail::capture_failure(failed, comm, where, next.size() * es, "the new sparse values",
                                [&] { a->stage_bytes(arrived, placement, next.size()); });
      else if (!failed)
        failed = Error(ErrorCode::out_of_memory, detail::concat(where, ": a peer could not send its sparse values"));
    }
    comm.agree(failed);
  } catch (...) {
    for (detail::SparseValues* a : arrays) a->discard();
    throw;
  }
  staged = std::move(next);
}

}  // namespace tessera
