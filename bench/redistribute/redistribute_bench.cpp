// Redistribution: tessera's Mover over redistribution_schedule against the code an HPC user writes by
// hand (anchor "mpi-pack-alltoallv": pack per destination rank with the ScaLAPACK index formulas,
// MPI_Alltoallv, unpack), and, for block -> block_cyclic(64) when ScaLAPACK was found at configure
// time, against ScaLAPACK's pdgemr2d (anchor "scalapack-pdgemr2d").
//
// Every case moves a 2-D array of doubles from a block x block distribution to another one. All
// codes read the same source array (tessera's StorageLayout: row-major, local extents) and write a
// destination with tessera's compacted layout (row-major array of the local extents, each axis
// indexed by ScaLAPACK's compaction, indxg2l); pdgemr2d writes ScaLAPACK's column-major layout. The
// anchor's destination must be bit-identical to tessera's and hold the right global values; the job
// aborts otherwise, so the timings are of codes that provably do the same work.
//
// Timing: tessera and the pack + MPI_Alltoallv anchor alternate (the order rotates every
// repetition), each redistribution timed with MPI_Wtime between barriers; the max over ranks is
// taken per repetition. pdgemr2d is timed against tessera apart, in blocks (each code's runs back to
// back, bench_timing.hpp's time_in_blocks), never in that rotation: it allocates and frees its
// buffers in every call, and whichever code followed it in a rotation paid for that
// (bench/redistribute-pdgemr2d-experiment.txt).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/allocation_counter.hpp"  // the one TU of bench_redistribute that includes it
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

#ifdef TESSERA_BENCH_HAVE_SCALAPACK
// ScaLAPACK ships no C header: the BLACS C interface and the Fortran routines, declared by hand
// (32-bit integers, as Debian's libscalapack-openmpi is built).
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int icontxt);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, int* desca, double* b, int ib, int jb, int* descb, int ictxt);
}
#endif

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::Schedule;
using tessera::bench::max_over_ranks;
using tessera::bench::summarize;
using tessera::bench::Summary;

constexpr const char* kAnchor = "mpi-pack-alltoallv";
constexpr const char* kScalapack = "scalapack-pdgemr2d";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job("bench_redistribute", message); }

/// One axis of a distribution as written by hand, independently of tessera's DimDistribution: an
/// interval split (block, cut) by its g+1 boundaries, or ScaLAPACK's block-cyclic (cyclic: b = 1)
/// with the usual numroc / indxg2p / indxg2l / indxl2g formulas, source coordinate 0.
struct HandDim {
  index_t n = 0;
  index_t g = 1;
  index_t b = 0;                  // > 0: block-cyclic with blocks of b; 0: interval split
  std::vector<index_t> bounds{};  // interval split: g+1 boundaries

  [[nodiscard]] index_t owner(index_t i) const {  // indxg2p
    if (b > 0) return (i / b) % g;
    return static_cast<index_t>(std::upper_bound(bounds.begin(), bounds.end(), i) - bounds.begin()) - 1;
  }
  [[nodiscard]] index_t local(index_t i) const {  // indxg2l
    return b > 0 ? (i / (b * g)) * b + i % b : i - bounds[static_cast<std::size_t>(owner(i))];
  }
  [[nodiscard]] index_t global(index_t c, index_t l) const {  // indxl2g
    return b > 0 ? (l / b) * b * g + c * b + l % b : bounds[static_cast<std::size_t>(c)] + l;
  }
  [[nodiscard]] index_t count(index_t c) const {  // numroc
    if (b == 0) return bounds[static_cast<std::size_t>(c) + 1] - bounds[static_cast<std::size_t>(c)];
    const index_t blocks = n / b, extra = blocks % g;
    index_t k = (blocks / g) * b;
    if (c < extra) k += b;
    if (c == extra) k += n % b;
    return k;
  }
};

/// How a case describes an axis; turned into both a tessera DimSpec and a HandDim.
struct AxisSpec {
  enum Kind { block, cut, block_cyclic } kind = block;
  index_t b = 0;                 // block_cyclic
  std::vector<index_t> cuts{};  // cut: g+1 boundaries

