#include "neighborhood.hpp"

#include <utility>

namespace tessera::detail {

namespace {

MPI_Aint address(const void* p) {
  MPI_Aint a = 0;
  check_mpi(MPI_Get_address(p, &a), "MPI_Get_address");
  return a;
}

}  // namespace

OwnedComm::~OwnedComm() {
  if (!mpi_finalized() && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

Neighborhood::Neighborhood(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                           std::vector<Binding> bindings, int tag, const char* owner)
    : MoveMethod(comm, std::move(schedule), std::move(bindings), tag, owner, ChannelLayout::direct) {
  // Only local work here: making a method must not call a collective, because a caller that makes
  // movers under capture_failure (a redistribution, a first ghost update) agrees on allocation
  // failures only afterwards. Had this constructor made the graph communicator, a rank whose
  // buffers failed to allocate above would skip MPI_Dist_graph_create_adjacent and leave the
  // other ranks waiting in it forever. The graph is made by the first start (connect()).
  const auto describe = [&](const std::vector<Channel>& list, Parts& parts) {
    for (const Channel& c : list) {
      const auto [count, type] = channels().shape(c);
      parts.counts.push_back(count);
      parts.types.push_back(type);
    }
    parts.addresses.assign(list.size(), 0);
  };
  describe(channels().sends(), sends_);
  describe(channels().receives(), receives_);
}

void Neighborhood::connect() {
  std::vector<int> sources, destinations;
  for (const Channel& c : channels().receives()) sources.push_back(c.peer);
  for (const Channel& c : channels().sends()) destinations.push_back(c.peer);
  check_mpi(MPI_Dist_graph_create_adjacent(comm().raw(), static_cast<int>(sources.size()), sources.data(),
                                           MPI_UNWEIGHTED, static_cast<int>(destinations.size()), destinations.data(),
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph_.comm),
            "MPI_Dist_graph_create_adjacent");
  check_mpi(MPI_Comm_set_errhandler(graph_.comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

void Neighborhood::post() {
  // start() is collective over the communicator, so every rank reaches this on its first start.
  if (graph_.comm == MPI_COMM_NULL) connect();
  const auto& receives = channels().receives();
  for (std::size_t i = 0; i < receives.size(); ++i) receives_.addresses[i] = address(channels().incoming(receives[i], dst()));
  const auto& sends = channels().sends();
  for (std::size_t i = 0; i < sends.size(); ++i) sends_.addresses[i] = address(channels().outgoing(sends[i], src()));
  check_mpi(MPI_Ineighbor_alltoallw(MPI_BOTTOM, sends_.counts.data(), sends_.addresses.data(), sends_.types.data(),
                                    MPI_BOTTOM, receives_.counts.data(), receives_.addresses.data(),
                                    receives_.types.data(), graph_.comm, request_[0]),
            "MPI_Ineighbor_alltoallw");
}

}  // namespace tessera::detail
