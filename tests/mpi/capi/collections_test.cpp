// Regions, sparse subdomains and associative domains through the C API (src/capi/sparse.cpp,
// src/capi/assoc.cpp) against serial references every rank computes alike: region arrays, sparse
// add/remove/contains/size, values, reductions, gathers, width and offset ghost updates with
// periodic wrap, following the parent's redistribution; associative batched insert, update
// (word-count style), lookup, reductions; and the status of each bad input.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

class CApiCollections : public CApiTest {
 protected:
  /// An 8 x 7 domain: kind `k` along both axes over an automatic grid.
  tessera_dist dist_8x7(tessera_dim_kind k) {
    tessera_grid g = grid2(8, 7);
    const tessera_box box = {{0, 0, 0}, {8, 7, 0}};
    tessera_dim_spec specs[2] = {{}, {}};
    specs[0].kind = specs[1].kind = k;
    tessera_dist d = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_create(g, &box, specs, nullptr, &d));
    EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&g));
    return d;
  }
};

std::int64_t collection_code(std::int64_t i, std::int64_t j) { return 100 * i + j + 1; }

TEST_F(CApiCollections, RegionArraysAlignWithTheParent) {
  tessera_dist d = dist_8x7(TESSERA_DIM_CYCLIC);
  tessera_domain dom = domain_of(d);
  const tessera_box inner = {{1, 1, 0}, {7, 6, 0}};
  tessera_domain region = nullptr;
  ASSERT_OK(tessera_domain_region(dom, &inner, &region));
  int is_region = -1;
  ASSERT_OK(tessera_domain_is_region(region, &is_region));
  EXPECT_EQ(is_region, 1);
  ASSERT_OK(tessera_domain_is_region(dom, &is_region));
  EXPECT_EQ(is_region, 0);
  // Every index of the region keeps its owner under the parent.
  tessera_dist rd = nullptr;
  ASSERT_OK(tessera_domain_distribution(region, &rd));
  for (std::int64_t i = 1; i < 7; ++i)
    for (std::int64_t j = 1; j < 6; ++j) {
      const int64_t p[2] = {i, j};
      int owner = -1, region_owner = -2;
      ASSERT_OK(tessera_dist_owner(d, p, &owner));
      ASSERT_OK(tessera_dist_owner(rd, p, &region_owner));
      EXPECT_EQ(owner, region_owner) << i << "," << j;
    }
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(region, TESSERA_INT64, nullptr, &a));
  const std::int64_t three = 3;
  ASSERT_OK(tessera_array_fill(a, TESSERA_INT64, &three));
  std::int64_t sum = 0;
  ASSERT_OK(tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_INT64, &sum));
  EXPECT_EQ(sum, 3 * 6 * 5);
  // A region refuses its own redistribution; a box outside the parent is refused.
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_redistribute(region, d, TESSERA_PRESERVE));
  const tessera_box outside = {{0, 0, 0}, {9, 7, 0}};
  tessera_domain bad = nullptr;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_domain_region(dom, &outside, &bad));
  EXPECT_EQ(bad, nullptr);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_region(dom, nullptr, &bad));
  EXPECT_STATUS(TESSERA_OK, tessera_array_free(&a));
  EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&rd));
  EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&region));
  EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom));
  EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&d));
}

// The gathered image on rank 0 is the reference.
void expect_gathered(tessera_sparse_array a, const std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>& ref,
                     int rank) {
  std::vector<tessera_index> points(ref.size() + 1);
  std::vector<std::int64_t> values(ref.size() + 1);
  size_t count = 99;
  ASSERT_OK(tessera_sparse_array_gather_to(a, 0, TESSERA_INT64, points.data(), values.data(), points.size(), &count));
  if (rank != 0) {
    EXPECT_EQ(count, 0u);
    return;
  }
  ASSERT_EQ(count, ref.size());
  std::size_t k = 0;
  for (const auto& [p, v] : ref) {
    EXPECT_EQ(points[k].c[0], p.first);
    EXPECT_EQ(points[k].c[1], p.second);
    EXPECT_EQ(values[k], v);
    ++k;
  }
}