  [[nodiscard]] tessera::DimSpec tessera_spec() const {
    return kind == block ? tessera::block() : kind == cut ? tessera::cut(cuts) : tessera::block_cyclic(b);
  }
  [[nodiscard]] HandDim hand(index_t n, index_t g) const {
    HandDim h{n, g, 0, {}};
    if (kind == block_cyclic) {
      h.b = b;
    } else if (kind == cut) {
      h.bounds = cuts;
    } else {  // balanced blocks, the first n mod g coordinates one larger
      const index_t q = n / g, rem = n % g;
      for (index_t c = 0; c <= g; ++c) h.bounds.push_back(c * q + std::min(c, rem));
    }
    return h;
  }
};

struct Case {
  std::string name;
  index_t n = 0;
  std::array<index_t, 2> from_grid{}, to_grid{};
  std::array<AxisSpec, 2> from{}, to{};
  bool scalapack = false;  // also run pdgemr2d (block -> block_cyclic(64) on P x 1)
};

/// A distribution written by hand: per axis a HandDim; rank = c0 * g1 + c1 (row-major, as MPI_Cart
/// and ScaLAPACK's "Row" order; checked against tessera's grid by the caller).
struct HandDist {
  std::array<HandDim, 2> dim{};
  [[nodiscard]] std::array<index_t, 2> coords(int rank) const { return {rank / dim[1].g, rank % dim[1].g}; }
  [[nodiscard]] int rank_of(index_t c0, index_t c1) const { return static_cast<int>(c0 * dim[1].g + c1); }
  [[nodiscard]] std::array<index_t, 2> extents(int rank) const {
    const auto c = coords(rank);
    return {dim[0].count(c[0]), dim[1].count(c[1])};
  }
};

/// The hand-written redistribution from an interval source (block, cut) to any HandDist: pack into
/// one buffer in destination-rank order, MPI_Alltoallv, unpack. Within each message the elements go
/// in increasing global (row, column) order, which both sides can enumerate on their own. The
/// packing loops copy runs of columns with the same destination (a whole row for an interval
/// destination, b elements for block-cyclic); the unpacking loops copy one run per row, because the
/// columns a rank owns inside an interval are contiguous in its compacted local storage.
class PackAlltoallv {
 public:
  PackAlltoallv(MPI_Comm comm, const HandDist& from, const HandDist& to) : comm_(comm), from_(from), to_(to) {
    int rank = 0, size = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    const auto usize = static_cast<std::size_t>(size);
    send_counts_.assign(usize, 0);
    recv_counts_.assign(usize, 0);
    const auto me = from.coords(rank);
    for (std::size_t d = 0; d < 2; ++d) {
      if (from.dim[d].b != 0) abort_job("the hand-written anchor needs an interval source distribution");
      lo_[d] = from.dim[d].bounds[static_cast<std::size_t>(me[d])];
      hi_[d] = from.dim[d].bounds[static_cast<std::size_t>(me[d]) + 1];
    }
    src_cols_ = hi_[1] - lo_[1];
    // Column runs of the source row that go to the same destination column coordinate.
    for (index_t j = lo_[1]; j < hi_[1];) {
      const index_t q = to.dim[1].owner(j);
      index_t k = j + 1;
      while (k < hi_[1] && to.dim[1].owner(k) == q) ++k;
      runs_.push_back({j - lo_[1], k - j, q});
      j = k;
    }
    for (index_t i = lo_[0]; i < hi_[0]; ++i)
      for (const Run& r : runs_)
        send_counts_[static_cast<std::size_t>(to.rank_of(to.dim[0].owner(i), r.coord))] += static_cast<int>(r.count);
    // What each source rank s sends me: the rows of s's interval I own, times one column run.
    const auto mine = to.coords(rank);
    dst_cols_ = to.dim[1].count(mine[1]);
    for (int s = 0; s < size; ++s) {
      const auto sc = from.coords(s);
      Incoming in{};
      const index_t c_lo = from.dim[1].bounds[static_cast<std::size_t>(sc[1])];
      const index_t c_hi = from.dim[1].bounds[static_cast<std::size_t>(sc[1]) + 1];
      for (index_t j = c_lo; j < c_hi; ++j)
        if (to.dim[1].owner(j) == mine[1]) {
          if (in.cols == 0) in.first_col = to.dim[1].local(j);
          ++in.cols;
        }
      const index_t r_lo = from.dim[0].bounds[static_cast<std::size_t>(sc[0])];
      const index_t r_hi = from.dim[0].bounds[static_cast<std::size_t>(sc[0]) + 1];
      if (in.cols > 0)
        for (index_t i = r_lo; i < r_hi; ++i)
          if (to.dim[0].owner(i) == mine[0]) in.rows.push_back(to.dim[0].local(i));
      recv_counts_[static_cast<std::size_t>(s)] = static_cast<int>(in.cols * static_cast<index_t>(in.rows.size()));
      incoming_.push_back(std::move(in));
    }
    send_displs_.assign(usize, 0);
    recv_displs_.assign(usize, 0);
    for (std::size_t p = 1; p < usize; ++p) {
      send_displs_[p] = send_displs_[p - 1] + send_counts_[p - 1];
      recv_displs_[p] = recv_displs_[p - 1] + recv_counts_[p - 1];
    }
    send_.resize(static_cast<std::size_t>(send_displs_.back() + send_counts_.back()));
    recv_.resize(static_cast<std::size_t>(recv_displs_.back() + recv_counts_.back()));
    cursor_.resize(usize);
    // Bytes leaving this rank (what stays is copied through the self message, as users write it).
    for (std::size_t p = 0; p < usize; ++p)
      if (static_cast<int>(p) != rank) bytes_off_rank_ += static_cast<double>(send_counts_[p]) * sizeof(double);
  }

