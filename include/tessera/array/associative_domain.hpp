#pragma once
/// \file
/// `AssociativeDomain<Key>`: Chapel's associative (indefinite) domain, `var D: domain(Key)`, with
/// `D.add(k)` / `D.remove(k)` (the Chapel seed, section 3.1, "irregular domains indexed by
/// objects"), distributed over a communicator by a `KeyMap` (layout/key_map.hpp; default: the
/// key's stable hash modulo the rank count). Each rank holds the keys the map gives it.
///
/// Every operation on keys takes a *batch*: each rank passes its own list of keys (any length,
/// duplicates allowed, keys owned anywhere), and the call is collective. The batch is routed to the
/// owners with one message per peer (array/key_routing.hpp) and applied there in a fixed order (by
/// source rank, then by position), so the result does not depend on timing.
/// \code
///   tessera::AssociativeDomain<std::string> words(world);         // hashed over world's ranks
///   words.insert(std::vector<std::string>{"dog", "cat", "dog"});   // collective; "dog" once
///   std::vector<bool> in = words.contains(std::vector<std::string>{"cat", "emu"});  // {true, false}
///   tessera::AssociativeArray<std::string, long> count(words);    // one value per key, follows the domain
///   words.redistribute(tessera::KeyMap<std::string>::hashed(1));   // keys and values move
/// \endcode
/// Like `Domain<N>`, it is a handle: copies share one state. The `Communicator` is kept by address
/// and must outlive the domain, its copies and its arrays. Arrays register in construction order,
/// which must be the same on every rank.
///
/// Keys need a stable hash (`tessera::StableHash<Key>`, core/key_hash.hpp; a type without one is a
/// compile-time error naming it), `==`, and a way to travel (`tessera::KeyCodec<Key>`,
/// core/key_codec.hpp: trivially copyable keys and `std::string` have one). `gather_sorted` also
/// needs `<`. A key hash or user map that differs between ranks sends a key to two owners: checked
/// mode (`TESSERA_CHECKED=1`) has every owner re-map the keys it receives and turns a difference
/// into `Error(mismatch)` on every rank.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/array/key_routing.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/core/key_codec.hpp"
#include "tessera/core/key_hash.hpp"
#include "tessera/core/slot_index.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/key_map.hpp"

namespace tessera {

template <class Key, class T>
class AssociativeArray;

namespace detail {

/// One array's values over an associative domain, slot by slot (slot k holds the value of the
/// domain's k-th local key). The domain keeps its arrays' columns in step with its keys.
class ValueColumn {
 public:
  virtual ~ValueColumn() = default;
  /// Bytes of one value (what a redistribution sends per key and array).
  [[nodiscard]] virtual std::size_t value_bytes() const noexcept = 0;
  /// Grows (new slots value-initialised) or shrinks to `slots`.
  virtual void resize(std::size_t slots) = 0;
  /// Slot `to` takes slot `from`'s value (a removal fills its hole with the last slot).
  virtual void move_slot(std::size_t from, std::size_t to) = 0;
  virtual void write_value(std::size_t slot, std::byte* out) const = 0;
  /// A redistribution: `stage(n)` allocates the new column, `read_staged` fills it, `commit`
  /// replaces the old one.
  virtual void stage(std::size_t slots) = 0;
  virtual void read_staged(std::size_t slot, const std::byte* in) = 0;
  virtual void commit() noexcept = 0;
};

}  // namespace detail

/// A distributed set of keys (see the file's brief). Key operations are collective over `comm()`.
template <class Key>
class AssociativeDomain {
  static_assert(StablyHashable<Key>,
                "tessera::AssociativeDomain<Key>: Key has no stable hash. Specialise tessera::StableHash<Key> "
                "(core/key_hash.hpp) with std::uint64_t operator()(const Key&) const, giving the same value on "
                "every rank and run (std::hash gives no such promise)");
  static_assert(std::equality_comparable<Key>, "tessera::AssociativeDomain<Key>: Key needs ==");

 public:
  using key_type = Key;

  /// An empty domain over `comm`'s ranks, distributed by `map`. Not collective; every rank must
  /// build the same domain (the same map).
  explicit AssociativeDomain(const Communicator& comm, KeyMap<Key> map = KeyMap<Key>())
      : state_(std::make_shared<State>(comm, std::move(map))) {}

  [[nodiscard]] const Communicator& comm() const noexcept { return *state_->comm; }
  [[nodiscard]] const KeyMap<Key>& map() const noexcept { return state_->map; }

  /// The keys this rank owns, in slot order (the order of arrival; a removal moves the last key
  /// into the hole). Local: no communication.
  [[nodiscard]] std::span<const Key> local_keys() const noexcept { return state_->keys; }
  [[nodiscard]] std::size_t local_size() const noexcept { return state_->keys.size(); }
  /// The slot of `key` on this rank, if this rank holds it. Local.
  [[nodiscard]] std::optional<std::size_t> local_slot(const Key& key) const {
    return state_->slot_of.find(key, state_->keys);
  }

