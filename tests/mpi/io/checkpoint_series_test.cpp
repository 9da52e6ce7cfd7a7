// Checkpoints you can trust after a crash: per-dataset checksums (the same whatever the
// distribution, equal to a serial reference computed from the file with plain HDF5), damage found
// on load and by verify (a flipped byte, two swapped elements, a truncated file) as the same Error
// on every rank naming the file and the dataset, rotation keeping exactly N checkpoints, and
// latest_valid skipping damaged checkpoints.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>

#include "checkpoint_support.hpp"
#include "morton_distribution/morton_distribution.hpp"
#include "tessera/io/checkpoint_series.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;
namespace io = tessera::io;

template <class T, std::size_t N>
void fill(DistArray<T, N>& a, std::uint64_t salt) {
  a.for_each_owned([&](const Point<N>& p, T& x) { x = pattern<T>(p, salt); });
}

template <class T, std::size_t N>
bool holds(const DistArray<T, N>& a, std::uint64_t salt, const Communicator& comm) {
  int wrong = 0;
  a.for_each_owned([&](const Point<N>& p, const T& x) { wrong += !same_bits(x, pattern<T>(p, salt)); });
  return comm.allreduce(wrong, ReduceOp::sum) == 0;
}

/// The documented checksum (docs/checkpoint.md), computed serially from row-major elements.
template <class T>
std::uint64_t reference_checksum(const std::vector<T>& values) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint64_t word = 0;
    if constexpr (sizeof(T) <= 8) {
      std::memcpy(&word, &values[i], sizeof(T));
    } else {
      std::uint64_t low, high;
      std::memcpy(&low, &values[i], 8);
      std::memcpy(&high, reinterpret_cast<const char*>(&values[i]) + 8, 8);
      word = mix64(low) ^ high;
    }
    sum += mix64(word ^ (static_cast<std::uint64_t>(i) * 0xd6e8feb86659fd93ULL));
  }
  return sum;
}

/// The `tessera_checksum` attribute of dataset `name`, read serially (0 and `found` false if absent).
std::uint64_t stored_checksum(const std::string& path, const std::string& name, bool* found = nullptr) {
  std::uint64_t value = 0;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  const bool exists = H5Aexists(dset, "tessera_checksum") > 0;
  if (exists) {
    const hid_t attr = H5Aopen(dset, "tessera_checksum", H5P_DEFAULT);
    H5Aread(attr, H5T_NATIVE_UINT64, &value);
    H5Aclose(attr);
  }
  if (found) *found = exists;
  H5Dclose(dset);
  H5Fclose(file);
  return value;
}

/// Where the data of dataset `name` start in the file (contiguous layout).
std::uint64_t data_offset(const std::string& path, const std::string& name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  const haddr_t at = H5Dget_offset(dset);
  H5Dclose(dset);
  H5Fclose(file);
  return at;
}

/// Rank 0 xors the byte at `offset` of `path` with `mask`; every rank waits for it.
void flip_byte(const Communicator& comm, const std::string& path, std::uint64_t offset, unsigned char mask = 0xff) {
  if (comm.rank() == 0) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ static_cast<char>(mask));
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(&c, 1);
  }
  comm.barrier();
}

/// Rank 0 swaps the `size`-byte elements at `a` and `b` of the file.
void swap_elements(const Communicator& comm, const std::string& path, std::uint64_t a, std::uint64_t b, std::size_t size) {
  if (comm.rank() == 0) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    std::vector<char> x(size), y(size);
    f.seekg(static_cast<std::streamoff>(a));
    f.read(x.data(), static_cast<std::streamsize>(size));
    f.seekg(static_cast<std::streamoff>(b));
    f.read(y.data(), static_cast<std::streamsize>(size));
    f.seekp(static_cast<std::streamoff>(a));
    f.write(y.data(), static_cast<std::streamsize>(size));
    f.seekp(static_cast<std::streamoff>(b));
    f.write(x.data(), static_cast<std::streamsize>(size));
  }
  comm.barrier();
}