  void run(const double* src, double* dst) {
    const double t0 = MPI_Wtime();
    std::copy(send_displs_.begin(), send_displs_.end(), cursor_.begin());
    for (index_t i = lo_[0]; i < hi_[0]; ++i) {
      const index_t q0 = to_.dim[0].owner(i);
      const double* row = src + (i - lo_[0]) * src_cols_;
      for (const Run& r : runs_) {
        int& at = cursor_[static_cast<std::size_t>(to_.rank_of(q0, r.coord))];
        std::memcpy(send_.data() + at, row + r.first, static_cast<std::size_t>(r.count) * sizeof(double));
        at += static_cast<int>(r.count);
      }
    }
    const double t1 = MPI_Wtime();
    check_mpi(MPI_Alltoallv(send_.data(), send_counts_.data(), send_displs_.data(), MPI_DOUBLE, recv_.data(),
                            recv_counts_.data(), recv_displs_.data(), MPI_DOUBLE, comm_),
              "MPI_Alltoallv");
    const double t2 = MPI_Wtime();
    for (std::size_t s = 0; s < incoming_.size(); ++s) {
      const Incoming& in = incoming_[s];
      const double* from = recv_.data() + recv_displs_[s];
      const auto bytes = static_cast<std::size_t>(in.cols) * sizeof(double);
      for (const index_t l0 : in.rows) {
        std::memcpy(dst + l0 * dst_cols_ + in.first_col, from, bytes);
        from += in.cols;
      }
    }
    last_ = {t1 - t0, t2 - t1, MPI_Wtime() - t2};
  }

  [[nodiscard]] double bytes_off_rank() const noexcept { return bytes_off_rank_; }
  /// Pack, MPI_Alltoallv and unpack seconds of the last run.
  [[nodiscard]] const std::array<double, 3>& last_parts() const noexcept { return last_; }

