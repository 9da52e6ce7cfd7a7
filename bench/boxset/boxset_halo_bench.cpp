// Box-set halo exchange (issue 16): DistArray::update_ghosts over a box set against
//  - "mpi-isend-irecv-per-strip": the exchange a careful MPI user writes by hand for the same boxes
//    (KeLP's style): each box's face strips, found once at set-up by intersecting them (wrapped
//    across the periodic sides) with every box; a strip from another rank is one MPI_Irecv into the
//    box's storage through a committed MPI_Type_create_subarray, a strip going to another rank one
//    MPI_Isend from the source box's storage the same way (no packing), strips between boxes of the
//    same rank plain copies; receives posted first, then sends, then local copies, then MPI_Waitall.
//    Both sides enumerate the strips in one canonical order, so one tag suffices (MPI does not let
//    messages between a pair of ranks with one tag overtake each other).
//    op "boxset-halo"; cases: an n x n domain tiled by k x k boxes, every 7th left out (holes),
//    Morton-assigned (tessera::make_box_set).
//  - "tessera-block": tessera's ordinary block distribution (a P x 1 grid) against the box set of
//    exactly its boxes, one per rank, so that what differs is the box-set machinery only (the
//    issue's overhead target <= 1.05x). op "boxset-halo-vs-block".
// Both cases: 2-D, ghosts of width 1 on the faces only (5-point stencil), periodic along both axes,
// doubles. Each array is tessera's patch layout (one patch per box, the box grown by the ghost
// width, row-major); the anchor keeps arrays of the same layout of its own.
//
// Checks, before any timing: after one exchange each, every stored value of every patch (owned and
// ghost) is compared with what the halo semantics require, computed from the lattice and not from
// either code (a face ghost cell holds its wrapped index's value, or the sentinel over a hole;
// corners keep the sentinel), and the two codes' arrays with each other, bit for bit; the job
// aborts on any difference. Timing: the codes alternate, the order rotating every repetition, each
// run timed with MPI_Wtime between barriers, the max over ranks per repetition
// (support/bench_timing.hpp), so each exchange finds the caches as another code's left them.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;
using tessera::bench::Summary;

constexpr const char* kProgram = "bench_boxset_halo";
constexpr double kSentinel = -1.0;  // ghost cells before the exchange; owned values are >= 1
constexpr index_t kWidth = 1;

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

double value_of(const Point<2>& q, index_t n) { return static_cast<double>(q[0] * n + q[1] + 1); }

/// The box set of a case: an n x n domain cut into k x k tiles of (n / k)^2, with tile (i, j) left
/// out when `holes` and (i k + j) % 7 == 3 (as bench_plan's lattice).
struct Lattice {
  index_t n = 0, k = 1;
  bool holes = true;

  [[nodiscard]] index_t tile() const { return n / k; }
  [[nodiscard]] bool kept(index_t i, index_t j) const { return !holes || (i * k + j) % 7 != 3; }
  /// True if a box holds global index q (q inside the domain).
  [[nodiscard]] bool held(const Point<2>& q) const { return kept(q[0] / tile(), q[1] / tile()); }
  [[nodiscard]] std::vector<Box<2>> boxes() const {
    std::vector<Box<2>> out;
    const index_t t = tile();
    for (index_t i = 0; i < k; ++i)
      for (index_t j = 0; j < k; ++j)
        if (kept(i, j)) out.push_back(Box<2>({i * t, j * t}, {i * t + t, j * t + t}));
    return out;
  }
};

/// The face ghost slab of `b` along axis d on side `upper` (width kWidth, b's extent along the
/// other axis: faces only).
Box<2> face_slab(const Box<2>& b, std::size_t d, bool upper) {
  Box<2> g = b;
  g.lo[d] = upper ? b.hi[d] : b.lo[d] - kWidth;
  g.hi[d] = upper ? b.hi[d] + kWidth : b.lo[d];
  return g;
}

/// The offset that wraps a face slab lying outside the periodic n x n domain back into it.
Point<2> wrap_offset(const Box<2>& g, index_t n) {
  Point<2> s{};
  for (std::size_t d = 0; d < 2; ++d) s[d] = g.lo[d] < 0 ? n : (g.hi[d] > n ? -n : 0);
  return s;
}