void truncate_to(const Communicator& comm, const std::string& path, double fraction) {
  if (comm.rank() == 0)
    std::filesystem::resize_file(path, static_cast<std::uintmax_t>(fraction * static_cast<double>(std::filesystem::file_size(path))));
  comm.barrier();
}

// The stored checksum equals the serial reference of the file's elements and does not depend on
// the distribution that saved them (nor on the rank count: every np runs the same data).
TEST(Checksum, IsTheDocumentedSumWhateverTheDistribution) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<3> box({-1, 2, 0}, {8, 9, 6});
  const auto grid = ProcGrid<3>::automatic(comm.size(), {9, 7, 6});
  // Block (in place, ghosted), cyclic (strided), Morton boxes (several patches per rank).
  const std::vector<Distribution<3>> dists = {
      Distribution<3>(box, grid, {block(), block(), block()}),
      Distribution<3>(box, grid, {cyclic(), block_cyclic(2), block()}),
      Distribution<3>::user(std::make_shared<tessera_examples::MortonDistribution<3>>(box, comm.size()))};
  std::set<std::uint64_t> seen_u, seen_z;
  for (std::size_t k = 0; k < dists.size(); ++k) {
    const std::string path = dir.file("d" + std::to_string(k) + ".h5");
    Domain<3> dom(comm, dists[k]);
    DistArray<double, 3> u(dom, k == 0 ? ghosts<3>(1) : no_ghosts<3>());
    DistArray<std::complex<double>, 3> z(dom);
    DistArray<std::uint8_t, 3> b(dom);
    fill(u, 5);
    fill(z, 6);
    fill(b, 7);
    io::save(path, {}, io::named("u", u), io::named("z", z), io::named("b", b));
    comm.barrier();
    if (comm.rank() == 0) {
      EXPECT_EQ(stored_checksum(path, "u"), reference_checksum(read_serially<double>(path, "u").values));
      EXPECT_EQ(stored_checksum(path, "z"), reference_checksum(read_serially<std::complex<double>>(path, "z").values));
      EXPECT_EQ(stored_checksum(path, "b"), reference_checksum(read_serially<std::uint8_t>(path, "b").values));
      EXPECT_EQ(read_string_attribute_serially(path, "/u", "tessera_checksum_algorithm"), "tessera-sum64-v1");
      seen_u.insert(stored_checksum(path, "u"));
      seen_z.insert(stored_checksum(path, "z"));
    }
    const io::VerifyReport report = io::verify(comm, path);
    EXPECT_EQ(report.verified, (std::vector<std::string>{"b", "u", "z"}));
    EXPECT_TRUE(report.unchecked.empty());
  }
  if (comm.rank() == 0) {
    EXPECT_EQ(seen_u.size(), 1u);
    EXPECT_EQ(seen_z.size(), 1u);
  }
}

