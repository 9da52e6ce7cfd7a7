#pragma once
/// \file
/// `BoxSet<N>`: an irregular block structure — disjoint boxes that need not tile a rectangle
/// (L-shapes, holes, islands), each owned by one rank, several per rank, ranks with none (KeLP's
/// FloorPlan with its Map). Its `domain()` is a box holding all of them (their bounding box unless
/// given); indices of the domain that no box holds belong to nobody.
/// \code
///   // An L-shape of three boxes over 2 ranks: rank 0 owns two, rank 1 one; [4,8)x[4,8) is a hole.
///   tessera::BoxSet<2> set({tessera::Box<2>({0, 0}, {4, 4}), tessera::Box<2>({0, 4}, {4, 8}),
///                           tessera::Box<2>({4, 0}, {8, 4})},
///                          {0, 0, 1}, 2);
///   set.domain();                        // [0,8)x[0,8)
///   set.find({5, 1});                    // box 2
///   set.boxes_of(0);                     // {0, 1}
///   auto dist = tessera::Distribution<2>::from_box_set(set);   // every array operation accepts it
/// \endcode
/// Every query that plans use (`meeting`, `find`) goes through a `BoxIndex` (uniform bins), never a
/// scan of all boxes, so a rank's plans stay local and cheap with many boxes. Copies are cheap
/// (shared immutable state). Nothing here communicates: every rank builds the same set.
/// Assignment policies (knapsack, Morton order, chopping) are in layout/box_assignment.hpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"

namespace tessera {

/// Disjoint boxes with owner ranks (see the file comment).
template <std::size_t N>
  requires(N >= 1)
class BoxSet {
 public:
  /// An empty set over one rank.
  BoxSet() : BoxSet(std::vector<Box<N>>{}, std::vector<int>{}, 1) {}

  /// Boxes `boxes[i]` owned by `owners[i]` over ranks 0..comm_size-1, in a domain that is their
  /// bounding box. Throws `Error(invalid_argument)` naming the first offending box for an empty
  /// box, two boxes that overlap, an owner outside [0, comm_size), a size mismatch or
  /// comm_size < 1. Cost: O(n log n) plus the bins the boxes meet.
  BoxSet(std::vector<Box<N>> boxes, std::vector<int> owners, int comm_size)
      : state_(build(std::move(boxes), std::move(owners), comm_size, std::nullopt)) {}

  /// The same in a given `domain`. Throws also `Error(out_of_range)` for a box not inside it.
  BoxSet(const Box<N>& domain, std::vector<Box<N>> boxes, std::vector<int> owners, int comm_size)
      : state_(build(std::move(boxes), std::move(owners), comm_size, domain)) {}

  /// The box holding every box of the set (their bounding box unless given).
  [[nodiscard]] const Box<N>& domain() const noexcept { return state_->domain; }
  /// Ranks of the communicator the set is for.
  [[nodiscard]] int comm_size() const noexcept { return state_->comm_size; }
  /// Number of boxes.
  [[nodiscard]] std::size_t size() const noexcept { return state_->index.size(); }
  /// True if the set has no box.
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// The boxes, in the order given.
  [[nodiscard]] const std::vector<Box<N>>& boxes() const noexcept { return state_->index.boxes(); }
  /// Box i (i < size()), in the order given.
  [[nodiscard]] const Box<N>& box(std::size_t i) const noexcept { return state_->index.box(i); }
  /// The rank owning box i.
  [[nodiscard]] int owner(std::size_t i) const noexcept { return state_->owners[i]; }
  /// The owners, one per box.
  [[nodiscard]] const std::vector<int>& owners() const noexcept { return state_->owners; }
  /// The indices of the boxes `rank` owns, ascending (empty for a rank owning none or a rank
  /// outside the communicator).
  [[nodiscard]] std::span<const std::size_t> boxes_of(int rank) const noexcept {
    if (rank < 0 || rank >= state_->comm_size) return {};
    const auto r = static_cast<std::size_t>(rank);
    return std::span<const std::size_t>(state_->by_rank).subspan(state_->rank_start[r],
                                                                  state_->rank_start[r + 1] - state_->rank_start[r]);
  }
  /// The storage patch box i is on its owner: its position in `boxes_of(owner(i))` (an array over
  /// the set stores one patch per box of the rank, in that order).
  [[nodiscard]] int patch_of(std::size_t i) const noexcept {
    const auto mine = boxes_of(owner(i));
    return static_cast<int>(std::lower_bound(mine.begin(), mine.end(), i) - mine.begin());
  }
  /// The boxes `rank` owns, in `boxes_of` order.
  [[nodiscard]] BoxList<N> owned_boxes(int rank) const {
    BoxList<N> out;
    for (std::size_t i : boxes_of(rank)) out.push_back(box(i));
    return out;
  }
  /// Cells `rank` owns.
  [[nodiscard]] index_t cells_of(int rank) const {
    index_t n = 0;
    for (std::size_t i : boxes_of(rank)) n += volume(box(i));
    return n;
  }
  /// Cells of all boxes together.
  [[nodiscard]] index_t cells() const noexcept { return state_->cells; }

