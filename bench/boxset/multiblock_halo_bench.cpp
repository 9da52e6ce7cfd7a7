// Multiblock ghost exchange (issue 16, PARTI's multiblock codes): MultiblockArray::update_ghosts
// over a ring of four blocks against
//  - "tessera-periodic-rectangle": the same cells as ONE periodic rectangle, an ordinary DistArray.
// The ring: an N x N rectangle cut into four blocks of N/4 rows, block b's upper face of axis 0
// glued onto block b+1's lower face (block 3 onto block 0: periodic along axis 0 through the
// interfaces), each block glued to itself along axis 1 (periodic columns); all orientations the
// identity. Block b lives on rank b * P / 4; the rectangle is cut along its rows at the same places
// (a cut distribution over a P x 1 grid), so both exchanges move the same cells between the same
// ranks and what differs is the multiblock machinery: the embedded box set, the interface copies
// appended to the halo schedule, a block's periodic columns as an interface with itself.
// op "multiblock-halo", case "ring-4blocks-2d-5pt-w1-<N>". Ghosts of width 1 on the faces only
// (5-point stencil), doubles.
//
// Checks, before any timing: after one exchange each, every stored value of both arrays (owned
// and face ghost cells) equals the value of the rectangle cell it stands for (wrapped across the
// periodic sides), computed from the geometry and not from either code; corner ghosts keep the
// sentinel. The job aborts on any difference. Timing: the codes alternate, the order rotating
// every repetition, the max over ranks per repetition (support/bench_timing.hpp).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using tessera::bench::Record;

constexpr const char* kProgram = "bench_multiblock_halo";
constexpr double kSentinel = -1.0;  // ghost cells before the exchange; owned values are >= 1
constexpr int kBlocks = 4;

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

/// The value of rectangle cell q (n x n, wrapped into it).
double value_of(Point<2> q, index_t n) {
  for (std::size_t d = 0; d < 2; ++d) q[d] = (q[d] % n + n) % n;
  return static_cast<double>(q[0] * n + q[1] + 1);
}

/// The rank block b lives on.
int owner_of_block(int b, int ranks) { return b * ranks / kBlocks; }

/// What a stored cell at rectangle index q must hold: its value when owned, its wrapped value on a
/// face ghost, the sentinel on a corner (outside `own` along both axes).
double expected(const Box<2>& own, const Point<2>& q, index_t n) {
  const bool in0 = q[0] >= own.lo[0] && q[0] < own.hi[0], in1 = q[1] >= own.lo[1] && q[1] < own.hi[1];
  return in0 || in1 ? value_of(q, n) : kSentinel;
}

/// Every stored value of a patch view `v` whose owned box is `own` in rectangle indices.
template <class View>
void check_patch(const View& v, const Box<2>& own, index_t n, const std::string& what) {
  for (index_t i = 0; i < v.extents[0]; ++i)
    for (index_t j = 0; j < v.extents[1]; ++j) {
      const Point<2> q{own.lo[0] + i - v.ghost_lo[0], own.lo[1] + j - v.ghost_lo[1]};
      if (v({i, j}) != expected(own, q, n))
        abort_job(what + ": (" + std::to_string(q[0]) + ", " + std::to_string(q[1]) + ") holds " +
                  tessera::bench::exact(v({i, j})) + ", not " + tessera::bench::exact(expected(own, q, n)));
    }
}

/// Sets every stored cell of patch view `v` (owned box `own`, rectangle indices): owned cells their
/// value, ghosts the sentinel.
template <class View>
void fill_patch(const View& v, const Box<2>& own, index_t n) {
  for (index_t i = 0; i < v.extents[0]; ++i)
    for (index_t j = 0; j < v.extents[1]; ++j) {
      const Point<2> q{own.lo[0] + i - v.ghost_lo[0], own.lo[1] + j - v.ghost_lo[1]};
      v({i, j}) = contains(own, q) ? value_of(q, n) : kSentinel;
    }
}

