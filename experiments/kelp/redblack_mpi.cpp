// KeLP's Redblack3D written with hand-written MPI: the anchor `make experiments` times
// examples/redblack3d against (KeLP Figs. 6 and 7). The same numerics (examples/redblack3d/solver.hpp:
// source, sweep, serial reference) and the same decomposition (block() on every axis over a 3-D
// grid, --grid as the tessera run chose it), but the ghost faces move by hand: an MPI_Cart_create
// grid, MPI_Cart_shift neighbours, one MPI_Type_create_subarray per face sent and received in place
// with MPI_Isend/MPI_Irecv, and the same overlap (the block's interior swept while the faces move,
// the rim after MPI_Waitall; --no-overlap: wait first). Checked bit for bit against the serial
// reference on rank 0, as the tessera program is.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "kelp/block_split.hpp"
#include "redblack3d/solver.hpp"

namespace {

using kelp::block_start;
using redblack3d::gauss_seidel;
using tessera::Box;
using tessera::index_t;
using tessera::Point;
using Clock = std::chrono::steady_clock;

/// A committed MPI datatype, freed on destruction.
class Datatype {
 public:
  Datatype() = default;
  Datatype(const std::array<int, 3>& sizes, const std::array<int, 3>& sub, const std::array<int, 3>& starts) {
    MPI_Type_create_subarray(3, sizes.data(), sub.data(), starts.data(), MPI_ORDER_C, MPI_DOUBLE, &type_);
    MPI_Type_commit(&type_);
  }
  Datatype(Datatype&& other) noexcept : type_(std::exchange(other.type_, MPI_DATATYPE_NULL)) {}
  Datatype& operator=(Datatype&& other) noexcept {
    std::swap(type_, other.type_);
    return *this;
  }
  ~Datatype() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  [[nodiscard]] MPI_Datatype raw() const noexcept { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// This rank's block of the n³ grid on a 3-D Cartesian communicator, with one ghost layer on
/// every side, and the face exchange with its six neighbours.
class Block {
 public:
  Block(MPI_Comm cart, index_t n) : cart_(cart) {
    std::array<int, 3> periods{};
    MPI_Cart_get(cart, 3, dims_.data(), periods.data(), coords_.data());
    for (std::size_t d = 0; d < 3; ++d) {
      lo_[d] = block_start(coords_[d], n, dims_[d]);
      hi_[d] = block_start(coords_[d] + 1, n, dims_[d]);
      count_[d] = static_cast<int>(hi_[d] - lo_[d]);
      extents_[d] = count_[d] + 2;
      MPI_Cart_shift(cart, static_cast<int>(d), 1, &neighbour_[d][0], &neighbour_[d][1]);
    }
    u_.assign(static_cast<std::size_t>(extents_[0]) * extents_[1] * extents_[2], 0.0);  // ghosts: u = 0 on the boundary
    // Face d, side s (0 low, 1 high): the owned layer sent and the ghost layer received.
    for (std::size_t d = 0; d < 3; ++d)
      for (int s = 0; s < 2; ++s) {
        std::array<int, 3> sub = count_, send_at{1, 1, 1}, recv_at{1, 1, 1};
        sub[d] = 1;
        send_at[d] = s == 0 ? 1 : count_[d];
        recv_at[d] = s == 0 ? 0 : count_[d] + 1;
        send_[d][s] = Datatype(extents_, sub, send_at);
        recv_[d][s] = Datatype(extents_, sub, recv_at);
      }
  }

  /// Starts the exchange of all six faces (MPI_PROC_NULL on the domain's boundary).
  void begin_exchange() {
    int r = 0;
    for (std::size_t d = 0; d < 3; ++d)
      for (int s = 0; s < 2; ++s) {
        // The tag is the direction of travel: what goes up (s = 1) arrives at the upper
        // neighbour's low side, which receives with the same tag.
        const int up = static_cast<int>(2 * d + 1), down = static_cast<int>(2 * d);
        MPI_Irecv(u_.data(), 1, recv_[d][s].raw(), neighbour_[d][s], s == 0 ? up : down, cart_, &requests_[r++]);
        MPI_Isend(u_.data(), 1, send_[d][s].raw(), neighbour_[d][s], s == 0 ? down : up, cart_, &requests_[r++]);
      }
  }
  void end_exchange() { MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE); }

  [[nodiscard]] redblack3d::View view() { return redblack3d::plain_view(u_.data(), count(), 1); }
  [[nodiscard]] Point<3> count() const { return {count_[0], count_[1], count_[2]}; }
  [[nodiscard]] Box<3> owned() const { return Box<3>(lo_, hi_); }
  /// The owned points no neighbour mirrors (empty when the block is thinner than 3 somewhere).
  [[nodiscard]] Box<3> interior() const {
    Point<3> lo = lo_, hi = hi_;
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] += 1;
      hi[d] = std::max(lo[d], hi[d] - 1);
    }
    return Box<3>(lo, hi);
  }
  /// The owned block minus its interior: two slabs per axis, each clipped to what the slabs of
  /// the earlier axes left, so that every point is in one piece.
  [[nodiscard]] std::vector<Box<3>> rim() const {
    const Box<3> in = interior();
    if (in.empty()) return {owned()};
    std::vector<Box<3>> pieces;
    Point<3> lo = lo_, hi = hi_;
    for (std::size_t d = 0; d < 3; ++d) {
      Point<3> below_hi = hi, above_lo = lo;
      below_hi[d] = lo[d] + 1;
      above_lo[d] = hi[d] - 1;
      pieces.emplace_back(lo, below_hi);
      pieces.emplace_back(above_lo, hi);
      lo[d] += 1;
      hi[d] -= 1;
    }
    return pieces;
  }