  /// Calls `f(i)` once for every box i that meets `query` (through the index, in no order).
  template <class F>
  void for_each_meeting(const Box<N>& query, F&& f) const {
    state_->index.for_each_meeting(query, std::forward<F>(f));
  }
  /// The indices of the boxes that meet `query`, ascending.
  [[nodiscard]] std::vector<std::size_t> meeting(const Box<N>& query) const { return state_->index.meeting(query); }
  /// The box holding `p`, or nothing (a hole, or outside the domain).
  [[nodiscard]] std::optional<std::size_t> find(const Point<N>& p) const { return state_->index.find(p); }

  /// Bytes of replicated metadata: boxes, owners, per-rank lists and the index.
  [[nodiscard]] std::size_t metadata_bytes() const noexcept {
    return sizeof(State) + size() * (sizeof(Box<N>) + sizeof(int) + sizeof(std::size_t)) +
           state_->rank_start.size() * sizeof(std::size_t) + state_->index.index_bytes();
  }

  /// Stable hash of domain, boxes, owners and comm_size (the same on every rank and run).
  [[nodiscard]] std::uint64_t hash() const noexcept { return state_->hash; }
  /// Same domain, communicator size, boxes in the same order and owners.
  friend bool operator==(const BoxSet& a, const BoxSet& b) noexcept {
    if (a.state_ == b.state_) return true;
    if (a.hash() != b.hash() || a.domain() != b.domain() || a.comm_size() != b.comm_size() || a.size() != b.size() ||
        a.owners() != b.owners())
      return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a.box(i) != b.box(i)) return false;
    return true;
  }
  /// `box_set(3 boxes, 48 cells in [0,8)x[0,8) over 2)`.
  friend std::ostream& operator<<(std::ostream& out, const BoxSet& s) {
    return out << "box_set(" << s.size() << " boxes, " << s.cells() << " cells in " << s.domain() << " over "
               << s.comm_size() << ")";
  }

 private:
  struct State {
    Box<N> domain;
    int comm_size = 1;
    std::vector<int> owners;
    std::vector<std::size_t> by_rank;     // box indices grouped by owner, ascending within a rank
    std::vector<std::size_t> rank_start;  // rank r's boxes are by_rank[rank_start[r] .. rank_start[r+1])
    BoxIndex<N> index;
    index_t cells = 0;
    std::uint64_t hash = 0;
  };

  static std::shared_ptr<const State> build(std::vector<Box<N>> boxes, std::vector<int> owners, int comm_size,
                                            const std::optional<Box<N>>& domain) {
    constexpr const char* where = "BoxSet";
    if (comm_size < 1) fail_argument(where, "comm_size", comm_size, "must be >= 1");
    if (owners.size() != boxes.size())
      fail_argument(where, "owners", detail::concat(owners.size(), " entries"),
                    detail::concat("must give one owner per box (", boxes.size(), " boxes)"));
    auto s = std::make_shared<State>();
    s->comm_size = comm_size;
    Box<N> bounds;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (boxes[i].empty())
        fail_argument(where, detail::concat("boxes[", i, "]"), boxes[i], "is empty (a box set holds no empty box)");
      if (owners[i] < 0 || owners[i] >= comm_size)
        fail_argument(where, detail::concat("owners[", i, "]"), owners[i],
                      detail::concat("is not a rank in [0, ", comm_size, ")"));
      if (domain && !contains(*domain, boxes[i]))
        fail(ErrorCode::out_of_range, where, ": boxes[", i, "] = ", boxes[i], " is not inside the domain ", *domain);
      bounds = i == 0 ? boxes[i] : bounding_box(bounds, boxes[i]);
      s->cells = checked_add(s->cells, volume(boxes[i]), "BoxSet cells");
    }
    s->domain = domain ? *domain : bounds;
    s->index = BoxIndex<N>(std::move(boxes));
    for (std::size_t i = 0; i < s->index.size(); ++i)
      for (std::size_t j : s->index.meeting(s->index.box(i)))
        if (j != i)
          fail_argument(where, detail::concat("boxes[", std::max(i, j), "]"), s->index.box(std::max(i, j)),
                        detail::concat("overlaps boxes[", std::min(i, j), "] = ", s->index.box(std::min(i, j)),
                                       " (the boxes of a set must be disjoint)"));
    s->rank_start.assign(static_cast<std::size_t>(comm_size) + 1, 0);
    for (int r : owners) ++s->rank_start[static_cast<std::size_t>(r) + 1];
    for (std::size_t r = 0; r < static_cast<std::size_t>(comm_size); ++r) s->rank_start[r + 1] += s->rank_start[r];
    s->by_rank.resize(owners.size());
    std::vector<std::size_t> fill(s->rank_start.begin(), s->rank_start.end() - 1);
    for (std::size_t i = 0; i < owners.size(); ++i) s->by_rank[fill[static_cast<std::size_t>(owners[i])]++] = i;
    s->owners = std::move(owners);
    std::uint64_t h = hash_combine(0xb0c5e7ULL, hash_value(s->domain));
    h = hash_combine(h, static_cast<std::uint64_t>(comm_size));
    for (std::size_t i = 0; i < s->index.size(); ++i)
      h = hash_combine(hash_combine(h, hash_value(s->index.box(i))), static_cast<std::uint64_t>(s->owners[i]));
    s->hash = h;
    return s;
  }

  std::shared_ptr<const State> state_;
};

}  // namespace tessera
