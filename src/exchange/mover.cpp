#include "tessera/exchange/mover.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <string>
#include <utility>

#include "alltoallv.hpp"
#include "mpi_library.hpp"
#include "neighborhood.hpp"
#include "point_to_point.hpp"
#include "shared_memory.hpp"

namespace tessera {

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
    case MoveAlgorithm::shared_memory:
      return "shared_memory";
  }
  return "unknown";
}

MoveAlgorithm parse_move_algorithm(std::string_view text, std::string_view source) {
  if (text == "automatic" || text == "auto") return MoveAlgorithm::automatic;
  if (text == "point_to_point" || text == "point-to-point" || text == "p2p") return MoveAlgorithm::point_to_point;
  if (text == "alltoallv") return MoveAlgorithm::alltoallv;
  if (text == "neighborhood" || text == "neighbourhood" || text == "neighbor") return MoveAlgorithm::neighborhood;
  if (text == "shared_memory" || text == "shared-memory" || text == "shm") return MoveAlgorithm::shared_memory;
  fail_argument(source, "value", std::string(text),
                "is not a move algorithm (automatic, point_to_point, alltoallv, neighborhood or shared_memory)");
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

bool move_algorithm_available(MoveAlgorithm algorithm) {
  // A broken MPI_Ineighbor_alltoallw is the one known case (src/exchange/mpi_library.hpp).
  return algorithm != MoveAlgorithm::neighborhood || detail::neighborhood_alltoallw_works();
}

namespace {

// The one place that maps an algorithm to the class that carries it out (a new way of moving is
// one more line here).
std::unique_ptr<detail::MoveMethod> make_move_method(MoveAlgorithm algorithm, const Communicator& comm,
                                                     std::shared_ptr<const Schedule> schedule, detail::Binding binding,
                                                     int tag) {
  constexpr const char* owner = "Mover";
  std::vector<detail::Binding> bindings{binding};
  switch (algorithm) {
    case MoveAlgorithm::alltoallv:
      return std::make_unique<detail::Alltoallv>(comm, std::move(schedule), std::move(bindings), tag, owner);
    case MoveAlgorithm::neighborhood:
      return std::make_unique<detail::Neighborhood>(comm, std::move(schedule), std::move(bindings), tag, owner);
    case MoveAlgorithm::shared_memory:
      return detail::make_shared_memory(comm, std::move(schedule), std::move(bindings), tag, owner);
    case MoveAlgorithm::automatic:  // resolved before: choose() never returns it
    case MoveAlgorithm::point_to_point:
      break;
  }
  return std::make_unique<detail::PointToPoint>(comm, std::move(schedule), std::move(bindings), tag, owner);
}

// The algorithm every rank uses for `requested` (see Mover's constructor): decided locally or by
// one allreduce (MPI_MAX) of a few numbers, so that every rank reaches the same choice.
MoveAlgorithm choose(MoveAlgorithm requested, const Communicator& comm, const Schedule& s, std::size_t element_size) {
  const int ranks = comm.size();
  if (requested == MoveAlgorithm::point_to_point) return requested;
  if (requested == MoveAlgorithm::automatic && ranks < Mover::kAutomaticMinRanks) return MoveAlgorithm::point_to_point;
  std::size_t largest = 0, send_total = 0, receive_total = 0;
  for (const auto& p : s.sends) {
    largest = std::max(largest, static_cast<std::size_t>(p.elements) * element_size);
    send_total += static_cast<std::size_t>(p.elements) * element_size;
  }
  for (const auto& p : s.receives) receive_total += static_cast<std::size_t>(p.elements) * element_size;
  const auto code = static_cast<std::int64_t>(requested);
  std::array<std::int64_t, 5> v{
      code, -code, std::max(send_total, receive_total) > static_cast<std::size_t>(INT_MAX) ? 1 : 0,
      static_cast<std::int64_t>(std::max(s.sends.size(), s.receives.size())), static_cast<std::int64_t>(largest)};
  comm.allreduce(std::span<std::int64_t>(v), ReduceOp::max);
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
    requested = dense && message <= static_cast<std::int64_t>(Mover::kAlltoallvMaxMessageBytes)
                    ? MoveAlgorithm::alltoallv
                    : MoveAlgorithm::point_to_point;
  }
  if (requested == MoveAlgorithm::alltoallv && too_large) return MoveAlgorithm::point_to_point;
  return requested;
}

}  // namespace

Mover::Mover(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::size_t element_size,
             CombineFn combine, MoveAlgorithm algorithm)
    : tag_(comm.next_tag()) {
  if (!schedule) fail_argument("Mover", "schedule", "null", "must point to a compiled schedule");
  if (element_size == 0) fail_argument("Mover", "element_size", 0, "must be > 0");
  if (algorithm != MoveAlgorithm::automatic && algorithm != MoveAlgorithm::point_to_point &&
      algorithm != MoveAlgorithm::alltoallv && algorithm != MoveAlgorithm::neighborhood &&
      algorithm != MoveAlgorithm::shared_memory)
    fail_argument("Mover", "algorithm", static_cast<int>(algorithm), "is not a tessera::MoveAlgorithm");
  if (algorithm == MoveAlgorithm::automatic) algorithm = environment_move_algorithm();
  algorithm_ = choose(algorithm, comm, *schedule, element_size);
  if (!move_algorithm_available(algorithm_)) algorithm_ = MoveAlgorithm::point_to_point;
  method_ = make_move_method(algorithm_, comm, std::move(schedule), {element_size, combine}, tag_);
}

Mover::~Mover() = default;
Mover::Mover(Mover&&) noexcept = default;

void Mover::start(const void* src, void* dst) {
  const std::array<const void*, 1> from{src};
  const std::array<void*, 1> into{dst};
  method_->start(from, into);
}

void Mover::prepare(const void* src, const void* dst) {
  const std::array<const void*, 1> from{src};
  const std::array<const void*, 1> into{dst};
  method_->prepare(from, into);
}

void Mover::wait() { method_->wait(); }
bool Mover::test() { return method_->test(); }
bool Mover::in_flight() const noexcept { return method_ != nullptr && method_->in_flight(); }
const Schedule& Mover::schedule() const noexcept { return method_->schedule(); }
const MoverStats& Mover::stats() const noexcept { return method_->stats(); }

}  // namespace tessera
