// NPB MG (classes S, W, A, B) with hand-written MPI: the anchor of KeLP's Fig. 6 comparison.
// Same operators (mg_kernels.hpp), same procedure and the same cuts of every level (mg_driver.hpp)
// as the tessera program (mg_tessera.cpp); only the communication is written here by hand:
// - the periodic ghost update of a level (NPB's comm3): on an MPI_Cart grid, axis by axis, two
//   Isend/Irecv pairs per axis, each later axis carrying the earlier axes' ghosts so that edges
//   and corners arrive too. On levels with fewer points than grid positions on an axis, only the
//   first min(n, p) positions of that axis own points; neighbours wrap around among them.
// - the transfers between levels: a redistribution between two cut distributions of one grid,
//   its peers and boxes computed once, one Isend/Irecv per peer with packed boxes.
//
//   mpirun -n 3 build/release/experiments/nas_mg_mpi --class S
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mg_driver.hpp"

namespace {

using nas_mg::Block;
using nas_mg::Field;
using nas_mg::Idx3;
using nas_mg::index_t;
using Cuts = std::array<std::vector<index_t>, 3>;

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string(what) + " failed");
}

/// A box [lo, hi) of global indices.
struct Box3 {
  Idx3 lo{}, hi{};
  [[nodiscard]] bool empty() const {
    for (std::size_t d = 0; d < 3; ++d)
      if (hi[d] <= lo[d]) return true;
    return false;
  }
  [[nodiscard]] index_t volume() const { return empty() ? 0 : (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
};

Box3 intersect(const Box3& a, const Box3& b) {
  Box3 out;
  for (std::size_t d = 0; d < 3; ++d) out.lo[d] = std::max(a.lo[d], b.lo[d]), out.hi[d] = std::min(a.hi[d], b.hi[d]);
  return out;
}

Box3 block_box(const Cuts& cuts, const std::array<int, 3>& coords) {
  Box3 b;
  for (std::size_t d = 0; d < 3; ++d) {
    const auto c = static_cast<std::size_t>(coords[d]);
    b.lo[d] = cuts[d][c], b.hi[d] = cuts[d][c + 1];
  }
  return b;
}

/// One rank's block of a level array with one ghost layer on every side, row-major.
class LocalArray {
 public:
  explicit LocalArray(const Box3& owned) : owned_(owned) {
    if (owned.empty()) return;
    for (std::size_t d = 0; d < 3; ++d) extent_[d] = owned.hi[d] - owned.lo[d] + 2;
    data_.assign(static_cast<std::size_t>(extent_[0] * extent_[1] * extent_[2]), 0.0);
  }
  [[nodiscard]] Block block() {
    if (owned_.empty()) return {};
    return {data_.data() + extent_[1] * extent_[2] + extent_[2] + 1,
            owned_.lo,
            {owned_.hi[0] - owned_.lo[0], owned_.hi[1] - owned_.lo[1], owned_.hi[2] - owned_.lo[2]},
            extent_[1] * extent_[2],
            extent_[2]};
  }
  [[nodiscard]] const Box3& owned() const { return owned_; }

 private:
  Box3 owned_;
  Idx3 extent_{};
  std::vector<double> data_;
};

/// Copies between the local box [lo, hi) of `b` (local indices, ghosts at -1 and count) and a
/// packed buffer, in either direction.
enum class Direction { pack, unpack };
double* copy_box(const Block& b, const Idx3& lo, const Idx3& hi, double* buffer, Direction dir) {
  const auto len = static_cast<std::size_t>(hi[2] - lo[2]);
  for (index_t i = lo[0]; i < hi[0]; ++i)
    for (index_t j = lo[1]; j < hi[1]; ++j, buffer += len) {
      double* row = b.row(i, j) + lo[2];
      if (dir == Direction::pack)
        std::memcpy(buffer, row, len * sizeof(double));
      else
        std::memcpy(row, buffer, len * sizeof(double));
    }
  return buffer;
}

/// NPB's comm3 by hand for the arrays of one level (see the file comment).
class HaloExchange {
 public:
  HaloExchange(MPI_Comm cart, const std::array<int, 3>& dims, const std::array<int, 3>& coords, const Cuts& cuts)
      : cart_(cart) {
    for (std::size_t d = 0; d < 3; ++d) {
      const auto n = cuts[d].back();
      active_[d] = std::min<index_t>(n, dims[d]);  // block cuts: the positions >= n own nothing
      if (coords[d] >= active_[d]) idle_ = true;
    }
    if (idle_) return;
    for (std::size_t d = 0; d < 3; ++d) {
      auto at = coords;
      at[d] = static_cast<int>((coords[d] - 1 + active_[d]) % active_[d]);
      check(MPI_Cart_rank(cart, at.data(), &left_[d]), "MPI_Cart_rank");
      at[d] = static_cast<int>((coords[d] + 1) % active_[d]);
      check(MPI_Cart_rank(cart, at.data(), &right_[d]), "MPI_Cart_rank");
    }
  }

  void run(const Block& b) {
    if (idle_ || b.empty()) return;
    for (std::size_t d = 0; d < 3; ++d) {
      // The planes: axes before d with their ghosts (filled by then), axes after d owned only.
      Idx3 lo{}, hi{};
      for (std::size_t e = 0; e < 3; ++e) lo[e] = e < d ? -1 : 0, hi[e] = e < d ? b.count[e] + 1 : b.count[e];
      auto plane = [&](index_t at) {
        Idx3 l = lo, h = hi;
        l[d] = at, h[d] = at + 1;
        return std::pair{l, h};
      };
      const auto [send_lo_l, send_lo_h] = plane(0);
      const auto [send_hi_l, send_hi_h] = plane(b.count[d] - 1);
      const auto [ghost_lo_l, ghost_lo_h] = plane(-1);
      const auto [ghost_hi_l, ghost_hi_h] = plane(b.count[d]);
      index_t size = 1;
      for (std::size_t e = 0; e < 3; ++e) size *= e == d ? 1 : hi[e] - lo[e];
      const auto n = static_cast<std::size_t>(size);
      if (buffer_.size() < 4 * n) buffer_.resize(4 * n);
      double* to_left = buffer_.data();
      double* to_right = to_left + n;
      double* from_left = to_right + n;
      double* from_right = from_left + n;
      copy_box(b, send_lo_l, send_lo_h, to_left, Direction::pack);
      copy_box(b, send_hi_l, send_hi_h, to_right, Direction::pack);
      if (active_[d] == 1) {  // the whole axis is mine: the periodic wrap is a local copy
        copy_box(b, ghost_hi_l, ghost_hi_h, to_left, Direction::unpack);
        copy_box(b, ghost_lo_l, ghost_lo_h, to_right, Direction::unpack);
        continue;
      }
      const int count = static_cast<int>(size);
      const int tag_left = 2 * static_cast<int>(d), tag_right = tag_left + 1;  // the direction a message travels
      MPI_Request req[4];
      check(MPI_Irecv(from_left, count, MPI_DOUBLE, left_[d], tag_right, cart_, &req[0]), "MPI_Irecv");
      check(MPI_Irecv(from_right, count, MPI_DOUBLE, right_[d], tag_left, cart_, &req[1]), "MPI_Irecv");
      check(MPI_Isend(to_left, count, MPI_DOUBLE, left_[d], tag_left, cart_, &req[2]), "MPI_Isend");
      check(MPI_Isend(to_right, count, MPI_DOUBLE, right_[d], tag_right, cart_, &req[3]), "MPI_Isend");
      check(MPI_Waitall(4, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
      copy_box(b, ghost_lo_l, ghost_lo_h, from_left, Direction::unpack);
      copy_box(b, ghost_hi_l, ghost_hi_h, from_right, Direction::unpack);
    }
  }

 private:
  MPI_Comm cart_;
  Idx3 active_{};
  bool idle_ = false;
  std::array<int, 3> left_{}, right_{};
  std::vector<double> buffer_;
};

/// A redistribution between two cut distributions of one grid, by hand: every rank intersects its
/// source block with every rank's destination block once; a run packs, sends, copies its own
/// piece, receives and unpacks.
class Transfer {
 public:
  Transfer(MPI_Comm cart, int rank, const std::vector<std::array<int, 3>>& coords, const Cuts& src, const Cuts& dst)
      : cart_(cart) {
    const Box3 mine_src = block_box(src, coords[static_cast<std::size_t>(rank)]);
    const Box3 mine_dst = block_box(dst, coords[static_cast<std::size_t>(rank)]);
    for (int q = 0; q < static_cast<int>(coords.size()); ++q) {
      const Box3 out = intersect(mine_src, block_box(dst, coords[static_cast<std::size_t>(q)]));
      const Box3 in = intersect(mine_dst, block_box(src, coords[static_cast<std::size_t>(q)]));
      if (q == rank) {
        if (!out.empty()) local_.push_back(out);
        continue;
      }
      if (!out.empty()) sends_.push_back({q, out, {}});
      if (!in.empty()) recvs_.push_back({q, in, {}});
    }
    for (auto* list : {&sends_, &recvs_})
      for (auto& p : *list) p.buffer.resize(static_cast<std::size_t>(p.box.volume()));
    requests_.resize(sends_.size() + recvs_.size());
  }

  void run(const Block& src, const Block& dst) {
    std::size_t r = 0;
    for (auto& p : recvs_)
      check(MPI_Irecv(p.buffer.data(), static_cast<int>(p.buffer.size()), MPI_DOUBLE, p.peer, 0, cart_, &requests_[r++]),
            "MPI_Irecv");
    for (auto& p : sends_) {
      copy_box(src, local(p.box.lo, src), local(p.box.hi, src), p.buffer.data(), Direction::pack);
      check(MPI_Isend(p.buffer.data(), static_cast<int>(p.buffer.size()), MPI_DOUBLE, p.peer, 0, cart_, &requests_[r++]),
            "MPI_Isend");
    }
    for (const Box3& b : local_) {
      const Idx3 slo = local(b.lo, src), shi = local(b.hi, src), dlo = local(b.lo, dst);
      for (index_t i = 0; i < shi[0] - slo[0]; ++i)
        for (index_t j = 0; j < shi[1] - slo[1]; ++j)
          std::memcpy(dst.row(dlo[0] + i, dlo[1] + j) + dlo[2], src.row(slo[0] + i, slo[1] + j) + slo[2],
                      static_cast<std::size_t>(shi[2] - slo[2]) * sizeof(double));
    }
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (auto& p : recvs_) copy_box(dst, local(p.box.lo, dst), local(p.box.hi, dst), p.buffer.data(), Direction::unpack);
  }

 private:
  struct Peer {
    int peer;
    Box3 box;
    std::vector<double> buffer;
  };
  static Idx3 local(const Idx3& global, const Block& b) {
    return {global[0] - b.lo[0], global[1] - b.lo[1], global[2] - b.lo[2]};
  }

  MPI_Comm cart_;
  std::vector<Peer> sends_, recvs_;
  std::vector<Box3> local_;
  std::vector<MPI_Request> requests_;
};

/// mg_driver.hpp's `Levels` with hand-written MPI.
class MpiLevels {
 public:
  MpiLevels(MPI_Comm world, int lt, const std::array<int, 3>& shape) {
    const int periods[3] = {1, 1, 1};
    check(MPI_Cart_create(world, 3, shape.data(), periods, 0, &cart_), "MPI_Cart_create");
    int rank = 0, size = 0;
    check(MPI_Comm_rank(cart_, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(cart_, &size), "MPI_Comm_size");
    std::vector<std::array<int, 3>> coords(static_cast<std::size_t>(size));
    for (int q = 0; q < size; ++q) check(MPI_Cart_coords(cart_, q, 3, coords[static_cast<std::size_t>(q)].data()), "MPI_Cart_coords");
    const auto& mine = coords[static_cast<std::size_t>(rank)];
    const auto cuts = nas_mg::level_cuts(lt, shape);
    levels_.resize(static_cast<std::size_t>(lt) + 1);
    for (int k = 1; k <= lt; ++k) {
      const auto& c = cuts[static_cast<std::size_t>(k)];
      auto& L = levels_[static_cast<std::size_t>(k)];
      const Box3 own = block_box(c.own, mine);
      L.u.emplace_back(own), L.r.emplace_back(own), L.work.emplace_back(own);
      if (k == lt) L.v.emplace_back(own);
      L.halo.emplace_back(cart_, shape, mine, c.own);
      if (k == 1) continue;
      L.restricted.emplace_back(block_box(c.restricted, mine));
      L.prolonged.emplace_back(block_box(c.prolonged, mine));
      L.down.emplace_back(cart_, rank, coords, c.restricted, cuts[static_cast<std::size_t>(k) - 1].own);
      L.up.emplace_back(cart_, rank, coords, c.prolonged, c.own);
    }
  }
  ~MpiLevels() { MPI_Comm_free(&cart_); }
  MpiLevels(const MpiLevels&) = delete;
  MpiLevels& operator=(const MpiLevels&) = delete;

  Block block(Field f, int k) { return array(f, k).block(); }
  void update_ghosts(Field f, int k) { level(k).halo.front().run(block(f, k)); }
  void restrict_to_coarse(int k) { level(k).down.front().run(block(Field::restricted, k), block(Field::r, k - 1)); }
  void prolong_to_fine(int k) { level(k).up.front().run(block(Field::prolonged, k), block(Field::work, k)); }
  double sum(double x) {
    check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, cart_), "MPI_Allreduce");
    return x;
  }
  double max(double x) {
    check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, cart_), "MPI_Allreduce");
    return x;
  }
  std::vector<nas_mg::ChargeCandidates> allgather(const nas_mg::ChargeCandidates& mine) {
    int size = 0;
    check(MPI_Comm_size(cart_, &size), "MPI_Comm_size");
    std::vector<nas_mg::ChargeCandidates> all(static_cast<std::size_t>(size));
    constexpr int bytes = static_cast<int>(sizeof mine);
    check(MPI_Allgather(&mine, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, cart_), "MPI_Allgather");
    return all;
  }
  void barrier() { check(MPI_Barrier(cart_), "MPI_Barrier"); }
  static double wtime() { return MPI_Wtime(); }

 private:
  // Members that exist on some levels only are vectors of zero or one element (the classes here
  // are neither copyable nor default-constructible in a useful way).
  struct Level {
    std::vector<LocalArray> u, r, v, work, restricted, prolonged;
    std::vector<HaloExchange> halo;
    std::vector<Transfer> down, up;
  };
  Level& level(int k) { return levels_.at(static_cast<std::size_t>(k)); }
  LocalArray& array(Field f, int k) {
    auto& L = level(k);
    std::vector<LocalArray>* p = nullptr;
    switch (f) {
      case Field::u: p = &L.u; break;
      case Field::r: p = &L.r; break;
      case Field::v: p = &L.v; break;
      case Field::work: p = &L.work; break;
      case Field::restricted: p = &L.restricted; break;
      case Field::prolonged: p = &L.prolonged; break;
    }
    if (p->empty()) throw std::logic_error("MpiLevels: no such field on level " + std::to_string(k));
    return p->front();
  }

  MPI_Comm cart_ = MPI_COMM_NULL;
  std::vector<Level> levels_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"NPB MG with hand-written MPI: V-cycles on a periodic 3-D grid, verified against NPB's residual norm"};
  std::string name = "S";
  app.add_option("--class", name, "NPB class: S (32^3), W (128^3), A (256^3, 4 iterations), B (256^3, 20)")
      ->check(CLI::IsMember({"S", "W", "A", "B"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return code;
  }
  const nas_mg::ProblemClass& cls = *nas_mg::find_class(name[0]);
  const auto shape = nas_mg::grid_shape(size);
  nas_mg::Result result;
  {
    MpiLevels levels(MPI_COMM_WORLD, cls.log2_n, shape);
    nas_mg::Solver<MpiLevels> solver(levels, cls);
    result = solver.run();
  }
  if (rank == 0) nas_mg::report("hand-written MPI", cls, size, shape, result);
  MPI_Finalize();
  return result.verified ? 0 : 1;
}
