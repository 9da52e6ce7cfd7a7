#include "channel.hpp"

#include <algorithm>
#include <climits>

#include "copy_kernels.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::detail {

namespace {

// Counts are ints, so a message over INT_MAX bytes travels as a count of 64-byte units (its
// buffer padded to a whole unit). Both sides compute the same shape from the same size.
constexpr std::size_t kMessageUnit = 64;

std::size_t padded(std::size_t bytes) {
  return bytes <= static_cast<std::size_t>(INT_MAX) ? bytes : (bytes + kMessageUnit - 1) / kMessageUnit * kMessageUnit;
}

// A peer's data made of at most this many groups of equal rows, each row at least this long, is
// described to MPI with a datatype instead of being packed by us: MPI copies it into its transport
// buffers anyway, so our own pack and unpack copies would be pure overhead. Short or strided rows
// are packed by us, which is faster than MPI's generic datatype engine.
constexpr std::size_t kMaxTypedGroups = 64;
// Rows of 256 bytes (a 32-column panel, 2048 rows) went faster packed: with OpenMPI's default
// single copy (CMA) the receiver copies a packed message once, while a datatype message goes
// through the generic engine in fragments. In a two-launch experiment (idle machine) bench_flood on
// 4 ranks was clearly slower with 256-byte rows as datatypes than packed; packed, it is 1.13-1.26x
// MPI_Bcast, worst launch 1.38 (bench/published-issues-16-17.json). 3-D halo faces (rows of 512
// bytes and more) measured the same either way in that experiment.
constexpr std::size_t kMinTypedRowBytes = 512;
// ... but a channel of long rows with a few short ones keeps the datatype while the short rows are
// at most kMaxShortRows and 1/kMaxShortShare of its bytes: a 2-D 9-point exchange's faces with their
// corners (8 short rows) went faster as a datatype than packed (bench_halo, 2 ranks, periodic,
// 4096^2 and 8192^2, widths 1 and 2: 0.62-0.75 of the hand-written exchange against 0.68-0.88, two
// single launches each), while 3-D 27-point faces with their edges (hundreds of 16-byte rows) went
// slower (128^3 width 2: 1.07-1.22 against 0.93-1.00): MPI's engine pays per row.
constexpr index_t kMaxShortShare = 16;
constexpr index_t kMaxShortRows = 64;

// Small messages travel eagerly (copied into the receiver's shared-memory queue, no handshake);
// larger ones by rendezvous, which costs a round trip before the data moves. OpenMPI's shared-
// memory transport switches at 4 KiB, header included (btl_vader_eager_limit), so a message that
// joins two 2 KiB faces for one peer (a 2-D 256^2 periodic exchange on two ranks: both faces go to
// the same neighbour) pays the handshake that two separate messages would not: bench_halo 2-D
// 5-point 256^2 took 8.9 us against 6.4 us for the hand-written exchange's two messages, and 6.0 us
// with the eager limit raised to 16 KiB. So a channel a little over the limit is packed and sent
// in eager pieces of at most kEagerPieceBytes (room left for the headers).
//
// How far "a little" goes was measured (bench_halo, 2 ranks, 2-D periodic 512^2 and 1024^2, widths
// 1 and 2, one message per peer against pieces, two single launches each): in pieces, 16 KiB went faster (5-point width 2 at
// 512^2: 9.3 against 12 us; 9-point width 1 at 1024^2: 11.5 against 16 us), 32 KiB sent in place
// went slower (5-point width 2 at 1024^2: 16 against 14 us: the rendezvous' single copy, CMA,
// straight between the arrays wins). Sender and receiver must cut a channel alike, and each knows
// only its own side's layout, so the rule looks at the size alone: up to kMaxPieces pieces.
constexpr std::size_t kEagerPieceBytes = 4096 - 128;
constexpr std::size_t kMaxPieces = 5;  // channels of up to ~19 KiB

}  // namespace

Channels::Channels(const Schedule& schedule, std::span<const Binding> bindings, ChannelLayout layout,
                   std::uint64_t& allocations, const char* owner)
    : schedule_(&schedule), bindings_(bindings), owner_(owner) {
  check_mpi(MPI_Type_contiguous(static_cast<int>(kMessageUnit), MPI_BYTE, &unit_), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&unit_), "MPI_Type_commit");
  send_buffer_ = make(schedule.sends, false, layout, sends_, allocations);
  receive_buffer_ = make(schedule.receives, true, layout, receives_, allocations);
  for (const Channel& c : sends_) send_bytes_ += c.bytes;
}