// A flipped byte, two swapped elements, a truncated file: load and verify both fail, on every
// rank, with an io error naming the file (and the dataset when the file opens).
TEST(Checksum, DamageIsTheSameErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> box({0, 0}, {24, 20});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {24, 20}), {block(), cyclic()}));
  DistArray<double, 2> u(dom);
  DistArray<std::int32_t, 2> n(dom);
  fill(u, 11);
  fill(n, 12);
  const auto fresh = [&](const std::string& name) {
    const std::string path = dir.file(name);
    io::save(path, {}, io::named("u", u), io::named("n", n));
    comm.barrier();
    return path;
  };
  const std::string flipped = fresh("flipped.h5");
  flip_byte(comm, flipped, data_offset(flipped, "n") + 4 * 123 + 2);
  for (int pass = 0; pass < 2; ++pass) {
    DistArray<double, 2> v(dom);
    DistArray<std::int32_t, 2> m(dom);
    const auto run = [&] {
      if (pass == 0) (void)io::load(flipped, io::named("u", v), io::named("n", m));
      else (void)io::verify(comm, flipped);
    };
    expect_same_error_everywhere(comm.raw(), run, ErrorCode::io, "dataset 'n' in '" + flipped + "' fails its checksum");
    if (pass == 0) {
      EXPECT_TRUE(holds(v, 11, comm)) << "the undamaged dataset was read";
    }
  }
  const std::string swapped = fresh("swapped.h5");
  const std::uint64_t at = data_offset(swapped, "u");
  swap_elements(comm, swapped, at + 8 * 17, at + 8 * 301, 8);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(swapped, io::named("u", u)); }, ErrorCode::io,
                               "dataset 'u' in '" + swapped + "' fails its checksum");
  const std::string truncated = fresh("truncated.h5");
  truncate_to(comm, truncated, 0.6);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(truncated, io::named("u", u)); }, ErrorCode::io,
                               "'" + truncated + "'");
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::verify(comm, truncated); }, ErrorCode::io,
                               "'" + truncated + "'");
  // The undamaged file still loads, and a flip back repairs the damaged one (the check is exact).
  flip_byte(comm, flipped, data_offset(flipped, "n") + 4 * 123 + 2);
  DistArray<std::int32_t, 2> m(dom);
  (void)io::load(flipped, io::named("n", m));
  EXPECT_TRUE(holds(m, 12, comm));
}

// A file written by another program has no checksum: it loads, and verify lists it as unchecked.
// A box set with holes: the cells no box holds are written as 0 (HDF5's fill value) and counted
// in the checksum as such; the file verifies, loads into an ordinary distribution (holes 0) and
// back into the box set; damage to a cell over a hole, which the box set never reads, is still
// found when loading into the box set (the soak found both: the holes were neither filled nor
// counted).
TEST(Checksum, BoxSetWithHolesCountsItsHolesAsZeros) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> box({0, 0}, {10, 7});
  const Box<2> hole({5, 3}, {10, 7});  // the upper right corner: no box holds it
  const int P = comm.size();
  const BoxSet<2> set(box, {Box<2>({0, 0}, {5, 3}), Box<2>({0, 3}, {5, 7}), Box<2>({5, 0}, {10, 3})},
                      {0, 1 % P, 2 % P}, P);
  Domain<2> holed(comm, Distribution<2>::from_box_set(set));
  DistArray<double, 2> u(holed, ghosts<2>(1));
  fill(u, 21);
  const std::string path = dir.file("holes.h5");
  io::save(path, {}, io::named("u", u));
  comm.barrier();
  std::vector<double> image;  // what the file must hold, row-major
  for_each_point(box, [&](const Point<2>& p) { image.push_back(contains(hole, p) ? 0.0 : pattern<double>(p, 21)); });
  if (comm.rank() == 0) {
    const auto file = read_serially<double>(path, "u").values;
    ASSERT_EQ(file.size(), image.size());
    for (std::size_t k = 0; k < image.size(); ++k) EXPECT_TRUE(same_bits(file[k], image[k])) << "element " << k;
    EXPECT_EQ(stored_checksum(path, "u"), reference_checksum(image));
  }
  EXPECT_EQ(io::verify(comm, path).verified, std::vector<std::string>{"u"});
  Domain<2> whole(comm, Distribution<2>(box, ProcGrid<2>::automatic(P, {10, 7}), {block(), cyclic()}));
  DistArray<double, 2> v(whole);
  (void)io::load(path, io::named("u", v));
  int wrong = 0;
  v.for_each_owned([&](const Point<2>& p, const double& x) {
    wrong += !same_bits(x, contains(hole, p) ? 0.0 : pattern<double>(p, 21));
  });
  EXPECT_EQ(comm.allreduce(wrong, ReduceOp::sum), 0);
  DistArray<double, 2> back(holed);
  (void)io::load(path, io::named("u", back));
  EXPECT_TRUE(holds(back, 21, comm));
  // Element (7, 5) lies over the hole: row-major index 7 * 7 + 5.
  flip_byte(comm, path, data_offset(path, "u") + 8 * (7 * 7 + 5) + 3);
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::load(path, io::named("u", back)); }, ErrorCode::io,
                               "dataset 'u' in '" + path + "' fails its checksum");
}