  /// Rank 0 receives every block into the row-major n³ grid (others send theirs).
  [[nodiscard]] std::vector<double> gather(index_t n) const {
    int rank = 0, size = 0;
    MPI_Comm_rank(cart_, &rank);
    MPI_Comm_size(cart_, &size);
    const Datatype mine(extents_, count_, {1, 1, 1});
    if (rank != 0) {
      MPI_Send(u_.data(), 1, mine.raw(), 0, 99, cart_);
      return {};
    }
    std::vector<double> all(static_cast<std::size_t>(n * n * n));
    const int e = static_cast<int>(n);
    for (int r = 0; r < size; ++r) {
      std::array<int, 3> c{}, sub{}, at{};
      MPI_Cart_coords(cart_, r, 3, c.data());
      for (std::size_t d = 0; d < 3; ++d) {
        at[d] = static_cast<int>(block_start(c[d], n, dims_[d]));
        sub[d] = static_cast<int>(block_start(c[d] + 1, n, dims_[d])) - at[d];
      }
      const Datatype theirs({e, e, e}, sub, at);
      if (r == 0)
        MPI_Sendrecv(u_.data(), 1, mine.raw(), 0, 98, all.data(), 1, theirs.raw(), 0, 98, cart_, MPI_STATUS_IGNORE);
      else
        MPI_Recv(all.data(), 1, theirs.raw(), r, 99, cart_, MPI_STATUS_IGNORE);
    }
    return all;
  }

  [[nodiscard]] const std::array<int, 3>& dims() const { return dims_; }

