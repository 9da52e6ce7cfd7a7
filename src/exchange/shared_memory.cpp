#include "shared_memory.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <exception>
#include <new>
#include <utility>

namespace tessera::detail {

std::vector<StretchGroup> stretch_groups(const Schedule& s, const std::vector<Block>& blocks) {
  std::vector<StretchGroup> groups;
  for (const Block& b : blocks)
    s.for_each_stretch_group(b, [&](index_t offset, index_t count, index_t stride, index_t rows, index_t row_stride) {
      groups.push_back({offset, count, stride, rows, row_stride});
    });
  return groups;
}

namespace {

struct Stretch {
  index_t offset, count, stride;
};

std::vector<Stretch> stretches_of(const std::vector<StretchGroup>& groups) {
  std::vector<Stretch> out;
  for (const StretchGroup& g : groups)
    for (index_t r = 0; r < g.rows; ++r) out.push_back({g.offset + r * g.row_stride, g.count, g.stride});
  return out;
}

index_t elements_of(const std::vector<StretchGroup>& groups) {
  index_t n = 0;
  for (const StretchGroup& g : groups) n += g.count * g.rows;
  return n;
}

// Strided element copies of a fixed size: a loop the compiler turns into plain loads and stores.
template <class Word>
void copy_strided(const std::byte* from, index_t from_stride, std::byte* into, index_t into_stride,
                  index_t count) noexcept {
  for (index_t e = 0; e < count; ++e) {
    Word w;
    std::memcpy(&w, from + e * from_stride * index_t{sizeof(Word)}, sizeof(Word));
    std::memcpy(into + e * into_stride * index_t{sizeof(Word)}, &w, sizeof(Word));
  }
}

}  // namespace

std::vector<CopyRun> pair_runs(const std::vector<StretchGroup>& from, const std::vector<StretchGroup>& into) {
  if (elements_of(from) != elements_of(into))
    fail(ErrorCode::internal, "SharedMemory: the owner's blocks hold ", elements_of(from),
         " elements but the reader's hold ", elements_of(into));
  std::vector<CopyRun> runs;
  bool same_shapes = from.size() == into.size();
  for (std::size_t i = 0; same_shapes && i < from.size(); ++i)
    same_shapes = from[i].count == into[i].count && from[i].rows == into[i].rows;
  if (same_shapes) {  // the usual case: a face onto a face
    for (std::size_t i = 0; i < from.size(); ++i)
      runs.push_back({from[i].offset, into[i].offset, from[i].count, from[i].stride, into[i].stride, from[i].rows,
                      from[i].row_stride, into[i].row_stride});
    return runs;
  }
  const std::vector<Stretch> a = stretches_of(from), b = stretches_of(into);
  std::size_t i = 0, j = 0;
  index_t used_a = 0, used_b = 0;
  while (i < a.size() && j < b.size()) {
    const index_t n = std::min(a[i].count - used_a, b[j].count - used_b);
    if (n > 0)
      runs.push_back({a[i].offset + used_a * a[i].stride, b[j].offset + used_b * b[j].stride, n, a[i].stride,
                      b[j].stride, 1, 0, 0});
    used_a += n;
    used_b += n;
    if (used_a == a[i].count) ++i, used_a = 0;
    if (used_b == b[j].count) ++j, used_b = 0;
  }
  return runs;
}

void copy_runs(const std::vector<CopyRun>& runs, const std::byte* from, std::byte* into, std::size_t es,
               CombineFn combine) noexcept {
  const auto e = static_cast<index_t>(es);
  for (const CopyRun& r : runs)
    for (index_t row = 0; row < r.rows; ++row) {
      const std::byte* s = from + (r.src + row * r.src_row_stride) * e;
      std::byte* d = into + (r.dst + row * r.dst_row_stride) * e;
      if (r.src_stride == 1 && r.dst_stride == 1) {
        if (combine)
          combine(d, s, r.count);
        else
          std::memcpy(d, s, static_cast<std::size_t>(r.count) * es);
      } else if (combine) {
        for (index_t k = 0; k < r.count; ++k) combine(d + k * r.dst_stride * e, s + k * r.src_stride * e, 1);
      } else if (es == 8) {
        copy_strided<std::uint64_t>(s, r.src_stride, d, r.dst_stride, r.count);
      } else if (es == 4) {
        copy_strided<std::uint32_t>(s, r.src_stride, d, r.dst_stride, r.count);
      } else {
        for (index_t k = 0; k < r.count; ++k) std::memcpy(d + k * r.dst_stride * e, s + k * r.src_stride * e, es);
      }
    }
}

SharedGeometry::SharedGeometry(const Communicator& comm, const Schedule& s)
    : context_(node_context(comm)), header_tag_(comm.next_tag()), done_tag_(comm.next_tag()) {
  // Every owner sends each reader on the node its blocks for that reader (sends first and
  // non-blocking, so no rank waits on another's receive); every reader pairs them with its own.
  // A rank that cannot allocate sends one byte instead (not a whole StretchGroup: "failed") and
  // still receives every message meant for it, then throws.
  const auto on_node = [&](int peer) { return context_->node_rank[static_cast<std::size_t>(peer)] >= 0 ? 1 : 0; };
  for (const PeerBlocks& p : s.sends) send_on_node_.push_back(static_cast<char>(on_node(p.peer)));
  for (const PeerBlocks& p : s.receives) receive_on_node_.push_back(static_cast<char>(on_node(p.peer)));
  std::exception_ptr failure;
  std::vector<std::vector<StretchGroup>> mine;
  try {
    mine.resize(s.sends.size());
    runs_.resize(s.receives.size());
    for (std::size_t i = 0; i < s.sends.size(); ++i)
      if (send_on_node_[i]) mine[i] = stretch_groups(s, s.sends[i].blocks);
  } catch (...) {
    failure = std::current_exception();
    mine.clear();
  }
  static const char failed = 0;
  RequestPool sent(s.sends.size());
  for (std::size_t i = 0; i < s.sends.size(); ++i) {
    if (!send_on_node_[i]) continue;
    const bool have = i < mine.size();
    const std::size_t bytes = have ? mine[i].size() * sizeof(StretchGroup) : 1;
    if (bytes > static_cast<std::size_t>(INT_MAX))
      fail(ErrorCode::overflow, "SharedMemory: the blocks for rank ", s.sends[i].peer, " take ", bytes, " bytes");
    const void* data = have && !mine[i].empty() ? static_cast<const void*>(mine[i].data()) : &failed;
    check_mpi(MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, s.sends[i].peer, header_tag_, comm.raw(), sent[i]),
              "MPI_Isend");
  }
  for (std::size_t i = 0; i < s.receives.size(); ++i) {
    if (!receive_on_node_[i]) continue;
    const int peer = s.receives[i].peer;
    MPI_Status status;
    check_mpi(MPI_Probe(peer, header_tag_, comm.raw(), &status), "MPI_Probe");
    int bytes = 0;
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
    bool taken = false;  // the message is off the line
    try {
      if (failure || bytes % static_cast<int>(sizeof(StretchGroup)) != 0) throw std::bad_alloc();  // consume it below
      std::vector<StretchGroup> theirs(static_cast<std::size_t>(bytes) / sizeof(StretchGroup));
      const int rc = MPI_Recv(theirs.empty() ? static_cast<void*>(&theirs) : static_cast<void*>(theirs.data()), bytes,
                              MPI_BYTE, peer, header_tag_, comm.raw(), MPI_STATUS_IGNORE);
      taken = true;
      check_mpi(rc, "MPI_Recv");
      runs_[i] = pair_runs(theirs, stretch_groups(s, s.receives[i].blocks));  // may fail after the receive
    } catch (const std::bad_alloc&) {
      // This rank or the owner failed: take the message off the line (truncated into nothing),
      // unless it was received before this rank's own allocation failed (a second receive would
      // wait for a message that never comes), so that it never meets a later receive; the mover
      // is thrown away on every rank.
      char sink = 0;
      if (!taken) MPI_Recv(&sink, 0, MPI_BYTE, peer, header_tag_, comm.raw(), MPI_STATUS_IGNORE);
      if (!failure && bytes % static_cast<int>(sizeof(StretchGroup)) == 0) failure = std::current_exception();
    }
  }
  sent.wait_all();
  if (failure) std::rethrow_exception(failure);
}

