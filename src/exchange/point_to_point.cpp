#include "point_to_point.hpp"

#include <utility>

namespace tessera::detail {

PointToPoint::PointToPoint(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                           std::vector<Binding> bindings, int tag, const char* owner)
    : MoveMethod(comm, std::move(schedule), std::move(bindings), tag, owner, ChannelLayout::direct),
      sends_(channels().sends().size()),
      receives_(channels().receives().size()) {}

void PointToPoint::post() {
  const auto& receives = channels().receives();
  for (std::size_t i = 0; i < receives.size(); ++i) {
    const Channel& c = receives[i];
    const auto [count, type] = channels().shape(c);
    check_mpi(MPI_Irecv(channels().incoming(c, dst()), count, type, c.peer, tag(), comm().raw(), receives_[i]),
              "MPI_Irecv");
  }
  receives_left_ = receives.size();
  const auto& sends = channels().sends();
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const Channel& c = sends[i];
    const void* from = channels().outgoing(c, src());  // packs first where needed
    const auto [count, type] = channels().shape(c);
    check_mpi(MPI_Isend(from, count, type, c.peer, tag(), comm().raw(), sends_[i]), "MPI_Isend");
  }
}

void PointToPoint::receive_arrivals(bool blocking) {
  // A completed request becomes MPI_REQUEST_NULL, so each message is unpacked exactly once.
  while (receives_left_ > 0) {
    const auto i = receives_.any(blocking);
    if (!i) return;
    channels().unpack(channels().receives()[*i], dst());
    --receives_left_;
  }
}

void PointToPoint::complete() {
  receive_arrivals(true);
  sends_.wait_all();
}

bool PointToPoint::poll() {
  receive_arrivals(false);
  return receives_left_ == 0 && sends_.test_all();
}

}  // namespace tessera::detail
