#include "tessera/exchange/communicator.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "checked_board.hpp"
#include "tessera/exchange/allocation_agreement.hpp"

namespace tessera {
namespace {

// MPI may reject a null buffer even for zero items: empty spans point here instead.
unsigned char empty_buffer[1];

void* or_empty(void* p) noexcept { return p != nullptr ? p : empty_buffer; }
const void* or_empty(const void* p) noexcept { return p != nullptr ? p : empty_buffer; }

// MPI counts are ints: larger pieces are cut at 1 GiB where a call can be split.
constexpr std::size_t kChunkBytes = std::size_t{1} << 30;

int to_count(std::size_t n, std::string_view call, std::string_view what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    fail(ErrorCode::overflow, call, ": ", n, " ", what, " do not fit in an MPI count (at most ", INT_MAX, ")");
  return static_cast<int>(n);
}

// Byte counts and displacements for one v-collective: counts[r] items of item_size bytes each.
struct ByteLayout {
  std::vector<int> counts, displacements;
};

ByteLayout byte_layout(std::span<const int> counts, std::size_t item_size, std::string_view call) {
  ByteLayout out{std::vector<int>(counts.size()), std::vector<int>(counts.size())};
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const auto bytes = static_cast<std::size_t>(counts[r]) * item_size;
    out.counts[r] = to_count(bytes, call, "bytes from or to one rank");
    out.displacements[r] = to_count(total, call, "bytes before one rank's part");
    total += bytes;
  }
  (void)to_count(total, call, "bytes in all");
  return out;
}

MPI_Datatype datatype_of(detail::ArithmeticType type) {
  using Kind = detail::ArithmeticType::Kind;
  switch (type.kind) {
    case Kind::boolean:
      if (type.bytes == sizeof(bool)) return MPI_CXX_BOOL;
      break;
    case Kind::floating:
      if (type.bytes == sizeof(float)) return MPI_FLOAT;
      if (type.bytes == sizeof(double)) return MPI_DOUBLE;
      if (type.bytes == sizeof(long double)) return MPI_LONG_DOUBLE;
      break;
    case Kind::signed_integer:
      switch (type.bytes) {
        case 1: return MPI_INT8_T;
        case 2: return MPI_INT16_T;
        case 4: return MPI_INT32_T;
        case 8: return MPI_INT64_T;
        default: break;
      }
      break;
    case Kind::unsigned_integer:
      switch (type.bytes) {
        case 1: return MPI_UINT8_T;
        case 2: return MPI_UINT16_T;
        case 4: return MPI_UINT32_T;
        case 8: return MPI_UINT64_T;
        default: break;
      }
      break;
  }
  fail(ErrorCode::invalid_argument, "Communicator::allreduce: no MPI datatype for an arithmetic type of ",
       static_cast<int>(type.bytes), " bytes");
}

MPI_Op op_of(ReduceOp op, detail::ArithmeticType type) {
  const bool logical = op == ReduceOp::logical_and || op == ReduceOp::logical_or;
  // MPI defines the logical reductions on integers and booleans only.
  if (logical && type.kind == detail::ArithmeticType::floating)
    fail(ErrorCode::invalid_argument, "Communicator::allreduce: a logical reduction of floating-point values");
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::logical_and: return MPI_LAND;
    case ReduceOp::logical_or: return MPI_LOR;
  }
  fail(ErrorCode::internal, "Communicator::allreduce: unknown ReduceOp ", static_cast<int>(op));
}

}  // namespace

bool mpi_initialized() noexcept {
  int flag = 0;
  return MPI_Initialized(&flag) == MPI_SUCCESS && flag != 0;
}

bool mpi_finalized() noexcept {
  int flag = 0;
  return MPI_Finalized(&flag) == MPI_SUCCESS && flag != 0;
}

void check_mpi(int rc, std::string_view call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  fail(ErrorCode::mpi, call, " failed: ", std::string(text, static_cast<std::size_t>(length)), " (code ", rc, ")");
}

Communicator::Communicator(MPI_Comm user) {
  if (user == MPI_COMM_NULL) fail_argument("Communicator", "user", "MPI_COMM_NULL", "is not a communicator");
  check_mpi(MPI_Comm_dup(user, &comm_), "MPI_Comm_dup");
  check_mpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  // Checked mode's hang board is made here, where every rank is (making it is collective).
  try {
    detail::checked::attach_if_checked(comm_);
  } catch (...) {
    MPI_Comm_free(&comm_);
    throw;
  }
}

Communicator::~Communicator() {
  // Freeing after MPI_Finalize is illegal; a communicator that outlives MPI just goes away.
  if (comm_ != MPI_COMM_NULL && !mpi_finalized()) MPI_Comm_free(&comm_);
}