TEST_F(CApiCollections, SparseSetsArraysAndGhostsMatchTheSerialReference) {
  for (const tessera_dim_kind kind : {TESSERA_DIM_BLOCK, TESSERA_DIM_CYCLIC}) {
    SCOPED_TRACE(::testing::Message() << "kind " << kind);
    tessera_dist d = dist_8x7(kind);
    tessera_domain dom = domain_of(d);
    tessera_sparse s = nullptr;
    ASSERT_OK(tessera_sparse_create(dom, &s));
    tessera_sparse_array a = nullptr, b = nullptr;
    ASSERT_OK(tessera_sparse_array_create(s, TESSERA_INT64, &a));
    ASSERT_OK(tessera_sparse_array_create(s, TESSERA_DOUBLE, &b));
    // The same 30 points on every rank, each rank adding every size-th one.
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> ref;
    std::vector<tessera_index> mine;
    for (std::int64_t k = 0; k < 30; ++k) {
      const std::int64_t i = (k * 5 + 1) % 8, j = (k * k + 3) % 7;
      ref[{i, j}] = collection_code(i, j);
      if (k % size == rank) mine.push_back(tessera_index{{i, j, 0}});
    }
    ASSERT_OK(tessera_sparse_add(s, mine.data(), mine.size()));
    std::int64_t total = 0;
    ASSERT_OK(tessera_sparse_size(s, &total));
    EXPECT_EQ(total, static_cast<std::int64_t>(ref.size()));
    // Values through the local points.
    size_t n = 0;
    ASSERT_OK(tessera_sparse_local_points(s, nullptr, 0, &n));
    std::vector<tessera_index> local(n);
    ASSERT_OK(tessera_sparse_local_points(s, local.data(), local.size(), &n));
    void* raw = nullptr;
    size_t values = 0;
    ASSERT_OK(tessera_sparse_array_values(a, TESSERA_INT64, &raw, &values));
    ASSERT_EQ(values, n);
    for (std::size_t k = 0; k < n; ++k) static_cast<std::int64_t*>(raw)[k] = collection_code(local[k].c[0], local[k].c[1]);
    ASSERT_OK(tessera_sparse_array_values(b, TESSERA_DOUBLE, &raw, &values));
    for (std::size_t k = 0; k < n; ++k) static_cast<double*>(raw)[k] = 0.5 * static_cast<double>(local[k].c[0]);
    // Reductions and the gather.
    std::int64_t sum = 0, lo = INT64_MAX, hi = INT64_MIN, got = 0;
    double half = 0;
    for (const auto& [p, v] : ref) sum += v, lo = std::min(lo, v), hi = std::max(hi, v), half += 0.5 * p.first;
    ASSERT_OK(tessera_sparse_array_reduce(a, TESSERA_OP_ADD, TESSERA_INT64, &got));
    EXPECT_EQ(got, sum);
    ASSERT_OK(tessera_sparse_array_reduce(a, TESSERA_OP_MIN, TESSERA_INT64, &got));
    EXPECT_EQ(got, lo);
    ASSERT_OK(tessera_sparse_array_reduce(a, TESSERA_OP_MAX, TESSERA_INT64, &got));
    EXPECT_EQ(got, hi);
    double dsum = 0;
    ASSERT_OK(tessera_sparse_array_reduce(b, TESSERA_OP_ADD, TESSERA_DOUBLE, &dsum));
    EXPECT_EQ(dsum, half);  // halves of small integers: exact in any order
    expect_gathered(a, ref, rank);
    // Membership of every index of the box.
    std::vector<tessera_index> all;
    for (std::int64_t i = 0; i < 8; ++i)
      for (std::int64_t j = 0; j < 7; ++j) all.push_back(tessera_index{{i, j, 0}});
    std::vector<uint8_t> held(all.size());
    ASSERT_OK(tessera_sparse_contains(s, all.data(), all.size(), held.data()));
    for (std::size_t k = 0; k < all.size(); ++k) EXPECT_EQ(held[k] != 0, ref.count({all[k].c[0], all[k].c[1]}) == 1);
    // Width-1 ghosts with corners, wrapping along axis 1: all 8 neighbours, columns mod 7.
    tessera_ghosts g = {};
    g.lower[0] = g.lower[1] = g.upper[0] = g.upper[1] = 1;
    g.periodic[1] = 1;
    ASSERT_OK(tessera_sparse_array_update_ghosts(a, &g));
    for (const tessera_index& p : local)
      for (std::int64_t di = -1; di <= 1; ++di)
        for (std::int64_t dj = -1; dj <= 1; ++dj) {
          const tessera_index q = {{p.c[0] + di, p.c[1] + dj, 0}};
          const std::int64_t wi = q.c[0], wj = (q.c[1] + 7) % 7;
          std::int64_t v = -1;
          int found = -1;
          ASSERT_OK(tessera_sparse_array_find(a, TESSERA_INT64, &q, &v, &found));
          const bool present = wi >= 0 && wi < 8 && ref.count({wi, wj}) == 1;
          EXPECT_EQ(found, present ? 1 : 0) << q.c[0] << "," << q.c[1];
          if (present) {
            EXPECT_EQ(v, collection_code(wi, wj));
          }
        }
    // An explicit stencil, no wrap: two to the right.
    const tessera_index right2[] = {{{0, 2, 0}}};
    ASSERT_OK(tessera_sparse_array_update_offsets(a, right2, 1, nullptr));
    for (const tessera_index& p : local) {
      const tessera_index q = {{p.c[0], p.c[1] + 2, 0}};
      std::int64_t v = -1;
      int found = -1;
      ASSERT_OK(tessera_sparse_array_find(a, TESSERA_INT64, &q, &v, &found));
      EXPECT_EQ(found, ref.count({q.c[0], q.c[1]}) == 1 ? 1 : 0);
    }
    // Remove some (from rank 0 only), then follow the parent to another kind: values stay.
    std::vector<tessera_index> gone;
    for (std::int64_t i = 0; i < 8; i += 2) gone.push_back(tessera_index{{i, (i * i + 3) % 7, 0}});
    ASSERT_OK(tessera_sparse_remove(s, gone.data(), rank == 0 ? gone.size() : 0));
    for (const auto& p : gone) ref.erase({p.c[0], p.c[1]});
    tessera_dist other = dist_8x7(kind == TESSERA_DIM_BLOCK ? TESSERA_DIM_CYCLIC : TESSERA_DIM_BLOCK);
    ASSERT_OK(tessera_domain_redistribute(dom, other, TESSERA_PRESERVE));
    ASSERT_OK(tessera_sparse_size(s, &total));
    EXPECT_EQ(total, static_cast<std::int64_t>(ref.size()));
    expect_gathered(a, ref, rank);

    // Bad input: a point outside the box from the last rank only is every rank's error.
    const tessera_index outside = {{8, 0, 0}};
    EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_sparse_add(s, &outside, rank == size - 1 ? 1 : 0));
    ASSERT_OK(tessera_sparse_size(s, &total));
    EXPECT_EQ(total, static_cast<std::int64_t>(ref.size()));
    tessera_ghosts negative = {};
    negative.lower[0] = -1;
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_sparse_array_update_ghosts(a, &negative));
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_sparse_array_update_offsets(a, nullptr, 0, nullptr));
    std::int64_t v = 0;
    EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_sparse_array_reduce(a, TESSERA_OP_ADD, TESSERA_DOUBLE, &v));
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_sparse_array_reduce(a, TESSERA_OP_REPLACE, TESSERA_INT64, &v));
    tessera_sparse_array c = nullptr;
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_sparse_array_create(s, TESSERA_COMPLEX_DOUBLE, &c));
    EXPECT_EQ(c, nullptr);
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_sparse_add(s, nullptr, 2));
    tessera_index one;
    size_t count = 0;
    if (n > 1) EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_sparse_local_points(s, &one, 1, &count));
    EXPECT_STATUS(TESSERA_ERR_INVALID_HANDLE, tessera_sparse_size(reinterpret_cast<tessera_sparse>(dom), &total));

    EXPECT_STATUS(TESSERA_OK, tessera_sparse_array_free(&b));
    EXPECT_STATUS(TESSERA_OK, tessera_sparse_array_free(&a));
    tessera_sparse stale = s;
    EXPECT_STATUS(TESSERA_OK, tessera_sparse_free(&s));
    EXPECT_STATUS(TESSERA_ERR_FREED_HANDLE, tessera_sparse_size(stale, &total));
    EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&other));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&d));
  }
}

