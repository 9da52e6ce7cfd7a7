// The spec parser: splits the text into key=value fields, parses each value by hand (no regex, no
// recursion, so no input can make it slow or deep), then checks what needs several fields at once.
// Every error names a span of the text; see docs/spec-format.md for the grammar.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>

#include "spec_message.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera {
namespace {

using detail::concat;

/// A part of the text, as byte offsets [begin, end).
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  [[nodiscard]] bool empty() const noexcept { return begin == end; }
  [[nodiscard]] std::size_t size() const noexcept { return end - begin; }
};

constexpr std::array<std::string_view, 5> kKeys = {"domain", "grid", "dist", "order", "ghosts"};
enum Key : std::size_t { kDomain, kGrid, kDist, kOrder, kGhosts };

constexpr std::string_view kKindList = "block, cut, weights, cyclic, block_cyclic, collapsed, flooded or irregular";

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

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
    for (std::size_t d = 0; d < spec_.rank(); ++d) detail::check_spec_axis(spec_, d, smallest_grid_extent(d));
    return std::move(spec_);
  }

 private:
  [[nodiscard]] std::string_view view(Span s) const { return text_.substr(s.begin, s.size()); }

  [[nodiscard]] SpecSource source_of(Span s) const {
    SpecSource source;
    source.line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < s.begin; ++i) {
      if (text_[i] == '\n') {
        ++source.line;
        line_start = i + 1;
      }
    }
    source.column = static_cast<int>(s.begin - line_start) + 1;
    source.text = std::string(view(s));
    return source;
  }

  [[noreturn]] void fail_at(Span s, std::string_view why) const {
    const SpecSource source = source_of(s);
    fail(ErrorCode::invalid_argument, "spec: ", detail::spec_location(source.line, source.column), ", ",
         detail::spec_excerpt(source.text), ": ", why);
  }

  // --- fields -------------------------------------------------------------------------------

  void split_fields() {
    std::size_t i = 0;
    while (i < text_.size()) {
      if (is_blank(text_[i])) {
        ++i;
      } else if (text_[i] == '#') {  // a comment, for configuration files
        while (i < text_.size() && text_[i] != '\n') ++i;
      } else {
        const std::size_t begin = i;
        while (i < text_.size() && !is_blank(text_[i])) ++i;
        add_field({begin, i});
      }
    }
  }

  void add_field(Span field) {
    const std::size_t eq = view(field).find('=');
    if (eq == std::string_view::npos)
      fail_at(field, "expected key=value; the keys are domain, grid, dist, order and ghosts");
    const Span key{field.begin, field.begin + eq};
    const auto it = std::find(kKeys.begin(), kKeys.end(), view(key));
    if (it == kKeys.end()) fail_at(key, "is not a key; the keys are domain, grid, dist, order and ghosts");
    const auto k = static_cast<std::size_t>(it - kKeys.begin());
    if (fields_[k]) fail_at(field, concat("repeats the key ", kKeys[k], " of column ", source_of(*fields_[k]).column));
    const Span value{key.end + 1, field.end};
    if (value.empty()) fail_at(field, "has an empty value");
    fields_[k] = field;
    value_[k] = value;
  }

  // --- pieces of values -----------------------------------------------------------------------

  /// The parts of `s` between the separators `sep`, outside parentheses. Parentheses must balance
  /// and not nest (no part of the grammar nests them).
  [[nodiscard]] std::vector<Span> split(Span s, char sep) const {
    std::vector<Span> parts;
    std::size_t begin = s.begin;
    std::optional<std::size_t> open;
    for (std::size_t i = s.begin; i < s.end; ++i) {
      const char c = text_[i];
      if (c == '(') {
        if (open) fail_at({i, s.end}, "opens a parenthesis inside another");
        open = i;
      } else if (c == ')') {
        if (!open) fail_at({i, s.end}, "closes a parenthesis that was not opened");
        open.reset();
      } else if (c == sep && !open) {
        parts.push_back({begin, i});
        begin = i + 1;
      }
    }
    if (open) fail_at({*open, s.end}, "opens a parenthesis that is not closed");
    parts.push_back({begin, s.end});
    for (const Span& part : parts)
      if (part.empty()) fail_at(s, concat("has an empty entry (two '", sep, "' in a row, or one at an end)"));
    return parts;
  }

  /// An integer in [min, max]: an optional '-' and decimal digits.
  [[nodiscard]] index_t integer(Span s, index_t min, index_t max, std::string_view what) const {
    const std::string_view digits = view(s).substr(view(s).starts_with('-') ? 1 : 0);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      fail_at(s, concat("is not an integer (", what, ")"));
    index_t value = 0;
    const auto [end, ec] = std::from_chars(text_.data() + s.begin, text_.data() + s.end, value);
    if (ec != std::errc{} || end != text_.data() + s.end || value < -spec_limits::max_magnitude ||
        value > spec_limits::max_magnitude)
      fail_at(s, concat("is out of range: ", what, " must be in [", min, ", ", max, "]"));
    if (value < min || value > max) fail_at(s, concat("is out of range: ", what, " must be in [", min, ", ", max, "]"));
    return value;
  }

  /// A weight: a decimal number (digits, '.', exponent); no inf or nan spelling.
  [[nodiscard]] double number(Span s) const {
    const std::string_view t = view(s);
    const bool plain = std::all_of(t.begin(), t.end(), [](char c) {
      return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+';
    });
    double value = 0;
    const auto [end, ec] = std::from_chars(text_.data() + s.begin, text_.data() + s.end, value);
    if (!plain || ec == std::errc::invalid_argument || end != text_.data() + s.end)
      fail_at(s, "is not a number (a weight)");
    if (ec != std::errc{} || !std::isfinite(value)) fail_at(s, "is out of range for a weight");
    return value;
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
    constexpr index_t big = spec_limits::max_magnitude;
    for (const Span& range : ranges) {
      SpecAxis axis;
      const std::size_t colon = view(range).find(':');
      if (colon == std::string_view::npos) {
        axis.hi = integer(range, 0, big, "an extent");
      } else {
        axis.lo = integer({range.begin, range.begin + colon}, -big, big, "a low bound");
        axis.hi = integer({range.begin + colon + 1, range.end}, -big, big, "a high bound");
        if (axis.hi < axis.lo) fail_at(range, "has hi < lo (a range is lo:hi, half-open)");
      }
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
    std::size_t name_end = entry.begin;
    while (name_end < entry.end && ((text_[name_end] >= 'a' && text_[name_end] <= 'z') || text_[name_end] == '_'))
      ++name_end;
    const Span name{entry.begin, name_end};
    DimSpec dist = kind_named(name, entry);
    if (name_end == entry.end) {
      check_value_count(entry, dist, 0);  // `cut` or `irregular` alone lacks its list
      return dist;
    }
    if (text_[name_end] != '(')
      fail_at({name_end, entry.end}, concat("is not part of a kind; the kinds are ", kKindList));
    const std::size_t close = view(entry).find(')');  // split() made sure there is exactly one pair
    if (entry.begin + close + 1 != entry.end)
      fail_at({entry.begin + close + 1, entry.end}, "follows the ')': options go inside it, as cut(0,8,16,lb=8)");
    const Span inside{name_end + 1, entry.begin + close};
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