TEST(BoxTable, ABoxSetCheckpointRestartsFromItsOwnBoxTable) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const int P = comm.size();
  // An L-shape with an island and a hole, several boxes per rank, some ranks with none on 4+ ranks.
  const Box<2> box({-2, 1}, {12, 9});
  const std::vector<Box<2>> boxes{Box<2>({-2, 1}, {3, 4}), Box<2>({-2, 4}, {3, 9}), Box<2>({3, 1}, {8, 4}),
                                  Box<2>({9, 6}, {12, 9}), Box<2>({8, 1}, {12, 2})};
  const std::vector<int> owners{P - 1, 0, 1 % P, 0, 2 % P};
  const BoxSet<2> set(box, boxes, owners, P);
  Domain<2> dom(comm, Distribution<2>::from_box_set(set));
  DistArray<double, 2> u(dom, ghosts<2>(1));
  fill(u, 33);
  const std::string path = dir.file("boxes.h5");
  io::save(path, {}, io::named("u", u));
  comm.barrier();
  // Readable without tessera: [boxes, 2, N] corners and [boxes] owners, the domain beside them.
  if (comm.rank() == 0) {
    const auto corners = read_serially<std::int64_t>(path, "tessera_boxes");
    const auto owned_by = read_serially<std::int64_t>(path, "tessera_box_owners");
    ASSERT_TRUE(corners.ok && owned_by.ok);
    EXPECT_EQ(corners.shape, (std::vector<hsize_t>{boxes.size(), 2, 2}));
    std::vector<std::int64_t> want, want_owners(owners.begin(), owners.end());
    for (const auto& b : boxes) want.insert(want.end(), {b.lo[0], b.lo[1], b.hi[0], b.hi[1]});
    EXPECT_EQ(corners.values, want);
    EXPECT_EQ(owned_by.values, want_owners);
    EXPECT_EQ(read_int64_attribute_serially(path, "/", "tessera_box_domain"), (std::vector<std::int64_t>{-2, 1, 12, 9}));
  }
  // The table is metadata: verify checks the arrays only.
  const auto report = io::verify(comm, path);
  EXPECT_EQ(report.verified, std::vector<std::string>{"u"});
  EXPECT_TRUE(report.unchecked.empty());
  const auto saved = io::saved_boxes<2>(comm, path);
  EXPECT_EQ(saved.domain, box);
  EXPECT_EQ(saved.boxes, boxes);
  EXPECT_EQ(saved.owners, owners);
  EXPECT_EQ(saved.ranks, P);
  EXPECT_EQ(saved.box_set(P).owners(), owners);
  // A restart on the saving rank count keeps the owners; on another count the boxes are assigned
  // afresh by the policy given.
  Domain<2> again(comm, Distribution<2>::from_box_set(saved.box_set(P)));
  DistArray<double, 2> back(again, ghosts<2>(2));
  (void)io::load(path, io::named("u", back));
  EXPECT_TRUE(holds(back, 33, comm));
  const BoxSet<2> other = saved.box_set(P + 1, BoxAssignment::morton);
  EXPECT_EQ(other.comm_size(), P + 1);
  EXPECT_EQ(other.boxes(), boxes);
  EXPECT_EQ(other.owners(), make_box_set<2>(box, boxes, P + 1, BoxAssignment::morton).owners());
  // Not a box set: no table, a clear error on every rank; a table of other dimensions too.
  Domain<2> plain(comm, Distribution<2>(box, ProcGrid<2>::automatic(P, {14, 8}), {block(), block()}));
  DistArray<double, 2> w(plain);
  fill(w, 34);
  const std::string plain_path = dir.file("plain.h5");
  io::save(plain_path, {}, io::named("w", w));
  comm.barrier();
  EXPECT_TRUE(read_serially<std::int64_t>(plain_path, "tessera_boxes").shape.empty());
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::saved_boxes<2>(comm, plain_path); }, ErrorCode::mismatch,
                               "holds no dataset 'tessera_boxes'");
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::saved_boxes<3>(comm, path); }, ErrorCode::mismatch,
                               "2-D boxes, not 3-D");
  expect_same_error_everywhere(comm.raw(), [&] { (void)io::saved_boxes<2>(comm, dir.file("absent.h5")); }, ErrorCode::io,
                               "absent.h5");
}

