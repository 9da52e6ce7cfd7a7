// tessera_comm_*: tessera's duplicate of a user's communicator.
#include "objects.hpp"

using namespace tessera::capi;

extern "C" {

tessera_status tessera_comm_create(MPI_Comm user, tessera_comm* out) {
  return guarded("tessera_comm_create", [&] {
    prepare_out(out);
    if (!tessera::mpi_initialized()) fail_c(TESSERA_ERR_CALL_ORDER, "MPI is not initialised: call MPI_Init first");
    if (tessera::mpi_finalized()) fail_c(TESSERA_ERR_CALL_ORDER, "MPI was finalised already");
    if (user == MPI_COMM_NULL)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'user' = MPI_COMM_NULL is not a communicator");
    issue(std::make_shared<CommObject>(user), out);
  });
}

tessera_status tessera_comm_rank(tessera_comm comm, int* rank) {
  return guarded("tessera_comm_rank", [&] {
    const auto c = get<CommObject>(comm, "comm");
    require_pointer("rank", rank);
    *rank = c->comm.rank();
  });
}

tessera_status tessera_comm_size(tessera_comm comm, int* size) {
  return guarded("tessera_comm_size", [&] {
    const auto c = get<CommObject>(comm, "comm");
    require_pointer("size", size);
    *size = c->comm.size();
  });
}

tessera_status tessera_comm_collect_all(tessera_comm comm, double value, double* out, size_t capacity) {
  return guarded("tessera_comm_collect_all", [&] {
    const auto c = get<CommObject>(comm, "comm");
    require_pointer("out", out);
    const auto size = static_cast<size_t>(c->comm.size());
    if (capacity < size)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'capacity' = ", capacity, " is less than the ", size,
             " ranks of the communicator");
    const std::vector<double> all = tessera::collect_all(c->comm, value);
    std::copy(all.begin(), all.end(), out);
  });
}

tessera_status tessera_comm_free(tessera_comm* comm) {
  return guarded("tessera_comm_free", [&] { release<CommObject>(comm, "comm"); });
}

}  // extern "C"
