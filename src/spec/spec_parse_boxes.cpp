// The box-set fields of the spec parser: `boxes=` (disjoint boxes in the domain, each with its
// owner `@R`) and `assign=` (a policy that chooses the owners, optionally after chopping the boxes).
// Every check that needs no communicator runs here, so that an error names the box in the text.

#include <algorithm>
#include <numeric>

#include "spec_reader.hpp"

namespace tessera::detail {
namespace {

constexpr std::string_view kPolicyList = "knapsack, morton and hilbert";

/// True if the boxes a and b share a cell (each non-empty).
bool overlap(const SpecBox& a, const SpecBox& b) noexcept {
  for (std::size_t d = 0; d < a.lo.size(); ++d)
    if (a.hi[d] <= b.lo[d] || b.hi[d] <= a.lo[d]) return false;
  return true;
}

/// Fails at the later of two overlapping boxes, naming the earlier. A sweep along dimension 0: only
/// boxes whose ranges along it meet are compared.
void check_disjoint(const SpecReader& reader, const std::vector<Span>& spans, const std::vector<SpecBox>& boxes) {
  std::vector<std::size_t> by_lo(boxes.size());
  std::iota(by_lo.begin(), by_lo.end(), std::size_t{0});
  std::sort(by_lo.begin(), by_lo.end(), [&](std::size_t a, std::size_t b) {
    return boxes[a].lo[0] != boxes[b].lo[0] ? boxes[a].lo[0] < boxes[b].lo[0] : a < b;
  });
  for (std::size_t k = 0; k < by_lo.size(); ++k)
    for (std::size_t m = k + 1; m < by_lo.size() && boxes[by_lo[m]].lo[0] < boxes[by_lo[k]].hi[0]; ++m) {
      const std::size_t i = std::min(by_lo[k], by_lo[m]), j = std::max(by_lo[k], by_lo[m]);
      if (overlap(boxes[i], boxes[j]))
        reader.fail_at(spans[j], concat("overlaps the box at column ", reader.source_of(spans[i]).column, ", \"",
                                        reader.view(spans[i]), "\" (the boxes of a set must be disjoint)"));
    }
}

/// One entry `range x range ... [@R]`.
SpecBox box_entry(const SpecReader& reader, Span entry, const Spec& spec) {
  SpecBox box;
  Span ranges = entry;
  const std::size_t at = reader.view(entry).find('@');
  if (at != std::string_view::npos) {
    ranges.end = entry.begin + at;
    box.owner = static_cast<int>(reader.integer({ranges.end + 1, entry.end}, 0, spec_limits::max_ranks - 1, "an owner rank"));
    if (ranges.empty()) reader.fail_at(entry, "needs a box before '@' (lo:hi ranges joined by x, as 0:4x2:8@1)");
  }
  const std::vector<Span> parts = reader.split(ranges, 'x');
  if (parts.size() != spec.rank())
    reader.fail_at(entry, concat("has ", parts.size(), " ranges for a domain of ", spec.rank(), " dimension",
                                 spec.rank() == 1 ? "" : "s"));
  for (std::size_t d = 0; d < parts.size(); ++d) {
    const auto [lo, hi] = reader.range(parts[d]);
    if (lo == hi) reader.fail_at(entry, concat("is empty along dimension ", d, " (a box set holds no empty box)"));
    const SpecAxis& axis = spec.axes[d];
    if (lo < axis.lo || hi > axis.hi)
      reader.fail_at(entry, concat("is not inside the domain: dimension ", d, " is [", lo, ", ", hi,
                                   ") but the domain's is [", axis.lo, ", ", axis.hi, ")"));
    box.lo.push_back(lo);
    box.hi.push_back(hi);
  }
  return box;
}

/// Boxes a box becomes when chopped to `chop`, saturating at max_boxes + 1.
std::size_t pieces_after_chop(const SpecBox& box, const std::vector<index_t>& chop) {
  std::size_t pieces = 1;
  for (std::size_t d = 0; d < chop.size(); ++d) {
    const index_t parts = (box.hi[d] - box.lo[d] - 1) / chop[d] + 1;  // hi - lo >= 1; no overflow
    const auto cap = static_cast<index_t>(spec_limits::max_boxes) + 1;
    pieces = static_cast<std::size_t>(std::min<index_t>(cap, static_cast<index_t>(pieces) * std::min(parts, cap)));
  }
  return pieces;
}

}  // namespace

std::vector<Span> parse_box_list(const SpecReader& reader, Span field, Span value, Spec& spec) {
  const std::vector<Span> entries = reader.split(value, ',');
  if (entries.size() > spec_limits::max_list)
    reader.fail_at(field, concat("has ", entries.size(), " boxes; a list holds at most ", spec_limits::max_list));
  for (const Span& entry : entries) {
    spec.boxes.push_back(box_entry(reader, entry, spec));
    spec.source.box.push_back(reader.source_of(entry));
  }
  check_disjoint(reader, entries, spec.boxes);
  spec.source.boxes = reader.source_of(field);
  return entries;
}

void parse_box_assignment(const SpecReader& reader, Span field, Span value, Spec& spec) {
  Span policy = value;
  const std::size_t at = reader.view(value).find('@');
  if (at != std::string_view::npos) {
    policy.end = value.begin + at;
    spec.grid_ranks = reader.integer({policy.end + 1, value.end}, 1, spec_limits::max_ranks, "a rank count");
    if (policy.empty()) reader.fail_at(field, "needs a policy before '@' (knapsack, morton or hilbert)");
  }
  const Span name{policy.begin, reader.name_end(policy)};
  if (reader.view(name) == "knapsack") {
    spec.assignment = SpecAssignment::knapsack;
  } else if (reader.view(name) == "morton") {
    spec.assignment = SpecAssignment::morton;
  } else if (reader.view(name) == "hilbert") {
    spec.assignment = SpecAssignment::hilbert;
  } else if (reader.view(name) == "chop") {
    reader.fail_at(name, "is an option of a policy: knapsack(chop=16x16) or morton(chop=16x16)");
  } else {
    reader.fail_at(name.empty() ? policy : name, concat("is not a policy; the policies are ", kPolicyList));
  }
  spec.source.assign = reader.source_of(field);
  if (name.end == policy.end) return;
  if (reader.text()[name.end] != '(' || reader.text()[policy.end - 1] != ')')
    reader.fail_at({name.end, policy.end}, concat("is not part of a policy; the policies are ", kPolicyList,
                                                  ", with the option chop= in parentheses"));
  const Span inside{name.end + 1, policy.end - 1};
  if (inside.empty()) reader.fail_at(policy, "has empty parentheses: leave them out");
  for (const Span& option : reader.split(inside, ',')) {
    const std::size_t eq = reader.view(option).find('=');
    const Span key{option.begin, eq == std::string_view::npos ? option.end : option.begin + eq};
    if (reader.view(key) != "chop") reader.fail_at(key, "is not an option here; the option is chop (chop=16x16)");
    if (!spec.chop.empty()) reader.fail_at(option, "is given twice");
    if (eq == std::string_view::npos) reader.fail_at(option, "needs extents: chop=16x16");
    const std::vector<Span> extents = reader.split({key.end + 1, option.end}, 'x');
    if (extents.size() != spec.rank())
      reader.fail_at(option, concat("has ", extents.size(), " extents for a domain of ", spec.rank(), " dimension",
                                    spec.rank() == 1 ? "" : "s"));
    for (const Span& e : extents) spec.chop.push_back(reader.integer(e, 1, spec_limits::max_magnitude, "a chop extent"));
  }
  std::size_t pieces = 0;
  for (const SpecBox& box : spec.boxes) pieces = std::min(pieces + pieces_after_chop(box, spec.chop), spec_limits::max_boxes + 1);
  if (pieces > spec_limits::max_boxes)
    reader.fail_at(policy, concat("chops the boxes into more than ", spec_limits::max_boxes, " boxes"));
}

void check_box_owners(const SpecReader& reader, const std::vector<Span>& boxes, const Span* assign, const Spec& spec) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (assign && spec.boxes[i].owner >= 0)
      reader.fail_at(boxes[i], "names its owner, but assign= chooses the owners: give every box an owner (@R) or none");
    if (!assign && spec.boxes[i].owner < 0)
      reader.fail_at(boxes[i], "needs an owner: lo:hi ranges joined by x, then @R (or assign=knapsack or assign=morton "
                               "to choose every owner)");
  }
}

}  // namespace tessera::detail
