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

namespace tessera::bench {

namespace detail {
inline std::size_t live = 0;  // single-threaded drivers: plain counters
inline std::size_t peak = 0;

inline void* tracked_allocation(std::size_t bytes, std::size_t alignment) {
  if (bytes == 0) bytes = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(bytes)
                : std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  live += malloc_usable_size(p);
  if (live > peak) peak = live;
  return p;
}
inline void tracked_release(void* p) noexcept {
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

// These replacements pair every new with free: GCC, seeing operator new's call inlined, warns
// that free is not its match, which here it is.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) { return tessera::bench::detail::tracked_allocation(n, 0); }
void* operator new[](std::size_t n) { return tessera::bench::detail::tracked_allocation(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return tessera::bench::detail::tracked_allocation(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return tessera::bench::detail::tracked_allocation(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete[](void* p) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete(void* p, std::size_t) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete[](void* p, std::size_t) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete(void* p, std::align_val_t) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { tessera::bench::detail::tracked_release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { tessera::bench::detail::tracked_release(p); }
#pragma GCC diagnostic pop
