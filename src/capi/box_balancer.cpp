// tessera_box_balancer_*: a balance policy run at remap points for a box-set domain, box by box
// (tessera/balance/box_balancer.hpp).
#include "balance_common.hpp"
#include "convert.hpp"
#include "tessera/balance/box_balancer.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

template <std::size_t N>
using BoxBalancerPtr = std::unique_ptr<BoxBalancer<N>>;

struct BoxBalancerObject {
  static constexpr Kind kind = Kind::box_balancer;
  std::shared_ptr<DomainObject> domain;  // declared first: destroyed after the balancer
  PerDim<BoxBalancerPtr> balancer;
};

BoxBalancerOptions to_options(const tessera_box_balancer_options* o) {
  BoxBalancerOptions out;
  if (!o) return out;
  out.interval = o->interval;
  switch (o->target) {
    case TESSERA_ASSIGN_KNAPSACK:
      out.target = BoxTarget::knapsack;
      break;
    case TESSERA_ASSIGN_MORTON:
      out.target = BoxTarget::morton;
      break;
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'options->target' = ", static_cast<int>(o->target),
             " is not a balancer target (TESSERA_ASSIGN_KNAPSACK or TESSERA_ASSIGN_MORTON)");
  }
  out.relabel = o->relabel != 0;
  out.max_bytes_per_step = o->max_bytes_per_step;
  return out;
}

template <class F>
decltype(auto) visit_box_balancer(tessera_box_balancer balancer, F&& f) {
  const auto b = get<BoxBalancerObject>(balancer, "balancer");
  return std::visit([&](auto& p) -> decltype(auto) { return f(*p); }, b->balancer);
}

}  // namespace

extern "C" {

tessera_status tessera_box_balancer_options_defaults(tessera_box_balancer_options* options) {
  return guarded("tessera_box_balancer_options_defaults", [&] {
    require_pointer("options", options);
    const BoxBalancerOptions d;
    *options = tessera_box_balancer_options{d.interval, TESSERA_ASSIGN_KNAPSACK, d.relabel ? 1 : 0,
                                            d.max_bytes_per_step};
  });
}

tessera_status tessera_box_balancer_create(tessera_domain domain, const tessera_policy* policy,
                                           const tessera_box_balancer_options* options, tessera_box_balancer* out) {
  return guarded("tessera_box_balancer_create", [&] {
    prepare_out(out);
    auto d = get<DomainObject>(domain, "domain");
    require_pointer("policy", policy);
    auto p = make_policy(*policy);
    const BoxBalancerOptions o = to_options(options);
    auto object = std::make_shared<BoxBalancerObject>();
    object->domain = d;
    std::visit(
        [&](const auto& dom) {
          constexpr std::size_t N = dims_v<decltype(dom)>;
          object->balancer = std::make_unique<BoxBalancer<N>>(dom, p, o);
        },
        d->domain);
    issue(std::move(object), out);
  });
}

tessera_status tessera_box_balancer_timer_start(tessera_box_balancer balancer, size_t patch) {
  return guarded("tessera_box_balancer_timer_start", [&] {
    visit_box_balancer(balancer, [&](auto& x) {
      SectionTimer& t = x.timer(patch);
      if (t.running()) fail_c(TESSERA_ERR_CALL_ORDER, "the timer of patch ", patch, " is running already: stop it first");
      t.start();
    });
  });
}

tessera_status tessera_box_balancer_timer_stop(tessera_box_balancer balancer, size_t patch) {
  return guarded("tessera_box_balancer_timer_stop", [&] {
    visit_box_balancer(balancer, [&](auto& x) {
      SectionTimer& t = x.timer(patch);
      if (!t.running()) fail_c(TESSERA_ERR_CALL_ORDER, "the timer of patch ", patch, " is not running: start it first");
      t.stop();
    });
  });
}

tessera_status tessera_box_balancer_timer_add(tessera_box_balancer balancer, size_t patch, double seconds) {
  return guarded("tessera_box_balancer_timer_add", [&] {
    visit_box_balancer(balancer, [&](auto& x) { x.timer(patch).add(seconds); });
  });
}

tessera_status tessera_box_balancer_box_of_patch(tessera_box_balancer balancer, size_t patch, size_t* box) {
  return guarded("tessera_box_balancer_box_of_patch", [&] {
    require_pointer("box", box);
    visit_box_balancer(balancer, [&](auto& x) { *box = x.box_of_patch(patch); });
  });
}

tessera_status tessera_box_balancer_step(tessera_box_balancer balancer, tessera_balance_step* out) {
  return guarded("tessera_box_balancer_step", [&] {
    visit_box_balancer(balancer, [&](auto& x) { write_step(x.step(), out); });
  });
}

tessera_status tessera_box_balancer_free(tessera_box_balancer* balancer) {
  return guarded("tessera_box_balancer_free", [&] { release<BoxBalancerObject>(balancer, "balancer"); });
}

}  // extern "C"
