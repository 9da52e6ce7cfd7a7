// Schedules of irregular moves from explicit offset lists (include/tessera/plan/index_schedule.hpp).
#include "tessera/plan/index_schedule.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>

#include "tessera/core/error.hpp"

namespace tessera {

namespace {

constexpr const char* kWhere = "index_schedule";

/// Checks one side's counts against its offsets; returns where each rank's group starts.
std::vector<std::size_t> group_starts(std::span<const int> counts, std::span<const index_t> offsets,
                                      const char* counts_name, const char* offsets_name) {
  std::vector<std::size_t> start(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] < 0) fail_argument(kWhere, detail::concat(counts_name, "[", r, "]"), counts[r], "must be >= 0");
    start[r + 1] = start[r] + static_cast<std::size_t>(counts[r]);
  }
  if (start.back() != offsets.size())
    fail_argument(kWhere, offsets_name, detail::concat(offsets.size(), " offsets"),
                  detail::concat("do not match the ", start.back(), " that ", counts_name, " adds up to"));
  for (std::size_t k = 0; k < offsets.size(); ++k)
    if (offsets[k] < 0) fail_argument(kWhere, detail::concat(offsets_name, "[", k, "]"), offsets[k], "must be >= 0");
  return start;
}

/// One block of one axis (stride 1) over the runs of `offsets`, appended to `runs`.
Block offsets_block(std::span<const index_t> offsets, std::vector<Section1>& runs) {
  Block b;
  b.axes = 1;
  b.axis[0].stride = 1;
  b.axis[0].begin = static_cast<std::uint32_t>(runs.size());
  append_offset_runs(offsets, runs);
  // Blocks refer to runs by 32-bit positions.
  if (runs.size() > std::numeric_limits<std::uint32_t>::max())
    fail(ErrorCode::overflow, kWhere, ": ", runs.size(), " runs are more than a schedule can refer to");
  b.axis[0].end = static_cast<std::uint32_t>(runs.size());
  b.volume = static_cast<index_t>(offsets.size());
  return b;
}

}  // namespace

void OffsetRunAppender::commit() {
  const index_t first = pending_first_, length = pending_length_;
  if (open_ && length == current_.run_length) {
    const index_t last_start = current_.first + (current_.run_count - 1) * current_.stride;
    const index_t gap = first - last_start;
    // A gap equal to the length cannot occur (the stretches would be one); a smaller one would
    // make the runs overlap, which a Section1 cannot say.
    if (gap > length && (current_.run_count == 1 || gap == current_.stride)) {
      current_.stride = gap;
      ++current_.run_count;
      return;
    }
  }
  if (open_) runs_.push_back(current_);
  current_ = Section1{first, length, length, 1};
  open_ = true;
}

void append_offset_runs(std::span<const index_t> offsets, std::vector<Section1>& runs) {
  OffsetRunAppender out(runs);  // joins the offsets that continue each other into stretches
  for (const index_t offset : offsets) out.add(offset, 1);
  out.finish();
}

Schedule index_schedule(int rank, std::span<const index_t> send_offsets, std::span<const int> send_counts,
                        std::span<const index_t> receive_offsets, std::span<const int> receive_counts) {
  if (send_counts.size() != receive_counts.size())
    fail_argument(kWhere, "receive_counts", detail::concat(receive_counts.size(), " entries"),
                  detail::concat("must have as many as send_counts (", send_counts.size(), ")"));
  const auto ranks = send_counts.size();
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks)
    fail_argument(kWhere, "rank", rank, detail::concat("is not in [0, ", ranks, ")"));
  const auto send_start = group_starts(send_counts, send_offsets, "send_counts", "send_offsets");
  const auto receive_start = group_starts(receive_counts, receive_offsets, "receive_counts", "receive_offsets");
  const auto self = static_cast<std::size_t>(rank);
  if (send_counts[self] != receive_counts[self])
    fail_argument(kWhere, detail::concat("receive_counts[", rank, "]"), receive_counts[self],
                  detail::concat("must equal send_counts[", rank, "] = ", send_counts[self],
                                 ": what a rank sends itself is what it receives from itself"));
  const auto group = [](std::span<const index_t> offsets, const std::vector<std::size_t>& start, std::size_t r) {
    return offsets.subspan(start[r], start[r + 1] - start[r]);
  };
  Schedule s;
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto sent = group(send_offsets, send_start, r);
    const auto received = group(receive_offsets, receive_start, r);
    if (r == self) {
      if (sent.empty()) continue;
      s.local_src.push_back(offsets_block(sent, s.runs));
      s.local_dst.push_back(offsets_block(received, s.runs));
      continue;
    }
    const int peer = static_cast<int>(r);
    if (!sent.empty()) s.sends.push_back(PeerBlocks{peer, {offsets_block(sent, s.runs)}, index_t(sent.size())});
    if (!received.empty())
      s.receives.push_back(PeerBlocks{peer, {offsets_block(received, s.runs)}, index_t(received.size())});
  }
  return s;
}

}  // namespace tessera
