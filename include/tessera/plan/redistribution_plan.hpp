#pragma once
/// \file
/// Plans that move data between two distributions: redistribution over one domain (A -> B), and
/// section moves (box S of one array onto box D of another, with an optional axis permutation:
/// transpose, zoom copies, gather to one rank, scatter from one rank).
///
/// Each rank computes only the copies it sends or receives. The set of copies between two ranks q
/// and r is defined symmetrically — the pairwise intersections of q's source sections with r's
/// destination sections — so that the sender (walking its own source sections) and the receiver
/// (walking its own destination sections) compute the same pieces, and the canonical order makes
/// them list the pieces alike. Cost: O(pieces + N log g) per owned section for dimensional
/// distributions; between two box sets, per owned box the boxes it meets on the other side, found
/// through that set's spatial index.
///
/// Flooded distributions (ZPL's `*`): a receiver reads each element from the source replica it is
/// nearest to (`Distribution::pieces_near`: its own replica when it holds one, so a move between a
/// flooded array and one aligned with it copies locally), and every replica of the destination
/// receives (`Distribution::holders`); a sender keeps only the receivers that read from it
/// (`Distribution::reads_from`), so both sides still list the same copies.

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/motion_plan.hpp"

namespace tessera {

namespace detail {

inline std::vector<int> unique_sorted(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

/// Distinct ranks `reader` reads part of `s` from under `dist` (its nearest replica), ascending.
template <std::size_t N>
std::vector<int> owners_of(const Distribution<N>& dist, const Section<N>& s, int reader) {
  std::vector<int> ranks;
  for (const auto& piece : dist.pieces_near(s, reader)) ranks.push_back(piece.rank);
  return unique_sorted(std::move(ranks));
}

/// The affine map of a section move: dst(q)[d] = dst_box.lo[d] + (src(p)[perm[d]] - src_box.lo[perm[d]]).
template <std::size_t N>
struct SectionMap {
  Box<N> src_box, dst_box;
  typename MotionPlan<N>::Permutation perm;

  [[nodiscard]] Section<N> forward(const Section<N>& s) const {
    Section<N> out;
    for (std::size_t d = 0; d < N; ++d) {
      const auto a = static_cast<std::size_t>(perm[d]);
      out.dim[d] = shift(s.dim[a], dst_box.lo[d] - src_box.lo[a]);
    }
    return out;
  }
  [[nodiscard]] Section<N> backward(const Section<N>& s) const {
    Section<N> out;
    for (std::size_t d = 0; d < N; ++d) {
      const auto a = static_cast<std::size_t>(perm[d]);
      out.dim[a] = shift(s.dim[d], src_box.lo[a] - dst_box.lo[d]);
    }
    return out;
  }
};

/// The copies from q's source section `s_a` to r's destination section `s_b` (both sides call this
/// with the same arguments, so both get the same pieces).
template <std::size_t N>
void pair_copies(int q, const Section<N>& s_a, int r, const Section<N>& s_b, const SectionMap<N>& map,
                 MotionPlan<N>& plan) {
  for (const auto& x : intersect(s_a, map.src_box))
    for (const auto& y : intersect(x, map.backward(s_b))) plan.copy(q, y, r, map.forward(y));
}

/// `section_move_plan` between two box sets: the same copies (one per pair of a source box and a
/// destination box whose parts in the moved boxes meet), but each side finds the boxes on the other
/// through the other set's spatial index instead of pairing every box of each peer with every one
/// of its own, which was quadratic in the boxes per rank (a box balancer's step over a thousand
/// boxes spent most of its redistribution there); each copy names its patches, so compiling it
/// does not search the rank's patches either. Every section is a box, so both sides compute the
/// same boxes, and the canonical order lists them alike.
template <std::size_t N>
MotionPlan<N> box_set_section_move_plan(const BoxSet<N>& src, const BoxSet<N>& dst, const SectionMap<N>& map,
                                        int rank) {
  MotionPlan<N> plan(map.perm);
  const auto forward = [&](const Box<N>& b) { return map.forward(Section<N>::from_box(b)); };
  const auto backward = [&](const Box<N>& b) { return bounding_box(map.backward(Section<N>::from_box(b))); };
  for (std::size_t j : dst.boxes_of(rank)) {  // receives: my boxes' parts in dst_box, from the boxes over them
    const Box<N> wanted = intersect(dst.box(j), map.dst_box);
    if (wanted.empty()) continue;
    const Box<N> source = backward(wanted);
    src.for_each_meeting(source, [&](std::size_t k) {
      const Box<N> piece = intersect(src.box(k), source);
      if (!piece.empty())
        plan.copy(src.owner(k), Section<N>::from_box(piece), rank, forward(piece), src.patch_of(k), dst.patch_of(j));
    });
  }
  for (std::size_t k : src.boxes_of(rank)) {  // sends: my boxes' parts in src_box, to the boxes under their image
    const Box<N> mine = intersect(src.box(k), map.src_box);
    if (mine.empty()) continue;
    const Box<N> image = bounding_box(forward(mine));
    dst.for_each_meeting(image, [&](std::size_t j) {
      if (dst.owner(j) == rank) return;  // a local copy, listed with the receives
      const Box<N> piece = intersect(mine, backward(intersect(dst.box(j), image)));
      if (!piece.empty())
        plan.copy(rank, Section<N>::from_box(piece), dst.owner(j), forward(piece), src.patch_of(k), dst.patch_of(j));
    });
  }
  plan.canonical_order();
  return plan;
}

}  // namespace detail

/// The copies of `rank` in a move of box `src_box` of an array over `src` onto box `dst_box` of an
/// array over `dst`, where destination axis d takes source axis `perm[d]`. The boxes must have
/// matching extents under the permutation and lie in their domains.
template <std::size_t N>
[[nodiscard]] MotionPlan<N> section_move_plan(const Distribution<N>& src, const Box<N>& src_box,
                                              const Distribution<N>& dst, const Box<N>& dst_box,
                                              const typename MotionPlan<N>::Permutation& perm, int rank) {
  MotionPlan<N> plan(perm);
  if (!contains(src.domain(), src_box))
    fail(ErrorCode::out_of_range, "section move: source box ", src_box, " is not inside the source domain ",
         src.domain());
  if (!contains(dst.domain(), dst_box))
    fail(ErrorCode::out_of_range, "section move: destination box ", dst_box, " is not inside the destination domain ",
         dst.domain());
  for (std::size_t d = 0; d < N; ++d)
    if (extent(dst_box, d) != extent(src_box, static_cast<std::size_t>(perm[d])))
      fail_argument(
          "section move", "dst_box", dst_box,
          detail::concat("has extent ", extent(dst_box, d), " along axis ", d, " but the source box ", src_box, " has ",
                         extent(src_box, static_cast<std::size_t>(perm[d])), " along axis ", perm[d]));
  const detail::SectionMap<N> map{src_box, dst_box, perm};
  if (src.box_set() != nullptr && dst.box_set() != nullptr)
    return detail::box_set_section_move_plan(*src.box_set(), *dst.box_set(), map, rank);
  // What I receive: my destination sections within dst_box, from the owners of their preimages.
  for (const auto& s_b : dst.owned_sections(rank)) {
    std::vector<int> sources;
    for (const auto& t : intersect(s_b, dst_box))
      for (int q : detail::owners_of(src, map.backward(t), rank)) sources.push_back(q);
    for (int q : detail::unique_sorted(std::move(sources)))
      for (const auto& s_a : src.owned_sections(q)) detail::pair_copies(q, s_a, rank, s_b, map, plan);
  }
  // What I send: my source sections within src_box, to every holder of their images that reads
  // from me.
  for (const auto& s_a : src.owned_sections(rank)) {
    std::vector<int> targets;
    for (const auto& t : intersect(s_a, src_box))
      for (int r : dst.holders(map.forward(t))) targets.push_back(r);
    for (int r : detail::unique_sorted(std::move(targets))) {
      if (r == rank || !src.reads_from(r, rank)) continue;  // a receive already listed, or another replica's
      for (const auto& s_b : dst.owned_sections(r)) detail::pair_copies(rank, s_a, r, s_b, map, plan);
    }
  }
  plan.canonical_order();
  return plan;
}

/// A section move into a flooded destination in two steps, `first` then `relay`: a sender that
/// itself holds a replica of a piece it sends copies the piece into its own replica only (`first`),
/// then sends the other replicas that piece from that replica (`relay`, destination array to
/// destination array, identity permutation). A broadcast's root works this way: it packs once and
/// its packed data is its copy, where the one-step plan would copy into its replica *and* pack the
/// same elements again for each other replica (when the replica is contiguous, as a panel without
/// ghosts is, the relayed message is sent in place, with no pack at all). A piece whose sender holds
/// no replica of it goes straight to every replica in `first`, as in the one-step plan, so no copy
/// takes two hops. Only a piece with at least two replicas besides the sender's is relayed: with one,
/// the one-step plan packs once, like the broadcast, and copies its own replica while the message
/// travels, where the relay must copy before it sends (2 ranks, one replica each: the one-step flood
/// measured 1.00-1.10x MPI_Bcast, the relayed one 1.02-1.48x; bench/flood-relay-experiment.txt).
/// Nor is a piece of fewer than `min_relay_elements` elements: for a small piece the latency of a
/// second step costs more than the pack it saves. Both sides decide per copy from the same facts
/// (the sender, the destination section's holders and its size), so sender and receiver still
/// list the same copies in each plan.
template <std::size_t N>
struct RelayedMovePlans {
  MotionPlan<N> first;
  MotionPlan<N> relay;
};

/// The two plans of `rank` (see `RelayedMovePlans`) for moving box `src_box` of an array over
/// `src` onto box `dst_box` of an array over `dst`; arguments as for `section_move_plan`, and
/// pieces of at least `min_relay_elements` elements relayed. Over a destination with no flooded
/// axis, `relay` is empty and `first` is `section_move_plan`'s plan.
template <std::size_t N>
[[nodiscard]] RelayedMovePlans<N> relayed_section_move_plans(const Distribution<N>& src, const Box<N>& src_box,
                                                             const Distribution<N>& dst, const Box<N>& dst_box,
                                                             const typename MotionPlan<N>::Permutation& perm,
                                                             int rank, index_t min_relay_elements = 0) {
  RelayedMovePlans<N> out{MotionPlan<N>(perm), MotionPlan<N>(MotionPlan<N>::identity())};
  const bool flooded = dst.is_flooded();
  for (const auto& c : section_move_plan(src, src_box, dst, dst_box, perm, rank).copies()) {
    // c.dst lies in one owned section of c.dst_rank, so its holders are exactly that section's
    // replicas: a sender among them holds the whole piece.
    bool relayed = flooded && c.src_rank != c.dst_rank && volume(c.dst) >= min_relay_elements;
    if (relayed) {
      const std::vector<int> holders = dst.holders(c.dst);
      relayed = holders.size() >= 3 && std::ranges::binary_search(holders, c.src_rank);
    }
    if (relayed)
      out.relay.copy(c.src_rank, c.dst, c.dst_rank, c.dst, c.dst_patch, c.dst_patch);
    else
      out.first.copy(c.src_rank, c.src, c.dst_rank, c.dst, c.src_patch, c.dst_patch);
  }
  out.first.canonical_order();
  out.relay.canonical_order();
  return out;
}

/// The copies of `rank` in a redistribution of a whole domain from `from` to `to` (preserving every
/// element). Both distributions must cover the same domain.
template <std::size_t N>
[[nodiscard]] MotionPlan<N> redistribution_plan(const Distribution<N>& from, const Distribution<N>& to, int rank) {
  if (from.domain() != to.domain())
    fail_argument("redistribution_plan", "to", to.domain(),
                  detail::concat("covers another domain than the source distribution's ", from.domain()));
  return section_move_plan(from, from.domain(), to, to.domain(), MotionPlan<N>::identity(), rank);
}

}  // namespace tessera
