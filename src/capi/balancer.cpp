// tessera_balancer_*: a balance policy run at remap points, and processor-set changes (AMP).
#include "balance_common.hpp"
#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

template <std::size_t N>
using BalancerPtr = std::unique_ptr<Balancer<N>>;

struct BalancerObject {
  static constexpr Kind kind = Kind::balancer;
  std::shared_ptr<DomainObject> domain;  // declared first: destroyed after the balancer
  PerDim<BalancerPtr> balancer;
};

BalancerOptions to_options(const tessera_balancer_options* o) {
  BalancerOptions out;
  if (!o) return out;
  out.interval = o->interval;
  switch (o->weights) {
    case TESSERA_WEIGHTS_THROUGHPUT:
      out.weights = WeightRule::throughput;
      break;
    case TESSERA_WEIGHTS_INVERSE_TIME:
      out.weights = WeightRule::inverse_time;
      break;
    case TESSERA_WEIGHTS_D3ARC:
      out.weights = WeightRule::d3arc;
      break;
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'options->weights' = ", static_cast<int>(o->weights),
             " is not a tessera_weight_rule");
  }
  out.lb = o->lb;
  out.ub = o->ub;
  return out;
}

template <class F>
decltype(auto) visit_balancer(BalancerObject& b, F&& f) {
  return std::visit([&](auto& p) -> decltype(auto) { return f(*p); }, b.balancer);
}

}  // namespace

namespace tessera::capi {

std::shared_ptr<BalancePolicy> make_policy(const tessera_policy& p) {
  switch (p.kind) {
    case TESSERA_POLICY_NONE:
      return std::make_shared<NoRebalancing>();
    case TESSERA_POLICY_STATIC:
      return std::make_shared<StaticDelta>(p.delta, p.tolerance);
    case TESSERA_POLICY_D3ARC_ADAPTIVE:
      return std::make_shared<D3arcAdaptiveDelta>(p.delta, p.tolerance, p.min_delta);
    case TESSERA_POLICY_AMORTISED:
      return std::make_shared<AmortisedDelta>(p.payback_limit, p.delta, p.tolerance);
    case TESSERA_POLICY_HORIZON:
      return std::make_shared<HorizonPolicy>(std::vector<double>{0.25, 0.5, 1.0}, p.tolerance);
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'policy->kind' = ", static_cast<int>(p.kind),
         " is not a tessera_policy_kind");
}

void write_step(const BalanceStep& s, tessera_balance_step* out) {
  if (!out) return;
  out->iteration = s.iteration;
  out->remap_point = s.remap_point ? 1 : 0;
  out->compute_seconds = s.compute_seconds;
  out->coordination_seconds = s.coordination_seconds;
  out->migration_seconds = s.migration_seconds;
  out->imbalance = s.imbalance;
  out->delta = s.delta;
  out->elements = s.elements;
  out->blocks = s.blocks;
  out->bytes = s.bytes;
  out->processor_set_changed = s.processor_set_changed ? 1 : 0;
  out->active_ranks = s.active_ranks;
}

}  // namespace tessera::capi

extern "C" {

tessera_status tessera_policy_defaults(tessera_policy_kind kind, tessera_policy* policy) {
  return guarded("tessera_policy_defaults", [&] {
    require_pointer("policy", policy);
    if (kind < TESSERA_POLICY_NONE || kind > TESSERA_POLICY_HORIZON)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'kind' = ", static_cast<int>(kind),
             " is not a tessera_policy_kind");
    // The defaults of the C++ policies' constructors.
    *policy = tessera_policy{kind, 1.0, 0.05, 0.05, 20.0};
    if (kind == TESSERA_POLICY_D3ARC_ADAPTIVE) policy->delta = 0.3;
  });
}

tessera_status tessera_balancer_options_defaults(tessera_balancer_options* options) {
  return guarded("tessera_balancer_options_defaults", [&] {
    require_pointer("options", options);
    const BalancerOptions d;
    *options = tessera_balancer_options{d.interval, TESSERA_WEIGHTS_THROUGHPUT, d.lb, d.ub};
  });
}

