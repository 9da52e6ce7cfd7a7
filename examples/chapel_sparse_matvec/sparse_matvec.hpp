#pragma once
// The sparse matrix of examples/chapel_sparse_matvec and bench/sparse: its entries (a function of
// the row, so that every rank and the serial reference agree without communicating), the local
// CSR structure a rank computes y = A x with, and the one kernel both tessera's product and the
// hand-written MPI product in the benchmark run.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera_examples {

using tessera::index_t;
using tessera::Point;

/// The columns of row i of an n x n matrix: the diagonal, its two neighbours, and `extra` columns
/// spread pseudo-randomly over the whole row (so that some rows read x far from their own rank).
/// Sorted, distinct.
inline std::vector<index_t> columns_of(index_t i, index_t n, int extra) {
  std::vector<index_t> cols{i};
  if (i > 0) cols.push_back(i - 1);
  if (i + 1 < n) cols.push_back(i + 1);
  std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL + 1;
  for (int k = 0; k < extra; ++k) {
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    cols.push_back(static_cast<index_t>(h % static_cast<std::uint64_t>(n)));
  }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
}

/// A(i, j) and x(j): exact small binary fractions, so that sums are exact and any order agrees.
inline double entry(index_t i, index_t j) { return static_cast<double>((i * 7 + j * 3) % 11 - 5) / 8.0; }
inline double x_value(index_t j) { return static_cast<double>(j % 13 - 6) / 4.0; }

/// One rank's rows in CSR form: row r (global row rows[r]) holds entries starts[r] .. starts[r+1];
/// entry k multiplies values[k] by x at `source[k]`: an offset into the rank's own x storage if
/// >= 0, else slot ~source[k] of the fetched values.
struct LocalCsr {
  std::vector<index_t> rows;
  std::vector<std::int64_t> starts{0};
  std::vector<double> values;
  std::vector<std::int64_t> source;
};

/// y_local[r] = sum over row r's entries, in column order.
inline void csr_product(const LocalCsr& a, const double* x_mine, const double* x_far, std::span<double> y) {
  for (std::size_t r = 0; r + 1 < a.starts.size(); ++r) {
    double sum = 0;
    for (std::int64_t k = a.starts[r]; k < a.starts[r + 1]; ++k) {
      const std::int64_t s = a.source[static_cast<std::size_t>(k)];
      sum += a.values[static_cast<std::size_t>(k)] * (s >= 0 ? x_mine[s] : x_far[~s]);
    }
    y[r] = sum;
  }
}

/// The serial product y = A x (the reference).
inline std::vector<double> serial_product(index_t n, int extra) {
  std::vector<double> y(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    double sum = 0;
    for (const index_t j : columns_of(i, n, extra)) sum += entry(i, j) * x_value(j);
    y[static_cast<std::size_t>(i)] = sum;
  }
  return y;
}

}  // namespace tessera_examples