 private:
  struct Run {
    index_t first, count, coord;  // source columns [first, first + count) go to column coordinate coord
  };
  struct Incoming {
    std::vector<index_t> rows{};  // local destination rows, in order
    index_t first_col = 0, cols = 0;
  };
  MPI_Comm comm_;
  HandDist from_, to_;
  std::array<index_t, 2> lo_{}, hi_{};
  index_t src_cols_ = 0, dst_cols_ = 0;
  std::vector<Run> runs_;
  std::vector<Incoming> incoming_;
  std::vector<int> send_counts_, recv_counts_, send_displs_, recv_displs_, cursor_;
  std::vector<double> send_, recv_;  // made once: the timed run allocates nothing
  double bytes_off_rank_ = 0;
  std::array<double, 3> last_{};
};

#ifdef TESSERA_BENCH_HAVE_SCALAPACK
/// pdgemr2d from n/P x n row blocks (descriptor MB = n/P, NB = n on a P x 1 grid, which is tessera's
/// block when P divides n) to 64 x 64 block-cyclic on the same grid. ScaLAPACK's local arrays are
/// column-major: the source is converted once, untimed; the result is compared element by element.
class Pdgemr2d {
 public:
  Pdgemr2d(int context, index_t n, int ranks, index_t block) : ctx_(context), n_(static_cast<int>(n)) {
    int nprow = 0, npcol = 0, mycol = 0;
    Cblacs_gridinfo(ctx_, &nprow, &npcol, &myrow_, &mycol);
    const int zero = 0, mb_src = n_ / ranks, nb = static_cast<int>(block);
    src_rows_ = numroc_(&n_, &mb_src, &myrow_, &zero, &nprow);
    dst_rows_ = numroc_(&n_, &nb, &myrow_, &zero, &nprow);
    dst_cols_ = numroc_(&n_, &nb, &mycol, &zero, &npcol);
    const int lld_src = std::max(1, src_rows_), lld_dst = std::max(1, dst_rows_);
    int info = 0;
    descinit_(desc_src_.data(), &n_, &n_, &mb_src, &n_, &zero, &zero, &ctx_, &lld_src, &info);
    if (info != 0) abort_job("descinit_ (source) failed: info " + std::to_string(info));
    descinit_(desc_dst_.data(), &n_, &n_, &nb, &nb, &zero, &zero, &ctx_, &lld_dst, &info);
    if (info != 0) abort_job("descinit_ (destination) failed: info " + std::to_string(info));
    a_.resize(static_cast<std::size_t>(lld_src) * static_cast<std::size_t>(n_));
    b_.resize(static_cast<std::size_t>(lld_dst) * static_cast<std::size_t>(std::max(1, dst_cols_)));
  }
  Pdgemr2d(const Pdgemr2d&) = delete;
  Pdgemr2d& operator=(const Pdgemr2d&) = delete;

  /// Copies the row-major source rows x n into the column-major local array.
  void load(const double* src) {
    for (int i = 0; i < src_rows_; ++i)
      for (int j = 0; j < n_; ++j)
        a_[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * static_cast<std::size_t>(src_rows_)] =
            src[static_cast<std::size_t>(i) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(j)];
  }
  void run() { Cpdgemr2d(n_, n_, a_.data(), 1, 1, desc_src_.data(), b_.data(), 1, 1, desc_dst_.data(), ctx_); }
  /// The first local (row, column) where the result differs from tessera's row-major `dst` of the
  /// same local extents, or nullopt.
  [[nodiscard]] std::optional<std::array<int, 2>> differs(const double* dst, index_t rows, index_t cols) const {
    if (rows != dst_rows_ || cols != dst_cols_) return std::array<int, 2>{-1, -1};
    for (int i = 0; i < dst_rows_; ++i)
      for (int j = 0; j < dst_cols_; ++j) {
        const double mine = b_[static_cast<std::size_t>(i) +
                               static_cast<std::size_t>(j) * static_cast<std::size_t>(std::max(1, dst_rows_))];
        const double theirs = dst[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) +
                                  static_cast<std::size_t>(j)];
        if (std::memcmp(&mine, &theirs, sizeof(double)) != 0) return std::array<int, 2>{i, j};
      }
    return std::nullopt;
  }

 private:
  int ctx_, n_;
  int myrow_ = 0, src_rows_ = 0, dst_rows_ = 0, dst_cols_ = 0;
  std::array<int, 9> desc_src_{}, desc_dst_{};
  std::vector<double> a_, b_;
};
#endif