TEST(Checksum, FilesWithoutChecksumsLoadUnchecked) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const std::string path = dir.file("plain.h5");
  const Box<1> box({0}, {33});
  if (comm.rank() == 0) {
    std::vector<double> values;
    for (const auto& p : points(box)) values.push_back(pattern<double>(p, 3));
    const hsize_t dims[1] = {33};
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t dset = H5Dcreate2(file, "x", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(dset);
    H5Sclose(space);
    H5Fclose(file);
  }
  comm.barrier();
  Domain<1> dom(comm, Distribution<1>(box, ProcGrid<1>::automatic(comm.size(), {33}), {cyclic()}));
  DistArray<double, 1> x(dom);
  (void)io::load(path, io::named("x", x));
  EXPECT_TRUE(holds(x, 3, comm));
  const io::VerifyReport report = io::verify(comm, path);
  EXPECT_TRUE(report.verified.empty());
  EXPECT_EQ(report.unchecked, std::vector<std::string>{"x"});
}

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST(CheckpointSeries, KeepsExactlyTheNewestN) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir scratch(comm.raw());
  const std::string dir = scratch.file("run/ckpt");  // created by the first save
  const Box<2> box({0, 0}, {10, 7});
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::automatic(comm.size(), {10, 7}), {block(), block()}));
  DistArray<double, 2> u(dom);
  io::CheckpointSeries series(dir, 3);
  for (std::int64_t step = 0; step <= 35; step += 5) {
    fill(u, static_cast<std::uint64_t>(step));
    EXPECT_EQ(series.save(step, {{"step", step}}, io::named("u", u)), dir + "/ckpt-" + std::to_string(step) + ".h5");
  }
  EXPECT_EQ(series.steps(comm), (std::vector<std::int64_t>{25, 30, 35}));
  comm.barrier();
  if (comm.rank() == 0) {
    // A stale temporary file of a crashed save, and a file the series does not own.
    std::ofstream(dir + "/ckpt-40.h5.tmp-0123456789abcdef") << "half a file";
    std::ofstream(dir + "/notes.txt") << "mine";
    EXPECT_EQ(names_in(dir), (std::set<std::string>{"ckpt-25.h5", "ckpt-25.h5.xmf", "ckpt-30.h5", "ckpt-30.h5.xmf",
                                                    "ckpt-35.h5", "ckpt-35.h5.xmf", "ckpt-40.h5.tmp-0123456789abcdef",
                                                    "notes.txt"}));
  }
  // A restart from step 25 that saves 28: 30 and 35 belong to the abandoned run and go.
  fill(u, 28);
  series.save(28, {}, io::named("u", u));
  EXPECT_EQ(series.steps(comm), (std::vector<std::int64_t>{25, 28}));
  comm.barrier();
  if (comm.rank() == 0) {
    EXPECT_EQ(names_in(dir), (std::set<std::string>{"ckpt-25.h5", "ckpt-25.h5.xmf", "ckpt-28.h5", "ckpt-28.h5.xmf",
                                                    "notes.txt"}));
  }
  io::CheckpointSeries one(dir, 1);
  one.save(29, {}, io::named("u", u));
  EXPECT_EQ(one.steps(comm), std::vector<std::int64_t>{29});
  expect_same_error_everywhere(comm.raw(), [&] { io::CheckpointSeries bad(dir, 0); }, ErrorCode::invalid_argument,
                               "argument 'keep' = 0 must be >= 1");
  expect_same_error_everywhere(comm.raw(), [&] { io::CheckpointSeries bad("", 2); }, ErrorCode::invalid_argument,
                               "argument 'dir' = \"\" must name a folder");
  expect_same_error_everywhere(comm.raw(), [&] { series.save(-1, {}, io::named("u", u)); },
                               ErrorCode::invalid_argument, "argument 'step' = -1 must be >= 0");
}