std::byte* Channels::make(const std::vector<PeerBlocks>& peers, bool receiving, ChannelLayout layout,
                          std::vector<Channel>& channels, std::uint64_t& allocations) {
  const Schedule& s = *schedule_;
  std::size_t bytes_per_element = 0;
  for (const Binding& b : bindings_) bytes_per_element += b.element_size;
  // In place or datatype only for one array and, receiving, without combine (see the file comment).
  const bool direct = layout != ChannelLayout::one_buffer && bindings_.size() == 1 &&
                      !(receiving && bindings_.front().combine != nullptr);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < peers.size(); ++i) {
    Channel c;
    c.peer = peers[i].peer;
    c.peer_index = i;
    c.bytes = static_cast<std::size_t>(peers[i].elements) * bytes_per_element;
    const auto& blocks = peers[i].blocks;
    std::size_t buffer_bytes = padded(c.bytes);  // what a packed channel needs
    if (layout == ChannelLayout::direct_eager_pieces && bindings_.size() == 1 && blocks.size() > 1 &&
        (s.block_messages || peers[i].block_messages)) {
      // One message per block (both sides cut at the blocks, which they share): in place where
      // the block is contiguous here and arrival does not combine, packed into the buffer otherwise.
      std::size_t packed_at = 0;
      for (const Block& b : blocks) {
        const std::size_t bytes = static_cast<std::size_t>(b.volume) * bytes_per_element;
        if (s.block_messages && direct && !s.contiguous(b))
          fail(ErrorCode::internal, owner_, ": a schedule with block messages has a block that is not contiguous");
        if (bytes > static_cast<std::size_t>(INT_MAX))
          fail(ErrorCode::overflow, owner_, ": a block message of ", bytes, " bytes is too large");
        const bool in_place = direct && s.contiguous(b);
        c.block_ranges.push_back(
            {in_place ? static_cast<std::size_t>(s.contiguous_offset(b)) * bytes_per_element : packed_at, bytes,
             !in_place});
        if (!in_place) packed_at += bytes;
      }
      c.pieces = blocks.size();
      c.in_place = packed_at == 0;  // nothing to pack
      buffer_bytes = packed_at;
    } else if (layout == ChannelLayout::direct_eager_pieces && c.bytes > kEagerPieceBytes &&
               c.bytes <= kMaxPieces * kEagerPieceBytes) {  // packed, in pieces
      c.pieces = (c.bytes + kEagerPieceBytes - 1) / kEagerPieceBytes;
      c.piece_bytes = (c.bytes + c.pieces - 1) / c.pieces;
    } else {
      // In place also needs a message MPI can count in bytes.
      c.in_place = direct && blocks.size() == 1 && s.contiguous(blocks[0]) &&
                   c.bytes <= static_cast<std::size_t>(INT_MAX);
      if (direct && !c.in_place) c.type = stretches_type(blocks);
    }
    if (layout == ChannelLayout::one_buffer) {
      c.offset = offset;
      offset += padded(c.bytes);
    } else if (!c.in_place && c.type == MPI_DATATYPE_NULL) {
      RawBytes& buffer = buffers_.emplace_back();
      buffer.allocate(buffer_bytes);
      c.packed = buffer.data();
      ++allocations;
    }
    channels.push_back(c);
  }
  if (layout != ChannelLayout::one_buffer) return nullptr;
  RawBytes& all = buffers_.emplace_back();
  all.allocate(std::max<std::size_t>(offset, 1));
  ++allocations;
  for (Channel& c : channels) c.packed = all.data() + c.offset;
  return all.data();
}