Communicator::Communicator(Communicator&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      rank_(other.rank_),
      size_(other.size_),
      tag_counter_(other.tag_counter_) {}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
  if (this != &other) {
    Communicator dying(std::move(*this));
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    rank_ = other.rank_;
    size_ = other.size_;
    tag_counter_ = other.tag_counter_;
  }
  return *this;
}

double Communicator::wtime() noexcept { return MPI_Wtime(); }

void Communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

void Communicator::bcast_bytes(void* data, std::size_t bytes, int root) const {
  auto* p = static_cast<unsigned char*>(or_empty(data));
  // A zero-length broadcast is still made: every rank must make the same calls.
  std::size_t done = 0;
  do {
    const std::size_t n = std::min(kChunkBytes, bytes - done);
    check_mpi(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, comm_), "MPI_Bcast");
    done += n;
  } while (done < bytes);
}

void Communicator::allgather_bytes(const void* mine, std::size_t bytes, void* all) const {
  const int n = to_count(bytes, "Communicator::allgather", "bytes per rank");
  (void)to_count(bytes * static_cast<std::size_t>(size_), "Communicator::allgather", "bytes in all");
  check_mpi(MPI_Allgather(or_empty(mine), n, MPI_BYTE, or_empty(all), n, MPI_BYTE, comm_), "MPI_Allgather");
}

std::vector<int> Communicator::gather_counts(std::size_t mine, std::string_view call) const {
  // The check is local, so a rank with too many items would leave the others in the allgather:
  // every rank contributes -1 instead and all of them fail alike.
  const int count = mine > static_cast<std::size_t>(INT_MAX) ? -1 : static_cast<int>(mine);
  std::vector<int> counts = allgather(count);
  const auto bad = std::find(counts.begin(), counts.end(), -1);
  if (bad != counts.end())
    fail(ErrorCode::overflow, call, ": rank ", bad - counts.begin(), "'s items do not fit in an MPI count (at most ",
         INT_MAX, ")");
  return counts;
}

void Communicator::allgatherv_bytes(const void* mine, std::span<const int> counts, std::size_t item_size,
                                    void* out) const {
  const ByteLayout bytes = byte_layout(counts, item_size, "Communicator::allgatherv");
  check_mpi(MPI_Allgatherv(or_empty(mine), bytes.counts[static_cast<std::size_t>(rank_)], MPI_BYTE, or_empty(out),
                           bytes.counts.data(), bytes.displacements.data(), MPI_BYTE, comm_),
            "MPI_Allgatherv");
}

std::vector<int> Communicator::exchange_counts(std::span<const int> counts, std::size_t items) const {
  constexpr std::string_view where = "Communicator::alltoallv";
  if (counts.size() != static_cast<std::size_t>(size_))
    fail_argument(where, "counts", counts.size(), detail::concat("entries: needs one per rank (", size_, ")"));
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] < 0) fail_argument(where, detail::concat("counts[", r, "]"), counts[r], "is negative");
    total += static_cast<std::size_t>(counts[r]);
  }
  if (total != items)
    fail_argument(where, "counts", detail::concat("adding up to ", total),
                  detail::concat("differs from the ", items, " items"));
  std::vector<int> received(static_cast<std::size_t>(size_));
  check_mpi(MPI_Alltoall(counts.data(), 1, MPI_INT, received.data(), 1, MPI_INT, comm_), "MPI_Alltoall");
  return received;
}

void Communicator::alltoallv_bytes(const void* items, std::span<const int> counts, void* out,
                                   std::span<const int> received, std::size_t item_size,
                                   std::optional<Error> failed) const {
  // Whether the bytes fit, and whether the receive buffer could be allocated, is known to the
  // sender or the receiver only, so the ranks agree on it before the exchange: a rank that gave up
  // alone would leave the others waiting in it.
  ByteLayout send, recv;
  std::optional<Error> error = std::move(failed);
  try {
    send = byte_layout(counts, item_size, "Communicator::alltoallv");
    recv = byte_layout(received, item_size, "Communicator::alltoallv");
  } catch (const Error& e) {
    if (!error) error = e;
  } catch (const std::bad_alloc&) {
    if (!error) error = receive_buffer_failed("Communicator::alltoallv", 0);
  }
  agree(error);
  check_mpi(MPI_Alltoallv(or_empty(items), send.counts.data(), send.displacements.data(), MPI_BYTE, or_empty(out),
                          recv.counts.data(), recv.displacements.data(), MPI_BYTE, comm_),
            "MPI_Alltoallv");
}

