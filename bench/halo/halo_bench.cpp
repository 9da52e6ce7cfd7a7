// Halo exchange: tessera's Mover over halo_schedule against the exchange an HPC user writes by hand,
// in the same MPI job, on arrays of the same layout (tessera's patch layout: owned block plus ghost
// layers, row-major; P x 1 [x 1] grid). Tessera's arrays are tessera storage, in huge pages from
// 2 MiB as every DistArray's; the anchors' are std::vectors, as a hand-written program's
// (halo/halo_common.hpp; `make bench` reruns the large cases with both in huge pages, "-hugetlb").
// Anchors, each reported as its own record per case:
//  - "mpi-subarray-isend-irecv": MPI_Cart_create, MPI_Cart_shift, MPI_Type_create_subarray,
//    MPI_Irecv / MPI_Isend / MPI_Waitall.
//  - "mpi-neighbor-alltoallw": the same subarray datatypes and phases, each phase one
//    MPI_Neighbor_alltoallw on the Cartesian communicator (2N neighbours in the standard's order:
//    per dimension the lower, then the upper; counts 0 for the dimensions not in the phase).
//    Corners are filled per dimension in phases, as the Isend/Irecv anchor does, rather than with
//    one call over a distributed-graph communicator of all 8/26 neighbours: on the small grids
//    measured here (2 ranks) those neighbours are the same one or two processes many times over,
//    and MPI matches repeated edges between one pair only by their order, which the standard leaves
//    loosely specified; the Cartesian order is defined, and the data moved is then exactly the
//    Isend/Irecv anchor's, so the two anchors differ only in the call that moves it.
//  - "mpi-subarray-isend-irecv-in-domain" (non-periodic cases with corners only): the Isend/Irecv
//    anchor, but its slabs span the ghost layers of earlier-exchanged dimensions only where those
//    lie inside the domain, which is what tessera's semantics require (ghost cells outside a
//    non-periodic domain are left as the program set them). The plain anchor's dimension-0 slabs
//    include those outside ghost layers, which makes them contiguous (sent without packing); the
//    in-domain slabs are strided faces, as tessera's, so this is the like-for-like comparison.
// Plus a record "allocations_per_run" per case: global operator new calls per tessera exchange
// over the warm-up and timed exchanges after the first (support/allocation_counter.hpp; issue 6
// asks for zero).
//
// After one exchange each, every rank checks tessera's array against the values the halo semantics
// require and each anchor's array against tessera's, bit for bit; the job aborts on any difference,
// so the timings below are of codes that provably do the same work.
//
// The anchors fill corners (9- and 27-point cases) the standard way: one phase per dimension, each
// waiting for the previous one, whose face slabs span the ghost layers already filled along the
// dimensions exchanged before. They exchange the last dimension first, so the slabs of dimension 0
// (the one split across ranks in the grids used here) include every ghost layer of the others and
// are contiguous: MPI sends them without packing. Faces-only cases exchange all dimensions in one
// phase. Along a periodic dimension of grid extent 1 the anchors send to themselves through MPI, as
// MPI_Cart_shift makes it; tessera copies locally. Without periodicity the plain anchors'
// dimension-0 slabs also carry the neighbour's ghost cells outside the domain into the corner cells
// outside the domain, which tessera leaves alone; both hold the initial sentinel there, so the
// arrays agree.
//
// Timing, in three modes (--modes), each its own records:
//  - cold (op "halo"): tessera and the anchors take turns (the order rotating every repetition),
//    so each exchange finds the caches as another code's exchange on another array left them;
//  - warm (op "halo-warm"): each code repeats its exchange on its own array back to back (half the
//    repetitions, then the codes in reverse order for the other half), as a program repeating one
//    exchange on one array with little work between sees it;
//  - in-loop (op "halo-in-loop", the one users feel): each iteration is an exchange and then a
//    Jacobi sweep over the owned points into a second array (jacobi_sweep.hpp), the two arrays
//    swapping roles, timed per iteration like warm; tessera's and the Isend/Irecv anchor's arrays
//    must agree bit for bit after the same number of iterations.
// Every run is timed with MPI_Wtime between barriers; the max over ranks is taken per repetition.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "halo/halo_common.hpp"
#include "halo/jacobi_sweep.hpp"
#include "support/allocation_counter.hpp"  // the one TU of bench_halo that includes it
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace {

using tessera::Block;
using tessera::Box;
using tessera::check_mpi;
using tessera::index_t;
using tessera::Point;
using tessera::Schedule;
using tessera::bench::exact;
using tessera::bench::max_over_ranks;
using tessera::bench::summarize;
using tessera::bench::Summary;

using tessera::bench::halo::Case;
using tessera::bench::halo::for_each_local;
using tessera::bench::halo::jacobi_sweep;
using tessera::bench::halo::TesseraHalo;

constexpr const char* kAnchor = "mpi-subarray-isend-irecv";
constexpr const char* kNeighborAnchor = "mpi-neighbor-alltoallw";
constexpr const char* kInDomainAnchor = "mpi-subarray-isend-irecv-in-domain";

struct Result {
  std::string name;
  Summary tessera, anchor, neighbor;
  std::optional<Summary> in_domain;  // non-periodic cases with corners only
  double face_bytes = 0;
  double allocations_per_run = 0;
  // The warm and in-loop modes: tessera against the Isend/Irecv anchor (when --modes has them).
  std::optional<std::array<Summary, 2>> warm, in_loop;
};

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job("bench_halo", message); }

