#include "alltoallv.hpp"

#include <utility>

namespace tessera::detail {

namespace {

void describe(const std::vector<Channel>& channels, std::size_t ranks, std::vector<int>& counts,
              std::vector<int>& displs) {
  counts.assign(ranks, 0);
  displs.assign(ranks, 0);
  for (const Channel& c : channels) {
    counts[static_cast<std::size_t>(c.peer)] = static_cast<int>(c.bytes);  // <= INT_MAX: the Mover checked
    displs[static_cast<std::size_t>(c.peer)] = static_cast<int>(c.offset);
  }
}

}  // namespace

Alltoallv::Alltoallv(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::vector<Binding> bindings,
                     int tag, const char* owner)
    : MoveMethod(comm, std::move(schedule), std::move(bindings), tag, owner, ChannelLayout::one_buffer) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  describe(channels().sends(), ranks, send_counts_, send_displs_);
  describe(channels().receives(), ranks, receive_counts_, receive_displs_);
}

void Alltoallv::post() {
  for (const Channel& c : channels().sends()) (void)channels().outgoing(c, src());  // packs into the one buffer
  check_mpi(MPI_Ialltoallv(channels().send_buffer(), send_counts_.data(), send_displs_.data(), MPI_BYTE,
                           channels().receive_buffer(), receive_counts_.data(), receive_displs_.data(), MPI_BYTE,
                           comm().raw(), request_[0]),
            "MPI_Ialltoallv");
}

}  // namespace tessera::detail
