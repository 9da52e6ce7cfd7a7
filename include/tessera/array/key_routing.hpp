#pragma once
/// \file
/// The inspector–executor of associative domains (array/associative_domain.hpp), internal: a batch
/// of keys (each with an optional fixed-size payload, a value) is grouped by owner rank into one
/// stretch of bytes per peer (the inspector: the Map applied to every key), sent with one
/// all-to-all-v (one message per peer), and read by the owners in a fixed order: by source rank,
/// then by position in the source's batch. That order is what makes duplicates within a batch
/// resolve the same way on every run. Answers (one fixed-size item per key) travel back with a
/// second all-to-all-v and land in the order of the request.
///
/// What a batch costs. The keys are preceded by one `MPI_Alltoall` of a `BatchHeader` per peer
/// (bytes, keys, and this rank's flags), so every rank learns every rank's flags at once. When no
/// rank raised one (no error anywhere, every peer's share small, every rank's receive room
/// allocated), no part of the exchange can fail on one rank alone: the sizes fit MPI's counts, and
/// the keys, and then the answers to this rank's own keys, arrive into the domain's receive room,
/// allocated already. So the keys follow with no agreement, and a lookup's answers, whose counts
/// both sides know, with no count exchange and no agreement either: an update or insert costs two
/// collectives and a lookup three, as the hand-written `MPI_Alltoall` + `MPI_Alltoallv` table of
/// bench_assoc (`Communicator::alltoallv` would cost three per exchange: its counts, its
/// agreement, its items). A flag anywhere costs one agreement (`Communicator::agree`): it throws
/// the lowest failing rank's error on every rank before anything moves, or checks and allocates
/// what a large batch needs.
///
/// Why the owners read the keys straight from the bytes (`for_each_arrived`) instead of from a
/// vector of them: a small batch then allocates little besides its messages and its result. In
/// bench_assoc (2 ranks), batches of 1024 string keys whose transient allocations went past glibc's
/// trim threshold (128 KiB) made the heap grow and shrink again in every batch (brk calls and page
/// faults), which cost more than the collectives saved. What arrives, the order of what is sent
/// and the owners are kept by the domain from batch to batch (`BatchBuffers`,
/// array/batch_buffers.hpp, which says why, and why what is sent is not).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/batch_buffers.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/key_codec.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/key_map.hpp"

