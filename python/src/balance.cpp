// The balancer: Balancer<N> for N = 1..3 over a domain, with a policy by name (make_policy), its
// SectionTimer usable as a context manager (`with bal.timer(): sweep()`), and BalanceStep.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

template <std::size_t N>
struct PyBalancer {
  PyBalancer(std::shared_ptr<PyDomain<N>> d, const std::string& policy, const tessera::BalancerOptions& options)
      : domain(std::move(d)), balancer(domain->domain, tessera::make_policy(policy), options) {}
  std::shared_ptr<PyDomain<N>> domain;
  tessera::Balancer<N> balancer;
};

tessera::WeightRule weight_rule_of(const std::string& name) {
  if (name == "throughput") return tessera::WeightRule::throughput;
  if (name == "inverse_time") return tessera::WeightRule::inverse_time;
  if (name == "d3arc") return tessera::WeightRule::d3arc;
  tessera::fail_argument("Balancer", "weights", name, "must be throughput, inverse_time or d3arc");
}

template <std::size_t N>
void bind_balancer(py::module_& m) {
  using B = PyBalancer<N>;
  py::class_<B, std::shared_ptr<B>>(m, class_name<N>("Balancer").c_str(),
                                    "Measures, decides and migrates every array of a domain at remap points "
                                    "(C++ tessera::Balancer<N>).")
      .def(py::init([](std::shared_ptr<PyDomain<N>> dom, const std::string& policy, int interval,
                       const std::string& weights, double lb, double ub) {
             tessera::BalancerOptions o;
             o.interval = interval;
             o.weights = weight_rule_of(weights);
             o.lb = lb;
             o.ub = ub;
             return std::make_shared<B>(std::move(dom), policy, o);
           }),
           py::arg("domain"), py::arg("policy") = "horizon", py::arg("interval") = 5, py::arg("weights") = "throughput",
           py::arg("lb") = 1.0, py::arg("ub") = 1.5)
      .def("timer", [](B& b) -> tessera::SectionTimer& { return b.balancer.timer(); },
           py::return_value_policy::reference_internal,
           "The timer step() reads: `with bal.timer(): work()` measures the work.")
      .def(
          "step",
          [](B& b, std::optional<double> seconds) {
            // A remap point may migrate, which frees storage: refused while views are alive.
            refuse_if_views_held(*b.domain, "Balancer.step");
            return seconds ? b.balancer.step(*seconds) : b.balancer.step();
          },
          py::arg("seconds") = py::none(),
          "Collective: ends an iteration (its seconds: the timer's, or `seconds`); at remap points gathers, "
          "decides and migrates. Returns a BalanceStep.");
}

template <std::size_t N>
struct PyBoxBalancer {
  PyBoxBalancer(std::shared_ptr<PyDomain<N>> d, const std::string& policy, const tessera::BoxBalancerOptions& options)
      : domain(std::move(d)), balancer(domain->domain, tessera::make_policy(policy), options) {}
  std::shared_ptr<PyDomain<N>> domain;
  tessera::BoxBalancer<N> balancer;
};

tessera::BoxTarget box_target_of(const std::string& name) {
  if (name == "knapsack") return tessera::BoxTarget::knapsack;
  if (name == "morton") return tessera::BoxTarget::morton;
  tessera::fail_argument("BoxBalancer", "target", name, "must be knapsack or morton");
}

