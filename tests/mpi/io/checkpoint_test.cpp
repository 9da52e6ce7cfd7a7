// Checkpoint and restart (tessera::io::save / load): round trips over random distributions of every
// kind (skeleton and empty ranks, cyclic, block-cyclic with a partial block, irregular, Morton
// patches) and both storage orders, each file checked against a serial reference read with plain HDF5; restarts on other
// rank counts (sub-communicators) and other distributions; attributes; every documented error, the
// same on every rank; the XDMF sidecar; files written by other programs; leftovers of failures.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "checkpoint_support.hpp"
#include "engine_checks.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;
namespace io = tessera::io;

/// Rank 0 checks the dataset `name` of `path` with plain serial HDF5: the domain's shape, and the
/// element of every global point p at row-major position p - lo holds `pattern(p, salt)`.
template <class T, std::size_t N>
void expect_file_holds(const Communicator& comm, const std::string& path, const std::string& name, const Box<N>& box,
                       std::uint64_t salt) {
  comm.barrier();
  if (comm.rank() != 0) return;
  const auto file = read_serially<T>(path, name);
  ASSERT_TRUE(file.ok) << "plain HDF5 cannot read dataset '" << name << "' of " << path;
  std::vector<hsize_t> shape;
  for (std::size_t d = 0; d < N; ++d) shape.push_back(static_cast<hsize_t>(extent(box, d)));
  ASSERT_EQ(file.shape, shape);
  std::size_t k = 0;
  for (const auto& p : points(box)) {
    ASSERT_TRUE(same_bits(file.values[k], pattern<T>(p, salt))) << "file element " << k << " (point " << p << ")";
    ++k;
  }
}

template <class T, std::size_t N>
void fill_salted(DistArray<T, N>& a, std::uint64_t salt) {
  a.for_each_owned([&](const Point<N>& p, T& x) { x = pattern<T>(p, salt); });
}

template <class T, std::size_t N>
void expect_holds(const DistArray<T, N>& a, std::uint64_t salt) {
  a.for_each_owned([&](const Point<N>& p, const T& x) {
    ASSERT_TRUE(same_bits(x, pattern<T>(p, salt))) << "element " << p << " differs from the saved one";
  });
}

/// Saves arrays over random distributions, checks the file serially, loads into arrays over
/// another random distribution with other ghosts: owned elements equal bit for bit, ghosts untouched.
/// The saved arrays are stored in `from_order`, the loaded ones in `to_order` (the file is row-major
/// either way).
template <class T, std::size_t N>
void round_trips(int cases, index_t max_extent, std::uint64_t seed, StorageOrder from_order = StorageOrder::row_major,
                 StorageOrder to_order = StorageOrder::row_major) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  std::mt19937_64 rng(seed + N);
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto g_from = random_ghosts<N>(rng).stored(from_order), g_to = random_ghosts<N>(rng).stored(to_order);
    const auto from = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g_from));
    const auto to = any_distribution<N>(rng, box, comm.size(), ghosted_dims(g_to));
    std::ostringstream what;
    what << "case " << k << ": " << from << " -> " << to << " over " << box;
    SCOPED_TRACE(what.str());
    const std::string path = dir.file("case" + std::to_string(k) + ".h5");
    const std::uint64_t salt = seed * 1000 + static_cast<std::uint64_t>(k);
    {
      Domain<N> dom(comm, from);
      DistArray<T, N> a(dom, g_from);
      fill_salted(a, salt);
      io::save(path, {{"case", std::int64_t{k}}}, io::named("a", a));
    }
    expect_file_holds<T>(comm, path, "a", box, salt);
    Domain<N> dom(comm, to);
    DistArray<T, N> b(dom, g_to);
    const T sentinel = pattern<T>(Point<N>::filled(-99), salt);
    for (T& x : b.storage()) x = sentinel;
    const io::Attributes at = io::load(path, io::named("a", b));
    expect_holds(b, salt);
    for_each_stored(b.layout(), [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
      if (!owned) {
        ASSERT_TRUE(same_bits(b.storage()[static_cast<std::size_t>(offset)], sentinel)) << "ghost " << p;
      }
    });
    ASSERT_EQ(at.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(at.at("case")), k);
  }
}

