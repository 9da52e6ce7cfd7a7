// Combining arriving values (plan/combine_op.hpp) and the wrapping integer arithmetic under it
// (core/wrapping_arithmetic.hpp): integer add and multiply wrap modulo 2^bits, defined for every
// input (UBSan in the asan build fails this test if they overflow instead), checked against the
// same arithmetic done by hand in unsigned types.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <vector>

#include "tessera/core/wrapping_arithmetic.hpp"
#include "tessera/plan/combine_op.hpp"

namespace tessera {
namespace {

static_assert(wrapping_add<std::int32_t>(INT32_MAX, 1) == INT32_MIN);
static_assert(wrapping_multiply<std::int16_t>(-32768, -1) == -32768);
static_assert(wrapping_multiply<std::uint16_t>(65535, 65535) == 1);  // no promotion to int
static_assert(wrapping_add(1.5, 2.0) == 3.5);

TEST(WrappingArithmetic, SignedIntegersWrapLikeTheirUnsignedBits) {
  const std::int64_t big = 0x7654321076543210LL;
  std::uint64_t sum = 0, product = 1;
  std::int64_t wrapped_sum = 0, wrapped_product = 1;
  for (int k = 0; k < 9; ++k) {
    sum += static_cast<std::uint64_t>(big);
    product *= static_cast<std::uint64_t>(big);
    wrapped_sum = wrapping_add(wrapped_sum, big);
    wrapped_product = wrapping_multiply(wrapped_product, big);
  }
  EXPECT_EQ(static_cast<std::uint64_t>(wrapped_sum), sum);
  EXPECT_EQ(static_cast<std::uint64_t>(wrapped_product), product);
  EXPECT_EQ(wrapping_multiply<std::int8_t>(100, 100), static_cast<std::int8_t>(10000 % 256));
  EXPECT_EQ(WrappingPlus{}(std::numeric_limits<std::int64_t>::min(), std::int64_t{-1}),
            std::numeric_limits<std::int64_t>::max());
}

TEST(CombineOp, IntegerAddAndMultiplyWrap) {
  std::vector<std::int32_t> into{INT32_MAX, INT32_MIN, 1 << 20};
  const std::vector<std::int32_t> arriving{1, -1, 1 << 12};
  combine_function<std::int32_t>(CombineOp::add)(into.data(), arriving.data(), 2);
  EXPECT_EQ(into[0], INT32_MIN);
  EXPECT_EQ(into[1], INT32_MAX);
  combine_function<std::int32_t>(CombineOp::multiply)(into.data() + 2, arriving.data() + 2, 1);
  EXPECT_EQ(into[2], 0) << "2^32 wraps to 0";
}

}  // namespace
}  // namespace tessera