struct Options {
  int repetitions = 0;  // 0: by size
  int warmup = 2;
  bool breakdown = false;
  int blacs_context = -1;  // >= 0: ScaLAPACK is available and its P x 1 grid is set up
};

struct Result {
  std::string name;
  Summary tessera, anchor;
  struct BesideScalapack {
    Summary tessera, scalapack;  // timed together in blocks, apart from the rotation above
  };
  std::optional<BesideScalapack> scalapack;
  double bytes_moved = 0;  // bytes that leave their rank, summed over ranks
  double allocations_per_run = 0;  // global operator new calls per tessera run after the first, max over ranks
};

double value_of(index_t i, index_t j, index_t n) { return static_cast<double>(i * n + j + 1); }

tessera::Distribution<2> tessera_dist(int size, index_t n, const std::array<index_t, 2>& grid,
                                      const std::array<AxisSpec, 2>& specs) {
  const auto g = tessera::ProcGrid<2>::with_shape(size, Point<2>{grid[0], grid[1]});
  return tessera::Distribution<2>(Box<2>::from_extents(Point<2>::filled(n)), g,
                                  {specs[0].tessera_spec(), specs[1].tessera_spec()});
}

/// The hand layout must be tessera's (same local extents, same compaction): checked on a sample of
/// global points per axis, so that a mismatch is reported as such rather than as differing data.
void check_layout(const tessera::StorageLayout<2>& layout, const HandDist& hand, int rank, const std::string& what) {
  const auto ext = hand.extents(rank);
  const index_t total = ext[0] * ext[1];
  if (layout.size() != total) abort_job(what + ": tessera's local size differs from the hand-computed one");
  if (total == 0) return;
  const auto& p = layout.patches().at(0);
  const auto c = hand.coords(rank);
  for (std::size_t d = 0; d < 2; ++d) {
    if (p.extents()[d] != ext[d]) abort_job(what + ": tessera's local extents differ from the hand-computed ones");
    for (index_t l = 0; l < ext[d]; l += std::max<index_t>(1, ext[d] / 97))
      if (p.axes[d].local(hand.dim[d].global(c[d], l)) != l)
        abort_job(what + ": tessera's local index differs from indxg2l along dimension " + std::to_string(d));
  }
}

