#pragma once
/// \file
/// Whole-array scatter and gather (`DistArray::scatter_from`, `gather_to`, `gather_to_all`): the
/// array against its row-major image on one rank. Both are a redistribution between the array's
/// distribution and "everything on root" (`gather_schedule`, `scatter_schedule`), run by a mover
/// kept in the domain's exchange cache: a repeated gather is one lookup and allocates nothing.
/// The work is untyped (a `Storage` and its element size), so it is compiled once per N,
/// not once per element type; the array's members of those names give it a type and check the
/// collective call. Included by dist_array.hpp.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "tessera/array/domain.hpp"
#include "tessera/array/storage.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera::detail {

/// Throws `Error(invalid_argument)`, naming `where`, unless `root` is a rank of the domain's
/// communicator (the same on every rank: nothing is communicated).
template <std::size_t N>
void check_root(const char* where, const Domain<N>& dom, int root) {
  if (root < 0 || root >= dom.comm().size())
    fail_argument(where, "root", root, concat("is not a rank of the communicator (size ", dom.comm().size(), ")"));
}

/// Collective: throws `Error(invalid_argument)` on every rank unless `elements`, root's size of
/// the row-major image (the other ranks' is ignored), is the volume of the domain's box.
template <std::size_t N>
void check_image_size(const char* where, const char* argument, const Domain<N>& dom, int root, std::size_t elements) {
  std::int64_t given = static_cast<std::int64_t>(elements);
  dom.comm().bcast(std::span<std::int64_t>(&given, 1), root);
  if (given != volume(dom.box()))
    fail_argument(where, argument, concat(given, " elements on root ", root),
                  concat("must hold the volume ", volume(dom.box()), " of the domain ", dom.box()));
}

/// Collective: sets every owned element of `storage` from `image`, the row-major image of the
/// domain box on `root` (null elsewhere); ghosts are left alone. Arguments already checked.
template <std::size_t N>
void scatter_image(const Domain<N>& dom, Storage<N>& storage, int root, const void* image) {
  const Distribution<N>& dist = dom.distribution();
  const GhostSpec<N>& g = storage.ghosts();
  const std::size_t es = storage.element_size();
  run_kept("DistArray::scatter_from", dom.cache(), dom.comm(), root_schedule_key(false, dist, g, root, dom.rank()), {dist.hash()}, es, nullptr,
           static_cast<std::size_t>(volume(dom.box())) * es,
           [&] { return scatter_schedule(dist, g, root, dom.rank(), &dom.cache()); },
           image ? image : static_cast<const void*>(empty_storage), storage.buffer());
}

/// Collective: writes the row-major image of the domain box into `image` on `root` (null where
/// this rank receives nothing). Arguments already checked.
template <std::size_t N>
void gather_image(const Domain<N>& dom, const Storage<N>& storage, int root, void* image) {
  const Distribution<N>& dist = dom.distribution();
  const GhostSpec<N>& g = storage.ghosts();
  const std::size_t es = storage.element_size();
  run_kept("DistArray::gather_to", dom.cache(), dom.comm(), root_schedule_key(true, dist, g, root, dom.rank()), {dist.hash()}, es, nullptr,
           static_cast<std::size_t>(volume(dom.box())) * es,
           [&] { return gather_schedule(dist, g, root, dom.rank(), &dom.cache()); }, storage.buffer(),
           image ? image : static_cast<void*>(empty_storage));
}

}  // namespace tessera::detail
