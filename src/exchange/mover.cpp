#include "tessera/exchange/mover.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
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

namespace {

// A peer's data made of at most this many groups of equal rows, each row at least this long, is
// described to MPI with a datatype instead of being packed by us: MPI copies it into its transport
// buffers anyway, so our own pack and unpack copies would be pure overhead. Short or strided rows
// are packed by us, which is faster than MPI's generic datatype engine.
constexpr std::size_t kMaxTypedGroups = 64;
constexpr std::size_t kMinTypedRowBytes = 256;

}  // namespace

const char* to_string(MoveAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case MoveAlgorithm::automatic:
      return "automatic";
    case MoveAlgorithm::point_to_point:
      return "point_to_point";
    case MoveAlgorithm::alltoallv:
      return "alltoallv";
    case MoveAlgorithm::neighborhood:
      return "neighborhood";
  }
  return "unknown";
}

MoveAlgorithm parse_move_algorithm(std::string_view text, std::string_view source) {
  if (text == "automatic" || text == "auto") return MoveAlgorithm::automatic;
  if (text == "point_to_point" || text == "point-to-point" || text == "p2p") return MoveAlgorithm::point_to_point;
  if (text == "alltoallv") return MoveAlgorithm::alltoallv;
  if (text == "neighborhood" || text == "neighbourhood" || text == "neighbor") return MoveAlgorithm::neighborhood;
  fail_argument(source, "value", std::string(text),
                "is not a move algorithm (automatic, point_to_point, alltoallv or neighborhood)");
}

namespace detail {
MoveAlgorithm read_move_algorithm_environment() {
  const char* value = std::getenv("TESSERA_MOVE_ALGORITHM");
  if (value == nullptr || *value == '\0') return MoveAlgorithm::automatic;
  return parse_move_algorithm(value, "environment variable TESSERA_MOVE_ALGORITHM");
}
}  // namespace detail

MoveAlgorithm environment_move_algorithm() {
  // A throwing initialiser leaves the static uninitialised: a bad value throws on every call.
  static const MoveAlgorithm from_environment = detail::read_move_algorithm_environment();
  return from_environment;
}

Mover::Mover(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::size_t element_size,
             CombineFn combine, MoveAlgorithm algorithm)
    : comm_(&comm),
      schedule_(std::move(schedule)),
      element_size_(element_size),
      combine_(combine),
      tag_(comm.next_tag()) {
  if (!schedule_) fail_argument("Mover", "schedule", "null", "must point to a compiled schedule");
  if (element_size == 0) fail_argument("Mover", "element_size", 0, "must be > 0");
  if (algorithm != MoveAlgorithm::automatic && algorithm != MoveAlgorithm::point_to_point &&
      algorithm != MoveAlgorithm::alltoallv && algorithm != MoveAlgorithm::neighborhood)
    fail_argument("Mover", "algorithm", static_cast<int>(algorithm), "is not a tessera::MoveAlgorithm");
  if (algorithm == MoveAlgorithm::automatic) algorithm = environment_move_algorithm();
  algorithm_ = choose(algorithm);
  check_mpi(MPI_Type_contiguous(static_cast<int>(kMessageUnit), MPI_BYTE, &unit_), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&unit_), "MPI_Type_commit");
  if (algorithm_ == MoveAlgorithm::alltoallv)
    make_alltoallv();
  else
    make_channels();
  if (algorithm_ == MoveAlgorithm::neighborhood) make_neighborhood();
}