TEST(CheckpointSeries, LatestValidSkipsDamagedCheckpoints) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir scratch(comm.raw());
  const std::string dir = scratch.file("series");
  const Box<2> box({0, 0}, {16, 9});
  const auto grid = ProcGrid<2>::automatic(comm.size(), {16, 9});
  Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
  DistArray<double, 2> u(dom, ghosts<2>(1));
  DistArray<std::int64_t, 2> id(dom);
  EXPECT_FALSE(io::latest_valid(comm, dir)) << "no folder yet";
  io::CheckpointSeries series(dir, 3);
  for (std::int64_t step : {10, 20, 30, 40}) {
    fill(u, static_cast<std::uint64_t>(step));
    fill(id, static_cast<std::uint64_t>(step) + 1);
    series.save(step, {{"step", step}}, io::named("u", u), io::named("id", id));
  }
  io::LatestValid found = series.latest_valid(comm);
  ASSERT_TRUE(found);
  EXPECT_EQ(found.step, 40);
  EXPECT_TRUE(found.skipped.empty());

  const std::string p40 = series.path_of(40), p30 = series.path_of(30);
  flip_byte(comm, p40, data_offset(p40, "id") + 8 * 50 + 3, 0x10);
  found = io::latest_valid(comm, dir);
  ASSERT_TRUE(found);
  EXPECT_EQ(found.step, 30);
  EXPECT_EQ(found.path, p30);
  ASSERT_EQ(found.skipped.size(), 1u);
  EXPECT_EQ(found.skipped[0].path, p40);
  EXPECT_NE(found.skipped[0].reason.find("dataset 'id' in '" + p40 + "' fails its checksum"), std::string::npos)
      << found.skipped[0].reason;

  truncate_to(comm, p30, 0.5);
  found = io::latest_valid(comm, dir);
  ASSERT_TRUE(found);
  EXPECT_EQ(found.step, 20);
  ASSERT_EQ(found.skipped.size(), 2u);
  EXPECT_EQ(found.skipped[1].path, p30);
  EXPECT_NE(found.skipped[1].reason.find(p30), std::string::npos) << found.skipped[1].reason;

  // The answer is a restart point: on another distribution, it holds step 20.
  Domain<2> other(comm, Distribution<2>(box, grid, {cyclic(), block_cyclic(2)}));
  DistArray<double, 2> v(other);
  DistArray<std::int64_t, 2> w(other);
  const auto at = io::load(found.path, io::named("u", v), io::named("id", w));
  EXPECT_EQ(std::get<std::int64_t>(at.at("step")), 20);
  EXPECT_TRUE(holds(v, 20, comm));
  EXPECT_TRUE(holds(w, 21, comm));

  truncate_to(comm, series.path_of(20), 0.0);
  found = io::latest_valid(comm, dir);
  EXPECT_FALSE(found);
  EXPECT_EQ(found.step, -1);
  EXPECT_EQ(found.skipped.size(), 3u);  // 20, 30, 40 (10 was pruned when 40 was saved)
}

}  // namespace
}  // namespace tessera
