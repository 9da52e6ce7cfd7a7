#include "tessera/exchange/mover.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <span>
#include <utility>

#include "copy_kernels.hpp"

namespace tessera {

using detail::copy_local_direct;
using detail::pack;
using detail::unpack_blocks;

namespace {

constexpr std::size_t kMessageUnit = 64;  // bytes; messages over INT_MAX bytes count in these

// A peer's data made of at most this many groups of equal rows, each row at least this long, is
// described to MPI with a datatype instead of being packed by us: MPI copies it into its transport
// buffers anyway, so our own pack and unpack copies would be pure overhead. Short or strided rows
// are packed by us, which is faster than MPI's generic datatype engine.
constexpr std::size_t kMaxTypedGroups = 64;
constexpr std::size_t kMinTypedRowBytes = 256;

/// Count and datatype of a message of `bytes` (both sides compute the same from the same size).
std::pair<int, MPI_Datatype> message_shape(std::size_t bytes, MPI_Datatype unit) {
  if (bytes <= static_cast<std::size_t>(INT_MAX)) return {static_cast<int>(bytes), MPI_BYTE};
  const std::size_t units = (bytes + kMessageUnit - 1) / kMessageUnit;
  if (units > static_cast<std::size_t>(INT_MAX))
    fail(ErrorCode::overflow, "Mover: a message of ", bytes, " bytes is too large");
  return {static_cast<int>(units), unit};
}

std::size_t padded(std::size_t bytes) {
  return bytes <= static_cast<std::size_t>(INT_MAX) ? bytes : (bytes + kMessageUnit - 1) / kMessageUnit * kMessageUnit;
}

}  // namespace

Mover::Mover(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::size_t element_size,
             CombineFn combine)
    : comm_(&comm),
      schedule_(std::move(schedule)),
      element_size_(element_size),
      combine_(combine),
      tag_(comm.next_tag()) {
  if (!schedule_) fail_argument("Mover", "schedule", "null", "must point to a compiled schedule");
  if (element_size == 0) fail_argument("Mover", "element_size", 0, "must be > 0");
  check_mpi(MPI_Type_contiguous(static_cast<int>(kMessageUnit), MPI_BYTE, &unit_), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&unit_), "MPI_Type_commit");
  const Schedule& s = *schedule_;
  const auto make = [&](const std::vector<PeerBlocks>& list, std::vector<Channel>& channels, bool receiving) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      Channel c;
      c.peer = list[i].peer;
      c.peer_index = i;
      c.bytes = static_cast<std::size_t>(list[i].elements) * element_size_;
      // In place only for one contiguous block, a message MPI can count in bytes, and (receiving)
      // no combine: combining needs the arriving values apart from the old ones.
      c.in_place = list[i].blocks.size() == 1 && s.contiguous(list[i].blocks[0]) &&
                   c.bytes <= static_cast<std::size_t>(INT_MAX) && !(receiving && combine_ != nullptr);
      if (!c.in_place && !(receiving && combine_ != nullptr)) c.type = stretches_type(list[i].blocks);
      if (!c.in_place && c.type == MPI_DATATYPE_NULL) {
        c.buffer.allocate(padded(c.bytes));
        ++stats_.buffer_allocations;
      }
      channels.push_back(std::move(c));
    }
  };
  make(s.sends, sends_, false);
  make(s.receives, receives_, true);
  send_requests_.assign(sends_.size(), MPI_REQUEST_NULL);
  receive_requests_.assign(receives_.size(), MPI_REQUEST_NULL);
  unpacked_.assign(receives_.size(), 0);
}

