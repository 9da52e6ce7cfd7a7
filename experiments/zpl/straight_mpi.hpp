#pragma once
// What the straight-MPI versions of ZPL's four examples share (experiments/zpl/*_mpi.cpp): the
// balanced block split a careful MPI programmer writes by hand, and the run of a program K times
// with every run checked before any time is kept.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "support/bench_records.hpp"
#include "support/movement_count.hpp"

namespace zpl_mpi {

using index_t = std::int64_t;

/// Start of part `r` of `n` items split into `p` balanced parts, the first n mod p one larger.
inline index_t part_lo(index_t n, int p, int r) {
  const index_t q = n / p, rem = n % p;
  return r * q + std::min<index_t>(r, rem);
}
inline index_t part_hi(index_t n, int p, int r) { return part_lo(n, p, r + 1); }
inline index_t part_size(index_t n, int p, int r) { return part_hi(n, p, r) - part_lo(n, p, r); }

/// Ends the job with a message: a straight-MPI version that does not verify reports no time.
[[noreturn]] inline void fail(const char* program, const std::string& message) {
  tessera::bench::abort_job(program, message);
}

/// A rank's block of a 2-D block decomposition, stored row-major with one ghost layer:
/// (rows + 2) x (cols + 2) doubles; its four neighbours (MPI_PROC_NULL at the grid's edge, where
/// the ghosts are left as they are).
struct GhostedBlock {
  index_t rows = 0, cols = 0;
  int north = MPI_PROC_NULL, south = MPI_PROC_NULL, west = MPI_PROC_NULL, east = MPI_PROC_NULL;
};

/// One ghost update of `a` by MPI_Isend / MPI_Irecv: rows to north and south (contiguous), columns
/// to west and east (one MPI_Type_vector, no packing). With `corners`, the columns go second and
/// include the ghost rows just received, so the diagonal ghosts arrive too. Adds what this rank
/// sent to `moved`. Every block must have at least one row and one column.
inline void update_ghosts(double* a, const GhostedBlock& b, bool corners, tessera::bench::Moved& moved) {
  const index_t w = b.cols + 2;
  const int c = static_cast<int>(b.cols);
  const index_t lo = corners ? 0 : 1;  // first row of the column messages
  const int column_rows = static_cast<int>(corners ? b.rows + 2 : b.rows);
  MPI_Datatype column;
  MPI_Type_vector(column_rows, 1, static_cast<int>(w), MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  MPI_Request req[8];
  MPI_Irecv(a + 1, c, MPI_DOUBLE, b.north, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(a + (b.rows + 1) * w + 1, c, MPI_DOUBLE, b.south, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(a + w + 1, c, MPI_DOUBLE, b.north, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(a + b.rows * w + 1, c, MPI_DOUBLE, b.south, 0, MPI_COMM_WORLD, &req[3]);
  if (corners) MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  MPI_Request* cols = corners ? req : req + 4;
  MPI_Irecv(a + lo * w, 1, column, b.west, 2, MPI_COMM_WORLD, &cols[0]);
  MPI_Irecv(a + lo * w + b.cols + 1, 1, column, b.east, 3, MPI_COMM_WORLD, &cols[1]);
  MPI_Isend(a + lo * w + 1, 1, column, b.west, 3, MPI_COMM_WORLD, &cols[2]);
  MPI_Isend(a + lo * w + b.cols, 1, column, b.east, 2, MPI_COMM_WORLD, &cols[3]);
  MPI_Waitall(corners ? 4 : 8, req, MPI_STATUSES_IGNORE);
  MPI_Type_free(&column);
  const std::pair<int, index_t> faces[] = {{b.north, b.cols}, {b.south, b.cols}, {b.west, column_rows}, {b.east, column_rows}};
  for (const auto& [peer, elements] : faces) {
    if (peer == MPI_PROC_NULL) continue;
    moved.bytes_sent += static_cast<std::uint64_t>(elements) * sizeof(double);
    ++moved.messages;
  }
}

}  // namespace zpl_mpi
