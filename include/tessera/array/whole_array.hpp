#pragma once
/// \file
/// Whole-array scatter and gather (`DistArray::scatter_from`, `gather_to`, `gather_to_all`): the
/// array against its row-major image on one rank. Both are a redistribution between the array's
/// distribution and "everything on root" (`everything_on`), run by a mover from the domain's mover
/// cache. The work is untyped (a `Storage` and its element size), so it is compiled once per N,
/// not once per element type; the array's members of those names give it a type and check the
/// collective call. Included by dist_array.hpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "tessera/array/domain.hpp"
#include "tessera/array/storage.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/schedules.hpp"

namespace tessera::detail {

/// "Everything on `root`" over the domain's box: its storage there is the row-major global array.
template <std::size_t N>
[[nodiscard]] Distribution<N> everything_on(const Domain<N>& dom, int root) {
  std::array<DimSpec, N> specs;
  specs.fill(collapsed());
  return Distribution<N>(dom.box(), ProcGrid<N>::from_ranks(dom.comm().size(), Point<N>::filled(1), {root}), specs);
}

/// The schedules of an array's last gather to a root and last scatter from one, each kept with its
/// root and the hash of the distribution it was built under: building "everything on root" to look
/// it up in the schedule cache allocates, and a repeated gather must not. The same on every rank
/// (same calls, same hashes), so the mover cache, keyed by the schedule, hits alike.
template <std::size_t N>
class RootSchedules {
 public:
  [[nodiscard]] const std::shared_ptr<const Schedule>& get(const Domain<N>& dom, const GhostSpec<N>& ghosts, int root,
                                                           bool gather) {
    Kept& kept = kept_[gather ? 0 : 1];
    const std::uint64_t dist = dom.distribution().hash();
    if (kept.schedule && kept.root == root && kept.distribution == dist) return kept.schedule;
    const auto root_dist = everything_on(dom, root);
    kept.schedule =
        gather
            ? redistribution_schedule(dom.distribution(), ghosts, root_dist, no_ghosts<N>(), dom.rank(), &dom.cache())
            : redistribution_schedule(root_dist, no_ghosts<N>(), dom.distribution(), ghosts, dom.rank(), &dom.cache());
    kept.root = root;
    kept.distribution = dist;
    return kept.schedule;
  }

 private:
  struct Kept {
    int root = -1;
    std::uint64_t distribution = 0;  // hash of the distribution it was built under
    std::shared_ptr<const Schedule> schedule;
  };
  std::array<Kept, 2> kept_;  // gather, scatter
};

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
void scatter_image(const Domain<N>& dom, Storage<N>& storage, RootSchedules<N>& kept, int root, const void* image) {
  const std::size_t whole = static_cast<std::size_t>(volume(dom.box())) * storage.element_size();
  dom.movers().run(dom.comm(), kept.get(dom, storage.ghosts(), root, false), storage.element_size(), whole,
                   image ? image : static_cast<const void*>(empty_storage), storage.buffer());
}

/// Collective: writes the row-major image of the domain box into `image` on `root` (null where
/// this rank receives nothing). Arguments already checked.
template <std::size_t N>
void gather_image(const Domain<N>& dom, const Storage<N>& storage, RootSchedules<N>& kept, int root, void* image) {
  const std::size_t whole = static_cast<std::size_t>(volume(dom.box())) * storage.element_size();
  dom.movers().run(dom.comm(), kept.get(dom, storage.ghosts(), root, true), storage.element_size(), whole,
                   storage.buffer(), image ? image : static_cast<void*>(empty_storage));
}

}  // namespace tessera::detail