  /// Bytes this rank keeps for batches: the receive room and the batch order, as large as the
  /// largest batch so far (array/batch_buffers.hpp says why). Local.
  [[nodiscard]] std::size_t buffer_bytes() const noexcept { return state_->buffers.bytes(); }
  /// Frees what `buffer_bytes` counts, on this rank (after a one-off large batch, say); the next
  /// batch allocates what it needs again. Local: ranks may release at different times.
  void release_buffers() noexcept { state_->buffers = detail::BatchBuffers{}; }

  /// Collective: the number of keys over all ranks.
  [[nodiscard]] index_t size() const {
    return comm().allreduce(static_cast<index_t>(local_size()), ReduceOp::sum);
  }

  /// Collective (Chapel `D += k`): adds this rank's `keys` to the domain; keys already present
  /// (or repeated) are added once. Arrays over the domain get `T{}` for the new keys.
  void insert(std::span<const Key> keys) {
    constexpr std::string_view where = "AssociativeDomain::insert";
    const auto checked = detail::check_collective(comm(), where, map());
    const detail::ArrivedBatch in = route(where, keys, 0, [](std::size_t, std::byte*) {});
    detail::for_each_arrived<Key>(in, 0, [&](const Key& k, const std::byte*) { add(k); });
    grow_columns();
  }

  /// Collective (Chapel `D -= k`): removes this rank's `keys` from the domain with their values
  /// in every array; keys not present (or repeated) are passed over.
  void remove(std::span<const Key> keys) {
    constexpr std::string_view where = "AssociativeDomain::remove";
    const auto checked = detail::check_collective(comm(), where, map());
    const detail::ArrivedBatch in = route(where, keys, 0, [](std::size_t, std::byte*) {});
    detail::for_each_arrived<Key>(in, 0, [&](const Key& k, const std::byte*) { erase(k); });
  }

  /// Collective (Chapel `D.contains(k)`): whether each of this rank's `keys` is in the domain, in
  /// the order asked.
  [[nodiscard]] std::vector<bool> contains(std::span<const Key> keys) const {
    constexpr std::string_view where = "AssociativeDomain::contains";
    const auto checked = detail::check_collective(comm(), where, map());
    detail::RoutedBatch routed;
    std::vector<std::uint8_t> found;
    std::optional<Error> no_room = detail::allocate_answers(found, comm(), where, keys.size());
    detail::ArrivedBatch in = route(where, keys, 0, [](std::size_t, std::byte*) {}, &routed, std::move(no_room), 1);
    std::vector<std::uint8_t> answers(in.keys);
    std::uint8_t* next = answers.data();
    detail::for_each_arrived<Key>(in, 0, [&](const Key& k, const std::byte*) { *next++ = local_slot(k) ? 1 : 0; });
    detail::answer_batch<std::uint8_t>(comm(), answers, in, routed, found);
    return std::vector<bool>(found.begin(), found.end());
  }

  /// Collective: every key on `root`, sorted by `<` (other ranks get an empty vector).
  [[nodiscard]] std::vector<Key> gather_sorted(int root) const
    requires std::totally_ordered<Key>
  {
    constexpr std::string_view where = "AssociativeDomain::gather_sorted";
    const auto checked = detail::check_collective(comm(), where, root);
    std::vector<Key> all =
        detail::decode_batch<Key>(gather_local(where, root, 0, [](std::size_t, std::byte*) {}), 0).keys;
    std::sort(all.begin(), all.end());
    return all;
  }

  /// Collective (Chapel's re-distribution of a domain): every key moves to its owner under `to`,
  /// and every array over the domain moves its values with it. Keys arrive in source-rank order.
  /// A bad owner from `to` is `Error(invalid_argument)` on every rank with nothing changed.
  void redistribute(KeyMap<Key> to) {
    constexpr std::string_view where = "AssociativeDomain::redistribute";
    const auto checked = detail::check_collective(comm(), where, map(), to);
    State& s = *state_;
    std::size_t record = 0;
    for (const detail::ValueColumn* c : s.arrays) record += c->value_bytes();
    const int ranks = comm().size();
    detail::RoutedBatch routed = detail::route_batch<Key>(
        comm(), where, s.keys, [&](std::size_t i) { return to.owner(s.keys[i], ranks); }, record,
        [&](std::size_t slot, std::byte* out) {
          for (const detail::ValueColumn* c : s.arrays) {
            c->write_value(slot, out);
            out += c->value_bytes();
          }
        },
        s.buffers);
    const detail::ArrivedBatch arrived = detail::exchange_batch<Key>(
        comm(), where, routed, record, [&](const Key& k) { return to.owner(k, ranks); }, s.buffers);
    std::optional<Error> failed;
    detail::DecodedBatch<Key> in;
    detail::capture_failure(failed, comm(), where, arrived.keys * (sizeof(Key) + record), "the keys that arrive",
                            [&] { in = detail::decode_batch<Key>(arrived, record); });
    detail::capture_failure(failed, comm(), where, in.keys.size() * record, "the arrays' new values",
                            [&] { for (detail::ValueColumn* c : s.arrays) c->stage(in.keys.size()); });
    detail::SlotIndex<Key, detail::LocalKeyHasher<Key>> index;
    detail::capture_failure(failed, comm(), where, in.keys.size() * 16, "the keys' new index",
                            [&] { index.rebuild(in.keys); });
    comm().agree(failed);
    const std::byte* p = in.payload.data();
    for (std::size_t k = 0; k < in.keys.size(); ++k)
      for (detail::ValueColumn* c : s.arrays) {
        c->read_staged(k, p);
        p += c->value_bytes();
      }
    for (detail::ValueColumn* c : s.arrays) c->commit();
    s.map = std::move(to);
    s.keys = std::move(in.keys);
    s.slot_of = std::move(index);
  }