TEST(Checkpoint, RoundTripDouble1D) { round_trips<double, 1>(12, 30, 1); }
TEST(Checkpoint, RoundTripDouble2D) { round_trips<double, 2>(16, 11, 2); }
TEST(Checkpoint, RoundTripDouble3D) { round_trips<double, 3>(12, 6, 3); }
TEST(Checkpoint, RoundTripFloat2D) { round_trips<float, 2>(8, 11, 4); }
TEST(Checkpoint, RoundTripInt32_3D) { round_trips<std::int32_t, 3>(8, 6, 5); }
TEST(Checkpoint, RoundTripInt64_2D) { round_trips<std::int64_t, 2>(8, 11, 6); }
TEST(Checkpoint, RoundTripComplex3D) { round_trips<std::complex<double>, 3>(8, 6, 7); }
// Column-major arrays: saved and loaded in either order, the file always global row-major.
TEST(Checkpoint, RoundTripColumnMajorToRowMajor2D) {
  round_trips<double, 2>(12, 11, 21, StorageOrder::column_major, StorageOrder::row_major);
}
TEST(Checkpoint, RoundTripRowMajorToColumnMajor3D) {
  round_trips<double, 3>(10, 6, 22, StorageOrder::row_major, StorageOrder::column_major);
}
TEST(Checkpoint, RoundTripColumnMajorComplex1D) {
  round_trips<std::complex<double>, 1>(8, 30, 23, StorageOrder::column_major, StorageOrder::column_major);
}
TEST(Checkpoint, RoundTripColumnMajorInt32_2D) {
  round_trips<std::int32_t, 2>(8, 11, 24, StorageOrder::column_major, StorageOrder::column_major);
}
TEST(Checkpoint, RoundTripUint8_2D) { round_trips<std::uint8_t, 2>(6, 11, 8); }

// The kinds a random draw may miss, each saved and loaded explicitly: block-cyclic with a partial
// last block (two hyperslabs per axis), irregular runs, and Morton boxes (several patches per rank,
// staged in file order).
TEST(Checkpoint, EveryDistributionKindRoundTrips) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> box({-2, 3}, {15, 16});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {17, 13});
  std::vector<int> owners(13);
  for (std::size_t i = 0; i < owners.size(); ++i) owners[i] = static_cast<int>((i * 7 + i / 3) % grid.extent(1));
  const std::vector<std::pair<std::string, Distribution<2>>> dists = {
      {"block", Distribution<2>(box, grid, {block(), block()})},
      {"block_cyclic", Distribution<2>(box, grid, {block_cyclic(4, grid.extent(0) > 1 ? 1 : 0), block_cyclic(3)})},
      {"cyclic_irregular", Distribution<2>(box, grid, {cyclic(), irregular(owners)})},
      {"morton", Distribution<2>::user(std::make_shared<tessera_examples::MortonDistribution<2>>(box, comm.size()))},
  };
  for (std::size_t i = 0; i < dists.size(); ++i)
    for (std::size_t j = 0; j < dists.size(); ++j) {
      SCOPED_TRACE(dists[i].first + " -> " + dists[j].first);
      const std::string path = dir.file(dists[i].first + "-" + dists[j].first + ".h5");
      const std::uint64_t salt = 40 + i * 10 + j;
      {
        Domain<2> dom(comm, dists[i].second);
        DistArray<double, 2> u(dom);
        DistArray<std::int32_t, 2> n(dom);
        fill_salted(u, salt);
        fill_salted(n, salt + 1);
        io::save(path, {}, io::named("u", u), io::named("n", n));
      }
      expect_file_holds<double>(comm, path, "u", box, salt);
      expect_file_holds<std::int32_t>(comm, path, "n", box, salt + 1);
      Domain<2> dom(comm, dists[j].second);
      DistArray<std::int32_t, 2> n(dom);  // declared in another order than saved: names decide
      DistArray<double, 2> u(dom);
      (void)io::load(path, io::named("n", n), io::named("u", u));
      expect_holds(u, salt);
      expect_holds(n, salt + 1);
    }
}