Result run_case(const tessera::Communicator& world, const Case& c, const Options& opt,
                const tessera::bench::Table& table) {
  const int rank = world.rank(), size = world.size();
  const index_t n = c.n;
  const auto from = tessera_dist(size, n, c.from_grid, c.from);
  const auto to = tessera_dist(size, n, c.to_grid, c.to);
  const HandDist hfrom{{c.from[0].hand(n, c.from_grid[0]), c.from[1].hand(n, c.from_grid[1])}};
  const HandDist hto{{c.to[0].hand(n, c.to_grid[0]), c.to[1].hand(n, c.to_grid[1])}};
  for (const auto& [dist, hand] : {std::pair{&from, &hfrom}, std::pair{&to, &hto}}) {
    const auto pos = dist->grid().position_of(rank);
    const auto mine = hand->coords(rank);
    if (!pos || (*pos)[0] != mine[0] || (*pos)[1] != mine[1])
      abort_job(c.name + ": tessera's grid does not place ranks in row-major (MPI_Cart) order");
  }
  const auto src_layout = tessera::StorageLayout<2>::make(from, rank, tessera::no_ghosts<2>());
  const auto dst_layout = tessera::StorageLayout<2>::make(to, rank, tessera::no_ghosts<2>());
  check_layout(src_layout, hfrom, rank, c.name + " (source)");
  check_layout(dst_layout, hto, rank, c.name + " (destination)");

  tessera::Mover mover(world, tessera::redistribution_schedule(from, tessera::no_ghosts<2>(), to,
                                                               tessera::no_ghosts<2>(), rank),
                       sizeof(double));
  PackAlltoallv anchor(world.raw(), hfrom, hto);

  // Source: every element its global value; destinations: a sentinel (values are >= 1).
  const auto sext = hfrom.extents(rank), dext = hto.extents(rank);
  const auto sc = hfrom.coords(rank), dc = hto.coords(rank);
  std::vector<double> src(static_cast<std::size_t>(src_layout.size()));
  for (index_t l0 = 0; l0 < sext[0]; ++l0)
    for (index_t l1 = 0; l1 < sext[1]; ++l1)
      src[static_cast<std::size_t>(l0 * sext[1] + l1)] =
          value_of(hfrom.dim[0].global(sc[0], l0), hfrom.dim[1].global(sc[1], l1), n);
  std::vector<double> dt(static_cast<std::size_t>(dst_layout.size()), -1.0), da(dt);

  mover.run(src.data(), dt.data());
  anchor.run(src.data(), da.data());
  for (index_t l0 = 0; l0 < dext[0]; ++l0)
    for (index_t l1 = 0; l1 < dext[1]; ++l1) {
      const double want = value_of(hto.dim[0].global(dc[0], l0), hto.dim[1].global(dc[1], l1), n);
      if (da[static_cast<std::size_t>(l0 * dext[1] + l1)] != want)
        abort_job(c.name + ": rank " + std::to_string(rank) + ": the anchor's destination is wrong at local (" +
                  std::to_string(l0) + ", " + std::to_string(l1) + ")");
    }
  if (std::memcmp(dt.data(), da.data(), dt.size() * sizeof(double)) != 0) {
    const auto at = std::mismatch(dt.begin(), dt.end(), da.begin()).first - dt.begin();
    abort_job(c.name + ": rank " + std::to_string(rank) + ": tessera and the anchor differ at local offset " +
              std::to_string(at));
  }

  // Allocations counted around tessera's runs only (warm-up and timed: all after the first).
  std::uint64_t allocations = 0, runs = 0;
  std::vector<std::function<void()>> impls{[&] {
                                             const auto before = tessera::bench::allocations();
                                             mover.run(src.data(), dt.data());
                                             allocations += tessera::bench::allocations() - before;
                                             ++runs;
                                           },
                                           [&] { anchor.run(src.data(), da.data()); }};
#ifdef TESSERA_BENCH_HAVE_SCALAPACK
  std::optional<Pdgemr2d> pd;
  if (c.scalapack && opt.blacs_context >= 0) {
    pd.emplace(opt.blacs_context, n, size, c.to[0].b);
    pd->load(src.data());
    pd->run();
    if (const auto at = pd->differs(dt.data(), dext[0], dext[1]))
      abort_job(c.name + ": rank " + std::to_string(rank) + ": pdgemr2d and tessera differ at local (" +
                std::to_string((*at)[0]) + ", " + std::to_string((*at)[1]) + ")");
  }
#endif

  const double array_bytes = static_cast<double>(n) * static_cast<double>(n) * sizeof(double);
  const int reps = opt.repetitions > 0               ? opt.repetitions
                   : array_bytes <= 8.0 * (1 << 20)  ? 100
                   : array_bytes <= 32.0 * (1 << 20) ? 50
                                                     : 20;
  const auto t = tessera::bench::time_alternating(world.raw(), impls, opt.warmup, reps);

  Result res{c.name, t[0], t[1], std::nullopt, 0};
#ifdef TESSERA_BENCH_HAVE_SCALAPACK
  if (pd) {
    const auto beside = tessera::bench::time_in_blocks(world.raw(), {impls[0], [&] { pd->run(); }}, opt.warmup, reps);
    res.scalapack = Result::BesideScalapack{beside[0], beside[1]};
  }
#endif
  res.allocations_per_run = runs ? static_cast<double>(allocations) / static_cast<double>(runs) : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &res.allocations_per_run, 1, MPI_DOUBLE, MPI_MAX, world.raw()), "MPI_Allreduce");
  double off = anchor.bytes_off_rank();
  check_mpi(MPI_Allreduce(&off, &res.bytes_moved, 1, MPI_DOUBLE, MPI_SUM, world.raw()), "MPI_Allreduce");
  std::string suffix;
  if (res.scalapack) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "   pdgemr2d %.3f (min %.3f), tessera beside it %.3f, ratio %.2f",
                  1e3 * res.scalapack->scalapack.median, 1e3 * res.scalapack->scalapack.min,
                  1e3 * res.scalapack->tessera.median, res.scalapack->tessera.median / res.scalapack->scalapack.median);
    suffix = buf;
  }
  table.print_row(res.name,
                  {res.bytes_moved, 1e3 * res.tessera.median, 1e3 * res.tessera.min, 1e3 * res.anchor.median,
                   1e3 * res.anchor.min, res.tessera.median / res.anchor.median},
                  suffix);

  if (opt.breakdown) {
    // tessera's start() (post receives, pack, send, local copies) and wait() (unpack as messages
    // arrive) apart, beside the anchor's pack / MPI_Alltoallv / unpack; the anchor runs untimed
    // before each tessera run so that caches are as cold as in the main loop.
    std::vector<std::vector<double>> p(5, std::vector<double>(static_cast<std::size_t>(reps)));
    for (int r = 0; r < reps; ++r) {
      const auto i = static_cast<std::size_t>(r);
      anchor.run(src.data(), da.data());
      for (std::size_t j = 0; j < 3; ++j) p[2 + j][i] = anchor.last_parts()[j];
      world.barrier();
      const double t0 = MPI_Wtime();
      mover.start(src.data(), dt.data());
      const double t1 = MPI_Wtime();
      mover.wait();
      p[0][i] = t1 - t0;
      p[1][i] = MPI_Wtime() - t1;
    }
    for (auto& v : p) max_over_ranks(v, world.raw());
    if (rank == 0) {
      std::printf("  breakdown (ms, medians, max over ranks): tessera start %.3f + wait %.3f | anchor pack %.3f + "
                  "alltoallv %.3f + unpack %.3f\n",
                  1e3 * summarize(p[0]).median, 1e3 * summarize(p[1]).median, 1e3 * summarize(p[2]).median,
                  1e3 * summarize(p[3]).median, 1e3 * summarize(p[4]).median);
      const Schedule& s = mover.schedule();
      for (const auto* side : {&s.sends, &s.receives}) {
        for (const auto& peer : *side) {
          long long stretches = 0, strided = 0;
          for (const auto& b : peer.blocks)
            s.for_each_stretch(b, [&](index_t, index_t, index_t stride) {
              ++stretches;
              strided += stride != 1 ? 1 : 0;
            });
          std::printf("  rank 0 %s %d: %zu blocks, %lld elements, %lld stretches (%lld strided)\n",
                      side == &s.sends ? "send to" : "receive from", peer.peer, peer.blocks.size(),
                      static_cast<long long>(peer.elements), stretches, strided);
        }
      }
      std::printf("  rank 0 local copies: %zu blocks, %lld elements\n", s.local_src.size(),
                  static_cast<long long>(s.local_elements()));
    }
  }
  std::fflush(stdout);
  return res;
}

