#pragma once
/// \file
/// What the halo drivers share (bench_halo, bench_halo_ga, bench_halo_petsc): the cases, the values
/// every owner stores, tessera's side of each case (domain, ghosts, patch layout and the Mover over
/// halo_schedule) and the check of an array against the halo semantics.
///
/// The arrays are tessera's patch layout (owned block plus ghost layers, row-major) on a P x 1 [x 1]
/// grid of P ranks, block-distributed: rank r owns rows [r*q + min(r, n%P), ...) of dimension 0.
///
/// Tessera's arrays are `Storage<N>`, the storage every `DistArray` has (array/storage.hpp): from
/// 2 MiB on it sits in transparent huge pages (exchange/huge_pages.hpp). The anchors' arrays are
/// `std::vector`s, memory as a hand-written MPI program gets it from `malloc`. So each side runs on
/// the memory its users get; the difference is part of what is measured, and `make bench` repeats
/// the large halos with every `malloc` in huge pages too (cases ending in "-hugetlb",
/// bench/run_all.py), so that the exchange alone can be compared as well.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "tessera/array/storage.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera::bench::halo {

constexpr double kSentinel = -1.0;  // ghost cells before the exchange; owned values are >= 1

struct Case {
  std::size_t dims = 2;
  bool corners = false;
  index_t width = 1;
  bool periodic = true;
  index_t n = 0;  // points per dimension

  [[nodiscard]] std::string name() const {
    const char* stencil = dims == 2 ? (corners ? "9pt" : "5pt") : (corners ? "27pt" : "7pt");
    return std::to_string(dims) + "d-" + stencil + "-w" + std::to_string(width) +
           (periodic ? "-periodic-" : "-nonperiodic-") + std::to_string(n);
  }
};

/// Calls f(local point, offset) for every point of a row-major array of extents `ext`.
template <std::size_t N, class F>
void for_each_local(const Point<N>& ext, F&& f) {
  index_t total = 1;
  for (std::size_t d = 0; d < N; ++d) total *= ext[d];
  Point<N> p{};
  for (index_t off = 0; off < total; ++off) {
    f(p, off);
    for (std::size_t d = N; d-- > 0;) {
      if (++p[d] < ext[d]) break;
      p[d] = 0;
    }
  }
}

/// The value the owner stores at global point q: 1 + its row-major index (exact in a double).
template <std::size_t N>
double value_of(const Point<N>& q, index_t n) {
  index_t linear = 0;
  for (std::size_t d = 0; d < N; ++d) linear = linear * n + q[d];
  return static_cast<double>(linear + 1);
}

/// Tessera's side of a case on this rank: the block distribution over a P x 1 [x 1] grid, the
/// ghost spec (periodic or not, faces only or with corners), the patch layout, the Mover of the
/// halo schedule, and the array (`storage`, seen as doubles through `a`; owned points carry
/// value_of, ghost cells the sentinel).
template <std::size_t N>
struct TesseraHalo {
  static Point<N> grid_shape(int size) {
    Point<N> s = Point<N>::filled(1);
    s[0] = size;
    return s;
  }
  static GhostSpec<N> spec(const Case& c) {
    Periodicity<N> periodic{};
    periodic.fill(c.periodic);
    auto g = ghosts<N>(c.width).periodic_along(periodic);
    return c.corners ? g : g.faces_only();
  }
  static Distribution<N> distribution(const Case& c, int size) {
    std::array<DimSpec, N> specs;
    specs.fill(block());
    return Distribution<N>(Box<N>::from_extents(Point<N>::filled(c.n)), ProcGrid<N>::with_shape(size, grid_shape(size)),
                           specs);
  }

  TesseraHalo(const Communicator& world, const Case& c)
      : cs(c),
        dist(distribution(c, world.size())),
        g(spec(c)),
        layout(StorageLayout<N>::make(dist, world.rank(), g)),
        mover(world, halo_schedule(dist, g, world.rank()), sizeof(double)),
        storage(make_storage(world.rank())),
        a(doubles(storage)) {
    if (layout.patches().size() != 1) abort_job("halo", "expected one patch per rank");
    ext = layout.patches()[0].extents();
    first = layout.patches()[0].owned_box().lo;
    initial(a);
  }

  /// A tessera array of this case's layout, as a DistArray's storage is allocated.
  [[nodiscard]] Storage<N> make_storage(int rank) const {
    return Storage<N>(dist, rank, g, detail::ElementBytes::of<double>());
  }
  /// The elements of `s` as doubles.
  static std::span<double> doubles(Storage<N>& s) {
    return {static_cast<double*>(s.buffer()), static_cast<std::size_t>(s.layout().size())};
  }

  /// Owned points their global value, ghost cells the sentinel; `v` resized to the layout first.
  void initial(std::vector<double>& v) const {
    v.resize(static_cast<std::size_t>(layout.size()));
    initial(std::span<double>(v));
  }
  /// The same in an array of the layout's size.
  void initial(std::span<double> v) const {
    if (v.size() != static_cast<std::size_t>(layout.size())) abort_job("halo", "an array of the wrong size");
    const index_t w = cs.width;
    for_each_local(ext, [&](const Point<N>& l, index_t off) {
      bool owned = true;
      for (std::size_t d = 0; d < N; ++d) owned = owned && l[d] >= w && l[d] < ext[d] - w;
      v[static_cast<std::size_t>(off)] = owned ? value_of(l - Point<N>::filled(w) + first, cs.n) : kSentinel;
    });
  }

  /// The value the halo semantics require at local point l after an exchange: the owner's value,
  /// or the sentinel where nothing is received (outside a non-periodic domain; corners of a
  /// faces-only exchange).
  [[nodiscard]] double wanted(const Point<N>& l) const {
    const index_t w = cs.width, n = cs.n;
    int outside = 0;  // dimensions along which l is in a ghost layer
    Point<N> q = l - Point<N>::filled(w) + first;
    bool filled = true;
    for (std::size_t d = 0; d < N; ++d) {
      if (l[d] < w || l[d] >= ext[d] - w) ++outside;
      if (q[d] < 0 || q[d] >= n) {
        if (cs.periodic)
          q[d] = (q[d] + n) % n;
        else
          filled = false;
      }
    }
    if (outside > 1 && !cs.corners) filled = false;
    return filled ? value_of(q, n) : kSentinel;
  }

  /// "" if `v` holds what the semantics require everywhere; otherwise where and what differs.
  [[nodiscard]] std::string check(std::span<const double> v) const {
    std::string error;
    for_each_local(ext, [&](const Point<N>& l, index_t off) {
      if (!error.empty()) return;
      const double want = wanted(l), got = v[static_cast<std::size_t>(off)];
      if (got != want) error = "local offset " + std::to_string(off) + ": " + exact(got) + ", expected " + exact(want);
    });
    return error;
  }

  Case cs;
  Distribution<N> dist;
  GhostSpec<N> g;
  StorageLayout<N> layout;
  Mover mover;
  Storage<N> storage;
  std::span<double> a;  // storage's elements
  Point<N> ext{}, first{};
};

/// Default repetitions for an array of `bytes` on each rank: many for small, fewer for large.
inline int default_repetitions(double bytes) { return bytes <= 64.0 * (1 << 20) ? 200 : 100; }

}  // namespace tessera::bench::halo
