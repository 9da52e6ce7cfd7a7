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
  std::shared_ptr<const tessera::Communicator> comm;
  tessera::Domain<N> domain;
  long live_views = 0;  ///< NumPy views alive of any array over this domain, on this rank
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
  explicit ViewGuard(std::shared_ptr<PyArray<T, N>> a) : array_(std::move(a)) { ++array_->domain->live_views; }
  ~ViewGuard() { --array_->domain->live_views; }
  ViewGuard(const ViewGuard&) = delete;
  ViewGuard& operator=(const ViewGuard&) = delete;

 private:
  std::shared_ptr<PyArray<T, N>> array_;
};

/// Collective: throws `ViewsHeld` on every rank when any rank holds a view of an array over
/// `dom` (see the file comment); `operation` names the call in the message.
template <std::size_t N>
void refuse_if_views_held(const PyDomain<N>& dom, const char* operation);

}  // namespace tessera_python
