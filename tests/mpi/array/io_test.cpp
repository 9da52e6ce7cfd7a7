// Whole-array I/O: scatter_from + gather_to round trips, gather_to_all, for several element types,
// on random distributions of every kind (skeleton ranks and empty ranks included).
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

struct Particle {
  std::int32_t id;
  double mass;
  char tag;
  friend bool operator==(const Particle&, const Particle&) = default;
};

template <class T, std::size_t N>
T make(const Point<N>& p) {
  const double v = value_of(p);
  if constexpr (std::is_same_v<T, double>) return v;
  else if constexpr (std::is_same_v<T, std::int64_t>) return static_cast<std::int64_t>(v * 4.0) * 1000003;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return {v, -v / 3.0};
  else return Particle{static_cast<std::int32_t>(v), v * 0.5, static_cast<char>('a' + static_cast<int>(v) % 26)};
}

template <class T, std::size_t N>
void round_trips(int cases, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto dist = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g));
    const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(comm.size()));
    const int other_root = static_cast<int>(rng() % static_cast<std::uint64_t>(comm.size()));
    std::ostringstream what;
    what << "case " << k << ": " << dist << " over " << box << ", " << g << ", roots " << root << ", " << other_root;
    SCOPED_TRACE(what.str());
    std::vector<T> global;
    for (const auto& p : points(box)) global.push_back(make<T>(p));
    Domain<N> dom(comm, dist);
    DistArray<T, N> a(dom, g);
    a.scatter_from(root, comm.rank() == root ? std::span<const T>(global) : std::span<const T>());
    a.for_each_owned([&](const Point<N>& p, const T& x) { ASSERT_EQ(x, make<T>(p)) << p; });
    for_each_stored(a.layout(), [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
      if (!owned) {
        ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], T{}) << "ghost " << p << " was written";
      }
    });
    const auto back = a.gather_to(other_root);
    if (comm.rank() == other_root) {
      ASSERT_EQ(back.size(), global.size());
      ASSERT_TRUE(back == global);
    } else {
      ASSERT_TRUE(back.empty());
    }
    const auto everywhere = a.gather_to_all();
    ASSERT_TRUE(everywhere == global);
  }
}

TEST(ArrayIO, RoundTripDouble1D) { round_trips<double, 1>(40, 30, 10); }
TEST(ArrayIO, RoundTripDouble2D) { round_trips<double, 2>(40, 10, 10); }
TEST(ArrayIO, RoundTripDouble3D) { round_trips<double, 3>(25, 6, 10); }
TEST(ArrayIO, RoundTripInt64) { round_trips<std::int64_t, 2>(30, 10, 20); }
TEST(ArrayIO, RoundTripComplex) { round_trips<std::complex<double>, 3>(20, 6, 30); }
TEST(ArrayIO, RoundTripStruct) { round_trips<Particle, 2>(30, 10, 40); }

TEST(ArrayIO, WrongSizeOnRootIsAnErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box({0, 0}, {5, 7});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {5, 7}), {block(), cyclic()}));
  DistArray<double, 2> a(dom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const std::vector<double> short_one(34, 1.0);
  const int root = comm.size() - 1;
  try {
    // Only the root's span counts: the others pass a span of the right size, which is not read.
    std::vector<double> right(35, 2.0);
    a.scatter_from(root, comm.rank() == root ? std::span<const double>(short_one) : std::span<const double>(right));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("global_row_major"), std::string::npos) << e.what();
  }
  a.for_each_owned([](const Point<2>& p, const double& x) { EXPECT_EQ(x, value_of(p)); });  // untouched
  EXPECT_THROW((void)a.gather_to(comm.size()), Error);
  EXPECT_THROW(a.scatter_from(-1, {}), Error);
}

// More ranks than indices: most ranks own nothing, in every kind of distribution.
TEST(ArrayIO, EmptyRanksEverywhere) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(77);
  for (int k = 0; k < 30; ++k) {
    const Box<2> box({0, -1}, {1 + static_cast<index_t>(rng() % 2), 1});
    const auto dist = any_distribution<2>(rng, box, comm.size(), false);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << dist);
    Domain<2> dom(comm, dist);
    DistArray<double, 2> a(dom);
    std::vector<double> global;
    for (const auto& p : points(box)) global.push_back(value_of(p));
    a.scatter_from(0, comm.rank() == 0 ? std::span<const double>(global) : std::span<const double>());
    EXPECT_TRUE(a.gather_to_all() == global);
    EXPECT_EQ(a.sum(), std::accumulate(global.begin(), global.end(), 0.0));
  }
}

}  // namespace
}  // namespace tessera
