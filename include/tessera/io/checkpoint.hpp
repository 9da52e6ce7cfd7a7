#pragma once
/// \file
/// Checkpoint and restart with parallel HDF5: `save` writes arrays of one domain to one file, one
/// dataset per array in the global index space; `load` reads them back on any number of ranks and
/// any distribution, bit for bit. See docs/checkpoint.md for the file format.
/// \code
///   namespace io = tessera::io;
///   io::save("run.h5", {{"iteration", std::int64_t{step}}, {"time", t}},
///            io::named("u", u), io::named("rho", rho));          // Collective
///   ...
///   // restart, perhaps on another number of ranks with another distribution:
///   tessera::Domain<3> dom(world, dist);
///   tessera::DistArray<double, 3> u(dom, tessera::ghosts<3>(1)), rho(dom);
///   io::Attributes at = io::load("run.h5", io::named("u", u), io::named("rho", rho));   // Collective
///   const auto step = std::get<std::int64_t>(at.at("iteration"));
///   u.update_ghosts();                                            // ghosts are not in the file
/// \endcode
/// - The file `path` holds a dataset per array, of the domain's extents, row-major (dimension 0
///   slowest), element (i0, ..., iN-1) at global index lo + (i0, ..., iN-1): h5py, h5dump and
///   ParaView read it without tessera. Ranks write and read their owned elements with collective
///   MPI-IO through hyperslab selections (one per owned box; strided ones along cyclic axes).
/// - Attributes: the distribution (printed), the processor grid's shape, the rank count and the
///   domain's lower corner on the root group; the ghost spec and element type on each dataset; the
///   user's `Attributes` on the root group under their own names.
/// - `save` is atomic from the user's view: it writes `path + ".tmp-<token>"`, closes it on every
///   rank, flushes it to disk, then rank 0 renames it to `path`. A run that dies during a save
///   leaves the previous file at `path` intact (and a stale `.tmp-` file that may be deleted).
/// - Each dataset carries a 64-bit checksum of its elements in global row-major order
///   (`tessera_checksum`), computed in parallel where the data lie (a sum of per-element terms, one
///   allreduce) and verified by `load`: a flipped byte or a truncated file is an `Error(io)` naming
///   the file and the dataset. `checkpoint_series.hpp`: `verify`, rotation, `latest_valid`.
/// - An XDMF sidecar `path + ".xmf"` describes 2-D and 3-D checkpoints as a structured grid for
///   ParaView and VisIt (real and integer arrays; complex ones are listed in a comment only).
/// Every failure (bad argument, HDF5 or MPI error, a file that does not match the arrays) is a
/// `tessera::Error` thrown on every rank with the same message.

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/core/error.hpp"
#include "tessera/io/attributes.hpp"
#include "tessera/io/checkpoint_request.hpp"
#include "tessera/io/element_type.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/box_set.hpp"