/// The table printed while the cases run (microseconds, max over ranks).
tessera::bench::Table make_table(bool enabled) {
  return {enabled,
          "case",
          30,
          {{"face bytes", 11, 0},
           {"tessera med", 11, 2},
           {"tessera min", 11, 2},
           {"anchor med", 11, 2},
           {"anchor min", 11, 2},
           {"ratio", 7, 2},
           {"nbr-a2aw med", 12, 2},
           {"ratio", 7, 2},
           {"allocs/run", 10, 2}}};
}

/// The hand-written exchange, on an array with tessera's patch layout: exchange() with
/// Isend/Irecv, exchange_neighbor() with MPI_Neighbor_alltoallw, the same datatypes and phases.
/// With `in_domain`, the slabs span the ghost layers of earlier-exchanged dimensions only on the
/// sides that have a neighbour (not outside a non-periodic domain).
template <std::size_t N>
class SubarrayHalo {
 public:
  SubarrayHalo(MPI_Comm world, const std::array<int, N>& grid, bool periodic, index_t n, index_t w, bool corners,
               bool in_domain = false) {
    std::array<int, N> periods{};
    periods.fill(periodic ? 1 : 0);
    std::array<int, N> shape = grid;
    // reorder = 0: cart rank = world rank, so the grid positions are tessera's (checked by the caller).
    check_mpi(MPI_Cart_create(world, static_cast<int>(N), shape.data(), periods.data(), 0, &cart_), "MPI_Cart_create");
    int rank = 0;
    check_mpi(MPI_Comm_rank(cart_, &rank), "MPI_Comm_rank");
    std::array<int, N> coords{};
    check_mpi(MPI_Cart_coords(cart_, rank, static_cast<int>(N), coords.data()), "MPI_Cart_coords");
    for (std::size_t d = 0; d < N; ++d) {
      const index_t g = grid[d], q = n / g, rem = n % g, c = coords[d];
      first_[d] = c * q + std::min(c, rem);
      count_[d] = q + (c < rem ? 1 : 0);
      extents_[d] = count_[d] + 2 * w;
      if (count_[d] < w) abort_job("the anchor needs every rank to own at least the ghost width along each dimension");
      coords_[d] = coords[d];
    }
    // Phases: all dimensions at once for faces; for corners one per dimension, last dimension first.
    std::vector<std::vector<std::size_t>> phases;
    if (corners) {
      for (std::size_t d = N; d-- > 0;) phases.push_back({d});
    } else {
      phases.emplace_back();
      for (std::size_t d = 0; d < N; ++d) phases.back().push_back(d);
    }
    std::array<bool, N> done{}, has_lower{}, has_upper{};
    for (std::size_t d = 0; d < N; ++d) {
      int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
      check_mpi(MPI_Cart_shift(cart_, static_cast<int>(d), 1, &lower, &upper), "MPI_Cart_shift");
      has_lower[d] = lower != MPI_PROC_NULL;
      has_upper[d] = upper != MPI_PROC_NULL;
    }
    for (const auto& dims : phases) {
      Phase phase;
      for (std::size_t d : dims) {
        int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
        check_mpi(MPI_Cart_shift(cart_, static_cast<int>(d), 1, &lower, &upper), "MPI_Cart_shift");
        const int up = static_cast<int>(2 * d), down = up + 1;  // tags: direction of travel along d
        // Slabs along d: owned layers out, ghost layers in; along e != d the owned range, or the
        // whole extent where dimension e was exchanged in an earlier phase (that carries corners).
        const auto slab = [&](index_t start) {
          std::array<int, N> sizes{}, subsizes{}, starts{};
          for (std::size_t e = 0; e < N; ++e) {
            sizes[e] = static_cast<int>(extents_[e]);
            // Along an earlier-exchanged e: from the lower ghost layers (if they were filled) to the
            // upper ones (if they were filled); the whole extent unless `in_domain`.
            const index_t lo = e == d ? start : done[e] && (!in_domain || has_lower[e]) ? 0 : w;
            const index_t hi = e == d ? start + w
                               : done[e] && (!in_domain || has_upper[e]) ? extents_[e]
                                                                         : w + count_[e];
            subsizes[e] = static_cast<int>(hi - lo);
            starts[e] = static_cast<int>(lo);
          }
          MPI_Datatype t = MPI_DATATYPE_NULL;
          check_mpi(MPI_Type_create_subarray(static_cast<int>(N), sizes.data(), subsizes.data(), starts.data(),
                                             MPI_ORDER_C, MPI_DOUBLE, &t),
                    "MPI_Type_create_subarray");
          check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
          types_.push_back(t);
          return t;
        };
        phase.receives.push_back({slab(0), lower, up});                // lower ghost layers
        phase.receives.push_back({slab(w + count_[d]), upper, down});  // upper ghost layers
        phase.sends.push_back({slab(w), lower, down});                 // first owned layers
        phase.sends.push_back({slab(count_[d]), upper, up});           // last owned layers
        // The same four slabs as MPI_Neighbor_alltoallw's arguments: neighbour 2d is the lower one
        // along d (receive its data into the lower ghost layers, send it the first owned layers),
        // 2d + 1 the upper one.
        const std::size_t lo = 2 * d, hi = lo + 1, r = phase.receives.size() - 2, t = phase.sends.size() - 2;
        phase.recv_counts[lo] = phase.recv_counts[hi] = phase.send_counts[lo] = phase.send_counts[hi] = 1;
        phase.recv_types[lo] = phase.receives[r].type;
        phase.recv_types[hi] = phase.receives[r + 1].type;
        phase.send_types[lo] = phase.sends[t].type;
        phase.send_types[hi] = phase.sends[t + 1].type;
      }
      for (std::size_t d : dims) done[d] = true;
      requests_.resize(std::max(requests_.size(), phase.receives.size() + phase.sends.size()));
      phases_.push_back(std::move(phase));
    }
  }
  ~SubarrayHalo() {
    for (auto& t : types_) MPI_Type_free(&t);
    MPI_Comm_free(&cart_);
  }
  SubarrayHalo(const SubarrayHalo&) = delete;
  SubarrayHalo& operator=(const SubarrayHalo&) = delete;

