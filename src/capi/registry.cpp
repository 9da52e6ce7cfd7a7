#include "registry.hpp"

#include <cstdio>
#include <mutex>
#include <vector>

#include "status.hpp"

namespace tessera::capi {

static_assert(sizeof(std::uintptr_t) == 8, "the C API's handles need 64-bit pointers");

namespace {

constexpr std::uint32_t kGenerationMask = 0xFFFFFF;  // 24 bits

struct Slot {
  std::uint32_t generation = 1;  // of the object it holds now, or of the next one
  Kind kind = Kind::comm;
  std::shared_ptr<void> object;  // null: free (or retired)
};

struct Table {
  std::mutex mutex;
  std::vector<Slot> slots;
  std::vector<std::uint32_t> free_slots;
  std::size_t live = 0;
};

// Never destroyed: handles may be freed from static destructors of user code, after this
// translation unit's statics would be gone.
Table& table() {
  static Table* t = new Table;
  return *t;
}

std::uintptr_t encode(Kind kind, std::uint32_t generation, std::uint32_t slot) {
  return (static_cast<std::uintptr_t>(kind) << 56) | (static_cast<std::uintptr_t>(generation) << 32) | slot;
}

std::string hex(std::uintptr_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

// The slot `handle` names, or a CApiError naming `argument`. Called with the table locked.
Slot& find_slot(Table& t, std::uintptr_t handle, Kind kind, const char* argument) {
  if (handle == 0) fail_c(TESSERA_ERR_NULL_HANDLE, "argument '", argument, "' is a NULL ", kind_name(kind));
  const auto handle_kind = static_cast<Kind>(handle >> 56);
  const auto generation = static_cast<std::uint32_t>((handle >> 32) & kGenerationMask);
  const auto index = static_cast<std::uint32_t>(handle & 0xFFFFFFFFu);
  if (index >= t.slots.size() || generation == 0 || generation > t.slots[index].generation)
    fail_c(TESSERA_ERR_INVALID_HANDLE, "argument '", argument, "' = ", hex(handle), " is not a ", kind_name(kind),
           " handle (no such handle was ever issued)");
  if (handle_kind != kind) {
    const char* other = static_cast<std::uint8_t>(handle_kind) >= 1 && static_cast<std::uint8_t>(handle_kind) <= static_cast<std::uint8_t>(Kind::multiblock_array)
                            ? kind_name(handle_kind)
                            : "unknown kind";
    fail_c(TESSERA_ERR_INVALID_HANDLE, "argument '", argument, "' = ", hex(handle), " is a ", other, " handle, not a ",
           kind_name(kind));
  }
  Slot& slot = t.slots[index];
  // A free slot's generation is the one its next object will get: no handle carries it yet,
  // unless the slot was retired at the end of the range.
  if (generation == slot.generation && !slot.object && generation != kGenerationMask)
    fail_c(TESSERA_ERR_INVALID_HANDLE, "argument '", argument, "' = ", hex(handle), " is not a ", kind_name(kind),
           " handle (no such handle was ever issued)");
  if (generation != slot.generation || !slot.object)
    fail_c(TESSERA_ERR_FREED_HANDLE, "argument '", argument, "' = ", hex(handle), " is a ", kind_name(kind),
           " that was freed already");
  return slot;
}

}  // namespace

const char* kind_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::comm:
      return "tessera_comm";
    case Kind::grid:
      return "tessera_grid";
    case Kind::dist:
      return "tessera_dist";
    case Kind::domain:
      return "tessera_domain";
    case Kind::array:
      return "tessera_array";
    case Kind::schedule:
      return "tessera_schedule";
    case Kind::step:
      return "tessera_step";
    case Kind::balancer:
      return "tessera_balancer";
    case Kind::load:
      return "tessera_load";
    case Kind::sparse:
      return "tessera_sparse";
    case Kind::sparse_array:
      return "tessera_sparse_array";
    case Kind::assoc:
      return "tessera_assoc";
    case Kind::assoc_array:
      return "tessera_assoc_array";
    case Kind::groups:
      return "tessera_groups";
    case Kind::box_balancer:
      return "tessera_box_balancer";
    case Kind::multiblock:
      return "tessera_multiblock";
    case Kind::multiblock_array:
      return "tessera_multiblock_array";
  }
  return "unknown handle kind";
}

std::uintptr_t register_object(Kind kind, std::shared_ptr<void> object) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  std::uint32_t index = 0;
  if (!t.free_slots.empty()) {
    index = t.free_slots.back();
    t.free_slots.pop_back();
  } else {
    if (t.slots.size() >= 0xFFFFFFFFu) fail_c(TESSERA_ERR_OUT_OF_MEMORY, "every one of 2^32 handle slots is in use");
    index = static_cast<std::uint32_t>(t.slots.size());
    t.slots.emplace_back();
  }
  Slot& slot = t.slots[index];
  slot.kind = kind;
  slot.object = std::move(object);
  ++t.live;
  return encode(kind, slot.generation, index);
}

std::shared_ptr<void> lookup(std::uintptr_t handle, Kind kind, const char* argument) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return find_slot(t, handle, kind, argument).object;
}

std::shared_ptr<void> unregister(std::uintptr_t handle, Kind kind, const char* argument) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  Slot& slot = find_slot(t, handle, kind, argument);
  std::shared_ptr<void> object = std::move(slot.object);
  slot.object.reset();
  --t.live;
  const auto index = static_cast<std::uint32_t>(handle & 0xFFFFFFFFu);
  // A slot is reused only with a generation no earlier handle carried; at the end of the 24-bit
  // range it is retired instead.
  if (slot.generation < kGenerationMask) {
    ++slot.generation;
    t.free_slots.push_back(index);
  }
  return object;
}

std::size_t live_handles() noexcept {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return t.live;
}

}  // namespace tessera::capi

extern "C" tessera_status tessera_live_handles(size_t* count) {
  return tessera::capi::guarded("tessera_live_handles", [&] {
    tessera::capi::require_pointer("count", count);
    *count = tessera::capi::live_handles();
  });
}
