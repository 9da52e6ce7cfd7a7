// Weights, cut targets and incremental steps (D3-ARC section III: d3_norm, d3_new_dist, d3_migrate).
#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

struct StepObject {
  static constexpr Kind kind = Kind::step;
  PerDim<StepPlan> plan;
};

void write_weights(const std::vector<double>& w, double* out) {
  require_pointer("weights", out);
  std::copy(w.begin(), w.end(), out);
}

}  // namespace

extern "C" {

tessera_status tessera_weights_d3arc(const double* times, size_t count, double lb, double ub, double* weights) {
  return guarded("tessera_weights_d3arc", [&] {
    const auto w = d3arc_weights(to_vector(times, count, "times"), lb, ub);
    write_weights(w, weights);
  });
}

tessera_status tessera_weights_inverse_time(const double* times, size_t count, double* weights) {
  return guarded("tessera_weights_inverse_time", [&] {
    const std::vector<double> t = to_vector(times, count, "times");
    const std::vector<double> w = inverse_time_weights(t);
    write_weights(w, weights);
  });
}

tessera_status tessera_weights_throughput(const double* times, const double* work, size_t count, double* weights) {
  return guarded("tessera_weights_throughput", [&] {
    const std::vector<double> t = to_vector(times, count, "times");
    const std::vector<double> units = to_vector(work, count, "work");
    const std::vector<double> w = throughput_weights(t, units);
    write_weights(w, weights);
  });
}

tessera_status tessera_cut_target(tessera_dist dist, const double* weights, size_t count, tessera_dist* out) {
  return guarded("tessera_cut_target", [&] {
    prepare_out(out);
    const auto d = get<DistObject>(dist, "dist");
    const auto w = to_vector(weights, count, "weights");
    std::visit([&](const auto& x) { issue(std::make_shared<DistObject>(DistObject{cut_target(x, w)}), out); }, d->dist);
  });
}

tessera_status tessera_step_plan(tessera_domain domain, tessera_dist target, double delta, tessera_step* out) {
  return guarded("tessera_step_plan", [&] {
    prepare_out(out);
    const auto d = get<DomainObject>(domain, "domain");
    const auto t = get<DistObject>(target, "target");
    std::visit(
        [&](const auto& dom) {
          constexpr std::size_t N = dims_v<decltype(dom)>;
          auto plan = plan_step(dom, as_dim<N>(t->dist, "target", "domain"), delta);
          issue(std::make_shared<StepObject>(StepObject{std::move(plan)}), out);
        },
        d->domain);
  });
}

tessera_status tessera_step_info_get(tessera_step step, tessera_step_info* info) {
  return guarded("tessera_step_info_get", [&] {
    const auto s = get<StepObject>(step, "step");
    require_pointer("info", info);
    std::visit(
        [&](const auto& p) {
          info->delta = p.delta;
          info->elements = p.elements;
          info->blocks = p.blocks;
          info->bytes = p.bytes;
        },
        s->plan);
  });
}

tessera_status tessera_step_destination(tessera_step step, tessera_dist* out) {
  return guarded("tessera_step_destination", [&] {
    prepare_out(out);
    const auto s = get<StepObject>(step, "step");
    std::visit([&](const auto& p) { issue(std::make_shared<DistObject>(DistObject{p.to}), out); }, s->plan);
  });
}

tessera_status tessera_step_migrate(tessera_domain domain, tessera_step step, double* seconds) {
  return guarded("tessera_step_migrate", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    const auto s = get<StepObject>(step, "step");
    std::visit(
        [&](auto& dom) {
          constexpr std::size_t N = dims_v<decltype(dom)>;
          const StepPlan<N>& plan = as_dim<N>(s->plan, "step", "domain");
          if (!(dom.distribution() == plan.from))
            fail_c(TESSERA_ERR_CALL_ORDER, "argument 'step' was planned from ", plan.from,
                   " but the domain is now distributed ", dom.distribution(), ": plan the step again");
          const double t = tessera::migrate_step(dom, plan);
          if (seconds) *seconds = t;
        },
        d->domain);
  });
}

tessera_status tessera_step_free(tessera_step* step) {
  return guarded("tessera_step_free", [&] { release<StepObject>(step, "step"); });
}

}  // extern "C"