MoveAlgorithm Mover::choose(MoveAlgorithm requested) const {
  const Schedule& s = *schedule_;
  const int ranks = comm_->size();
  if (requested == MoveAlgorithm::point_to_point) return requested;
  if (requested == MoveAlgorithm::automatic && ranks < kAutomaticMinRanks) return MoveAlgorithm::point_to_point;
  // What every rank needs to reach the same choice: one allreduce (MPI_MAX) of a few numbers.
  std::size_t largest = 0, send_total = 0, receive_total = 0;
  for (const auto& p : s.sends) {
    largest = std::max(largest, static_cast<std::size_t>(p.elements) * element_size_);
    send_total += static_cast<std::size_t>(p.elements) * element_size_;
  }
  for (const auto& p : s.receives) receive_total += static_cast<std::size_t>(p.elements) * element_size_;
  const auto code = static_cast<std::int64_t>(requested);
  std::array<std::int64_t, 5> v{
      code, -code, std::max(send_total, receive_total) > static_cast<std::size_t>(INT_MAX) ? 1 : 0,
      static_cast<std::int64_t>(std::max(s.sends.size(), s.receives.size())), static_cast<std::int64_t>(largest)};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_INT64_T, MPI_MAX, comm_->raw()),
            "MPI_Allreduce");
  if (v[0] != -v[1])
    fail(ErrorCode::invalid_argument,
         "Mover: the ranks asked for different move algorithms (this rank: ", to_string(requested),
         "); pass the same algorithm, and set TESSERA_MOVE_ALGORITHM alike, on every rank");
  const bool too_large = v[2] != 0;
  const std::int64_t peers = v[3], message = v[4];
  if (requested == MoveAlgorithm::automatic) {
    // Dense and small: one collective beats many messages. Sparse or large: point-to-point
    // (its in-place and datatype channels save the pack copies).
    const bool dense = 2 * peers >= ranks - 1 && peers >= 2;
    requested = dense && message <= static_cast<std::int64_t>(kAlltoallvMaxMessageBytes)
                    ? MoveAlgorithm::alltoallv
                    : MoveAlgorithm::point_to_point;
  }
  if (requested == MoveAlgorithm::alltoallv && too_large) return MoveAlgorithm::point_to_point;
  return requested;
}

void Mover::make_channels() {
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

void Mover::make_alltoallv() {
  // Channels without buffers of their own: they only remember peer, size and where their part of
  // the one packed buffer starts (peer_index is the schedule's index, as for point-to-point).
  const Schedule& s = *schedule_;
  const auto ranks = static_cast<std::size_t>(comm_->size());
  send_counts_.assign(ranks, 0);
  send_displs_.assign(ranks, 0);
  receive_counts_.assign(ranks, 0);
  receive_displs_.assign(ranks, 0);
  const auto make = [&](const std::vector<PeerBlocks>& list, std::vector<Channel>& channels, std::vector<int>& counts,
                        std::vector<int>& displs) {
    std::size_t offset = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      Channel c;
      c.peer = list[i].peer;
      c.peer_index = i;
      c.bytes = static_cast<std::size_t>(list[i].elements) * element_size_;
      counts[static_cast<std::size_t>(c.peer)] = static_cast<int>(c.bytes);  // totals <= INT_MAX: choose() checked
      displs[static_cast<std::size_t>(c.peer)] = static_cast<int>(offset);
      offset += c.bytes;
      channels.push_back(std::move(c));
    }
    return offset;
  };
  const std::size_t send_bytes = make(s.sends, sends_, send_counts_, send_displs_);
  const std::size_t receive_bytes = make(s.receives, receives_, receive_counts_, receive_displs_);
  all_send_.allocate(std::max<std::size_t>(send_bytes, 1));
  all_receive_.allocate(std::max<std::size_t>(receive_bytes, 1));
  stats_.buffer_allocations += 2;
}