namespace tessera::detail {

/// The largest batch in bytes for one peer (an MPI count).
inline constexpr long long kMaxMessageBytes = 0x7fffffffLL;

/// The least size of a domain's receive room (`BatchBuffers::room`), allocated by its first batch's
/// agreement and then kept (a larger batch's agreement grows it): a batch travels without an
/// agreement when every rank sends every peer at most `kBatchRoomBytes / ranks` bytes of keys (and
/// of answers), so that what any rank receives fits it.
inline constexpr std::size_t kBatchRoomBytes = std::size_t{64} << 10;

/// One rank's outgoing batch: keys (and payloads) grouped by destination rank.
struct RoutedBatch {
  std::vector<std::byte> bytes;    ///< grouped by destination, ascending
  std::vector<int> byte_counts;    ///< bytes per destination
  std::vector<int> key_counts;     ///< keys per destination
  std::span<std::size_t> order;    ///< order[j]: the batch position of the j-th key sent (`BatchBuffers::order`)
  std::optional<Error> error;      ///< a bad owner or argument found here (agreed on before sending)
};

/// What a rank tells each peer before a batch moves (`exchange_batch`).
struct BatchHeader {
  int bytes = 0;  ///< bytes of keys and payloads for the peer
  int keys = 0;   ///< keys among them
  int flags = 0;  ///< `kBatchFailed` | `kBatchLarge`: the same to every peer
};
/// This rank failed before sending (its error is agreed on and thrown everywhere).
inline constexpr int kBatchFailed = 1;
/// This rank's batch is not small, or its receive room is not allocated yet: the ranks agree.
inline constexpr int kBatchLarge = 2;

/// What a rank received, and where the answers to its own batch arrive: views of the domain's
/// receive room (`BatchBuffers::room`), valid until its next batch.
struct ArrivedBatch {
  std::span<std::byte> bytes;     ///< the keys (each followed by its payload), in source-rank order
  std::vector<int> key_counts;    ///< keys from each source rank
  std::size_t keys = 0;           ///< keys in all
  std::span<std::byte> answered;  ///< where the answers to this rank's own batch arrive (the room), grouped by owner
};

/// Calls `visit(key, payload)` for each arrived key in order (by source rank, then by position
/// in the source's batch), `payload` pointing at its `payload_bytes` bytes (unaligned).
template <class Key, class Visit>
void for_each_arrived(const ArrivedBatch& in, std::size_t payload_bytes, Visit&& visit) {
  const std::byte* at = in.bytes.data();
  // A local count: the visitor's stores (answers of an integer type) could alias `in.keys`.
  const std::size_t keys = in.keys;
  if constexpr (std::is_trivially_copyable_v<Key>) {
    for (std::size_t k = 0; k < keys; ++k) {
      Key key{};
      at = KeyCodec<Key>::read(at, key);
      visit(std::as_const(key), at);
      at += payload_bytes;
    }
  } else {
    // Read a block of keys, then visit it: a string key hashed right after it was copied in makes
    // the hash's loads wait for the copy's stores (short strings are copied by overlapping stores,
    // which the processor cannot forward): visiting each key as it was read took 1.6-1.7x the
    // time of reading all keys first (string updates and lookups of bench_assoc). Trivially
    // copyable keys are one store each and are visited as read (blocks cost them 1.3-1.45x).
    constexpr std::size_t kBlock = std::clamp<std::size_t>(4096 / sizeof(Key), 1, 32);
    std::array<const std::byte*, kBlock> payload{};
    for (std::size_t first = 0; first < keys; first += kBlock) {
      const std::size_t n = std::min(kBlock, keys - first);
      std::array<Key, kBlock> block{};
      for (std::size_t i = 0; i < n; ++i) {
        at = KeyCodec<Key>::read(at, block[i]);
        payload[i] = at;
        at += payload_bytes;
      }
      for (std::size_t i = 0; i < n; ++i) visit(std::as_const(block[i]), payload[i]);
    }
  }
}

/// The arrived keys in a vector, and their payloads in another (`payload_bytes` each), for owners
/// that keep them (a redistribution, a gather).
template <class Key>
struct DecodedBatch {
  std::vector<Key> keys;
  std::vector<std::byte> payload;
};

template <class Key>
DecodedBatch<Key> decode_batch(const ArrivedBatch& in, std::size_t payload_bytes) {
  DecodedBatch<Key> out;
  out.keys.reserve(in.keys);
  out.payload.resize(in.keys * payload_bytes);
  std::byte* value = out.payload.data();
  for_each_arrived<Key>(in, payload_bytes, [&](const Key& key, const std::byte* payload) {
    out.keys.push_back(key);
    if (payload_bytes != 0) std::memcpy(value, payload, payload_bytes);
    value += payload_bytes;
  });
  return out;
}

/// The inspector: the owner of every key by `owner(i)` (i the batch position, the owner one of
/// `comm`'s ranks; nothing is sent here), the keys written by their codec, each followed by
/// `payload_bytes` bytes from `write_payload(i, out)`. The owners and the order go in `kept`. An
/// owner outside [0, ranks), a batch too large for MPI's counts, or bytes that could not be
/// allocated are recorded in `error` (the batch is then not usable).
template <class Key, class OwnerOf, class WritePayload>
RoutedBatch route_batch(const Communicator& comm, std::string_view where, std::span<const Key> keys, OwnerOf&& owner,
                        std::size_t payload_bytes, WritePayload&& write_payload, BatchBuffers& kept) {
  RoutedBatch out;
  const int ranks = comm.size();
  const std::size_t p = static_cast<std::size_t>(ranks);
  out.byte_counts.assign(p, 0);
  out.key_counts.assign(p, 0);
  capture_failure(out.error, comm, where, keys.size() * (sizeof(int) + sizeof(std::size_t)), "the batch's order",
                  [&] {
                    (void)kept.owners.take(keys.size());
                    (void)kept.order.take(keys.size());
                  });
  if (out.error) return out;
  const std::span<int> owners = kept.owners.take(keys.size());  // grown above: no allocation
  out.order = kept.order.take(keys.size());
  std::vector<std::size_t> bytes(p, 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int o = owner(i);
    if (o < 0 || o >= ranks) {
      out.error = Error(ErrorCode::invalid_argument,
                        concat(where, ": the key map gives owner ", o, " for the key at position ", i,
                               " of the batch, outside the ", ranks, " ranks"));
      return out;
    }
    owners[i] = o;
    bytes[static_cast<std::size_t>(o)] += KeyCodec<Key>::size(keys[i]) + payload_bytes;
    ++out.key_counts[static_cast<std::size_t>(o)];
  }
  std::vector<std::size_t> at(p + 1, 0), key_at(p + 1, 0);
  for (std::size_t r = 0; r < p; ++r) {
    if (bytes[r] > static_cast<std::size_t>(kMaxMessageBytes)) {
      out.error = Error(ErrorCode::overflow, concat(where, ": ", bytes[r], " bytes for rank ", r,
                                                    " in one batch; split the batch (at most ", kMaxMessageBytes, ")"));
      return out;
    }
    out.byte_counts[r] = static_cast<int>(bytes[r]);
    at[r + 1] = at[r] + bytes[r];
    key_at[r + 1] = key_at[r] + static_cast<std::size_t>(out.key_counts[r]);
  }
  if (at[p] > static_cast<std::size_t>(kMaxMessageBytes)) {  // the displacements are MPI ints too
    out.error = Error(ErrorCode::overflow, concat(where, ": ", at[p], " bytes in one batch; split the batch (at most ",
                                                  kMaxMessageBytes, ")"));
    return out;
  }
  // A failure here is this rank's error, agreed on in the exchange like a bad owner.
  capture_failure(out.error, comm, where, at[p], "the batch's keys", [&] { out.bytes.resize(at[p]); });
  if (out.error) return out;
  // Locals: the keys' and payloads' copies may alias anything, which would reload the vectors'
  // data pointers for every key.
  std::byte* const base = out.bytes.data();
  std::size_t* const order = out.order.data();
  const int* const owner_of = owners.data();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto r = static_cast<std::size_t>(owner_of[i]);
    std::byte* end = KeyCodec<Key>::write(keys[i], base + at[r]);
    if (payload_bytes != 0) write_payload(i, end);
    at[r] = static_cast<std::size_t>(end - base) + payload_bytes;
    order[key_at[r]++] = i;
  }
  return out;
}

