// Every MoveAlgorithm gives the point-to-point mover's results bit for bit, on halo, accumulate
// (combine), redistribution (random pairs and block -> cyclic) and transpose schedules; polling,
// reuse and buffers fixed after construction; a mover moved in flight; names and
// TESSERA_MOVE_ALGORITHM parsing; and the FusedMover against one Mover per array.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine_checks.hpp"
#include "tessera/exchange/fused_mover.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

// shared_memory here moves plain buffers (not in a window): its message fallback; its single copy is
// tested on storage in windows (tests/mpi/array/shared_memory_test.cpp) and by the forced suites.
constexpr std::array<MoveAlgorithm, 5> kAlgorithms{MoveAlgorithm::point_to_point, MoveAlgorithm::alltoallv,
                                                   MoveAlgorithm::neighborhood, MoveAlgorithm::shared_memory,
                                                   MoveAlgorithm::automatic};

// Runs `schedule` twice with `algorithm` (waiting or polling) on copies of `src` and `dst` (one
// buffer when `same`), and returns the destination.
std::vector<double> run_with(const Communicator& comm, const std::shared_ptr<const Schedule>& schedule,
                             MoveAlgorithm algorithm, bool poll, std::vector<double> src, std::vector<double> dst,
                             bool same, CombineFn combine) {
  Mover m(comm, schedule, sizeof(double), combine, algorithm);
  if (algorithm != MoveAlgorithm::automatic) {
    EXPECT_EQ(m.algorithm(), move_algorithm_available(algorithm) ? algorithm : MoveAlgorithm::point_to_point);
  }
  EXPECT_NE(m.algorithm(), MoveAlgorithm::automatic);
  const auto allocations = m.stats().buffer_allocations;
  for (int rep = 0; rep < 2; ++rep) {
    double* d = dst.empty() ? nullptr : dst.data();
    const double* s = same ? d : (src.empty() ? nullptr : src.data());
    static double dummy = 0;
    m.start(s ? static_cast<const void*>(s) : &dummy, d ? static_cast<void*>(d) : &dummy);
    if (poll) {
      while (!m.test()) {
      }
    } else {
      m.wait();
    }
    EXPECT_FALSE(m.in_flight());
  }
  EXPECT_EQ(m.stats().executions, 2u);
  EXPECT_EQ(m.stats().buffer_allocations, allocations) << "allocated after construction";
  return dst;
}

void expect_all_algorithms_agree(const Communicator& comm, const std::shared_ptr<const Schedule>& schedule,
                                 const std::vector<double>& src, const std::vector<double>& dst, bool same,
                                 CombineFn combine = nullptr) {
  const auto reference = run_with(comm, schedule, MoveAlgorithm::point_to_point, false, src, dst, same, combine);
  for (MoveAlgorithm a : kAlgorithms)
    for (bool poll : {false, true}) {
      SCOPED_TRACE(std::string(to_string(a)) + (poll ? " polling" : " waiting"));
      EXPECT_EQ(run_with(comm, schedule, a, poll, src, dst, same, combine), reference);
    }
}

Distribution<2> blocks(const Communicator& comm, index_t n) {
  return Distribution<2>(Box<2>({0, 0}, {n, n}), ProcGrid<2>::automatic(comm.size(), {n, n}), {block(), block()});
}

TEST(MoveAlgorithm, HaloMatchesPointToPoint) {
  Communicator comm(MPI_COMM_WORLD);
  // Small faces (packed), long rows (datatype channels), contiguous faces (in place), corners.
  for (index_t n : {index_t{9}, index_t{72}}) {
    for (const auto& g : {ghosts<2>(2).periodic_along({true, true}), ghosts<2>(1).faces_only(),
                          ghosts<2>(1).periodic_along({false, true})}) {
      SCOPED_TRACE(n);
      const auto dist = blocks(comm, n);
      const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
      const auto data = filled_storage(layout);
      expect_all_algorithms_agree(comm, halo_schedule(dist, g, comm.rank()), data, data, true);
    }
  }
  // 3-D, one process-grid dimension per rank count.
  const Box<3> box({0, 0, 0}, {11, 12, 13});
  const Distribution<3> dist(box, ProcGrid<3>::automatic(comm.size(), {11, 12, 13}), {block(), block(), block()});
  const auto g = ghosts<3>(1).periodic_along({true, true, true});
  const auto data = filled_storage(StorageLayout<3>::make(dist, comm.rank(), g));
  expect_all_algorithms_agree(comm, halo_schedule(dist, g, comm.rank()), data, data, true);
}

