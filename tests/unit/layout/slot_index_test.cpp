// detail::SlotIndex (core/slot_index.hpp), the hash index of an associative domain's local keys:
// random inserts and removals, the domain's way (a removal moves the last key into the hole),
// checked after every step against std::unordered_map, with a good hash and with hashes that
// collide on purpose (long probe runs, wrap-around at the table's end, backward shifts).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/core/slot_index.hpp"

namespace {

/// Eight distinct hash values in all: runs of colliding keys, across the table's end too.
struct CrowdedHash {
  std::size_t operator()(std::int64_t k) const noexcept { return static_cast<std::size_t>(k % 8) * 0x2545f4914f6cdd1dULL; }
  std::size_t operator()(const std::string& k) const noexcept { return static_cast<std::size_t>(k.size() % 8); }
};

template <class Key>
Key slot_index_key(std::uint64_t x) {
  if constexpr (std::is_same_v<Key, std::string>)
    return "key-" + std::to_string(x);
  else
    return static_cast<Key>(x) - 500;  // negative keys too
}

/// The domain's bookkeeping over `index`, shadowed by a std::unordered_map.
template <class Key, class Hasher>
void run_slot_index_sequence(unsigned seed, std::uint64_t universe, int steps) {
  tessera::detail::SlotIndex<Key, Hasher> index;
  std::vector<Key> keys;
  std::unordered_map<Key, std::size_t> shadow;
  std::mt19937_64 rng(seed);
  for (int step = 0; step < steps; ++step) {
    const Key key = slot_index_key<Key>(rng() % universe);
    switch (rng() % 4) {
      case 0:
      case 1: {  // insert
        const auto [slot, added] = index.insert(key, keys);
        const auto it = shadow.find(key);
        ASSERT_EQ(added, it == shadow.end()) << "step " << step;
        if (added) {
          ASSERT_EQ(slot, keys.size());
          keys.push_back(key);
          shadow.emplace(key, slot);
        } else {
          ASSERT_EQ(slot, it->second);
        }
        break;
      }
      case 2: {  // remove, the last key filling the hole
        const auto removed = index.erase(key, keys);
        const auto it = shadow.find(key);
        ASSERT_EQ(removed.has_value(), it != shadow.end()) << "step " << step;
        if (!removed) break;
        ASSERT_EQ(*removed, it->second);
        shadow.erase(it);
        const std::size_t last = keys.size() - 1;
        if (*removed != last) {
          index.move_slot(keys[last], last, *removed);
          keys[*removed] = keys[last];
          shadow[keys[*removed]] = *removed;
        }
        keys.pop_back();
        break;
      }
      default: {  // an insert taken back, as when appending the key failed
        const auto [slot, added] = index.insert(key, keys);
        if (added) index.forget(key, slot);
        break;
      }
    }
    ASSERT_EQ(index.size(), shadow.size());
    if (step % 97 == 0 || step == steps - 1) {
      for (std::uint64_t x = 0; x < universe; ++x) {
        const Key k = slot_index_key<Key>(x);
        const auto found = index.find(k, keys);
        const auto it = shadow.find(k);
        ASSERT_EQ(found.has_value(), it != shadow.end()) << "step " << step << ", key " << x;
        if (found) {
          ASSERT_EQ(*found, it->second);
        }
      }
    }
  }
  // Rebuilt from the keys alone, the index answers the same.
  tessera::detail::SlotIndex<Key, Hasher> rebuilt;
  rebuilt.rebuild(keys);
  ASSERT_EQ(rebuilt.size(), keys.size());
  for (std::size_t s = 0; s < keys.size(); ++s) ASSERT_EQ(rebuilt.find(keys[s], keys), s);
}

TEST(SlotIndex, MatchesUnorderedMapWithAGoodHash) {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    run_slot_index_sequence<std::int64_t, std::hash<std::int64_t>>(seed, 3000, 20000);
    run_slot_index_sequence<std::string, std::hash<std::string>>(seed, 1500, 8000);
  }
}

TEST(SlotIndex, MatchesUnorderedMapWhenHashesCollide) {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    run_slot_index_sequence<std::int64_t, CrowdedHash>(seed, 200, 4000);
    run_slot_index_sequence<std::string, CrowdedHash>(seed, 200, 4000);
  }
}

TEST(SlotIndex, EmptyIndexFindsNothing) {
  tessera::detail::SlotIndex<std::int64_t, std::hash<std::int64_t>> index;
  const std::vector<std::int64_t> none;
  EXPECT_FALSE(index.find(7, none).has_value());
  EXPECT_FALSE(index.erase(7, none).has_value());
  index.rebuild(none);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_FALSE(index.find(7, none).has_value());
}

}  // namespace