namespace tessera::io {

/// An array and the name of its dataset in the file. Build with `named`.
template <class Array>
struct Named {
  std::string name;
  Array* array = nullptr;
};

/// `array` under the dataset name `name` (for `save`, and for `load` when `array` is not const).
/// A name is any non-empty text without '/' other than ".".
template <class T, std::size_t N>
[[nodiscard]] Named<DistArray<T, N>> named(std::string name, DistArray<T, N>& array) {
  return {std::move(name), &array};
}
/// \copydoc named
template <class T, std::size_t N>
[[nodiscard]] Named<const DistArray<T, N>> named(std::string name, const DistArray<T, N>& array) {
  return {std::move(name), &array};
}

namespace detail {

template <class Array>
struct ArrayTraits;
template <class T, std::size_t N>
struct ArrayTraits<DistArray<T, N>> {
  using element = T;
  static constexpr std::size_t rank = N;
};
template <class T, std::size_t N>
struct ArrayTraits<const DistArray<T, N>> : ArrayTraits<DistArray<T, N>> {};

/// The request for arrays that must all be over the domain of the first one.
template <class First, class... Rest>
[[nodiscard]] CheckpointRequest make_request(const char* where, const Named<First>& first,
                                             const Named<Rest>&... rest) {
  static_assert(((ArrayTraits<Rest>::rank == ArrayTraits<First>::rank) && ...),
                "tessera::io: every array of a checkpoint must be over one domain (one dimension)");
  const auto& domain = first.array->domain();
  if (domain.distribution().is_flooded())
    fail_argument(where, "arrays", domain.distribution(),
                  "have a flooded axis: a checkpoint holds each element once (copy the arrays into an unflooded "
                  "domain first)");
  CheckpointRequest request = describe_domain(domain);
  const auto add = [&](const auto& entry) {
    if (!entry.array->domain().same_as(domain))
      fail_argument(where, "arrays", tessera::detail::concat("array '", entry.name, "'"),
                    tessera::detail::concat("is over another domain than array '", first.name,
                                   "': the arrays of one checkpoint must share one Domain"));
    request.arrays.push_back(describe_array(entry.name, *entry.array));
  };
  add(first);
  (add(rest), ...);
  return request;
}

/// Checked mode (exchange/collective_check.hpp): the operation and every array's identity must
/// agree across ranks. Path, names and attributes are not hashed: `save` and `load` compare them
/// across ranks themselves, always, with a message that says which.
template <class First, class... Rest>
[[nodiscard]] tessera::detail::CollectiveScope check_call(const char* where, const Named<First>& first,
                                                          const Named<Rest>&... rest) {
  return tessera::detail::check_collective(first.array->domain().comm(), where, first.array->collective_identity(),
                                           rest.array->collective_identity()...);
}

}  // namespace detail

/// Collective over the arrays' domain: writes every array to `path` (one dataset each, named as
/// given) with `attributes`, atomically: `path` is replaced only once the whole file is written,
/// and an XDMF sidecar `path + ".xmf"` is written beside it for 2-D and 3-D domains. Each dataset
/// gets its checksum (docs/checkpoint.md, "Checksums"). Ghost layers are not saved. Element types:
/// see `CheckpointElement`.
/// \code
///   tessera::io::save("ck.h5", {{"iteration", std::int64_t{10}}, {"time", 0.5}}, tessera::io::named("u", u));
/// \endcode
/// Throws `Error` on every rank: `invalid_argument` for an empty, repeated or malformed name, an
/// attribute name that starts with `tessera_`, or arrays over different domains; `mismatch` if
/// ranks passed different names or attributes; `io` if HDF5 or the file system failed (with their
/// message); `mpi` for MPI errors. On failure the previous file at `path` is left as it was.
template <class... Arrays>
  requires(sizeof...(Arrays) >= 1 && (CheckpointElement<typename detail::ArrayTraits<Arrays>::element> && ...))
void save(const std::string& path, const Attributes& attributes, const Named<Arrays>&... arrays) {
  const auto checked = detail::check_call("tessera::io::save", arrays...);
  detail::save_checkpoint(path, attributes, detail::make_request("tessera::io::save", arrays...));
}

/// Collective over the arrays' domain: sets every owned element of every array from the dataset
/// of its name in `path`, whatever the number of ranks and the distribution that saved it, and
/// returns the user attributes stored in the file (tessera's own `tessera_*` ones left out). Ghost
/// layers are left as they were: call `update_ghosts()` after. Each dataset's checksum is
/// recomputed from what the ranks read and compared with the file's. Files written by other
/// programs load too, if they hold datasets of the right shape and type (unverified when they
/// carry no checksum).
/// \code
///   auto at = tessera::io::load("ck.h5", tessera::io::named("u", u));
///   double t = std::get<double>(at.at("time"));
/// \endcode
/// Throws `Error` on every rank, leaving the arrays' values unspecified if the failure came during
/// the read itself: `invalid_argument` for a bad or repeated name or arrays over different domains;
/// `io` if the file cannot be opened (missing, truncated) or read, or a dataset fails its checksum
/// (the message names the file and the dataset; the arrays then hold what was read); `mismatch` if
/// a dataset is missing, has another shape or element type than its array, or the file's domain
/// starts at another corner.
template <class... Arrays>
  requires(sizeof...(Arrays) >= 1 && (!std::is_const_v<Arrays> && ...) &&
           (CheckpointElement<typename detail::ArrayTraits<Arrays>::element> && ...))
Attributes load(const std::string& path, const Named<Arrays>&... arrays) {
  const auto checked = detail::check_call("tessera::io::load", arrays...);
  return detail::load_checkpoint(path, detail::make_request("tessera::io::load", arrays...));
}

/// The boxes a checkpoint of a box-set domain saved (its box table, docs/checkpoint.md "Box sets"),
/// read by `saved_boxes`: what a restart needs to rebuild the box set before `load`.
template <std::size_t N>
struct SavedBoxes {
  Box<N> domain;               ///< the domain's box
  std::vector<Box<N>> boxes;   ///< the boxes, in the saved box set's order
  std::vector<int> owners;     ///< each box's owner when saved
  int ranks = 0;               ///< ranks that saved the file