TEST(MoveAlgorithm, MoverMovedInFlightCompletesTheExecution) {
  // The Mover is a handle on its way of moving: moving it mid-execution hands the execution over.
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = blocks(comm, 72);
  const auto g = ghosts<2>(2).periodic_along({true, true});
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  const auto s = halo_schedule(dist, g, comm.rank());
  auto reference = filled_storage(layout);
  Mover(comm, s, sizeof(double), nullptr, MoveAlgorithm::point_to_point).run(reference.data(), reference.data());
  for (MoveAlgorithm a : kAlgorithms) {
    SCOPED_TRACE(to_string(a));
    auto data = filled_storage(layout);
    Mover first(comm, s, sizeof(double), nullptr, a);
    first.start(data.data(), data.data());
    std::vector<Mover> kept;
    kept.push_back(std::move(first));
    EXPECT_FALSE(first.in_flight());  // NOLINT(bugprone-use-after-move): a moved-from mover is idle
    EXPECT_TRUE(kept.front().in_flight());
    kept.front().wait();
    EXPECT_EQ(kept.front().stats().executions, 1u);
    EXPECT_EQ(data, reference);
  }
}

TEST(MoveAlgorithm, AccumulateMatchesPointToPoint) {
  Communicator comm(MPI_COMM_WORLD);
  for (index_t n : {index_t{10}, index_t{70}}) {
    const auto dist = blocks(comm, n);
    const auto g = ghosts<2>(2).periodic_along({true, true});
    const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
    auto data = filled_storage(layout);
    // Ghosts carry values to add into their owners; every sum is exact, so any order agrees.
    for_each_stored(layout, [&](const PatchLayout<2>&, const Point<2>& p, index_t off, bool owned) {
      if (!owned) data[static_cast<std::size_t>(off)] = static_cast<double>(p[0] * 3 + p[1]) + 0.5;
    });
    expect_all_algorithms_agree(comm, halo_schedule(dist, g, comm.rank(), nullptr, true, CombineOp::add), data, data,
                                true, combine_function<double>(CombineOp::add));
  }
}

TEST(MoveAlgorithm, RedistributionMatchesPointToPoint) {
  Communicator comm(MPI_COMM_WORLD);
  // Block -> cyclic: every rank talks to every other.
  for (index_t n : {index_t{12}, index_t{67}}) {
    const auto from = blocks(comm, n);
    const Distribution<2> to(from.domain(), ProcGrid<2>::automatic(comm.size(), {n, n}), {cyclic(), block()});
    const auto gf = ghosts<2>(1);
    const auto src = filled_storage(StorageLayout<2>::make(from, comm.rank(), gf));
    const auto dst = filled_storage(StorageLayout<2>::make(to, comm.rank(), no_ghosts<2>()));
    expect_all_algorithms_agree(comm, redistribution_schedule(from, gf, to, no_ghosts<2>(), comm.rank()), src, dst,
                                false);
  }
  // Random pairs of distributions (every kind, empty ranks included).
  std::mt19937_64 rng(4242);
  for (int k = 0; k < 12; ++k) {
    const auto domain = random_domain<2>(rng, 20);
    const auto from = random_distribution<2>(rng, domain, comm.size(), false);
    const auto to = random_distribution<2>(rng, domain, comm.size(), false);
    std::ostringstream what;
    what << "case " << k << ": " << from << " -> " << to;
    SCOPED_TRACE(what.str());
    const auto src = filled_storage(StorageLayout<2>::make(from, comm.rank(), no_ghosts<2>()));
    const auto dst = filled_storage(StorageLayout<2>::make(to, comm.rank(), no_ghosts<2>()));
    expect_all_algorithms_agree(comm, redistribution_schedule(from, no_ghosts<2>(), to, no_ghosts<2>(), comm.rank()),
                                src, dst, false);
  }
}