void Mover::make_neighborhood() {
  std::vector<int> sources, destinations;
  for (const Channel& c : receives_) sources.push_back(c.peer);
  for (const Channel& c : sends_) destinations.push_back(c.peer);
  check_mpi(MPI_Dist_graph_create_adjacent(comm_->raw(), static_cast<int>(sources.size()), sources.data(),
                                           MPI_UNWEIGHTED, static_cast<int>(destinations.size()), destinations.data(),
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph_),
            "MPI_Dist_graph_create_adjacent");
  check_mpi(MPI_Comm_set_errhandler(graph_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  // Counts and types are fixed now; addresses depend on the arrays and are filled in by start().
  const auto describe = [&](const std::vector<Channel>& channels, std::vector<int>& counts,
                            std::vector<MPI_Datatype>& types, std::vector<MPI_Aint>& addresses) {
    for (const Channel& c : channels) {
      if (c.type != MPI_DATATYPE_NULL) {
        counts.push_back(1);
        types.push_back(c.type);
      } else {
        const auto [count, type] = message_shape(c.bytes, unit_, "Mover");
        counts.push_back(count);
        types.push_back(type);
      }
    }
    addresses.assign(channels.size(), 0);
  };
  describe(sends_, nsend_counts_, nsend_types_, nsend_addresses_);
  describe(receives_, nreceive_counts_, nreceive_types_, nreceive_addresses_);
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
    if (collective_ != MPI_REQUEST_NULL) MPI_Wait(&collective_, MPI_STATUS_IGNORE);
  }
  if (graph_ != MPI_COMM_NULL) MPI_Comm_free(&graph_);
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
      stats_(o.stats_),
      algorithm_(o.algorithm_),
      collective_(std::exchange(o.collective_, MPI_REQUEST_NULL)),
      all_send_(std::move(o.all_send_)),
      all_receive_(std::move(o.all_receive_)),
      send_counts_(std::move(o.send_counts_)),
      send_displs_(std::move(o.send_displs_)),
      receive_counts_(std::move(o.receive_counts_)),
      receive_displs_(std::move(o.receive_displs_)),
      graph_(std::exchange(o.graph_, MPI_COMM_NULL)),
      nsend_counts_(std::move(o.nsend_counts_)),
      nreceive_counts_(std::move(o.nreceive_counts_)),
      nsend_addresses_(std::move(o.nsend_addresses_)),
      nreceive_addresses_(std::move(o.nreceive_addresses_)),
      nsend_types_(std::move(o.nsend_types_)),
      nreceive_types_(std::move(o.nreceive_types_)) {}

void Mover::start(const void* src, void* dst) {
  if (in_flight_)
    fail_argument("Mover::start", "mover", "in flight", "must be completed with wait() before it starts again");
  src_ = static_cast<const std::byte*>(src);
  dst_ = static_cast<std::byte*>(dst);
  if (algorithm_ == MoveAlgorithm::alltoallv) {
    start_alltoallv();
    return;
  }
  if (algorithm_ == MoveAlgorithm::neighborhood) {
    start_neighborhood();
    return;
  }
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
    const auto [count, type] = message_shape(c.bytes, unit_, "Mover");
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
    const auto [count, type] = message_shape(c.bytes, unit_, "Mover");
    check_mpi(MPI_Isend(from, count, type, c.peer, tag_, comm_->raw(), &send_requests_[i]), "MPI_Isend");
    ++stats_.messages_sent;
    stats_.bytes_sent += c.bytes;
  }
  copy_locally();
  in_flight_ = true;
}

void Mover::copy_locally() {
  // Local copies (see detail::copy_locals); only movers whose copies may overlap ever need staging.
  const Schedule& s = *schedule_;
  if (s.local_src.empty()) return;
  if (detail::local_copies_need_staging(s, src_, dst_) && staging_.empty()) {
    staging_.allocate(static_cast<std::size_t>(s.local_elements()) * element_size_);
    ++stats_.buffer_allocations;
  }
  detail::copy_locals(s, src_, dst_, element_size_, combine_, staging_.data());
  stats_.bytes_copied_locally += static_cast<std::uint64_t>(s.local_elements()) * element_size_;
}

void Mover::start_alltoallv() {
  const Schedule& s = *schedule_;
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    const Channel& c = sends_[i];
    const auto& blocks = s.sends[c.peer_index].blocks;
    pack(s, blocks.data(), blocks.data() + blocks.size(), src_,
         all_send_.data() + send_displs_[static_cast<std::size_t>(c.peer)], element_size_);
    ++stats_.messages_sent;
    stats_.bytes_sent += c.bytes;
  }
  check_mpi(MPI_Ialltoallv(all_send_.data(), send_counts_.data(), send_displs_.data(), MPI_BYTE, all_receive_.data(),
                           receive_counts_.data(), receive_displs_.data(), MPI_BYTE, comm_->raw(), &collective_),
            "MPI_Ialltoallv");
  copy_locally();
  in_flight_ = true;
}

