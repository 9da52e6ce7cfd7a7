#pragma once
// What the Python objects hold. A C++ `Domain` keeps a reference to its `Communicator`, and a
// `DistArray` a copy of its `Domain`; Python frees objects in any order, so each holder keeps what
// it depends on alive with a shared_ptr (declared first, destroyed last).
//
// The view rule (docs/python.md, "Views"): a NumPy view of an array's storage holds a `ViewGuard`
// as its base object. The guard keeps the array alive and counts itself in the domain's
// `live_views`; a redistribution or migration of the domain, which frees the storage, first
// agrees across ranks that no rank holds a view and raises `tessera.ViewsHeldError` on every rank
// otherwise. So no view can reach freed memory.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "tessera/tessera.hpp"

namespace tessera_python {

/// The element types the module instantiates, in the order their NumPy names are listed.
using ElementTypes = std::tuple<float, double, std::int32_t, std::int64_t, std::complex<double>>;

/// A domain with the communicator it refers to, and the count of NumPy views of its arrays.
template <std::size_t N>
struct PyDomain {
  PyDomain(std::shared_ptr<const tessera::Communicator> c, const tessera::Distribution<N>& dist)
      : comm(std::move(c)), domain(*comm, dist) {}
  /// A region of `whole` (Domain::region): it moves with `whole`, so its views count there.
  PyDomain(std::shared_ptr<PyDomain> whole, tessera::Domain<N> region)
      : comm(whole->comm), whole_domain(std::move(whole)), domain(std::move(region)) {}
  std::shared_ptr<const tessera::Communicator> comm;
  std::shared_ptr<PyDomain> whole_domain;  ///< the domain this is a region of; null for a whole domain
  tessera::Domain<N> domain;
  long live_views = 0;  ///< NumPy views alive of any array over this domain or its regions, on this rank

  /// The whole domain that counts the views (a region's views count in the domain it follows).
  [[nodiscard]] PyDomain& counting() { return whole_domain ? whole_domain->counting() : *this; }
  [[nodiscard]] const PyDomain& counting() const { return whole_domain ? whole_domain->counting() : *this; }
};

/// An array with the domain holder it lives in.
template <class T, std::size_t N>
struct PyArray {
  PyArray(std::shared_ptr<PyDomain<N>> d, const tessera::GhostSpec<N>& ghosts)
      : domain(std::move(d)), array(domain->domain, ghosts) {}
  std::shared_ptr<PyDomain<N>> domain;
  tessera::DistArray<T, N> array;
};

/// The base object of a NumPy view: keeps the array alive and counts itself in the domain.
template <class T, std::size_t N>
class ViewGuard {
 public:
  explicit ViewGuard(std::shared_ptr<PyArray<T, N>> a) : array_(std::move(a)) { ++array_->domain->counting().live_views; }
  ~ViewGuard() { --array_->domain->counting().live_views; }
  ViewGuard(const ViewGuard&) = delete;
  ViewGuard& operator=(const ViewGuard&) = delete;

 private:
  std::shared_ptr<PyArray<T, N>> array_;
};

/// Collective: throws `ViewsHeld` on every rank when any rank holds a view of an array over
/// `dom` (see the file comment); `operation` names the call in the message.
template <std::size_t N>
void refuse_if_views_held(const PyDomain<N>& dom, const char* operation);

/// Collective: throws `ViewsHeld` on every rank when `local_views` is not zero on some rank of
/// `comm`; `operation` names the call and `what` the storage in the message.
void refuse_if_any_views(const tessera::Communicator& comm, long local_views, const char* operation, const char* what);

/// A sparse subdomain with the domain holder of its parent, and the count of NumPy views of its
/// arrays' values (add and remove reallocate them).
template <std::size_t N>
struct PySparse {
  explicit PySparse(std::shared_ptr<PyDomain<N>> p) : parent(std::move(p)), sparse(parent->domain) {}
  std::shared_ptr<PyDomain<N>> parent;
  tessera::SparseDomain<N> sparse;
  long live_views = 0;  ///< NumPy views of this sparse domain's arrays alive on this rank
};

/// A sparse array with the sparse holder it lives in.
template <class T, std::size_t N>
struct PySparseArray {
  explicit PySparseArray(std::shared_ptr<PySparse<N>> s) : sparse(std::move(s)), array(sparse->sparse) {}
  std::shared_ptr<PySparse<N>> sparse;
  tessera::SparseArray<T, N> array;
};

/// The base object of a NumPy view of a sparse array's values: keeps the array alive and counts
/// itself in the sparse domain (add, remove) and in the parent domain (redistribute, migrate).
template <class T, std::size_t N>
class SparseViewGuard {
 public:
  explicit SparseViewGuard(std::shared_ptr<PySparseArray<T, N>> a) : array_(std::move(a)) {
    ++array_->sparse->live_views;
    ++array_->sparse->parent->counting().live_views;
  }
  ~SparseViewGuard() {
    --array_->sparse->live_views;
    --array_->sparse->parent->counting().live_views;
  }
  SparseViewGuard(const SparseViewGuard&) = delete;
  SparseViewGuard& operator=(const SparseViewGuard&) = delete;

 private:
  std::shared_ptr<PySparseArray<T, N>> array_;
};

/// An associative domain (keys int64 or str) with the communicator it hashes over.
template <class Key>
struct PyAssoc {
  explicit PyAssoc(std::shared_ptr<const tessera::Communicator> c) : comm(std::move(c)), assoc(*comm) {}
  std::shared_ptr<const tessera::Communicator> comm;
  tessera::AssociativeDomain<Key> assoc;
};

/// An associative array with the domain holder it lives in.
template <class Key, class T>
struct PyAssocArray {
  explicit PyAssocArray(std::shared_ptr<PyAssoc<Key>> d) : domain(std::move(d)), array(domain->assoc) {}
  std::shared_ptr<PyAssoc<Key>> domain;
  tessera::AssociativeArray<Key, T> array;
};

}  // namespace tessera_python
