#include "tessera/layout/dim_spec.hpp"

namespace tessera {

const char* to_string(DimKind kind) noexcept {
  switch (kind) {
    case DimKind::block:
      return "block";
    case DimKind::cut:
      return "cut";
    case DimKind::cut_weights:
      return "cut_weights";
    case DimKind::general:
      return "general";
    case DimKind::cyclic:
      return "cyclic";
    case DimKind::block_cyclic:
      return "block_cyclic";
    case DimKind::collapsed:
      return "collapsed";
    case DimKind::irregular:
      return "irregular";
    case DimKind::flooded:
      return "flooded";
  }
  return "unknown";
}

namespace {
template <class T>
void print_list(std::ostream& out, const std::vector<T>& values) {
  constexpr std::size_t shown = 16;  // long tables are abbreviated: they are for reading, not parsing
  for (std::size_t i = 0; i < values.size() && i < shown; ++i) out << (i ? "," : "") << values[i];
  if (values.size() > shown) out << ",...(" << values.size() << " entries)";
}
}  // namespace

std::ostream& operator<<(std::ostream& out, const DimSpec& spec) {
  out << to_string(spec.kind);
  switch (spec.kind) {
    case DimKind::cut:
      out << '(';
      print_list(out, spec.boundaries);
      out << ')';
      break;
    case DimKind::cut_weights:
      out << '(';
      print_list(out, spec.weights);
      out << ')';
      break;
    case DimKind::block_cyclic:
      out << '(' << spec.block_size;
      if (spec.source != 0) out << ",src=" << spec.source;
      out << ')';
      break;
    case DimKind::irregular:
      out << "(n=" << spec.owners.size() << ')';
      break;
    default:
      break;
  }
  if (spec.logical_block != 1) out << "(lb=" << spec.logical_block << ')';
  return out;
}

}  // namespace tessera
