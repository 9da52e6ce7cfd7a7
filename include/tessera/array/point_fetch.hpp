#pragma once
/// \file
/// `PointFetch<N>`: the inspector of an irregular read (PARTI's inspector–executor) for values of
/// explicit global points held by other ranks: a sparse array's ghost update (the neighbours' sparse
/// values a stencil reads, array/sparse_array.hpp) and the x entries of a distributed sparse
/// matrix–vector product (examples/chapel_sparse_matvec). Built once, collectively; its `Schedule`
/// (plan/index_schedule.hpp) is run by a `Mover` like every other movement, as often as the values
/// change, allocating nothing.
/// \code
///   tessera::PointFetch<1> fetch(world, x.distribution(), columns,   // the columns my rows read
///                                [&](const tessera::Point<1>& j) { return &x.at(j) - x.data(); });
///   std::vector<double> x_far(fetch.size());
///   tessera::Mover mover(world, fetch.schedule(), sizeof(double));
///   mover.run(x.data(), x_far.data());        // x_far[fetch.slot(j)] = x(j) for each fetched j
/// \endcode

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/index_schedule.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

/// Which rank sends which of its elements to whom so that every rank receives the values of the
/// points it asked for (see the file comment). Immutable once built.
template <std::size_t N>
class PointFetch {
 public:
  /// Collective. `needed`: the points this rank reads (any order, repeats allowed), each owned by
  /// some rank under `dist`. `resolve(p)`, called on p's owner, gives the offset of p's value in
  /// that rank's source buffer, or -1 where it has none (a sparse index not in the set): such
  /// points are not fetched. Costs two exchanges: the questions to the owners, and which were
  /// found back. Throws `Error(out_of_range)` on every rank if some rank asked for a point without
  /// an owner (outside `dist`'s box or in a hole).
  template <class Resolve>
  PointFetch(const Communicator& comm, const Distribution<N>& dist, std::span<const Point<N>> needed,
             Resolve&& resolve) {
    constexpr const char* where = "PointFetch";
    const int ranks = comm.size();
    std::vector<Point<N>> asked(needed.begin(), needed.end());
    std::sort(asked.begin(), asked.end());
    asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
    std::vector<int> owner(asked.size());
    std::optional<Error> failed;
    detail::capture_failure(failed, comm, where, 0, "the owners of the points", [&] {
      for (std::size_t k = 0; k < asked.size(); ++k) {
        if (!contains(dist.domain(), asked[k]))
          fail(ErrorCode::out_of_range, where, ": rank ", comm.rank(), " asks for ", asked[k], " outside ",
               dist.domain());
        owner[k] = dist.owner(asked[k]);
      }
    });
    comm.agree(failed);
    // Stable by owner, so each owner's questions stay sorted.
    std::vector<int> ask_counts(static_cast<std::size_t>(ranks), 0);
    for (const int o : owner) ++ask_counts[static_cast<std::size_t>(o)];
    std::vector<std::size_t> first(static_cast<std::size_t>(ranks) + 1, 0);
    for (int r = 0; r < ranks; ++r)
      first[static_cast<std::size_t>(r) + 1] = first[static_cast<std::size_t>(r)] + static_cast<std::size_t>(ask_counts[static_cast<std::size_t>(r)]);
    std::vector<Point<N>> grouped(asked.size());
    std::vector<std::size_t> at(asked.size());
    for (std::size_t k = 0; k < asked.size(); ++k) {
      const std::size_t slot = first[static_cast<std::size_t>(owner[k])]++;
      grouped[slot] = asked[k];
      at[slot] = k;
    }
    std::vector<int> question_counts;
    const std::vector<Point<N>> questions = comm.alltoallv<Point<N>>(grouped, ask_counts, &question_counts);
    std::vector<index_t> send_offsets;
    std::vector<int> send_counts(static_cast<std::size_t>(ranks), 0);
    std::vector<std::uint8_t> found(questions.size(), 0);
    for (std::size_t k = 0, r = 0, left = 0; k < questions.size(); ++k, --left) {
      while (left == 0) left = static_cast<std::size_t>(question_counts[r++]);
      const index_t offset = resolve(questions[k]);
      if (offset < 0) continue;
      found[k] = 1;
      send_offsets.push_back(offset);
      ++send_counts[r - 1];
    }
    const std::vector<std::uint8_t> answers = comm.alltoallv<std::uint8_t>(found, question_counts);
    // The fetched points in sorted order are the slots; receive offsets follow the grouped order.
    std::vector<char> present(asked.size(), 0);
    for (std::size_t k = 0; k < answers.size(); ++k) present[at[k]] = answers[k] != 0 ? 1 : 0;
    std::vector<index_t> slot_of(asked.size(), -1);
    for (std::size_t k = 0; k < asked.size(); ++k)
      if (present[k] != 0) {
        slot_of[k] = static_cast<index_t>(points_.size());
        points_.push_back(asked[k]);
      }
    std::vector<index_t> receive_offsets;
    std::vector<int> receive_counts(static_cast<std::size_t>(ranks), 0);
    for (std::size_t k = 0; k < answers.size(); ++k)
      if (answers[k] != 0) {
        receive_offsets.push_back(slot_of[at[k]]);
        ++receive_counts[static_cast<std::size_t>(owner[at[k]])];
      }
    schedule_ = std::make_shared<const Schedule>(
        index_schedule(comm.rank(), send_offsets, send_counts, receive_offsets, receive_counts));
  }

  /// The fetched points (present at their owners), sorted; point k's value lands in slot k.
  [[nodiscard]] std::span<const Point<N>> points() const noexcept { return points_; }
  /// Number of fetched values: the size of the buffer a run fills.
  [[nodiscard]] std::size_t size() const noexcept { return points_.size(); }
  /// The slot of `p`, if it was fetched. O(log size).
  [[nodiscard]] std::optional<std::size_t> slot(const Point<N>& p) const noexcept {
    const auto it = std::lower_bound(points_.begin(), points_.end(), p);
    if (it == points_.end() || *it != p) return std::nullopt;
    return static_cast<std::size_t>(it - points_.begin());
  }
  /// The schedule: sources are offsets `resolve` gave, destinations slots.
  [[nodiscard]] const std::shared_ptr<const Schedule>& schedule() const noexcept { return schedule_; }

 private:
  std::vector<Point<N>> points_;
  std::shared_ptr<const Schedule> schedule_;
};

}  // namespace tessera
