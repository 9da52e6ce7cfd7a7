#pragma once
/// \file
/// Where tessera's transpose spends its time (bench_transpose --breakdown). `transpose()` looks its
/// schedule up in the destination domain's cache, makes a Mover (which allocates its pack buffers
/// and builds its MPI datatypes), runs it and drops it. Each part is timed apart here, and the
/// execution itself is split into the local transposed copy, the remote part (start: post
/// receives, pack and send; wait: receive and unpack) and the bare MPI messages of the same sizes;
/// for 2-D, a hand-written cache-tiled transpose of the same local block shows what the local copy
/// could cost. Every part runs after `between()` (the anchor, untimed), so that caches are as cold
/// as in the main loop, where the two codes alternate. Prints on rank 0. Collective.

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "support/bench_timing.hpp"
#include "tessera/array/dist_array.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera::bench {

namespace detail {

/// `s` with only its local copies (local = true) or only its messages.
inline std::shared_ptr<const Schedule> part_of(const Schedule& s, bool local) {
  Schedule out = s;
  if (local) {
    out.sends.clear();
    out.receives.clear();
  } else {
    out.local_src.clear();
    out.local_dst.clear();
  }
  return std::make_shared<const Schedule>(std::move(out));
}

/// Prints, per peer, what the schedule moves: blocks, elements, stretches and their stride.
inline void describe(const Schedule& s) {
  const auto line = [&](const char* what, int peer, const std::vector<Block>& blocks) {
    long long elements = 0, stretches = 0, strided = 0;
    for (const Block& b : blocks) {
      elements += static_cast<long long>(b.volume);
      s.for_each_stretch(b, [&](index_t, index_t, index_t stride) {
        ++stretches;
        strided += stride != 1 ? 1 : 0;
      });
    }
    std::printf("    rank 0 %s %d: %zu blocks, %lld elements in %lld stretches (%lld strided)\n", what, peer,
                blocks.size(), elements, stretches, strided);
  };
  for (const auto& p : s.sends) line("send to", p.peer, p.blocks);
  for (const auto& p : s.receives) line("receive from", p.peer, p.blocks);
  line("local copy, read side:", 0, s.local_src);
  line("local copy, write side:", 0, s.local_dst);
}

/// Sends and receives the schedule's messages as plain contiguous buffers on a duplicate of
/// `world`: the transport cost alone.
class BareMessages {
 public:
  BareMessages(const Communicator& world, const Schedule& s) : comm_(world.duplicate()) {
    for (const auto& p : s.sends) out_.push_back({p.peer, std::vector<double>(static_cast<std::size_t>(p.elements))});
    for (const auto& p : s.receives) in_.push_back({p.peer, std::vector<double>(static_cast<std::size_t>(p.elements))});
    requests_.resize(out_.size() + in_.size());
  }
  void run() {
    std::size_t k = 0;
    // Messages here stay under INT_MAX elements for the sizes the driver accepts (n <= 46340).
    for (auto& [peer, buf] : in_)
      check_mpi(MPI_Irecv(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, peer, 0, comm_.raw(), &requests_[k++]),
                "MPI_Irecv");
    for (auto& [peer, buf] : out_)
      check_mpi(MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, peer, 0, comm_.raw(), &requests_[k++]),
                "MPI_Isend");
    check_mpi(MPI_Waitall(static_cast<int>(k), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

 private:
  struct Message {
    int peer;
    std::vector<double> data;
  };
  Communicator comm_;
  std::vector<Message> out_, in_;
  std::vector<MPI_Request> requests_;
};

/// A 2-D transpose of this rank's local block (source rows it owns x destination rows it owns),
/// in 32 x 32 tiles so that both sides stay in cache and TLB: the copy a tuned code does.
inline void tiled_local_transpose(const DistArray<double, 2>& a, DistArray<double, 2>& at) {
  if (a.patch_count() == 0 || at.patch_count() == 0) return;
  constexpr index_t kTile = 32;
  const Box<2> src = a.owned_box(), dst = at.owned_box();
  const index_t n1 = extent(src, 1), n0 = extent(dst, 1);
  const index_t i_lo = src.lo[0], i_hi = src.hi[0], j_lo = dst.lo[0], j_hi = dst.hi[0];
  const double* in = a.data();
  double* out = at.data();
  for (index_t i0 = i_lo; i0 < i_hi; i0 += kTile)
    for (index_t j0 = j_lo; j0 < j_hi; j0 += kTile)
      for (index_t i = i0; i < std::min(i0 + kTile, i_hi); ++i)
        for (index_t j = j0; j < std::min(j0 + kTile, j_hi); ++j) out[(j - j_lo) * n0 + i] = in[(i - i_lo) * n1 + j];
}

}  // namespace detail

template <std::size_t N>
void transpose_breakdown(const Communicator& world, DistArray<double, N>& a, DistArray<double, N>& at,
                         const std::array<int, N>& perm, int reps, const std::function<void()>& between) {
  const MPI_Comm comm = world.raw();
  const int rank = world.rank();
  const Box<N>& sb = a.domain().box();
  const Box<N>& db = at.domain().box();
  ExchangeCache& cache = at.domain().cache();
  const auto lookup = [&](ExchangeCache* c) {
    return section_move_schedule(a.distribution(), a.ghosts(), sb, at.distribution(), at.ghosts(), db, perm, rank, c);
  };
  const auto schedule = lookup(&cache);
  const auto nothing = [] {};
  const double build = time_part(comm, std::min(reps, 5), nothing, [&] { (void)lookup(nullptr); });
  constexpr int kLookups = 1000;  // one hit is far below MPI_Wtime's resolution
  const auto hits = [&] {
    for (int i = 0; i < kLookups; ++i) (void)lookup(&cache);
  };
  const double hit = time_part(comm, 5, nothing, hits) / kLookups;
  const double construct = time_part(comm, reps, between, [&] { Mover m(world, schedule, sizeof(double)); });
  const double whole = time_part(comm, reps, between, [&] { transpose(a, at, perm); });

  Mover mover(world, schedule, sizeof(double));
  const double run = time_part(comm, reps, between, [&] { mover.run(a.data(), at.data()); });
  // The execution each start() began is completed, untimed, before the next anchor run.
  const auto finish_then_between = [&] {
    mover.wait();
    between();
  };
  const double start = time_part(comm, reps, finish_then_between, [&] { mover.start(a.data(), at.data()); });
  mover.wait();
  Mover local(world, detail::part_of(*schedule, true), sizeof(double));
  Mover remote(world, detail::part_of(*schedule, false), sizeof(double));
  const double local_copy = time_part(comm, reps, between, [&] { local.run(a.data(), at.data()); });
  const double remote_run = time_part(comm, reps, between, [&] { remote.run(a.data(), at.data()); });
  detail::BareMessages bare(world, *schedule);
  const double messages = time_part(comm, reps, between, [&] { bare.run(); });
  double tiled = -1;
  if constexpr (N == 2) tiled = time_part(comm, reps, between, [&] { detail::tiled_local_transpose(a, at); });
  transpose(a, at, perm);  // leave the destination as the driver checked it

  if (rank != 0) return;
  std::printf("  breakdown (ms unless noted, medians, max over ranks):\n");
  std::printf(
      "    transpose() %.3f = schedule lookup (cache hit %.3f us; build without cache %.3f) + Mover construction "
      "%.3f (%llu buffers: packed channels, local staging) + run %.3f\n",
      1e3 * whole, 1e6 * hit, 1e3 * build, 1e3 * construct,
      static_cast<unsigned long long>(mover.stats().buffer_allocations), 1e3 * run);
  std::printf(
      "    run: start (post, pack, send, local copy) %.3f | local transposed copy alone %.3f | messages alone "
      "(pack, send, receive, unpack) %.3f | bare MPI of the same sizes %.3f\n",
      1e3 * start, 1e3 * local_copy, 1e3 * remote_run, 1e3 * messages);
  if (tiled >= 0) std::printf("    hand-written 32x32-tiled transpose of the same local block: %.3f\n", 1e3 * tiled);
  detail::describe(*schedule);
  std::fflush(stdout);
}

}  // namespace tessera::bench