/// Every stored value of `u` (one patch per box of this rank, `boxes` in patch order) against the
/// halo semantics; aborts naming `what` at the first difference.
void check_semantics(const tessera::DistArray<double, 2>& u, const Lattice& lat, const std::string& what) {
  const index_t n = lat.n;
  for (std::size_t p = 0; p < u.patch_count(); ++p) {
    const auto v = u.local(p);
    const Box<2> own = u.owned_box(p);
    for (index_t i = 0; i < v.extents[0]; ++i)
      for (index_t j = 0; j < v.extents[1]; ++j) {
        const Point<2> q{own.lo[0] + i - v.ghost_lo[0], own.lo[1] + j - v.ghost_lo[1]};
        const bool in0 = q[0] >= own.lo[0] && q[0] < own.hi[0], in1 = q[1] >= own.lo[1] && q[1] < own.hi[1];
        double want = kSentinel;
        if (in0 && in1) {
          want = value_of(q, n);
        } else if (in0 || in1) {  // a face ghost cell: the value at its wrapped index, if a box holds it
          const Point<2> w{(q[0] + n) % n, (q[1] + n) % n};
          if (lat.held(w)) want = value_of(w, n);
        }
        if (v({i, j}) != want)
          abort_job(what + ": patch " + std::to_string(p) + " holds " + tessera::bench::exact(v({i, j})) + " at (" +
                    std::to_string(q[0]) + ", " + std::to_string(q[1]) + "), not " + tessera::bench::exact(want));
      }
  }
}

/// Patch k of `a` and `b` hold the same bits everywhere (owned and ghosts); aborts otherwise.
template <class View>
void check_same(const View& mine, const std::vector<double>& theirs, const std::string& what) {
  for (index_t i = 0; i < mine.extents[0]; ++i)
    for (index_t j = 0; j < mine.extents[1]; ++j)
      if (mine({i, j}) != theirs[static_cast<std::size_t>(i * mine.extents[1] + j)])
        abort_job(what + ": the anchor and tessera differ at local (" + std::to_string(i) + ", " + std::to_string(j) + ")");
}

/// A tessera array over `dom` with faces-only periodic ghosts of width 1: owned cells their value,
/// ghost cells the sentinel.
tessera::DistArray<double, 2> make_array(const tessera::Domain<2>& dom, index_t n) {
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(kWidth).faces_only().periodic_along({true, true}));
  for (std::size_t p = 0; p < u.patch_count(); ++p) {
    const auto v = u.local(p);
    for (index_t i = 0; i < v.extents[0]; ++i)
      for (index_t j = 0; j < v.extents[1]; ++j) v({i, j}) = kSentinel;
  }
  u.for_each_owned([n](const Point<2>& q, double& x) { x = value_of(q, n); });
  return u;
}

/// The hand-written exchange (see the file comment): this rank's boxes in tessera's patch layout,
/// the strips found at set-up, and the exchange itself.
class HandWrittenExchange {
 public:
  HandWrittenExchange(MPI_Comm world, const tessera::BoxSet<2>& set, index_t n) {
    check_mpi(MPI_Comm_dup(world, &comm_), "MPI_Comm_dup");
    check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    std::vector<std::size_t> patch_of(set.size(), set.size());
    for (const std::size_t b : set.boxes_of(rank_)) {
      patch_of[b] = patches_.size();
      Patch p{set.box(b), tessera::extents(set.box(b)) + Point<2>::filled(2 * kWidth), {}};
      p.v.assign(static_cast<std::size_t>(p.ext[0] * p.ext[1]), kSentinel);
      for (index_t i = 0; i < extent(p.box, 0); ++i)
        for (index_t j = 0; j < extent(p.box, 1); ++j)
          p.v[static_cast<std::size_t>((i + kWidth) * p.ext[1] + j + kWidth)] = value_of(p.box.lo + Point<2>{i, j}, n);
      patches_.push_back(std::move(p));
    }
    // The canonical order: destination box, axis, side, source box. A strip is the wrapped face
    // slab of the destination box met by the source box.
    for (std::size_t b = 0; b < set.size(); ++b)
      for (std::size_t d = 0; d < 2; ++d)
        for (const bool upper : {false, true}) {
          const Box<2> g = face_slab(set.box(b), d, upper);
          const Point<2> s = wrap_offset(g, n);
          const Box<2> gs = shift(g, s);
          const bool recv = set.owner(b) == rank_;
          for (std::size_t c = 0; c < set.size(); ++c) {
            const bool send = set.owner(c) == rank_;
            if (!recv && !send) continue;
            const Box<2> met = intersect(gs, set.box(c));
            if (met.empty()) continue;
            const Box<2> to = shift(met, Point<2>{} - s);  // where it lands, beside box b
            if (recv && send) {
              locals_.push_back({patch_of[b], patch_of[c], to, met});
            } else if (recv) {
              const Patch& p = patches_[patch_of[b]];
              messages_.push_back({set.owner(c), patch_of[b], subarray(p, to), true});
            } else {
              const Patch& p = patches_[patch_of[c]];
              messages_.push_back({set.owner(b), patch_of[c], subarray(p, met), false});
            }
          }
        }
    requests_.resize(messages_.size());
  }
  HandWrittenExchange(const HandWrittenExchange&) = delete;
  HandWrittenExchange& operator=(const HandWrittenExchange&) = delete;
  ~HandWrittenExchange() {
    for (auto& m : messages_) MPI_Type_free(&m.type);
    MPI_Comm_free(&comm_);
  }

