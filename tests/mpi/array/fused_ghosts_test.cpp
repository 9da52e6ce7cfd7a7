// update_ghosts(u, v, ...): several arrays of different element types over one domain get the
// ghosts a serial reference says they must hold (each requested ghost the value of the point it
// mirrors, wrapped along periodic axes; ghosts with no owner untouched), fused (small faces) or
// side by side (large faces); bad arguments are errors on every rank; the fused movers go with
// the distribution.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// The value an array scaled by `scale` holds at p: exact in double, float and int32 for the
/// domains used here (|coordinates| < 100).
template <class T, std::size_t N>
T value_at(const Point<N>& p, double scale) {
  double s = 0;
  for (std::size_t d = 0; d < N; ++d) s = s * 131 + static_cast<double>(p[d]);
  return static_cast<T>(s * scale + 1);
}

/// What a ghost no update wrote still holds: no value_at comes near it.
template <class T>
constexpr T kUntouched = std::is_integral_v<T> ? std::numeric_limits<T>::min() : T(-1.0e9);

/// Every stored element of `a` set to kUntouched, then every owned one to value_at(its point).
template <class T, std::size_t N>
void fill(DistArray<T, N>& a, double scale) {
  if (T* data = a.data()) std::fill(data, data + a.layout().size(), kUntouched<T>);
  a.for_each_owned([&](const Point<N>& p, T& x) { x = value_at<T>(p, scale); });
}

/// The serial reference: every owned element keeps its value, every ghost the spec asks for holds
/// the value of the global point it mirrors (wrapped along periodic axes), and every other ghost
/// (outside a non-periodic edge, or a corner of a faces-only spec) is untouched. Reports the
/// first wrong element and the count; never returns early (the other ranks go on communicating).
template <class T, std::size_t N>
void expect_reference_ghosts(const DistArray<T, N>& a, double scale, const std::string& what) {
  const GhostSpec<N>& g = a.ghosts();
  const Box<N>& domain = a.domain().box();
  const T* data = a.data();
  index_t wrong = 0;
  for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
    T want = kUntouched<T>;
    if (owned) {
      want = value_at<T>(q, scale);
    } else if (in_requested_ghost(patch.owned_box(), g, q)) {
      if (const auto w = wrap_point(domain, g.periodic, q)) want = value_at<T>(*w, scale);
    }
    if (data[offset] != want && wrong++ == 0)
      ADD_FAILURE() << what << ": rank " << a.domain().rank() << " point " << q << " holds " << data[offset]
                    << ", the reference " << want;
  });
  EXPECT_EQ(wrong, 0) << what << ": elements unlike the reference on rank " << a.domain().rank();
}

/// update_ghosts(u, v, w) on three arrays of different types over `dom` with ghosts `g`, twice
/// (the second run reuses what the first made), each array against the serial reference.
template <std::size_t N>
void check_against_reference(Domain<N>& dom, const GhostSpec<N>& g, const std::string& what) {
  DistArray<double, N> u(dom, g);
  DistArray<float, N> v(dom, g);
  DistArray<std::int32_t, N> w(dom, g);
  for (int i = 0; i < 2; ++i) {
    fill(u, 1.0), fill(v, 0.5), fill(w, 3.0);
    update_ghosts(u, v, w);
    expect_reference_ghosts(u, 1.0, what + " double");
    expect_reference_ghosts(v, 0.5, what + " float");
    expect_reference_ghosts(w, 3.0, what + " int32");
  }
  // One array: its own update.
  fill(u, 2.0);
  update_ghosts(u);
  expect_reference_ghosts(u, 2.0, what + " alone");
}

