#pragma once
/// \file
/// `SparseArray<T, N>`: one value per index of a `SparseDomain<N>` (Chapel's arrays over sparse
/// domains), stored per rank in the sparse set's local order. It follows its sparse domain: when
/// indices are added or removed, or the parent domain is redistributed, kept values stay with their
/// indices and new ones start as T{}.
/// \code
///   tessera::SparseArray<double, 2> a(nz);
///   a.for_each([](const tessera::Point<2>& p, double& v) { v = p[0] + p[1]; });
///   double total = a.sum();                                   // same bits on every rank
///   const tessera::Point<2> star[] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
///   a.update_ghosts(star);                                    // fetch the neighbours' sparse values
///   a.update_ghosts(tessera::ghosts<2>(1).periodic_along({true, false}));  // all 8 neighbours, x wraps
///   a.for_each([&](const tessera::Point<2>& p, double&) { const double* east = a.find(p + tessera::Point<2>{0, 1}); });
///   auto image = a.gather_to(0);                              // sorted points and values on rank 0
/// \endcode

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/point_fetch.hpp"
#include "tessera/array/sparse_domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/wrapping_arithmetic.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/geometry/periodic.hpp"
#include "tessera/plan/ghost_spec.hpp"

namespace tessera {

/// A sparse array gathered on one rank: its points in row-major (lexicographic) order and their
/// values (the serial image of `gather_to` and `scatter_from`).
template <class T, std::size_t N>
struct SparseImage {
  std::vector<Point<N>> points;  ///< sorted, distinct
  std::vector<T> values;         ///< values[k] belongs to points[k]
};

/// Values over a sparse domain (see the file comment). Neither copyable nor movable: the sparse
/// domain keeps its address.
template <class T, std::size_t N>
  requires(N >= 1) && detail::Transferable<T>
class SparseArray final : private detail::SparseValues {
 public:
  /// An array over `dom`, every value `init`. Not collective, but declare it alike on every rank.
  explicit SparseArray(const SparseDomain<N>& dom, const T& init = T{}) : dom_(dom), values_(dom.local_size(), init) {
    dom_.state_->arrays.push_back(this);
  }
  SparseArray(const SparseArray&) = delete;
  SparseArray& operator=(const SparseArray&) = delete;
  ~SparseArray() override {
    auto& v = dom_.state_->arrays;
    v.erase(std::remove(v.begin(), v.end(), static_cast<detail::SparseValues*>(this)), v.end());
  }

  /// The sparse domain.
  [[nodiscard]] const SparseDomain<N>& domain() const noexcept { return dom_; }
  /// This rank's values, in the order of `domain().points()`.
  [[nodiscard]] std::span<T> values() noexcept { return values_; }
  [[nodiscard]] std::span<const T> values() const noexcept { return values_; }

  /// Calls `f(point, value)` for each index this rank holds, in local order.
  template <class F>
  void for_each(F&& f) {
    const auto pts = dom_.points();
    for (std::size_t k = 0; k < pts.size(); ++k) f(pts[k], values_[k]);
  }
  template <class F>
  void for_each(F&& f) const {
    const auto pts = dom_.points();
    for (std::size_t k = 0; k < pts.size(); ++k) f(pts[k], static_cast<const T&>(values_[k]));
  }

  /// The value of `p` if this rank holds it, or (after `update_ghosts`) fetched it; null where `p`
  /// is not in the sparse set or not fetched. After a periodic ghost update, `p` outside the parent's
  /// box along a periodic axis names the index it wraps to (so `find(p + o)` reads across the
  /// boundary as a dense periodic ghost does). Not collective.
  [[nodiscard]] const T* find(const Point<N>& p) const {
    const Point<N> q = detail::wrap_point(p, dom_.distribution().domain(), wrap_);
    if (const auto k = dom_.position(q)) return &values_[*k];
    if (fetch_)
      if (const auto s = fetch_->slot(q)) return &ghosts_[*s];
    return nullptr;
  }

  /// Collective: fetches the values a stencil with `offsets` reads around this rank's indices from
  /// the ranks that hold them: afterwards `find(p + o)` gives the value for every held p and offset
  /// o where p + o is in the sparse set. Along the axes marked in `periodic`, p + o wraps around the
  /// parent's box. The first call for a set of offsets and wrap runs the inspector (two exchanges,
  /// `SparseDomain::stencil_fetch`); later calls, until the sparse set or the parent's distribution
  /// changes, only move the values (one message per peer). Throws `Error(invalid_argument)` for no
  /// offsets.
  void update_ghosts(std::span<const Point<N>> offsets, const Periodicity<N>& periodic = {}) {
    const auto checked = detail::check_collective(dom_.comm(), "SparseArray::update_ghosts", offsets, periodic);
    spec_.reset();
    fetch_with(dom_.stencil_fetch(offsets, periodic), periodic);
  }

