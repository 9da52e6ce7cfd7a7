#pragma once
// Serial references for the associative-domain tests: every rank generates every rank's batches
// from seeds (rank, round), so each rank can replay the whole job's history in one std::map and
// compare what the distributed domain answered against it.

#include <compare>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessera/core/key_hash.hpp"

namespace tessera::testing {

/// A user key type: trivially copyable (travels by its bytes), with a stable hash of its fields.
struct Cell {
  std::int32_t block = 0;
  std::int64_t id = 0;
  friend auto operator<=>(const Cell&, const Cell&) = default;
};

/// Key number `x` of a small universe, as each key type spells it.
template <class Key>
Key make_key(std::uint64_t x) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::string s = "w";
    for (std::uint64_t y = x; y != 0; y /= 7) s += static_cast<char>('a' + y % 7);  // lengths vary
    return s;
  } else if constexpr (std::is_same_v<Key, Cell>) {
    return Cell{static_cast<std::int32_t>(x % 5), static_cast<std::int64_t>(x / 5) - 3};
  } else {
    return static_cast<Key>(x) - static_cast<Key>(40);  // negative keys too
  }
}

/// Rank `rank`'s batch of round `round` for purpose `what`: `count` keys drawn from `universe`
/// (so keys repeat within and across batches).
template <class Key>
std::vector<Key> batch_of(int rank, int round, int what, std::size_t count, std::uint64_t universe) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(rank) * 1000003u + static_cast<std::uint64_t>(round) * 101u +
                      static_cast<std::uint64_t>(what));
  std::vector<Key> keys(count);
  for (Key& k : keys) k = make_key<Key>(rng() % universe);
  return keys;
}

/// A batch size that differs by rank and round, 0 for some (empty batches).
inline std::size_t count_of(int rank, int round) { return static_cast<std::size_t>((rank * 7 + round * 5) % 23); }

}  // namespace tessera::testing

template <>
struct tessera::StableHash<tessera::testing::Cell> {
  std::uint64_t operator()(const tessera::testing::Cell& c) const { return tessera::stable_hash_of(c.block, c.id); }
};