/// The ranks [0, count) of world in a new communicator; MPI_COMM_NULL on the others.
MPI_Comm first_ranks(int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < count ? 0 : MPI_UNDEFINED, rank, &out);
  return out;
}

// AMP's remap through the file: save on W ranks with one distribution, restart on R ranks with
// another (R and W from 1 to the world's size), several arrays and types in one file.
TEST(Checkpoint, RestartsOnOtherRankCountsAndDistributions) {
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Communicator all(MPI_COMM_WORLD);
  ScratchDir dir(all.raw());
  const Box<3> box({0, 0, 0}, {9, 7, 5});
  std::set<int> counts{1, (world + 1) / 2, world};
  for (const int writers : counts)
    for (const int readers : counts) {
      SCOPED_TRACE("save on " + std::to_string(writers) + " ranks (block), load on " + std::to_string(readers) +
                   " ranks (cyclic, block_cyclic(2), block)");
      const std::string path = dir.file("w" + std::to_string(writers) + "r" + std::to_string(readers) + ".h5");
      const std::uint64_t salt = 100 + static_cast<std::uint64_t>(writers * 10 + readers);
      if (MPI_Comm sub = first_ranks(writers); sub != MPI_COMM_NULL) {
        {
          Communicator comm(sub);
          const auto grid = ProcGrid<3>::automatic(comm.size(), {9, 7, 5});
          Domain<3> dom(comm, Distribution<3>(box, grid, {block(), block(), block()}));
          DistArray<double, 3> u(dom, ghosts<3>(1));
          DistArray<std::complex<double>, 3> z(dom);
          DistArray<std::int64_t, 3> id(dom);
          fill_salted(u, salt);
          fill_salted(z, salt + 1);
          fill_salted(id, salt + 2);
          io::save(path, {{"iteration", std::int64_t{1234}}, {"time", 0.125}}, io::named("u", u),
                   io::named("z", z), io::named("id", id));
        }
        MPI_Comm_free(&sub);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      if (MPI_Comm sub = first_ranks(readers); sub != MPI_COMM_NULL) {
        {
          Communicator comm(sub);
          const auto grid = ProcGrid<3>::automatic(comm.size(), {9, 7, 5});
          Domain<3> dom(comm, Distribution<3>(box, grid, {cyclic(), block_cyclic(2), block()}));
          DistArray<std::int64_t, 3> id(dom);
          DistArray<double, 3> u(dom);
          DistArray<std::complex<double>, 3> z(dom);
          const auto at = io::load(path, io::named("u", u), io::named("id", id), io::named("z", z));
          expect_holds(u, salt);
          expect_holds(z, salt + 1);
          expect_holds(id, salt + 2);
          EXPECT_EQ(std::get<std::int64_t>(at.at("iteration")), 1234);
          EXPECT_EQ(std::get<double>(at.at("time")), 0.125);
        }
        MPI_Comm_free(&sub);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
}

TEST(Checkpoint, AttributesAndMetadataAreInTheFile) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> box({-3, 2}, {9, 12});
  const Distribution<2> dist(box, ProcGrid<2>::automatic(comm.size(), {12, 10}), {block(), cyclic()});
  Domain<2> dom(comm, dist);
  const auto g = GhostSpec<2>::sides({1, 0}, {2, 0}).periodic_along({true, false});
  DistArray<float, 2> f(dom, g);
  fill_salted(f, 7);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const io::Attributes attrs{{"iteration", std::int64_t{-5}},
                             {"big", std::numeric_limits<std::int64_t>::max()},
                             {"time", -0.0},
                             {"dt", 1e-300},
                             {"nan", nan}};
  const std::string path = dir.file("meta.h5");
  io::save(path, attrs, io::named("f", f));
  const auto back = io::load(path, io::named("f", f));
  ASSERT_EQ(back.size(), attrs.size());
  for (const auto& [name, value] : attrs) {
    ASSERT_EQ(back.at(name).index(), value.index()) << name;
    std::visit([&](const auto& v) { EXPECT_TRUE(same_bits(v, std::get<std::decay_t<decltype(v)>>(back.at(name)))) << name; },
               value);
  }
  comm.barrier();
  if (comm.rank() == 0) {
    std::ostringstream printed_dist, printed_ghosts;
    printed_dist << dist;
    printed_ghosts << g;
    EXPECT_EQ(read_string_attribute_serially(path, "/", "tessera_format"), "tessera-checkpoint 1");
    EXPECT_EQ(read_string_attribute_serially(path, "/", "tessera_distribution"), printed_dist.str());
    EXPECT_EQ(read_int64_attribute_serially(path, "/", "tessera_domain_lo"), (std::vector<std::int64_t>{-3, 2}));
    EXPECT_EQ(read_int64_attribute_serially(path, "/", "tessera_grid_shape"),
              (std::vector<std::int64_t>{dist.grid().extent(0), dist.grid().extent(1)}));
    EXPECT_EQ(read_int64_attribute_serially(path, "/", "tessera_ranks"), std::vector<std::int64_t>{comm.size()});
    EXPECT_EQ(read_string_attribute_serially(path, "/f", "element_type"), "float32");
    EXPECT_EQ(read_string_attribute_serially(path, "/f", "ghosts"), printed_ghosts.str());
    EXPECT_EQ(read_int64_attribute_serially(path, "/f", "ghost_lower"), (std::vector<std::int64_t>{1, 0}));
    EXPECT_EQ(read_int64_attribute_serially(path, "/f", "ghost_upper"), (std::vector<std::int64_t>{2, 0}));
  }
}

// A file written by another program (here: plain serial HDF5, as h5py would) loads if its
// datasets have the arrays' shapes and types; it has no tessera attributes to check.
TEST(Checkpoint, LoadsAFileWrittenWithoutTessera) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const std::string path = dir.file("plain.h5");
  const Box<2> box({0, 0}, {7, 5});
  if (comm.rank() == 0) {
    std::vector<std::int64_t> values;
    for (const auto& p : points(box)) values.push_back(pattern<std::int64_t>(p, 9));
    const hsize_t dims[2] = {7, 5};
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t dset = H5Dcreate2(file, "field", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(dset);
    H5Sclose(space);
    H5Fclose(file);
  }
  comm.barrier();
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {7, 5}), {cyclic(), block()}));
  DistArray<long, 2> a(dom);
  const auto at = io::load(path, io::named("field", a));
  EXPECT_TRUE(at.empty());
  a.for_each_owned([&](const Point<2>& p, const long& x) { ASSERT_EQ(x, pattern<std::int64_t>(p, 9)) << p; });
}