tessera_status tessera_balancer_create(tessera_domain domain, const tessera_policy* policy,
                                       const tessera_balancer_options* options, tessera_balancer* out) {
  return guarded("tessera_balancer_create", [&] {
    prepare_out(out);
    auto d = get<DomainObject>(domain, "domain");
    require_pointer("policy", policy);
    auto p = make_policy(*policy);
    const BalancerOptions o = to_options(options);
    auto object = std::make_shared<BalancerObject>();
    object->domain = d;
    std::visit(
        [&](const auto& dom) {
          constexpr std::size_t N = dims_v<decltype(dom)>;
          object->balancer = std::make_unique<Balancer<N>>(dom, p, o);
        },
        d->domain);
    issue(std::move(object), out);
  });
}

tessera_status tessera_balancer_timer_start(tessera_balancer balancer) {
  return guarded("tessera_balancer_timer_start", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    visit_balancer(*b, [](auto& x) {
      if (x.timer().running()) fail_c(TESSERA_ERR_CALL_ORDER, "the timer is running already: stop it first");
      x.timer().start();
    });
  });
}

tessera_status tessera_balancer_timer_stop(tessera_balancer balancer) {
  return guarded("tessera_balancer_timer_stop", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    visit_balancer(*b, [](auto& x) {
      if (!x.timer().running()) fail_c(TESSERA_ERR_CALL_ORDER, "the timer is not running: start it first");
      x.timer().stop();
    });
  });
}

tessera_status tessera_balancer_step(tessera_balancer balancer, tessera_balance_step* out) {
  return guarded("tessera_balancer_step", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    visit_balancer(*b, [&](auto& x) {
      if (x.timer().running())
        fail_c(TESSERA_ERR_CALL_ORDER, "the timer is running: stop it before the step that reads it");
      write_step(x.step(), out);
    });
  });
}

tessera_status tessera_balancer_step_seconds(tessera_balancer balancer, double seconds, tessera_balance_step* out) {
  return guarded("tessera_balancer_step_seconds", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    visit_balancer(*b, [&](auto& x) { write_step(x.step(seconds), out); });
  });
}

tessera_status tessera_balancer_set_active_ranks(tessera_balancer balancer, const int* ranks, size_t count,
                                                 double* seconds) {
  return guarded("tessera_balancer_set_active_ranks", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    const auto active = to_vector(ranks, count, "ranks");
    visit_balancer(*b, [&](auto& x) {
      const double t = x.set_active_ranks(active);
      if (seconds) *seconds = t;
    });
  });
}

tessera_status tessera_balancer_set_availability(tessera_balancer balancer, tessera_availability_fn fn,
                                                 void* user_data) {
  return guarded("tessera_balancer_set_availability", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    AvailabilityHook hook;
    if (fn) {
      hook = [fn, user_data](const AvailabilityContext& c) {
        const tessera_availability_context context{c.rank, c.iteration, c.active ? 1 : 0, c.relative_speed,
                                                   c.remap_points_inactive};
        return fn(&context, user_data) != 0;
      };
    }
    visit_balancer(*b, [&](auto& x) { x.set_availability(hook); });
  });
}

tessera_status tessera_balancer_set_availability_file(tessera_balancer balancer, const char* pattern) {
  return guarded("tessera_balancer_set_availability_file", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    require_pointer("pattern", pattern);
    visit_balancer(*b, [&](auto& x) { x.set_availability(availability_file(pattern)); });
  });
}

tessera_status tessera_balancer_set_slowdown_threshold(tessera_balancer balancer, double factor, int retry_after) {
  return guarded("tessera_balancer_set_slowdown_threshold", [&] {
    const auto b = get<BalancerObject>(balancer, "balancer");
    visit_balancer(*b, [&](auto& x) { x.set_availability(slowdown_threshold(factor, retry_after)); });
  });
}

tessera_status tessera_balancer_free(tessera_balancer* balancer) {
  return guarded("tessera_balancer_free", [&] { release<BalancerObject>(balancer, "balancer"); });
}

}  // extern "C"
