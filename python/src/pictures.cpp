// Pictures as `tessera show` and `tessera plan` draw them (tools/tessera: picture/, traffic/), for
// Distribution objects: who owns what (with a rank's ghost region), and the bytes a redistribution
// or a ghost update moves between ranks. Each returns (svg, text); tessera/_pictures.py wraps them
// in a Picture that Jupyter displays.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "printed.hpp"
#include "exit_status.hpp"
#include "picture/picture_of.hpp"
#include "picture/show_svg.hpp"
#include "picture/show_text.hpp"
#include "traffic/plan_report.hpp"
#include "traffic/traffic.hpp"

namespace py = pybind11;
using tessera::index_t;

namespace tessera_python {
namespace {

using GhostLists = std::tuple<std::vector<index_t>, std::vector<index_t>, std::vector<bool>, bool>;

template <std::size_t N>
tessera::GhostSpec<N> ghosts_of(const std::optional<GhostLists>& g) {
  if (!g) return tessera::no_ghosts<N>();
  return ghost_spec_of<N>(std::get<0>(*g), std::get<1>(*g), std::get<2>(*g), std::get<3>(*g));
}

// The tool reports a bad rank or slice as a usage error; here it is a bad argument.
template <class F>
auto as_tessera_errors(const char* where, F&& f) {
  try {
    return f();
  } catch (const tessera_tool::UsageError& e) {
    tessera::fail(tessera::ErrorCode::invalid_argument, where, ": ", e.what());
  }
}

template <std::size_t N>
std::pair<std::string, std::string> show(const tessera::Distribution<N>& dist, const std::optional<GhostLists>& ghosts,
                                         int rank, int max_cells, std::optional<std::pair<int, index_t>> slice) {
  return as_tessera_errors("show", [&] {
    tessera_tool::PictureOptions opt;
    opt.max_cells = max_cells;
    opt.chosen_rank = rank;
    opt.slice = slice;
    const tessera_tool::OwnerPicture pic = tessera_tool::picture_of(dist, ghosts_of<N>(ghosts), opt);
    return std::make_pair(tessera_tool::render_svg(pic), tessera_tool::render_text(pic));
  });
}

std::pair<std::string, std::string> rendered(tessera_tool::PlanReport& r, index_t element_size) {
  r.element_size = element_size;
  return {tessera_tool::render_heat_map(r), tessera_tool::render_plan_text(r)};
}

template <std::size_t N>
std::pair<std::string, std::string> plan(const tessera::Distribution<N>& from, const tessera::Distribution<N>& to,
                                         index_t element_size) {
  if (from.domain() != to.domain())
    tessera::fail(tessera::ErrorCode::mismatch, "plan: the boxes differ (", from.domain(), " and ", to.domain(),
                  "): a redistribution keeps the box");
  if (from.comm_size() != to.comm_size())
    tessera::fail(tessera::ErrorCode::mismatch, "plan: the distributions are laid out on ", from.comm_size(), " and ",
                  to.comm_size(), " ranks");
  tessera_tool::PlanReport r;
  r.from_text = r.from_layout = printed(from);
  r.to_text = r.to_layout = printed(to);
  r.ranks = from.comm_size();
  r.traffic = tessera_tool::redistribution_traffic(from, to);
  r.minimum = tessera_tool::elements_changing_owner(from, to);
  return rendered(r, element_size);
}

template <std::size_t N>
std::pair<std::string, std::string> plan_halo(const tessera::Distribution<N>& dist, const GhostLists& ghost_lists,
                                              index_t element_size) {
  const tessera::GhostSpec<N> ghosts = ghosts_of<N>(ghost_lists);
  tessera_tool::PlanReport r;
  r.halo = true;
  r.from_text = r.from_layout = printed(dist);
  r.ghost_text = printed(ghosts);
  r.ranks = dist.comm_size();
  r.traffic = tessera_tool::halo_traffic(dist, ghosts);
  r.minimum = tessera_tool::remote_ghost_elements(dist, ghosts);
  return rendered(r, element_size);
}

template <std::size_t N>
void bind_pictures_of(py::module_& m) {
  m.def("_show", &show<N>, py::arg("dist"), py::arg("ghosts"), py::arg("rank"), py::arg("max_cells"),
        py::arg("slice"));
  m.def("_plan", &plan<N>, py::arg("from_dist"), py::arg("to_dist"), py::arg("element_size"));
  m.def("_plan_halo", &plan_halo<N>, py::arg("dist"), py::arg("ghosts"), py::arg("element_size"));
}

}  // namespace

void bind_pictures(py::module_& m) {
  bind_pictures_of<1>(m);
  bind_pictures_of<2>(m);
  bind_pictures_of<3>(m);
}

}  // namespace tessera_python