std::unique_ptr<MoveMethod> make_shared_memory(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                                               std::vector<Binding> bindings, int tag, const char* owner) {
  SharedGeometry geometry(comm, *schedule);
  return std::make_unique<SharedMemory>(std::move(geometry), comm, std::move(schedule), std::move(bindings), tag,
                                        owner);
}

SharedMemory::SharedMemory(SharedGeometry geometry, const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                           std::vector<Binding> bindings, int tag, const char* owner)
    : SharedGeometry(std::move(geometry)),
      MoveMethod(comm, std::move(schedule), std::move(bindings), tag, owner, ChannelLayout::direct),
      header_out_(channels().sends().size()),
      header_in_(channels().receives().size()),
      waiting_(channels().receives().size(), Waiting::nothing),
      receives_(channels().receives().size()),
      sends_(channels().sends().size()),
      follow_(channels().sends().size()),
      done_sends_(channels().receives().size()) {}

void SharedMemory::post() {
  const MPI_Comm raw = comm().raw();
  const auto& receives = channels().receives();
  for (std::size_t i = 0; i < receives.size(); ++i) {
    const Channel& c = receives[i];
    if (receive_on_node_[i]) {
      check_mpi(MPI_Irecv(&header_in_[i], sizeof(Header), MPI_BYTE, c.peer, header_tag_, raw, receives_[i]),
                "MPI_Irecv");
      waiting_[i] = Waiting::header;
    } else {
      const auto [count, type] = channels().shape(c);
      check_mpi(MPI_Irecv(channels().incoming(c, dst()), count, type, c.peer, tag(), raw, receives_[i]), "MPI_Irecv");
      waiting_[i] = Waiting::data;
    }
  }
  receives_left_ = receives.size();
  const auto& sends = channels().sends();
  const SharedLocation at = locate_shared(*context_, src()[0]);
  source_window_ = at.window;
  // The values to be read are final now: make them visible before any header says so.
  if (source_window_) check_mpi(MPI_Win_sync(source_window_->win), "MPI_Win_sync");
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const Channel& c = sends[i];
    if (send_on_node_[i]) {
      header_out_[i] = source_window_ ? Header{source_window_->number, at.offset} : Header{};
      check_mpi(MPI_Isend(&header_out_[i], sizeof(Header), MPI_BYTE, c.peer, header_tag_, raw, sends_[i]),
                "MPI_Isend");
      if (source_window_) {
        check_mpi(MPI_Irecv(&empty_, 0, MPI_BYTE, c.peer, done_tag_, raw, follow_[i]), "MPI_Irecv");
        continue;
      }
    }
    const void* from = channels().outgoing(c, src());  // packs first where needed
    const auto [count, type] = channels().shape(c);
    MPI_Request* request = send_on_node_[i] ? follow_[i] : sends_[i];
    check_mpi(MPI_Isend(from, count, type, c.peer, tag(), raw, request), "MPI_Isend");
  }
}

