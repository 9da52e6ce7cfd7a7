#include "point_to_point.hpp"

#include <utility>

namespace tessera::detail {

namespace {

// Messages of a direction: one per channel, or a channel's pieces (channel.hpp).
std::size_t messages(const std::vector<Channel>& channels) {
  std::size_t n = 0;
  for (const Channel& c : channels) n += c.pieces;
  return n;
}

}  // namespace

PointToPoint::PointToPoint(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                           std::vector<Binding> bindings, int tag, const char* owner)
    : MoveMethod(comm, std::move(schedule), std::move(bindings), tag, owner, ChannelLayout::direct_eager_pieces),
      sends_(messages(channels().sends())),
      receives_(messages(channels().receives())),
      pieces_left_(channels().receives().size()) {
  const auto& receives = channels().receives();
  for (std::size_t i = 0; i < receives.size(); ++i) receive_channel_.insert(receive_channel_.end(), receives[i].pieces, i);
}

void PointToPoint::post() {
  const auto& receives = channels().receives();
  std::size_t m = 0;  // request index: one per message (a channel's pieces, or its one message)
  for (std::size_t i = 0; i < receives.size(); ++i) {
    const Channel& c = receives[i];
    pieces_left_[i] = c.pieces;
    auto* into = static_cast<std::byte*>(channels().incoming(c, dst()));
    for (std::size_t k = 0; k < c.pieces; ++k) {
      const auto [first, count, type, packed] = channels().message(c, k);
      check_mpi(MPI_Irecv((packed ? c.packed : into) + first, count, type, c.peer, tag(), comm().raw(), receives_[m++]),
                "MPI_Irecv");
    }
  }
  receives_left_ = receives.size();
  const auto& sends = channels().sends();
  m = 0;
  for (const Channel& c : sends) {
    const auto* from = static_cast<const std::byte*>(channels().outgoing(c, src()));  // packs first where needed
    for (std::size_t k = 0; k < c.pieces; ++k) {
      const auto [first, count, type, packed] = channels().message(c, k);
      const std::byte* at = (packed ? c.packed : from) + first;
      check_mpi(MPI_Isend(at, count, type, c.peer, tag(), comm().raw(), sends_[m++]), "MPI_Isend");
    }
  }
}

void PointToPoint::receive_arrivals(bool blocking) {
  // A completed request becomes MPI_REQUEST_NULL, so each message is counted once, and a channel
  // is unpacked once, when its last piece has arrived.
  while (receives_left_ > 0) {
    const auto m = receives_.any(blocking);
    if (!m) return;
    const std::size_t i = receive_channel_[*m];
    if (--pieces_left_[i] > 0) continue;
    channels().unpack(channels().receives()[i], dst());
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