template <std::size_t N>
void check_fused_against_reference(const Communicator& comm, const Point<N>& extents, bool expect_fused) {
  std::array<DimSpec, N> specs;
  specs.fill(block());
  // Periodic along the first axis only: ghosts there wrap, ghosts beyond the other edges have no owner.
  std::array<bool, N> periodic{};
  periodic[0] = true;
  Domain<N> dom(comm,
                Distribution<N>(Box<N>(Point<N>{}, extents), ProcGrid<N>::automatic(comm.size(), extents), specs));
  const auto g = ghosts<N>(1).periodic_along(periodic);
  check_against_reference(dom, g, "block");
  const std::array<std::size_t, 3> sizes{sizeof(double), sizeof(float), sizeof(std::int32_t)};
  // The decision update_ghosts(u, v, w) made is kept in the domain's cache under the key it uses:
  // this lookup hits it (makes nothing) and tells whether it fused.
  const auto misses = dom.cache().stats().executor_misses;
  const ExecutorKey key(halo_schedule_key(dom.distribution(), g, dom.rank()), sizes);
  const auto fused = dom.cache().template executor<FusedMover>(key, {dom.distribution().hash()}, 0, [] {
    ADD_FAILURE() << "update_ghosts(u, v, w) kept no decision";
    return std::unique_ptr<FusedMover>();
  });
  EXPECT_EQ(dom.cache().stats().executor_misses, misses);
  if (comm.size() > 1) {  // one rank: no messages, nothing to choose
    EXPECT_EQ(static_cast<bool>(fused), expect_fused);
  }
}

TEST(FusedGhosts, SmallFacesTravelFused) {
  check_fused_against_reference<2>(Communicator(MPI_COMM_WORLD), {20, 30}, true);
}

TEST(FusedGhosts, LargeFacesTravelSideBySide) {
  check_fused_against_reference<3>(Communicator(MPI_COMM_WORLD), {48, 48, 48}, false);  // a face: 48 x 48 x 16 bytes > 16 KiB
}

// Any distribution kind that allows the ghosts (user-defined Morton patches, skeleton ranks, empty
// and thin ranks included), any widths, faces only or not, any periodicity: the same on every rank
// (same seed), each case against the serial reference.
template <std::size_t N>
void random_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(1500 + N);
  for (int k = 0; k < cases; ++k) {
    const auto domain = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    Domain<N> dom(comm, any_distribution<N>(rng, domain, comm.size(), ghosted_dims(g)));
    std::ostringstream what;
    what << "case " << k << " " << dom.distribution() << " " << g;
    check_against_reference(dom, g, what.str());
  }
}

TEST(FusedGhosts, AnyDistributionAndGhostSpecMatchesTheSerialReference2D) { random_cases<2>(20, 12); }
TEST(FusedGhosts, AnyDistributionAndGhostSpecMatchesTheSerialReference3D) { random_cases<3>(10, 7); }

TEST(FusedGhosts, BadArgumentsAndRedistribution) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {16, 16});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {16, 16});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  Domain<2> other(comm, Distribution<2>(box, grid, {block(), block()}));
  DistArray<double, 2> a(dom, ghosts<2>(1)), b(dom, ghosts<2>(2)), c(other, ghosts<2>(1)), d(dom, ghosts<2>(1));
  EXPECT_THROW(update_ghosts(a, b), Error);
  EXPECT_THROW(update_ghosts(a, c), Error);
  a.begin_update_ghosts();
  EXPECT_THROW(update_ghosts(a, d), Error);
  a.end_update_ghosts();
  update_ghosts(a, d);
  const auto misses = [&] { return dom.cache().stats().executor_misses; };
  const auto before = misses();
  dom.redistribute(Distribution<2>(box, grid, {block(), block()}));
  update_ghosts(a, d);
  EXPECT_EQ(misses(), before) << "same distribution: the fused decision is kept";
  dom.redistribute(Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {16, 16}, {1, 0}), {block(), block()}));
  update_ghosts(a, d);
  if (comm.size() > 1) {
    EXPECT_GT(misses(), before) << "a new distribution drops it: made again";
  }
  // Values are right after all that (a against the serial reference: the owner's value).
  a.for_each_owned([](const Point<2>& p, double& x) { x = 100.0 * p[0] + p[1]; });
  d.for_each_owned([](const Point<2>& p, double& x) { x = -100.0 * p[0] - p[1]; });
  update_ghosts(a, d);
  const auto stored = [&](const DistArray<double, 2>& u, double sign) {
    const PatchLayout<2>& patch = u.layout().patches()[0];
    for_each_point(intersect(patch.storage_box(), box), [&](const Point<2>& q) {
      EXPECT_EQ(u.at(q), sign * (100.0 * q[0] + q[1])) << q;
    });
  };
  if (a.patch_count() > 0) {
    stored(a, 1.0);
    stored(d, -1.0);
  }
}

}  // namespace
}  // namespace tessera