Record run_ring(const tessera::Communicator& world, index_t n, int warmup, int reps, const tessera::bench::Table& table) {
  const int P = world.size();
  const index_t m = n / kBlocks;  // rows per block
  // The ring of blocks, each on one rank, glued as the file comment says.
  std::vector<tessera::Distribution<2>> blocks;
  std::vector<tessera::BlockInterface<2>> glue;
  for (int b = 0; b < kBlocks; ++b) {
    blocks.emplace_back(Box<2>({0, 0}, {m, n}), tessera::ProcGrid<2>::from_ranks(P, {1, 1}, {owner_of_block(b, P)}),
                        std::array{tessera::block(), tessera::block()});
    glue.push_back({{static_cast<std::size_t>(b), 0, true, {}}, {static_cast<std::size_t>((b + 1) % kBlocks), 0, false, {}},
                    tessera::Orientation<2>()});
    glue.push_back({{static_cast<std::size_t>(b), 1, true, {}}, {static_cast<std::size_t>(b), 1, false, {}},
                    tessera::Orientation<2>()});
  }
  tessera::MultiblockDomain<2> ring_dom(world, tessera::MultiblockLayout<2>(blocks, glue, 1));
  tessera::MultiblockArray<double, 2> ring(ring_dom, tessera::ghosts<2>(1).faces_only());
  // The rectangle, cut along its rows where the blocks' ranks change.
  std::vector<index_t> cuts{0};
  for (int r = 0; r < P; ++r) {
    index_t end = cuts.back();
    for (int b = 0; b < kBlocks; ++b)
      if (owner_of_block(b, P) == r) end = (b + 1) * m;
    cuts.push_back(end);
  }
  const tessera::Distribution<2> rect_dist(Box<2>({0, 0}, {n, n}), tessera::ProcGrid<2>::with_shape(P, {P, 1}),
                                           {tessera::cut(cuts), tessera::block()});
  const tessera::Domain<2> rect_dom(world, rect_dist);
  tessera::DistArray<double, 2> rect(rect_dom, tessera::ghosts<2>(1).faces_only().periodic_along({true, true}));

  // Block b's cell p is rectangle cell (b m + p0, p1); its patches' owned boxes in rectangle indices.
  const auto& layout = ring_dom.layout();
  std::vector<Box<2>> ring_owned;
  for (std::size_t k = 0; k < ring.patch_count(); ++k) {
    const std::size_t b = ring.block_of_patch(k);
    Box<2> own = ring.array().owned_box(k);
    own = shift(own, Point<2>{static_cast<index_t>(b) * m - layout.offset(b)[0], -layout.offset(b)[1]});
    ring_owned.push_back(own);
    fill_patch(ring.local(k), own, n);
  }
  for (std::size_t k = 0; k < rect.patch_count(); ++k) fill_patch(rect.local(k), rect.owned_box(k), n);
  const std::string name = "ring-4blocks-2d-5pt-w1-" + std::to_string(n);
  ring.update_ghosts();
  rect.update_ghosts();
  for (std::size_t k = 0; k < ring.patch_count(); ++k) check_patch(std::as_const(ring).local(k), ring_owned[k], n, name + " (multiblock)");
  for (std::size_t k = 0; k < rect.patch_count(); ++k)
    check_patch(std::as_const(rect).local(k), rect.owned_box(k), n, name + " (rectangle)");
  const auto t = tessera::bench::time_alternating(world.raw(), {[&] { ring.update_ghosts(); }, [&] { rect.update_ghosts(); }},
                                                  warmup, reps);
  table.print_row("multiblock-halo " + name, {1e3 * t[0].median, 1e3 * t[0].min, 1e3 * t[1].median, 1e3 * t[1].min,
                                             t[0].median / t[1].median});
  return Record::timing("multiblock-halo", name, world.size(), t[0], "tessera-periodic-rectangle", t[1]);
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Multiblock ghost exchange (a ring of four blocks) against the same cells as one periodic rectangle"};
  std::vector<index_t> sizes{1024, 4096};
  int reps = 0, warmup = 3;
  std::string json;
  app.add_option("--sizes", sizes, "N of the N x N rectangle (a multiple of 4)")
      ->delimiter(',')
      ->check(CLI::Range(index_t{8}, index_t{1} << 15));
  app.add_option("--repetitions", reps, "timed runs per case (0: 200 up to 1024^2, 40 above)")->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", warmup, "untimed runs per code and case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  for (const index_t n : sizes)
    if (n % kBlocks != 0) abort_job("--sizes " + std::to_string(n) + " is not a multiple of 4 (four blocks of N/4 rows)");
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(print, "operation case", 46,
                                    {{"tessera", 10, 3}, {"min", 10, 3}, {"anchor", 10, 3}, {"min", 10, 3}, {"ratio", 7, 2}});
  if (print)
    std::printf("multiblock halo, %d ranks; milliseconds per exchange, max over ranks\n"
                "anchor: tessera-periodic-rectangle (the same cells as one ordinary periodic array)\n",
                world.size());
  table.print_header();
  std::vector<Record> records;
  for (const index_t n : sizes) records.push_back(run_ring(world, n, warmup, reps > 0 ? reps : (n <= 1024 ? 200 : 40), table));
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