MPI_Datatype Mover::stretches_type(const std::vector<Block>& blocks) const {
  // One hvector per group of equal rows (a face of a 3-D array is one group of 256 rows, say),
  // joined by a struct type: MPI then copies straight between the array and its transport buffers.
  std::vector<MPI_Datatype> groups;
  std::vector<int> ones;
  std::vector<MPI_Aint> displacements;
  bool fits = true;
  const auto es = static_cast<index_t>(element_size_);
  for (const Block& b : blocks)
    schedule_->for_each_stretch_group(
        b, [&](index_t offset, index_t count, index_t stride, index_t rows, index_t row_stride) {
          const index_t bytes = count * es;
          fits = fits && (stride == 1 || count == 1) && bytes >= static_cast<index_t>(kMinTypedRowBytes) &&
                 bytes <= INT_MAX && rows <= INT_MAX && groups.size() < kMaxTypedGroups;
          if (!fits) return;
          MPI_Datatype rows_type = MPI_DATATYPE_NULL;
          check_mpi(MPI_Type_create_hvector(static_cast<int>(rows), static_cast<int>(bytes),
                                            static_cast<MPI_Aint>(row_stride * es), MPI_BYTE, &rows_type),
                    "MPI_Type_create_hvector");
          groups.push_back(rows_type);
          ones.push_back(1);
          displacements.push_back(static_cast<MPI_Aint>(offset * es));
        });
  MPI_Datatype type = MPI_DATATYPE_NULL;
  if (fits && !groups.empty()) {
    check_mpi(MPI_Type_create_struct(static_cast<int>(groups.size()), ones.data(), displacements.data(), groups.data(),
                                     &type),
              "MPI_Type_create_struct");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  }
  for (MPI_Datatype& g : groups) MPI_Type_free(&g);  // the struct keeps what it needs
  return type;
}

Mover::~Mover() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (in_flight_) {
    // Never leave MPI writing into memory we no longer describe: complete what was started.
    MPI_Waitall(static_cast<int>(receive_requests_.size()), receive_requests_.data(), MPI_STATUSES_IGNORE);
    MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE);
  }
  for (auto* channels : {&sends_, &receives_})
    for (Channel& c : *channels)
      if (c.type != MPI_DATATYPE_NULL) MPI_Type_free(&c.type);
  if (unit_ != MPI_DATATYPE_NULL) MPI_Type_free(&unit_);
}

Mover::Mover(Mover&& o) noexcept
    : comm_(o.comm_),
      schedule_(std::move(o.schedule_)),
      element_size_(o.element_size_),
      combine_(o.combine_),
      tag_(o.tag_),
      unit_(std::exchange(o.unit_, MPI_DATATYPE_NULL)),
      sends_(std::move(o.sends_)),  // the channels' datatypes move with them
      receives_(std::move(o.receives_)),
      staging_(std::move(o.staging_)),
      send_requests_(std::move(o.send_requests_)),
      receive_requests_(std::move(o.receive_requests_)),
      unpacked_(std::move(o.unpacked_)),
      receives_left_(o.receives_left_),
      src_(o.src_),
      dst_(o.dst_),
      in_flight_(std::exchange(o.in_flight_, false)),
      stats_(o.stats_) {}

