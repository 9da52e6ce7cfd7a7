#pragma once
/// \file
/// Counts heap allocations, so a benchmark can report how many tessera's hot path makes after its
/// first execution (issue 6: "zero allocations in the hot path after the first execution").
///
/// Include this header in exactly ONE translation unit of a driver: it replaces the global
/// `operator new` / `operator delete` of the whole program (that is how the count sees allocations
/// made inside the library, std::vector growth included). MPI's own allocations go through malloc
/// and are not counted: what is counted is what tessera and the driver allocate with new.
/// \code
///   mover.run(a, a);                                   // first execution: may allocate
///   const auto before = tessera::bench::allocations();
///   for (int i = 0; i < 100; ++i) mover.run(a, a);
///   const double per_run = (tessera::bench::allocations() - before) / 100.0;   // expect 0
/// \endcode

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace tessera::bench {

namespace detail {
inline std::atomic<std::uint64_t> allocation_count{0};

inline void* counted_allocation(std::size_t bytes, std::size_t alignment) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (bytes == 0) bytes = 1;
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(bytes);
  } else {
    // aligned_alloc wants a size that is a multiple of the alignment.
    p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  }
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace detail

/// Allocations (calls of any global operator new) since the program started.
[[nodiscard]] inline std::uint64_t allocations() noexcept {
  return detail::allocation_count.load(std::memory_order_relaxed);
}

}  // namespace tessera::bench

// The replacements. Every form of new ends in counted_allocation; every delete in free (memory
// from aligned_alloc is released with free too).
void* operator new(std::size_t n) { return tessera::bench::detail::counted_allocation(n, 0); }
void* operator new[](std::size_t n) { return tessera::bench::detail::counted_allocation(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return tessera::bench::detail::counted_allocation(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return tessera::bench::detail::counted_allocation(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return tessera::bench::detail::counted_allocation(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return tessera::bench::detail::counted_allocation(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