MPI_Datatype Channels::stretches_type(const std::vector<Block>& blocks) const {
  // One hvector per group of equal rows (a face of a 3-D array is one group of 256 rows, say),
  // joined by a struct type: MPI then copies straight between the array and its transport buffers.
  struct Group {
    index_t offset, bytes, rows, row_stride;  // in bytes, but rows
  };
  std::vector<Group> groups;
  bool fits = true;
  index_t short_rows = 0, short_bytes = 0, all_bytes = 0;  // rows under kMinTypedRowBytes, their bytes; all bytes
  const auto es = static_cast<index_t>(bindings_.front().element_size);
  for (const Block& b : blocks)
    schedule_->for_each_stretch_group(
        b, [&](index_t offset, index_t count, index_t stride, index_t rows, index_t row_stride) {
          const index_t bytes = count * es;
          fits = fits && (stride == 1 || count == 1) && bytes <= INT_MAX && rows <= INT_MAX &&
                 groups.size() < kMaxTypedGroups;
          if (!fits) return;
          if (bytes < static_cast<index_t>(kMinTypedRowBytes)) short_rows += rows, short_bytes += bytes * rows;
          all_bytes += bytes * rows;
          groups.push_back({offset * es, bytes, rows, row_stride * es});
        });
  // A few short rows among long ones (a 9-point exchange's corners beside its faces) do not make a
  // channel packed (kMaxShortRows, kMaxShortShare above).
  if (!fits || groups.empty() || short_rows > kMaxShortRows || short_bytes * kMaxShortShare > all_bytes)
    return MPI_DATATYPE_NULL;
  std::vector<MPI_Datatype> types(groups.size(), MPI_DATATYPE_NULL);
  std::vector<int> ones(groups.size(), 1);
  std::vector<MPI_Aint> displacements(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    check_mpi(MPI_Type_create_hvector(static_cast<int>(groups[g].rows), static_cast<int>(groups[g].bytes),
                                      static_cast<MPI_Aint>(groups[g].row_stride), MPI_BYTE, &types[g]),
              "MPI_Type_create_hvector");
    displacements[g] = static_cast<MPI_Aint>(groups[g].offset);
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  check_mpi(MPI_Type_create_struct(static_cast<int>(types.size()), ones.data(), displacements.data(), types.data(),
                                   &type),
            "MPI_Type_create_struct");
  check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  for (MPI_Datatype& t : types) MPI_Type_free(&t);  // the struct keeps what it needs
  return type;
}

Channels::~Channels() {
  if (mpi_finalized()) return;
  for (auto* channels : {&sends_, &receives_})
    for (Channel& c : *channels)
      if (c.type != MPI_DATATYPE_NULL) MPI_Type_free(&c.type);
  if (unit_ != MPI_DATATYPE_NULL) MPI_Type_free(&unit_);
}

const void* Channels::outgoing(const Channel& c, std::span<const std::byte* const> src) const {
  const Schedule& s = *schedule_;
  const auto& blocks = s.sends[c.peer_index].blocks;
  if (!c.block_ranges.empty()) {  // one message per block: pack those not sent in place
    for (std::size_t k = 0; k < blocks.size(); ++k)
      if (c.block_ranges[k].packed)
        (void)pack(s, &blocks[k], &blocks[k] + 1, src[0], c.packed + c.block_ranges[k].first,
                   bindings_.front().element_size);
    return src[0];
  }
  if (c.type != MPI_DATATYPE_NULL) return src[0];
  if (c.in_place)
    return src[0] + s.contiguous_offset(blocks[0]) * static_cast<index_t>(bindings_.front().element_size);
  std::byte* out = c.packed;
  for (std::size_t k = 0; k < bindings_.size(); ++k)
    out += pack(s, blocks.data(), blocks.data() + blocks.size(), src[k], out, bindings_[k].element_size);
  return c.packed;
}

void* Channels::incoming(const Channel& c, std::span<std::byte* const> dst) const {
  const Schedule& s = *schedule_;
  if (c.type != MPI_DATATYPE_NULL || !c.block_ranges.empty()) return dst[0];
  if (c.in_place)
    return dst[0] + s.contiguous_offset(s.receives[c.peer_index].blocks[0]) *
                        static_cast<index_t>(bindings_.front().element_size);
  return c.packed;
}

void Channels::unpack(const Channel& c, std::span<std::byte* const> dst) const {
  if (c.packed == nullptr) return;  // in place or datatype: already where it belongs
  const Schedule& s = *schedule_;
  const PeerBlocks& p = s.receives[c.peer_index];
  if (!c.block_ranges.empty()) {  // one message per block: unpack those not received in place
    for (std::size_t k = 0; k < p.blocks.size(); ++k)
      if (c.block_ranges[k].packed)
        unpack_blocks(s, &p.blocks[k], &p.blocks[k] + 1, dst[0], c.packed + c.block_ranges[k].first,
                      bindings_.front().element_size, bindings_.front().combine);
    return;
  }
  const std::byte* in = c.packed;
  for (std::size_t k = 0; k < bindings_.size(); ++k) {
    unpack_blocks(s, p.blocks.data(), p.blocks.data() + p.blocks.size(), dst[k], in, bindings_[k].element_size,
                  bindings_[k].combine);
    in += static_cast<std::size_t>(p.elements) * bindings_[k].element_size;
  }
}

Channels::Message Channels::message(const Channel& c, std::size_t k) const {
  if (!c.block_ranges.empty()) {
    const Channel::Range& r = c.block_ranges[k];
    return {r.first, static_cast<int>(r.bytes), MPI_BYTE, r.packed};
  }
  if (c.pieces == 1) {
    const auto [count, type] = shape(c);
    return {0, count, type};
  }
  const std::size_t first = k * c.piece_bytes;
  return {first, static_cast<int>(std::min(c.piece_bytes, c.bytes - first)), MPI_BYTE};
}

std::pair<int, MPI_Datatype> Channels::shape(const Channel& c) const {
  if (c.type != MPI_DATATYPE_NULL) return {1, c.type};
  if (c.bytes <= static_cast<std::size_t>(INT_MAX)) return {static_cast<int>(c.bytes), MPI_BYTE};
  const std::size_t units = (c.bytes + kMessageUnit - 1) / kMessageUnit;
  if (units > static_cast<std::size_t>(INT_MAX))
    fail(ErrorCode::overflow, owner_, ": a message of ", c.bytes, " bytes is too large");
  return {static_cast<int>(units), unit_};
}

}  // namespace tessera::detail
