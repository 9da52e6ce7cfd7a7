#pragma once
// Shared memory: single copy between ranks of one node. A peer on the node whose source array
// lives in a shared-memory window (SharedBytes, shared_window.hpp) is not sent a message with the
// data: the receiver copies straight from the owner's storage into its own, walking the owner's
// pack blocks and its own unpack blocks in lockstep (one copy, no pack, no unpack). Only the two
// ranks of a pair synchronise, with two empty-ish messages per execution:
// - the owner, at start (its values are final), sends a 16-byte header naming the window and
//   where its source array starts in its segment (never a cached pointer: storage moves on every
//   redistribution, and the header says where it is now);
// - the reader, once it has copied, sends a zero-byte "done"; the owner's wait returns only when
//   every reader of its storage has finished, so it cannot overwrite what is being read.
// MPI_Win_sync on both sides of each handshake orders the loads and stores (MPI-3's unified model).
//
// Everything else travels as point-to-point messages (the same channels as PointToPoint): peers
// on another node, and, per execution, an owner whose source is not in a window of this
// communicator (a plain buffer handed to Mover::start, an array of another domain's
// communicator): its header says "no window" and the data follows as a message.
//
// What the reader needs of the owner's storage (the owner's blocks for this pair) is sent once,
// when the mover is made; each execution then allocates nothing. One bound array only (a Mover).

#include <cstdint>
#include <memory>
#include <vector>

#include "move_method.hpp"
#include "request_pool.hpp"
#include "shared_window.hpp"

namespace tessera::detail {

/// One stretch pairing of a single copy: `rows` rows of `count` elements, read from the owner's
/// offset `src` (elements `src_stride` apart, rows `src_row_stride` apart) and written at `dst`.
struct CopyRun {
  index_t src = 0, dst = 0, count = 0, src_stride = 1, dst_stride = 1, rows = 1, src_row_stride = 0,
          dst_row_stride = 0;
};

/// A block enumerated as groups of equal stretches (`Schedule::for_each_stretch_group`): the
/// geometry the owner sends the reader, five integers per group.
struct StretchGroup {
  index_t offset = 0, count = 0, stride = 1, rows = 1, row_stride = 0;
};

/// The groups of `blocks`, in their enumeration order.
[[nodiscard]] std::vector<StretchGroup> stretch_groups(const Schedule& s, const std::vector<Block>& blocks);
/// Pairs the owner's groups `from` with the reader's `into` (the same elements in the same order):
/// one run per group where the shapes agree, else stretch by stretch. Throws `Error(internal)` when
/// they hold different element counts.
[[nodiscard]] std::vector<CopyRun> pair_runs(const std::vector<StretchGroup>& from,
                                             const std::vector<StretchGroup>& into);
/// Copies along `runs` from `from` into `into` (elements of `es` bytes), combining when `combine`.
void copy_runs(const std::vector<CopyRun>& runs, const std::byte* from, std::byte* into, std::size_t es,
               CombineFn combine) noexcept;

// What the readers of a node need of their owners' storage, exchanged with the peers of the
// schedule on the node when it is made: every rank completes this exchange, a rank whose
// allocations fail here included (it then throws, once every message meant for it has been taken
// off the line), so that no peer waits for it while the allocation agreement makes every rank
// throw (allocation_agreement.hpp). Made by `make_shared_memory` before the method itself is
// allocated, for the same reason. Takes two tags (handshakes).
class SharedGeometry {
 public:
  /// With every peer of `s` on the node (see above); collective over `comm` the first time (the
  /// node context).
  SharedGeometry(const Communicator& comm, const Schedule& s);

 protected:
  std::shared_ptr<NodeContext> context_;
  int header_tag_ = 0;  // the owners' headers (and, once, their geometry)
  int done_tag_ = 0;    // the readers' "done"
  std::vector<char> send_on_node_, receive_on_node_;  // per peer of the schedule: on this node
  std::vector<std::vector<CopyRun>> runs_;            // per receive peer on the node
};

class SharedMemory final : private SharedGeometry, public MoveMethod {
 public:
  /// The method over `geometry`, made from the same schedule just before (`make_shared_memory`).
  SharedMemory(SharedGeometry geometry, const Communicator& comm, std::shared_ptr<const Schedule> schedule,
               std::vector<Binding> bindings, int tag, const char* owner);

 private:
  struct Header {
    std::uint64_t window = 0;  // 0: not in a window, the data follows as a message
    std::uint64_t offset = 0;  // of the owner's source array in its segment
  };
  enum class Waiting : std::uint8_t { header, data, nothing };

  void post() override;
  void complete() override;
  [[nodiscard]] bool poll() override;
  [[nodiscard]] bool arrived(std::size_t i);  // receive channel i's request completed; true when it is finished
  void copy_from_owner(std::size_t i);
  [[nodiscard]] bool receive(bool blocking);
  void synchronise_own_window();

  std::vector<Header> header_out_, header_in_;
  std::vector<Waiting> waiting_;                 // per receive channel
  const SharedWindow* source_window_ = nullptr;  // of this execution's source (null: messages)
  std::size_t receives_left_ = 0;
  std::byte empty_{};  // the zero-byte messages' buffer
  // Declared last, destroyed first: they complete what is in flight before the buffers go.
  RequestPool receives_;    // per receive channel: the header, then (no window) the data; off node the data
  RequestPool sends_;       // per send channel: the header (on the node) or the data
  RequestPool follow_;      // per send channel on the node: the reader's "done", or the data after a "no window"
  RequestPool done_sends_;  // per receive channel on the node: this rank's "done"
};

/// Collective over `comm` (the node context, the first time) and with every peer of the schedule
/// on the node (the owners' geometry): every rank makes its mover of this schedule in the same
/// order. The geometry is exchanged before the method is allocated, so that a rank whose
/// allocation of it fails has still answered its peers and taken the same two tags beside `tag`.
[[nodiscard]] std::unique_ptr<MoveMethod> make_shared_memory(const Communicator& comm,
                                                             std::shared_ptr<const Schedule> schedule,
                                                             std::vector<Binding> bindings, int tag, const char* owner);

}  // namespace tessera::detail
