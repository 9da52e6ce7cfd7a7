#pragma once
/// \file
/// Tracks the bytes the program holds through `operator new` and their high-water mark, so that a
/// benchmark can report what an operation needs beyond the arrays it moves (issue 21).
///
/// Include this header in exactly ONE translation unit of a driver: it replaces the global
/// `operator new` / `operator delete` of the whole program, so allocations made inside the library
/// (array storage, schedules, message buffers, std::vector growth) are all seen. A block's size is
/// what `malloc_usable_size` says (a little more than asked, the same at allocation and release).
/// MPI's own buffers come from malloc and are not seen: the figures are tessera's, not MPI's.
/// \code
///   const auto before = tessera::bench::live_bytes();
///   tessera::bench::reset_peak();          // the peak restarts from what is held now
///   dom.redistribute(to);
///   const auto extra = tessera::bench::peak_bytes() - before;   // beyond what existed before
/// \endcode

#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "global_new.hpp"

namespace tessera::bench {

namespace detail {
inline std::size_t live = 0;  // single-threaded drivers: plain counters
inline std::size_t peak = 0;

// The replacements of global_new.hpp: bytes held and their high-water mark.
inline void* replaced_new(std::size_t bytes, std::size_t alignment) {
  void* p = malloc_or_throw(bytes, alignment);
  live += malloc_usable_size(p);
  if (live > peak) peak = live;
  return p;
}
inline void replaced_delete(void* p) noexcept {
  if (p == nullptr) return;
  live -= malloc_usable_size(p);
  std::free(p);
}
}  // namespace detail

/// Bytes held through operator new now.
[[nodiscard]] inline std::size_t live_bytes() noexcept { return detail::live; }
/// The most bytes held at once since the last `reset_peak`.
[[nodiscard]] inline std::size_t peak_bytes() noexcept { return detail::peak; }
/// Restarts the high-water mark from what is held now.
inline void reset_peak() noexcept { detail::peak = detail::live; }

}  // namespace tessera::bench