 private:
  MPI_Comm cart_;
  std::array<int, 3> dims_{}, coords_{}, count_{}, extents_{};
  Point<3> lo_{}, hi_{};
  std::array<std::array<int, 2>, 3> neighbour_{};
  std::vector<double> u_;
  std::array<std::array<Datatype, 2>, 3> send_, recv_;
  std::array<MPI_Request, 12> requests_{};
};

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"KeLP Redblack3D with hand-written MPI (the anchor of examples/redblack3d)"};
  index_t n = 32;
  int iterations = 100;
  bool no_overlap = false;
  std::string grid_arg;
  app.add_option("--n", n, "interior grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 11));
  app.add_option("--iterations", iterations, "red-black iterations")->check(CLI::Range(1, 1000000));
  app.add_flag("--no-overlap", no_overlap, "complete each face exchange before sweeping");
  app.add_option("--grid", grid_arg, "processor grid AxBxC (default: MPI_Dims_create)");
  int status = -1;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    status = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  std::array<int, 3> dims{};
  if (status < 0 && !grid_arg.empty() &&
      (std::sscanf(grid_arg.c_str(), "%dx%dx%d", &dims[0], &dims[1], &dims[2]) != 3 || dims[0] < 1 || dims[1] < 1 ||
       dims[2] < 1 || dims[0] * dims[1] * dims[2] != size)) {
    if (rank == 0) std::fprintf(stderr, "--grid %s: not AxBxC with A*B*C = %d ranks\n", grid_arg.c_str(), size);
    status = 2;
  }
  if (status < 0) {
    if (grid_arg.empty()) MPI_Dims_create(size, 3, dims.data());
    if (n < dims[0] || n < dims[1] || n < dims[2]) {
      if (rank == 0) std::fprintf(stderr, "--n %lld: every rank must own points (grid %dx%dx%d)\n",
                                  static_cast<long long>(n), dims[0], dims[1], dims[2]);
      status = 2;
    }
  }
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }

  MPI_Comm cart = MPI_COMM_NULL;
  const std::array<int, 3> periods{0, 0, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims.data(), periods.data(), 0, &cart);  // no reorder: row-major as tessera
  int failed = 0;
  {
    Block block(cart, n);
    const Box<3> owned = block.owned(), interior = block.interior();
    const std::vector<Box<3>> rim = block.rim();
    std::vector<double> f(static_cast<std::size_t>(tessera::volume(owned)));
    tessera::for_each_point(owned, [&](const Point<3>& p) {
      f[static_cast<std::size_t>(tessera::offset_row_major(owned, p))] = redblack3d::scaled_source(p, n);
    });
    const redblack3d::ConstView fv = redblack3d::plain_view(static_cast<const double*>(f.data()), block.count(), 0);
    const redblack3d::View uv = block.view();

    MPI_Barrier(cart);
    const auto start = Clock::now();
    double waiting = 0.0;
    for (int it = 0; it < iterations; ++it)
      for (int color = 0; color < 2; ++color) {
        block.begin_exchange();
        if (!no_overlap) gauss_seidel(uv, fv, owned.lo, interior, color);
        const auto wait = Clock::now();
        block.end_exchange();
        waiting += since(wait);
        if (no_overlap) gauss_seidel(uv, fv, owned.lo, interior, color);
        for (const auto& piece : rim) gauss_seidel(uv, fv, owned.lo, piece, color);
      }
    MPI_Barrier(cart);
    const double seconds = since(start);

    // The residual h²(f + Δu), summed in the order the tessera program's stencil sums it.
    block.begin_exchange();
    block.end_exchange();
    double local_max = 0.0;
    tessera::for_each_point(owned, [&](const Point<3>& p) {
      const Point<3> l{p[0] - owned.lo[0] + 1, p[1] - owned.lo[1] + 1, p[2] - owned.lo[2] + 1};
      double s = -6.0 * uv(l);
      for (std::size_t d = 0; d < 3; ++d) {
        Point<3> e{};
        e[d] = 1;
        s += uv(l + e) + uv(l - e);
      }
      local_max = std::max(local_max, std::abs(s + f[static_cast<std::size_t>(tessera::offset_row_major(owned, p))]));
    });
    double max_residual = 0.0;
    MPI_Allreduce(&local_max, &max_residual, 1, MPI_DOUBLE, MPI_MAX, cart);

    const std::vector<double> gathered = block.gather(n);
    if (rank == 0) {
      std::printf("%d ranks (%dx%dx%d grid), n = %lld, %d iterations%s: %.6f s, waiting for ghosts %.6f s\n", size,
                  dims[0], dims[1], dims[2], static_cast<long long>(n), iterations, no_overlap ? " (no overlap)" : "",
                  seconds, waiting);
      failed = redblack3d::report(redblack3d::verify(gathered, n, iterations), max_residual);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, cart);
  }
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return failed;
}
