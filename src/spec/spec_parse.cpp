// The spec parser: splits the text into key=value fields, parses each value by hand (no regex, no
// recursion, so no input can make it slow or deep), then checks what needs several fields at once.
// Every error names a span of the text; see docs/spec-format.md for the grammar.

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>

#include "spec_reader.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera {
namespace {

using detail::concat;
using detail::Span;

constexpr std::array<std::string_view, 7> kKeys = {"domain", "grid", "dist", "order", "ghosts", "boxes", "assign"};
enum Key : std::size_t { kDomain, kGrid, kDist, kOrder, kGhosts, kBoxes, kAssign };
constexpr std::string_view kKeyList = "domain, grid, dist, order, ghosts, boxes and assign";

constexpr std::string_view kKindList = "block, cut, weights, cyclic, block_cyclic, collapsed, flooded or irregular";

class Parser : detail::SpecReader {
 public:
  explicit Parser(std::string_view text) : SpecReader(text), text_(text) {}

  Spec parse() {
    if (text_.size() > spec_limits::max_text_bytes)
      fail_at({0, text_.size()},
              concat("is ", text_.size(), " bytes long; a spec holds at most ", spec_limits::max_text_bytes));
    split_fields();
    if (!fields_[kDomain]) fail_at({0, text_.size()}, "needs a domain= field (the extents of the domain)");
    parse_domain(value_[kDomain]);
    if (fields_[kGrid]) parse_grid(value_[kGrid]);
    spec_.source.dist.resize(spec_.rank());
    if (fields_[kDist]) parse_dist(value_[kDist]);
    if (fields_[kOrder]) parse_order(value_[kOrder]);
    if (fields_[kGhosts]) parse_ghosts(value_[kGhosts]);
    if (fields_[kBoxes] || fields_[kAssign]) {
      parse_box_set();
      return std::move(spec_);
    }
    for (std::size_t d = 0; d < spec_.rank(); ++d) detail::check_spec_axis(spec_, d, smallest_grid_extent(d));
    return std::move(spec_);
  }

 private:
  // --- fields -------------------------------------------------------------------------------

  void split_fields() {
    for (const Span word : detail::spec_words(text_)) add_field(word);
  }

  void add_field(Span field) {
    const std::size_t eq = view(field).find('=');
    if (eq == std::string_view::npos)
      fail_at(field, concat("expected key=value; the keys are ", kKeyList));
    const Span key{field.begin, field.begin + eq};
    const auto it = std::find(kKeys.begin(), kKeys.end(), view(key));
    if (it == kKeys.end()) fail_at(key, concat("is not a key; the keys are ", kKeyList));
    const auto k = static_cast<std::size_t>(it - kKeys.begin());
    if (fields_[k]) fail_at(field, concat("repeats the key ", kKeys[k], " of column ", source_of(*fields_[k]).column));
    const Span value{key.end + 1, field.end};
    if (value.empty()) fail_at(field, "has an empty value");
    fields_[k] = field;
    value_[k] = value;
  }

  // --- domain, grid, order, ghosts ------------------------------------------------------------

  void check_rank_of(Span field, std::size_t count, std::string_view what) const {
    if (count != spec_.rank())
      fail_at(field, concat("has ", count, " ", what, " for a domain of ", spec_.rank(), " dimension",
                            spec_.rank() == 1 ? "" : "s"));
  }

  void parse_domain(Span value) {
    const std::vector<Span> ranges = split(value, 'x');
    if (ranges.size() > spec_limits::max_rank)
      fail_at(*fields_[kDomain], concat("has ", ranges.size(), " dimensions; at most ", spec_limits::max_rank));
    for (const Span& r : ranges) {
      SpecAxis axis;
      std::tie(axis.lo, axis.hi) = range(r);
      spec_.axes.push_back(axis);
    }
    spec_.source.domain = source_of(*fields_[kDomain]);
  }