TEST(MoveAlgorithm, TransposeMatchesPointToPoint) {
  Communicator comm(MPI_COMM_WORLD);
  for (index_t n : {index_t{8}, index_t{64}}) {
    const Box<2> box({0, 0}, {n, n});
    const Distribution<2> from(box, ProcGrid<2>::automatic(comm.size(), {n, n}, {0, 1}), {block(), block()});
    const Distribution<2> to(box, ProcGrid<2>::automatic(comm.size(), {n, n}, {0, 1}), {block(), block()});
    const auto src = filled_storage(StorageLayout<2>::make(from, comm.rank(), no_ghosts<2>()));
    const auto dst = filled_storage(StorageLayout<2>::make(to, comm.rank(), no_ghosts<2>()));
    const auto s = section_move_schedule(from, no_ghosts<2>(), box, to, no_ghosts<2>(), box, {1, 0}, comm.rank());
    expect_all_algorithms_agree(comm, s, src, dst, false);
  }
}

TEST(MoveAlgorithm, AutomaticIsTheSameOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = blocks(comm, 40);
  const Distribution<2> cyc(dist.domain(), dist.grid(), {cyclic(), cyclic()});
  const auto redistribution = redistribution_schedule(dist, no_ghosts<2>(), cyc, no_ghosts<2>(), comm.rank());
  for (const auto& s : {halo_schedule(dist, ghosts<2>(1), comm.rank()), redistribution}) {
    Mover m(comm, s, sizeof(double), nullptr, MoveAlgorithm::automatic);
    const int mine = static_cast<int>(m.algorithm());
    int lo = mine, hi = mine;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm.raw());
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm.raw());
    EXPECT_EQ(lo, hi);
    if (environment_move_algorithm() != MoveAlgorithm::automatic) continue;
    if (comm.size() < Mover::kAutomaticMinRanks) {
      EXPECT_EQ(m.algorithm(), MoveAlgorithm::point_to_point);
    } else if (s == redistribution) {
      // block -> cyclic of 40 x 40: every rank sends to every other, messages of a few hundred bytes
      // (dense and small): the rule above kAutomaticMinRanks ranks picks the collective
      // (run on 9 and 12 ranks by the tests mpi.exchange.automatic.np9/np12).
      EXPECT_EQ(m.algorithm(), MoveAlgorithm::alltoallv);
    }
  }
}

TEST(MoveAlgorithm, DifferentRequestsOnDifferentRanksThrowEverywhere) {
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  const auto s = halo_schedule(blocks(comm, 12), ghosts<2>(1), comm.rank());
  const auto mine = comm.rank() == 0 ? MoveAlgorithm::alltoallv : MoveAlgorithm::neighborhood;
  EXPECT_THROW(Mover(comm, s, sizeof(double), nullptr, mine), Error);
}

// move_algorithm_available(neighborhood) must match what this MPI's MPI_Neighbor_alltoallw really
// does: rank r sends r+1 to rank r+1 over a distributed graph (a ring without the wrap-around, so
// rank 0 receives from nobody and the last rank sends to nobody). Fails when a library's defect is
// fixed, or appears, and the rule in src/exchange/mpi_library.cpp has not caught up.
TEST(MoveAlgorithm, NeighborhoodAvailabilityMatchesTheLibrary) {
  // Where the library's MPI_Neighbor_alltoallw delivers wrong data, the neighborhood algorithm must
  // be unavailable. MPICH 4.0.2's defect (docs/mpi.md) does not show every time: in one test binary
  // it was wrong on 2 and 4 ranks and right on 3 once other tests had run before it (ASan build,
  // after tests were added to that binary), so the exchange runs several times, and a library that
  // was right every time while the rule (by version) says unavailable is reported, not failed.
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  const int rank = comm.rank(), last = comm.size() - 1;
  const int from = rank - 1, to = rank + 1;
  const int in = rank > 0 ? 1 : 0, out = rank < last ? 1 : 0;
  MPI_Comm graph = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Dist_graph_create_adjacent(comm.raw(), in, &from, MPI_UNWEIGHTED, out, &to, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &graph),
            MPI_SUCCESS);
  int right_here = 1;
  for (int attempt = 0; attempt < 5; ++attempt) {
    double sent = rank + 1.0 + 10.0 * attempt, received = -1.0;
    // Arrays of one element even for a degree of 0 (MPICH 4.0.2 also crashes on null arrays there).
    int counts[1] = {1};
    MPI_Aint displacements[1] = {0};
    MPI_Datatype types[1] = {MPI_DOUBLE};
    ASSERT_EQ(MPI_Neighbor_alltoallw(&sent, counts, displacements, types, &received, counts, displacements, types,
                                     graph),
              MPI_SUCCESS);
    if (rank > 0 && received != static_cast<double>(rank) + 10.0 * attempt) right_here = 0;
  }
  MPI_Comm_free(&graph);
  int right_everywhere = 0;
  MPI_Allreduce(&right_here, &right_everywhere, 1, MPI_INT, MPI_MIN, comm.raw());
  const bool available = move_algorithm_available(MoveAlgorithm::neighborhood);
  if (right_everywhere == 0) {
    EXPECT_FALSE(available) << "MPI_Neighbor_alltoallw delivered wrong data, yet the neighborhood algorithm is available";
  } else if (!available && rank == 0) {
    std::printf("note: MPI_Neighbor_alltoallw was right 5 times here; the neighborhood algorithm stays off for this "
                "library version (docs/mpi.md)\n");
  }
}