TEST(Checkpoint, MismatchesAreTheSameErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> box({0, 0}, {6, 8});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {6, 8});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  DistArray<double, 2> u(dom);
  DistArray<double, 2> v(dom);
  fill_salted(u, 3);
  const std::string path = dir.file("ck.h5");
  io::save(path, {}, io::named("u", u));

  Domain<2> wider(comm, Distribution<2>(Box<2>({0, 0}, {6, 9}), grid, {block(), block()}));
  DistArray<double, 2> w(wider);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named("u", w)); }, ErrorCode::mismatch,
                               "has shape (6, 8) but the array's domain has extents (6, 9)");
  Domain<2> shifted(comm, Distribution<2>(Box<2>({1, 0}, {7, 8}), grid, {block(), block()}));
  DistArray<double, 2> s(shifted);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named("u", s)); }, ErrorCode::mismatch,
                               "lower corner is (0, 0) but the arrays' domain starts at (1, 0)");
  DistArray<float, 2> f(dom);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named("u", f)); }, ErrorCode::mismatch,
                               "holds float64 but the array's elements are float32");
  DistArray<std::complex<double>, 2> z(dom);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named("u", z)); }, ErrorCode::mismatch,
                               "holds float64 but the array's elements are complex128");
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named("u", u), io::named("rho", v)); },
                               ErrorCode::mismatch, "has no dataset 'rho' (it holds: u)");
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(dir.file("missing.h5"), io::named("u", u)); },
                               ErrorCode::io, "H5Fopen of '" + dir.file("missing.h5") + "' failed");
  // A failed load reads nothing: u still holds what was saved.
  expect_holds(u, 3);
}

