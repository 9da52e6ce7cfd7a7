#pragma once
// The channels of a schedule: one per peer and direction, each the one message of an execution,
// described the cheapest way MPI can take it. Every way of moving (move_method.hpp) starts from
// them, so deciding "in place, datatype or packed" and packing or unpacking a message are written
// once.
//
// A channel is one of three kinds:
// - in place: the peer's data is one contiguous stretch, sent from (received into) the array;
// - datatype: a few long stretches, described to MPI by a committed datatype relative to the
//   array, so MPI walks them itself (cheaper than our pack plus MPI's own copy);
// - packed: everything else, copied by us into the channel's buffer (and out again on arrival);
//   with the direct_eager_pieces layout also a channel a little over the transport's eager limit,
//   whose buffer then travels as several eager messages (`Channel::pieces`).
// With the direct_eager_pieces layout, a schedule whose blocks are all contiguous on both sides
// (`Schedule::block_messages`, a staged halo's slabs) sends a peer's several blocks as one message
// each, in place: one large contiguous message per slab is what MPI moves with a single copy. So
// does a peer whose copies were cut into large pieces (`PeerBlocks::block_messages`, a
// redistribution to block-cyclic: plan/compile_schedule.hpp), each piece in place where it is
// contiguous on this side and packed into the channel's buffer where it is not.
// The first two need a single bound array (one message cannot be both in place in array 0 and in
// array 1) and, for receives, no combine function (combining needs the arriving values apart).

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "tessera/exchange/huge_pages.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera::detail {

/// Gives back bytes from the aligned `operator new` (RawBytes' deleter).
struct AlignedDelete {
  std::size_t alignment = alignof(std::max_align_t);
  void operator()(std::byte* p) const noexcept { ::operator delete(p, std::align_val_t(alignment)); }
};

/// An uninitialised byte buffer: pack buffers are always written before they are read, so the
/// zero-fill a std::vector would do is wasted work (it was 2x the message bytes per new mover).
/// From 2 MiB on it is aligned to 2 MiB and advised into huge pages, as array storage is
/// (tessera/exchange/huge_pages.hpp): a transposed pack or unpack walks it with long strides.
class RawBytes {
 public:
  void allocate(std::size_t n) {
    std::size_t alignment = alignof(std::max_align_t);
    std::byte* bytes = allocate_bytes(n, alignment);
    data_ = Owned(bytes, AlignedDelete{alignment});
    size_ = n;
  }
  [[nodiscard]] std::byte* data() noexcept { return data_.get(); }
  [[nodiscard]] const std::byte* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

 private:
  using Owned = std::unique_ptr<std::byte, AlignedDelete>;
  Owned data_;
  std::size_t size_ = 0;
};

/// One array an execution moves: its element size and what arrival does (null: replace).
struct Binding {
  std::size_t element_size = 0;
  CombineFn combine = nullptr;
};

/// How a way of moving wants its channels laid out.
enum class ChannelLayout {
  direct,      ///< in place or datatype where possible, else a packed buffer per channel
  one_buffer,  ///< always packed, every channel of a direction side by side in one buffer
  /// `direct`, except that a channel a little over the transport's eager limit is packed and
  /// travels in eager pieces (`Channel::pieces`; see kEagerPieceBytes in channel.cpp), and a
  /// schedule with `block_messages` sends one message per block (`Channel::block_ranges`)
  direct_eager_pieces,
};

/// One peer, one direction (see the file comment).
struct Channel {
  int peer = 0;
  std::size_t peer_index = 0;             // index into the schedule's sends or receives
  std::size_t bytes = 0;                  // every bound array's part together
  bool in_place = false;                  // contiguous: sent from / received into the array directly
                                          // (block messages: every block is)
  MPI_Datatype type = MPI_DATATYPE_NULL;  // a few long stretches: MPI walks them itself
  std::byte* packed = nullptr;            // packed data otherwise (padded to the message unit)
  std::size_t offset = 0;                 // one_buffer: where `packed` starts in its direction's buffer
  // Messages the channel travels in: more than one only for a packed channel of the
  // direct_eager_pieces layout, whose buffer goes as `pieces` consecutive byte ranges of
  // `piece_bytes` (the last one shorter), in order (MPI keeps the order between two ranks).
  std::size_t pieces = 1;
  std::size_t piece_bytes = 0;
  // A schedule or peer with block_messages: one message per block, message k being bytes
  // [first, first + bytes) of the array (relative to outgoing/incoming), or of `packed` for a
  // block that is not contiguous here (or whose arrival combines).
  struct Range {
    std::size_t first = 0, bytes = 0;
    bool packed = false;
  };
  std::vector<Range> block_ranges;
};