/// The flags of this rank's header (see the file comment): `kBatchLarge` unless this rank's receive
/// room is allocated and every peer's share of the batch, and of the answers to it (`answer_bytes`
/// per key), is at most `kBatchRoomBytes / ranks`.
inline int batch_flags(const RoutedBatch& routed, std::size_t room_bytes, std::size_t answer_bytes) {
  if (routed.error) return kBatchFailed;
  const std::size_t share = kBatchRoomBytes / routed.byte_counts.size();
  bool large = room_bytes < kBatchRoomBytes;
  for (std::size_t q = 0; q < routed.byte_counts.size(); ++q)
    large = large || static_cast<std::size_t>(routed.byte_counts[q]) > share ||
            static_cast<std::size_t>(routed.key_counts[q]) * answer_bytes > share;
  return large ? kBatchLarge : 0;
}

/// Collective, the executor: the headers (one `MPI_Alltoall`), then the keys (one `MPI_Alltoallv`).
/// `kept`: the domain's buffers (its receive room, kept from batch to batch). `answer_bytes`: the
/// bytes of one answer per key that `answer_batch` will send back (0 if none). If some rank flagged
/// its header (`batch_flags`), the ranks agree first, on: every rank's routing error (a bad key map
/// or argument is then the same `Error` on every rank, before anything moves), that what arrives
/// and the answers fit MPI's counts, and the growth of the room to what arrives; otherwise every
/// rank knows that none of that can fail, and nothing is agreed. In checked mode the owners also
/// check that `owner_of_arrival` names them for every key that arrived (one more agreement): a key
/// hash or map that differs between ranks is then `Error(mismatch)` on every rank, with nothing
/// changed. The keys arrive into the room: read them before the domain's next batch.
template <class Key, class OwnerOfArrival>
ArrivedBatch exchange_batch(const Communicator& comm, std::string_view where, RoutedBatch& routed,
                            std::size_t payload_bytes, OwnerOfArrival&& owner_of_arrival, BatchBuffers& kept,
                            std::size_t answer_bytes = 0) {
  const auto p = static_cast<std::size_t>(comm.size());
  if (routed.error) {  // send nothing: every rank throws the error before the exchange
    routed.bytes.clear();
    routed.byte_counts.assign(p, 0);
    routed.key_counts.assign(p, 0);
  }
  const int flags = batch_flags(routed, kept.room.capacity(), answer_bytes);
  std::vector<BatchHeader> headers(p);
  for (std::size_t q = 0; q < p; ++q) headers[q] = {routed.byte_counts[q], routed.key_counts[q], flags};
  headers = comm.alltoall<BatchHeader>(headers);
  ArrivedBatch in;
  std::vector<int> from(p);
  in.key_counts.resize(p);
  std::size_t bytes_in = 0;
  int any_flags = 0;
  for (std::size_t r = 0; r < p; ++r) {
    from[r] = headers[r].bytes;
    in.key_counts[r] = headers[r].keys;
    bytes_in += static_cast<std::size_t>(headers[r].bytes);
    in.keys += static_cast<std::size_t>(headers[r].keys);
    any_flags |= headers[r].flags;
  }
  const std::size_t answers_out = in.keys * answer_bytes, answers_in = routed.order.size() * answer_bytes;
  // The keys and then the answers to this rank's own keys arrive in turn, into the room.
  const std::size_t arriving = std::max(bytes_in, answers_in);
  if (any_flags != 0) {
    // Every rank saw a flag: all of them agree here, once. A rank that failed before sending
    // brings its error; the others check and allocate what this batch needs.
    std::optional<Error> failed = routed.error;
    const auto overflow = [&](std::size_t bytes, std::string_view what) {
      if (!failed && bytes > static_cast<std::size_t>(kMaxMessageBytes))
        failed = Error(ErrorCode::overflow, concat(where, ": ", bytes, " bytes of ", what, " on rank ", comm.rank(),
                                                   " in one batch; split the batch (at most ", kMaxMessageBytes, ")"));
    };
    overflow(bytes_in, "keys arriving");
    overflow(answers_out, "answers to send");
    overflow(answers_in, "answers arriving");
    if (!failed)
      capture_failure(failed, comm, where, std::max(arriving, kBatchRoomBytes), "the batch's room",
                      [&] { (void)kept.room.take(std::max(arriving, kBatchRoomBytes)); });
    comm.agree(failed);
  }
  // Without a flag anywhere every share fits, so all of it fits the room (batch_flags); with one,
  // the agreement grew it: no allocation here.
  const std::span<std::byte> arrival = kept.room.take(arriving);
  in.bytes = arrival.first(bytes_in);
  in.answered = arrival.first(answers_in);
  comm.alltoallv_known<std::byte>(routed.bytes, routed.byte_counts, in.bytes, from);
  routed.bytes = std::vector<std::byte>();  // sent: only the counts and the order serve the answers
  if (checked_mode()) {
    std::optional<Error> wrong;
    for_each_arrived<Key>(in, payload_bytes, [&](const Key& key, const std::byte*) {
      if (const int o = owner_of_arrival(key); !wrong && o != comm.rank())
        wrong = Error(ErrorCode::mismatch,
                      concat(where, ": a key sent to rank ", comm.rank(), " hashes (is mapped) to rank ", o,
                             " there: the key type's tessera::StableHash or the key map differs between ranks"));
    });
    comm.agree(wrong);
  }
  return in;
}

