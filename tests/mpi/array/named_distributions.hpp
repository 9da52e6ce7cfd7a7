#pragma once
// One distribution of each kind over a box, for the array tests that must hold under every kind
// (reductions, scans, partial reductions).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera::testing {

/// One distribution of each kind over `box` for `size` ranks (the same on every rank).
template <std::size_t N>
std::vector<std::pair<std::string, Distribution<N>>> named_distributions(const Box<N>& box, int size) {
  Point<N> extents;
  for (std::size_t d = 0; d < N; ++d) extents[d] = extent(box, d);
  const auto grid = ProcGrid<N>::automatic(size, extents);
  // All ranks along axis 0, the other axes collapsed.
  Point<N> line = Point<N>::filled(1);
  line[0] = size;
  const auto line_grid = ProcGrid<N>::with_shape(size, line);
  std::array<DimSpec, N> rest;
  rest.fill(collapsed());
  const auto along_0 = [&](DimSpec s) {
    auto specs = rest;
    specs[0] = std::move(s);
    return specs;
  };
  const auto all = [](DimSpec s) {
    std::array<DimSpec, N> specs;
    specs.fill(s);
    return specs;
  };
  std::vector<std::pair<std::string, Distribution<N>>> out;
  out.emplace_back("block", Distribution<N>(box, grid, all(block())));
  out.emplace_back("cyclic", Distribution<N>(box, grid, all(cyclic())));
  out.emplace_back("block-cyclic", Distribution<N>(box, grid, all(block_cyclic(2))));
  // Cuts that leave every odd coordinate empty (and the last one the rest).
  std::vector<index_t> cuts{box.lo[0]};
  for (int c = 1; c < size; ++c) cuts.push_back(c % 2 == 1 ? cuts.back() : box.lo[0] + extent(box, 0) * c / size);
  cuts.push_back(box.hi[0]);
  out.emplace_back("cut with empty parts", Distribution<N>(box, line_grid, along_0(cut(cuts))));
  std::vector<int> owners(static_cast<std::size_t>(extent(box, 0)));
  for (std::size_t i = 0; i < owners.size(); ++i)
    owners[i] = static_cast<int>((i * 7 + i / 3) % static_cast<std::size_t>(size));
  out.emplace_back("irregular", Distribution<N>(box, line_grid, along_0(irregular(owners))));
  // Only every other rank, from the last one down, holds a grid position: the others are skeletons.
  std::vector<int> holders;
  for (int r = size - 1; r >= 0; r -= 2) holders.push_back(r);
  Point<N> few = Point<N>::filled(1);
  few[0] = static_cast<index_t>(holders.size());
  out.emplace_back("skeleton ranks",
                   Distribution<N>(box, ProcGrid<N>::from_ranks(size, few, holders), along_0(block())));
  out.emplace_back("user-defined (Morton)",
                   Distribution<N>::user(std::make_shared<tessera_examples::MortonDistribution<N>>(box, size)));
  return out;
}

/// `call` throws an Error whose message holds `words` (every rank checks its own: the tests of bad
/// input run this on every rank).
template <class Call>
void expect_error(Call call, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one about " << words;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

}  // namespace tessera::testing
