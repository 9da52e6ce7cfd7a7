#pragma once
/// \file
/// What the checkpoint file layer needs to know about a set of arrays, free of templates and of
/// HDF5: for each array, where every owned element lies in this rank's memory and in the global
/// row-major dataset. `checkpoint.hpp` builds a `CheckpointRequest` from `DistArray`s; the
/// compiled code in `src/io/` turns it into HDF5 hyperslab selections. Internal: use `save` and
/// `load` from `checkpoint.hpp`.
///
/// Per patch and per axis, the owned global indices are a list of regular sections (one for block,
/// cut and collapsed axes and for user boxes; one strided section, plus one for a partial last
/// block, for cyclic and block-cyclic axes; one run per interval for irregular ones). A regular
/// section is exactly an HDF5 hyperslab (start, stride, count, block), so a compacted cyclic axis
/// needs neither a per-element selection nor a staging copy. Local indices grow with global ones
/// along every axis, so the row-major order of the owned box's local indices is the row-major
/// order of the selected points in the file, which is the order HDF5 pairs them in (a column-major
/// patch is staged in that order: src/io/transfer_plan.hpp). The dataset is row-major whatever the
/// arrays' storage order, so a file written from one order loads into the other.

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/geometry/section.hpp"
#include "tessera/io/attributes.hpp"
#include "tessera/io/element_type.hpp"

namespace tessera::io::detail {

/// One patch of one array on this rank.
struct PatchSelection {
  void* data = nullptr;                 ///< the element at local index (0, ..., 0) (`LocalView::data`)
  std::vector<index_t> strides;         ///< strides of the patch in memory, in elements (either storage order)
  std::vector<index_t> extents;         ///< local extents, ghosts included
  std::vector<index_t> owned_lo;        ///< local index of the first owned element (the ghost widths below)
  std::vector<index_t> owned_count;     ///< owned extents
  std::vector<SectionList1> global;     ///< per axis: the owned global indices, counted from the domain's lo
};

/// One array on this rank.
struct ArraySelection {
  std::string name;                     ///< the dataset's name
  ElementType type = ElementType::float64;
  std::size_t element_size = 0;         ///< sizeof(T)
  std::string ghosts;                   ///< the printed ghost spec
  std::vector<index_t> ghost_lower, ghost_upper;
  std::vector<PatchSelection> patches;  ///< in the array's patch order
};

/// Arrays of one domain, and the domain's description.
struct CheckpointRequest {
  const Communicator* comm = nullptr;   ///< the domain's communicator (outlives the request)
  std::vector<index_t> domain_lo;       ///< the domain box's lower corner
  std::vector<index_t> domain_extents;  ///< the dataset shape
  std::string distribution;             ///< the printed distribution
  std::vector<index_t> grid_shape;      ///< the processor grid's shape
  int ranks = 0;                        ///< ranks of the communicator
  /// False for a box set with holes: the cells no rank stores hold the dataset's fill value (0),
  /// and the checksum counts them as such.
  bool covers_domain = true;
  /// A box-set domain's box table (empty otherwise): per box its lower then upper corner, global
  /// indices (2N values a box), and its owner; saved as the datasets `tessera_boxes` and
  /// `tessera_box_owners` (docs/checkpoint.md).
  bool has_box_table = false;
  std::vector<index_t> box_corners;
  std::vector<index_t> box_owners;
  std::vector<ArraySelection> arrays;
};

/// A checkpoint's box table as saved (`read_box_table`): 2N corners and an owner per box.
struct SavedBoxTable {
  std::size_t dims = 0;                 ///< N
  std::vector<index_t> domain_lo, domain_hi;
  std::vector<index_t> box_corners;     ///< per box: lower then upper corner
  std::vector<index_t> box_owners;
  int ranks = 0;                        ///< ranks that saved the file
};

/// Collective: the box table of the checkpoint `path`. Throws `Error(io)` if the file cannot be
/// read and `Error(mismatch)` if it holds no box table (not saved from a box-set domain) or a
/// malformed one, the same on every rank.
SavedBoxTable read_box_table(const Communicator& comm, const std::string& path);

/// Collective: writes `request.arrays` and `attributes` to `path` atomically (see checkpoint.hpp).
void save_checkpoint(const std::string& path, const Attributes& attributes, const CheckpointRequest& request);
/// Collective: reads `request.arrays` from `path`; returns the user attributes found there.
Attributes load_checkpoint(const std::string& path, const CheckpointRequest& request);

/// The domain part of a request (no arrays yet).
template <std::size_t N>
[[nodiscard]] CheckpointRequest describe_domain(const Domain<N>& domain) {
  CheckpointRequest r;
  r.comm = &domain.comm();
  r.ranks = domain.comm().size();
  const Box<N>& box = domain.box();
  const Distribution<N>& dist = domain.distribution();
  for (std::size_t d = 0; d < N; ++d) {
    r.domain_lo.push_back(box.lo[d]);
    r.domain_extents.push_back(extent(box, d));
    r.grid_shape.push_back(dist.grid().extent(d));
  }
  std::ostringstream text;
  text << dist;
  r.distribution = text.str();
  r.covers_domain = dist.covers_domain();
  if (const BoxSet<N>* set = dist.box_set()) {
    r.has_box_table = true;
    for (std::size_t i = 0; i < set->size(); ++i) {
      const Box<N>& b = set->box(i);
      for (std::size_t d = 0; d < N; ++d) r.box_corners.push_back(b.lo[d]);
      for (std::size_t d = 0; d < N; ++d) r.box_corners.push_back(b.hi[d]);
      r.box_owners.push_back(set->owner(i));
    }
  }
  return r;
}

/// Where this rank's owned elements of `array` are, in memory and in the dataset. Only the
/// `LocalView`s and the patch layouts are read, never the buffer's start: the storage may hold
/// spare rows outside every patch.
template <class T, std::size_t N>
[[nodiscard]] ArraySelection describe_array(std::string name, const DistArray<T, N>& array) {
  static_assert(CheckpointElement<T>, "tessera::io: a checkpoint cannot hold this element type");
  ArraySelection s;
  s.name = std::move(name);
  s.type = *element_type_of<T>();
  s.element_size = sizeof(T);
  std::ostringstream text;
  text << array.ghosts();
  s.ghosts = text.str();
  const Box<N>& box = array.domain().box();
  for (std::size_t d = 0; d < N; ++d) {
    s.ghost_lower.push_back(array.ghosts().lower[d]);
    s.ghost_upper.push_back(array.ghosts().upper[d]);
  }
  for (std::size_t k = 0; k < array.patch_count(); ++k) {
    const LocalView<const T, N> view = array.local(k);
    const PatchLayout<N>& layout = array.layout().patches()[k];
    PatchSelection p;
    // save only reads through this pointer; load writes through its own non-const array.
    p.data = const_cast<T*>(view.data);
    for (std::size_t d = 0; d < N; ++d) {
      p.strides.push_back(view.strides[d]);
      p.extents.push_back(view.extents[d]);
      p.owned_lo.push_back(view.ghost_lo[d]);
      p.owned_count.push_back(view.count[d]);
      const AxisMap& axis = layout.axes[d];
      SectionList1 owned = axis.is_interval() ? SectionList1{Section1::interval(axis.first, axis.first + axis.count)}
                                              : axis.compacted->owned(axis.coord);
      for (Section1& run : owned) run.first -= box.lo[d];
      p.global.push_back(std::move(owned));
    }
    s.patches.push_back(std::move(p));
  }
  return s;
}

}  // namespace tessera::io::detail