/// Collective: an owner's `answers` (one per key of `in`, in arrival order) sent back with counts
/// both sides know (the asker sent `routed.key_counts`), one `MPI_Alltoallv` with no agreement
/// (`exchange_batch` checked the sizes and allocated where they arrive); they land in `out` (one per
/// key of the asking rank's batch, allocated by the caller before routing) in the order asked. They
/// arrive where the keys did (`in.answered` may share the room): read the keys before.
template <class T>
void answer_batch(const Communicator& comm, std::span<const T> answers, ArrivedBatch& in, const RoutedBatch& routed,
                  std::span<T> out) {
  const auto p = static_cast<std::size_t>(comm.size());
  std::vector<int> send(p), receive(p);
  for (std::size_t r = 0; r < p; ++r) {
    send[r] = in.key_counts[r] * static_cast<int>(sizeof(T));  // fits: exchange_batch checked the bytes
    receive[r] = routed.key_counts[r] * static_cast<int>(sizeof(T));
  }
  comm.alltoallv_known<std::byte>(std::as_bytes(answers), send, in.answered, receive);
  // Locals: the copies may alias anything, which would reload the vectors' ends each time.
  const std::size_t* order = routed.order.data();
  const std::size_t count = routed.order.size();
  const std::byte* from = in.answered.data();
  T* to = out.data();
  for (std::size_t j = 0; j < count; ++j) std::memcpy(to + order[j], from + j * sizeof(T), sizeof(T));
}

/// The result of a batch that asks (`out`, one item per key, in the order asked), allocated before
/// the keys are routed: a failure returns the error to route with the batch, so that it is agreed on
/// in the batch's headers and the answers' exchange needs no agreement of its own.
template <class T>
[[nodiscard]] std::optional<Error> allocate_answers(std::vector<T>& out, const Communicator& comm,
                                                    std::string_view where, std::size_t keys) {
  std::optional<Error> failed;
  capture_failure(failed, comm, where, keys * sizeof(T), "the answers", [&] { out.resize(keys); });
  return failed;
}

}  // namespace tessera::detail