  void parse_grid(Span value) {
    const Span field = *fields_[kGrid];
    Span shape = value;
    const std::size_t at = view(value).find('@');
    if (at != std::string_view::npos) {
      shape.end = value.begin + at;
      spec_.grid_ranks = integer({shape.end + 1, value.end}, 1, spec_limits::max_ranks, "a rank count");
      if (shape.empty()) fail_at(field, "needs a shape before '@' (auto, or extents such as *x2)");
    }
    if (view(shape) != "auto") {
      const std::vector<Span> extents = split(shape, 'x');
      check_rank_of(field, extents.size(), "grid extents");
      index_t positions = 1;
      for (std::size_t d = 0; d < extents.size(); ++d) {
        if (view(extents[d]) == "*") continue;
        const index_t g = integer(extents[d], 1, spec_limits::max_ranks, "a grid extent");
        spec_.axes[d].grid_extent = g;
        positions *= g;  // no overflow: each factor is at most 2^20 and the product is checked
        if (positions > spec_limits::max_ranks)
          fail_at(field, concat("has more than ", spec_limits::max_ranks, " positions"));
      }
      const bool any_free =
          std::any_of(spec_.axes.begin(), spec_.axes.end(), [](const SpecAxis& a) { return a.grid_extent == 0; });
      if (spec_.grid_ranks != 0 && !any_free)
        fail_at(field, "gives a rank count, but every extent is written: the shape says how many ranks it places");
    }
    spec_.source.grid = source_of(field);
  }

  void parse_order(Span value) {
    const std::vector<Span> entries = split(value, ',');
    check_rank_of(*fields_[kOrder], entries.size(), "entries");
    std::vector<bool> seen(spec_.rank(), false);
    std::vector<int> order;
    for (const Span& entry : entries) {
      const auto d = static_cast<int>(integer(entry, 0, static_cast<index_t>(spec_.rank()) - 1, "a dimension"));
      if (seen[static_cast<std::size_t>(d)]) fail_at(entry, "repeats a dimension: the order is a permutation");
      seen[static_cast<std::size_t>(d)] = true;
      order.push_back(d);
    }
    // A natural order is stored as none, as the printer leaves it out.
    bool natural = true;
    for (std::size_t k = 0; k < order.size(); ++k) natural = natural && order[k] == static_cast<int>(k);
    if (!natural) spec_.order = std::move(order);
    spec_.source.order = source_of(*fields_[kOrder]);
  }

  void parse_ghosts(Span value) {
    const Span field = *fields_[kGhosts];
    std::vector<SpecAxis> widths;  // only the ghost members are used
    for (const Span& entry : split(value, ',')) {
      if (view(entry) == "faces") {
        if (!spec_.corners) fail_at(entry, "is given twice");
        spec_.corners = false;
        continue;
      }
      widths.push_back(ghost_entry(entry));
    }
    if (widths.empty()) fail_at(field, "needs a width (for example ghosts=1,faces)");
    if (widths.size() != 1) check_rank_of(field, widths.size(), "ghost entries (give 1, or 1 per dimension)");
    for (std::size_t d = 0; d < spec_.rank(); ++d) {
      const SpecAxis& w = widths[widths.size() == 1 ? 0 : d];
      spec_.axes[d].ghost_lower = w.ghost_lower;
      spec_.axes[d].ghost_upper = w.ghost_upper;
      spec_.axes[d].periodic = w.periodic;
    }
    spec_.source.ghosts = source_of(field);
  }

  /// `W`, `L:U`, either followed by `p` (periodic).
  [[nodiscard]] SpecAxis ghost_entry(Span entry) const {
    SpecAxis w;
    Span widths = entry;
    if (view(entry).ends_with('p')) {
      w.periodic = true;
      --widths.end;
      if (widths.empty()) fail_at(entry, "needs a width before 'p' (0p: periodic without ghosts)");
    }
    const std::size_t colon = view(widths).find(':');
    if (colon == std::string_view::npos) {
      w.ghost_lower = w.ghost_upper = integer(widths, 0, spec_limits::max_magnitude, "a ghost width");
    } else {
      w.ghost_lower = integer({widths.begin, widths.begin + colon}, 0, spec_limits::max_magnitude, "a ghost width");
      w.ghost_upper = integer({widths.begin + colon + 1, widths.end}, 0, spec_limits::max_magnitude, "a ghost width");
    }
    return w;
  }

