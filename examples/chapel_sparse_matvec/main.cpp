// Chapel's sparse subdomains: a sparse matrix-vector product y = A x with the matrix's nonzeros a
// SparseDomain of the n x n index box (CSR rows over a block, then a cut, distribution of the rows)
// and its values a SparseArray over it; the x entries each rank's rows read from other ranks are
// fetched by an inspector-executor PointFetch. After a redistribution of the row domain the
// nonzeros and their values follow it, and the product is planned and run again. Checked bit for
// bit against the serial product (the entries are exact binary fractions).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tessera_matvec.hpp"

namespace {

using tessera::index_t;
using tessera_examples::TesseraMatvec;

/// Cuts that give rank r a share growing with r (uneven on purpose), first and last included.
std::vector<index_t> uneven_cuts(index_t n, int size) {
  std::vector<index_t> cuts{0};
  const index_t weights = static_cast<index_t>(size) * (size + 1) / 2;
  index_t acc = 0;
  for (int r = 1; r <= size; ++r) cuts.push_back((acc += r) * n / weights);
  return cuts;
}

/// Rank 0: does the gathered y equal the serial product, bit for bit?
bool matches(const TesseraMatvec& mv, const std::vector<double>& want, int rank) {
  const std::vector<double> y = mv.y().gather_to(0);
  return rank != 0 || (y.size() == want.size() && std::memcmp(y.data(), want.data(), y.size() * sizeof(double)) == 0);
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Chapel sparse subdomains: a distributed sparse matrix-vector product against the serial one"};
  index_t n = 200;
  int extra = 4, products = 3;
  app.add_option("--n", n, "rows and columns")->check(CLI::Range(index_t{2}, index_t{1} << 24));
  app.add_option("--extra", extra, "pseudo-random nonzeros per row besides the tridiagonal ones")->check(CLI::Range(0, 1000));
  app.add_option("--products", products, "products per distribution")->check(CLI::Range(1, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const int rank = world.rank(), size = world.size();
  const std::vector<double> want = tessera_examples::serial_product(n, extra);
  double entries_sum = 0;  // exact: entries are multiples of 1/8
  for (index_t i = 0; i < n; ++i)
    for (const index_t j : tessera_examples::columns_of(i, n, extra)) entries_sum += tessera_examples::entry(i, j);

  TesseraMatvec mv(world, n, extra, tessera::block());
  bool ok = mv.a().sum() == entries_sum;
  mv.plan();
  for (int k = 0; k < products; ++k) mv.multiply();
  ok = matches(mv, want, rank) && ok;
  const auto block_far = world.allreduce(static_cast<index_t>(mv.fetched()), tessera::ReduceOp::sum);

  mv.redistribute(tessera::cut(uneven_cuts(n, size)));  // the nonzeros follow their parent domain
  ok = mv.a().sum() == entries_sum && ok;
  mv.plan();
  for (int k = 0; k < products; ++k) mv.multiply();
  ok = matches(mv, want, rank) && ok;
  const auto cut_far = world.allreduce(static_cast<index_t>(mv.fetched()), tessera::ReduceOp::sum);

  const index_t nonzeros = world.allreduce(static_cast<index_t>(mv.a().values().size()), tessera::ReduceOp::sum);
  ok = world.allreduce(ok ? 1 : 0, tessera::ReduceOp::min) == 1;
  if (rank == 0) {
    std::printf("n = %lld, %lld nonzeros on %d ranks; x entries fetched per product: %lld under block, %lld under cut\n",
                static_cast<long long>(n), static_cast<long long>(nonzeros), size, static_cast<long long>(block_far),
                static_cast<long long>(cut_far));
    std::printf(ok ? "Chapel sparse: the distributed sparse matrix-vector product matches the serial product bit for bit\n"
                   : "Chapel sparse: MISMATCH against the serial product\n");
  }
  return ok ? 0 : 1;
}