template <std::size_t N>
void bind_box_balancer(py::module_& m) {
  using B = PyBoxBalancer<N>;
  py::class_<B, std::shared_ptr<B>>(m, class_name<N>("BoxBalancer").c_str(),
                                    "Times each box, decides and moves whole boxes of a box-set domain at remap "
                                    "points (C++ tessera::BoxBalancer<N>).")
      .def(py::init([](std::shared_ptr<PyDomain<N>> dom, const std::string& policy, int interval,
                       const std::string& target, bool relabel, std::uint64_t max_bytes_per_step) {
             tessera::BoxBalancerOptions o;
             o.interval = interval;
             o.target = box_target_of(target);
             o.relabel = relabel;
             o.max_bytes_per_step = max_bytes_per_step;
             return std::make_shared<B>(std::move(dom), policy, o);
           }),
           py::arg("domain"), py::arg("policy") = "horizon", py::arg("interval") = 5, py::arg("target") = "knapsack",
           py::arg("relabel") = true, py::arg("max_bytes_per_step") = 0,
           "max_bytes_per_step: a byte budget per remap point (0: none); the boxes of best gain per byte that fit "
           "move, whatever delta the policy decides.")
      .def("timer", [](B& b, std::size_t patch) -> tessera::SectionTimer& { return b.balancer.timer(patch); },
           py::arg("patch"), py::return_value_policy::reference_internal,
           "The timer of this rank's patch `patch`: `with bal.timer(p): work(u.local_patch(p))`.")
      .def("box_of_patch", [](const B& b, std::size_t patch) { return b.balancer.box_of_patch(patch); },
           py::arg("patch"), "The index (into the box set's boxes) of the box this rank's patch `patch` stores.")
      .def(
          "step",
          [](B& b) {
            // A remap point may move boxes, which frees storage: refused while views are alive.
            refuse_if_views_held(*b.domain, "BoxBalancer.step");
            return b.balancer.step();
          },
          "Collective: ends an iteration; at remap points sums the box timers, decides and moves boxes. "
          "Returns a BalanceStep.");
}

}  // namespace

void bind_balance(py::module_& m) {
  py::class_<tessera::SectionTimer>(m, "SectionTimer", "Accumulates seconds between start() and stop().")
      .def(py::init<>())
      .def("start", &tessera::SectionTimer::start)
      .def("stop", &tessera::SectionTimer::stop)
      .def("add", &tessera::SectionTimer::add, py::arg("seconds"))
      .def_property_readonly("seconds", &tessera::SectionTimer::seconds)
      .def("__enter__", [](tessera::SectionTimer& t) -> tessera::SectionTimer& {
        t.start();
        return t;
      }, py::return_value_policy::reference)
      .def("__exit__", [](tessera::SectionTimer& t, const py::object&, const py::object&, const py::object&) {
        t.stop();
        return false;
      });
  py::class_<tessera::BalanceStep>(m, "BalanceStep", "What one Balancer.step() did (the same on every rank "
                                                     "but compute_seconds).")
      .def_readonly("iteration", &tessera::BalanceStep::iteration)
      .def_readonly("remap_point", &tessera::BalanceStep::remap_point)
      .def_readonly("compute_seconds", &tessera::BalanceStep::compute_seconds)
      .def_readonly("coordination_seconds", &tessera::BalanceStep::coordination_seconds)
      .def_readonly("migration_seconds", &tessera::BalanceStep::migration_seconds)
      .def_readonly("imbalance", &tessera::BalanceStep::imbalance)
      .def_readonly("delta", &tessera::BalanceStep::delta)
      .def_readonly("elements", &tessera::BalanceStep::elements)
      .def_readonly("blocks", &tessera::BalanceStep::blocks)
      .def_readonly("bytes", &tessera::BalanceStep::bytes)
      .def_readonly("active_ranks", &tessera::BalanceStep::active_ranks)
      .def("__repr__", [](const tessera::BalanceStep& s) {
        return "BalanceStep(iteration=" + std::to_string(s.iteration) + ", remap_point=" +
               (s.remap_point ? "True" : "False") + ", delta=" + std::to_string(s.delta) +
               ", elements=" + std::to_string(s.elements) + ")";
      });
  bind_balancer<1>(m);
  bind_balancer<2>(m);
  bind_balancer<3>(m);
  bind_box_balancer<1>(m);
  bind_box_balancer<2>(m);
  bind_box_balancer<3>(m);
}

}  // namespace tessera_python
