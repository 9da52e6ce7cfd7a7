// The AMR levels (C++ array/level_transfer.hpp, array/regrid.hpp, layout/level_hierarchy.hpp,
// geometry/berger_rigoutsos.hpp; docs/python.md, "Levels (AMR)"): LevelTransfer<T, N> for the
// floating element types (interpolation and averaging need `* double`) and N = 1..3, with
// regrid_level as its second factory; tag_and_cluster on a tag array of any element type;
// LevelHierarchy<N>, check_proper_nesting, nesting_region and cluster_tags. Box sets travel as
// box-set Distributions (tessera.box_set), as everywhere in the module. A unit of its own, outside
// the unity batches (python/CMakeLists.txt).
//
// regrid_level redistributes the fine domain, so it refuses, on every rank, while NumPy views of
// that domain's arrays are alive (holders.hpp, "The view rule").
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "holders.hpp"
#include "printed.hpp"

namespace py = pybind11;
using tessera::index_t;

namespace tessera_python {
namespace {

/// A link between two levels with the domain holders it was made for: its intermediate domain
/// refers to their Communicator, which they keep alive.
template <class T, std::size_t N>
struct PyLevelTransfer {
  PyLevelTransfer(std::shared_ptr<PyDomain<N>> c, std::shared_ptr<PyDomain<N>> f, tessera::LevelTransfer<T, N> l,
                  std::string how)
      : coarse(std::move(c)), fine(std::move(f)), link(std::move(l)), interpolation(std::move(how)) {}
  std::shared_ptr<PyDomain<N>> coarse, fine;
  tessera::LevelTransfer<T, N> link;
  std::string interpolation;  ///< "linear" or "constant"
};

/// A point from a sequence of N integers, or from one integer meaning the same along every axis
/// (ratio=2).
template <std::size_t N>
[[nodiscard]] tessera::Point<N> point_arg(const py::handle& v, const char* what) {
  std::vector<index_t> values;
  try {
    if (!py::isinstance<py::sequence>(v)) return tessera::Point<N>::filled(v.cast<index_t>());
    values = v.cast<std::vector<index_t>>();
  } catch (const py::cast_error&) {
    tessera::fail(tessera::ErrorCode::invalid_argument, what, " = ", std::string(py::repr(v)),
                  " must be an integer or ", N, " integers");
  }
  return point_of<N>(values, what);
}

/// The box set of `value`, a box-set Distribution of N dimensions; `Error(invalid_argument)` naming
/// `where` and `argument` for anything else (another distribution, a list, None).
template <std::size_t N>
[[nodiscard]] const tessera::BoxSet<N>& box_set_arg(const py::handle& value, const char* where, const char* argument) {
  if (py::isinstance<tessera::Distribution<N>>(value))
    if (const tessera::BoxSet<N>* set = value.cast<const tessera::Distribution<N>&>().box_set()) return *set;
  tessera::fail_argument(where, argument, std::string(py::repr(value)),
                         tessera::detail::concat("must be a box-set distribution of ", N,
                                                 " dimension(s) (tessera.box_set, tag_and_cluster)"));
}

/// The number of dimensions of a Distribution argument, or `Error(invalid_argument)` as box_set_arg.
[[nodiscard]] std::size_t ndim_of(const py::handle& value, const char* where, const char* argument) {
  if (py::isinstance<tessera::Distribution<1>>(value)) return 1;
  if (py::isinstance<tessera::Distribution<2>>(value)) return 2;
  if (py::isinstance<tessera::Distribution<3>>(value)) return 3;
  tessera::fail_argument(where, argument, std::string(py::repr(value)),
                         "must be a box-set distribution (tessera.box_set, tag_and_cluster)");
}

template <std::size_t N>
[[nodiscard]] py::object distribution_of(const tessera::BoxSet<N>& set) {
  return py::cast(tessera::Distribution<N>::from_box_set(set));
}

template <class T, std::size_t N>
[[nodiscard]] tessera::Interpolator<T, N> interpolator_of(const std::string& name, const char* where) {
  if (name == "linear") return tessera::linear_interpolation<T, N>();
  if (name == "constant") return tessera::piecewise_constant<T, N>();
  tessera::fail_argument(where, "interpolation", name, "must be 'linear' or 'constant'");
}

/// The arguments a fine level's ghosts arrive in from Python (tessera/_layout.py, Ghosts.lists).
using GhostArgs = std::tuple<std::vector<index_t>, std::vector<index_t>, std::vector<bool>, bool>;

template <std::size_t N>
[[nodiscard]] tessera::GhostSpec<N> ghosts_of(const GhostArgs& g) {
  return ghost_spec_of<N>(std::get<0>(g), std::get<1>(g), std::get<2>(g), std::get<3>(g));
}

template <class T, std::size_t N>
void bind_level_transfer(py::module_& m) {
  using L = PyLevelTransfer<T, N>;
  using A = PyArray<T, N>;
  using DomainPtr = std::shared_ptr<PyDomain<N>>;
  const std::string name = std::string("LevelTransfer_") + dtype_name<T>() + "_" + std::to_string(N) + "D";
  py::class_<L, std::shared_ptr<L>>(m, name.c_str(),
                                    "Prolongation and restriction between the arrays of two levels (C++ "
                                    "tessera::LevelTransfer<T, N>); build it with tessera.LevelTransfer or "
                                    "tessera.regrid_level.")
      .def(py::init([](DomainPtr coarse, DomainPtr fine, const py::object& ratio, const GhostArgs& ghosts,
                       const std::string& interpolation) {
             constexpr const char* where = "LevelTransfer";
             tessera::LevelTransfer<T, N> link(coarse->domain, fine->domain,
                                               point_arg<N>(ratio, "LevelTransfer: ratio"), ghosts_of<N>(ghosts),
                                               interpolator_of<T, N>(interpolation, where));
             return std::make_shared<L>(std::move(coarse), std::move(fine), std::move(link), interpolation);
           }),
           py::arg("coarse_domain"), py::arg("fine_domain"), py::arg("ratio"), py::arg("ghosts"),
           py::arg("interpolation"))
      .def_static("_regrid",
                  [](const std::shared_ptr<A>& coarse, const DomainPtr& fine_domain, const py::object& to,
                     const std::vector<std::shared_ptr<A>>& fine_arrays, const py::object& ratio,
                     const GhostArgs& ghosts, const std::string& interpolation) {
                    constexpr const char* where = "regrid_level";
                    const tessera::BoxSet<N>& target = box_set_arg<N>(to, where, "to");
                    for (std::size_t i = 0; i < fine_arrays.size(); ++i)
                      if (fine_arrays[i]->domain != fine_domain)
                        tessera::fail_argument(where, tessera::detail::concat("fine_arrays[", i, "]"),
                                               "an array over another domain", "must be an array over fine_domain");
                    auto interpolate = interpolator_of<T, N>(interpolation, where);
                    refuse_if_views_held(*fine_domain, where);
                    std::vector<tessera::DistArray<T, N>*> fine;
                    for (const auto& f : fine_arrays) fine.push_back(&f->array);
                    auto link = tessera::regrid_level<T, N>(coarse->array, fine_domain->domain, target, fine,
                                                            point_arg<N>(ratio, "regrid_level: ratio"),
                                                            ghosts_of<N>(ghosts), std::move(interpolate));
                    return std::make_shared<L>(coarse->domain, fine_domain, std::move(link), interpolation);
                  })
      .def_property_readonly("dtype", [](const L&) { return py::dtype::of<T>(); })
      .def_property_readonly("ndim", [](const L&) { return N; })
      .def_property_readonly("ratio", [](const L& l) { return tuple_of(l.link.ratio()); })
      .def_property_readonly("interpolation", [](const L& l) { return l.interpolation; })
      .def_property_readonly("coarse_domain", [](const L& l) { return l.coarse; })
      .def_property_readonly("fine_domain", [](const L& l) { return l.fine; })
      .def_property_readonly(
          "coarsened", [](const L& l) { return distribution_of<N>(l.link.coarsened()); },
          "The fine boxes coarsened, with the fine owners, as a box-set distribution over the coarse domain.")
      .def(
          "fill_ghosts", [](L& l, const A& coarse, A& fine) { l.link.fill_ghosts(coarse.array, fine.array); },
          py::arg("coarse"), py::arg("fine"),
          "Collective: fine.update_ghosts(), then every fine ghost cell inside the domain that no fine box "
          "holds interpolated from `coarse`.")
      .def(
          "fill_ghosts",
          [](L& l, const A& coarse_old, const A& coarse_new, double alpha, A& fine) {
            l.link.fill_ghosts(coarse_old.array, coarse_new.array, alpha, fine.array);
          },
          py::arg("coarse_old"), py::arg("coarse_new"), py::arg("alpha"), py::arg("fine"),
          "Collective: fill_ghosts from the coarse level at time alpha in [0, 1] between two states: "
          "(1 - alpha) * coarse_old + alpha * coarse_new, then interpolated in space.")
      .def(
          "prolong", [](L& l, const A& coarse, A& fine) { l.link.prolong(coarse.array, fine.array); },
          py::arg("coarse"), py::arg("fine"), "Collective: every owned fine cell interpolated from `coarse`.")
      .def(
          "prolong_outside",
          [](L& l, const A& coarse, A& fine, const py::object& old) {
            l.link.prolong_outside(coarse.array, fine.array,
                                   box_set_arg<N>(old, "LevelTransfer.prolong_outside", "old"));
          },
          py::arg("coarse"), py::arg("fine"), py::arg("old"),
          "Collective: the owned fine cells no box of `old` (a box-set distribution) holds, interpolated "
          "from `coarse`; the others are left as they are.")
      .def(
          "restrict_to", [](L& l, const A& fine, A& coarse) { l.link.restrict_to(fine.array, coarse.array); },
          py::arg("fine"), py::arg("coarse"),
          "Collective: every coarse cell under a fine box set to the mean of the fine cells it covers; the "
          "other coarse cells keep their values.");
}

/// tag_and_cluster on a tag array of element type T: a cell is tagged where its value is not 0.
template <class T, std::size_t N>
void bind_tag_and_cluster(py::module_& m) {
  m.def("_tag_and_cluster",
        [](const PyArray<T, N>& tags, const py::object& ratio, double efficiency, const py::object& blocking_factor,
           const py::object& max_extent, index_t buffer, index_t nesting_width, const std::string& assignment,
           const py::object& finer, const py::object& finer_ratio) {
          constexpr const char* where = "tag_and_cluster";
          tessera::RegridOptions<N> opt;
          opt.ratio = point_arg<N>(ratio, "tag_and_cluster: ratio");
          opt.cluster.efficiency = efficiency;
          opt.cluster.blocking_factor = point_arg<N>(blocking_factor, "tag_and_cluster: blocking_factor");
          if (!max_extent.is_none()) opt.cluster.max_extent = point_arg<N>(max_extent, "tag_and_cluster: max_extent");
          opt.buffer = buffer;
          opt.nesting_width = nesting_width;
          opt.assignment = box_assignment_of(assignment, where, "assignment");
          if (!finer.is_none()) opt.finer = &box_set_arg<N>(finer, where, "finer");
          opt.finer_ratio = point_arg<N>(finer_ratio, "tag_and_cluster: finer_ratio");
          const auto tagged = [](const tessera::Point<N>&, const T& value) { return value != T{}; };
          return distribution_of<N>(tessera::tag_and_cluster(tags.array, tagged, opt));
        });
}

template <std::size_t N>
[[nodiscard]] std::size_t level_index(const tessera::LevelHierarchy<N>& h, long long l, const char* where) {
  if (l < 0 || static_cast<std::size_t>(l) >= h.levels())
    tessera::fail(tessera::ErrorCode::out_of_range, where, ": level ", l, " does not exist (the hierarchy has ",
                  h.levels(), " level(s), 0 to ", h.levels() - 1, ")");
  return static_cast<std::size_t>(l);
}

/// LevelHierarchy's with_level or regridded (`change`) on Python's arguments (l, set, ratio); the
/// C++ call checks l's upper bound, and a negative l is refused here.
template <std::size_t N, class Change>
[[nodiscard]] auto level_change(Change change, const char* where) {
  return [change, where](const tessera::LevelHierarchy<N>& h, long long l, const py::object& set,
                         const py::object& ratio) {
    if (l < 1) tessera::fail_argument(where, "l", l, "must be >= 1 (level 0 is the base)");
    return (h.*change)(static_cast<std::size_t>(l), box_set_arg<N>(set, where, "set"),
                       point_arg<N>(ratio, (std::string(where) + ": ratio").c_str()));
  };
}

template <std::size_t N>
void bind_level_hierarchy(py::module_& m) {
  using H = tessera::LevelHierarchy<N>;
  py::class_<H>(m, class_name<N>("LevelHierarchy").c_str(),
                "The box sets of an AMR hierarchy and the ratios between them, each level properly nested in the "
                "one below (C++ tessera::LevelHierarchy<N>); immutable. Build it with tessera.LevelHierarchy.")
      .def_property_readonly("ndim", [](const H&) { return N; })
      .def_property_readonly("levels", &H::levels, "The number of levels.")
      .def_property_readonly("nesting_width", &H::nesting_width, "The nesting width, in cells of the coarser level.")
      .def(
          "level",
          [](const H& h, long long l) {
            return distribution_of<N>(h.level(level_index(h, l, "LevelHierarchy.level")));
          },
          py::arg("l"), "Level l's box set, as a box-set distribution.")
      .def(
          "ratio", [](const H& h, long long l) { return tuple_of(h.ratio(level_index(h, l, "LevelHierarchy.ratio"))); },
          py::arg("l"), "The ratio between level l - 1 and level l (1 for level 0).")
      .def("with_level", level_change<N>(&H::with_level, "LevelHierarchy.with_level"), py::arg("l"), py::arg("set"),
           py::arg("ratio"),
           "This hierarchy with level l (1 <= l <= levels) replaced or added, the finer levels dropped; "
           "checks proper nesting.")
      .def("regridded", level_change<N>(&H::regridded, "LevelHierarchy.regridded"), py::arg("l"), py::arg("set"),
           py::arg("ratio"),
           "This hierarchy with the existing level l (1 <= l < levels) replaced and the finer levels kept; "
           "checks that `set` nests in level l - 1 and level l + 1 in `set`.")
      .def("__repr__", [](const H& h) {
        std::string out = class_name<N>("LevelHierarchy") + "(";
        for (std::size_t l = 0; l < h.levels(); ++l) out += (l ? ", " : "") + printed(h.level(l));
        return out + ")";
      });
}

template <std::size_t N>
[[nodiscard]] py::list box_tuples(const std::vector<tessera::Box<N>>& boxes) {
  py::list out;
  for (const tessera::Box<N>& b : boxes) out.append(tuple_of(b));
  return out;
}

using BoxLists = std::vector<std::pair<std::vector<index_t>, std::vector<index_t>>>;

// cluster_tags(tags (k, N) int64, domain lo, hi, efficiency, blocking factor, max extent (None:
// unlimited), allowed boxes): the boxes, sorted.
py::list cluster_tags(const py::array_t<index_t, py::array::c_style | py::array::forcecast>& tags,
                      const std::vector<index_t>& lo, const std::vector<index_t>& hi, double efficiency,
                      const py::object& blocking_factor, const py::object& max_extent, const BoxLists& allowed) {
  constexpr const char* where = "cluster_tags";
  return with_dimension(lo.size(), where, [&](auto dim) {
    constexpr std::size_t N = decltype(dim)::value;
    if (tags.ndim() != 2 || tags.shape(1) != static_cast<py::ssize_t>(N))
      tessera::fail_argument(where, "tags", tessera::detail::concat("an array of ", tags.ndim(), " dimension(s)"),
                             tessera::detail::concat("must have shape (k, ", N, "): one point per row"));
    std::vector<tessera::Point<N>> points(static_cast<std::size_t>(tags.shape(0)));
    const auto t = tags.unchecked<2>();
    for (py::ssize_t i = 0; i < tags.shape(0); ++i)
      for (std::size_t d = 0; d < N; ++d) points[static_cast<std::size_t>(i)][d] = t(i, static_cast<py::ssize_t>(d));
    tessera::ClusterOptions<N> opt;
    opt.efficiency = efficiency;
    opt.blocking_factor = point_arg<N>(blocking_factor, "cluster_tags: blocking_factor");
    if (!max_extent.is_none()) opt.max_extent = point_arg<N>(max_extent, "cluster_tags: max_extent");
    tessera::BoxList<N> region;
    for (const auto& [alo, ahi] : allowed) region.push_back(box_of<N>(alo, ahi, "cluster_tags: allowed"));
    return box_tuples<N>(tessera::cluster_tags<N>(points, box_of<N>(lo, hi, "cluster_tags: domain"), opt, region));
  });
}

}  // namespace

void bind_levels(py::module_& m) {
  bind_level_transfer<float, 1>(m);
  bind_level_transfer<float, 2>(m);
  bind_level_transfer<float, 3>(m);
  bind_level_transfer<double, 1>(m);
  bind_level_transfer<double, 2>(m);
  bind_level_transfer<double, 3>(m);
  bind_level_transfer<std::complex<double>, 1>(m);
  bind_level_transfer<std::complex<double>, 2>(m);
  bind_level_transfer<std::complex<double>, 3>(m);
  std::apply(
      [&](auto... t) {
        ((bind_tag_and_cluster<decltype(t), 1>(m), bind_tag_and_cluster<decltype(t), 2>(m),
          bind_tag_and_cluster<decltype(t), 3>(m)),
         ...);
      },
      ElementTypes{});
  bind_level_hierarchy<1>(m);
  bind_level_hierarchy<2>(m);
  bind_level_hierarchy<3>(m);
  m.def("_level_hierarchy", [](const py::object& base, index_t nesting_width) {
    return with_dimension(ndim_of(base, "LevelHierarchy", "base"), "LevelHierarchy", [&](auto dim) {
      constexpr std::size_t N = decltype(dim)::value;
      return py::cast(tessera::LevelHierarchy<N>(box_set_arg<N>(base, "LevelHierarchy", "base"), nesting_width));
    });
  });
  m.def("_check_proper_nesting",
        [](const py::object& coarse, const py::object& fine, const py::object& ratio, index_t width) {
          constexpr const char* where = "check_proper_nesting";
          with_dimension(ndim_of(coarse, where, "coarse"), where, [&](auto dim) {
            constexpr std::size_t N = decltype(dim)::value;
            tessera::check_proper_nesting<N>(where, box_set_arg<N>(coarse, where, "coarse"),
                                             box_set_arg<N>(fine, where, "fine"),
                                             point_arg<N>(ratio, "check_proper_nesting: ratio"), width);
          });
        });
  m.def("_nesting_region", [](const py::object& level, index_t width) {
    constexpr const char* where = "nesting_region";
    return with_dimension(ndim_of(level, where, "level"), where, [&](auto dim) {
      constexpr std::size_t N = decltype(dim)::value;
      const tessera::BoxList<N> region = tessera::nesting_region<N>(box_set_arg<N>(level, where, "level"), width);
      return box_tuples<N>(std::vector<tessera::Box<N>>(region.begin(), region.end()));
    });
  });
  m.def("_nesting_width",
        [](const py::object& ratio, const std::vector<index_t>& lower, const std::vector<index_t>& upper) {
          return with_dimension(lower.size(), "LevelTransfer.nesting_width", [&](auto dim) {
            constexpr std::size_t N = decltype(dim)::value;
            return tessera::LevelTransfer<double, N>::nesting_width(
                point_arg<N>(ratio, "LevelTransfer.nesting_width: ratio"),
                tessera::GhostSpec<N>::sides(point_of<N>(lower, "LevelTransfer.nesting_width: ghosts"),
                                             point_of<N>(upper, "LevelTransfer.nesting_width: ghosts")));
          });
        });
  m.def("_cluster_tags", &cluster_tags);
}

}  // namespace tessera_python