void Communicator::alltoall_bytes(const void* items, std::size_t item_count, std::size_t item_size, void* out) const {
  constexpr std::string_view where = "Communicator::alltoall";
  if (item_count != static_cast<std::size_t>(size_))
    fail_argument(where, "items", item_count, detail::concat("entries: needs one per rank (", size_, ")"));
  const int n = to_count(item_size, where, "bytes per rank");
  (void)to_count(item_size * item_count, where, "bytes in all");
  check_mpi(MPI_Alltoall(or_empty(items), n, MPI_BYTE, or_empty(out), n, MPI_BYTE, comm_), "MPI_Alltoall");
}

void Communicator::alltoallv_known_bytes(const void* items, std::size_t item_count, std::span<const int> counts,
                                         void* out, std::size_t out_count, std::span<const int> received,
                                         std::size_t item_size) const {
  constexpr std::string_view where = "Communicator::alltoallv_known";
  const auto p = static_cast<std::size_t>(size_);
  if (counts.size() != p || received.size() != p || total_of(counts) != item_count || total_of(received) != out_count)
    fail(ErrorCode::invalid_argument, where, ": the counts (", counts.size(), " and ", received.size(),
         " entries) do not match the ", item_count, " items sent and the room for ", out_count);
  const ByteLayout send = byte_layout(counts, item_size, where);
  const ByteLayout recv = byte_layout(received, item_size, where);
  check_mpi(MPI_Alltoallv(or_empty(items), send.counts.data(), send.displacements.data(), MPI_BYTE, or_empty(out),
                          recv.counts.data(), recv.displacements.data(), MPI_BYTE, comm_),
            "MPI_Alltoallv");
}

void Communicator::allreduce_in_place(void* values, std::size_t count, detail::ArithmeticType type,
                                      ReduceOp op) const {
  const MPI_Datatype datatype = datatype_of(type);
  const MPI_Op mpi_op = op_of(op, type);
  auto* p = static_cast<unsigned char*>(or_empty(values));
  const std::size_t chunk = kChunkBytes / type.bytes;
  std::size_t done = 0;
  do {
    const std::size_t n = std::min(chunk, count - done);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, p + done * type.bytes, static_cast<int>(n), datatype, mpi_op, comm_),
              "MPI_Allreduce");
    done += n;
  } while (done < count);
}

Error Communicator::receive_buffer_failed(std::string_view where, std::size_t bytes) const {
  return detail::out_of_memory(where, rank_, bytes,
                               bytes == 0 ? "the byte layout of the exchange" : "the items it receives");
}

std::size_t Communicator::total_of(std::span<const int> counts) noexcept {
  std::size_t total = 0;
  for (int c : counts) total += static_cast<std::size_t>(std::max(c, 0));
  return total;
}

void Communicator::agree(const std::optional<Error>& mine) const {
  const int first = allreduce(mine ? rank_ : size_, ReduceOp::min);
  if (first == size_) return;
  // The lowest failing rank tells the others its code and message.
  std::int64_t header[2] = {0, 0};
  std::string message;
  if (rank_ == first) {
    message = mine->what();
    header[0] = static_cast<std::int64_t>(mine->code());
    header[1] = static_cast<std::int64_t>(message.size());
  }
  bcast(std::span<std::int64_t>(header), first);
  message.resize(static_cast<std::size_t>(header[1]));
  bcast(std::span<char>(message), first);
  throw Error(static_cast<ErrorCode>(header[0]), message);
}

std::vector<double> Communicator::allgather(double value) const { return allgather<double>(value); }

double Communicator::max(double value) const { return allreduce(value, ReduceOp::max); }

double Communicator::sum(double value) const {
  // MPI_Allreduce may add in any order; gathering and adding in rank order is reproducible.
  double total = 0;
  for (double x : allgather(value)) total += x;
  return total;
}

int Communicator::next_tag() const noexcept {
  // Tags cycle through [1, 32767]: MPI guarantees at least that range. A tag is reused only after
  // 32767 more movers, long after any mover using it has completed.
  tag_counter_ = tag_counter_ % 32767 + 1;
  return tag_counter_;
}

Environment::Environment(int& argc, char**& argv) {
  if (!mpi_initialized()) {
    check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
    owns_mpi_ = true;
  }
  attach();
}

Environment::Environment() {
  if (!mpi_initialized())
    fail(ErrorCode::invalid_argument, "Environment(): MPI is not initialised; use Environment(argc, argv)");
  attach();
}

void Environment::attach() { world_ = std::make_unique<Communicator>(MPI_COMM_WORLD); }

Environment::~Environment() {
  world_.reset();  // free our duplicate while MPI is still up
  if (owns_mpi_) MPI_Finalize();
}

}  // namespace tessera