TEST(Checkpoint, BadArgumentsAreTheSameErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<1> box({0}, {10});
  Domain<1> dom(comm, Distribution<1>(box, ProcGrid<1>::automatic(comm.size(), {10}), {block()}));
  Domain<1> other(comm, Distribution<1>(box, ProcGrid<1>::automatic(comm.size(), {10}), {block()}));
  DistArray<double, 1> a(dom), b(dom), c(other);
  const std::string path = dir.file("args.h5");
  const auto invalid = ErrorCode::invalid_argument;
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {}, io::named("", a)); }, invalid,
                               "argument 'name' = \"\" is not a dataset name");
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {}, io::named("a/b", a)); }, invalid,
                               "must not contain '/'");
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {}, io::named("x", a), io::named("x", b)); }, invalid,
                               "\"x\" is given to two arrays");
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {{"tessera_ranks", 1.0}}, io::named("a", a)); },
                               invalid, "\"tessera_ranks\" starts with \"tessera_\"");
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {}, io::named("a", a), io::named("c", c)); }, invalid,
                               "array 'c' is over another domain than array 'a'");
  expect_same_error_everywhere(comm.raw(), [&] { io::save("", {}, io::named("a", a)); }, invalid,
                               "argument 'path'");
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named(".", a)); }, invalid,
                               "argument 'name' = \".\"");
  // Ranks that disagree on a collective call's arguments get one error, not a hang.
  if (comm.size() > 1) {
    expect_same_error_everywhere(comm.raw(),
                                 [&] { io::save(path, {}, io::named(comm.rank() == 1 ? "odd" : "a", a)); },
                                 ErrorCode::mismatch, "rank 1 passed another path, other dataset names");
    // ... and the message says which rank failed when not every rank did.
    expect_same_error_everywhere(comm.raw(),
                                 [&] { io::save(path, {}, io::named(comm.rank() == 1 ? "odd" : "a", a)); },
                                 ErrorCode::mismatch,
                                 tessera::detail::concat("(on rank 1; 1 of ", comm.size(), " ranks failed)"));
  }
  // The crash hook's variable is checked too: a typo must not silently disable a crash test.
  setenv("TESSERA_TEST_ABORT_IN_SAVE", "after_dat", 1);
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {}, io::named("a", a)); }, invalid,
                               "argument 'TESSERA_TEST_ABORT_IN_SAVE' = after_dat must be after_create");
  setenv("TESSERA_TEST_ABORT_IN_SAVE", "after_data:99", 1);
  expect_same_error_everywhere(comm.raw(), [&] { io::save(path, {}, io::named("a", a)); }, invalid,
                               "= after_data:99 must be");
  unsetenv("TESSERA_TEST_ABORT_IN_SAVE");
  EXPECT_TRUE(dir.files_containing(".tmp-").empty());
  EXPECT_TRUE(dir.files_containing("args.h5").empty());
}

