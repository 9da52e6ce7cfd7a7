#pragma once
/// \file
/// `Storage<N>`: one rank's part of a distributed array as bytes, whatever its element type: a
/// buffer laid out by a `StorageLayout` (patches, ghost layers), the spare rows kept around it for
/// migrations, and the stage / commit / discard steps by which `Domain` moves it to a new layout.
/// `DistArray<T, N>` owns one and gives it a type; the domain keeps a pointer to each one of its
/// arrays' storages and relays them out directly (domain.hpp), without knowing T.
/// \code
///   Storage<2> s(dist, rank, ghosts<2>(1), detail::ElementBytes::of<double>());
///   s.stage(StorageLayout<2>::make(next, rank, s.ghosts()), 0);  // new buffer beside the old one
///   mover.start(s.buffer(), s.staged());                          // fill it
///   mover.wait();
///   s.commit(false);                                              // or s.discard() on failure
/// \endcode

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/huge_pages.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/exchange/shared_bytes.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {

namespace detail {

/// A byte the movers may point at when a rank stores nothing: they never touch it, but a null
/// pointer plus an offset of zero is not something to hand to MPI.
alignas(std::max_align_t) inline std::byte empty_storage[sizeof(std::max_align_t)];

/// What untyped storage needs to know of an element type: its size, its alignment, and the bytes
/// of one value-initialised element, which every new element starts as. T{} is not always zero
/// bytes (a trivially copyable T may have default member initialisers), so the bytes are taken
/// from a real T{}; a fill of all-zero bytes is done with memset.
struct ElementBytes {
  std::size_t size = 1;
  std::size_t alignment = 1;
  std::vector<std::byte> initial;  // the bytes of T{}
  bool zero = true;                // every byte of `initial` is 0

  template <class T>
  [[nodiscard]] static ElementBytes of() {
    static_assert(std::is_trivially_copyable_v<T>);
    ElementBytes e;
    e.size = sizeof(T);
    e.alignment = alignof(T);
    // Built in zeroed bytes, so that padding T{} leaves alone reads as 0, the same on every rank.
    alignas(T) std::byte raw[sizeof(T)]{};
    ::new (static_cast<void*>(raw)) T{};
    e.initial.assign(raw, raw + sizeof(T));
    e.zero = std::all_of(e.initial.begin(), e.initial.end(), [](std::byte b) { return b == std::byte{0}; });
    return e;
  }

  /// Sets `count` elements from `p` on to T{}.
  void fill(std::byte* p, std::size_t count) const noexcept {
    const std::size_t total = count * size;
    if (total == 0) return;
    if (zero) {
      std::memset(p, 0, total);
      return;
    }
    std::memcpy(p, initial.data(), size);
    for (std::size_t done = size; done < total;) {  // doubling copies: log(count) memcpy calls
      const std::size_t n = std::min(done, total - done);
      std::memcpy(p + done, p, n);
      done += n;
    }
  }
};

/// Bytes allocated with the alignment of the element type (at least that of std::max_align_t),
/// given back on destruction: the one allocator of array storage. Either from the heap — from
/// 2 MiB on aligned to 2 MiB and advised into transparent huge pages before the first touch
/// (exchange/huge_pages.hpp: strided copies are TLB-bound on 4 KiB pages) — or, given a
/// communicator, in a shared-memory window over its node (`SharedBytes`, collective over the
/// node to allocate and to free), so that the `shared_memory` way of moving can copy from it in
/// one copy. Move-only; empty (null) for zero bytes.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  AlignedBytes(std::size_t bytes, std::size_t alignment, const Communicator* shared_over = nullptr)
      : alignment_(std::max(alignment, alignof(std::max_align_t))), bytes_(bytes) {
    if (shared_over != nullptr) {
      shared_ = SharedBytes(*shared_over, bytes, alignment_);
      data_ = shared_.data();
    } else if (bytes != 0) {
      data_ = allocate_bytes(bytes, alignment_);  // raises alignment_ for a huge-page buffer
    }
  }
  ~AlignedBytes() { release(); }
  AlignedBytes(AlignedBytes&& o) noexcept
      : alignment_(o.alignment_),
        data_(std::exchange(o.data_, nullptr)),
        bytes_(std::exchange(o.bytes_, 0)),
        shared_(std::move(o.shared_)) {}
  AlignedBytes& operator=(AlignedBytes&& o) noexcept {
    if (this != &o) {
      release();
      alignment_ = o.alignment_;
      data_ = std::exchange(o.data_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      shared_ = std::move(o.shared_);
    }
    return *this;
  }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;

  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  [[nodiscard]] bool empty() const noexcept { return bytes_ == 0; }

 private:
  void release() noexcept {
    if (shared_.held())
      shared_ = SharedBytes();  // MPI_Win_free: collective over the node, as the allocation was
    else if (data_)
      ::operator delete(data_, std::align_val_t(alignment_));
    data_ = nullptr;
    bytes_ = 0;
  }
  std::size_t alignment_ = alignof(std::max_align_t);
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  SharedBytes shared_;  // held when the bytes are in a shared-memory window
};

}  // namespace detail

/// One rank's storage of an array over an N-d domain, untyped (see the file comment). Every
/// element, ghosts and spare rows included, starts as the element type's T{}. Move-only.
template <std::size_t N>
class Storage {
 public:
  /// Storage for `rank`'s part under `dist` with ghost layers `ghosts`. With `shared_over`, every
  /// buffer (this one, and those `stage` makes) lives in a shared-memory window over that
  /// communicator's node (`detail::SharedBytes`): making, staging, committing, discarding and
  /// destroying are then collective over the node, in the same order on every rank, as the
  /// domain's calls of them are.
  /// Throws `Error(invalid_argument)` for ghosts along a cyclic, block-cyclic or irregular axis.
  Storage(const Distribution<N>& dist, int rank, const GhostSpec<N>& ghosts, detail::ElementBytes element,
          const Communicator* shared_over = nullptr)
      : ghosts_(ghosts),
        layout_(StorageLayout<N>::make(dist, rank, ghosts)),
        element_(std::move(element)),
        shared_over_(shared_over) {
    buffer_ = allocate(layout_.size());
  }

  /// The ghost layers kept under every distribution.
  [[nodiscard]] const GhostSpec<N>& ghosts() const noexcept { return ghosts_; }
  /// How the buffer is laid out now.
  [[nodiscard]] const StorageLayout<N>& layout() const noexcept { return layout_; }
  /// Bytes per element.
  [[nodiscard]] std::size_t element_size() const noexcept { return element_.size; }
  /// Where the layout's offset 0 lies; null when the layout stores nothing.
  [[nodiscard]] void* data() noexcept { return layout_.size() == 0 ? nullptr : at(buffer_, origin_); }
  /// \copydoc data()
  [[nodiscard]] const void* data() const noexcept { return layout_.size() == 0 ? nullptr : at(buffer_, origin_); }
  /// `data()` as movers want it: never null (see `detail::empty_storage`).
  [[nodiscard]] void* buffer() noexcept { return at(buffer_, origin_); }
  /// \copydoc buffer()
  [[nodiscard]] const void* buffer() const noexcept { return at(buffer_, origin_); }
  /// Elements allocated, spare rows included (>= `layout().size()`).
  [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.size() / element_.size; }
  /// Rows kept to spare on each side at the last allocation (0 unless a migration allocated).
  [[nodiscard]] index_t slack_rows() const noexcept { return slack_rows_; }
  /// Allocations made by migrations (`commit(true)` of a new buffer).
  [[nodiscard]] std::uint64_t reallocations() const noexcept { return reallocations_; }
  /// Counts the commits: whatever was built for one layout (a halo mover, say) is stale once it
  /// changes.
  [[nodiscard]] std::uint64_t generation() const noexcept { return generation_; }

  /// True while a split-phase operation (a ghost update) on this storage is in flight: the domain
  /// refuses to relay it out then. The array tells which mover to ask with `watch`.
  [[nodiscard]] bool busy() const noexcept { return watched_ != nullptr && watched_->in_flight(); }
  /// Makes `busy()` ask `mover` (null: nothing to ask). It must outlive the watch.
  void watch(const Mover* mover) noexcept { watched_ = mover; }

  // --- relayout, driven by Domain::redistribute and Domain::migrate ------------------------------

  /// Allocates storage for `layout` beside the current one, every element T{}, with `spare_rows`
  /// rows to spare below and above along the outermost axis (the slowest in memory: 0 row-major,
  /// N-1 column-major) when the layout is one patch whose outermost axis is an interval (rows
  /// added there keep the strides, so a boundary move shifts no row that stays).
  void stage(StorageLayout<N> layout, index_t spare_rows) {
    const std::size_t outer = layout.outermost_axis();
    // Storage under a user-defined local layout has no rows to spare.
    const bool sliding = !layout.custom() && layout.patches().size() == 1 && layout.patches()[0].axes[outer].is_interval();
    const index_t pad = sliding ? spare_rows : 0;
    const index_t row = sliding ? layout.patches()[0].strides[outer] : 0;
    staged_ = allocate(layout.size() + 2 * pad * row);
    staged_origin_ = pad * row;
    staged_slack_rows_ = pad;
    staged_layout_ = std::move(layout);
    in_place_ = false;
  }
  /// Stages `layout` inside the current buffer at element `origin` (from `in_place_origin`): an
  /// in-place move writes through `staged()` into the buffer it reads from. Such a move cannot be
  /// undone: if it fails halfway, `discard` keeps the old layout over partly moved values.
  void stage_in_place(StorageLayout<N> layout, index_t origin) noexcept {
    staged_origin_ = origin;
    staged_layout_ = std::move(layout);
    in_place_ = true;
  }
  /// Where the staged layout's offset 0 lies (never null); valid between `stage*` and `commit`.
  [[nodiscard]] void* staged() noexcept { return at(in_place_ ? buffer_ : staged_, staged_origin_); }

  /// Makes the staged layout the current one (freeing the old buffer now, not at the next
  /// relayout). `count_reallocation`: a migration that allocated counts in `reallocations()`.
  void commit(bool count_reallocation) noexcept {
    if (!in_place_) {
      buffer_ = std::move(staged_);
      slack_rows_ = staged_slack_rows_;
      if (count_reallocation && !buffer_.empty()) ++reallocations_;
    }
    origin_ = staged_origin_;
    layout_ = std::move(*staged_layout_);
    staged_layout_.reset();
    in_place_ = false;
    ++generation_;
  }
  /// Drops what was staged; the current layout and buffer stay.
  void discard() noexcept {
    staged_ = detail::AlignedBytes();
    staged_layout_.reset();
    in_place_ = false;
  }

  /// Where layout `to` would start in the current buffer if every global index it stores kept its
  /// address: one patch before and after, the same storage order, the same mapping along every
  /// axis but the outermost, and the rows of `to` (ghosts included) inside the allocated rows.
  /// nullopt if any of that fails.
  [[nodiscard]] std::optional<index_t> in_place_origin(const StorageLayout<N>& to) const {
    if (layout_.custom() || to.custom()) return std::nullopt;  // no rows to slide along
    if (layout_.patches().size() != 1 || to.patches().size() != 1 || layout_.order() != to.order())
      return std::nullopt;
    const std::size_t outer = layout_.outermost_axis();
    const PatchLayout<N>& a = layout_.patches()[0];
    const PatchLayout<N>& b = to.patches()[0];
    if (!a.axes[outer].is_interval() || !b.axes[outer].is_interval()) return std::nullopt;
    for (std::size_t d = 0; d < N; ++d) {
      if (d == outer) continue;
      const AxisMap& x = a.axes[d];
      const AxisMap& y = b.axes[d];
      if (x.is_interval() != y.is_interval() || x.count != y.count || x.ghost_lo != y.ghost_lo ||
          x.ghost_hi != y.ghost_hi)
        return std::nullopt;
      if (x.is_interval() ? x.first != y.first : (x.coord != y.coord || !(*x.compacted == *y.compacted)))
        return std::nullopt;
    }
    const index_t row = a.strides[outer];
    const index_t allocated_rows = static_cast<index_t>(capacity()) / row;
    const index_t first_row = a.axes[outer].first - a.axes[outer].ghost_lo - origin_ / row;  // global index of row 0
    const index_t new_row = b.axes[outer].first - b.axes[outer].ghost_lo - first_row;
    if (new_row < 0 || new_row + b.axes[outer].extent() > allocated_rows) return std::nullopt;
    return new_row * row;
  }

 private:
  [[nodiscard]] detail::AlignedBytes allocate(index_t elements) const {
    const auto count = static_cast<std::size_t>(elements);
    detail::AlignedBytes bytes(
        static_cast<std::size_t>(checked_mul(elements, static_cast<index_t>(element_.size), "Storage size")),
        element_.alignment, shared_over_);
    element_.fill(bytes.data(), count);
    return bytes;
  }
  [[nodiscard]] void* at(const detail::AlignedBytes& bytes, index_t element) const noexcept {
    return bytes.empty() ? static_cast<void*>(detail::empty_storage)
                         : static_cast<void*>(bytes.data() + static_cast<std::size_t>(element) * element_.size);
  }

  GhostSpec<N> ghosts_;
  StorageLayout<N> layout_;
  detail::ElementBytes element_;
  const Communicator* shared_over_ = nullptr;  // buffers in shared-memory windows over its node
  detail::AlignedBytes buffer_;      // allocated rows: spare rows, the layout, spare rows
  index_t origin_ = 0;               // elements from the buffer's start to the layout's offset 0
  index_t slack_rows_ = 0;           // spare rows kept on each side at the last allocation
  std::uint64_t reallocations_ = 0;  // allocations made by migrations
  std::uint64_t generation_ = 0;     // commits so far
  const Mover* watched_ = nullptr;   // see busy()
  // Only between stage* and commit/discard:
  detail::AlignedBytes staged_;
  std::optional<StorageLayout<N>> staged_layout_;
  index_t staged_origin_ = 0;
  index_t staged_slack_rows_ = 0;
  bool in_place_ = false;
};

}  // namespace tessera
