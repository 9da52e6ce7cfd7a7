#pragma once
/// \file
/// Communication-aware rank relabeling (COSTA's `optimal_reordering`, for any N and any kind of
/// distribution): when a new distribution leaves free which rank holds which grid position — the
/// user asks for "a 2x2 grid, block" and does not care which rank gets which block — choose the
/// ranks so that the most indices keep their owner, and so the fewest bytes travel.
///
/// The **overlap matrix** `W[l][q]` is the number of indices that rank `q` owns under `from` and
/// grid position `l` owns under `to`. A relabeling puts a distinct rank `σ(l)` at every position;
/// the indices that stay where they are number `Σ_l W[l][σ(l)]`, which `relabel_for_locality`
/// maximises: a maximum-weight assignment. The matrix is computed from the two replicated
/// descriptions, without communication, in O(pieces) (every owned section of `from` cut by `to`'s
/// pieces, never element by element), and the assignment is deterministic, so every rank computes
/// the same relabeling (ties: see `assign_positions`).
/// \code
///   // Going from 2 active ranks of 4 back to all 4, block rows: the ranks that hold data keep
///   // their half of it, instead of rank 1 handing all its rows to ranks 2 and 3.
///   const auto target = tessera::Distribution<2>(box, tessera::ProcGrid<2>::with_shape(4, {4, 1}),
///                                                {tessera::block(), tessera::block()});
///   dom.redistribute(tessera::relabel_for_locality(dom.distribution(), target));
///   const auto change = tessera::ownership_change(dom.distribution(), target);  // what would move
/// \endcode
/// Relabeling keeps the geometry of every position: with `general` or weighted axes whose weights
/// are meant for particular ranks (measured speeds), a relabeled distribution gives a position's
/// share to another rank; relabel only distributions whose positions are interchangeable.
///
/// The layer is pure: no MPI, the same answer on every rank.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/proc_grid.hpp"

namespace tessera {

/// One nonzero entry of the overlap matrix: `volume` indices that `rank` owns under the source
/// distribution and grid position `position` (row-major, logical) owns under the target.
struct RelabelOverlap {
  int position = 0;
  int rank = 0;
  index_t volume = 0;
  friend bool operator==(const RelabelOverlap&, const RelabelOverlap&) = default;
};

/// Which ranks a relabeling may put on the target's grid positions.
enum class RelabelScope {
  active_ranks,  ///< only the target's own active ranks, permuted (the set of ranks stays the user's)
  any_rank,      ///< any ranks of the communicator: also chooses which ranks are active (a grid of
                 ///< fewer positions than ranks goes to the ranks that hold most of its data)
};

/// How the assignment is solved.
enum class RelabelMethod {
  automatic,  ///< `exact` up to `relabel_exact_limit` candidate ranks, `greedy` above
  exact,      ///< maximum-weight assignment (Hungarian method, O(positions² x candidates))
  greedy,     ///< heaviest overlap first (as COSTA for large P), O(E log E) for E nonzero overlaps
};

/// The number of candidate ranks up to which `automatic` solves exactly. The exact method keeps a
/// dense positions x candidates cost matrix (8 MiB at 1024 x 1024) and takes O(P³) time, on every
/// rank: 0.13 s at P = 1024 and 0.65 s at P = 2048 on the 2-core development machine (a random
/// matrix, where it runs longest). Above, the greedy matching (COSTA's choice for large P) takes
/// O(E log E) for E nonzero overlaps, which is O(P) for most pairs of distributions (each source
/// block meets a few target blocks): under a millisecond at P = 2048. It is optimal when every rank
/// has one dominant target position, and kept 94-99% of the optimum on random matrices.
inline constexpr int relabel_exact_limit = 1024;

/// Options of `relabel_for_locality`.
struct RelabelOptions {
  RelabelScope scope = RelabelScope::active_ranks;
  RelabelMethod method = RelabelMethod::automatic;
};

/// How many indices keep their owner between two distributions, and how many change it.
struct OwnershipChange {
  index_t staying = 0;  ///< indices owned by the same rank before and after
  index_t moving = 0;   ///< indices whose owner changes (what a redistribution sends between ranks)