void Mover::start(const void* src, void* dst) {
  if (in_flight_)
    fail_argument("Mover::start", "mover", "in flight", "must be completed with wait() before it starts again");
  src_ = static_cast<const std::byte*>(src);
  dst_ = static_cast<std::byte*>(dst);
  const Schedule& s = *schedule_;
  // Receives first, so that no message arrives unexpected.
  for (std::size_t i = 0; i < receives_.size(); ++i) {
    Channel& c = receives_[i];
    if (c.type != MPI_DATATYPE_NULL) {
      check_mpi(MPI_Irecv(dst_, 1, c.type, c.peer, tag_, comm_->raw(), &receive_requests_[i]), "MPI_Irecv");
      unpacked_[i] = 0;
      continue;
    }
    void* into = c.in_place ? static_cast<void*>(dst_ + s.contiguous_offset(s.receives[c.peer_index].blocks[0]) *
                                                            static_cast<index_t>(element_size_))
                            : static_cast<void*>(c.buffer.data());
    const auto [count, type] = message_shape(c.bytes, unit_);
    check_mpi(MPI_Irecv(into, count, type, c.peer, tag_, comm_->raw(), &receive_requests_[i]), "MPI_Irecv");
    unpacked_[i] = 0;
  }
  receives_left_ = receives_.size();
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    Channel& c = sends_[i];
    if (c.type != MPI_DATATYPE_NULL) {
      check_mpi(MPI_Isend(src_, 1, c.type, c.peer, tag_, comm_->raw(), &send_requests_[i]), "MPI_Isend");
      ++stats_.messages_sent;
      stats_.bytes_sent += c.bytes;
      continue;
    }
    const void* from;
    if (c.in_place) {
      from = src_ + s.contiguous_offset(s.sends[c.peer_index].blocks[0]) * static_cast<index_t>(element_size_);
    } else {
      const auto& blocks = s.sends[c.peer_index].blocks;
      pack(s, blocks.data(), blocks.data() + blocks.size(), src_, c.buffer.data(), element_size_);
      from = c.buffer.data();
    }
    const auto [count, type] = message_shape(c.bytes, unit_);
    check_mpi(MPI_Isend(from, count, type, c.peer, tag_, comm_->raw(), &send_requests_[i]), "MPI_Isend");
    ++stats_.messages_sent;
    stats_.bytes_sent += c.bytes;
  }
  // Local copies. Directly when no copy can read what another writes (different arrays, or a
  // schedule that says so); otherwise read everything, then write everything, so that overlapping
  // copies behave as if they all happened at once.
  if (!s.local_src.empty() && (s.local_disjoint || static_cast<const void*>(src_) != static_cast<const void*>(dst_))) {
    for (std::size_t k = 0; k < s.local_src.size(); ++k)
      copy_local_direct(s, s.local_src[k], s.local_dst[k], src_, dst_, element_size_, combine_);
    stats_.bytes_copied_locally += static_cast<std::uint64_t>(s.local_elements()) * element_size_;
  } else if (!s.local_src.empty()) {
    if (staging_.empty()) {  // only movers whose copies may overlap ever need it
      staging_.allocate(static_cast<std::size_t>(s.local_elements()) * element_size_);
      ++stats_.buffer_allocations;
    }
    pack(s, s.local_src.data(), s.local_src.data() + s.local_src.size(), src_, staging_.data(), element_size_);
    unpack_blocks(s, s.local_dst.data(), s.local_dst.data() + s.local_dst.size(), dst_, staging_.data(), element_size_,
                  combine_);
    stats_.bytes_copied_locally += staging_.size();
  }
  in_flight_ = true;
}

void Mover::unpack(const Channel& c) {
  if (c.in_place || c.type != MPI_DATATYPE_NULL) return;  // already where it belongs
  const auto& blocks = schedule_->receives[c.peer_index].blocks;
  unpack_blocks(*schedule_, blocks.data(), blocks.data() + blocks.size(), dst_, c.buffer.data(), element_size_,
                combine_);
}

void Mover::finish_receives(bool blocking) {
  while (receives_left_ > 0) {
    int index = MPI_UNDEFINED, flag = 0;
    if (blocking) {
      check_mpi(
          MPI_Waitany(static_cast<int>(receive_requests_.size()), receive_requests_.data(), &index, MPI_STATUS_IGNORE),
          "MPI_Waitany");
    } else {
      check_mpi(MPI_Testany(static_cast<int>(receive_requests_.size()), receive_requests_.data(), &index, &flag,
                            MPI_STATUS_IGNORE),
                "MPI_Testany");
      if (!flag || index == MPI_UNDEFINED) return;
    }
    if (index == MPI_UNDEFINED) break;
    const auto i = static_cast<std::size_t>(index);
    if (!unpacked_[i]) {
      unpack(receives_[i]);
      unpacked_[i] = 1;
      --receives_left_;
    }
  }
}

void Mover::wait() {
  if (!in_flight_) return;
  finish_receives(true);
  check_mpi(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  in_flight_ = false;
  ++stats_.executions;
}

bool Mover::test() {
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

}  // namespace tessera
