#pragma once
/// \file
/// Integer `+` and `*` that wrap modulo 2^bits instead of overflowing. Signed overflow is undefined
/// behaviour in C++, and the arrays' values are the user's data: a sum of large `int64` elements
/// must give some defined answer (the same bits on every rank and rank count), not license the
/// compiler to do anything. `DistArray::sum`, the C API's add/multiply reductions and
/// accumulations with `CombineOp::add` / `multiply` go through these. Floating-point and complex
/// types use their own `+` and `*` unchanged.
/// \code
///   static_assert(tessera::wrapping_add<std::int32_t>(INT32_MAX, 1) == INT32_MIN);
/// \endcode

#include <type_traits>

namespace tessera {

namespace detail {
/// The unsigned type the arithmetic of signed integer T runs in: at least `unsigned`, so that
/// short types are not promoted back to (overflowing) `int`.
template <class T>
using WrappingWord =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
}  // namespace detail

/// a + b, modulo 2^bits for integers (defined for every input); plain `+` for other types.
template <class T>
[[nodiscard]] constexpr T wrapping_add(const T& a, const T& b) noexcept(noexcept(a + b)) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using W = detail::WrappingWord<T>;
    return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));  // C++20: conversion is modulo 2^bits
  } else {
    return a + b;
  }
}

/// a * b, modulo 2^bits for integers (defined for every input); plain `*` for other types.
template <class T>
[[nodiscard]] constexpr T wrapping_multiply(const T& a, const T& b) noexcept(noexcept(a * b)) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using W = std::conditional_t<std::is_signed_v<T>, detail::WrappingWord<T>,
                                 std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, T>>;
    return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
  } else {
    return a * b;
  }
}

/// `std::plus<>` with `wrapping_add`: the fold of `DistArray::sum`.
struct WrappingPlus {
  template <class T>
  [[nodiscard]] constexpr T operator()(const T& a, const T& b) const noexcept(noexcept(a + b)) {
    return wrapping_add(a, b);
  }
};

/// `std::multiplies<>` with `wrapping_multiply`.
struct WrappingMultiplies {
  template <class T>
  [[nodiscard]] constexpr T operator()(const T& a, const T& b) const noexcept(noexcept(a * b)) {
    return wrapping_multiply(a, b);
  }
};

}  // namespace tessera
