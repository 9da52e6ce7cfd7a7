// Transparent huge pages for large buffers (tessera/exchange/huge_pages.hpp says why).
#include "tessera/exchange/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>

#include "tessera/core/error.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tessera::detail {

namespace {
bool read_huge_pages_environment() {
  const char* value = std::getenv("TESSERA_HUGE_PAGES");
  if (value == nullptr || *value == '\0') return true;
  const std::string_view text(value);
  if (text == "on") return true;
  if (text == "off") return false;
  fail_argument("environment variable TESSERA_HUGE_PAGES", "value", std::string(text), "is not on or off");
}
}  // namespace

bool huge_pages_enabled() {
  // A throwing initialiser leaves the static uninitialised: a bad value throws on every call.
  static const bool enabled = read_huge_pages_environment();
  return enabled;
}

std::size_t huge_page_alignment(std::size_t bytes, std::size_t alignment) {
  if (bytes < kHugePageBytes || alignment >= kHugePageBytes || !huge_pages_enabled()) return alignment;
  return kHugePageBytes;
}

void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < kHugePageBytes || !huge_pages_enabled()) return;
  // madvise wants a page-aligned start: the whole huge pages inside the buffer (all of it when the
  // allocation was aligned by huge_page_alignment).
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (begin + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data, (void)bytes;
#endif
}

std::byte* allocate_bytes(std::size_t bytes, std::size_t& alignment) {
  alignment = huge_page_alignment(bytes, alignment);
  auto* data = static_cast<std::byte*>(::operator new(bytes, std::align_val_t(alignment)));
  advise_huge_pages(data, bytes);
  return data;
}

}  // namespace tessera::detail