TEST(MoveAlgorithm, NamesParseAndBadValuesAreNamed) {
  for (MoveAlgorithm a : kAlgorithms) EXPECT_EQ(parse_move_algorithm(to_string(a)), a);
  EXPECT_EQ(parse_move_algorithm("p2p"), MoveAlgorithm::point_to_point);
  EXPECT_EQ(parse_move_algorithm("neighbourhood"), MoveAlgorithm::neighborhood);
  try {
    (void)parse_move_algorithm("alltoall", "here");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("alltoall"), std::string::npos) << e.what();
  }
  Communicator comm(MPI_COMM_WORLD);
  EXPECT_THROW(Mover(comm, halo_schedule(blocks(comm, 8), ghosts<2>(1), comm.rank()), 8, nullptr,
                     static_cast<MoveAlgorithm>(17)),
               Error);
}

TEST(MoveAlgorithm, BadEnvironmentValueIsAnErrorNamingIt) {
  const char* old = std::getenv("TESSERA_MOVE_ALGORITHM");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  setenv("TESSERA_MOVE_ALGORITHM", "bogus-algo", 1);
  try {
    (void)detail::read_move_algorithm_environment();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    const std::string what = e.what();
    EXPECT_NE(what.find("TESSERA_MOVE_ALGORITHM"), std::string::npos) << what;
    EXPECT_NE(what.find("bogus-algo"), std::string::npos) << what;
  }
  setenv("TESSERA_MOVE_ALGORITHM", "alltoallv", 1);
  EXPECT_EQ(detail::read_move_algorithm_environment(), MoveAlgorithm::alltoallv);
  if (saved)
    setenv("TESSERA_MOVE_ALGORITHM", saved->c_str(), 1);
  else
    unsetenv("TESSERA_MOVE_ALGORITHM");
}

// Run by ctest as mpi.exchange.bad_move_algorithm_env with TESSERA_MOVE_ALGORITHM=bogus: every
// mover made with `automatic` throws, on every rank, naming the variable.
TEST(MoveAlgorithmEnvironment, BogusValueMakesMoverConstructionThrow) {
  const char* v = std::getenv("TESSERA_MOVE_ALGORITHM");
  if (v == nullptr || std::string(v) != "bogus") GTEST_SKIP() << "run with TESSERA_MOVE_ALGORITHM=bogus";
  Communicator comm(MPI_COMM_WORLD);
  const auto s = halo_schedule(blocks(comm, 8), ghosts<2>(1), comm.rank());
  for (int i = 0; i < 2; ++i) {  // also on the second try: a bad value is never cached
    try {
      Mover m(comm, s, sizeof(double));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("TESSERA_MOVE_ALGORITHM"), std::string::npos) << e.what();
    }
  }
  Mover forced(comm, s, sizeof(double), nullptr, MoveAlgorithm::point_to_point);  // an explicit choice still works
  EXPECT_EQ(forced.algorithm(), MoveAlgorithm::point_to_point);
}

// --- FusedMover -------------------------------------------------------------------------------

