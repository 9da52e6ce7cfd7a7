#pragma once
/// \file
/// The index type and overflow-checked arithmetic on it.
///
/// Indices, extents, volumes and offsets are all `std::int64_t` (`index_t`). Coordinates may be
/// negative. Operations that can overflow on legal input (an extent `hi - lo`, a volume) are checked
/// and throw `Error(overflow)`; the hot paths (offsets inside a box whose volume was checked) are not.

#include <cstdint>

#include "tessera/core/error.hpp"

namespace tessera {

/// A global or local index, an extent, a volume or an offset.
using index_t = std::int64_t;

/// `a - b`, or `Error(overflow)` naming `what` if the difference does not fit in 64 bits.
[[nodiscard]] constexpr index_t checked_sub(index_t a, index_t b, const char* what) {
  index_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) fail(ErrorCode::overflow, what, ": ", a, " - ", b, " overflows 64 bits");
  return out;
}

/// `a + b`, or `Error(overflow)` naming `what`.
[[nodiscard]] constexpr index_t checked_add(index_t a, index_t b, const char* what) {
  index_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) fail(ErrorCode::overflow, what, ": ", a, " + ", b, " overflows 64 bits");
  return out;
}

/// `a * b`, or `Error(overflow)` naming `what`.
[[nodiscard]] constexpr index_t checked_mul(index_t a, index_t b, const char* what) {
  index_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) fail(ErrorCode::overflow, what, ": ", a, " * ", b, " overflows 64 bits");
  return out;
}

/// Floor division for any signs (C++ `/` truncates towards zero). `d` must be positive.
[[nodiscard]] constexpr index_t floor_div(index_t n, index_t d) noexcept {
  const index_t q = n / d;
  return (n % d != 0 && n < 0) ? q - 1 : q;
}

/// Ceiling division for any signs. `d` must be positive.
[[nodiscard]] constexpr index_t ceil_div(index_t n, index_t d) noexcept { return -floor_div(-n, d); }

/// The non-negative remainder matching `floor_div`: `n == floor_div(n, d) * d + floor_mod(n, d)`.
[[nodiscard]] constexpr index_t floor_mod(index_t n, index_t d) noexcept { return n - floor_div(n, d) * d; }

}  // namespace tessera
