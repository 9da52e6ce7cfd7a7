#pragma once
/// \file
/// Every form of the global `operator new` / `operator delete` of a program, routed to two
/// functions that the header including this one defines (allocation_counter.hpp counts calls,
/// memory_peak.hpp tracks bytes held): one replacement set, so that no form is forgotten in one of
/// them (a nothrow new left to the runtime would meet our `free`). Include it from exactly one such
/// header, itself included in exactly one translation unit of a driver.

#include <cstddef>
#include <cstdlib>
#include <new>

namespace tessera::bench::detail {

/// Defined by the including header: `bytes` aligned to `alignment` (0: the default), or throws
/// `std::bad_alloc`.
inline void* replaced_new(std::size_t bytes, std::size_t alignment);
/// Defined by the including header: releases what `replaced_new` returned (or does nothing for null).
inline void replaced_delete(void* p) noexcept;

/// malloc, or aligned_alloc for over-aligned requests (whose size must be a multiple of the
/// alignment); throws `std::bad_alloc` when it fails. Released with free.
inline void* malloc_or_throw(std::size_t bytes, std::size_t alignment) {
  if (bytes == 0) bytes = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(bytes)
                : std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

inline void* replaced_new_nothrow(std::size_t bytes, std::size_t alignment) noexcept {
  try {
    return replaced_new(bytes, alignment);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace tessera::bench::detail

// GCC, seeing operator new's call inlined, warns that free is not its match, which here it is.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) { return tessera::bench::detail::replaced_new(n, 0); }
void* operator new[](std::size_t n) { return tessera::bench::detail::replaced_new(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return tessera::bench::detail::replaced_new(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return tessera::bench::detail::replaced_new(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return tessera::bench::detail::replaced_new_nothrow(n, 0);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return tessera::bench::detail::replaced_new_nothrow(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return tessera::bench::detail::replaced_new_nothrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return tessera::bench::detail::replaced_new_nothrow(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete[](void* p) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete(void* p, std::size_t) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete[](void* p, std::size_t) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete(void* p, std::align_val_t) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete[](void* p, std::align_val_t) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { tessera::bench::detail::replaced_delete(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  tessera::bench::detail::replaced_delete(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  tessera::bench::detail::replaced_delete(p);
}
#pragma GCC diagnostic pop
