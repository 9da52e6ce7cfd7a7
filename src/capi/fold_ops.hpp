#pragma once
// The C API's folds (ADD, MULTIPLY, MIN, MAX) as an identity and an operator per element type,
// shared by the entry points that fold with a user-chosen tessera_op (reduce_along, scan).
#include <algorithm>
#include <limits>
#include <type_traits>

#include "convert.hpp"

namespace tessera::capi {

/// Element types that can be added and multiplied (not index points).
template <class T>
constexpr bool is_number = !std::is_same_v<T, IndexPoint>;
/// Element types with an order (numbers but complex ones).
template <class T>
constexpr bool is_ordered = is_number<T> && !std::is_same_v<T, Complex>;

/// TESSERA_ERR_INVALID_ARGUMENT: `op` does not apply to T.
template <class T>
[[noreturn]] void op_undefined(tessera_op op) {
  fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'op' = ", to_string(to_op(op, "op")), " is not defined for ",
         type_name(type_code<T>()), " elements");
}

/// Calls `f(identity, op)` with the fold `op` names on T: wrapping sums and products (integers
/// never overflow into undefined behaviour), min and max from the largest and smallest values.
/// TESSERA_ERR_INVALID_ARGUMENT for an op that does not apply to T (or REPLACE).
template <class T, class F>
void with_fold(tessera_op op, F&& f) {
  const CombineOp combine = to_op(op, "op");
  if constexpr (!is_number<T>) {
    op_undefined<T>(op);
  } else {
    if (combine == CombineOp::add) return f(T{}, WrappingPlus{});
    if (combine == CombineOp::multiply) return f(T{1}, WrappingMultiplies{});
    if constexpr (is_ordered<T>) {
      using limits = std::numeric_limits<T>;
      const T top = limits::has_infinity ? limits::infinity() : limits::max();
      const T bottom = limits::has_infinity ? -limits::infinity() : limits::lowest();
      if (combine == CombineOp::min) return f(top, [](T p, T q) { return std::min(p, q); });
      if (combine == CombineOp::max) return f(bottom, [](T p, T q) { return std::max(p, q); });
    }
    op_undefined<T>(op);
  }
}

}  // namespace tessera::capi