bool SharedMemory::arrived(std::size_t i) {
  const Channel& c = channels().receives()[i];
  if (waiting_[i] == Waiting::header && header_in_[i].window == 0) {  // no window: the data follows
    const auto [count, type] = channels().shape(c);
    check_mpi(MPI_Irecv(channels().incoming(c, dst()), count, type, c.peer, tag(), comm().raw(), receives_[i]),
              "MPI_Irecv");
    waiting_[i] = Waiting::data;
    return false;
  }
  if (waiting_[i] == Waiting::header) {
    copy_from_owner(i);
    check_mpi(MPI_Isend(&empty_, 0, MPI_BYTE, c.peer, done_tag_, comm().raw(), done_sends_[i]), "MPI_Isend");
  } else {
    channels().unpack(c, dst());
  }
  waiting_[i] = Waiting::nothing;
  return true;
}

void SharedMemory::copy_from_owner(std::size_t i) {
  const Channel& c = channels().receives()[i];
  const Header& h = header_in_[i];
  const auto found = context_->windows.find(h.window);
  if (found == context_->windows.end())
    fail(ErrorCode::internal, "SharedMemory: rank ", c.peer, " names shared window ", h.window,
         ", which this rank does not hold (storage allocated out of step?)");
  const SharedWindow& w = *found->second;
  const std::byte* segment = w.segments[static_cast<std::size_t>(context_->node_rank[static_cast<std::size_t>(c.peer)])];
  check_mpi(MPI_Win_sync(w.win), "MPI_Win_sync");  // see the owner's stores before loading
  const Binding& b = bindings().front();
  copy_runs(runs_[i], segment + h.offset, dst()[0], b.element_size, b.combine);
  check_mpi(MPI_Win_sync(w.win), "MPI_Win_sync");  // loads done before "done" lets the owner write
  counters().bytes_copied_from_peers += c.bytes;
}

bool SharedMemory::receive(bool blocking) {
  // A completed request becomes MPI_REQUEST_NULL; a header without a window re-arms its slot.
  while (receives_left_ > 0) {
    const auto i = receives_.any(blocking);
    if (!i) return false;
    if (arrived(*i)) --receives_left_;
  }
  return true;
}

void SharedMemory::synchronise_own_window() {
  // Every reader is done: order this rank's next stores into its storage after their loads.
  if (source_window_) check_mpi(MPI_Win_sync(source_window_->win), "MPI_Win_sync");
}

void SharedMemory::complete() {
  (void)receive(true);  // blocking: always true
  sends_.wait_all();
  follow_.wait_all();
  done_sends_.wait_all();
  synchronise_own_window();
}

bool SharedMemory::poll() {
  if (!receive(false)) return false;
  if (!sends_.test_all() || !follow_.test_all() || !done_sends_.test_all()) return false;
  synchronise_own_window();
  return true;
}

}  // namespace tessera::detail
