#pragma once
/// \file
/// The inspector–executor of associative domains (array/associative_domain.hpp), internal: a batch
/// of keys (each with an optional fixed-size payload, a value) is grouped by owner rank into one
/// stretch of bytes per peer (the inspector: the Map applied to every key), sent with one
/// all-to-all-v (one message per peer), and decoded by the owners in a fixed order: by source
/// rank, then by position in the source's batch. That order is what makes duplicates within a
/// batch resolve the same way on every run. Answers (one fixed-size item per key) travel back
/// with a second all-to-all-v and land in the order of the request; its counts are known to both
/// sides (one answer per key) and its buffers were allocated before the first exchange agreed, so
/// it costs one `MPI_Alltoallv` and no agreement.
///
/// A domain keeps one `BatchBuffers` and routes every batch through it: the buffers keep their
/// capacity, so a stream of batches allocates (and page-faults) only while batches grow, and while
/// what arrives fits them on every rank the ranks need not agree on allocations
/// (`Communicator::alltoallv_reusing`): an insert or update then costs two collectives (counts,
/// keys) and a lookup three (counts, keys, answers), as a hand-written table; a batch larger than
/// the last ones on some rank costs one agreement more.

#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/key_codec.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/key_map.hpp"

namespace tessera::detail {

/// The largest batch in bytes for one peer (an MPI count).
inline constexpr long long kMaxMessageBytes = 0x7fffffffLL;

/// One rank's outgoing batch: keys (and payloads) grouped by destination rank.
struct RoutedBatch {
  std::vector<std::byte> bytes;         ///< grouped by destination, ascending
  std::vector<int> byte_counts;         ///< bytes per destination
  std::vector<int> key_counts;          ///< keys per destination
  std::vector<std::size_t> order;       ///< order[j]: the batch position of the j-th key sent
  std::vector<int> owners;              ///< scratch: the owner of each key of the batch
  std::optional<Error> error;           ///< a bad owner or argument found here (agreed on before sending)
};

/// The keys (and payload bytes) a rank received, in source-rank order.
template <class Key>
struct ArrivedBatch {
  std::vector<Key> keys;
  std::vector<std::byte> payload;  ///< `payload_bytes` per key, in the order of `keys`
  std::vector<int> key_counts;     ///< keys from each source rank
  std::vector<std::byte> received; ///< scratch: the bytes as they arrived
  std::vector<int> byte_counts;    ///< scratch: bytes from each source rank
};

/// The routing buffers of one domain, reused batch after batch (see the file comment).
template <class Key>
struct BatchBuffers {
  RoutedBatch routed;
  ArrivedBatch<Key> arrived;
};

/// What `exchange_batch` reserves for a caller per key that may arrive: nothing.
struct NothingMoreToReserve {
  /// Keys it has room for without allocating.
  [[nodiscard]] std::size_t room() const noexcept { return static_cast<std::size_t>(-1); }
  /// Makes room for `max_keys` (may throw `std::bad_alloc`).
  void operator()(std::size_t /*max_keys*/) const noexcept {}
};

/// One item per key that may arrive, in a vector the caller keeps from batch to batch (its answers).
template <class T>
struct ReservePerKey {
  std::vector<T>& items;
  [[nodiscard]] std::size_t room() const noexcept { return items.capacity(); }
  void operator()(std::size_t max_keys) { items.reserve(max_keys); }
};

/// The inspector: the owner of every key by `owner(i)` (i the batch position), the keys written
/// by their codec, each followed by `payload_bytes` bytes from `write_payload(i, out)`, into `out`
/// (its buffers reused). An owner outside [0, ranks) is recorded in `out.error` (the batch is then
/// not usable).
template <class Key, class OwnerOf, class WritePayload>
void route_batch(RoutedBatch& out, std::string_view where, std::span<const Key> keys, int ranks, OwnerOf&& owner,
                 std::size_t payload_bytes, WritePayload&& write_payload) {
  const std::size_t p = static_cast<std::size_t>(ranks);
  out.error.reset();
  out.byte_counts.assign(p, 0);
  out.key_counts.assign(p, 0);
  out.owners.resize(keys.size());
  std::vector<std::size_t> bytes(p, 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int o = owner(i);
    if (o < 0 || o >= ranks) {
      out.error = Error(ErrorCode::invalid_argument,
                        concat(where, ": the key map gives owner ", o, " for the key at position ", i,
                               " of the batch, outside the ", ranks, " ranks"));
      return;
    }
    out.owners[i] = o;
    bytes[static_cast<std::size_t>(o)] += KeyCodec<Key>::size(keys[i]) + payload_bytes;
    ++out.key_counts[static_cast<std::size_t>(o)];
  }
  std::vector<std::size_t> at(p + 1, 0), key_at(p + 1, 0);
  for (std::size_t r = 0; r < p; ++r) {
    if (bytes[r] > static_cast<std::size_t>(kMaxMessageBytes)) {
      out.error = Error(ErrorCode::overflow, concat(where, ": ", bytes[r], " bytes for rank ", r,
                                                    " in one batch; split the batch (at most ", kMaxMessageBytes, ")"));
      return;
    }
    out.byte_counts[r] = static_cast<int>(bytes[r]);
    at[r + 1] = at[r] + bytes[r];
    key_at[r + 1] = key_at[r] + static_cast<std::size_t>(out.key_counts[r]);
  }
  out.bytes.resize(at[p]);
  out.order.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto r = static_cast<std::size_t>(out.owners[i]);
    std::byte* end = KeyCodec<Key>::write(keys[i], out.bytes.data() + at[r]);
    if (payload_bytes != 0) write_payload(i, end);
    at[r] = static_cast<std::size_t>(end - out.bytes.data()) + payload_bytes;
    out.order[key_at[r]++] = i;
  }
}