  // --- dist -----------------------------------------------------------------------------------

  void parse_dist(Span value) {
    const std::vector<Span> entries = split(value, ',');
    check_rank_of(*fields_[kDist], entries.size(), "distributions");
    for (std::size_t d = 0; d < entries.size(); ++d) {
      spec_.axes[d].dist = axis_dist(entries[d]);
      spec_.source.dist[d] = source_of(entries[d]);
    }
  }

  /// `kind` or `kind(values, options)`.
  [[nodiscard]] DimSpec axis_dist(Span entry) const {
    const std::size_t kind_end = name_end(entry);
    const Span name{entry.begin, kind_end};
    DimSpec dist = kind_named(name, entry);
    if (kind_end == entry.end) {
      check_value_count(entry, dist, 0);  // `cut` or `irregular` alone lacks its list
      return dist;
    }
    if (text_[kind_end] != '(')
      fail_at({kind_end, entry.end}, concat("is not part of a kind; the kinds are ", kKindList));
    const std::size_t close = view(entry).find(')');  // split() made sure there is exactly one pair
    if (entry.begin + close + 1 != entry.end)
      fail_at({entry.begin + close + 1, entry.end}, "follows the ')': options go inside it, as cut(0,8,16,lb=8)");
    const Span inside{kind_end + 1, entry.begin + close};
    if (inside.empty()) fail_at(entry, "has empty parentheses: leave them out");
    arguments(split(inside, ','), entry, dist);
    return dist;
  }

  [[nodiscard]] DimSpec kind_named(Span name, Span entry) const {
    const std::string_view n = view(name);
    if (n == "block") return block();
    if (n == "cut") return cut({});
    if (n == "weights") return cut_weights({});
    if (n == "cyclic") return cyclic();
    if (n == "block_cyclic") return block_cyclic(0);
    if (n == "collapsed") return collapsed();
    if (n == "flooded") return flooded();
    if (n == "irregular") return irregular({});
    if (n == "general")
      fail_at(name, "needs per-rank weights at run time (Distribution::from_rank_weights); a spec cannot express it");
    fail_at(name.empty() ? entry : name, concat("is not a kind; the kinds are ", kKindList));
  }

  /// Positional values first, then options `lb=` (every kind) and `src=` (block_cyclic).
  void arguments(const std::vector<Span>& args, Span entry, DimSpec& dist) const {
    if (args.size() > spec_limits::max_list + 2)
      fail_at(entry, concat("has ", args.size(), " values; a list holds at most ", spec_limits::max_list));
    bool options_started = false, lb_given = false, src_given = false;
    std::size_t positional = 0;
    for (const Span& arg : args) {
      const std::size_t eq = view(arg).find('=');
      if (eq == std::string_view::npos) {
        if (options_started) fail_at(arg, "comes after an option: values go first, then options");
        value_argument(arg, dist);
        ++positional;
        continue;
      }
      options_started = true;
      const Span key{arg.begin, arg.begin + eq}, value{arg.begin + eq + 1, arg.end};
      if (view(key) == "lb") {
        if (lb_given) fail_at(arg, "is given twice");
        lb_given = true;
        dist.logical_block = integer(value, 1, spec_limits::max_magnitude, "a logical block");
      } else if (view(key) == "src" && dist.kind == DimKind::block_cyclic) {
        if (src_given) fail_at(arg, "is given twice");
        src_given = true;
        dist.source = static_cast<int>(integer(value, 0, spec_limits::max_ranks - 1, "a source coordinate"));
      } else {
        fail_at(key, dist.kind == DimKind::block_cyclic ? "is not an option here; the options are lb and src"
                                                        : "is not an option here; the option is lb");
      }
    }
    check_value_count(entry, dist, positional);
  }

