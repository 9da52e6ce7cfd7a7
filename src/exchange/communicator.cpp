#include "tessera/exchange/communicator.hpp"

#include <string>
#include <utility>

namespace tessera {

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
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // Freeing after MPI_Finalize is illegal; a communicator that outlives MPI just goes away.
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
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

void Communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

std::vector<double> Communicator::allgather(double value) const {
  std::vector<double> all(static_cast<std::size_t>(size_));
  check_mpi(MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm_), "MPI_Allgather");
  return all;
}

double Communicator::max(double value) const {
  double out = value;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return out;
}

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
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
    owns_mpi_ = true;
  }
  attach();
}

Environment::Environment() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    fail(ErrorCode::invalid_argument, "Environment(): MPI is not initialised; use Environment(argc, argv)");
  attach();
}

void Environment::attach() { world_ = std::make_unique<Communicator>(MPI_COMM_WORLD); }

Environment::~Environment() {
  world_.reset();  // free our duplicate while MPI is still up
  if (owns_mpi_) MPI_Finalize();
}

}  // namespace tessera