TEST_F(CApiCollections, AssociativeCountsMatchASerialCount) {
  tessera_assoc words = nullptr;
  ASSERT_OK(tessera_assoc_create(world, &words));
  tessera_assoc_array count = nullptr, weight = nullptr;
  ASSERT_OK(tessera_assoc_array_create(words, TESSERA_INT64, &count));
  // Rank r counts the keys (k * k) mod 23 for k < 20 + r: a serial count over every rank's batch.
  std::map<std::int64_t, std::int64_t> ref;
  std::vector<std::int64_t> keys, ones;
  for (int r = 0; r < size; ++r)
    for (std::int64_t k = 0; k < 20 + r; ++k) {
      ++ref[(k * k) % 23];
      if (r == rank) keys.push_back((k * k) % 23), ones.push_back(1);
    }
  ASSERT_OK(tessera_assoc_array_update(count, TESSERA_INT64, keys.data(), ones.data(), keys.size(), TESSERA_OP_ADD, 1));
  // An array created after the inserts starts at 0 for every key; MAX-update it.
  ASSERT_OK(tessera_assoc_array_create(words, TESSERA_DOUBLE, &weight));
  std::vector<double> w(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) w[k] = static_cast<double>(keys[k] + rank);
  ASSERT_OK(tessera_assoc_array_update(weight, TESSERA_DOUBLE, keys.data(), w.data(), keys.size(), TESSERA_OP_MAX, 0));
  std::int64_t n = 0;
  ASSERT_OK(tessera_assoc_size(words, &n));
  EXPECT_EQ(n, static_cast<std::int64_t>(ref.size()));
  // Every rank looks every key up.
  std::vector<std::int64_t> asked, got;
  for (const auto& [k, c] : ref) asked.push_back(k);
  got.resize(asked.size());
  ASSERT_OK(tessera_assoc_array_lookup(count, TESSERA_INT64, asked.data(), asked.size(), got.data()));
  std::size_t i = 0;
  for (const auto& [k, c] : ref) EXPECT_EQ(got[i++], c) << "key " << k;
  std::vector<double> heaviest(asked.size());
  ASSERT_OK(tessera_assoc_array_lookup(weight, TESSERA_DOUBLE, asked.data(), asked.size(), heaviest.data()));
  for (std::size_t k = 0; k < asked.size(); ++k) {
    // The largest rank whose batch holds the key: every rank's batch holds the first 20 squares.
    EXPECT_EQ(heaviest[k], static_cast<double>(asked[k] + size - 1)) << "key " << asked[k];
  }
  std::int64_t total = 0, most = 0, expected_total = 0, expected_most = 0;
  for (const auto& [k, c] : ref) expected_total += c, expected_most = std::max(expected_most, c);
  ASSERT_OK(tessera_assoc_array_reduce(count, TESSERA_OP_ADD, TESSERA_INT64, &total));
  ASSERT_OK(tessera_assoc_array_reduce(count, TESSERA_OP_MAX, TESSERA_INT64, &most));
  EXPECT_EQ(total, expected_total);
  EXPECT_EQ(most, expected_most);
  // Local keys and values agree with the lookup.
  size_t local = 0;
  ASSERT_OK(tessera_assoc_local_keys(words, nullptr, 0, &local));
  std::vector<std::int64_t> local_keys(local);
  ASSERT_OK(tessera_assoc_local_keys(words, local_keys.data(), local, &local));
  void* raw = nullptr;
  size_t values = 0;
  ASSERT_OK(tessera_assoc_array_values(count, TESSERA_INT64, &raw, &values));
  ASSERT_EQ(values, local);
  for (std::size_t k = 0; k < local; ++k) EXPECT_EQ(static_cast<std::int64_t*>(raw)[k], ref.at(local_keys[k]));
  // Remove key 0 (rank 0's batch), then membership.
  const std::int64_t zero = 0, absent[2] = {0, 5};
  ASSERT_OK(tessera_assoc_remove(words, &zero, rank == 0 ? 1 : 0));
  uint8_t held[2] = {7, 7};
  ASSERT_OK(tessera_assoc_contains(words, absent, 2, held));
  EXPECT_EQ(held[0], 0);
  EXPECT_EQ(held[1], ref.count(5) == 1 ? 1 : 0);
  ASSERT_OK(tessera_assoc_insert(words, &zero, rank == size - 1 ? 1 : 0));
  ASSERT_OK(tessera_assoc_array_lookup(count, TESSERA_INT64, &zero, 1, got.data()));
  EXPECT_EQ(got[0], 0);  // inserted again: a new value
  // Bad input: a missing key (from the last rank only) in a lookup or an update without insert.
  const std::int64_t missing = 1000;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE,
                tessera_assoc_array_lookup(count, TESSERA_INT64, &missing, rank == size - 1 ? 1 : 0, got.data()));
  const std::int64_t one = 1;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_assoc_array_update(count, TESSERA_INT64, &missing, &one,
                                                                     rank == size - 1 ? 1 : 0, TESSERA_OP_ADD, 0));
  ASSERT_OK(tessera_assoc_array_reduce(count, TESSERA_OP_ADD, TESSERA_INT64, &total));
  EXPECT_EQ(total, expected_total - ref.at(0));
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_assoc_array_reduce(count, TESSERA_OP_ADD, TESSERA_FLOAT, &total));
  tessera_assoc_array bad = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_assoc_array_create(words, TESSERA_INDEX, &bad));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_assoc_insert(words, nullptr, 3));
  EXPECT_STATUS(TESSERA_OK, tessera_assoc_array_free(&weight));
  EXPECT_STATUS(TESSERA_OK, tessera_assoc_array_free(&count));
  EXPECT_STATUS(TESSERA_OK, tessera_assoc_free(&words));
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_assoc_size(words, &n));
}

}  // namespace
}  // namespace tessera::capi_testing