void Mover::start_neighborhood() {
  const Schedule& s = *schedule_;
  const auto es = static_cast<index_t>(element_size_);
  // Every part is described by its absolute address (MPI_BOTTOM): the array itself for datatype
  // and in-place channels, the channel's buffer otherwise.
  const auto address = [](const void* p) {
    MPI_Aint a = 0;
    check_mpi(MPI_Get_address(p, &a), "MPI_Get_address");
    return a;
  };
  for (std::size_t i = 0; i < receives_.size(); ++i) {
    const Channel& c = receives_[i];
    const void* into =
        c.type != MPI_DATATYPE_NULL ? static_cast<const void*>(dst_)
        : c.in_place ? static_cast<const void*>(dst_ + s.contiguous_offset(s.receives[c.peer_index].blocks[0]) * es)
                     : static_cast<const void*>(c.buffer.data());
    nreceive_addresses_[i] = address(into);
  }
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    Channel& c = sends_[i];
    const void* from = src_;
    if (c.in_place) {
      from = src_ + s.contiguous_offset(s.sends[c.peer_index].blocks[0]) * es;
    } else if (c.type == MPI_DATATYPE_NULL) {
      const auto& blocks = s.sends[c.peer_index].blocks;
      pack(s, blocks.data(), blocks.data() + blocks.size(), src_, c.buffer.data(), element_size_);
      from = c.buffer.data();
    }
    nsend_addresses_[i] = address(from);
    ++stats_.messages_sent;
    stats_.bytes_sent += c.bytes;
  }
  check_mpi(MPI_Ineighbor_alltoallw(MPI_BOTTOM, nsend_counts_.data(), nsend_addresses_.data(), nsend_types_.data(),
                                    MPI_BOTTOM, nreceive_counts_.data(), nreceive_addresses_.data(),
                                    nreceive_types_.data(), graph_, &collective_),
            "MPI_Ineighbor_alltoallw");
  copy_locally();
  in_flight_ = true;
}

void Mover::finish_collective() {
  if (algorithm_ == MoveAlgorithm::alltoallv) {
    const Schedule& s = *schedule_;
    for (const Channel& c : receives_) {
      const auto& blocks = s.receives[c.peer_index].blocks;
      unpack_blocks(s, blocks.data(), blocks.data() + blocks.size(), dst_,
                    all_receive_.data() + receive_displs_[static_cast<std::size_t>(c.peer)], element_size_, combine_);
    }
  } else {
    for (const Channel& c : receives_) unpack(c);
  }
  in_flight_ = false;
  ++stats_.executions;
}

void Mover::unpack(const Channel& c) {
  if (c.in_place || c.type != MPI_DATATYPE_NULL) return;  // already where it belongs
  const auto& blocks = schedule_->receives[c.peer_index].blocks;
  unpack_blocks(*schedule_, blocks.data(), blocks.data() + blocks.size(), dst_, c.buffer.data(), element_size_,
                combine_);
}

void Mover::finish_receives(bool blocking) {
  detail::finish_receives(receive_requests_, unpacked_, receives_left_, blocking,
                          [&](std::size_t i) { unpack(receives_[i]); });
}

void Mover::wait() {
  if (!in_flight_) return;
  if (algorithm_ != MoveAlgorithm::point_to_point) {
    check_mpi(MPI_Wait(&collective_, MPI_STATUS_IGNORE), "MPI_Wait");
    finish_collective();
    return;
  }
  finish_receives(true);
  check_mpi(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  in_flight_ = false;
  ++stats_.executions;
}

bool Mover::test() {
  if (!in_flight_) return true;
  if (algorithm_ != MoveAlgorithm::point_to_point) {
    int done = 0;
    check_mpi(MPI_Test(&collective_, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return false;
    finish_collective();
    return true;
  }
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
