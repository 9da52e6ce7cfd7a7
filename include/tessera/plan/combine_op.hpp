#pragma once
/// \file
/// What happens to a destination element when a copy arrives (KeLP's "update forms"): replace it,
/// or combine it with the arriving value. Reverse halo exchanges accumulate ghost contributions into
/// their owners with `add`.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/core/wrapping_arithmetic.hpp"

namespace tessera {

/// How an arriving value meets the one in place: replaced, or combined (KeLP's add-while-moving).
enum class CombineOp : std::uint8_t { replace, add, multiply, min, max };

/// The op's name: `replace`, `add`, ...
[[nodiscard]] constexpr const char* to_string(CombineOp op) noexcept {
  switch (op) {
    case CombineOp::replace:
      return "replace";
    case CombineOp::add:
      return "add";
    case CombineOp::multiply:
      return "multiply";
    case CombineOp::min:
      return "min";
    case CombineOp::max:
      return "max";
  }
  return "unknown";
}

/// Combines `count` arriving elements at `src` into `dst` (both possibly unaligned byte pointers).
using CombineFn = void (*)(void* dst, const void* src, index_t count);

namespace detail {
template <class T, CombineOp Op>
void combine_elements(void* dst, const void* src, index_t count) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (index_t i = 0; i < count; ++i, d += sizeof(T), s += sizeof(T)) {
    T a, b;
    std::memcpy(&a, d, sizeof(T));
    std::memcpy(&b, s, sizeof(T));
    if constexpr (Op == CombineOp::add)
      a = wrapping_add(a, b);  // integers wrap: an accumulation of user data is never undefined
    else if constexpr (Op == CombineOp::multiply)
      a = wrapping_multiply(a, b);
    else if constexpr (Op == CombineOp::min)
      a = std::min(a, b);
    else
      a = std::max(a, b);
    std::memcpy(d, &a, sizeof(T));
  }
}
}  // namespace detail

/// The combine function for element type T, or nullptr for `replace` (which the mover does with
/// memcpy). Throws `Error(invalid_argument)` when T does not support the operation.
template <class T>
[[nodiscard]] CombineFn combine_function(CombineOp op) {
  if (op == CombineOp::replace) return nullptr;
  constexpr bool additive = requires(T a, T b) {
    a = a + b;
    a = a * b;
  };
  // Not `std::min(a, b)`: std::min is unconstrained, so asking about it is a hard error for a type
  // without operator<, where we want `false`.
  constexpr bool ordered = requires(T a, T b) { a < b; };
  if constexpr (additive) {
    if (op == CombineOp::add) return &detail::combine_elements<T, CombineOp::add>;
    if (op == CombineOp::multiply) return &detail::combine_elements<T, CombineOp::multiply>;
  }
  if constexpr (ordered) {
    if (op == CombineOp::min) return &detail::combine_elements<T, CombineOp::min>;
    if (op == CombineOp::max) return &detail::combine_elements<T, CombineOp::max>;
  }
  fail_argument("combine_function", "op", to_string(op), "is not defined for this element type");
}

}  // namespace tessera