/// Per case: the timing against each anchor that ran, and the bytes moved between ranks.
std::vector<tessera::bench::Record> records_of(const std::vector<Result>& results, int ranks) {
  using tessera::bench::Record;
  std::vector<Record> out;
  for (const Result& r : results) {
    out.push_back(Record::timing("redistribute", r.name, ranks, r.tessera, kAnchor, r.anchor));
    if (r.scalapack)
      out.push_back(Record::timing("redistribute", r.name, ranks, r.scalapack->tessera, kScalapack,
                                   r.scalapack->scalapack));
    out.push_back(Record::count("redistribute", r.name, ranks, "bytes_moved", r.bytes_moved));
    out.push_back(Record::count("redistribute", r.name, ranks, "allocations_per_run", r.allocations_per_run));
  }
  return out;
}

/// The table printed while the cases run (milliseconds, max over ranks).
tessera::bench::Table make_table(bool enabled) {
  return {enabled,
          "case",
          36,
          {{"bytes moved", 12, 0},
           {"tessera", 10, 3},
           {"min", 10, 3},
           {kAnchor, 10, 3},
           {"min", 10, 3},
           {"ratio", 7, 2}}};
}

std::vector<Case> make_cases(const std::vector<index_t>& sizes, index_t p) {
  using K = AxisSpec::Kind;
  const AxisSpec blk{};
  const std::string px1 = std::to_string(p) + "x1", onexp = "1x" + std::to_string(p);
  std::vector<Case> cases;
  for (const index_t n : sizes) {
    const std::string sz = "-" + std::to_string(n);
    const auto from_block = [&](std::string name, std::array<index_t, 2> to_grid, std::array<AxisSpec, 2> to) {
      Case c{std::move(name) + sz, n, {p, 1}, to_grid, {blk, blk}, std::move(to), false};
      cases.push_back(std::move(c));
    };
    for (const index_t b : {index_t{64}, index_t{16}, index_t{256}}) {
      const AxisSpec bc{K::block_cyclic, b, {}};
      from_block("block-to-blockcyclic" + std::to_string(b), {p, 1}, {bc, bc});
    }
    cases[cases.size() - 3].scalapack = n % p == 0;  // ScaLAPACK's usual 64 x 64, block rows of n/P
    // cyclic() is block_cyclic(1) by another name: this is the b = 1 case.
    from_block("block-to-cyclic", {p, 1}, {AxisSpec{K::block_cyclic, 1, {}}, AxisSpec{K::block_cyclic, 1, {}}});
    // Uneven cuts along the split dimension: rank c gets [n c^2 / P^2, n (c+1)^2 / P^2).
    std::vector<index_t> cuts;
    for (index_t c = 0; c <= p; ++c) cuts.push_back(n * c * c / (p * p));
    from_block("block-to-cut", {p, 1}, {AxisSpec{K::cut, 0, cuts}, blk});
    from_block("reshape-" + px1 + "-to-" + onexp, {1, p}, {blk, blk});
  }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Redistribution: tessera's Mover against hand-written pack + MPI_Alltoallv (+ pdgemr2d)"};
  std::vector<index_t> sizes{1024, 2048, 4096, 8192};
  std::string json, filter;
  Options opt;
  // n * n must fit pdgemr2d's 32-bit integers.
  app.add_option("--sizes", sizes, "points per dimension")
      ->delimiter(',')
      ->check(CLI::Range(index_t{1}, index_t{46340}));
  app.add_option("--repetitions", opt.repetitions, "timed runs per case (0: 100, 50 or 20 by size)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", opt.warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  app.add_flag("--breakdown", opt.breakdown, "also time tessera's start() and wait() apart, and the anchor's parts");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  auto cases = make_cases(sizes, world.size());
  std::erase_if(cases, [&](const Case& c) { return c.name.find(filter) == std::string::npos; });

#ifdef TESSERA_BENCH_HAVE_SCALAPACK
  // One BLACS context for every pdgemr2d case: a P x 1 grid in "Row" order (rank = row, as MPI_Cart).
  int blacs_me = 0, blacs_ranks = 0;
  Cblacs_pinfo(&blacs_me, &blacs_ranks);
  Cblacs_get(-1, 0, &opt.blacs_context);
  Cblacs_gridinit(&opt.blacs_context, "Row", blacs_ranks, 1);
#endif

  const auto table = make_table(world.rank() == 0);
  if (world.rank() == 0)
    std::printf("redistribution of n x n doubles, %d ranks; milliseconds per run, max over ranks\n", world.size());
  table.print_header();
  std::vector<Result> results;
  for (const Case& c : cases) results.push_back(run_case(world, c, opt, table));
  if (!json.empty() && world.rank() == 0)
    tessera::bench::write_json(json, records_of(results, world.size()), "bench_redistribute");

#ifdef TESSERA_BENCH_HAVE_SCALAPACK
  Cblacs_gridexit(opt.blacs_context);
#endif
  return 0;
}