  /// The box set to restart with on `comm_size` ranks: the saved owners on the rank count that
  /// saved, the boxes assigned afresh by `policy` on any other. Throws as `BoxSet` and
  /// `make_box_set` do (`comm_size` < 1).
  [[nodiscard]] BoxSet<N> box_set(int comm_size, BoxAssignment policy = BoxAssignment::knapsack) const {
    if (comm_size == ranks) return BoxSet<N>(domain, boxes, owners, comm_size);
    return make_box_set<N>(domain, boxes, comm_size, policy);
  }
};

namespace detail {
/// The boxes of a box table read from `path` (`read_box_table`), checked: `mismatch` for a table of
/// another dimension than N, `invalid_argument` as `BoxSet` does. Local: the table is every rank's.
template <std::size_t N>
[[nodiscard]] SavedBoxes<N> saved_boxes_of(const SavedBoxTable& t, const std::string& path) {
  if (t.dims != N)
    fail(ErrorCode::mismatch, "tessera::io::saved_boxes: '", path, "' holds a box table of ", t.dims,
         "-D boxes, not ", N, "-D");
  SavedBoxes<N> out;
  for (std::size_t d = 0; d < N; ++d) {
    out.domain.lo[d] = t.domain_lo[d];
    out.domain.hi[d] = t.domain_hi[d];
  }
  for (std::size_t i = 0; i < t.box_owners.size(); ++i) {
    Box<N> b;
    for (std::size_t d = 0; d < N; ++d) {
      b.lo[d] = t.box_corners[2 * N * i + d];
      b.hi[d] = t.box_corners[2 * N * i + N + d];
    }
    out.boxes.push_back(b);
    out.owners.push_back(static_cast<int>(t.box_owners[i]));
  }
  out.ranks = t.ranks;
  (void)BoxSet<N>(out.domain, out.boxes, out.owners, out.ranks);  // the table's checks, the same on every rank
  return out;
}
}  // namespace detail

/// Collective over `comm`: the box table of the checkpoint `path`, saved from a domain whose
/// distribution came from `Distribution<N>::from_box_set`.
/// \code
///   const auto saved = tessera::io::saved_boxes<2>(world, "amr.h5");
///   tessera::Domain<2> dom(world, tessera::Distribution<2>::from_box_set(saved.box_set(world.size())));
///   tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));
///   tessera::io::load("amr.h5", tessera::io::named("u", u));
/// \endcode
/// Throws `Error` on every rank: `io` if the file cannot be opened or read; `mismatch` if it holds
/// no box table (saved from another kind of distribution), a malformed one, or one of another
/// dimension than N; `invalid_argument` as `BoxSet` does for boxes that overlap or leave the domain.
template <std::size_t N>
[[nodiscard]] SavedBoxes<N> saved_boxes(const Communicator& comm, const std::string& path) {
  const auto checked = tessera::detail::check_collective(comm, "tessera::io::saved_boxes", path);
  return detail::saved_boxes_of<N>(detail::read_box_table(comm, path), path);
}

}  // namespace tessera::io
