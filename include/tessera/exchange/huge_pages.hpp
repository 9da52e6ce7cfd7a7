#pragma once
/// \file
/// Transparent huge pages for large buffers: array storage (`detail::AlignedBytes`) and the Mover's
/// pack buffers ask the kernel, before their first touch, to back every allocation of 2 MiB or more
/// with 2 MiB pages (`madvise(MADV_HUGEPAGE)`; Linux's default `enabled=madvise` gives them only to
/// those who ask). A strided copy — a transpose, the unpacking of a column — touches a new 4 KiB
/// page per element once rows are longer than a page, and the TLB misses, not the bytes, then set
/// its speed: on the 2-core VM here a 8192² transpose on 2 ranks took 104–132 ms with 4 KiB pages
/// and 76–84 ms with huge pages, and launches without them now and then ran 5x slower
/// (docs/engine.md, "Huge pages"). `TESSERA_HUGE_PAGES=off` turns the advice off (a system where
/// compaction stalls hurt more than TLB misses); unset or `on`: on. Elsewhere than Linux, nothing.

#include <cstddef>

namespace tessera::detail {

/// Allocations of at least this many bytes are aligned to it and advised into huge pages.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Whether tessera asks for huge pages: `TESSERA_HUGE_PAGES` unset, empty or `on`; `off`: no.
/// Read once; any other value throws `Error(invalid_argument)` naming the variable, on every call.
[[nodiscard]] bool huge_pages_enabled();

/// The alignment to allocate `bytes` with: `alignment`, raised to `kHugePageBytes` when `bytes`
/// is at least that and huge pages are enabled (so that the buffer starts on a huge page).
[[nodiscard]] std::size_t huge_page_alignment(std::size_t bytes, std::size_t alignment);

/// Asks the kernel to back the whole huge pages inside [data, data + bytes) with huge pages, when
/// `bytes` is at least `kHugePageBytes` and they are enabled. Advice only: a refusal (no THP in
/// this kernel) changes nothing and is not an error. Call it before the bytes are first touched.
void advise_huge_pages(void* data, std::size_t bytes);

/// `bytes` from the aligned `operator new`, aligned to at least `alignment`, which is raised to a
/// huge page for a large buffer (`huge_page_alignment`) and then advised (`advise_huge_pages`):
/// the one way tessera's heap buffers are made. `alignment` comes back as the one used, which
/// `operator delete(p, std::align_val_t(alignment))` must be given.
[[nodiscard]] std::byte* allocate_bytes(std::size_t bytes, std::size_t& alignment);

}  // namespace tessera::detail