  /// Fills the ghost layers of `a` (extents(): owned block plus ghosts, row-major).
  void exchange(double* a) {
    std::vector<MPI_Request>& req = requests_;
    for (const Phase& phase : phases_) {
      int k = 0;
      for (const Transfer& t : phase.receives)
        check_mpi(MPI_Irecv(a, 1, t.type, t.peer, t.tag, cart_, &req[static_cast<std::size_t>(k++)]), "MPI_Irecv");
      for (const Transfer& t : phase.sends)
        check_mpi(MPI_Isend(a, 1, t.type, t.peer, t.tag, cart_, &req[static_cast<std::size_t>(k++)]), "MPI_Isend");
      check_mpi(MPI_Waitall(k, req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    }
  }

  /// The same exchange, each phase one MPI_Neighbor_alltoallw on the Cartesian communicator.
  /// Send and receive buffers are both `a`: the slabs read (owned layers) and written (ghost
  /// layers) do not overlap, and neighbourhood collectives have no MPI_IN_PLACE.
  void exchange_neighbor(double* a) {
    for (const Phase& p : phases_)
      check_mpi(MPI_Neighbor_alltoallw(a, p.send_counts.data(), p.displacements.data(), p.send_types.data(), a,
                                       p.recv_counts.data(), p.displacements.data(), p.recv_types.data(), cart_),
                "MPI_Neighbor_alltoallw");
  }

  [[nodiscard]] const Point<N>& extents() const noexcept { return extents_; }
  [[nodiscard]] const Point<N>& first() const noexcept { return first_; }
  [[nodiscard]] const Point<N>& coords() const noexcept { return coords_; }

 private:
  struct Transfer {
    MPI_Datatype type;
    int peer;
    int tag;
  };
  struct Phase {
    std::vector<Transfer> receives, sends;
    // MPI_Neighbor_alltoallw's arguments: per neighbour (2N, lower then upper per dimension) one
    // slab, or nothing for the dimensions not in this phase; displacements 0 (the slab types
    // carry their offsets).
    std::array<int, 2 * N> send_counts{}, recv_counts{};
    std::array<MPI_Aint, 2 * N> displacements{};
    std::array<MPI_Datatype, 2 * N> send_types = filled(MPI_DOUBLE), recv_types = filled(MPI_DOUBLE);
  };
  static std::array<MPI_Datatype, 2 * N> filled(MPI_Datatype t) {
    std::array<MPI_Datatype, 2 * N> out;
    out.fill(t);
    return out;
  }
  MPI_Comm cart_ = MPI_COMM_NULL;
  Point<N> first_{}, count_{}, extents_{}, coords_{};
  std::vector<Phase> phases_;
  std::vector<MPI_Datatype> types_;
  std::vector<MPI_Request> requests_;  // made once: the timed exchange allocates nothing
};

/// Copies the stretches of `blocks` between the array and a packed buffer, as the Mover does
/// (gather: array -> buffer). Used only to break tessera's time down.
void copy_blocks(const Schedule& s, const std::vector<Block>& blocks, double* array, double* buffer, bool gather) {
  double* at = buffer;
  for (const Block& b : blocks)
    s.for_each_stretch(b, [&](index_t offset, index_t count, index_t stride) {
      double* in_array = array + offset;
      if (stride == 1) {
        if (gather)
          std::memcpy(at, in_array, static_cast<std::size_t>(count) * sizeof(double));
        else
          std::memcpy(in_array, at, static_cast<std::size_t>(count) * sizeof(double));
      } else {
        for (index_t e = 0; e < count; ++e) {
          if (gather)
            at[e] = in_array[e * stride];
          else
            in_array[e * stride] = at[e];
        }
      }
      at += count;
    });
}

/// Where tessera's time goes: start() and wait() apart, and the pack, local copy, unpack and bare
/// MPI messages of the same schedule timed one by one. `between` (the anchor's exchange) runs
/// before each timed part, untimed, so that caches and TLB are as cold as in the main loop, where
/// the two codes alternate. Prints on rank 0. Collective.
template <class Between>
void breakdown(const tessera::Communicator& world, tessera::Mover& mover, double* a, int reps, Between&& between) {
  const Schedule& s = mover.schedule();
  const MPI_Comm comm = world.raw();
  std::vector<double> t_start(static_cast<std::size_t>(reps)), t_wait(t_start), t_pack(t_start), t_local(t_start),
      t_unpack(t_start), t_mpi(t_start), t_both(t_start);
  std::vector<std::vector<double>> out(s.sends.size()), in(s.receives.size());
  for (std::size_t i = 0; i < s.sends.size(); ++i) out[i].resize(static_cast<std::size_t>(s.sends[i].elements));
  for (std::size_t i = 0; i < s.receives.size(); ++i) in[i].resize(static_cast<std::size_t>(s.receives[i].elements));
  std::vector<double> staging(static_cast<std::size_t>(s.local_elements()));
  const tessera::Communicator raw = world.duplicate();  // bare messages never meet the mover's
  std::vector<MPI_Request> req(s.sends.size() + s.receives.size());
  const auto stats_before = mover.stats();
  const auto timed = [&](std::vector<double>& into, std::size_t i, auto&& part) {
    between();
    world.barrier();
    const double t0 = MPI_Wtime();
    part();
    into[i] = MPI_Wtime() - t0;
  };
  for (int r = 0; r < reps; ++r) {
    const auto i = static_cast<std::size_t>(r);
    between();
    world.barrier();
    const double t0 = MPI_Wtime();
    mover.start(a, a);
    const double t1 = MPI_Wtime();
    mover.wait();
    t_start[i] = t1 - t0;
    t_wait[i] = MPI_Wtime() - t1;
    t_both[i] = t_start[i] + t_wait[i];
    timed(t_pack, i, [&] {
      for (std::size_t k = 0; k < s.sends.size(); ++k) copy_blocks(s, s.sends[k].blocks, a, out[k].data(), true);
    });
    timed(t_local, i, [&] {
      copy_blocks(s, s.local_src, a, staging.data(), true);
      copy_blocks(s, s.local_dst, a, staging.data(), false);
    });
    timed(t_mpi, i, [&] {
      std::size_t k = 0;
      for (std::size_t p = 0; p < s.receives.size(); ++p)
        check_mpi(MPI_Irecv(in[p].data(), static_cast<int>(in[p].size()), MPI_DOUBLE, s.receives[p].peer, 0, raw.raw(),
                            &req[k++]),
                  "MPI_Irecv");
      for (std::size_t p = 0; p < s.sends.size(); ++p)
        check_mpi(MPI_Isend(out[p].data(), static_cast<int>(out[p].size()), MPI_DOUBLE, s.sends[p].peer, 0, raw.raw(),
                            &req[k++]),
                  "MPI_Isend");
      check_mpi(MPI_Waitall(static_cast<int>(k), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    });
    timed(t_unpack, i, [&] {
      for (std::size_t p = 0; p < s.receives.size(); ++p) copy_blocks(s, s.receives[p].blocks, a, in[p].data(), false);
    });
  }
  for (auto* v : {&t_start, &t_wait, &t_both, &t_pack, &t_local, &t_unpack, &t_mpi}) max_over_ranks(*v, comm);
  const auto& st = mover.stats();
  const double execs = static_cast<double>(st.executions - stats_before.executions);
  if (world.rank() != 0) return;
  std::printf("  breakdown (medians over %d, max over ranks, microseconds):\n", reps);
  std::printf("    start %.1f + wait %.1f (together %.1f) | pack %.1f  local copies %.1f  bare MPI %.1f  unpack %.1f\n",
              1e6 * summarize(t_start).median, 1e6 * summarize(t_wait).median, 1e6 * summarize(t_both).median,
              1e6 * summarize(t_pack).median, 1e6 * summarize(t_local).median, 1e6 * summarize(t_mpi).median,
              1e6 * summarize(t_unpack).median);
  std::printf("    rank 0 per execution: %.0f messages, %.0f bytes sent, %.0f bytes copied locally\n",
              static_cast<double>(st.messages_sent - stats_before.messages_sent) / execs,
              static_cast<double>(st.bytes_sent - stats_before.bytes_sent) / execs,
              static_cast<double>(st.bytes_copied_locally - stats_before.bytes_copied_locally) / execs);
  // How the mover can send each peer's data (in place, as an MPI datatype, or packed) follows from
  // its stretches; buffer_allocations counts the packed channels (plus the local staging buffer).
  for (const auto& p : s.sends) {
    int contiguous = 0;
    long long stretches = 0, shortest = -1;
    for (const Block& b : p.blocks) {
      contiguous += s.contiguous(b) ? 1 : 0;
      s.for_each_stretch(b, [&](index_t, index_t count, index_t stride) {
        ++stretches;
        const long long bytes = stride == 1 ? count * static_cast<long long>(sizeof(double)) : sizeof(double);
        shortest = shortest < 0 ? bytes : std::min(shortest, bytes);
      });
    }
    std::printf("    send to %d: %zu blocks (%d contiguous), %lld elements in %lld stretches of >= %lld bytes\n",
                p.peer, p.blocks.size(), contiguous, static_cast<long long>(p.elements), stretches, shortest);
  }
  std::printf("    mover buffers: %llu (packed send and receive channels, plus local staging)\n",
              static_cast<unsigned long long>(st.buffer_allocations));
  std::printf("    local copies: %zu blocks, %lld elements\n", s.local_src.size(),
              static_cast<long long>(s.local_elements()));
}

struct Options {
  int repetitions = 0;  // 0: by size
  int warmup = 10;
  bool breakdown = false;
  bool cold = true, warm = true, in_loop = true;  // --modes
};

/// The warm mode: tessera's exchange and the Isend/Irecv anchor's, each repeated on its own array.
template <std::size_t N>
std::array<Summary, 2> time_warm(const tessera::Communicator& world, TesseraHalo<N>& t, SubarrayHalo<N>& anchor,
                                 std::span<double> a, std::vector<double>& b, int warmup, int reps) {
  const auto times = tessera::bench::time_in_blocks(
      world.raw(), {[&] { t.mover.run(a.data(), a.data()); }, [&] { anchor.exchange(b.data()); }}, warmup, reps);
  return {times[0], times[1]};
}

/// The in-loop mode: per iteration an exchange and a Jacobi sweep, for tessera and the anchor on
/// their own pairs of arrays from the same start; their arrays must then agree bit for bit.
/// Tessera's pair is tessera storage, the anchor's std::vectors (halo_common.hpp says why).
template <std::size_t N>
std::array<Summary, 2> time_in_loop(const tessera::Communicator& world, const Case& c, TesseraHalo<N>& t,
                                    SubarrayHalo<N>& anchor, int warmup, int reps) {
  std::array<tessera::Storage<N>, 2> my_storage{t.make_storage(world.rank()), t.make_storage(world.rank())};
  std::array<std::span<double>, 2> mine{TesseraHalo<N>::doubles(my_storage[0]), TesseraHalo<N>::doubles(my_storage[1])};
  std::array<std::vector<double>, 2> theirs;
  for (auto& v : mine) t.initial(v);
  for (auto& v : theirs) t.initial(v);
  const auto ext = t.layout.patches()[0].extents();
  std::size_t my_turn = 0, their_turn = 0;  // which array of the pair is read this iteration
  const auto times = tessera::bench::time_in_blocks(
      world.raw(),
      {[&] {
         t.mover.run(mine[my_turn].data(), mine[my_turn].data());
         jacobi_sweep<N>(ext, c.width, mine[my_turn].data(), mine[1 - my_turn].data());
         my_turn = 1 - my_turn;
       },
       [&] {
         anchor.exchange(theirs[their_turn].data());
         jacobi_sweep<N>(ext, c.width, theirs[their_turn].data(), theirs[1 - their_turn].data());
         their_turn = 1 - their_turn;
       }},
      warmup, reps);
  if (my_turn != their_turn || !std::equal(mine[my_turn].begin(), mine[my_turn].end(), theirs[their_turn].begin(),
                                           theirs[their_turn].end()))
    abort_job(c.name() + ": in-loop: tessera's and the anchor's arrays differ after the same iterations");
  return {times[0], times[1]};
}

/// What the table's row adds after its columns: the in-domain anchor, the warm and in-loop ratios.
std::string modes_note(const Result& res) {
  using tessera::bench::number;
  std::string note;
  if (res.in_domain)
    note += "  in-domain anchor med " + number(1e6 * res.in_domain->median, 4) + " (ratio " +
            number(res.tessera.median / res.in_domain->median, 3) + ")";
  if (res.warm) note += "  warm ratio " + number((*res.warm)[0].median / (*res.warm)[1].median, 3);
  if (res.in_loop)
    note += "  in-loop " + number(1e6 * (*res.in_loop)[0].median, 4) + " us/iter, ratio " +
            number((*res.in_loop)[0].median / (*res.in_loop)[1].median, 3);
  return note;
}

template <std::size_t N>
Result run_case(const tessera::Communicator& world, const Case& c, const Options& opt,
                const tessera::bench::Table& table) {
  const int rank = world.rank(), size = world.size();
  const index_t n = c.n, w = c.width;
  TesseraHalo<N> t(world, c);
  const auto& patch = t.layout.patches()[0];
  std::array<int, N> cart_dims{};
  for (std::size_t d = 0; d < N; ++d) cart_dims[d] = d == 0 ? size : 1;
  SubarrayHalo<N> anchor(MPI_COMM_WORLD, cart_dims, c.periodic, n, w, c.corners);
  // The in-domain variant differs from the plain anchor only without periodicity and with corners.
  std::optional<SubarrayHalo<N>> in_domain;
  if (!c.periodic && c.corners) in_domain.emplace(MPI_COMM_WORLD, cart_dims, c.periodic, n, w, c.corners, true);
  if (anchor.extents() != patch.extents() || anchor.first() != patch.owned_box().lo ||
      t.dist.grid().position_of(rank) != std::optional<Point<N>>(anchor.coords()))
    abort_job(c.name() + ": the anchor's local array is not laid out as tessera's patch");

  // Same initial data in all: owned points carry their global value, ghosts the sentinel. One
  // exchange each, then the checks: tessera's array against the halo semantics, each anchor's
  // against tessera's, bit for bit. Every code then times on its own array, so that in the cold
  // mode each exchange finds the caches as another code's exchange on another array left them.
  // (Until session 48 the anchors shared one array: the neighbourhood anchor, which follows the
  // Isend/Irecv one in two rotations of three, found it warm there, and on the Intel Xeon that
  // made it look 1.3-1.5x faster than tessera on 2-D 8192² periodic faces, whose strided
  // wrap-around copies cost twice as much cold as warm.)
  const std::span<double> a = t.a;
  std::vector<double> b, b_neighbor, b_in_domain;
  t.mover.run(a.data(), a.data());
  if (const std::string e = t.check(a); !e.empty())
    abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera's halo is wrong at " + e);
  const auto same = [&](const char* who, std::vector<double>& x, auto&& exchange) {
    t.initial(x);
    exchange(x.data());
    if (std::memcmp(a.data(), x.data(), a.size() * sizeof(double)) != 0) {
      const auto at = std::mismatch(a.begin(), a.end(), x.begin()).first - a.begin();
      abort_job(c.name() + ": rank " + std::to_string(rank) + ": tessera and " + who + " differ at local offset " +
                std::to_string(at) + ": " + exact(a[static_cast<std::size_t>(at)]) + " vs " +
                exact(x[static_cast<std::size_t>(at)]));
    }
  };
  same(kAnchor, b, [&](double* x) { anchor.exchange(x); });
  same(kNeighborAnchor, b_neighbor, [&](double* x) { anchor.exchange_neighbor(x); });
  if (in_domain) same(kInDomainAnchor, b_in_domain, [&](double* x) { in_domain->exchange(x); });

  const double array_bytes = static_cast<double>(a.size() * sizeof(double));
  const int reps = opt.repetitions > 0 ? opt.repetitions : tessera::bench::halo::default_repetitions(array_bytes);
  // Allocations counted around tessera's exchanges only (the anchors' MPI calls allocate with
  // malloc, which is not counted anyway), over the warm-up and timed ones: all after the first.
  std::uint64_t allocations = 0, runs = 0;
  std::vector<std::function<void()>> impls{[&] {
                                             const auto before = tessera::bench::allocations();
                                             t.mover.run(a.data(), a.data());
                                             allocations += tessera::bench::allocations() - before;
                                             ++runs;
                                           },
                                           [&] { anchor.exchange(b.data()); },
                                           [&] { anchor.exchange_neighbor(b_neighbor.data()); }};
  if (in_domain) impls.emplace_back([&] { in_domain->exchange(b_in_domain.data()); });
  const auto times = tessera::bench::time_alternating(world.raw(), impls, opt.cold ? opt.warmup : 1, opt.cold ? reps : 1);

  Result res{c.name(), times[0], times[1], times[2], std::nullopt, 0, 0, std::nullopt, std::nullopt};
  if (in_domain) res.in_domain = times[3];
  if (opt.warm) res.warm = time_warm(world, t, anchor, a, b, opt.warmup, reps);
  // The sweep costs far more than the exchange on large arrays: fewer iterations keep the run short.
  if (opt.in_loop) res.in_loop = time_in_loop(world, c, t, anchor, std::min(opt.warmup, 3), std::max(reps / 4, 5));
  // Max over ranks, so that a rank that allocates is seen.
  double per_run = runs ? static_cast<double>(allocations) / static_cast<double>(runs) : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &per_run, 1, MPI_DOUBLE, MPI_MAX, world.raw()), "MPI_Allreduce");
  res.allocations_per_run = per_run;
  // One face slab of the owned block across the split dimension 0: what each message to a
  // neighbour carries in the faces-only cases.
  res.face_bytes = static_cast<double>(w * sizeof(double));
  for (std::size_t d = 1; d < N; ++d) res.face_bytes *= static_cast<double>(patch.axes[d].count);
  table.print_row(res.name,
                  {res.face_bytes, 1e6 * res.tessera.median, 1e6 * res.tessera.min, 1e6 * res.anchor.median,
                   1e6 * res.anchor.min, res.tessera.median / res.anchor.median, 1e6 * res.neighbor.median,
                   res.tessera.median / res.neighbor.median, res.allocations_per_run},
                  modes_note(res));
  if (opt.breakdown) breakdown(world, t.mover, a.data(), reps, [&] { anchor.exchange(b.data()); });
  std::fflush(stdout);
  return res;
}

/// Per case: the timing against each anchor, the bytes of one face message, tessera's allocations
/// per exchange.
std::vector<tessera::bench::Record> records_of(const std::vector<Result>& results, int ranks, bool cold) {
  using tessera::bench::Record;
  std::vector<Record> out;
  for (const Result& r : results) {
    if (cold) {
      out.push_back(Record::timing("halo", r.name, ranks, r.tessera, kAnchor, r.anchor));
      out.push_back(Record::timing("halo", r.name, ranks, r.tessera, kNeighborAnchor, r.neighbor));
      if (r.in_domain) out.push_back(Record::timing("halo", r.name, ranks, r.tessera, kInDomainAnchor, *r.in_domain));
    }
    if (r.warm) out.push_back(Record::timing("halo-warm", r.name, ranks, (*r.warm)[0], kAnchor, (*r.warm)[1]));
    if (r.in_loop)
      out.push_back(Record::timing("halo-in-loop", r.name, ranks, (*r.in_loop)[0], kAnchor, (*r.in_loop)[1]));
    out.push_back(Record::count("halo", r.name, ranks, "face_bytes", r.face_bytes));
    out.push_back(Record::count("halo", r.name, ranks, "allocations_per_run", r.allocations_per_run));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Halo exchange: tessera's Mover against hand-written MPI (subarray Isend/Irecv, Neighbor_alltoallw)"};
  std::vector<index_t> sizes{256, 1024, 4096, 8192}, sizes_3d{64, 128, 256}, widths{1, 2};
  index_t nonperiodic = 8192, nonperiodic_3d = 256;
  std::string json, filter;
  Options opt;
  app.add_option("--sizes", sizes, "points per dimension of the 2-D cases")->delimiter(',');
  app.add_option("--sizes-3d", sizes_3d, "points per dimension of the 3-D cases")->delimiter(',');
  app.add_option("--widths", widths, "ghost widths")->delimiter(',')->check(CLI::Range(index_t{1}, index_t{16}));
  app.add_option("--nonperiodic", nonperiodic, "2-D size also run without periodicity (0: none)");
  app.add_option("--nonperiodic-3d", nonperiodic_3d, "3-D size also run without periodicity (0: none)");
  app.add_option("--repetitions", opt.repetitions, "timed exchanges per case (0: 200, or 100 for arrays over 64 MiB)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", opt.warmup, "untimed exchanges per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--filter", filter, "run only the cases whose name contains this");
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  app.add_flag("--breakdown", opt.breakdown, "also break tessera's time down (start/wait, pack, MPI, unpack)");
  std::vector<std::string> modes{"cold", "warm", "in-loop"};
  app.add_option("--modes", modes, "timing modes: cold, warm, in-loop (default all; see the top of halo_bench.cpp)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cold", "warm", "in-loop"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }

  const auto has = [&](const char* m) { return std::find(modes.begin(), modes.end(), m) != modes.end(); };
  opt.cold = has("cold");
  opt.warm = has("warm");
  opt.in_loop = has("in-loop");
  std::vector<Case> cases;
  const auto add = [&](std::size_t dims, const std::vector<index_t>& ns, index_t np) {
    for (bool corners : {false, true})
      for (index_t w : widths) {
        for (index_t n : ns) cases.push_back({dims, corners, w, true, n});
        if (np > 0) cases.push_back({dims, corners, w, false, np});
      }
  };
  add(2, sizes, nonperiodic);
  add(3, sizes_3d, nonperiodic_3d);
  std::erase_if(cases, [&](const Case& c) { return c.name().find(filter) == std::string::npos; });

  const auto table = make_table(world.rank() == 0);
  if (world.rank() == 0)
    std::printf("halo exchange, %d ranks, grid %dx1[x1]; microseconds per exchange, max over ranks\n", world.size(),
                world.size());
  table.print_header();
  std::vector<Result> results;
  for (const Case& c : cases)
    results.push_back(c.dims == 2 ? run_case<2>(world, c, opt, table) : run_case<3>(world, c, opt, table));
  if (!json.empty() && world.rank() == 0)
    tessera::bench::write_json(json, records_of(results, world.size(), opt.cold), "bench_halo");
  return 0;
}
