#include "tessera/exchange/fused_mover.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#include "copy_kernels.hpp"
#include "message_shape.hpp"
#include "receive_progress.hpp"

namespace tessera {

using detail::copy_local_direct;
using detail::kMessageUnit;
using detail::message_shape;
using detail::pack;
using detail::padded;
using detail::unpack_blocks;

FusedMover::FusedMover(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                       std::vector<std::size_t> element_sizes, std::vector<CombineFn> combine)
    : comm_(&comm),
      schedule_(std::move(schedule)),
      element_sizes_(std::move(element_sizes)),
      combine_(std::move(combine)),
      tag_(comm.next_tag()) {
  constexpr const char* where = "FusedMover";
  if (!schedule_) fail_argument(where, "schedule", "null", "must point to a compiled schedule");
  if (element_sizes_.empty()) fail_argument(where, "element_sizes", "empty", "must name at least one array");
  for (std::size_t es : element_sizes_)
    if (es == 0) fail_argument(where, "element_sizes", 0, "must all be > 0");
  if (combine_.empty()) combine_.assign(element_sizes_.size(), nullptr);
  if (combine_.size() != element_sizes_.size())
    fail_argument(where, "combine", combine_.size(),
                  detail::concat("must be empty or hold one entry per array (", element_sizes_.size(), ")"));
  check_mpi(MPI_Type_contiguous(static_cast<int>(kMessageUnit), MPI_BYTE, &unit_), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&unit_), "MPI_Type_commit");
  const Schedule& s = *schedule_;
  std::size_t bytes_per_element = 0, largest = 0;
  for (std::size_t es : element_sizes_) {
    bytes_per_element += es;
    largest = std::max(largest, es);
  }
  const auto make = [&](const std::vector<PeerBlocks>& list, std::vector<Channel>& channels) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      Channel c;
      c.peer = list[i].peer;
      c.peer_index = i;
      c.bytes = static_cast<std::size_t>(list[i].elements) * bytes_per_element;
      c.buffer.allocate(padded(c.bytes));
      ++stats_.buffer_allocations;
      channels.push_back(std::move(c));
    }
  };
  make(s.sends, sends_);
  make(s.receives, receives_);
  if (!s.local_src.empty() && !s.local_disjoint) {  // copies that may overlap go through staging
    staging_.allocate(static_cast<std::size_t>(s.local_elements()) * largest);
    ++stats_.buffer_allocations;
  }
  send_requests_.assign(sends_.size(), MPI_REQUEST_NULL);
  receive_requests_.assign(receives_.size(), MPI_REQUEST_NULL);
  unpacked_.assign(receives_.size(), 0);
  src_.assign(element_sizes_.size(), nullptr);
  dst_.assign(element_sizes_.size(), nullptr);
}

FusedMover::~FusedMover() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (in_flight_) {
    MPI_Waitall(static_cast<int>(receive_requests_.size()), receive_requests_.data(), MPI_STATUSES_IGNORE);
    MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE);
  }
  if (unit_ != MPI_DATATYPE_NULL) MPI_Type_free(&unit_);
}

void FusedMover::pack_channel(Channel& c) {
  const Schedule& s = *schedule_;
  const auto& blocks = s.sends[c.peer_index].blocks;
  std::byte* out = c.buffer.data();
  for (std::size_t k = 0; k < element_sizes_.size(); ++k)
    out += pack(s, blocks.data(), blocks.data() + blocks.size(), src_[k], out, element_sizes_[k]);
}

void FusedMover::unpack_channel(const Channel& c) {
  const Schedule& s = *schedule_;
  const PeerBlocks& p = s.receives[c.peer_index];
  const std::byte* in = c.buffer.data();
  for (std::size_t k = 0; k < element_sizes_.size(); ++k) {
    unpack_blocks(s, p.blocks.data(), p.blocks.data() + p.blocks.size(), dst_[k], in, element_sizes_[k], combine_[k]);
    in += static_cast<std::size_t>(p.elements) * element_sizes_[k];
  }
}

