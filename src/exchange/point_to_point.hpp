#pragma once
// Point-to-point: every receive posted first (so that no message arrives unexpected), then one
// Isend per peer, then the local copies; completion unpacks each message as it arrives (Waitany),
// overlapping the unpacking with the messages still in flight (COSTA's exchange_async). A peer's
// message a little over the transport's eager limit travels in eager pieces instead (channel.hpp,
// `ChannelLayout::direct_eager_pieces`), unpacked when its last piece is in.
//
// Written for any number of bound arrays: with one (a `Mover`) a channel may be in place or a
// datatype; with several (a `FusedMover`) every array's part of a peer travels in one packed message.

#include "move_method.hpp"
#include "request_pool.hpp"

#include <vector>

namespace tessera::detail {

class PointToPoint final : public MoveMethod {
 public:
  /// Collective in order with the peers' movers of the same schedule: `tag` must match theirs.
  PointToPoint(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::vector<Binding> bindings,
               int tag, const char* owner);

 private:
  void post() override;
  void complete() override;
  [[nodiscard]] bool poll() override;
  void receive_arrivals(bool blocking);

  RequestPool sends_, receives_;             // one request per message (piece)
  std::vector<std::size_t> pieces_left_;      // per receive channel, this execution
  std::vector<std::size_t> receive_channel_;  // receive request -> its channel
  std::size_t receives_left_ = 0;             // receive channels not yet unpacked
};

}  // namespace tessera::detail
