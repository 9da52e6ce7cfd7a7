#pragma once
// The registry behind every C handle.
//
// A handle is not a pointer to its object. It is a 64-bit value that encodes
//   bits 56..63  the kind of object (comm, grid, ...),
//   bits 32..55  the generation of its slot when the handle was issued (24 bits, never 0),
//   bits  0..31  the slot index,
// and the library finds the object by looking the slot up in a table under a mutex. Freeing a
// handle empties the slot and bumps its generation, so every copy of the freed handle is
// recognised as freed (TESSERA_ERR_FREED_HANDLE), exactly, even after the slot holds another
// object, and nothing is ever read through a freed handle: a stale handle is a number that no
// longer matches, never a dangling pointer. A slot whose generation would wrap is retired, so a
// generation is never reissued. A value that names no slot, or a slot of another kind, is
// TESSERA_ERR_INVALID_HANDLE.
//
// Objects are held by shared_ptr: a lookup returns a reference that keeps the object alive for the
// duration of the call, even if another thread frees the handle meanwhile.

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tessera::capi {

/// The kinds of object a handle can name.
enum class Kind : std::uint8_t {
  comm = 1, grid, dist, domain, array, schedule, step, balancer, load, sparse, sparse_array, assoc, assoc_array,
  groups, box_balancer, multiblock, multiblock_array  // the last one: registry.cpp's kind check names it
};

/// The C type name of a kind ("tessera_array", ...).
[[nodiscard]] const char* kind_name(Kind kind) noexcept;

/// Stores `object` in a free slot and returns the handle value naming it.
[[nodiscard]] std::uintptr_t register_object(Kind kind, std::shared_ptr<void> object);

/// The object `handle` names. Throws CApiError naming `argument`: TESSERA_ERR_NULL_HANDLE for 0,
/// TESSERA_ERR_FREED_HANDLE for a freed handle, TESSERA_ERR_INVALID_HANDLE for anything that is
/// not a live handle of `kind`.
[[nodiscard]] std::shared_ptr<void> lookup(std::uintptr_t handle, Kind kind, const char* argument);

/// Frees `handle`'s slot and returns its object (so that the caller destroys it outside the lock).
/// Throws as `lookup` does.
std::shared_ptr<void> unregister(std::uintptr_t handle, Kind kind, const char* argument);

/// Number of live handles.
[[nodiscard]] std::size_t live_handles() noexcept;

}  // namespace tessera::capi