/// Collective, the executor: one all-to-all-v of the bytes, which agrees on every rank's routing
/// error with its own checks (so that a bad key map or argument is the same `Error` on every rank,
/// before anything moves, at no extra collective); decodes what arrived into `in` (its buffers
/// reused). When every rank's buffers (and `reserve_more.room()`, the caller's per-key room) hold
/// what arrives, the ranks need not agree (`Communicator::alltoallv_reusing`); otherwise, before
/// they agree, `in`'s buffers are sized for the most keys that can arrive and `reserve_more(max_keys)`
/// allocates what the caller needs per arrived key (its answers, say; it may throw
/// `std::bad_alloc`): a failure there is agreed on too, so nothing after the exchange fails on one
/// rank alone. A stream of batches of similar sizes thus costs two collectives a batch, as a
/// hand-written exchange. In checked mode the owners also check that `owner_of_arrival`
/// names them for every key that arrived (one more agreement): a key hash or map that differs
/// between ranks is then `Error(mismatch)` on every rank, with nothing changed.
template <class Key, class OwnerOfArrival, class ReserveMore = NothingMoreToReserve>
void exchange_batch(const Communicator& comm, std::string_view where, RoutedBatch& routed, std::size_t payload_bytes,
                    OwnerOfArrival&& owner_of_arrival, ArrivedBatch<Key>& in, ReserveMore&& reserve_more = {}) {
  if (routed.error) {  // send nothing: every rank throws the error before the exchange
    routed.bytes.clear();
    routed.byte_counts.assign(static_cast<std::size_t>(comm.size()), 0);
  }
  // Every key takes at least min_bytes (a string at least its length word): enough room reserved.
  std::size_t min_bytes = payload_bytes + KeyCodec<Key>::size(Key{});
  if (min_bytes == 0) min_bytes = 1;
  in.keys.clear();
  // Bytes that can arrive with nothing allocated: the most keys every buffer has room for.
  std::size_t room_keys = std::min(in.keys.capacity(), reserve_more.room());
  if (payload_bytes != 0) room_keys = std::min(room_keys, in.payload.capacity() / payload_bytes);
  const std::size_t room = room_keys > in.received.capacity() / min_bytes ? in.received.capacity() : room_keys * min_bytes;
  comm.alltoallv_reusing<std::byte>(
      routed.bytes, routed.byte_counts, in.received, in.byte_counts, routed.error, room,
      [&](std::span<const int>) -> std::optional<Error> {
        const std::size_t max_keys = in.received.size() / min_bytes;
        std::optional<Error> failed;
        capture_failure(failed, comm, where, max_keys * (sizeof(Key) + payload_bytes), "the keys that arrive", [&] {
          in.keys.reserve(max_keys);
          in.payload.resize(max_keys * payload_bytes);
          reserve_more(max_keys);
        });
        return failed;
      });
  in.key_counts.assign(in.byte_counts.size(), 0);
  in.payload.resize(in.received.size() / min_bytes * payload_bytes);  // within its capacity (room or prepare)
  std::byte* value = in.payload.data();
  const std::byte* p = in.received.data();
  for (std::size_t r = 0; r < in.byte_counts.size(); ++r) {
    const std::byte* end = p + in.byte_counts[r];
    while (p != end) {
      Key& key = in.keys.emplace_back();
      p = KeyCodec<Key>::read(p, key);
      if (payload_bytes != 0) {
        std::memcpy(value, p, payload_bytes);
        value += payload_bytes;
        p += payload_bytes;
      }
      ++in.key_counts[r];
    }
  }
  in.payload.resize(in.keys.size() * payload_bytes);
  if (checked_mode()) {
    std::optional<Error> wrong;
    for (std::size_t k = 0; k < in.keys.size() && !wrong; ++k)
      if (const int o = owner_of_arrival(in.keys[k]); o != comm.rank())
        wrong = Error(ErrorCode::mismatch,
                      concat(where, ": a key sent to rank ", comm.rank(), " hashes (is mapped) to rank ", o,
                             " there: the key type's tessera::StableHash or the key map differs between ranks"));
    comm.agree(wrong);
  }
}

/// The asking rank's answer buffers, `received` (as they arrive) and `out` (in the order asked),
/// each `keys` long, allocated before the keys are routed: a failure is returned to be agreed on in
/// the first exchange, after which the answers' exchange needs no agreement of its own.
template <class T>
struct AnswerBuffers {
  std::vector<T> received, out;
  [[nodiscard]] std::optional<Error> allocate(std::string_view where, int rank, std::size_t keys) {
    std::optional<Error> failed;
    try {
      received.resize(keys);
      out.resize(keys);
    } catch (const std::bad_alloc&) {
      failed = out_of_memory(where, rank, 2 * keys * sizeof(T), "the answers");
    } catch (const std::length_error&) {
      failed = out_of_memory(where, rank, 2 * keys * sizeof(T), "the answers");
    }
    return failed;
  }
};

/// Collective: the answers of an owner (`answers[k]` for its k-th arrived key, grouped by source
/// as `arrived_counts`) sent back, one `MPI_Alltoallv` with counts both sides know; they land in
/// `buffers.out` in the order of the asking rank's batch.
template <class T>
void answer_batch(const Communicator& comm, std::span<const T> answers, std::span<const int> arrived_counts,
                  const RoutedBatch& routed, AnswerBuffers<T>& buffers) {
  comm.alltoallv_known<T>(answers, arrived_counts, buffers.received, routed.key_counts);
  for (std::size_t j = 0; j < buffers.received.size(); ++j) buffers.out[routed.order[j]] = buffers.received[j];
}

}  // namespace tessera::detail
