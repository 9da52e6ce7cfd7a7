#pragma once
/// \file
/// `detail::SlotIndex`: the hash index of an associative domain's local keys (internal). The keys
/// themselves live in a vector owned by the caller, slot by slot; the index maps a key to its slot.
///
/// Why not `std::unordered_map<Key, std::size_t>`: that map keeps a second copy of every key in a
/// node of its own, and a lookup chases a pointer to a bucket, then to a node, then (for the value)
/// into the caller's columns. Batched lookups and updates over 10^5 keys per rank spent most of
/// their time there (bench_assoc: 1.13-1.33x a hand-written table). Here a bucket is 8 bytes in one
/// flat array (open addressing, linear probing, at most half full): 32 bits of the key's hash and
/// the slot. A probe compares hashes first and reads the key from the caller's vector only on a
/// match; an erasure shifts the following buckets back (no tombstones), so lookups never slow down
/// as keys come and go.
///
/// Limits: at most 2^32 - 2 keys per rank (`Error(overflow)` beyond); one bucket array of at most
/// 2^32 buckets.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::detail {

template <class Key, class Hasher>
class SlotIndex {
 public:
  /// The slot of `key`, if indexed; `keys` is the caller's slot -> key vector.
  [[nodiscard]] std::optional<std::size_t> find(const Key& key, std::span<const Key> keys) const {
    if (count_ == 0) return std::nullopt;
    const std::uint32_t h = hash32(key);
    for (std::size_t b = home(h);; b = next(b)) {
      const Bucket& at = buckets_[b];
      if (at.slot_plus_one == 0) return std::nullopt;
      if (at.hash == h && keys[at.slot_plus_one - 1] == key) return at.slot_plus_one - 1;
    }
  }

  /// Indexes `key` at slot `keys.size()` unless it is indexed already; returns its slot and whether
  /// it is new. The caller appends `key` to its vector when it is. Throws `Error(overflow)` past the
  /// limit and `std::bad_alloc` if the buckets cannot grow, with nothing changed.
  std::pair<std::size_t, bool> insert(const Key& key, std::span<const Key> keys) {
    reserve(count_ + 1);
    const std::uint32_t h = hash32(key);
    std::size_t b = home(h);
    for (;; b = next(b)) {
      const Bucket& at = buckets_[b];
      if (at.slot_plus_one == 0) break;
      if (at.hash == h && keys[at.slot_plus_one - 1] == key) return {at.slot_plus_one - 1, false};
    }
    check_key_count(keys.size() + 1);
    buckets_[b] = Bucket{h, static_cast<std::uint32_t>(keys.size() + 1)};
    ++count_;
    return {keys.size(), true};
  }

  /// Removes `key`; returns the slot it had, if it was indexed.
  std::optional<std::size_t> erase(const Key& key, std::span<const Key> keys) {
    if (count_ == 0) return std::nullopt;
    const std::uint32_t h = hash32(key);
    for (std::size_t b = home(h);; b = next(b)) {
      const Bucket& at = buckets_[b];
      if (at.slot_plus_one == 0) return std::nullopt;
      if (at.hash == h && keys[at.slot_plus_one - 1] == key) {
        const std::size_t slot = at.slot_plus_one - 1;
        remove_bucket(b);
        return slot;
      }
    }
  }

  /// The key indexed at slot `from` is now at slot `to` (a removal moved the last key into a hole);
  /// `key` is that key.
  void move_slot(const Key& key, std::size_t from, std::size_t to) noexcept {
    buckets_[bucket_of(key, from)].slot_plus_one = static_cast<std::uint32_t>(to + 1);
  }

  /// Removes the entry of `key` at `slot` without reading the keys (the caller could not append
  /// `key` after `insert` indexed it).
  void forget(const Key& key, std::size_t slot) noexcept { remove_bucket(bucket_of(key, slot)); }