  /// Bytes that travel between ranks, for `bytes_per_element` bytes per index (every array of a
  /// domain together: `Domain::bytes_per_element()`).
  [[nodiscard]] std::uint64_t bytes_moving(std::size_t bytes_per_element) const noexcept {
    return static_cast<std::uint64_t>(moving) * bytes_per_element;
  }
  friend bool operator==(const OwnershipChange&, const OwnershipChange&) = default;
};

/// The core of relabeling: a distinct rank among `candidates` for every one of `positions`
/// positions, maximising the total `volume` of the `overlaps` whose (position, rank) is chosen.
/// `overlaps` may come in any order; entries for the same (position, rank) add up; entries whose
/// rank is not a candidate are ignored. `preferred[l]` is the rank the target put at position l:
/// among assignments of equal volume, the one that keeps the most positions on their preferred
/// rank wins, so a target that is already optimal comes back unchanged (the identity when
/// `from == to`); remaining ties are broken by the lowest position and rank numbers, so the answer
/// depends only on the arguments and is the same on every rank. With `greedy`, the result is
/// never worse than `preferred` itself (if the greedy matching keeps less, `preferred` is returned).
/// Returns the ranks in logical order (`positions` entries).
/// Throws `Error(invalid_argument)` if `candidates` has repeated or negative ranks, fewer ranks
/// than `positions`, `preferred` has another size than `positions` or a rank that is not a
/// candidate, or an overlap names a position outside `[0, positions)` or has a negative volume.
[[nodiscard]] std::vector<int> assign_positions(int positions, const std::vector<int>& candidates,
                                                const std::vector<int>& preferred,
                                                const std::vector<RelabelOverlap>& overlaps,
                                                RelabelMethod method = RelabelMethod::automatic);

/// Total volume of `overlaps` whose rank is the one `ranks` puts at their position (`ranks[l]`:
/// the rank at logical position l), i.e. the indices that stay put under that assignment.
[[nodiscard]] index_t assigned_volume(const std::vector<int>& ranks, const std::vector<RelabelOverlap>& overlaps);

namespace detail {

/// `to_domain` and `to_comm_size` are the target's (a distribution or a box set).
template <std::size_t N>
void check_relabel_target(const char* where, const Distribution<N>& from, const Box<N>& to_domain, int to_comm_size) {
  if (from.domain() != to_domain)
    fail_argument(where, "to", to_domain,
                  concat("covers another domain than the source distribution's ", from.domain(),
                         " (relabeling compares owners index by index: the boxes must be equal)"));
  if (from.comm_size() != to_comm_size)
    fail_argument(where, "to", to_comm_size,
                  concat("ranks in the target, but the source distribution is for ", from.comm_size()));
}

template <std::size_t N>
void check_relabel_pair(const char* where, const Distribution<N>& from, const Distribution<N>& to) {
  check_relabel_target(where, from, to.domain(), to.comm_size());
}

/// Sorts `overlaps` by (position, rank) and merges the entries of one (position, rank) into one,
/// adding their volumes.
void sort_and_merge(std::vector<RelabelOverlap>& overlaps);

/// The ranks a relabeling may choose from: the target's own `active` ranks, ascending, or with
/// `RelabelScope::any_rank` every rank of the communicator. Throws for a scope that is not one.
inline std::vector<int> relabel_candidates(const char* where, const RelabelOptions& options, std::vector<int> active,
                                           int comm_size) {
  if (options.scope == RelabelScope::active_ranks) {
    std::sort(active.begin(), active.end());
    return active;
  }
  if (options.scope != RelabelScope::any_rank)
    fail_argument(where, "options.scope", static_cast<int>(options.scope), "is not a tessera::RelabelScope");
  std::vector<int> all(static_cast<std::size_t>(comm_size));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

/// Calls `f(rank_from, piece)` for every piece of `to` inside what `rank_from` owns under `from`.
template <std::size_t N, class F>
void for_each_overlap_piece(const Distribution<N>& from, const Distribution<N>& to, F&& f) {
  for (int q = 0; q < from.comm_size(); ++q)
    for (const auto& s : from.owned_sections(q))
      for (const auto& piece : to.pieces(s)) f(q, piece);
}

}  // namespace detail

/// The overlap matrix of `from` and `to` (see the file comment): its nonzero entries, sorted by
/// position then rank, each (position, rank) once. Positions are `to`'s grid positions (row-major),
/// ranks are `from`'s owners. No communication.
/// Throws `Error(invalid_argument)` if the distributions cover different boxes or are for
/// different numbers of ranks, or if `to` is user-defined (it has no grid positions to relabel).
template <std::size_t N>
[[nodiscard]] std::vector<RelabelOverlap> overlap_matrix(const Distribution<N>& from, const Distribution<N>& to) {
  constexpr const char* where = "overlap_matrix";
  detail::check_relabel_pair(where, from, to);
  if (to.is_user_defined())
    fail_argument(where, "to", to, "is user-defined: its owners are not grid positions that could be relabeled");
  std::vector<RelabelOverlap> out;
  const ProcGrid<N>& grid = to.grid();
  detail::for_each_overlap_piece(from, to, [&](int q, const DistPiece<N>& piece) {
    out.push_back({*grid.logical_of(piece.rank), q, volume(piece.section)});
  });
  // A source section may meet a position in several pieces: one entry per (position, rank).
  detail::sort_and_merge(out);
  return out;
}

/// How many indices keep their owner and how many change it when going from `from` to `to` (any
/// distributions, user-defined included, over the same box and number of ranks); multiply by the
/// bytes per element for bytes (`OwnershipChange::bytes_moving`). `moving` is what a preserving
/// `Domain::redistribute` or `migrate` sends between ranks. No communication; O(pieces).
/// Throws `Error(invalid_argument)` if the distributions cover different boxes or are for
/// different numbers of ranks.
template <std::size_t N>
[[nodiscard]] OwnershipChange ownership_change(const Distribution<N>& from, const Distribution<N>& to) {
  detail::check_relabel_pair("ownership_change", from, to);
  OwnershipChange out;
  detail::for_each_overlap_piece(from, to, [&](int q, const DistPiece<N>& piece) {
    (piece.rank == q ? out.staying : out.moving) += volume(piece.section);
  });
  return out;
}

template <std::size_t N>
[[nodiscard]] BoxSet<N> relabel_for_locality(const Distribution<N>& from, const BoxSet<N>& to,
                                             const RelabelOptions& options = {});

/// `to` with its grid's ranks permuted so that the most indices keep their owner from `from` (the
/// maximum-weight assignment of the overlap matrix; see the file comment and `assign_positions`).
/// Every position keeps its indices and its local storage; only which rank holds it changes. The
/// result is `to` itself when no relabeling keeps more, in particular when `from == to`; it never
/// moves more than `to` (`ownership_change(from, result).moving <= ownership_change(from, to).moving`).
/// With `RelabelScope::any_rank`, the ranks may also come from outside `to`'s active set.
/// Not collective, and communicates nothing: call it with the same arguments on every rank (as
/// every distribution is built), then hand the result to `Domain::redistribute` or `migrate`.
/// \code
///   dom.redistribute(tessera::relabel_for_locality(dom.distribution(), target));
///   auto fewer = tessera::relabel_for_locality(dom.distribution(), on_two_ranks,
///                                              {tessera::RelabelScope::any_rank});
/// \endcode
/// A `to` made by `Distribution::from_box_set` is relabeled box set by box set (the `BoxSet`
/// overload below). Throws `Error(invalid_argument)` if the distributions cover different boxes or
/// are for different numbers of ranks, or if `to` is any other user-defined distribution (its
/// owners are not grid positions).
template <std::size_t N>
[[nodiscard]] Distribution<N> relabel_for_locality(const Distribution<N>& from, const Distribution<N>& to,
                                                   const RelabelOptions& options = {}) {
  constexpr const char* where = "relabel_for_locality";
  detail::check_relabel_pair(where, from, to);
  if (const BoxSet<N>* set = to.box_set()) {
    BoxSet<N> relabeled = relabel_for_locality(from, *set, options);
    return relabeled == *set ? to : Distribution<N>::from_box_set(relabeled);
  }
  if (to.is_user_defined())
    fail_argument(where, "to", to, "is user-defined: its owners are not grid positions that could be relabeled");
  const ProcGrid<N>& grid = to.grid();
  const std::vector<int> preferred = grid.active_ranks();
  const std::vector<int> candidates = detail::relabel_candidates(where, options, preferred, grid.comm_size());
  std::vector<int> ranks =
      assign_positions(grid.size(), candidates, preferred, overlap_matrix(from, to), options.method);
  if (ranks == preferred) return to;
  return to.with_grid(ProcGrid<N>::from_ranks(grid.comm_size(), grid.shape(), std::move(ranks)));
}

/// A box set's owners relabeled for locality (issue 16: relabeling reused for box assignments). A
/// box set's owners are labels too when its assignment treats ranks as interchangeable (knapsack,
/// Morton runs, chopping: `make_box_set`): the boxes rank r gets could as well go to any other rank.
/// Here the boxes of each owner (a "position") go, all together, to the rank that already holds
/// most of them under `from`: the same maximum-weight assignment as for grid positions, over the
/// overlap of each owner's boxes with `from`'s ranks. Every box keeps its extent and its companions
/// (the boxes of one owner stay together); only which rank holds them changes. The result is `to`
/// itself when no relabeling keeps more; it never moves more than `to`. `RelabelScope::active_ranks`
/// permutes the ranks that own boxes in `to` among themselves; `any_rank` may also give a rank
/// without boxes in `to` some. Do not relabel an assignment whose shares were made for particular
/// ranks (weights from measured rank speeds): the shares would go to other ranks.
/// Not collective, communicates nothing; O(pieces of `from` over the boxes) plus the assignment.
/// \code
///   // After a knapsack reassignment under new weights, keep the boxes where they mostly are.
///   auto next = tessera::make_box_set(box, boxes, P, tessera::BoxAssignment::knapsack, weights);
///   dom.redistribute(tessera::Distribution<2>::from_box_set(tessera::relabel_for_locality(dom.distribution(), next)));
/// \endcode
/// The `Distribution` overload does the same for a distribution made by `from_box_set`.
/// Throws `Error(invalid_argument)` if `from` covers another box than `to`'s domain or is for
/// another number of ranks.
template <std::size_t N>
[[nodiscard]] BoxSet<N> relabel_for_locality(const Distribution<N>& from, const BoxSet<N>& to,
                                             const RelabelOptions& options) {
  constexpr const char* where = "relabel_for_locality";
  detail::check_relabel_target(where, from, to.domain(), to.comm_size());
  const int ranks = to.comm_size();
  std::vector<int> labels;  // the owners of boxes, ascending: the positions to relabel
  std::vector<int> position_of(static_cast<std::size_t>(ranks), -1);
  for (int r = 0; r < ranks; ++r)
    if (!to.boxes_of(r).empty()) {
      position_of[static_cast<std::size_t>(r)] = static_cast<int>(labels.size());
      labels.push_back(r);
    }
  std::vector<RelabelOverlap> overlaps;
  for (std::size_t i = 0; i < to.size(); ++i)
    for (const auto& piece : from.pieces(to.box(i)))
      overlaps.push_back({position_of[static_cast<std::size_t>(to.owner(i))], piece.rank, volume(piece.section)});
  detail::sort_and_merge(overlaps);
  const std::vector<int> candidates = detail::relabel_candidates(where, options, labels, ranks);
  const std::vector<int> chosen =
      assign_positions(static_cast<int>(labels.size()), candidates, labels, overlaps, options.method);
  if (chosen == labels) return to;
  std::vector<int> owners(to.size());
  for (std::size_t i = 0; i < to.size(); ++i)
    owners[i] = chosen[static_cast<std::size_t>(position_of[static_cast<std::size_t>(to.owner(i))])];
  return BoxSet<N>(to.domain(), to.boxes(), std::move(owners), ranks);
}

}  // namespace tessera
