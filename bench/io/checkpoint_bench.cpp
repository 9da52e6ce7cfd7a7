// Checkpoint bandwidth: tessera::io::save and load against the plain collective HDF5 code an HPC
// user writes by hand for the same bytes (anchors "hdf5-collective-write" and "hdf5-collective-read":
// H5Fcreate/H5Fopen with the MPI-IO driver, one dataset of the domain's shape, each rank writing or
// reading one contiguous slab of rows with a collective H5Dwrite/H5Dread, H5Fclose). tessera does
// more: attributes, a temporary name and a rename, an XDMF sidecar, and a flush to stable storage
// (H5Fflush: MPI_File_sync on every rank) before the rename. The cost of that flush is shown apart
// by a third anchor, "hdf5-collective-write-sync" (the hand-written write plus H5Fflush).
//
// Cases: a 2-D array of doubles, block x block and cyclic x block (strided hyperslabs), and a 3-D
// block array. The anchor always writes row slabs, the layout that suits the file best. Before
// timing, tessera's file is read back by the anchor's reader and the anchor's file by tessera's
// load, each checked element by element: the job aborts unless both codes move the same bytes.
//
// Timing: implementations alternate (the order rotates every repetition), each call timed with
// MPI_Wtime between barriers; the max over ranks is taken per repetition. The files live in --dir
// (default: the system's temporary folder), usually in the page cache: the figures are the cost of
// the software path and of the flush, not of a parallel file system.
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;

constexpr const char* kWriteAnchor = "hdf5-collective-write";
constexpr const char* kWriteSyncAnchor = "hdf5-collective-write-sync";
constexpr const char* kReadAnchor = "hdf5-collective-read";

using tessera::bench::Record;
using tessera::bench::Summary;

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job("bench_checkpoint", message); }

void check_h5(herr_t status, const char* what) {
  if (status < 0) abort_job(std::string(what) + " failed");
}

/// The value of the element at row-major position `k` of the global array.
double value_at(index_t k) { return static_cast<double>(k) * 0.5 + 1.0; }

/// The hand-written anchor: every rank owns rows [first, first + rows) of a row-major global array
/// of `shape` and keeps them in one contiguous buffer.
class PlainHdf5 {
 public:
  PlainHdf5(MPI_Comm comm, std::vector<hsize_t> shape) : comm_(comm), shape_(std::move(shape)) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const auto n0 = static_cast<index_t>(shape_[0]);
    first_ = n0 * rank / size;
    rows_ = n0 * (rank + 1) / size - first_;
    row_elements_ = 1;
    for (std::size_t d = 1; d < shape_.size(); ++d) row_elements_ *= static_cast<index_t>(shape_[d]);
    data_.resize(static_cast<std::size_t>(rows_ * row_elements_));
    for (std::size_t i = 0; i < data_.size(); ++i) data_[i] = value_at(first_ * row_elements_ + static_cast<index_t>(i));
  }

  void write(const std::string& path, bool sync) {
    const hid_t fapl = access();
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) abort_job("H5Fcreate of " + path + " failed");
    const hid_t space = H5Screate_simple(static_cast<int>(shape_.size()), shape_.data(), nullptr);
    const hid_t dset = H5Dcreate2(file, "u", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    transfer(dset, space, true);
    if (sync) check_h5(H5Fflush(file, H5F_SCOPE_GLOBAL), "H5Fflush");
    H5Dclose(dset);
    H5Sclose(space);
    check_h5(H5Fclose(file), "H5Fclose");
    H5Pclose(fapl);
  }

  void read(const std::string& path) {
    const hid_t fapl = access();
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
    if (file < 0) abort_job("H5Fopen of " + path + " failed");
    const hid_t dset = H5Dopen2(file, "u", H5P_DEFAULT);
    const hid_t space = H5Dget_space(dset);
    transfer(dset, space, false);
    H5Sclose(space);
    H5Dclose(dset);
    check_h5(H5Fclose(file), "H5Fclose");
    H5Pclose(fapl);
  }

  /// True if the buffer holds the global values (after a read).
  [[nodiscard]] bool holds_values() const {
    for (std::size_t i = 0; i < data_.size(); ++i)
      if (data_[i] != value_at(first_ * row_elements_ + static_cast<index_t>(i))) return false;
    return true;
  }
  void scramble() { std::fill(data_.begin(), data_.end(), -1.0); }

 private:
  hid_t access() const {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    check_h5(H5Pset_fapl_mpio(fapl, comm_, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    return fapl;
  }
  void transfer(hid_t dset, hid_t file_space, bool write) {
    std::vector<hsize_t> start(shape_.size(), 0), count = shape_;
    start[0] = static_cast<hsize_t>(first_);
    count[0] = static_cast<hsize_t>(rows_);
    check_h5(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
             "H5Sselect_hyperslab");
    const hid_t memory = H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr);
    const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    check_h5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
    double* buf = data_.empty() ? &dummy_ : data_.data();
    check_h5(write ? H5Dwrite(dset, H5T_NATIVE_DOUBLE, memory, file_space, dxpl, buf)
                   : H5Dread(dset, H5T_NATIVE_DOUBLE, memory, file_space, dxpl, buf),
             write ? "H5Dwrite" : "H5Dread");
    H5Pclose(dxpl);
    H5Sclose(memory);
  }

  MPI_Comm comm_;
  std::vector<hsize_t> shape_;
  index_t first_ = 0, rows_ = 0, row_elements_ = 1;
  std::vector<double> data_;
  double dummy_ = 0;
};