// What a failed or repeated save leaves: the previous checkpoint, no temporary file.
TEST(Checkpoint, SavesReplaceTheFileWholeAndLeaveNoTemporaries) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> box({0, 0}, {8, 8});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {8, 8}), {block(), cyclic()}));
  DistArray<double, 2> u(dom);
  const std::string path = dir.file("ck.h5");
  fill_salted(u, 1);
  io::save(path, {{"iteration", std::int64_t{1}}}, io::named("u", u));
  expect_same_error_everywhere(comm.raw(), [&] { io::save(dir.file("no/such/folder/ck.h5"), {}, io::named("u", u)); },
                               ErrorCode::io, "H5Fcreate of '" + dir.file("no/such/folder/ck.h5.tmp-"));
  fill_salted(u, 2);
  io::save(path, {{"iteration", std::int64_t{2}}}, io::named("u", u));
  comm.barrier();
  if (comm.rank() == 0) {
    EXPECT_TRUE(dir.files_containing(".tmp-").empty()) << "a temporary file was left behind";
    EXPECT_EQ(dir.files_containing("ck.h5").size(), 2u) << "ck.h5 and ck.h5.xmf only";
  }
  expect_file_holds<double>(comm, path, "u", box, 2);
  fill_salted(u, 3);
  EXPECT_EQ(std::get<std::int64_t>(io::load(path, io::named("u", u)).at("iteration")), 2);
  expect_holds(u, 2);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Checkpoint, XdmfSidecarDescribesTwoAndThreeDimensionalGrids) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  {
    const Box<3> box({0, -1, 2}, {4, 5, 9});
    Domain<3> dom(comm, Distribution<3>(box, ProcGrid<3>::automatic(comm.size(), {4, 6, 7}), {block(), block(), block()}));
    DistArray<double, 3> rho(dom);
    DistArray<std::complex<double>, 3> psi(dom);
    DistArray<std::int32_t, 3> flag(dom);
    io::save(dir.file("grid3.h5"), {{"time", 2.5}}, io::named("rho", rho), io::named("psi", psi),
             io::named("flag<&>", flag));
  }
  {
    const Box<2> box({0, 0}, {3, 5});
    Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {3, 5}), {cyclic(), block()}));
    DistArray<float, 2> t(dom);
    io::save(dir.file("grid2.h5"), {}, io::named("t", t));
  }
  const std::string flat = dir.file("flat.h5");
  std::ofstream(flat + ".xmf") << "stale sidecar of an earlier 2-D checkpoint";
  {
    Domain<1> dom(comm, Distribution<1>(Box<1>({0}, {9}), ProcGrid<1>::automatic(comm.size(), {9}), {block()}));
    DistArray<double, 1> line(dom);
    io::save(flat, {}, io::named("line", line));
  }
  comm.barrier();
  if (comm.rank() != 0) return;
  const std::string x3 = read_text(dir.file("grid3.h5.xmf"));
  EXPECT_NE(x3.find("<Time Value=\"2.5\"/>"), std::string::npos) << x3;
  EXPECT_NE(x3.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"4 6 7\""), std::string::npos) << x3;
  EXPECT_NE(x3.find("GeometryType=\"ORIGIN_DXDYDZ\""), std::string::npos) << x3;
  EXPECT_NE(x3.find(">0 -1 2</DataItem>"), std::string::npos) << x3;
  EXPECT_NE(x3.find("NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">grid3.h5:/rho</DataItem>"), std::string::npos)
      << x3;
  EXPECT_NE(x3.find("<Attribute Name=\"flag&lt;&amp;&gt;\""), std::string::npos) << x3;
  EXPECT_NE(x3.find("NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">grid3.h5:/flag&lt;&amp;&gt;<"),
            std::string::npos) << x3;
  EXPECT_EQ(x3.find("<Attribute Name=\"psi\""), std::string::npos) << "complex data is not XDMF" << x3;
  EXPECT_NE(x3.find("<!-- dataset 'psi' (complex128)"), std::string::npos) << x3;
  const std::string x2 = read_text(dir.file("grid2.h5.xmf"));
  // 2-D: a 3-D grid one point thick, so that ParaView shows it in the XY plane.
  EXPECT_NE(x2.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"1 3 5\""), std::string::npos) << x2;
  EXPECT_NE(x2.find("DataItem Dimensions=\"1 3 5\" NumberType=\"Float\" Precision=\"4\""), std::string::npos) << x2;
  EXPECT_NE(x2.find("Precision=\"4\" Format=\"HDF\">grid2.h5:/t<"), std::string::npos) << x2;
  EXPECT_FALSE(std::filesystem::exists(flat + ".xmf")) << "a 1-D checkpoint must not keep a stale sidecar";
}

}  // namespace
}  // namespace tessera