void FusedMover::start(std::span<const void* const> src, std::span<void* const> dst) {
  constexpr const char* where = "FusedMover::start";
  if (in_flight_) fail_argument(where, "mover", "in flight", "must be completed with wait() before it starts again");
  if (src.size() != arrays() || dst.size() != arrays())
    fail_argument(where, "src/dst", detail::concat(src.size(), "/", dst.size(), " pointers"),
                  detail::concat("must hold one pointer per array (", arrays(), ")"));
  for (std::size_t k = 0; k < arrays(); ++k) {
    src_[k] = static_cast<const std::byte*>(src[k]);
    dst_[k] = static_cast<std::byte*>(dst[k]);
  }
  for (std::size_t i = 0; i < receives_.size(); ++i) {
    Channel& c = receives_[i];
    const auto [count, type] = message_shape(c.bytes, unit_, "FusedMover");
    check_mpi(MPI_Irecv(c.buffer.data(), count, type, c.peer, tag_, comm_->raw(), &receive_requests_[i]), "MPI_Irecv");
    unpacked_[i] = 0;
  }
  receives_left_ = receives_.size();
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    Channel& c = sends_[i];
    pack_channel(c);
    const auto [count, type] = message_shape(c.bytes, unit_, "FusedMover");
    check_mpi(MPI_Isend(c.buffer.data(), count, type, c.peer, tag_, comm_->raw(), &send_requests_[i]), "MPI_Isend");
    ++stats_.messages_sent;
    stats_.bytes_sent += c.bytes;
  }
  const Schedule& s = *schedule_;
  if (!s.local_src.empty()) {
    for (std::size_t k = 0; k < arrays(); ++k) {
      detail::copy_locals(s, src_[k], dst_[k], element_sizes_[k], combine_[k], staging_.data());
      stats_.bytes_copied_locally += static_cast<std::uint64_t>(s.local_elements()) * element_sizes_[k];
    }
  }
  in_flight_ = true;
}

void FusedMover::finish_receives(bool blocking) {
  detail::finish_receives(receive_requests_, unpacked_, receives_left_, blocking,
                          [&](std::size_t i) { unpack_channel(receives_[i]); });
}

void FusedMover::wait() {
  if (!in_flight_) return;
  finish_receives(true);
  check_mpi(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  in_flight_ = false;
  ++stats_.executions;
}

bool FusedMover::test() {
  if (!in_flight_) return true;
  finish_receives(false);
  if (receives_left_ > 0) return false;
  int done = 0;
  check_mpi(MPI_Testall(static_cast<int>(send_requests_.size()), send_requests_.data(), &done, MPI_STATUSES_IGNORE),
            "MPI_Testall");
  if (!done) return false;
  in_flight_ = false;
  ++stats_.executions;
  return true;
}

FusedMover* FusedMoverCache::find_or_make(const Communicator& comm, const std::shared_ptr<const Schedule>& schedule,
                                          std::span<const std::size_t> element_sizes) {
  for (Entry& e : entries_)
    if (e.schedule == schedule &&
        std::equal(e.element_sizes.begin(), e.element_sizes.end(), element_sizes.begin(), element_sizes.end()))
      return e.mover.get();
  std::size_t bytes_per_element = 0;
  for (std::size_t es : element_sizes) bytes_per_element += es;
  index_t largest = 0;
  for (const auto& p : schedule->sends) largest = std::max(largest, p.elements);
  const double mine = static_cast<double>(largest) * static_cast<double>(bytes_per_element);
  Entry e{schedule, std::vector<std::size_t>(element_sizes.begin(), element_sizes.end()), nullptr};
  if (comm.max(mine) <= static_cast<double>(kMaxFusedMessageBytes))
    e.mover = std::make_unique<FusedMover>(comm, schedule, e.element_sizes);
  entries_.push_back(std::move(e));
  return entries_.back().mover.get();
}

}  // namespace tessera
