// tessera_groups_* and tessera_copy_between_groups / tessera_copy_section_between_groups: the world
// split into two groups (every third rank from 0, in reverse order, and every third from 1; the
// ranks from 2 in none), arrays on each group's own tessera_comm, a copy one way and a section the
// other way checked against value(i, j) gathered on the receiving group; bad input a status on
// every rank, ranks without arrays too.
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

constexpr std::int64_t kGroupRows = 7, kGroupCols = 5;

double group_value(std::int64_t i, std::int64_t j) { return static_cast<double>(100 * i + j + 1); }

/// Every element of a kGroupRows x kGroupCols array, row-major, from `value`.
template <class Value>
std::vector<double> group_image(Value&& value) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < kGroupRows; ++i)
    for (std::int64_t j = 0; j < kGroupCols; ++j) v.push_back(value(i, j));
  return v;
}

class GroupsCApiTest : public CApiTest {
 protected:
  /// A kGroupRows x kGroupCols distribution over `ranks` ranks: block x block, or cyclic x block.
  tessera_dist group_dist(int ranks, bool cyclic) {
    const std::int64_t extents[2] = {kGroupRows, kGroupCols};
    tessera_grid g = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_grid_automatic(2, ranks, extents, nullptr, &g));
    const tessera_box box = {{0, 0, 0}, {kGroupRows, kGroupCols, 0}};
    tessera_dim_spec specs[2] = {};
    if (cyclic) specs[0].kind = TESSERA_DIM_CYCLIC;
    tessera_dist d = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_create(g, &box, specs, nullptr, &d));
    EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&g));
    return d;
  }
};

TEST_F(GroupsCApiTest, SplitCopyBothWaysAndRefuseBadInput) {
  std::vector<int> ranks, sizes(2, 0);
  for (int r = (size - 1) / 3 * 3; r >= 0; r -= 3, ++sizes[0]) ranks.push_back(r);
  for (int r = 1; r < size; r += 3, ++sizes[1]) ranks.push_back(r);
  const int count = size == 1 ? 1 : 2;
  tessera_groups groups = nullptr;
  ASSERT_OK(tessera_groups_create(world, ranks.data(), sizes.data(), count, &groups));
  int got = 0, mine = -2;
  ASSERT_OK(tessera_groups_count(groups, &got));
  EXPECT_EQ(got, count);
  ASSERT_OK(tessera_groups_my_group(groups, &mine));
  EXPECT_EQ(mine, rank % 3 < count ? rank % 3 : -1);
  for (int r = 0; r < size; ++r) {
    ASSERT_OK(tessera_groups_group_of(groups, r, &got));
    EXPECT_EQ(got, r % 3 < count ? r % 3 : -1);
  }
  std::vector<int> listed(static_cast<std::size_t>(sizes[0]));
  std::size_t listed_size = 0;
  ASSERT_OK(tessera_groups_ranks(groups, 0, listed.data(), listed.size(), &listed_size));
  EXPECT_EQ(listed, std::vector<int>(ranks.begin(), ranks.begin() + sizes[0]));

  // Each group's array, over the group's own communicator (NULL on the ranks outside).
  const int to_group = count - 1;  // one rank: the same group, which the copy refuses
  tessera_dist from = group_dist(sizes[0], false), to = group_dist(sizes[to_group], true);
  tessera_comm mine_comm = nullptr;
  tessera_domain dom = nullptr;
  tessera_array a = nullptr, b = nullptr;
  if (mine >= 0) {
    ASSERT_OK(tessera_groups_comm(groups, &mine_comm));
    int group_rank = -1;
    ASSERT_OK(tessera_comm_rank(mine_comm, &group_rank));
    ASSERT_OK(tessera_domain_create(mine_comm, mine == 0 ? from : to, &dom));
    ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, mine == 0 ? &a : &b));
    if (mine == 0) {
      const std::vector<double> v = group_image(group_value);
      ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_DOUBLE, v.data(), group_rank == 0 ? kGroupRows * kGroupCols : 0));
    }
  } else {
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_groups_comm(groups, &mine_comm));
    expect_error_mentions({"tessera_groups_comm", "is in no group"});
  }
  if (count == 1) {
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy_between_groups(groups, TESSERA_DOUBLE, 0, from, a, 0, from, a));
    expect_error_mentions({"tessera_copy_between_groups", "are both 0"});
  } else {
    ASSERT_OK(tessera_copy_between_groups(groups, TESSERA_DOUBLE, 0, from, a, 1, to, b));
    std::vector<double> all(static_cast<std::size_t>(kGroupRows * kGroupCols));
    if (mine == 1) {
      ASSERT_OK(tessera_array_gather_to_all(b, TESSERA_DOUBLE, all.data(), kGroupRows * kGroupCols));
      EXPECT_EQ(all, group_image(group_value));
    }
    // Rows 1..3, columns 0..2 of b onto rows 4..6, columns 2..4 of a.
    const tessera_box section = {{1, 0, 0}, {4, 3, 0}};
    const std::int64_t dst_lo[2] = {4, 2};
    ASSERT_OK(tessera_copy_section_between_groups(groups, TESSERA_DOUBLE, 1, to, b, &section, 0, from, a, dst_lo));
    if (mine == 0) {
      ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, all.data(), kGroupRows * kGroupCols));
      EXPECT_EQ(all, group_image([](std::int64_t i, std::int64_t j) {
                  return i >= 4 && j >= 2 ? group_value(i - 3, j - 2) : group_value(i, j);
                }));
    }
    // Another element type than the arrays hold: refused on every rank, the ranks without arrays too.
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy_between_groups(groups, TESSERA_FLOAT, 0, from, a, 1, to, b));
    expect_error_mentions({"tessera_copy_between_groups", "TESSERA_DOUBLE"});
    // An array missing on a rank of its group.
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy_between_groups(groups, TESSERA_DOUBLE, 0, from, nullptr, 1, to, b));
    expect_error_mentions({"tessera_copy_between_groups", "is null on parent rank"});
  }
  EXPECT_STATUS(TESSERA_OK, tessera_array_free(&a));
  EXPECT_STATUS(TESSERA_OK, tessera_array_free(&b));
  EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom));
  EXPECT_STATUS(TESSERA_OK, tessera_comm_free(&mine_comm));
  EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&from));
  EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&to));
  EXPECT_STATUS(TESSERA_OK, tessera_groups_free(&groups));
}

TEST_F(GroupsCApiTest, BadListsAreRefusedOnEveryRank) {
  tessera_groups groups = nullptr;
  const int twice[2] = {0, 0}, sizes[2] = {1, 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_groups_create(world, twice, sizes, 2, &groups));
  expect_error_mentions({"tessera_groups_create", "is also in groups[0]"});
  EXPECT_EQ(groups, nullptr);
  const int outside[1] = {size}, one[1] = {1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_groups_create(world, outside, one, 1, &groups));
  expect_error_mentions({"tessera_groups_create", "lies outside"});
  // Malformed on rank 0 only: every rank fails, none is left waiting in the split.
  const int negative[1] = {rank == 0 ? -1 : 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_groups_create(world, twice, negative, 1, &groups));
  expect_error_mentions({"tessera_groups_create", "'sizes[0]' = -1"});
}

}  // namespace
}  // namespace tessera::capi_testing