  /// Indexes every key of `keys` at its position (the keys must be distinct); throws
  /// `std::bad_alloc` or `Error(overflow)` with the index unchanged.
  void rebuild(std::span<const Key> keys) {
    check_key_count(keys.size());
    std::vector<Bucket> fresh(capacity_for(keys.size()));
    for (std::size_t k = 0; k < keys.size(); ++k) place(fresh, Bucket{hash32(keys[k]), static_cast<std::uint32_t>(k + 1)});
    adopt(std::move(fresh), keys.size());
  }

  /// Room for `keys` keys without growing (throws `std::bad_alloc` with nothing changed).
  void reserve(std::size_t keys) {
    if (2 * keys <= buckets_.size()) return;
    std::vector<Bucket> fresh(capacity_for(keys));
    for (const Bucket& old : buckets_)
      if (old.slot_plus_one != 0) place(fresh, old);
    adopt(std::move(fresh), count_);
  }

  [[nodiscard]] std::size_t size() const noexcept { return count_; }

 private:
  struct Bucket {
    std::uint32_t hash = 0;           // the upper 32 bits of the mixed hash: the home bucket's bits
    std::uint32_t slot_plus_one = 0;  // 0: empty
  };
  static constexpr std::size_t kMaxKeys = 0xfffffffeu;

  /// The key's hash mixed (std::hash of an integer is the integer itself: its low bits alone would
  /// crowd a power-of-two table), upper 32 bits kept. Home buckets take its top bits.
  [[nodiscard]] static std::uint32_t hash32(const Key& key) {
    std::uint64_t x = static_cast<std::uint64_t>(Hasher{}(key));
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    return static_cast<std::uint32_t>(x >> 32);
  }

  [[nodiscard]] static std::size_t capacity_for(std::size_t keys) {
    return std::bit_ceil(std::max<std::size_t>(16, 2 * keys));
  }

  [[nodiscard]] static int shift_for(std::size_t buckets) noexcept { return 32 - std::countr_zero(buckets); }
  [[nodiscard]] std::size_t home(std::uint32_t h) const noexcept { return shift_ >= 32 ? 0 : h >> shift_; }

  static void check_key_count(std::size_t keys) {
    if (keys > kMaxKeys)
      throw Error(ErrorCode::overflow, concat("an associative domain holds at most ", kMaxKeys, " keys per rank"));
  }

  /// Puts `bucket` into the first free bucket of its run in `table` (a fresh table of at least 16).
  static void place(std::vector<Bucket>& table, const Bucket& bucket) noexcept {
    const std::size_t mask = table.size() - 1;
    std::size_t b = bucket.hash >> shift_for(table.size());
    while (table[b].slot_plus_one != 0) b = (b + 1) & mask;
    table[b] = bucket;
  }

  /// The bucket holding slot `slot`, on the probe path of `key` (which must be indexed there).
  [[nodiscard]] std::size_t bucket_of(const Key& key, std::size_t slot) const noexcept {
    std::size_t b = home(hash32(key));
    while (buckets_[b].slot_plus_one != slot + 1) b = next(b);
    return b;
  }
  [[nodiscard]] std::size_t next(std::size_t b) const noexcept { return (b + 1) & mask_; }

  void adopt(std::vector<Bucket>&& fresh, std::size_t count) noexcept {
    buckets_ = std::move(fresh);
    mask_ = buckets_.size() - 1;
    shift_ = shift_for(buckets_.size());
    count_ = count;
  }

  /// Empties bucket `hole` and shifts back every following bucket of its run that may move closer
  /// to its home (backward-shift deletion: no tombstones).
  void remove_bucket(std::size_t hole) noexcept {
    for (std::size_t b = next(hole);; b = next(b)) {
      const Bucket at = buckets_[b];
      if (at.slot_plus_one == 0) break;
      // `at` may fill the hole if its home is not in (hole, b] going round the table.
      const std::size_t h = home(at.hash);
      const bool home_after_hole = hole <= b ? (hole < h && h <= b) : (hole < h || h <= b);
      if (home_after_hole) continue;
      buckets_[hole] = at;
      hole = b;
    }
    buckets_[hole] = Bucket{};
    --count_;
  }

  std::vector<Bucket> buckets_;
  std::size_t mask_ = 0;
  int shift_ = 32;
  std::size_t count_ = 0;
};

}  // namespace tessera::detail
