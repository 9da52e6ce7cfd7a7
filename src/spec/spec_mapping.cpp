// The non-template half of to_distribution / to_ghosts: checks that need no N, the grid request,
// and the messages that name a part of the text.

#include <climits>
#include <numeric>

#include "spec_message.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera {

bool Spec::no_ghosts() const noexcept {
  for (const auto& axis : axes)
    if (axis.ghost_lower != 0 || axis.ghost_upper != 0) return false;
  return true;
}

namespace detail {
namespace {

/// The grid extent an axis's own parameters fix: the g of a list of g+1 cuts or g weights, 1 for
/// collapsed; 0 when the parameters leave it free.
index_t implied_grid_extent(const DimSpec& dist) noexcept {
  switch (dist.kind) {
    case DimKind::cut:
      return static_cast<index_t>(dist.boundaries.size()) - 1;
    case DimKind::cut_weights:
      return static_cast<index_t>(dist.weights.size());
    case DimKind::collapsed:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

void fail_in_part(const SpecSource& source, std::string_view name, std::string_view printed, std::string_view cause) {
  if (source.line > 0)
    fail(ErrorCode::invalid_argument, "spec: ", spec_location(source.line, source.column), ", ",
         spec_excerpt(source.text), ": ", cause);
  if (printed.empty()) fail(ErrorCode::invalid_argument, "spec: ", name, ": ", cause);
  fail(ErrorCode::invalid_argument, "spec: ", name, " ", spec_excerpt(printed), ": ", cause);
}

std::string spec_grid_text(const Spec& spec) {
  std::string out;
  for (std::size_t d = 0; d < spec.axes.size(); ++d) {
    const index_t g = spec.axes[d].grid_extent;
    out += (d ? "x" : "") + (g == 0 ? std::string("*") : std::to_string(g));
  }
  if (spec.grid_ranks != 0) out += "@" + std::to_string(spec.grid_ranks);
  return out;
}

void check_spec_rank(const Spec& spec, std::size_t n, std::string_view caller) {
  if (spec.rank() != n)
    fail_in_part(
        spec.source.domain, "domain", "",
        concat("describes ", spec.rank(), " dimension", spec.rank() == 1 ? "" : "s", "; ", caller, " needs ", n));
  for (std::size_t d = 0; d < n; ++d) {
    const SpecAxis& axis = spec.axes[d];
    index_t extent = 0;
    if (axis.hi < axis.lo || __builtin_sub_overflow(axis.hi, axis.lo, &extent))
      fail_in_part(
          spec.source.domain, "domain", "",
          concat("dimension ", d, " is [", axis.lo, ", ", axis.hi, "): needs lo <= hi and hi - lo in 64 bits"));
  }
}

SpecGridRequest spec_grid_request(const Spec& spec, int comm_size) {
  if (comm_size < 1) fail_argument("to_distribution", "comm_size", comm_size, "must be >= 1");
  const std::string printed = spec_grid_text(spec);
  const auto fail_grid = [&](const std::string& why) { fail_in_part(spec.source.grid, "grid", printed, why); };
  SpecGridRequest request;
  request.fixed.resize(spec.rank());
  request.all_fixed = true;
  bool all_written = true;
  index_t positions = 1;
  for (std::size_t d = 0; d < spec.rank(); ++d) {
    index_t g = spec.axes[d].grid_extent;
    if (g < 0) fail_grid(concat("has extent ", g, " along dimension ", d, "; extents are >= 1, or 0 for chosen"));
    all_written = all_written && g > 0;
    if (g == 0) g = implied_grid_extent(spec.axes[d].dist);
    request.fixed[d] = g;
    request.all_fixed = request.all_fixed && g > 0;
    positions = saturating_mul(positions, g);
  }
  if (spec.grid_ranks < 0) fail_grid(concat("places ", spec.grid_ranks, " ranks; needs >= 1"));
  index_t active = spec.grid_ranks != 0 ? spec.grid_ranks : comm_size;
  if (all_written) {
    // An explicit shape says how many ranks it places.
    if (spec.grid_ranks != 0 && spec.grid_ranks != positions)
      fail_grid(concat("has ", positions, " positions but places ", spec.grid_ranks, " ranks"));
    active = positions;
  } else if (request.all_fixed && positions != active) {
    fail_grid(concat("is chosen over ", active, " ranks, but the cut, weights and collapsed axes fix it to ", positions,
                     " positions"));
  }
  if (active > comm_size) fail_grid(concat("places ", active, " ranks but the communicator has ", comm_size));
  request.active = static_cast<int>(active);
  return request;
}

std::vector<int> first_ranks(int count) {
  std::vector<int> ranks(static_cast<std::size_t>(count));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

void check_spec_axis(const Spec& spec, std::size_t d, index_t g) {
  const SpecAxis& axis = spec.axes[d];
  const SpecSource none;
  const SpecSource& source = d < spec.source.dist.size() ? spec.source.dist[d] : none;
  if (g < 1 || g > INT_MAX)
    fail_in_part(source, concat("dist[", d, "]"), spec_text(axis.dist), concat("grid extent ", g, " is out of range"));
  try {
    (void)DimDistribution::bind(axis.dist, axis.lo, axis.hi, static_cast<int>(g), concat("dimension ", d));
  } catch (const Error& e) {
    fail_in_part(source, concat("dist[", d, "]"), spec_text(axis.dist), e.what());
  }
}

int check_spec_box_set(const Spec& spec, int comm_size) {
  if (comm_size < 1) fail_argument("to_distribution", "comm_size", comm_size, "must be >= 1");
  const SpecSource none;
  for (std::size_t i = 0; i < spec.boxes.size(); ++i) {
    const SpecBox& box = spec.boxes[i];
    const SpecSource& source = i < spec.source.box.size() ? spec.source.box[i] : none;
    const std::string name = concat("boxes[", i, "]");
    if (box.lo.size() != spec.rank() || box.hi.size() != spec.rank())
      fail_in_part(source, name, spec_text(box), concat("has not ", spec.rank(), " ranges (one per dimension)"));
    if (spec.assignment == SpecAssignment::given && (box.owner < 0 || box.owner >= comm_size))
      fail_in_part(source, name, spec_text(box),
                   concat("owner ", box.owner, " is not a rank of the communicator [0, ", comm_size, ")"));
  }
  if (spec.assignment == SpecAssignment::given) return comm_size;
  const std::string printed = spec_assignment_text(spec);
  if (!spec.chop.empty() && spec.chop.size() != spec.rank())
    fail_in_part(spec.source.assign, "assign", printed, concat("chop= has not ", spec.rank(), " extents"));
  if (spec.grid_ranks < 0 || spec.grid_ranks > comm_size)
    fail_in_part(spec.source.assign, "assign", printed,
                 concat("spreads the boxes over ", spec.grid_ranks, " ranks but the communicator has ", comm_size));
  return spec.grid_ranks == 0 ? comm_size : static_cast<int>(spec.grid_ranks);
}

}  // namespace detail
}  // namespace tessera
