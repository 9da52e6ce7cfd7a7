#pragma once
/// \file
/// `StorageOrder`: the order in which a rank's patches keep their elements in memory. Row-major
/// (C order, the last axis fastest) is the default; column-major (Fortran order, the first axis
/// fastest) is what Fortran, LAPACK and ScaLAPACK expect: a column-major `block_cyclic` array's
/// local buffer is exactly ScaLAPACK's local array, leading dimension the local row count
/// (docs/scalapack.md). The order changes only where elements sit in local memory: global images
/// (`gather_to`, `scatter_from`), checkpoint files and the visiting order of `for_each_owned` stay
/// row-major, so every result is the same bits in either order.
/// \code
///   tessera::DistArray<double, 2> a(dom, tessera::no_ghosts<2>().column_major());
///   a.local().strides;   // {1, local rows}
/// \endcode

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

namespace tessera {

/// Where consecutive elements of a patch lie in memory (see the file comment).
enum class StorageOrder : std::uint8_t {
  row_major = 0,     ///< C order: the last axis varies fastest (the default)
  column_major = 1,  ///< Fortran order: the first axis varies fastest
};

/// "row-major" or "column-major".
[[nodiscard]] constexpr std::string_view to_string(StorageOrder order) noexcept {
  return order == StorageOrder::column_major ? "column-major" : "row-major";
}

/// Prints `to_string(order)`.
inline std::ostream& operator<<(std::ostream& out, StorageOrder order) { return out << to_string(order); }

/// The axes from slowest- to fastest-varying in memory under `order`: {0, 1, ..., N-1} for
/// row-major, {N-1, ..., 1, 0} for column-major.
template <std::size_t N>
[[nodiscard]] constexpr std::array<int, N> axes_slowest_first(StorageOrder order) noexcept {
  std::array<int, N> axes{};
  for (std::size_t k = 0; k < N; ++k)
    axes[k] = static_cast<int>(order == StorageOrder::column_major ? N - 1 - k : k);
  return axes;
}

/// The axis that varies slowest in memory: 0 row-major, N-1 column-major (the axis along which
/// whole "rows" of storage can be added or kept to spare without moving the others).
template <std::size_t N>
[[nodiscard]] constexpr std::size_t outermost_axis(StorageOrder order) noexcept {
  return order == StorageOrder::column_major ? N - 1 : 0;
}

}  // namespace tessera
