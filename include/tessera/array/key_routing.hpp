#pragma once
/// \file
/// The inspector–executor of associative domains (array/associative_domain.hpp), internal: a batch
/// of keys (each with an optional fixed-size payload, a value) is grouped by owner rank into one
/// stretch of bytes per peer (the inspector: the Map applied to every key), sent with one
/// all-to-all-v (one message per peer), and decoded by the owners in a fixed order: by source
/// rank, then by position in the source's batch. That order is what makes duplicates within a
/// batch resolve the same way on every run. Answers (one fixed-size item per key) travel back
/// with a second all-to-all-v and land in the order of the request.

#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/key_codec.hpp"
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
  std::optional<Error> error;           ///< a bad owner or argument found here (agreed on before sending)
};

/// The keys (and payload bytes) a rank received, in source-rank order.
template <class Key>
struct ArrivedBatch {
  std::vector<Key> keys;
  std::vector<std::byte> payload;  ///< `payload_bytes` per key, in the order of `keys`
  std::vector<int> key_counts;     ///< keys from each source rank
};

/// The inspector: the owner of every key by `owner(i)` (i the batch position), the keys written
/// by their codec, each followed by `payload_bytes` bytes from `write_payload(i, out)`. An owner
/// outside [0, ranks) is recorded in `error` (the batch is then not usable).
template <class Key, class OwnerOf, class WritePayload>
RoutedBatch route_batch(std::string_view where, std::span<const Key> keys, int ranks, OwnerOf&& owner,
                        std::size_t payload_bytes, WritePayload&& write_payload) {
  RoutedBatch out;
  const std::size_t p = static_cast<std::size_t>(ranks);
  out.byte_counts.assign(p, 0);
  out.key_counts.assign(p, 0);
  std::vector<int> owners(keys.size());
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
  out.bytes.resize(at[p]);
  out.order.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto r = static_cast<std::size_t>(owners[i]);
    std::byte* end = KeyCodec<Key>::write(keys[i], out.bytes.data() + at[r]);
    if (payload_bytes != 0) write_payload(i, end);
    at[r] = static_cast<std::size_t>(end - out.bytes.data()) + payload_bytes;
    out.order[key_at[r]++] = i;
  }
  return out;
}

/// Collective, the executor: one all-to-all-v of the bytes, which agrees on every rank's routing
/// error with its own checks (so that a bad key map or argument is the same `Error` on every rank,
/// before anything moves, at no extra collective); decodes what arrived. In checked mode the owners also check that `owner_of_arrival`
/// names them for every key that arrived (one more agreement): a key hash or map that differs
/// between ranks is then `Error(mismatch)` on every rank, with nothing changed.
template <class Key, class OwnerOfArrival>
ArrivedBatch<Key> exchange_batch(const Communicator& comm, std::string_view where, RoutedBatch& routed,
                                 std::size_t payload_bytes, OwnerOfArrival&& owner_of_arrival) {
  if (routed.error) {  // send nothing: every rank throws the error before the exchange
    routed.bytes.clear();
    routed.byte_counts.assign(static_cast<std::size_t>(comm.size()), 0);
  }
  std::vector<int> from;
  const std::vector<std::byte> bytes =
      comm.alltoallv<std::byte>(routed.bytes, routed.byte_counts, &from, routed.error);
  ArrivedBatch<Key> in;
  in.key_counts.assign(from.size(), 0);
  // Every key takes at least min_bytes (a string at least its length word): enough room reserved.
  std::size_t min_bytes = payload_bytes + KeyCodec<Key>::size(Key{});
  if (min_bytes == 0) min_bytes = 1;
  in.keys.reserve(bytes.size() / min_bytes);
  in.payload.resize(bytes.size() / min_bytes * payload_bytes);
  std::byte* value = in.payload.data();
  const std::byte* p = bytes.data();
  for (std::size_t r = 0; r < from.size(); ++r) {
    const std::byte* end = p + from[r];
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
  return in;
}

/// Collective: the answers of an owner (`answers[k]` for its k-th arrived key, grouped by source
/// as `arrived_counts`) sent back; returns them in the order of the asking rank's batch.
template <class T>
std::vector<T> answer_batch(const Communicator& comm, std::span<const T> answers, std::span<const int> arrived_counts,
                            const RoutedBatch& routed) {
  const std::vector<T> back = comm.alltoallv<T>(answers, arrived_counts);
  std::vector<T> out(routed.order.size());
  for (std::size_t j = 0; j < back.size(); ++j) out[routed.order[j]] = back[j];
  return out;
}

}  // namespace tessera::detail