TEST(FusedMover, MatchesOneMoverPerArray) {
  Communicator comm(MPI_COMM_WORLD);
  for (index_t n : {index_t{9}, index_t{70}}) {
    const auto dist = blocks(comm, n);
    const auto g = ghosts<2>(2).periodic_along({true, true});
    const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
    const auto s = halo_schedule(dist, g, comm.rank());
    const auto a = filled_storage(layout);
    std::vector<float> b(a.size());
    std::vector<std::int16_t> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      b[i] = static_cast<float>(a[i]) * 0.5f;
      c[i] = static_cast<std::int16_t>(static_cast<std::int64_t>(a[i]) % 30000);
    }
    auto ra = a;
    auto rb = b;
    auto rc = c;
    Mover(comm, s, sizeof(double)).run(ra.data(), ra.data());
    Mover(comm, s, sizeof(float)).run(rb.data(), rb.data());
    Mover(comm, s, sizeof(std::int16_t)).run(rc.data(), rc.data());
    FusedMover fused(comm, s, {sizeof(double), sizeof(float), sizeof(std::int16_t)});
    const auto allocations = fused.stats().buffer_allocations;
    auto fa = a;
    auto fb = b;
    auto fc = c;
    const std::array<void*, 3> dst{fa.data(), fb.data(), fc.data()};
    const std::array<const void*, 3> src{fa.data(), fb.data(), fc.data()};
    fused.run(src, dst);
    fused.start(src, dst);
    while (!fused.test()) {
    }
    EXPECT_EQ(fa, ra);
    EXPECT_EQ(fb, rb);
    EXPECT_EQ(fc, rc);
    EXPECT_EQ(fused.stats().buffer_allocations, allocations);
    EXPECT_EQ(fused.stats().messages_sent, 2 * s->sends.size()) << "one message per peer for all three arrays";
    EXPECT_THROW(fused.start(std::span<const void* const>(src.data(), 2), dst), Error);
  }
}

TEST(FusedMover, OneArrayIsThePointToPointMover) {
  // One binding: the same channels as the Mover (in place and datatype where it has them).
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = blocks(comm, 72);
  const auto g = ghosts<2>(1).periodic_along({true, true});
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  const auto s = halo_schedule(dist, g, comm.rank());
  auto want = filled_storage(layout), got = want;
  Mover single(comm, s, sizeof(double), nullptr, MoveAlgorithm::point_to_point);
  single.run(want.data(), want.data());
  FusedMover fused(comm, s, {sizeof(double)});
  fused.run(std::array<const void*, 1>{got.data()}, std::array<void*, 1>{got.data()});
  EXPECT_EQ(got, want);
  EXPECT_EQ(fused.stats().buffer_allocations, single.stats().buffer_allocations);
  EXPECT_EQ(fused.stats().bytes_sent, single.stats().bytes_sent);
}

TEST(FusedMover, AccumulatesAndRedistributes) {
  Communicator comm(MPI_COMM_WORLD);
  const auto dist = blocks(comm, 14);
  const auto g = ghosts<2>(1).periodic_along({true, true});
  const auto layout = StorageLayout<2>::make(dist, comm.rank(), g);
  auto data = filled_storage(layout);
  for_each_stored(layout, [&](const PatchLayout<2>&, const Point<2>& p, index_t off, bool owned) {
    if (!owned) data[static_cast<std::size_t>(off)] = static_cast<double>(p[0] + 2 * p[1]);
  });
  const auto s = halo_schedule(dist, g, comm.rank(), nullptr, true, CombineOp::add);
  const CombineFn add = combine_function<double>(CombineOp::add);
  auto ref = data;
  Mover(comm, s, sizeof(double), add).run(ref.data(), ref.data());
  auto x = data, y = data;
  FusedMover fused(comm, s, {sizeof(double), sizeof(double)}, {add, add});
  fused.run(std::array<const void*, 2>{x.data(), y.data()}, std::array<void*, 2>{x.data(), y.data()});
  EXPECT_EQ(x, ref);
  EXPECT_EQ(y, ref);
  // Redistribution (different source and destination arrays).
  const Distribution<2> to(dist.domain(), dist.grid(), {cyclic(), block()});
  const auto rs = redistribution_schedule(dist, g, to, no_ghosts<2>(), comm.rank());
  const auto src = filled_storage(layout);
  const auto dst0 = filled_storage(StorageLayout<2>::make(to, comm.rank(), no_ghosts<2>()));
  auto want = dst0;
  Mover(comm, rs, sizeof(double)).run(src.data(), want.data());
  auto d1 = dst0, d2 = dst0;
  FusedMover(comm, rs, {8, 8})
      .run(std::array<const void*, 2>{src.data(), src.data()}, std::array<void*, 2>{d1.data(), d2.data()});
  EXPECT_EQ(d1, want);
  EXPECT_EQ(d2, want);
  EXPECT_THROW(FusedMover(comm, rs, {}), Error);
  EXPECT_THROW(FusedMover(comm, rs, {8, 0}), Error);
}

}  // namespace
}  // namespace tessera