 private:
  template <class, class>
  friend class AssociativeArray;

  struct State {
    State(const Communicator& c, KeyMap<Key> m) : comm(&c), map(std::move(m)) {}
    const Communicator* comm;
    KeyMap<Key> map;
    detail::SlotIndex<Key, detail::LocalKeyHasher<Key>> slot_of;  // key -> slot; slot order is what iteration follows
    std::vector<Key> keys;                       // slot -> key
    std::vector<detail::ValueColumn*> arrays;    // registration order
    detail::BatchBuffers buffers;                // kept from batch to batch (array/batch_buffers.hpp)
  };

  /// Routes this rank's `keys` (each followed by `payload` bytes from `write`) to their owners
  /// and returns what arrived here; `*routed` keeps the routing for the answers (`answer_bytes`
  /// each, see detail::exchange_batch). `argument_error`: this rank's bad argument, thrown on every
  /// rank before anything moves.
  template <class Write>
  detail::ArrivedBatch route(std::string_view where, std::span<const Key> keys, std::size_t payload, Write&& write,
                             detail::RoutedBatch* routed = nullptr, std::optional<Error> argument_error = std::nullopt,
                             std::size_t answer_bytes = 0) const {
    const int ranks = comm().size();
    const KeyMap<Key>& m = map();
    detail::RoutedBatch own;
    detail::RoutedBatch& r = routed != nullptr ? *routed : own;
    r = detail::route_batch<Key>(
        comm(), where, keys, [&](std::size_t i) { return m.owner(keys[i], ranks); }, payload, write, state_->buffers);
    if (argument_error && !r.error) r.error = std::move(argument_error);
    return detail::exchange_batch<Key>(comm(), where, r, payload, [&](const Key& k) { return m.owner(k, ranks); },
                                       state_->buffers, answer_bytes);
  }

  /// Every local key (with `payload` bytes of slot `i` from `write(i, out)`) sent to `root`.
  template <class Write>
  detail::ArrivedBatch gather_local(std::string_view where, int root, std::size_t payload, Write&& write) const {
    const int ranks = comm().size();
    std::optional<Error> bad;
    if (root < 0 || root >= ranks)
      bad = Error(ErrorCode::invalid_argument, detail::concat(where, ": root ", root, " is not one of the ", ranks, " ranks"));
    comm().agree(bad);
    detail::RoutedBatch routed = detail::route_batch<Key>(
        comm(), where, local_keys(), [&](std::size_t) { return root; }, payload, write, state_->buffers);
    // The keys go to the root on purpose: ownership is not checked on arrival.
    return detail::exchange_batch<Key>(comm(), where, routed, payload, [&](const Key&) { return comm().rank(); },
                                       state_->buffers);
  }

  /// Adds `key` here if absent; returns its slot and whether it is new. Columns are grown by
  /// `grow_columns` once per batch.
  std::pair<std::size_t, bool> add(const Key& key) {
    State& s = *state_;
    const auto [slot, added] = s.slot_of.insert(key, s.keys);
    if (added) {
      try {
        s.keys.push_back(key);
      } catch (...) {  // the index must not name a slot the keys do not have
        s.slot_of.forget(key, slot);
        throw;
      }
    }
    return {slot, added};
  }

  void grow_columns() {
    for (detail::ValueColumn* c : state_->arrays) c->resize(state_->keys.size());
  }

  /// Removes `key` here if present: the last slot fills its hole in the keys and every column.
  void erase(const Key& key) {
    State& s = *state_;
    const auto removed = s.slot_of.erase(key, s.keys);
    if (!removed) return;
    const std::size_t hole = *removed, last = s.keys.size() - 1;
    if (hole != last) {
      s.slot_of.move_slot(s.keys[last], last, hole);
      s.keys[hole] = std::move(s.keys[last]);
      for (detail::ValueColumn* c : s.arrays) c->move_slot(last, hole);
    }
    s.keys.pop_back();
    for (detail::ValueColumn* c : s.arrays) c->resize(s.keys.size());
  }

  void attach(detail::ValueColumn* c) const {
    c->resize(state_->keys.size());
    state_->arrays.push_back(c);
  }
  void detach(const detail::ValueColumn* c) const noexcept { std::erase(state_->arrays, c); }

  std::shared_ptr<State> state_;
};

}  // namespace tessera
