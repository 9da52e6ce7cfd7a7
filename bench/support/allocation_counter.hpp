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

#include "global_new.hpp"

namespace tessera::bench {

namespace detail {
inline std::atomic<std::uint64_t> allocation_count{0};

// The replacements of global_new.hpp: every form of new is counted; memory comes from malloc.
inline void* replaced_new(std::size_t bytes, std::size_t alignment) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return malloc_or_throw(bytes, alignment);
}
inline void replaced_delete(void* p) noexcept { std::free(p); }
}  // namespace detail

/// Allocations (calls of any global operator new) since the program started.
[[nodiscard]] inline std::uint64_t allocations() noexcept {
  return detail::allocation_count.load(std::memory_order_relaxed);
}

}  // namespace tessera::bench