  /// Collective: the ghost update a dense array with ghost spec `ghosts` makes, for the sparse
  /// neighbours: with corners, every index within the box [p - lower, p + upper] around each held
  /// p (`ghosts<N>(w)`: all neighbours within w along every axis); with `faces_only()`, those along
  /// one axis (the star of that width); `periodic_along` wraps around the parent's box as above.
  /// The spec's storage order plays no part. Zero widths fetch nothing (only held values are
  /// found). A repeated call with an equal spec moves only the values, allocating nothing. Throws
  /// `Error(invalid_argument)` for a negative width or more than 2^20 neighbours per index.
  void update_ghosts(const GhostSpec<N>& ghosts) {
    constexpr const char* where = "SparseArray::update_ghosts";
    const auto checked = detail::check_collective(dom_.comm(), where, ghosts);
    if (spec_ && *spec_ == ghosts && (fetch_ || ghosts.none())) {
      if (mover_) mover_->run(values_.data(), ghosts_.data());
      return;
    }
    const std::vector<Point<N>> offsets = detail::ghost_stencil_offsets(where, ghosts);
    if (offsets.empty()) {
      forget_ghosts();
      wrap_ = ghosts.periodic;
    } else {
      fetch_with(dom_.stencil_fetch(offsets, ghosts.periodic), ghosts.periodic);
    }
    spec_ = ghosts;
  }

  /// Collective: `op` folded over every value, starting from `identity`: each rank folds its values
  /// in local order, then the ranks' partials are folded in rank order, so every rank gets the same
  /// bits (and integer or min/max results are the same on every rank count).
  template <class Op>
  [[nodiscard]] T reduce(const T& identity, Op op) const {
    const auto checked = detail::check_collective(dom_.comm(), "SparseArray::reduce");
    T partial = identity;
    for (const T& x : values_) partial = op(partial, x);
    T result = identity;
    for (const T& x : dom_.comm().allgather(partial)) result = op(result, x);
    return result;
  }
  /// Collective: the sum (integer sums wrap instead of overflowing).
  [[nodiscard]] T sum() const { return reduce(T{}, WrappingPlus{}); }
  /// Collective: the smallest value. Throws `Error(invalid_argument)` on every rank for an empty set.
  [[nodiscard]] T min() const {
    return extreme("SparseArray::min", [](const T& a, const T& b) { return b < a ? b : a; });
  }
  /// Collective: the largest value. Throws as `min` does.
  [[nodiscard]] T max() const {
    return extreme("SparseArray::max", [](const T& a, const T& b) { return a < b ? b : a; });
  }

  /// Collective: every index and value on `root`, sorted by point (elsewhere an empty image).
  /// Throws `Error(invalid_argument)` on every rank for a bad root.
  [[nodiscard]] SparseImage<T, N> gather_to(int root) const {
    const auto checked = detail::check_collective(dom_.comm(), "SparseArray::gather_to", root);
    const Communicator& comm = dom_.comm();
    check_root("SparseArray::gather_to", root);
    std::vector<int> counts(static_cast<std::size_t>(comm.size()), 0);
    counts[static_cast<std::size_t>(root)] = static_cast<int>(values_.size());
    const auto pts = comm.alltoallv<Point<N>>(dom_.points(), counts);
    const auto vals = comm.alltoallv<T>(values_, counts);
    SparseImage<T, N> image;
    std::vector<std::size_t> order(pts.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pts[a] < pts[b]; });
    image.points.reserve(order.size());
    image.values.reserve(order.size());
    for (const std::size_t k : order) {
      image.points.push_back(pts[k]);
      image.values.push_back(vals[k]);
    }
    return image;
  }

