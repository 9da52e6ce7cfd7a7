// The canonical text of a Spec. Every choice here is mirrored by the parser so that
// parse_spec(to_string(s)) == s: weights are printed in the shortest form that reads back to the
// same double, a natural order and absent ghosts are left out, equal ghost entries are merged.

#include <charconv>
#include <sstream>

#include "tessera/spec/spec.hpp"

namespace tessera {
namespace {

const char* kind_name(DimKind kind) noexcept {
  // Only cut_weights is spelt differently from its enum: `weights` is shorter to type.
  return kind == DimKind::cut_weights ? "weights" : to_string(kind);
}

std::string shortest(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <class T, class Format>
void append_list(std::vector<std::string>& out, const std::vector<T>& values, Format format) {
  for (const T& v : values) out.push_back(format(v));
}

void print_domain(std::ostream& out, const Spec& spec) {
  out << "domain=";
  for (std::size_t d = 0; d < spec.rank(); ++d) {
    const SpecAxis& axis = spec.axes[d];
    out << (d ? "x" : "");
    if (axis.lo == 0) {
      out << axis.hi;
    } else {
      out << axis.lo << ':' << axis.hi;
    }
  }
}

void print_grid(std::ostream& out, const Spec& spec) {
  bool any_written = false;
  for (const auto& axis : spec.axes) any_written = any_written || axis.grid_extent != 0;
  out << "grid=";
  if (!any_written) {
    out << "auto";
    if (spec.grid_ranks != 0) out << '@' << spec.grid_ranks;
    return;
  }
  out << detail::spec_grid_text(spec);
}

bool is_natural(const std::vector<int>& order) noexcept {
  for (std::size_t k = 0; k < order.size(); ++k)
    if (order[k] != static_cast<int>(k)) return false;
  return true;
}

std::string ghost_entry(const SpecAxis& axis) {
  std::string out = std::to_string(axis.ghost_lower);
  if (axis.ghost_upper != axis.ghost_lower) out += ':' + std::to_string(axis.ghost_upper);
  if (axis.periodic) out += 'p';
  return out;
}

void print_ghosts(std::ostream& out, const Spec& spec) {
  bool all_equal = true;
  for (const auto& axis : spec.axes) all_equal = all_equal && ghost_entry(axis) == ghost_entry(spec.axes.front());
  out << "ghosts=";
  if (all_equal) {
    out << ghost_entry(spec.axes.front());
  } else {
    for (std::size_t d = 0; d < spec.rank(); ++d) out << (d ? "," : "") << ghost_entry(spec.axes[d]);
  }
  if (!spec.corners) out << ",faces";
}

bool has_ghost_part(const Spec& spec) {
  bool periodic = false;
  for (const auto& axis : spec.axes) periodic = periodic || axis.periodic;
  return !spec.no_ghosts() || periodic || !spec.corners;
}

}  // namespace

std::string spec_text(const DimSpec& dist) {
  std::vector<std::string> args;
  const auto integer = [](auto v) { return std::to_string(v); };
  switch (dist.kind) {
    case DimKind::cut:
      append_list(args, dist.boundaries, integer);
      break;
    case DimKind::cut_weights:
      append_list(args, dist.weights, shortest);
      break;
    case DimKind::block_cyclic:
      args.push_back(std::to_string(dist.block_size));
      if (dist.source != 0) args.push_back("src=" + std::to_string(dist.source));
      break;
    case DimKind::irregular:
      append_list(args, dist.owners, integer);
      break;
    default:
      break;
  }
  if (dist.logical_block != 1) args.push_back("lb=" + std::to_string(dist.logical_block));
  std::string out = kind_name(dist.kind);
  if (args.empty()) return out;
  out += '(';
  for (std::size_t i = 0; i < args.size(); ++i) out += (i ? "," : "") + args[i];
  return out + ')';
}

// Built with streams: GCC 12 warns (-Wrestrict, a false positive) on "x" + std::to_string(...).
std::string spec_text(const SpecBox& box) {
  std::ostringstream out;
  for (std::size_t d = 0; d < box.lo.size() && d < box.hi.size(); ++d)
    out << (d ? "x" : "") << box.lo[d] << ':' << box.hi[d];
  if (box.owner >= 0) out << '@' << box.owner;
  return out.str();
}

std::string spec_assignment_text(const Spec& spec) {
  std::ostringstream out;
  out << (spec.assignment == SpecAssignment::knapsack ? "knapsack"
          : spec.assignment == SpecAssignment::morton ? "morton"
                                                      : "hilbert");
  if (!spec.chop.empty()) {
    out << "(chop=";
    for (std::size_t d = 0; d < spec.chop.size(); ++d) out << (d ? "x" : "") << spec.chop[d];
    out << ')';
  }
  if (spec.grid_ranks != 0) out << '@' << spec.grid_ranks;
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Spec& spec) {
  if (spec.axes.empty()) return out << "domain=";  // only a Spec built in code can be empty
  print_domain(out, spec);
  if (spec.is_box_set()) {
    out << " boxes=";
    for (std::size_t i = 0; i < spec.boxes.size(); ++i) out << (i ? "," : "") << spec_text(spec.boxes[i]);
    if (spec.assignment != SpecAssignment::given) out << " assign=" << spec_assignment_text(spec);
  } else {
    out << ' ';
    print_grid(out, spec);
    out << " dist=";
    for (std::size_t d = 0; d < spec.rank(); ++d) out << (d ? "," : "") << spec_text(spec.axes[d].dist);
    if (!is_natural(spec.order)) {
      out << " order=";
      for (std::size_t k = 0; k < spec.order.size(); ++k) out << (k ? "," : "") << spec.order[k];
    }
  }
  if (has_ghost_part(spec)) {
    out << ' ';
    print_ghosts(out, spec);
  }
  return out;
}

std::string to_string(const Spec& spec) {
  std::ostringstream out;
  out << spec;
  return out.str();
}

}  // namespace tessera
