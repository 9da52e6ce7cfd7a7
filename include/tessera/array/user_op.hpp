#pragma once
/// \file
/// What a user operator promises about itself, for the operations that rely on it: scans
/// (scan.hpp) need an associative operator, partial reductions into an array (partial_reduce.hpp)
/// an associative and commutative one. A plain callable promises both; `user_op` wraps one that
/// says otherwise, and those operations then refuse it with an `Error` on every rank instead of
/// returning results that depend on the distribution.
/// \code
///   auto minus = tessera::user_op([](double a, double b) { return a - b; }, {.associative = false});
///   tessera::scan(a, out, tessera::ScanKind::inclusive, 0.0, minus);   // throws Error(invalid_argument)
///   auto compose = tessera::user_op(affine_compose, {.commutative = false});
///   tessera::scan(maps, out, tessera::ScanKind::inclusive, identity_map, compose);  // fine: scans keep order
/// \endcode

#include <concepts>
#include <utility>

namespace tessera {

/// The algebraic properties an operator declares (both true unless it says otherwise).
struct OpProperties {
  bool associative = true;  ///< op(op(a, b), c) == op(a, op(b, c)) (up to rounding for floating point)
  bool commutative = true;  ///< op(a, b) == op(b, a)
};

/// A callable with declared properties (see the file comment). Calls go straight to `f`.
template <class F>
struct UserOp {
  F f;                      ///< the operator
  OpProperties properties;  ///< what it promises
  /// f(a, b).
  template <class A, class B>
  [[nodiscard]] constexpr decltype(auto) operator()(A&& a, B&& b) const {
    return f(std::forward<A>(a), std::forward<B>(b));
  }
};

/// `f` with the properties `properties`.
template <class F>
[[nodiscard]] constexpr UserOp<F> user_op(F f, OpProperties properties) {
  return UserOp<F>{std::move(f), properties};
}

namespace detail {

/// The properties `op` declares: its `properties` member if it has one, else both true.
template <class Op>
[[nodiscard]] constexpr OpProperties op_properties(const Op& op) noexcept {
  if constexpr (requires { { op.properties } -> std::convertible_to<OpProperties>; })
    return op.properties;
  else
    return OpProperties{};
}

}  // namespace detail
}  // namespace tessera
