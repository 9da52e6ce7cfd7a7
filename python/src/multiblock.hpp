#pragma once
// What the Python multiblock objects hold (Multiblock PARTI, C++ array/multiblock_array.hpp), and
// the helpers multiblock_domains.cpp and multiblock_arrays.cpp share. holders.hpp's rules apply:
// each holder keeps what it depends on alive with a shared_ptr declared first, and a NumPy view
// holds a guard that counts itself in the domain holder's `live_views`, which
// `MultiblockDomain.redistribute` checks on every rank before it frees storage.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera_python {

/// A multiblock domain with the communicator it refers to, and the count of NumPy views of its
/// arrays. Always made by make_shared and never moved: every MultiblockArray keeps a pointer to
/// `domain`, which itself holds the embedded Domain by value.
template <std::size_t N>
struct PyMultiblockDomain {
  PyMultiblockDomain(std::shared_ptr<const tessera::Communicator> c, tessera::MultiblockLayout<N> layout)
      : comm(std::move(c)), domain(*comm, std::move(layout)) {}
  PyMultiblockDomain(const PyMultiblockDomain&) = delete;
  PyMultiblockDomain& operator=(const PyMultiblockDomain&) = delete;

  std::shared_ptr<const tessera::Communicator> comm;
  tessera::MultiblockDomain<N> domain;
  long live_views = 0;  ///< NumPy views alive of any array over this domain, on this rank
};

/// A multiblock array with the domain holder it lives in.
template <class T, std::size_t N>
struct PyMultiblockArray {
  PyMultiblockArray(std::shared_ptr<PyMultiblockDomain<N>> d, const tessera::GhostSpec<N>& ghosts)
      : domain(std::move(d)), array(domain->domain, ghosts) {}
  PyMultiblockArray(const PyMultiblockArray&) = delete;
  PyMultiblockArray& operator=(const PyMultiblockArray&) = delete;

  std::shared_ptr<PyMultiblockDomain<N>> domain;
  tessera::MultiblockArray<T, N> array;
};

/// The base object of a NumPy view of a multiblock array's patch: keeps the array alive and counts
/// itself in the domain holder (ViewGuard's counterpart, holders.hpp).
template <class T, std::size_t N>
class MultiblockViewGuard {
 public:
  explicit MultiblockViewGuard(std::shared_ptr<PyMultiblockArray<T, N>> a) : array_(std::move(a)) {
    ++array_->domain->live_views;
  }
  ~MultiblockViewGuard() { --array_->domain->live_views; }
  MultiblockViewGuard(const MultiblockViewGuard&) = delete;
  MultiblockViewGuard& operator=(const MultiblockViewGuard&) = delete;

 private:
  std::shared_ptr<PyMultiblockArray<T, N>> array_;
};

/// Block `b` of `layout` as an index, or `Error(out_of_range)` naming `where`. Python integers may
/// be negative, which a std::size_t argument would turn into a TypeError: take them signed.
template <std::size_t N>
[[nodiscard]] std::size_t block_index(const tessera::MultiblockLayout<N>& layout, long long b, const char* where) {
  if (b < 0 || static_cast<std::size_t>(b) >= layout.block_count())
    tessera::fail(tessera::ErrorCode::out_of_range, where, ": block ", b, " does not exist (the domain has ",
                  layout.block_count(), " blocks, 0 to ", layout.block_count() - 1, ")");
  return static_cast<std::size_t>(b);
}

/// An orientation from Python lists (empty: the identity permutation, no axis flipped); a list of
/// another length is `Error(invalid_argument)` naming `where`; a non-permutation is Orientation's
/// own `Error(invalid_argument)`, prefixed with `where`.
template <std::size_t N>
[[nodiscard]] tessera::Orientation<N> orientation_of(const std::vector<int>& perm, const std::vector<bool>& flip,
                                                     const std::string& where) {
  typename tessera::Orientation<N>::Permutation p{};
  typename tessera::Orientation<N>::Flips f{};
  for (std::size_t d = 0; d < N; ++d) p[d] = static_cast<int>(d);
  if (!perm.empty()) {
    if (perm.size() != N)
      tessera::fail(tessera::ErrorCode::invalid_argument, where, ": perm has ", perm.size(), " entries, not ", N);
    std::copy(perm.begin(), perm.end(), p.begin());
  }
  if (!flip.empty()) {
    if (flip.size() != N)
      tessera::fail(tessera::ErrorCode::invalid_argument, where, ": flip has ", flip.size(), " entries, not ", N);
    std::copy(flip.begin(), flip.end(), f.begin());
  }
  try {
    return tessera::Orientation<N>(p, f);
  } catch (const tessera::Error& e) {
    throw tessera::Error(e.code(), where + ": " + e.what());
  }
}

}  // namespace tessera_python
