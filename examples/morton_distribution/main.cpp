// A Morton (Z-order) space-filling-curve distribution written as a user-defined distribution, then
// used through `tessera::Distribution` like a built-in one: prints who owns what and checks that the
// owned boxes tile the domain (exit status 1 if not). No MPI calls in that mode. With --balance it
// runs under MPI instead and balances the curve's split points by Δ under emulated load (balance.hpp
// here). See README.md here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "balance.hpp"
#include "morton_distribution.hpp"
#include "tessera/layout/distribution.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

/// One character per rank for the owner map.
constexpr std::string_view symbols = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// Parses `13x9` (1 to 3 non-negative extents); empty on malformed text.
std::vector<index_t> parse_extents(const std::string& text) {
  std::vector<index_t> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, 'x');) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 18) return {};
    out.push_back(std::stoll(part));
  }
  return out.size() >= 1 && out.size() <= 3 ? out : std::vector<index_t>{};
}

/// The owner of every point, one character each: a row per run of the last dimension, and for 3-D
/// a blank line between slices of dimension 0.
template <std::size_t N>
void print_map(const tessera::Distribution<N>& dist) {
  const Box<N> domain = dist.domain();
  tessera::for_each_point(domain, [&](const Point<N>& p) {
    std::cout << symbols[static_cast<std::size_t>(dist.owner(p))];
    if (p[N - 1] + 1 < domain.hi[N - 1]) return;
    std::cout << '\n';
    if constexpr (N == 3)
      if (p[1] + 1 == domain.hi[1] && p[0] + 1 < domain.hi[0]) std::cout << '\n';
  });
}

/// Owned boxes of all ranks must lie in the domain, be disjoint and cover it. Only the generic
/// interface is used, at a cost independent of the domain's volume: boxes of one rank are checked
/// pairwise; boxes of different ranks are disjoint because `pieces` says every point of a box of
/// rank r is owned by r (each point has one owner); with that, equal volumes mean they cover it.
/// Small domains are also checked point by point against `owner`.
template <std::size_t N>
bool tiles_domain(const tessera::Distribution<N>& dist) {
  const Box<N> domain = dist.domain();
  index_t listed = 0;
  bool ok = true;
  auto complain = [&](const auto&... what) {
    if (ok) (std::cout << ... << what) << '\n';  // the first problem is enough to read
    ok = false;
  };
  for (int r = 0; r < dist.comm_size(); ++r) {
    const tessera::BoxList<N> boxes = dist.owned_boxes(r);
    if (!tessera::is_disjoint(boxes)) complain("boxes of rank ", r, " overlap: ", boxes);
    for (const auto& b : boxes) {
      if (!tessera::contains(domain, b)) complain("rank ", r, " owns ", b, " outside the domain");
      index_t covered = 0;
      for (const auto& [section, rank] : dist.pieces(b)) {
        if (rank != r) complain("rank ", r, " lists ", b, " but rank ", rank, " owns part of it");
        covered += tessera::volume(section);
      }
      if (covered != tessera::volume(b)) complain("the pieces of ", b, " hold ", covered, " points");
      listed += tessera::volume(b);
    }
  }
  if (listed != tessera::volume(domain))
    complain("the owned boxes hold ", listed, " points, the domain ", tessera::volume(domain));
  if (tessera::volume(domain) <= (index_t{1} << 22))
    for (int r = 0; r < dist.comm_size(); ++r)
      for (const auto& b : dist.owned_boxes(r))
        tessera::for_each_point(b, [&](const Point<N>& p) {
          if (dist.owner(p) != r) complain("owner", p, " = ", dist.owner(p), " but rank ", r, " lists it");
        });
  return ok;
}

template <std::size_t N>
int run(const std::vector<index_t>& ext, int ranks) {
  Point<N> e;
  for (std::size_t d = 0; d < N; ++d) e[d] = ext[d];
  const auto morton = std::make_shared<const tessera_examples::MortonDistribution<N>>(Box<N>::from_extents(e), ranks);
  // From here on only the generic interface: every later layer sees the same thing.
  const auto dist = tessera::Distribution<N>::user(morton);
  std::cout << dist << ": padded to 2^" << morton->levels() << " per dimension\n\n";
  const bool small = e[N - 1] <= 120 && tessera::volume(dist.domain()) <= 8192;
  if (small && ranks <= static_cast<int>(symbols.size())) {
    print_map(dist);
    std::cout << '\n';
  }
  index_t lo_count = tessera::volume(dist.domain()), hi_count = 0;
  for (int r = 0; r < ranks; ++r) {
    const index_t n = dist.local_size(r);
    lo_count = std::min(lo_count, n);
    hi_count = std::max(hi_count, n);
    if (ranks <= static_cast<int>(symbols.size()))
      std::cout << "rank " << r << " (" << symbols[static_cast<std::size_t>(r)] << "): " << n << " points in "
                << dist.owned_boxes(r).size() << (dist.owned_boxes(r).size() == 1 ? " box\n" : " boxes\n");
  }
  std::cout << "balance: " << lo_count << " to " << hi_count << " points per rank\n";
  if (!tiles_domain(dist) || hi_count - lo_count > 1) {
    std::cout << "FAILED: the owned boxes do not tile the domain evenly\n";
    return 1;
  }
  std::cout << "owned boxes tile the domain\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Morton (Z-order) space-filling-curve distribution: a user-defined tessera distribution"};
  int ranks = 5;
  std::string extents_text = "13x9";
  app.add_option("--ranks", ranks, "number of ranks P")->check(CLI::Range(1, 1 << 20));
  app.add_option("--extents", extents_text, "domain extents, 1 to 3 of them: 17, 13x9 or 4x5x6");
  BalanceOptions balance;
  app.add_option("--balance", balance.iterations,
                 "under MPI: run this many iterations balancing the split points by delta (2-D extents; "
                 "--ranks is then the number of MPI ranks)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--delta", balance.delta, "with --balance: the fraction of the way to the target each step moves")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--interval", balance.interval, "with --balance: iterations between remap points")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--load", balance.load, "with --balance: emulated load, RANK:FACTOR@FIRST-LAST,...");
  app.add_option("--work", balance.work, "with --balance: sweeps of the update per iteration")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--point-seconds", balance.point_seconds,
                 "with --balance: emulated seconds per owned point and iteration, slept (0: the sweep alone)")
      ->check(CLI::Range(0.0, 1.0));
  CLI11_PARSE(app, argc, argv);
  const std::vector<index_t> ext = parse_extents(extents_text);
  if (ext.empty()) {
    std::cerr << "--extents: expected 1 to 3 non-negative integers joined by 'x', got '" << extents_text << "'\n";
    return 2;
  }
  try {
    if (balance.iterations > 0) {
      if (ext.size() != 2) {
        std::cerr << "--balance: expected 2-D extents such as 64x48, got '" << extents_text << "'\n";
        return 2;
      }
      return balance_under_load(argc, argv, {ext[0], ext[1]}, balance);
    }
    switch (ext.size()) {
      case 1: return run<1>(ext, ranks);
      case 2: return run<2>(ext, ranks);
      default: return run<3>(ext, ranks);
    }
  } catch (const tessera::Error& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
}
