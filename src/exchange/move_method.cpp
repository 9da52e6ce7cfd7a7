#include "move_method.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>

#include "checked_board.hpp"
#include "copy_kernels.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/mover_totals.hpp"

namespace tessera {
namespace {

// Every mover's counters together (process_mover_stats). Atomic: movers used on different threads
// (each by one thread) must not race on them.
struct ProcessCounters {
  std::atomic<std::uint64_t> executions{0}, messages_sent{0}, bytes_sent{0}, bytes_copied_locally{0},
      buffer_allocations{0};
};

ProcessCounters& process_counters() noexcept {
  static ProcessCounters counters;
  return counters;
}

void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept { counter.fetch_add(n, std::memory_order_relaxed); }

}  // namespace

MoverStats process_mover_stats() noexcept {
  const ProcessCounters& c = process_counters();
  MoverStats s;
  s.executions = c.executions.load(std::memory_order_relaxed);
  s.messages_sent = c.messages_sent.load(std::memory_order_relaxed);
  s.bytes_sent = c.bytes_sent.load(std::memory_order_relaxed);
  s.bytes_copied_locally = c.bytes_copied_locally.load(std::memory_order_relaxed);
  s.buffer_allocations = c.buffer_allocations.load(std::memory_order_relaxed);
  return s;
}

namespace detail {

MoveMethod::MoveMethod(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                       std::vector<Binding> bindings, int tag, const char* owner, ChannelLayout layout)
    : comm_(&comm),
      schedule_(std::move(schedule)),
      bindings_(std::move(bindings)),
      tag_(tag),
      owner_(owner),
      channels_(*schedule_, bindings_, layout, stats_.buffer_allocations, owner_),
      src_(bindings_.size(), nullptr),
      dst_(bindings_.size(), nullptr) {
  add(process_counters().buffer_allocations, stats_.buffer_allocations);  // the channels' packing buffers
}

void MoveMethod::start(std::span<const void* const> src, std::span<void* const> dst) {
  if (in_flight_)
    fail_argument(concat(owner_, "::start"), "mover", "in flight", "must be completed with wait() before it starts again");
  const bool local_first = schedule_->local_first;
  for (std::size_t k = 0; local_first && k < bindings_.size(); ++k) {
    if (src[k] != dst[k])
      fail_argument(concat(owner_, "::start"), "dst", "another array than src",
                    "must be the source array for this schedule: its messages carry cells its local copies fill "
                    "(a staged ghost update, Schedule::local_first)");
  }
  for (std::size_t k = 0; k < bindings_.size(); ++k) {
    src_[k] = static_cast<const std::byte*>(src[k]);
    dst_[k] = static_cast<std::byte*>(dst[k]);
  }
  // Local copies overlap the messages, unless the messages carry what the copies fill.
  if (local_first) copy_locally();
  post();
  stats_.messages_sent += channels_.sends().size();
  stats_.bytes_sent += channels_.send_bytes();
  add(process_counters().messages_sent, channels_.sends().size());
  add(process_counters().bytes_sent, channels_.send_bytes());
  if (!local_first) copy_locally();
  in_flight_ = true;
}

void MoveMethod::prepare(std::span<const void* const> src, std::span<const void* const> dst) {
  for (std::size_t k = 0; k < bindings_.size(); ++k)
    if (local_copies_need_staging(*schedule_, src[k], dst[k])) allocate_staging();
}

void MoveMethod::allocate_staging() {
  if (!staging_.empty()) return;
  std::size_t largest = 0;  // one staging buffer serves every array in turn
  for (const Binding& b : bindings_) largest = std::max(largest, b.element_size);
  staging_.allocate(static_cast<std::size_t>(schedule_->local_elements()) * largest);
  ++stats_.buffer_allocations;
  add(process_counters().buffer_allocations, 1);
}

void MoveMethod::copy_locally() {
  // After the messages are on their way, so that the copies overlap them (before them for a
  // local_first schedule). Only movers whose copies may overlap (source and destination the same
  // array) ever need the staging buffer.
  const Schedule& s = *schedule_;
  if (s.local_src.empty()) return;
  const auto local = static_cast<std::size_t>(s.local_elements());
  for (std::size_t k = 0; k < bindings_.size(); ++k) {
    const Binding& b = bindings_[k];
    if (local_copies_need_staging(s, src_[k], dst_[k])) allocate_staging();
    copy_locals(s, src_[k], dst_[k], b.element_size, b.combine, staging_.data());
    stats_.bytes_copied_locally += local * b.element_size;
    add(process_counters().bytes_copied_locally, local * b.element_size);
  }
}

void MoveMethod::wait() {
  if (!in_flight_) return;
  complete();
  finished();
}

bool MoveMethod::test() {
  if (!in_flight_) return true;
  if (!poll()) return false;
  finished();
  return true;
}

void MoveMethod::finished() {
  in_flight_ = false;
  ++stats_.executions;
  add(process_counters().executions, 1);
}

bool MoveMethod::finish_collective(MPI_Request& request, bool blocking) {
  if (blocking && CollectiveScope::inside()) {
    checked::wait_all_inside(1, &request);  // with checked mode's deadline
  } else if (blocking) {
    check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return false;
  }
  for (const Channel& c : channels_.receives()) channels_.unpack(c, dst_);
  return true;
}

}  // namespace detail
}  // namespace tessera
