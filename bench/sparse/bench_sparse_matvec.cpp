// Sparse matrix-vector products y = A x (issue 17, Chapel's sparse subdomains): tessera's product
// (examples/chapel_sparse_matvec/tessera_matvec.hpp: the nonzeros a SparseDomain over block rows,
// the far x entries fetched by a PointFetch run by a Mover) against the code an MPI user writes by
// hand on the same data (anchor "mpi-isend-irecv"): the same CSR rows, an inspector that exchanges
// the wanted column lists once (MPI_Alltoall + MPI_Alltoallv), then per product one MPI_Irecv per
// peer that owns wanted columns, packing and one MPI_Isend per peer that wants columns, MPI_Waitall,
// and the same local CSR kernel (sparse_matvec.hpp: csr_product).
//
// Both products are checked bit for bit against each other and against the serial product (exact
// binary fractions) before timing; the job aborts on any difference. Timing: the two products
// alternate, each timed with MPI_Wtime between barriers, max over ranks per repetition
// (bench/support/bench_timing.hpp).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "chapel_sparse_matvec/tessera_matvec.hpp"
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"

namespace {

using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;
using tessera_examples::LocalCsr;

constexpr const char* kProgram = "bench_sparse_matvec";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

/// The hand-written product: its own ghost numbering (wanted columns grouped by owner), its own
/// exchange lists and buffers.
class MpiMatvec {
 public:
  /// Setup (not timed): `csr` gives the rows and values; which columns are far, and their owners,
  /// come from the x distribution's block bounds (what a hand-written code computes itself).
  MpiMatvec(MPI_Comm comm, const tessera_examples::TesseraMatvec& mv, const tessera::Distribution<1>& xdist,
            const double* x)
      : comm_(comm), csr_(mv.csr()), x_(x) {
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const auto mine = xdist.owned_box(rank);
    // Wanted columns per owner, sorted and distinct.
    std::vector<std::vector<index_t>> wanted(static_cast<std::size_t>(size));
    const auto cols = cols_in_order(mv);
    for (const index_t j : cols)
      if (j < mine.lo[0] || j >= mine.hi[0]) wanted[static_cast<std::size_t>(xdist.owner(Point<1>{j}))].push_back(j);
    recv_counts_.assign(static_cast<std::size_t>(size), 0);
    recv_displs_.assign(static_cast<std::size_t>(size) + 1, 0);
    std::vector<index_t> asked;
    for (int p = 0; p < size; ++p) {
      auto& w = wanted[static_cast<std::size_t>(p)];
      std::sort(w.begin(), w.end());
      w.erase(std::unique(w.begin(), w.end()), w.end());
      recv_counts_[static_cast<std::size_t>(p)] = static_cast<int>(w.size());
      recv_displs_[static_cast<std::size_t>(p) + 1] = recv_displs_[static_cast<std::size_t>(p)] + static_cast<int>(w.size());
      asked.insert(asked.end(), w.begin(), w.end());
    }
    send_counts_.assign(static_cast<std::size_t>(size), 0);
    check_mpi(MPI_Alltoall(recv_counts_.data(), 1, MPI_INT, send_counts_.data(), 1, MPI_INT, comm), "MPI_Alltoall");
    send_displs_.assign(static_cast<std::size_t>(size) + 1, 0);
    for (int p = 0; p < size; ++p)
      send_displs_[static_cast<std::size_t>(p) + 1] = send_displs_[static_cast<std::size_t>(p)] + send_counts_[static_cast<std::size_t>(p)];
    std::vector<index_t> requested(static_cast<std::size_t>(send_displs_.back()));
    check_mpi(MPI_Alltoallv(asked.data(), recv_counts_.data(), recv_displs_.data(), MPI_INT64_T, requested.data(),
                            send_counts_.data(), send_displs_.data(), MPI_INT64_T, comm),
              "MPI_Alltoallv");
    for (const index_t j : requested) send_index_.push_back(j - mine.lo[0]);
    send_buffer_.resize(requested.size());
    x_far_.resize(asked.size());
    // The CSR sources against this numbering.
    source_ = csr_.source;
    for (std::size_t k = 0; k < source_.size(); ++k) {
      const index_t j = cols[k];
      if (j >= mine.lo[0] && j < mine.hi[0]) continue;
      const auto owner = static_cast<std::size_t>(xdist.owner(Point<1>{j}));
      const auto& w = wanted[owner];
      source_[k] = ~static_cast<std::int64_t>(recv_displs_[owner] + (std::lower_bound(w.begin(), w.end(), j) - w.begin()));
    }
    requests_.resize(2 * static_cast<std::size_t>(size));
  }

