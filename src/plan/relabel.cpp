// The assignment behind rank relabeling (include/tessera/plan/relabel.hpp): exact by the Hungarian
// method up to relabel_exact_limit candidates, heaviest-overlap-first above.
#include "tessera/plan/relabel.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera {

namespace {

constexpr const char* kWhere = "assign_positions";

/// Column of each candidate rank (-1 for a rank that is not a candidate), ranks up to `max_rank`.
std::vector<int> column_of_rank(const std::vector<int>& candidates) {
  const int max_rank = *std::max_element(candidates.begin(), candidates.end());
  std::vector<int> column(static_cast<std::size_t>(max_rank) + 1, -1);
  for (std::size_t j = 0; j < candidates.size(); ++j)
    column[static_cast<std::size_t>(candidates[j])] = static_cast<int>(j);
  return column;
}

int column_of(const std::vector<int>& column, int rank) {
  return rank >= 0 && static_cast<std::size_t>(rank) < column.size() ? column[static_cast<std::size_t>(rank)] : -1;
}

/// The overlaps whose rank is a candidate, as (position, column, volume), one entry per pair,
/// positive volumes only, sorted by position then column.
std::vector<RelabelOverlap> merged(const std::vector<RelabelOverlap>& overlaps, const std::vector<int>& column) {
  std::vector<RelabelOverlap> out;
  out.reserve(overlaps.size());
  for (const auto& o : overlaps) {
    const int j = column_of(column, o.rank);
    if (j >= 0 && o.volume > 0) out.push_back({o.position, j, o.volume});
  }
  detail::sort_and_merge(out);
  return out;
}

/// Minimum-cost assignment of n rows to distinct columns of an n x m matrix (n <= m), row-major in
/// `cost`: the Hungarian method with potentials (Kuhn-Munkres as Jonker-Volgenant's shortest
/// augmenting paths), O(n² m). Returns the column of every row. Ties go to the lowest column, so the
/// result depends only on the matrix.
std::vector<int> hungarian(int n, int m, const std::vector<std::int64_t>& cost) {
  constexpr std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
  const auto un = static_cast<std::size_t>(n), um = static_cast<std::size_t>(m);
  std::vector<std::int64_t> u(un + 1, 0), v(um + 1, 0), minv(um + 1);
  std::vector<int> row_of(um + 1, 0), way(um + 1, 0);  // row_of[j]: row (1-based) matched to column j
  std::vector<char> used(um + 1);
  for (int i = 1; i <= n; ++i) {
    row_of[0] = i;
    std::size_t j0 = 0;
    std::fill(minv.begin(), minv.end(), inf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[j0] = 1;
      const auto i0 = static_cast<std::size_t>(row_of[j0]);
      const std::int64_t* row = cost.data() + (i0 - 1) * um;
      std::int64_t delta = inf;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= um; ++j) {
        if (used[j]) continue;
        const std::int64_t cur = row[j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = static_cast<int>(j0);
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= um; ++j) {
        if (used[j]) {
          u[static_cast<std::size_t>(row_of[j])] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (row_of[j0] != 0);
    do {
      const auto j1 = static_cast<std::size_t>(way[j0]);
      row_of[j0] = row_of[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> column_of_row(un, -1);
  for (std::size_t j = 1; j <= um; ++j)
    if (row_of[j] > 0) column_of_row[static_cast<std::size_t>(row_of[j]) - 1] = static_cast<int>(j) - 1;
  return column_of_row;
}

/// The exact assignment, or an empty vector if the costs could overflow (then the caller uses the
/// greedy matching).
std::vector<int> exact(int positions, const std::vector<int>& candidates, const std::vector<int>& preferred_column,
                       const std::vector<RelabelOverlap>& entries) {
  const auto n = static_cast<std::size_t>(positions), m = candidates.size();
  index_t w_max = 0;
  for (const auto& e : entries) w_max = std::max(w_max, e.volume);
  // cost = K (w_max - w) + [column is not the preferred rank]: the second term adds up to at most n
  // < K, so it only breaks ties of volume. Potentials stay within n times the largest cost: keep
  // that under 2^62, else drop the tie-break term, else give up (the greedy matching takes over).
  constexpr std::int64_t limit = std::int64_t{1} << 62;
  const auto fits = [&](std::int64_t k) {
    const std::int64_t rows = static_cast<std::int64_t>(n) + 1;
    return w_max <= limit / k / rows - 1;
  };
  const std::int64_t k = fits(static_cast<std::int64_t>(n) + 1) ? static_cast<std::int64_t>(n) + 1 : fits(1) ? 1 : 0;
  if (k == 0) return {};
  std::vector<std::int64_t> cost(n * m);
  for (std::size_t l = 0; l < n; ++l)
    for (std::size_t j = 0; j < m; ++j)
      cost[l * m + j] = k * w_max + (k > 1 && preferred_column[l] != static_cast<int>(j) ? 1 : 0);
  for (const auto& e : entries)
    cost[static_cast<std::size_t>(e.position) * m + static_cast<std::size_t>(e.rank)] -= k * e.volume;
  const std::vector<int> column = hungarian(positions, static_cast<int>(m), cost);
  std::vector<int> ranks(n);
  for (std::size_t l = 0; l < n; ++l) ranks[l] = candidates[static_cast<std::size_t>(column[l])];
  return ranks;
}

/// Heaviest overlap first; ties: a position's preferred rank first, then lowest position, lowest
/// rank. Positions left without overlap take their preferred rank if free, else the lowest free one.
std::vector<int> greedy(int positions, const std::vector<int>& candidates, const std::vector<int>& preferred_column,
                        std::vector<RelabelOverlap> entries) {
  const auto n = static_cast<std::size_t>(positions), m = candidates.size();
  const auto is_preferred = [&](const RelabelOverlap& e) {
    return preferred_column[static_cast<std::size_t>(e.position)] == e.rank;
  };
  std::sort(entries.begin(), entries.end(), [&](const RelabelOverlap& a, const RelabelOverlap& b) {
    if (a.volume != b.volume) return a.volume > b.volume;
    if (is_preferred(a) != is_preferred(b)) return is_preferred(a);
    if (a.position != b.position) return a.position < b.position;
    return a.rank < b.rank;
  });
  std::vector<int> column(n, -1);
  std::vector<char> taken(m, 0);
  for (const auto& e : entries) {
    const auto l = static_cast<std::size_t>(e.position), j = static_cast<std::size_t>(e.rank);
    if (column[l] >= 0 || taken[j]) continue;
    column[l] = e.rank;
    taken[j] = 1;
  }
  std::size_t next_free = 0;
  for (std::size_t l = 0; l < n; ++l) {
    if (column[l] >= 0) continue;
    const auto p = static_cast<std::size_t>(preferred_column[l]);
    if (!taken[p]) {
      column[l] = static_cast<int>(p);
      taken[p] = 1;
      continue;
    }
    while (taken[next_free]) ++next_free;
    column[l] = static_cast<int>(next_free);
    taken[next_free] = 1;
  }
  std::vector<int> ranks(n);
  for (std::size_t l = 0; l < n; ++l) ranks[l] = candidates[static_cast<std::size_t>(column[l])];
  return ranks;
}

}  // namespace

void detail::sort_and_merge(std::vector<RelabelOverlap>& overlaps) {
  std::sort(overlaps.begin(), overlaps.end(), [](const RelabelOverlap& a, const RelabelOverlap& b) {
    return a.position != b.position ? a.position < b.position : a.rank < b.rank;
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < overlaps.size(); ++i) {
    if (kept > 0 && overlaps[kept - 1].position == overlaps[i].position && overlaps[kept - 1].rank == overlaps[i].rank)
      overlaps[kept - 1].volume += overlaps[i].volume;
    else
      overlaps[kept++] = overlaps[i];
  }
  overlaps.resize(kept);
}

index_t assigned_volume(const std::vector<int>& ranks, const std::vector<RelabelOverlap>& overlaps) {
  index_t kept = 0;
  for (const auto& o : overlaps) {
    if (o.position < 0 || static_cast<std::size_t>(o.position) >= ranks.size())
      fail_argument("assigned_volume", "overlaps", o.position,
                    detail::concat("names a position outside [0, ", ranks.size(), ")"));
    if (ranks[static_cast<std::size_t>(o.position)] == o.rank) kept += o.volume;
  }
  return kept;
}

std::vector<int> assign_positions(int positions, const std::vector<int>& candidate_ranks,
                                  const std::vector<int>& preferred, const std::vector<RelabelOverlap>& overlaps,
                                  RelabelMethod method) {
  if (method != RelabelMethod::automatic && method != RelabelMethod::exact && method != RelabelMethod::greedy)
    fail_argument(kWhere, "method", static_cast<int>(method), "is not a tessera::RelabelMethod");
  if (positions < 1) fail_argument(kWhere, "positions", positions, "must be >= 1");
  // Columns in rank order, so that ties go to the lowest rank whatever order the caller lists them in.
  std::vector<int> candidates = candidate_ranks;
  std::sort(candidates.begin(), candidates.end());
  if (candidates.size() < static_cast<std::size_t>(positions))
    fail_argument(kWhere, "candidates", candidates.size(),
                  detail::concat("ranks given for ", positions, " positions: every position needs its own rank"));
  for (std::size_t j = 0; j < candidates.size(); ++j)
    if (candidates[j] < 0) fail_argument(kWhere, detail::concat("candidates[", j, "]"), candidates[j], "must be >= 0");
  const auto dup = std::adjacent_find(candidates.begin(), candidates.end());
  if (dup != candidates.end()) fail_argument(kWhere, "candidates", *dup, "appears twice");
  const std::vector<int> column = column_of_rank(candidates);
  if (preferred.size() != static_cast<std::size_t>(positions))
    fail_argument(kWhere, "preferred.size()", preferred.size(), detail::concat("must equal positions = ", positions));
  std::vector<int> preferred_column(preferred.size());
  for (std::size_t l = 0; l < preferred.size(); ++l) {
    preferred_column[l] = column_of(column, preferred[l]);
    if (preferred_column[l] < 0)
      fail_argument(kWhere, detail::concat("preferred[", l, "]"), preferred[l], "is not one of the candidates");
  }
  for (const auto& o : overlaps) {
    if (o.position < 0 || o.position >= positions)
      fail_argument(kWhere, "overlaps", o.position, detail::concat("names a position outside [0, ", positions, ")"));
    if (o.volume < 0) fail_argument(kWhere, "overlaps", o.volume, "has a negative volume");
  }
  const std::vector<RelabelOverlap> entries = merged(overlaps, column);
  const bool use_exact =
      method == RelabelMethod::exact ||
      (method == RelabelMethod::automatic && candidates.size() <= static_cast<std::size_t>(relabel_exact_limit));
  if (use_exact) {
    std::vector<int> ranks = exact(positions, candidates, preferred_column, entries);
    if (!ranks.empty()) return ranks;
  }
  std::vector<int> ranks = greedy(positions, candidates, preferred_column, entries);
  // The greedy matching can keep less than the target as given: never return a worse labeling.
  if (assigned_volume(ranks, overlaps) <= assigned_volume(preferred, overlaps)) return preferred;
  return ranks;
}

}  // namespace tessera