  void value_argument(Span arg, DimSpec& dist) const {
    switch (dist.kind) {
      case DimKind::cut:
        dist.boundaries.push_back(integer(arg, -spec_limits::max_magnitude, spec_limits::max_magnitude, "a boundary"));
        return;
      case DimKind::cut_weights:
        dist.weights.push_back(number(arg));
        return;
      case DimKind::irregular:
        dist.owners.push_back(static_cast<int>(integer(arg, 0, spec_limits::max_ranks - 1, "an owner coordinate")));
        return;
      case DimKind::block_cyclic:
        if (dist.block_size != 0) fail_at(arg, "is a second value: block_cyclic takes one block size (then src=)");
        dist.block_size = integer(arg, 1, spec_limits::max_magnitude, "a block size");
        return;
      default:
        fail_at(arg, concat("is a value, but ", to_string(dist.kind), " takes none (only the option lb=)"));
    }
  }

  void check_value_count(Span entry, const DimSpec& dist, std::size_t count) const {
    const auto too_long = [&] {
      fail_at(entry, concat("has ", count, " values; a list holds at most ", spec_limits::max_list));
    };
    if (count > spec_limits::max_list) too_long();
    if (dist.kind == DimKind::cut && count < 2) fail_at(entry, "needs at least 2 boundaries: cut(lo,...,hi)");
    if (dist.kind == DimKind::cut_weights && count < 1) fail_at(entry, "needs a weight per grid coordinate");
    if (dist.kind == DimKind::irregular && count < 1) fail_at(entry, "needs an owner per index");
    if (dist.kind == DimKind::block_cyclic && count < 1) fail_at(entry, "needs a block size: block_cyclic(64)");
  }

  // --- box sets --------------------------------------------------------------------------------

  /// `boxes=` and `assign=`: a box set has no grid, per-dimension distributions or order.
  void parse_box_set() {
    if (!fields_[kBoxes]) fail_at(*fields_[kAssign], "needs a boxes= field: assign= gives owners to its boxes");
    for (const Key k : {kGrid, kDist, kOrder})
      if (fields_[k])
        fail_at(*fields_[k], concat("does not apply to a box set: its boxes say who owns what (leave ", kKeys[k],
                                    "= out, or boxes= for a grid distribution)"));
    const std::vector<Span> boxes = detail::parse_box_list(*this, *fields_[kBoxes], value_[kBoxes], spec_);
    if (fields_[kAssign]) detail::parse_box_assignment(*this, *fields_[kAssign], value_[kAssign], spec_);
    detail::check_box_owners(*this, boxes, fields_[kAssign] ? &*fields_[kAssign] : nullptr, spec_);
  }

  // --- checks across fields --------------------------------------------------------------------

  /// The grid extent to validate axis d against before the grid is known: the written one, the one
  /// its own list implies, or the smallest its parameters allow (any larger one is valid too).
  [[nodiscard]] index_t smallest_grid_extent(std::size_t d) const {
    const SpecAxis& axis = spec_.axes[d];
    if (axis.grid_extent > 0) return axis.grid_extent;
    const DimSpec& dist = axis.dist;
    switch (dist.kind) {
      case DimKind::cut:
        return static_cast<index_t>(dist.boundaries.size()) - 1;
      case DimKind::cut_weights:
        return static_cast<index_t>(dist.weights.size());
      case DimKind::block_cyclic:
        return index_t{dist.source} + 1;
      case DimKind::irregular:
        return index_t{*std::max_element(dist.owners.begin(), dist.owners.end())} + 1;
      default:
        return 1;
    }
  }

  std::string_view text_;
  std::array<std::optional<Span>, kKeys.size()> fields_{};  // whole key=value fields
  std::array<Span, kKeys.size()> value_{};                  // their values
  Spec spec_;
};

}  // namespace

Spec parse_spec(std::string_view text) { return Parser(text).parse(); }

}  // namespace tessera
