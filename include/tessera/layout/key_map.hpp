#pragma once
/// \file
/// `KeyMap<Key>`: Chapel's `Map(index) -> locale` for the keys of an associative domain
/// (array/associative_domain.hpp): which rank owns a key. The default hashes the key with its
/// `StableHash` (core/key_hash.hpp), mixed with a seed, modulo the rank count; a user map is any
/// function of the key and the rank count. Pure: no MPI.
/// \code
///   tessera::KeyMap<std::string> by_hash;                          // stable hash mod ranks
///   tessera::KeyMap<std::string> reseeded = tessera::KeyMap<std::string>::hashed(7);
///   tessera::KeyMap<std::int64_t> blocks("blocks of 1000", [](const std::int64_t& k, int ranks) {
///     return static_cast<int>((k / 1000) % ranks);
///   });
/// \endcode
/// A map must give the same owner for a key on every rank and in every run: a user map that
/// reads rank-local state breaks the domain (checked mode finds it, see `AssociativeDomain`).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/core/key_hash.hpp"

namespace tessera {

template <class Key>
class KeyMap {
 public:
  /// A user map: `owner(key, ranks)` in [0, ranks). `name` identifies the map where ranks
  /// compare calls (checked mode) and in messages.
  using Owner = std::function<int(const Key&, int)>;

  /// The default: `stable_hash(key)` mixed with seed 0, modulo the rank count.
  KeyMap()
    requires StablyHashable<Key>
      : KeyMap(hashed(0)) {}

  KeyMap(std::string name, Owner owner)
      : name_(std::move(name)), owner_(std::make_shared<const Owner>(std::move(owner))), id_(hash_text(name_)) {
    if (!*owner_) fail_argument("KeyMap", "owner", "an empty function", "(a map needs an owner function)");
  }

  /// The hash map with a seed: seeds give different, equally balanced placements of one key set
  /// (what a redistribution from one hash map to another moves between).
  [[nodiscard]] static KeyMap hashed(std::uint64_t seed)
    requires StablyHashable<Key>
  {
    KeyMap map(detail::concat("hash(seed ", seed, ")"), [seed](const Key& key, int ranks) { return hashed_owner(seed, key, ranks); });
    map.seed_ = seed;
    return map;
  }

  /// The owner of `key` among `ranks` ranks, as the function gives it (the domain checks the range).
  /// A hash map computes it inline, without the call through `std::function`.
  [[nodiscard]] int owner(const Key& key, int ranks) const {
    if constexpr (StablyHashable<Key>)
      if (seed_) return hashed_owner(*seed_, key, ranks);
    return (*owner_)(key, ranks);
  }

  /// The map's name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// A stable hash of the name: what checked mode compares across ranks.
  [[nodiscard]] std::uint64_t hash() const noexcept { return id_; }

 private:
  [[nodiscard]] static int hashed_owner(std::uint64_t seed, const Key& key, int ranks) {
    return static_cast<int>(hash_combine(seed, stable_hash(key)) % static_cast<std::uint64_t>(ranks));
  }

  std::optional<std::uint64_t> seed_;  ///< set for the hash maps of `hashed`
  std::string name_;
  std::shared_ptr<const Owner> owner_;
  std::uint64_t id_ = 0;
};

}  // namespace tessera
