#pragma once
// What the C API's two balancers share (balancer.cpp, box_balancer.cpp): the policy a
// tessera_policy names and the C picture of a step.
#include <memory>

#include "tessera.h"
#include "tessera/balance/balancer.hpp"
#include "tessera/balance/policy.hpp"

namespace tessera::capi {

/// The C++ policy `p` describes; TESSERA_ERR_INVALID_ARGUMENT for a kind that is not one.
[[nodiscard]] std::shared_ptr<BalancePolicy> make_policy(const tessera_policy& p);
/// Copies `s` into `*out` (nothing if `out` is null).
void write_step(const BalanceStep& s, tessera_balance_step* out);

}  // namespace tessera::capi
