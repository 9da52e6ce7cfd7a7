#pragma once
// Replaces the global operator new of the test program that includes this header, counting every
// allocation and those of `kLargeAllocation` bytes or more, so that a test can pin what a hot path
// allocates ("update_ghosts allocates nothing after its first call", "a repeated large batch
// allocates only what it sends and its result"). MPI's own malloc calls are not counted.
// Include it in one file of a test program. The definitions are weak, so that a second counting
// definition elsewhere in the program cannot break the link.
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace tessera::testing {
inline std::atomic<long> g_allocations{0};
inline std::atomic<long> g_large_allocations{0};
inline constexpr std::size_t kLargeAllocation = std::size_t{64} << 10;

inline void count_allocation(std::size_t n) noexcept {
  ++g_allocations;
  if (n >= kLargeAllocation) ++g_large_allocations;
}
}  // namespace tessera::testing

[[gnu::weak, gnu::noinline]] void* operator new(std::size_t n) {
  tessera::testing::count_allocation(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
[[gnu::weak, gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::weak, gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): a replaced delete paired
// with the runtime's own nothrow new is an alloc/dealloc mismatch under AddressSanitizer.
[[gnu::weak, gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  tessera::testing::count_allocation(n);
  return std::malloc(n ? n : 1);
}
[[gnu::weak, gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