struct Case {
  std::string name;
  std::vector<index_t> shape;
  bool cyclic_rows = false;
};

struct Result {
  std::string name;
  double bytes = 0;
  Summary save, write, write_sync, load, read;
};

template <std::size_t N>
Result run_case(const tessera::Communicator& world, const Case& c, const std::string& dir, int reps, int warmup,
                const tessera::bench::Table& table) {
  namespace io = tessera::io;
  tessera::Point<N> extents;
  for (std::size_t d = 0; d < N; ++d) extents[d] = c.shape[d];
  const Box<N> box = Box<N>::from_extents(tessera::Point<N>{}, extents);
  std::array<tessera::DimSpec, N> specs;
  specs.fill(tessera::block());
  if (c.cyclic_rows) specs[0] = tessera::cyclic();
  tessera::Domain<N> dom(world, tessera::Distribution<N>(box, tessera::ProcGrid<N>::automatic(world, extents), specs));
  tessera::DistArray<double, N> u(dom);
  const auto row_major = [&](const tessera::Point<N>& p) {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) k = k * extents[d] + p[d];
    return k;
  };
  const auto fill = [&] { u.for_each_owned([&](const tessera::Point<N>& p, double& x) { x = value_at(row_major(p)); }); };
  const auto check = [&](const char* what) {
    int wrong = 0;
    u.for_each_owned([&](const tessera::Point<N>& p, const double& x) { wrong += x != value_at(row_major(p)); });
    int total = 0;
    check_mpi(MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, world.raw()), "MPI_Allreduce");
    if (total != 0) abort_job(c.name + ": " + what + ": " + std::to_string(total) + " elements differ");
  };
  PlainHdf5 plain(world.raw(), std::vector<hsize_t>(c.shape.begin(), c.shape.end()));
  const std::string ours = dir + "/" + c.name + ".tessera.h5", theirs = dir + "/" + c.name + ".plain.h5";

  // Both codes move the same bytes: each reads what the other wrote.
  fill();
  io::save(ours, {{"iteration", std::int64_t{1}}}, io::named("u", u));
  plain.write(theirs, false);
  plain.scramble();
  plain.read(ours);
  if (!plain.holds_values()) abort_job(c.name + ": the anchor's reader does not find tessera's values");
  u.for_each_owned([](const tessera::Point<N>&, double& x) { x = -1.0; });
  (void)io::load(theirs, io::named("u", u));
  check("tessera's load of the anchor's file");

  std::vector<std::function<void()>> impls{
      [&] { io::save(ours, {{"iteration", std::int64_t{1}}}, io::named("u", u)); },
      [&] { plain.write(theirs, false); },
      [&] { plain.write(theirs, true); },
      [&] { (void)io::load(ours, io::named("u", u)); },
      [&] { plain.read(theirs); },
  };
  const std::vector<Summary> t = tessera::bench::time_alternating(world.raw(), impls, warmup, reps);
  check("tessera's timed loads");
  if (!plain.holds_values()) abort_job(c.name + ": the anchor's timed reads are wrong");
  if (world.rank() == 0)
    for (const auto& f : {ours, theirs, ours + ".xmf"}) std::filesystem::remove(f);

  Result res{c.name, 8.0 * static_cast<double>(volume(box)), t[0], t[1], t[2], t[3], t[4]};
  const auto gbps = [&](const Summary& s) { return res.bytes / s.median / 1e9; };
  table.print_row(res.name, {res.bytes / 1048576.0, gbps(res.save), gbps(res.write), gbps(res.write_sync),
                             res.save.median / res.write.median, res.save.median / res.write_sync.median,
                             gbps(res.load), gbps(res.read), res.load.median / res.read.median});
  return res;
}