  /// Collective: sets the value of each point of `image` (read on `root` only) to its value there;
  /// values of indices the image does not name are kept. Throws on every rank, with nothing
  /// changed, `Error(out_of_range)` if the image names a point not in the sparse set, and
  /// `Error(invalid_argument)` for a bad root or points and values of different lengths.
  void scatter_from(int root, const SparseImage<T, N>& image) {
    constexpr const char* where = "SparseArray::scatter_from";
    const auto checked = detail::check_collective(dom_.comm(), where, root);
    const Communicator& comm = dom_.comm();
    check_root(where, root);
    std::vector<Point<N>> pts;
    std::vector<T> vals;
    std::vector<int> counts(static_cast<std::size_t>(comm.size()), 0);
    std::optional<Error> failed;
    if (comm.rank() == root)
      detail::capture_failure(failed, comm, where, 0, "the image's routing", [&] {
        if (image.points.size() != image.values.size())
          fail_argument(where, "image", image.values.size(),
                        detail::concat("values for ", image.points.size(), " points"));
        std::vector<int> owners(image.points.size());
        for (std::size_t k = 0; k < owners.size(); ++k) {
          owners[k] = detail::owner_or_none(dom_.distribution(), image.points[k]);
          if (owners[k] < 0)
            fail(ErrorCode::out_of_range, where, ": point ", k, " of the image, ", image.points[k],
                 ", lies outside the parent domain ", dom_.distribution().domain());
        }
        detail::group_by_rank<Point<N>>(image.points, owners, comm.size(), pts, counts);
        detail::group_by_rank<T>(image.values, owners, comm.size(), vals, counts);
      });
    comm.agree(failed);
    const auto my_points = comm.alltoallv<Point<N>>(pts, counts);
    const auto my_values = comm.alltoallv<T>(vals, counts);
    std::vector<std::size_t> at(my_points.size());
    detail::capture_failure(failed, comm, where, 0, "the image's points", [&] {
      for (std::size_t k = 0; k < at.size(); ++k) {
        const auto p = dom_.position(my_points[k]);
        if (!p) fail(ErrorCode::out_of_range, where, ": the image names ", my_points[k], ", which is not in the sparse set");
        at[k] = *p;
      }
    });
    comm.agree(failed);
    for (std::size_t k = 0; k < at.size(); ++k) values_[at[k]] = my_values[k];
  }

 private:
  void check_root(const char* where, int root) const {
    if (root < 0 || root >= dom_.comm().size())
      fail_argument(where, "root", root, detail::concat("is not a rank of the ", dom_.comm().size(), " ranks"));
  }

  struct Partial {
    T value;
    std::uint8_t has;
  };
  template <class Better>
  [[nodiscard]] T extreme(const char* where, Better pick) const {
    const auto checked = detail::check_collective(dom_.comm(), where);
    Partial mine{T{}, 0};
    for (const T& x : values_) mine = {mine.has != 0 ? pick(mine.value, x) : x, 1};
    std::optional<Partial> result;
    for (const Partial& q : dom_.comm().allgather(mine))
      if (q.has != 0) result = Partial{result ? pick(result->value, q.value) : q.value, 1};
    if (!result) fail_argument(where, "array", 0, "is over an empty sparse set");
    return result->value;
  }

  // detail::SparseValues: what the sparse domain calls when its set changes.
  [[nodiscard]] std::size_t element_size() const noexcept override { return sizeof(T); }
  void stage_remap(std::span<const index_t> moved, std::size_t new_size) override {
    staged_.assign(new_size, T{});
    for (std::size_t i = 0; i < moved.size(); ++i)
      if (moved[i] >= 0) staged_[static_cast<std::size_t>(moved[i])] = values_[i];
  }
  void stage_bytes(std::span<const std::byte> bytes, std::span<const std::size_t> placement,
                   std::size_t new_size) override {
    staged_.assign(new_size, T{});
    if (bytes.empty()) return;
    for (std::size_t k = 0; k < placement.size(); ++k)
      std::memcpy(&staged_[placement[k]], bytes.data() + k * sizeof(T), sizeof(T));
  }
  void pack(std::span<const std::size_t> positions, std::vector<std::byte>& out) const override {
    const std::size_t start = out.size();
    out.resize(start + positions.size() * sizeof(T));
    for (std::size_t k = 0; k < positions.size(); ++k)
      std::memcpy(out.data() + start + k * sizeof(T), &values_[positions[k]], sizeof(T));
  }
  void commit() noexcept override {
    values_.swap(staged_);
    staged_ = {};
  }
  void discard() noexcept override { staged_ = {}; }
  void forget_ghosts() noexcept override {
    mover_.reset();
    fetch_.reset();
    ghosts_ = {};
    wrap_ = {};
    spec_.reset();
  }

  // Runs `plan` (building its mover the first time) and remembers the wrap `find` applies.
  void fetch_with(std::shared_ptr<const PointFetch<N>> plan, const Periodicity<N>& periodic) {
    if (plan != fetch_) {
      mover_.reset();
      fetch_ = std::move(plan);
      ghosts_.assign(fetch_->size(), T{});
      mover_.emplace(dom_.comm(), fetch_->schedule(), sizeof(T));
    }
    wrap_ = periodic;
    mover_->run(values_.data(), ghosts_.data());
  }

  SparseDomain<N> dom_;
  std::vector<T> values_;
  std::vector<T> staged_;
  // The last ghost update: its plan (kept by the sparse domain too), mover and fetched values.
  std::shared_ptr<const PointFetch<N>> fetch_;
  std::optional<Mover> mover_;
  std::vector<T> ghosts_;
  Periodicity<N> wrap_{};                 // the last ghost update's wrap, which `find` applies
  std::optional<GhostSpec<N>> spec_;      // the last ghost update's spec, if it named one
};

}  // namespace tessera
