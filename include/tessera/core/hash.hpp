#pragma once
/// \file
/// A stable 64-bit hash (the same value on every rank, every run and every build), used to key
/// schedule caches and to compare arguments across ranks in checked mode. `std::hash` gives no
/// such promise, so tessera never uses it for anything that crosses a process boundary.

#include <cstdint>
#include <string_view>

namespace tessera {

/// Folds `value` into the running hash `seed` (splitmix64 finaliser over a boost-style combine).
[[nodiscard]] constexpr std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) noexcept {
  std::uint64_t x = seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// A stable hash of text or bytes (FNV-1a, then finalised with the length): the same on every
/// rank and build. Keys of associative domains (core/key_hash.hpp) and checked mode's call
/// names hash through it.
[[nodiscard]] constexpr std::uint64_t hash_text(std::string_view text) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return hash_combine(h, text.size());
}

}  // namespace tessera
