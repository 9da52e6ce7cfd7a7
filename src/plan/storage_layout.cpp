#include <algorithm>

#include "tessera/plan/storage_layout.hpp"

namespace tessera {

namespace {

/// Appends the local interval [first, first + length), merging it into the previous one when they touch.
void append_interval(SectionList1& out, std::size_t from, index_t first, index_t length) {
  if (out.size() > from) {
    Section1& last = out.back();
    if (last.run_count == 1 && last.first + last.run_length == first) {
      last.run_length += length;
      last.stride = last.run_length;
      return;
    }
  }
  out.push_back(Section1::interval(first, first + length));
}

}  // namespace

bool AxisMap::stores(const Section1& s) const {
  if (s.empty()) return true;
  if (!compacted) return s.begin() >= first - ghost_lo && s.end() <= first + count + ghost_hi;
  return owns(s);
}

bool AxisMap::owns(const Section1& s) const {
  if (s.empty()) return true;
  if (!compacted) return s.begin() >= first && s.end() <= first + count;
  const DimDistribution& d = *compacted;
  if (s.begin() < d.lo() || s.end() > d.hi()) return false;
  bool all = true;
  if (d.kind() == DimKind::irregular) {
    for_each_run(s, [&](index_t f, index_t len) {
      for (index_t i = f; i < f + len && all; ++i) all = d.owner(i) == coord;
    });
    return all;
  }
  // Cyclic kinds: check every block a run touches (one owner per block).
  const index_t b = d.cycle_block();
  for_each_run(s, [&](index_t f, index_t len) {
    for (index_t i = f; i < f + len && all; i += b - (i - d.lo()) % b) all = d.owner(i) == coord;
  });
  return all;
}

void AxisMap::to_local(const Section1& s, SectionList1& out) const {
  if (s.empty()) return;
  if (!compacted) {
    out.push_back(shift(s, ghost_lo - first));
    return;
  }
  const DimDistribution& d = *compacted;
  const std::size_t from = out.size();
  if (d.kind() == DimKind::irregular) {
    // Indices an irregular coordinate owns are numbered in increasing order, so a run of them is a
    // run of consecutive local indices.
    for_each_run(s, [&](index_t f, index_t len) { append_interval(out, from, d.local_offset(f), len); });
    return;
  }
  const index_t b = d.cycle_block(), period = b * d.grid_extent();
  const index_t in_block = (s.begin() - d.lo()) % b;
  if (in_block + s.run_length <= b && (s.run_count == 1 || s.stride % period == 0)) {
    // Every run lies in one owned block and the runs step whole cycles: one local section, the
    // stride shrunk by the grid extent (ScaLAPACK compaction).
    const index_t local_stride = s.run_count == 1 ? s.run_length : s.stride / d.grid_extent();
    out.push_back(Section1{d.local_offset(s.begin()), s.run_length, local_stride, s.run_count}.normalized());
    return;
  }
  // General case: split each run at block boundaries; each part is contiguous locally.
  for_each_run(s, [&](index_t f, index_t len) {
    while (len > 0) {
      const index_t take = std::min(len, b - (f - d.lo()) % b);
      append_interval(out, from, d.local_offset(f), take);
      f += take;
      len -= take;
    }
  });
}

}  // namespace tessera
