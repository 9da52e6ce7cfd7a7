#include "tessera/layout/dim_distribution.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <string>

#include "tessera/core/hash.hpp"

namespace tessera {

// Owner table of an irregular dimension, with everything derived from it precomputed once.
struct DimDistribution::IrregularTable {
  std::vector<int> owner;          // owner[i - lo]
  std::vector<index_t> local;      // local[i - lo]: position among the owner's indices
  std::vector<index_t> first_of;   // CSR over coordinates: indices of coordinate c are
  std::vector<index_t> by_coord;   //   by_coord[first_of[c] .. first_of[c+1]), ascending
  std::vector<index_t> run_start;  // maximal runs of one owner: start index (ascending) ...
  std::vector<int> run_owner;      //   ... and owner; a run ends where the next starts (or at hi)
};

namespace {

/// The coordinate owning item k of n items dealt in balanced blocks over g coordinates.
int balanced_owner(index_t k, index_t n, int g) noexcept {
  const index_t q = n / g, r = n % g;
  if (k < r * (q + 1)) return static_cast<int>(k / (q + 1));
  return static_cast<int>(r + (k - r * (q + 1)) / q);
}

/// First item of coordinate c when n items are dealt in balanced blocks over g coordinates.
index_t balanced_start(int c, index_t n, int g) noexcept {
  const index_t q = n / g, r = n % g;
  return c * q + std::min<index_t>(c, r);
}

bool is_interval_kind(DimKind k) noexcept {
  return k == DimKind::block || k == DimKind::cut || k == DimKind::cut_weights || k == DimKind::general ||
         k == DimKind::collapsed || k == DimKind::flooded;
}

void check_boundaries(const std::vector<index_t>& b, index_t lo, index_t hi, int g, index_t lb,
                      std::string_view where) {
  if (b.size() != static_cast<std::size_t>(g) + 1)
    fail_argument(where, "cut boundaries", b.size(),
                  detail::concat("entries given; a grid axis of extent ", g, " needs ", g + 1, " (lo first, hi last)"));
  if (b.front() != lo)
    fail_argument(where, "cut boundaries[0]", b.front(), detail::concat("must equal the low bound ", lo));
  if (b.back() != hi)
    fail_argument(where, detail::concat("cut boundaries[", g, "]"), b.back(),
                  detail::concat("must equal the high bound ", hi));
  for (std::size_t c = 1; c < b.size(); ++c) {
    if (b[c] < b[c - 1])
      fail_argument(
          where, detail::concat("cut boundaries[", c, "]"), b[c],
          detail::concat("is less than boundaries[", c - 1, "] = ", b[c - 1], ": boundaries must not decrease"));
    if (b[c] != hi && (b[c] - lo) % lb != 0)
      fail_argument(where, detail::concat("cut boundaries[", c, "]"), b[c],
                    detail::concat("is not on the logical block: (boundary - lo) must be a multiple of ", lb));
  }
}

}  // namespace

std::vector<index_t> DimDistribution::boundaries_from_weights(const std::vector<double>& weights, index_t lo,
                                                              index_t hi, index_t logical_block,
                                                              std::string_view where) {
  const int g = static_cast<int>(weights.size());
  if (weights.empty()) fail_argument(where, "weights", "(none)", "must hold one weight per grid coordinate");
  long double total = 0;
  for (std::size_t c = 0; c < weights.size(); ++c) {
    if (!std::isfinite(weights[c]) || weights[c] < 0)
      fail_argument(where, detail::concat("weights[", c, "]"), weights[c], "must be finite and >= 0");
    total += weights[c];
  }
  if (!(total > 0)) fail_argument(where, "weights", "all zero", "need at least one positive weight");
  // Each boundary is the proportional share of the indices, rounded to the nearest logical-block
  // boundary (the last block may be partial, so round in indices, not in blocks). Monotone because
  // the prefix sums are.
  const index_t n = hi - lo, blocks = ceil_div(n, logical_block);
  std::vector<index_t> b(static_cast<std::size_t>(g) + 1);
  b[0] = lo;
  long double prefix = 0;
  for (int c = 1; c < g; ++c) {
    prefix += weights[static_cast<std::size_t>(c - 1)];
    const long double target = static_cast<long double>(n) * prefix / total;
    const auto k = static_cast<index_t>(std::llround(target / static_cast<long double>(logical_block)));
    b[static_cast<std::size_t>(c)] = std::min(hi, lo + std::clamp<index_t>(k, 0, blocks) * logical_block);
  }
  b[static_cast<std::size_t>(g)] = hi;
  return b;
}

DimDistribution DimDistribution::bind(const DimSpec& spec, index_t lo, index_t hi, int g, std::string_view where) {
  if (g < 1) fail_argument(where, "grid extent", g, "must be >= 1");
  if (hi < lo) fail_argument(where, "bounds", detail::concat("[", lo, ",", hi, ")"), "have hi < lo");
  if (spec.logical_block < 1) fail_argument(where, "logical block", spec.logical_block, "must be >= 1");
  DimDistribution d;
  d.kind_ = spec.kind;
  d.lo_ = lo;
  d.hi_ = hi;
  d.g_ = g;
  d.logical_block_ = spec.logical_block;
  const index_t n = checked_sub(hi, lo, "DimDistribution extent");
  const index_t lb = spec.logical_block;
  switch (spec.kind) {
    case DimKind::block: {
      const index_t blocks = ceil_div(n, lb);
      auto b = std::make_shared<std::vector<index_t>>(static_cast<std::size_t>(g) + 1);
      for (int c = 0; c <= g; ++c)
        (*b)[static_cast<std::size_t>(c)] = std::min(hi, lo + balanced_start(c, blocks, g) * lb);
      d.bounds_ = std::move(b);
      break;
    }
    case DimKind::cut:
      check_boundaries(spec.boundaries, lo, hi, g, lb, where);
      d.bounds_ = std::make_shared<const std::vector<index_t>>(spec.boundaries);
      break;
    case DimKind::cut_weights:
      if (spec.weights.size() != static_cast<std::size_t>(g))
        fail_argument(where, "weights", spec.weights.size(),
                      detail::concat("entries given; the grid axis has extent ", g));
      d.bounds_ =
          std::make_shared<const std::vector<index_t>>(boundaries_from_weights(spec.weights, lo, hi, lb, where));
      break;
    case DimKind::general:
      fail_argument(where, "spec", "general",
                    "needs per-rank weights: build the distribution with Distribution::from_rank_weights");
    case DimKind::collapsed:
      if (g != 1) fail_argument(where, "grid extent", g, "must be 1 along a collapsed (not distributed) dimension");
      d.bounds_ = std::make_shared<const std::vector<index_t>>(std::vector<index_t>{lo, hi});
      break;
    case DimKind::flooded:
      // No boundaries: every coordinate holds [lo, hi). A logical block would say where the
      // dimension may be split, and a flooded one never is.
      if (lb != 1) fail_argument(where, "logical block", lb, "must be 1 along a flooded dimension (it is never split)");
      break;
    case DimKind::cyclic:
    case DimKind::block_cyclic: {
      d.block_size_ = spec.kind == DimKind::cyclic ? lb : spec.block_size;
      if (d.block_size_ < 1) fail_argument(where, "block size", d.block_size_, "must be >= 1");
      if (d.block_size_ % lb != 0)
        fail_argument(where, "block size", d.block_size_,
                      detail::concat("must be a multiple of the logical block ", lb));
      if (spec.source < 0 || spec.source >= g)
        fail_argument(where, "source", spec.source, detail::concat("must be a coordinate in [0, ", g, ")"));
      d.source_ = spec.source;
      break;
    }
    case DimKind::irregular: {
      if (spec.owners.size() != static_cast<std::size_t>(n))
        fail_argument(where, "owner table", spec.owners.size(),
                      detail::concat("entries given; the dimension has ", n, " indices"));
      auto t = std::make_shared<IrregularTable>();
      t->owner = spec.owners;
      t->local.resize(t->owner.size());
      t->first_of.assign(static_cast<std::size_t>(g) + 1, 0);
      for (std::size_t i = 0; i < t->owner.size(); ++i) {
        const int c = t->owner[i];
        if (c < 0 || c >= g)
          fail_argument(where, detail::concat("owner table[", i, "]"), c,
                        detail::concat("is not a coordinate in [0, ", g, ")"));
        t->local[i] = t->first_of[static_cast<std::size_t>(c) + 1]++;
        if (i == 0 || t->owner[i - 1] != c) {
          t->run_start.push_back(lo + static_cast<index_t>(i));
          t->run_owner.push_back(c);
        }
      }
      std::partial_sum(t->first_of.begin(), t->first_of.end(), t->first_of.begin());
      t->by_coord.resize(t->owner.size());
      for (std::size_t i = 0; i < t->owner.size(); ++i) {
        const auto c = static_cast<std::size_t>(t->owner[i]);
        t->by_coord[static_cast<std::size_t>(t->first_of[c] + t->local[i])] = lo + static_cast<index_t>(i);
      }
      d.irregular_ = std::move(t);
      break;
    }
  }
  d.finish();
  return d;
}

DimDistribution DimDistribution::bind_cut(DimKind printed_as, std::vector<index_t> boundaries, index_t logical_block,
                                          std::string_view where) {
  if (boundaries.size() < 2)
    fail_argument(where, "cut boundaries", boundaries.size(), "entries given; need at least 2");
  if (logical_block < 1) fail_argument(where, "logical block", logical_block, "must be >= 1");
  const int g = static_cast<int>(boundaries.size()) - 1;
  check_boundaries(boundaries, boundaries.front(), boundaries.back(), g, logical_block, where);
  DimDistribution d;
  d.kind_ = printed_as;
  d.lo_ = boundaries.front();
  d.hi_ = boundaries.back();
  d.g_ = g;
  d.logical_block_ = logical_block;
  d.bounds_ = std::make_shared<const std::vector<index_t>>(std::move(boundaries));
  d.finish();
  return d;
}

void DimDistribution::finish() {
  // Interval kinds hash by their boundaries alone, so that a block and a cut that own the same
  // indices are equal (and share cached schedules).
  std::uint64_t h = hash_combine(0x7d15ULL, static_cast<std::uint64_t>(logical_block_));
  h = hash_combine(h, static_cast<std::uint64_t>(lo_));
  h = hash_combine(h, static_cast<std::uint64_t>(hi_));
  h = hash_combine(h, static_cast<std::uint64_t>(g_));
  if (kind_ == DimKind::flooded) {
    h = hash_combine(h, 4);
  } else if (bounds_) {
    h = hash_combine(h, 1);
    for (index_t b : *bounds_) h = hash_combine(h, static_cast<std::uint64_t>(b));
  } else if (irregular_) {
    h = hash_combine(h, 2);
    for (int c : irregular_->owner) h = hash_combine(h, static_cast<std::uint64_t>(c));
  } else {
    h = hash_combine(h, 3);
    h = hash_combine(h, static_cast<std::uint64_t>(block_size_));
    h = hash_combine(h, static_cast<std::uint64_t>(source_));
  }
  hash_ = h;
}

bool DimDistribution::owns_intervals() const noexcept { return is_interval_kind(kind_); }

const std::vector<index_t>& DimDistribution::boundaries() const noexcept {
  static const std::vector<index_t> none;
  return bounds_ ? *bounds_ : none;
}

index_t DimDistribution::interval_start(int c) const noexcept {
  if (kind_ == DimKind::flooded) return lo_;
  assert(bounds_);
  return (*bounds_)[static_cast<std::size_t>(c)];
}

int DimDistribution::owner(index_t i) const noexcept {
  assert(i >= lo_ && i < hi_);
  if (kind_ == DimKind::flooded) return 0;  // the canonical replica
  if (kind_ == DimKind::block) {
    const index_t blocks = ceil_div(hi_ - lo_, logical_block_);
    return balanced_owner((i - lo_) / logical_block_, blocks, g_);
  }
  if (bounds_) {  // cut kinds: the last boundary <= i (coordinates owning nothing are skipped)
    const auto& b = *bounds_;
    return static_cast<int>(std::upper_bound(b.begin() + 1, b.end() - 1, i) - (b.begin() + 1));
  }
  if (irregular_) return irregular_->owner[static_cast<std::size_t>(i - lo_)];
  return static_cast<int>(((i - lo_) / block_size_ + source_) % g_);
}

index_t DimDistribution::local_offset(index_t i) const noexcept {
  assert(i >= lo_ && i < hi_);
  if (kind_ == DimKind::flooded) return i - lo_;
  if (bounds_) return i - (*bounds_)[static_cast<std::size_t>(owner(i))];
  if (irregular_) return irregular_->local[static_cast<std::size_t>(i - lo_)];
  const index_t k = (i - lo_) / block_size_;
  return (k / g_) * block_size_ + (i - lo_) % block_size_;
}

index_t DimDistribution::global_index(int c, index_t offset) const noexcept {
  if (kind_ == DimKind::flooded) return lo_ + offset;
  if (bounds_) return (*bounds_)[static_cast<std::size_t>(c)] + offset;
  if (irregular_)
    return irregular_->by_coord[static_cast<std::size_t>(irregular_->first_of[static_cast<std::size_t>(c)] + offset)];
  const index_t mydist = (c - source_ + g_) % g_;
  const index_t k = (offset / block_size_) * g_ + mydist;
  return lo_ + k * block_size_ + offset % block_size_;
}

index_t DimDistribution::local_count(int c) const noexcept {
  if (kind_ == DimKind::flooded) return hi_ - lo_;
  if (bounds_) return (*bounds_)[static_cast<std::size_t>(c) + 1] - (*bounds_)[static_cast<std::size_t>(c)];
  if (irregular_)
    return irregular_->first_of[static_cast<std::size_t>(c) + 1] - irregular_->first_of[static_cast<std::size_t>(c)];
  // ScaLAPACK's numroc.
  const index_t n = hi_ - lo_, b = block_size_, full_blocks = n / b;
  const index_t mydist = (c - source_ + g_) % g_;
  index_t count = (full_blocks / g_) * b;
  const index_t extra = full_blocks % g_;
  if (mydist < extra)
    count += b;
  else if (mydist == extra)
    count += n % b;
  return count;
}

SectionList1 DimDistribution::owned(int c) const {
  SectionList1 out;
  if (kind_ == DimKind::flooded) {
    if (hi_ > lo_) out.push_back(Section1::interval(lo_, hi_));
    return out;
  }
  if (bounds_) {
    const auto s =
        Section1::interval((*bounds_)[static_cast<std::size_t>(c)], (*bounds_)[static_cast<std::size_t>(c) + 1]);
    if (!s.empty()) out.push_back(s);
    return out;
  }
  if (irregular_) {
    const auto& t = *irregular_;
    for (std::size_t r = 0; r < t.run_start.size(); ++r) {
      if (t.run_owner[r] != c) continue;
      const index_t end = r + 1 < t.run_start.size() ? t.run_start[r + 1] : hi_;
      out.push_back(Section1::interval(t.run_start[r], end));
    }
    return out;
  }
  const index_t n = hi_ - lo_, b = block_size_, full_blocks = n / b;
  const index_t first_block = (c - source_ + g_) % g_;  // the first block dealt to c
  if (first_block < full_blocks) {
    const index_t runs = (full_blocks - 1 - first_block) / g_ + 1;
    out.push_back(Section1::strided(lo_ + first_block * b, b, g_ * b, runs));
  }
  if (n % b != 0 && full_blocks % g_ == first_block)  // the partial last block is c's
    out.push_back(Section1::interval(lo_ + full_blocks * b, hi_));
  return out;
}

void DimDistribution::pieces(index_t a, index_t b, std::vector<DimPiece>& out) const {
  a = std::max(a, lo_);
  b = std::min(b, hi_);
  if (b <= a) return;
  if (kind_ == DimKind::flooded) {
    out.push_back({Section1::interval(a, b), 0});
    return;
  }
  if (bounds_) {
    const auto& bd = *bounds_;
    for (int c = owner(a); c < g_ && bd[static_cast<std::size_t>(c)] < b; ++c) {
      const auto s = Section1::interval(std::max(a, bd[static_cast<std::size_t>(c)]),
                                        std::min(b, bd[static_cast<std::size_t>(c) + 1]));
      if (!s.empty()) out.push_back({s, c});
    }
    return;
  }
  if (irregular_) {
    const auto& t = *irregular_;
    auto r =
        static_cast<std::size_t>(std::upper_bound(t.run_start.begin(), t.run_start.end(), a) - t.run_start.begin()) - 1;
    for (; r < t.run_start.size() && t.run_start[r] < b; ++r) {
      const index_t end = r + 1 < t.run_start.size() ? t.run_start[r + 1] : hi_;
      out.push_back({Section1::interval(std::max(a, t.run_start[r]), std::min(b, end)), t.run_owner[r]});
    }
    return;
  }
  // Cyclic kinds: the blocks a..b touches belong to at most g coordinates, starting at owner(a);
  // each coordinate's share is its owned section clipped to [a, b) (O(1), no enumeration).
  const index_t first_block = (a - lo_) / block_size_, last_block = (b - 1 - lo_) / block_size_;
  const index_t coords = std::min<index_t>(g_, last_block - first_block + 1);
  for (index_t j = 0; j < coords; ++j) {
    const int c = static_cast<int>((first_block + j + source_) % g_);
    for (const auto& s : owned(c))
      for (const auto& piece : clip(s, a, b)) out.push_back({piece, c});
  }
}

void DimDistribution::pieces(const Section1& s, std::vector<DimPiece>& out) const {
  if (s.empty()) return;
  if (s.run_count == 1 || s.stride == s.run_length) {  // an interval: the fast path above
    pieces(s.begin(), s.end(), out);
    return;
  }
  for (const auto& part : clip(s, lo_, hi_)) {
    if (part.empty()) continue;
    if (kind_ == DimKind::flooded) {
      out.push_back({part, 0});
    } else if (bounds_) {
      const auto& bd = *bounds_;
      for (int c = owner(part.begin()); c < g_ && bd[static_cast<std::size_t>(c)] < part.end(); ++c)
        for (const auto& piece : clip(part, bd[static_cast<std::size_t>(c)], bd[static_cast<std::size_t>(c) + 1]))
          if (!piece.empty()) out.push_back({piece, c});
    } else if (irregular_) {
      std::vector<DimPiece> runs;
      pieces(part.begin(), part.end(), runs);
      for (const auto& run : runs)
        for (const auto& piece : clip(part, run.section.begin(), run.section.end()))
          if (!piece.empty()) out.push_back({piece, run.coord});
    } else {
      // Only the coordinates owning a block that the section's span touches can own a piece.
      const index_t first_block = (part.begin() - lo_) / block_size_, last_block = (part.end() - 1 - lo_) / block_size_;
      const index_t coords = std::min<index_t>(g_, last_block - first_block + 1);
      for (index_t j = 0; j < coords; ++j) {
        const int c = static_cast<int>((first_block + j + source_) % g_);
        for (const auto& mine : owned(c))
          for (const auto& piece : intersect(mine, part))
            if (!piece.empty()) out.push_back({piece, c});
      }
    }
  }
}

std::size_t DimDistribution::metadata_bytes() const noexcept {
  std::size_t bytes = sizeof(DimDistribution);
  if (bounds_) bytes += bounds_->size() * sizeof(index_t);
  if (irregular_) {
    const auto& t = *irregular_;
    bytes += t.owner.size() * sizeof(int) + t.local.size() * sizeof(index_t) + t.first_of.size() * sizeof(index_t) +
             t.by_coord.size() * sizeof(index_t) + t.run_start.size() * sizeof(index_t) +
             t.run_owner.size() * sizeof(int);
  }
  return bytes;
}

bool operator==(const DimDistribution& a, const DimDistribution& b) noexcept {
  if (a.hash_ != b.hash_ || a.lo_ != b.lo_ || a.hi_ != b.hi_ || a.g_ != b.g_ || a.logical_block_ != b.logical_block_)
    return false;
  if (a.is_flooded() || b.is_flooded()) return a.is_flooded() && b.is_flooded();
  if (a.bounds_ || b.bounds_) return a.bounds_ && b.bounds_ && *a.bounds_ == *b.bounds_;
  if (a.irregular_ || b.irregular_) return a.irregular_ && b.irregular_ && a.irregular_->owner == b.irregular_->owner;
  return a.block_size_ == b.block_size_ && a.source_ == b.source_;
}

std::ostream& operator<<(std::ostream& out, const DimDistribution& d) {
  switch (d.kind_) {
    case DimKind::block:
      out << "block";
      break;
    case DimKind::collapsed:
      out << "collapsed";
      break;
    case DimKind::flooded:
      out << "flooded";
      break;
    case DimKind::cut:
    case DimKind::cut_weights:
    case DimKind::general: {
      out << "cut(";
      const auto& b = *d.bounds_;
      constexpr std::size_t shown = 16;
      for (std::size_t i = 0; i < b.size() && i < shown; ++i) out << (i ? "," : "") << b[i];
      if (b.size() > shown) out << ",...," << b.back();
      out << ')';
      break;
    }
    case DimKind::cyclic:
      out << "cyclic";
      break;
    case DimKind::block_cyclic:
      out << "block_cyclic(" << d.block_size_;
      if (d.source_ != 0) out << ",src=" << d.source_;
      out << ')';
      break;
    case DimKind::irregular:
      out << "irregular(n=" << d.hi_ - d.lo_ << ')';
      break;
  }
  if (d.logical_block_ != 1) out << "(lb=" << d.logical_block_ << ')';
  return out;
}

}  // namespace tessera
