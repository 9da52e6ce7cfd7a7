// libFuzzer target for the spec text format: any input must either parse or raise tessera::Error;
// a parsed spec must print to a text that parses back to the same spec, and mapping it onto a
// distribution for N = 1..3 must succeed or raise tessera::Error (a box set: every cell owned once).
// A multiblock text (tessera/spec/multiblock_spec.hpp) is held to the same: parse or Error, print and
// parse back to the same, map onto a MultiblockLayout or raise Error. Any other exception, a crash, a
// sanitizer report or a broken round trip is a finding. Built twice (fuzz/CMakeLists.txt): with
// libFuzzer under clang, and with replay_main.cpp for the corpus replay in `make test`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/spec/multiblock_spec.hpp"
#include "tessera/spec/spec.hpp"

namespace {

[[noreturn]] void finding(const char* what, const std::string& text, const std::string& detail) {
  std::fprintf(stderr, "spec_fuzz: %s\n  input:  %s\n  detail: %s\n", what, text.c_str(), detail.c_str());
  std::abort();
}

/// The communicator sizes to try: the ranks an explicit grid or `@K` asks for, one more (so that a
/// skeleton rank exists), and a few small ones for automatic grids.
std::vector<int> comm_sizes(const tessera::Spec& spec) {
  std::vector<int> sizes{1, 6};
  tessera::index_t positions = 1;
  for (const auto& axis : spec.axes) positions *= axis.grid_extent;  // the parser caps this at 2^20
  if (positions > 0 && positions <= (1 << 12)) {
    sizes.push_back(static_cast<int>(positions));
    sizes.push_back(static_cast<int>(positions) + 1);
  }
  if (spec.grid_ranks > 0 && spec.grid_ranks <= (1 << 12)) sizes.push_back(static_cast<int>(spec.grid_ranks) + 2);
  // A box set: every owner a rank (the highest owner + 1), and one rank too few.
  int highest = -1;
  for (const auto& box : spec.boxes) highest = std::max(highest, box.owner);
  if (highest >= 0 && highest < (1 << 12)) {
    sizes.push_back(highest + 1);
    if (highest > 0) sizes.push_back(highest);
  }
  return sizes;
}

template <std::size_t N>
void map(const tessera::Spec& spec, const std::string& text) {
  for (int comm_size : comm_sizes(spec)) {
    try {
      const auto dist = tessera::to_distribution<N>(spec, comm_size);
      if (spec.rank() != N) finding("to_distribution accepted a spec of another rank", text, std::to_string(N));
      if (dist.comm_size() != comm_size) finding("wrong communicator size", text, std::to_string(comm_size));
      if (!dist.domain().empty() && dist.covers_domain()) {
        const int owner = dist.owner(dist.domain().lo);
        if (owner < 0 || owner >= comm_size) finding("owner out of range", text, std::to_string(owner));
      }
      if (spec.is_box_set()) {
        tessera::index_t cells = 0;
        for (int r = 0; r < comm_size; ++r) cells += dist.local_size(r);
        if (cells != dist.box_set()->cells()) finding("box set cells lost", text, std::to_string(cells));
      }
      std::ostringstream printed;
      printed << dist;
    } catch (const tessera::Error& e) {
      (void)e.what();
    }
  }
  try {
    (void)tessera::to_ghosts<N>(spec);
  } catch (const tessera::Error&) {
  }
}

template <std::size_t N>
void map_multiblock(const tessera::MultiblockSpec& spec, const std::string& text) {
  for (int comm_size : {1, 2, 5}) {
    try {
      const auto layout = tessera::to_multiblock_layout<N>(spec, comm_size);
      if (spec.rank() != N) finding("to_multiblock_layout accepted a spec of another rank", text, std::to_string(N));
      if (layout.block_count() != spec.blocks.size()) finding("blocks lost", text, std::to_string(layout.block_count()));
      (void)tessera::to_ghosts<N>(spec);
    } catch (const tessera::Error& e) {
      (void)e.what();
    }
  }
}

void multiblock(const std::string& text) {
  tessera::MultiblockSpec spec;
  try {
    spec = tessera::parse_multiblock_spec(text);
  } catch (const tessera::Error&) {
    return;
  }
  const std::string printed = tessera::to_string(spec);
  tessera::MultiblockSpec again;
  try {
    again = tessera::parse_multiblock_spec(printed);
  } catch (const tessera::Error& e) {
    finding("the printed multiblock spec does not parse", text, printed + " -> " + e.what());
  }
  if (!(again == spec)) finding("the printed multiblock spec parses to another spec", text, printed);
  if (tessera::to_string(again) != printed) finding("printing a multiblock spec is not stable", text, printed);
  map_multiblock<1>(spec, text);
  map_multiblock<2>(spec, text);
  map_multiblock<3>(spec, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (tessera::is_multiblock_spec(text)) {
    multiblock(text);
    return 0;
  }
  tessera::Spec spec;
  try {
    spec = tessera::parse_spec(text);
  } catch (const tessera::Error&) {
    return 0;
  }
  const std::string printed = tessera::to_string(spec);
  tessera::Spec again;
  try {
    again = tessera::parse_spec(printed);
  } catch (const tessera::Error& e) {
    finding("the printed spec does not parse", text, printed + " -> " + e.what());
  }
  if (!(again == spec)) finding("the printed spec parses to another spec", text, printed);
  if (tessera::to_string(again) != printed) finding("printing is not stable", text, printed);
  map<1>(spec, text);
  map<2>(spec, text);
  map<3>(spec, text);
  return 0;
}
