#pragma once
/// \file
/// `ElementType`: the element types a checkpoint can hold, named as NumPy names them (`float64`,
/// `int32`, `complex128`), which is also what the `element_type` attribute of a dataset says.
/// \code
///   static_assert(tessera::io::element_type_of<double>() == tessera::io::ElementType::float64);
///   static_assert(tessera::io::CheckpointElement<std::complex<double>>);
///   static_assert(!tessera::io::CheckpointElement<bool>);
/// \endcode
/// Integers of 1, 2, 4 and 8 bytes (signed or not, any spelling: `int`, `long`, `std::int64_t`),
/// `float`, `double`, `std::complex<float>` and `std::complex<double>`. Complex numbers are stored
/// as the HDF5 compound `{r, i}` that h5py reads as NumPy complex.

#include <complex>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace tessera::io {

/// An element type of a checkpointed array.
enum class ElementType : std::uint8_t {
  int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, complex64, complex128,
};

/// The NumPy name of `type`: `float64`, `int32`, `complex128`, ...
[[nodiscard]] constexpr const char* to_string(ElementType type) noexcept {
  switch (type) {
    case ElementType::int8: return "int8";
    case ElementType::uint8: return "uint8";
    case ElementType::int16: return "int16";
    case ElementType::uint16: return "uint16";
    case ElementType::int32: return "int32";
    case ElementType::uint32: return "uint32";
    case ElementType::int64: return "int64";
    case ElementType::uint64: return "uint64";
    case ElementType::float32: return "float32";
    case ElementType::float64: return "float64";
    case ElementType::complex64: return "complex64";
    case ElementType::complex128: return "complex128";
  }
  return "unknown";
}

/// The element type of a C++ type T, or nullopt if a checkpoint cannot hold T.
template <class T>
[[nodiscard]] constexpr std::optional<ElementType> element_type_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float> && sizeof(float) == 4) return ElementType::float32;
  else if constexpr (std::is_same_v<U, double> && sizeof(double) == 8) return ElementType::float64;
  else if constexpr (std::is_same_v<U, std::complex<float>>) return ElementType::complex64;
  else if constexpr (std::is_same_v<U, std::complex<double>>) return ElementType::complex128;
  else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool>) {
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1) return s ? ElementType::int8 : ElementType::uint8;
    else if constexpr (sizeof(U) == 2) return s ? ElementType::int16 : ElementType::uint16;
    else if constexpr (sizeof(U) == 4) return s ? ElementType::int32 : ElementType::uint32;
    else if constexpr (sizeof(U) == 8) return s ? ElementType::int64 : ElementType::uint64;
    else return std::nullopt;
  } else {
    return std::nullopt;
  }
}

/// Types a checkpoint can hold.
template <class T>
concept CheckpointElement = element_type_of<T>().has_value();

}  // namespace tessera::io