std::vector<Record> records_of(const std::vector<Result>& results, int ranks) {
  std::vector<Record> out;
  for (const Result& r : results) {
    out.push_back(Record::timing("checkpoint_save", r.name, ranks, r.save, kWriteAnchor, r.write));
    out.push_back(Record::timing("checkpoint_save", r.name, ranks, r.save, kWriteSyncAnchor, r.write_sync));
    out.push_back(Record::timing("checkpoint_load", r.name, ranks, r.load, kReadAnchor, r.read));
    out.push_back(Record::count("checkpoint_save", r.name, ranks, "bytes", r.bytes));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Checkpoints: tessera::io::save/load against plain collective HDF5 writes and reads"};
  std::vector<index_t> sizes{1024, 4096};
  std::string json, filter, dir = std::filesystem::temp_directory_path().string();
  int reps = 10, warmup = 1;
  app.add_option("--sizes", sizes, "points per dimension of the 2-D cases (3-D: the cube of the same volume)")
      ->delimiter(',')
      ->check(CLI::Range(index_t{2}, index_t{1} << 20));
  app.add_option("--repetitions", reps, "timed runs per case and implementation")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed runs first")->check(CLI::Range(0, 100000));
  app.add_option("--dir", dir, "folder for the files (shared by the ranks)");
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  // One scratch folder per run inside --dir, made on rank 0.
  char scratch[4096] = {};
  if (world.rank() == 0) {
    std::string pattern = dir + "/tessera-bench-checkpoint-XXXXXX";
    if (!mkdtemp(pattern.data())) abort_job("cannot make a folder in " + dir);
    std::strncpy(scratch, pattern.c_str(), sizeof scratch - 1);
  }
  check_mpi(MPI_Bcast(scratch, sizeof scratch, MPI_CHAR, 0, world.raw()), "MPI_Bcast");

  std::vector<Case> cases;
  for (const index_t n : sizes) {
    const auto s = std::to_string(n);
    const auto m = static_cast<index_t>(std::llround(std::cbrt(static_cast<double>(n) * static_cast<double>(n))));
    cases.push_back({"2d-block-" + s, {n, n}, false});
    cases.push_back({"2d-cyclic-rows-" + s, {n, n}, true});
    cases.push_back({"3d-block-" + std::to_string(m), {m, m, m}, false});
  }
  std::erase_if(cases, [&](const Case& c) { return c.name.find(filter) == std::string::npos; });
  if (world.rank() == 0)
    std::printf("checkpoint of doubles, %d ranks, files in %s; GB/s of the median run (max over ranks), and\n"
                "ratios of median times tessera / anchor (save: against the write and the write + sync)\n",
                world.size(), scratch);
  const tessera::bench::Table table(world.rank() == 0, "case", 22,
                                    {{"MiB", 8, 1}, {"save", 7}, {"write", 7}, {"w+sync", 7}, {"ratio", 6},
                                     {"r/sync", 6}, {"load", 7}, {"read", 7}, {"ratio", 6}});
  table.print_header();
  std::vector<Result> results;
  for (const Case& c : cases)
    results.push_back(c.shape.size() == 2 ? run_case<2>(world, c, scratch, reps, warmup, table)
                                          : run_case<3>(world, c, scratch, reps, warmup, table));
  if (!json.empty() && world.rank() == 0)
    tessera::bench::write_json(json, records_of(results, world.size()), "bench_checkpoint");
  world.barrier();
  if (world.rank() == 0) std::filesystem::remove_all(scratch);
  return 0;
}