/// Every channel of one schedule for some bound arrays, and how to fill and empty them.
/// Buffers and datatypes are made here, once; nothing allocates afterwards.
class Channels {
 public:
  /// `bindings` must outlive the channels. Adds the buffers it allocates to `allocations`.
  /// `owner` names the class that holds them in error messages ("Mover", "FusedMover").
  Channels(const Schedule& schedule, std::span<const Binding> bindings, ChannelLayout layout,
           std::uint64_t& allocations, const char* owner);
  ~Channels();
  Channels(const Channels&) = delete;
  Channels& operator=(const Channels&) = delete;

  [[nodiscard]] const std::vector<Channel>& sends() const noexcept { return sends_; }
  [[nodiscard]] const std::vector<Channel>& receives() const noexcept { return receives_; }
  /// Bytes of every send together (one execution).
  [[nodiscard]] std::size_t send_bytes() const noexcept { return send_bytes_; }
  /// one_buffer: the buffer every send (receive) channel packs into (unpacks from).
  [[nodiscard]] std::byte* send_buffer() const noexcept { return send_buffer_; }
  [[nodiscard]] std::byte* receive_buffer() const noexcept { return receive_buffer_; }

  /// Where MPI reads send channel `c` from: the arrays `src` (one pointer per binding) for a
  /// datatype or in-place channel, else its buffer, which this packs now.
  [[nodiscard]] const void* outgoing(const Channel& c, std::span<const std::byte* const> src) const;
  /// Where MPI writes receive channel `c`: the array for a datatype or in-place channel, else its buffer.
  [[nodiscard]] void* incoming(const Channel& c, std::span<std::byte* const> dst) const;
  /// After receive channel `c` arrived: unpacks its buffer into the arrays `dst` (nothing to do
  /// for a datatype or in-place channel).
  void unpack(const Channel& c, std::span<std::byte* const> dst) const;
  /// Count and datatype that describe channel `c` to MPI, relative to `outgoing`/`incoming`.
  /// Throws `Error(overflow)` for a message too large even in 64-byte units.
  [[nodiscard]] std::pair<int, MPI_Datatype> shape(const Channel& c) const;
  /// Message `k` (< `c.pieces`) of channel `c`: its first byte relative to `outgoing`/`incoming`
  /// (or to `c.packed` when `packed`), and its count and datatype. One message: 0 and `shape(c)`;
  /// pieces: consecutive byte ranges of the channel's buffer, as MPI_BYTE; block messages: each
  /// block's bytes in the array, or in the buffer where the block is packed.
  struct Message {
    std::size_t first = 0;
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    bool packed = false;  // `first` is relative to the channel's buffer, not to outgoing/incoming
  };
  [[nodiscard]] Message message(const Channel& c, std::size_t k) const;

 private:
  // Makes the channels of one direction; returns the one buffer (one_buffer layout) or null.
  std::byte* make(const std::vector<PeerBlocks>& peers, bool receiving, ChannelLayout layout,
                  std::vector<Channel>& channels, std::uint64_t& allocations);
  [[nodiscard]] MPI_Datatype stretches_type(const std::vector<Block>& blocks) const;

  const Schedule* schedule_;
  std::span<const Binding> bindings_;
  const char* owner_;  // names the holder in error messages
  MPI_Datatype unit_ = MPI_DATATYPE_NULL;  // 64-byte unit for messages over INT_MAX bytes
  std::vector<Channel> sends_, receives_;
  std::vector<RawBytes> buffers_;  // every packed byte of both directions
  std::byte* send_buffer_ = nullptr;
  std::byte* receive_buffer_ = nullptr;
  std::size_t send_bytes_ = 0;
};

}  // namespace tessera::detail
