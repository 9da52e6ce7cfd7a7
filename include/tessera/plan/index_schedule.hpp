#pragma once
/// \file
/// Schedules of irregular moves (PARTI's inspector output for `x(ia(i))`): built from explicit
/// lists of element offsets rather than from sections. The array layer's index gather and scatter
/// (array/remap.hpp) learn, by one exchange, which offsets they send to and receive from each
/// peer; this turns those lists into a `Schedule` a `Mover` runs like any other. Pure: no MPI.
///
/// Offsets are merged into runs, so that regular patterns cost few stretches: consecutive offsets
/// become one run, and equal runs at equal distances one strided `Section1`.
/// \code
///   // rank 0 of 2 sends its elements 4, 5, 6 to rank 1 and copies element 0 onto its element 9;
///   // it receives 2 elements from rank 1 into its elements 7 and 3.
///   const std::vector<tessera::index_t> sends{0, 4, 5, 6}, receives{9, 7, 3};
///   const std::vector<int> send_counts{1, 3}, receive_counts{1, 2};
///   tessera::Schedule s = tessera::index_schedule(0, sends, send_counts, receives, receive_counts);
///   // s.sends: peer 1, one block, one run [4, 7); s.receives: peer 1, runs {7} and {3};
///   // s.local_src: {0}, s.local_dst: {9}
/// \endcode

#include <span>
#include <vector>

#include "tessera/core/index.hpp"
#include "tessera/geometry/section.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

/// Appends `offsets`, in their order, to `runs` as runs: each maximal stretch of consecutive
/// offsets (o, o + 1, ...) is one run, and stretches of equal length that follow each other at
/// one equal distance (greater than their length) fold into one strided `Section1`. Enumerating
/// the appended sections in order (every repetition of a run, then the next) gives `offsets`
/// back. Offsets may repeat or go down; they then simply start new runs.
void append_offset_runs(std::span<const index_t> offsets, std::vector<Section1>& runs);

/// What `append_offset_runs` does, fed one stretch of consecutive offsets at a time (`add(first,
/// length)`: first, first + 1, ..., first + length - 1), for callers that know stretches without
/// listing every offset (a local layout's rows, plan/compile_schedule.hpp). Stretches that continue
/// each other join, so the runs equal those of the offsets listed one by one. `finish()` appends
/// the last run; nothing is appended after it.
class OffsetRunAppender {
 public:
  explicit OffsetRunAppender(std::vector<Section1>& runs) noexcept : runs_(runs) {}
  /// Appends the stretch [first, first + length); length >= 1.
  void add(index_t first, index_t length) {
    if (pending_ && first == pending_first_ + pending_length_) {
      pending_length_ += length;
      return;
    }
    if (pending_) commit();
    pending_ = true, pending_first_ = first, pending_length_ = length;
  }
  /// Appends what is still open.
  void finish() {
    if (pending_) commit();
    pending_ = false;
    if (open_) runs_.push_back(current_);
    open_ = false;
  }

 private:
  /// Folds the pending (maximal) stretch into the current run, or starts a new one.
  void commit();

  std::vector<Section1>& runs_;
  bool pending_ = false;  // a stretch that a later one may still continue
  index_t pending_first_ = 0, pending_length_ = 0;
  bool open_ = false;  // `current_` holds a run not yet appended
  Section1 current_;
};

/// Calls `visit(first, count)` for each stretch of `count` consecutive offsets starting at `first`
/// in `runs` (what `append_offset_runs` made), in order.
template <class Visit>
void for_each_offset_stretch(std::span<const Section1> runs, Visit&& visit) {
  for (const Section1& r : runs)
    for (index_t j = 0; j < r.run_count; ++j) visit(r.first + j * r.stride, r.run_length);
}

/// One rank's schedule of an irregular move, `rank` being its rank among
/// `send_counts.size()` ranks. `send_offsets` are offsets into the source storage, grouped by the
/// rank they go to (ascending), `send_counts[r]` of them for rank r; `receive_offsets` are offsets
/// into the destination storage, grouped by the rank they come from, `receive_counts[r]` of them
/// from rank r (the layout of an all-to-all-v). Element k of what q sends to r lands at element k
/// of what r receives from q. What `rank` sends to itself is a local copy onto what it receives
/// from itself. Each peer gets one block of merged runs (see `append_offset_runs`).
///
/// The source and destination buffers a mover runs this on must differ (`local_disjoint` stays
/// false: the caller stages a source that is also the destination). Throws
/// `Error(invalid_argument)` for count lists of different lengths or with a negative entry,
/// offsets not matching the counts' sums, a negative offset, `rank` outside the ranks, or a count
/// to itself that differs from the count from itself; `Error(overflow)` for more runs than a
/// block can refer to.
[[nodiscard]] Schedule index_schedule(int rank, std::span<const index_t> send_offsets, std::span<const int> send_counts,
                                      std::span<const index_t> receive_offsets, std::span<const int> receive_counts);

}  // namespace tessera
