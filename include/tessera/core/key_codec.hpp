#pragma once
/// \file
/// `KeyCodec<Key>`: how a key of an associative domain travels between ranks as bytes. A batch of
/// keys bound for one rank is one stretch of bytes (one message), each key written by its codec.
/// Trivially copyable keys are copied as they lie; `std::string` is its length and its bytes.
/// A user key type that is neither specialises the template (`size`, `write`, `read`):
/// \code
///   template <> struct tessera::KeyCodec<Name> {
///     static std::size_t size(const Name& k) { return KeyCodec<std::string>::size(k.text); }
///     static std::byte* write(const Name& k, std::byte* out) { return KeyCodec<std::string>::write(k.text, out); }
///     static const std::byte* read(const std::byte* in, Name& k) { return KeyCodec<std::string>::read(in, k.text); }
///   };
/// \endcode

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace tessera {

/// The bytes of a key: `size(key)` bytes written by `write(key, out)` (returns the end), read back
/// by `read(in, key)` (returns the end). The primary template serves trivially copyable keys.
template <class Key>
struct KeyCodec {
  static_assert(std::is_trivially_copyable_v<Key>,
                "tessera::KeyCodec<Key>: a key that is not trivially copyable needs a specialisation of "
                "tessera::KeyCodec (size, write, read) to travel between ranks");
  [[nodiscard]] static constexpr std::size_t size(const Key&) noexcept { return sizeof(Key); }
  static std::byte* write(const Key& key, std::byte* out) noexcept {
    std::memcpy(out, &key, sizeof(Key));
    return out + sizeof(Key);
  }
  static const std::byte* read(const std::byte* in, Key& key) noexcept {
    std::memcpy(&key, in, sizeof(Key));
    return in + sizeof(Key);
  }
};

/// A string: its length (8 bytes) then its characters.
template <>
struct KeyCodec<std::string> {
  [[nodiscard]] static std::size_t size(const std::string& key) noexcept { return sizeof(std::uint64_t) + key.size(); }
  static std::byte* write(const std::string& key, std::byte* out) noexcept {
    const std::uint64_t n = key.size();
    std::memcpy(out, &n, sizeof n);
    if (n != 0) std::memcpy(out + sizeof n, key.data(), key.size());
    return out + sizeof n + key.size();
  }
  static const std::byte* read(const std::byte* in, std::string& key) {
    std::uint64_t n = 0;
    std::memcpy(&n, in, sizeof n);
    key.assign(reinterpret_cast<const char*>(in + sizeof n), static_cast<std::size_t>(n));
    return in + sizeof n + n;
  }
};

}  // namespace tessera