  // The exchange of the far x entries.
  void exchange() {
    const int size = static_cast<int>(recv_counts_.size());
    int used = 0;
    for (int p = 0; p < size; ++p)
      if (recv_counts_[static_cast<std::size_t>(p)] > 0)
        check_mpi(MPI_Irecv(x_far_.data() + recv_displs_[static_cast<std::size_t>(p)], recv_counts_[static_cast<std::size_t>(p)],
                            MPI_DOUBLE, p, 77, comm_, &requests_[static_cast<std::size_t>(used++)]),
                  "MPI_Irecv");
    for (std::size_t k = 0; k < send_index_.size(); ++k) send_buffer_[k] = x_[send_index_[k]];
    for (int p = 0; p < size; ++p)
      if (send_counts_[static_cast<std::size_t>(p)] > 0)
        check_mpi(MPI_Isend(send_buffer_.data() + send_displs_[static_cast<std::size_t>(p)], send_counts_[static_cast<std::size_t>(p)],
                            MPI_DOUBLE, p, 77, comm_, &requests_[static_cast<std::size_t>(used++)]),
                  "MPI_Isend");
    check_mpi(MPI_Waitall(used, requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  /// y = A x with this numbering.
  void product(double* y) {
    exchange();
    kernel(y);
  }

 private:
  static std::vector<index_t> cols_in_order(const tessera_examples::TesseraMatvec& mv) {
    std::vector<index_t> out;
    for (const auto& p : mv.a().domain().points()) out.push_back(p[1]);
    return out;
  }

  void kernel(double* y) {
    for (std::size_t r = 0; r + 1 < csr_.starts.size(); ++r) {
      double sum = 0;
      for (std::int64_t k = csr_.starts[r]; k < csr_.starts[r + 1]; ++k) {
        const std::int64_t s = source_[static_cast<std::size_t>(k)];
        sum += csr_.values[static_cast<std::size_t>(k)] * (s >= 0 ? x_[s] : x_far_[static_cast<std::size_t>(~s)]);
      }
      y[r] = sum;
    }
  }

  MPI_Comm comm_;
  LocalCsr csr_;
  const double* x_;
  std::vector<std::int64_t> source_;
  std::vector<int> recv_counts_, recv_displs_, send_counts_, send_displs_;
  std::vector<index_t> send_index_;
  std::vector<double> send_buffer_, x_far_;
  std::vector<MPI_Request> requests_;
};

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Sparse matrix-vector product: tessera (SparseDomain + PointFetch) against hand-written MPI"};
  std::vector<index_t> sizes{index_t{1} << 12, index_t{1} << 16, index_t{1} << 19};
  int extra = 4, reps = 0, warmup = 3;
  std::string json;
  app.add_option("--sizes", sizes, "rows of the matrix")->delimiter(',')->check(CLI::Range(index_t{2}, index_t{1} << 26));
  app.add_option("--extra", extra, "pseudo-random nonzeros per row besides the tridiagonal ones")->check(CLI::Range(0, 1000));
  app.add_option("--repetitions", reps, "timed runs per case (0: 200 small, 20 large)")->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(
      print, "operation case", 36,
      {{"nonzeros", 12, 0}, {"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf("y = A x, CSR rows over block, %d ranks; milliseconds per product, max over ranks\n"
                "anchor: mpi-isend-irecv (hand-written inspector, Irecv/Isend of the wanted x entries)\n",
                world.size());
  table.print_header();
  std::vector<Record> records;
  for (const index_t n : sizes) {
    tessera_examples::TesseraMatvec mv(world, n, extra, tessera::block());
    mv.plan();
    const tessera::Distribution<1> xdist = mv.x().distribution();
    MpiMatvec anchor(world.raw(), mv, xdist, mv.x().data());
    std::vector<double> y_anchor(mv.y().storage().size());
    mv.multiply();
    anchor.product(y_anchor.data());
    const auto y = mv.y().storage();
    if (std::memcmp(y.data(), y_anchor.data(), y.size_bytes()) != 0)
      abort_job("n = " + std::to_string(n) + ": tessera's and the hand-written products differ");
    const std::vector<double> y_all = mv.y().gather_to(0);
    if (print) {
      const auto want = tessera_examples::serial_product(n, extra);
      if (std::memcmp(y_all.data(), want.data(), want.size() * sizeof(double)) != 0)
        abort_job("n = " + std::to_string(n) + ": the product differs from the serial one");
    }
    const int r = reps > 0 ? reps : (n <= (index_t{1} << 16) ? 200 : 20);
    const auto t = tessera::bench::time_alternating(world.raw(), {[&] { mv.multiply(); }, [&] { anchor.product(y_anchor.data()); }},
                                                    warmup, r);
    const index_t nonzeros = world.allreduce(static_cast<index_t>(mv.a().values().size()), tessera::ReduceOp::sum);
    const std::string name = "block-rows-" + std::to_string(n) + "-extra" + std::to_string(extra);
    table.print_row("sparse-matvec " + name, {static_cast<double>(nonzeros), 1e3 * t[0].median, 1e3 * t[0].min,
                                              1e3 * t[1].median, 1e3 * t[1].min, t[0].median / t[1].median});
    records.push_back(Record::timing("sparse-matvec", name, world.size(), t[0], "mpi-isend-irecv", t[1]));
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