  void exchange() {
    // Receives first, then sends, then the local copies, then wait.
    for (std::size_t i = 0; i < messages_.size(); ++i)
      if (messages_[i].receive)
        check_mpi(MPI_Irecv(patches_[messages_[i].patch].v.data(), 1, messages_[i].type, messages_[i].peer, 0, comm_,
                            &requests_[i]),
                  "MPI_Irecv");
    for (std::size_t i = 0; i < messages_.size(); ++i)
      if (!messages_[i].receive)
        check_mpi(MPI_Isend(patches_[messages_[i].patch].v.data(), 1, messages_[i].type, messages_[i].peer, 0, comm_,
                            &requests_[i]),
                  "MPI_Isend");
    for (const Local& l : locals_) {
      Patch& to = patches_[l.to_patch];
      const Patch& from = patches_[l.from_patch];
      for (index_t i = 0; i < extent(l.to, 0); ++i) {
        double* out = &to.v[offset(to, {l.to.lo[0] + i, l.to.lo[1]})];
        const double* in = &from.v[offset(from, {l.from.lo[0] + i, l.from.lo[1]})];
        for (index_t j = 0; j < extent(l.to, 1); ++j) out[j] = in[j];
      }
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  [[nodiscard]] const std::vector<double>& patch(std::size_t k) const { return patches_[k].v; }
  [[nodiscard]] std::size_t patch_count() const { return patches_.size(); }
  /// Messages this rank posts per exchange (receives and sends).
  [[nodiscard]] std::size_t message_count() const { return messages_.size(); }

 private:
  struct Patch {
    Box<2> box;            // owned box
    Point<2> ext;          // stored extents: the box grown by the ghost width
    std::vector<double> v;  // row-major
  };
  struct Message {
    int peer = 0;
    std::size_t patch = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    bool receive = false;
  };
  struct Local {
    std::size_t to_patch, from_patch;
    Box<2> to, from;  // global boxes: where the strip lands, where it comes from
  };

  static std::size_t offset(const Patch& p, const Point<2>& q) {
    return static_cast<std::size_t>((q[0] - p.box.lo[0] + kWidth) * p.ext[1] + q[1] - p.box.lo[1] + kWidth);
  }
  /// The committed subarray type of global box `region` within patch p's storage.
  static MPI_Datatype subarray(const Patch& p, const Box<2>& region) {
    const std::array<int, 2> sizes{static_cast<int>(p.ext[0]), static_cast<int>(p.ext[1])};
    const std::array<int, 2> sub{static_cast<int>(extent(region, 0)), static_cast<int>(extent(region, 1))};
    const std::array<int, 2> start{static_cast<int>(region.lo[0] - p.box.lo[0] + kWidth),
                                   static_cast<int>(region.lo[1] - p.box.lo[1] + kWidth)};
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_subarray(2, sizes.data(), sub.data(), start.data(), MPI_ORDER_C, MPI_DOUBLE, &t),
              "MPI_Type_create_subarray");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
    return t;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::vector<Patch> patches_;
  std::vector<Message> messages_;
  std::vector<Local> locals_;
  std::vector<MPI_Request> requests_;
};

struct Options {
  std::vector<index_t> sizes{1024, 4096};
  std::vector<index_t> per_side{8, 32};
  int reps = 0, warmup = 3;
};

// 200 at every size: a 4096^2 exchange of one box per rank takes ~30 us on 2 ranks, and the
// median of 40 such runs moved by 10% between launches (the tiling's worst launch 0.99-1.09).
int repetitions(const Options& opt, index_t) { return opt.reps > 0 ? opt.reps : 200; }

/// The box-set exchange against the hand-written one on a k x k lattice with holes.
Record run_against_mpi(const tessera::Communicator& world, const Options& opt, index_t n, index_t k,
                       const tessera::bench::Table& table) {
  const Lattice lat{n, k, true};
  const auto set = tessera::make_box_set(Box<2>({0, 0}, {n, n}), lat.boxes(), world.size(), tessera::BoxAssignment::morton);
  const tessera::Domain<2> dom(world, tessera::Distribution<2>::from_box_set(set));
  auto u = make_array(dom, n);
  HandWrittenExchange hand(world.raw(), set, n);
  const std::string name = "2d-5pt-w1-periodic-" + std::to_string(n) + "-" + std::to_string(set.size()) + "boxes";
  u.update_ghosts();
  hand.exchange();
  check_semantics(u, lat, name + " (tessera)");
  for (std::size_t p = 0; p < u.patch_count(); ++p) check_same(std::as_const(u).local(p), hand.patch(p), name);
  const auto t = tessera::bench::time_alternating(world.raw(), {[&] { u.update_ghosts(); }, [&] { hand.exchange(); }},
                                                  opt.warmup, repetitions(opt, n));
  table.print_row("boxset-halo " + name, {1e3 * t[0].median, 1e3 * t[0].min, 1e3 * t[1].median, 1e3 * t[1].min,
                                          t[0].median / t[1].median},
                  "  (" + std::to_string(hand.message_count()) + " anchor messages on rank 0)");
  return Record::timing("boxset-halo", name, world.size(), t[0], "mpi-isend-irecv-per-strip", t[1]);
}

/// The box set of the block distribution's own boxes against the block distribution itself.
Record run_against_block(const tessera::Communicator& world, const Options& opt, index_t n,
                         const tessera::bench::Table& table) {
  const int P = world.size();
  const Box<2> domain({0, 0}, {n, n});
  const tessera::Distribution<2> block(domain, tessera::ProcGrid<2>::with_shape(P, {P, 1}),
                                       {tessera::block(), tessera::block()});
  std::vector<Box<2>> boxes;
  std::vector<int> owners;
  for (int r = 0; r < P; ++r)
    if (!block.owned_box(r).empty()) boxes.push_back(block.owned_box(r)), owners.push_back(r);
  const tessera::BoxSet<2> set(domain, std::move(boxes), std::move(owners), P);
  const tessera::Domain<2> block_dom(world, block), set_dom(world, tessera::Distribution<2>::from_box_set(set));
  auto a = make_array(set_dom, n);
  auto b = make_array(block_dom, n);
  const std::string name = "2d-5pt-w1-periodic-" + std::to_string(n) + "-block-tiling";
  a.update_ghosts();
  b.update_ghosts();
  const Lattice whole{n, 1, false};
  check_semantics(a, whole, name + " (box set)");
  check_semantics(b, whole, name + " (block)");
  const auto t = tessera::bench::time_alternating(world.raw(), {[&] { a.update_ghosts(); }, [&] { b.update_ghosts(); }},
                                                  opt.warmup, repetitions(opt, n));
  table.print_row("boxset-halo-vs-block " + name, {1e3 * t[0].median, 1e3 * t[0].min, 1e3 * t[1].median,
                                                   1e3 * t[1].min, t[0].median / t[1].median});
  return Record::timing("boxset-halo-vs-block", name, world.size(), t[0], "tessera-block", t[1]);
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Box-set halo exchange against a hand-written MPI exchange of the same boxes and against the block "
               "distribution"};
  Options opt;
  std::string json;
  app.add_option("--sizes", opt.sizes, "n of the n x n domain")->delimiter(',')->check(CLI::Range(index_t{8}, index_t{1} << 15));
  app.add_option("--boxes-per-side", opt.per_side, "k: the domain cut into k x k boxes (every 7th left out); must divide n")
      ->delimiter(',')
      ->check(CLI::Range(index_t{1}, index_t{1} << 10));
  app.add_option("--repetitions", opt.reps, "timed runs per case (0: 200)")->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", opt.warmup, "untimed runs per code and case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  for (const index_t n : opt.sizes)
    for (const index_t k : opt.per_side)
      if (n % k != 0 || n / k < kWidth)
        abort_job("--boxes-per-side " + std::to_string(k) + " must divide --sizes " + std::to_string(n) +
                  " into boxes at least as wide as the ghosts");
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(print, "operation case", 58,
                                    {{"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf("box-set halo, %d ranks; milliseconds per exchange, max over ranks\n"
                "anchors: mpi-isend-irecv-per-strip (boxset-halo), tessera-block (boxset-halo-vs-block)\n",
                world.size());
  table.print_header();
  std::vector<Record> records;
  for (const index_t n : opt.sizes) {
    for (const index_t k : opt.per_side) records.push_back(run_against_mpi(world, opt, n, k, table));
    records.push_back(run_against_block(world, opt, n, table));
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
