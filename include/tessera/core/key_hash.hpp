#pragma once
/// \file
/// `StableHash<Key>`: the customisation point that gives a key of an associative domain
/// (array/associative_domain.hpp) a hash that is the same on every rank, every run and every
/// build. The default map of keys to ranks (layout/key_map.hpp) is this hash modulo the rank
/// count, so a hash that differed between ranks would send one key to two owners. `std::hash`
/// gives no such promise (nor do pointers or padding bytes), so tessera never uses it here.
///
/// Provided: integers, `bool`, enums (by value, so the same on either byte order), `std::string`
/// and `std::string_view` (FNV-1a over the bytes, `hash_text`), and `std::pair`, `std::tuple`,
/// `std::array` of hashable parts. Floating-point keys are left out on purpose: 0.0 and -0.0 are
/// equal with different bits. A user type specialises the template:
/// \code
///   struct Cell { std::int32_t block; std::int64_t id; };
///   template <> struct tessera::StableHash<Cell> {
///     std::uint64_t operator()(const Cell& c) const noexcept { return tessera::stable_hash_of(c.block, c.id); }
///   };
/// \endcode
/// A key type without one stops compilation with a `static_assert` naming `tessera::StableHash`.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tessera/core/hash.hpp"

namespace tessera {

/// The stable hash of a `Key`: specialise it with `std::uint64_t operator()(const Key&) const`.
/// The primary template has no call operator, so `StablyHashable<Key>` is false for types that
/// were not given one.
template <class Key>
struct StableHash {};

/// True if `StableHash<Key>` has been given a call operator returning `std::uint64_t`.
template <class Key>
concept StablyHashable = std::is_invocable_r_v<std::uint64_t, const StableHash<Key>&, const Key&>;

/// `StableHash<Key>{}(key)`.
template <StablyHashable Key>
[[nodiscard]] std::uint64_t stable_hash(const Key& key) noexcept(noexcept(StableHash<Key>{}(key))) {
  return StableHash<Key>{}(key);
}

/// The parts' stable hashes combined in order: what a user specialisation of a struct writes.
template <StablyHashable... Parts>
[[nodiscard]] std::uint64_t stable_hash_of(const Parts&... parts) {
  std::uint64_t h = 0x6b6579ULL;  // "key": two different arities of zeros hash apart
  ((h = hash_combine(h, stable_hash(parts))), ...);
  return h;
}

/// Integers, `bool` and enums hash by value (not by bytes), so the hash does not depend on the
/// byte order; a value-preserving conversion between integer types changes the hash only through
/// the type's width, which is folded in.
template <class Key>
  requires std::is_integral_v<Key> || std::is_enum_v<Key>
struct StableHash<Key> {
  [[nodiscard]] constexpr std::uint64_t operator()(const Key& key) const noexcept {
    std::uint64_t value = 0;
    if constexpr (std::is_enum_v<Key>)
      value = static_cast<std::uint64_t>(static_cast<std::underlying_type_t<Key>>(key));
    else
      value = static_cast<std::uint64_t>(key);
    return hash_combine(sizeof(Key), value);
  }
};

template <>
struct StableHash<std::string_view> {
  [[nodiscard]] constexpr std::uint64_t operator()(std::string_view key) const noexcept { return hash_text(key); }
};

template <>
struct StableHash<std::string> {
  [[nodiscard]] std::uint64_t operator()(const std::string& key) const noexcept { return hash_text(key); }
};

template <StablyHashable A, StablyHashable B>
struct StableHash<std::pair<A, B>> {
  [[nodiscard]] std::uint64_t operator()(const std::pair<A, B>& key) const { return stable_hash_of(key.first, key.second); }
};

template <StablyHashable... Parts>
struct StableHash<std::tuple<Parts...>> {
  [[nodiscard]] std::uint64_t operator()(const std::tuple<Parts...>& key) const {
    return std::apply([](const Parts&... p) { return stable_hash_of(p...); }, key);
  }
};

template <StablyHashable T, std::size_t N>
struct StableHash<std::array<T, N>> {
  [[nodiscard]] std::uint64_t operator()(const std::array<T, N>& key) const {
    std::uint64_t h = hash_combine(0x6172726179ULL, N);  // "array"
    for (const T& x : key) h = hash_combine(h, stable_hash(x));
    return h;
  }
};

namespace detail {
/// `StableHash` as the hasher of a `std::unordered_map` (its `size_t` result).
template <class Key>
struct StableHasher {
  [[nodiscard]] std::size_t operator()(const Key& key) const { return static_cast<std::size_t>(stable_hash(key)); }
};

/// The hasher of one rank's own table of keys: `std::hash` where the key has one (nothing that
/// crosses ranks depends on it, and it is faster on strings), else `StableHasher`.
template <class Key>
using LocalKeyHasher = std::conditional_t<std::is_default_constructible_v<std::hash<Key>>, std::hash<Key>, StableHasher<Key>>;
}  // namespace detail

}  // namespace tessera
