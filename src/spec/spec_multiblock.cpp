// The multiblock spec (docs/spec-format.md, "Multiblock"): head fields (width=, ghosts=), then
// `block SPEC` clauses and `glue FACE FACE [perm=] [flip=]` clauses. Each block's spec is parsed by
// parse_spec over a copy of the text in which everything else is blanked (newlines kept), so its
// errors name columns and lines of the whole text.

#include <algorithm>
#include <optional>
#include <sstream>

#include "spec_message.hpp"
#include "spec_reader.hpp"
#include "tessera/spec/multiblock_spec.hpp"

namespace tessera {
namespace {

using detail::concat;
using detail::Span;

// `text` with every byte outside `keep` blanked, newlines kept: a part parsed alone with the
// columns and lines of the whole.
std::string masked(std::string_view text, Span keep) {
  std::string out(text);
  for (std::size_t i = 0; i < out.size(); ++i)
    if ((i < keep.begin || i >= keep.end) && out[i] != '\n') out[i] = ' ';
  return out;
}

class MultiblockParser : detail::SpecReader {
 public:
  explicit MultiblockParser(std::string_view text) : SpecReader(text), text_(text) {}

  MultiblockSpec parse() {
    if (text_.size() > spec_limits::max_text_bytes)
      fail_at({0, text_.size()},
              concat("is ", text_.size(), " bytes long; a multiblock spec holds at most ", spec_limits::max_text_bytes));
    const std::vector<Span> words = detail::spec_words(text_);
    std::size_t i = 0;
    std::optional<Span> ghosts, width;
    for (; i < words.size() && view(words[i]) != "block"; ++i) head_field(words[i], ghosts, width);
    if (i == words.size()) fail_at({0, text_.size()}, "has no block: a multiblock spec needs `block domain=...`");
    while (i < words.size()) {
      const Span keyword = words[i++];
      const std::size_t first = i;
      while (i < words.size() && view(words[i]) != "block" && view(words[i]) != "glue") ++i;
      if (view(keyword) == "block")
        add_block(keyword, {words.begin() + static_cast<std::ptrdiff_t>(first), words.begin() + static_cast<std::ptrdiff_t>(i)});
      else if (view(keyword) == "glue")
        glue_spans_.push_back({keyword, {words.begin() + static_cast<std::ptrdiff_t>(first), words.begin() + static_cast<std::ptrdiff_t>(i)}});
      else
        fail_at(keyword, "is not block or glue; after the first block come block and glue clauses");
    }
    for (const auto& [keyword, parts] : glue_spans_) add_interface(keyword, parts);
    if (width) spec_.width = integer({width->begin + 6, width->end}, 0, spec_limits::max_magnitude, "width");
    if (ghosts) parse_ghosts(*ghosts);
    return std::move(spec_);
  }

 private:
  void head_field(Span word, std::optional<Span>& ghosts, std::optional<Span>& width) {
    const std::string_view w = view(word);
    std::optional<Span>* field = w.starts_with("ghosts=") ? &ghosts : w.starts_with("width=") ? &width : nullptr;
    if (!field)
      fail_at(word, "comes before the first block; only width= and ghosts= may (then `block domain=...`)");
    if (*field) fail_at(word, concat("repeats the field of column ", source_of(**field).column));
    if (w.back() == '=') fail_at(word, "has an empty value");
    *field = word;
  }

  void add_block(Span keyword, std::vector<Span> parts) {
    if (parts.empty()) fail_at(keyword, "has no spec after it (block domain=...)");
    const Span whole{parts.front().begin, parts.back().end};
    Spec block = parse_spec(masked(text_, whole));
    if (!block.source.ghosts.text.empty())
      fail_at(whole, "has a ghosts= field; the arrays' ghosts are given once, before the first block");
    if (!spec_.blocks.empty() && block.rank() != spec_.rank())
      fail_at(whole, concat("has ", block.rank(), " dimensions; block 0 has ", spec_.rank()));
    spec_.blocks.push_back(std::move(block));
  }

  // B.A+ or B.A-, optionally [range x range ...].
  SpecFace face(Span s, std::string_view which) const {
    const std::string_view t = view(s);
    const std::size_t dot = t.find('.');
    const std::size_t sign = t.find_first_of("+-", dot == std::string_view::npos ? 0 : dot);
    if (dot == std::string_view::npos || sign == std::string_view::npos || dot == 0 || sign == dot + 1)
      fail_at(s, concat("is not a face (", which, "): write BLOCK.AXIS+ or BLOCK.AXIS-, e.g. 0.1+"));
    SpecFace f;
    f.block = static_cast<std::size_t>(integer({s.begin, s.begin + dot}, 0, spec_limits::max_list, "block"));
    f.axis = static_cast<std::size_t>(integer({s.begin + dot + 1, s.begin + sign}, 0, spec_limits::max_rank, "axis"));
    f.upper = t[sign] == '+';
    if (f.block >= spec_.blocks.size())
      fail_at(s, concat("names block ", f.block, "; the spec has ", spec_.blocks.size(), " (0..", spec_.blocks.size() - 1, ")"));
    if (f.axis >= spec_.rank())
      fail_at(s, concat("names axis ", f.axis, "; the blocks have ", spec_.rank(), " dimensions"));
    const Span rest{s.begin + sign + 1, s.end};
    if (rest.empty()) return f;
    if (view(rest).front() != '[' || view(rest).back() != ']' || rest.size() < 3)
      fail_at(rest, "follows the face; the cells along it are written [lo:hi x lo:hi ...]");
    const std::vector<Span> ranges = split({rest.begin + 1, rest.end - 1}, 'x');
    if (ranges.size() != spec_.rank())
      fail_at(rest, concat("has ", ranges.size(), " ranges; the blocks have ", spec_.rank(), " dimensions"));
    for (const Span r : ranges) {
      const auto [lo, hi] = range(r);
      f.lo.push_back(lo);
      f.hi.push_back(hi);
    }
    return f;
  }

  void add_interface(Span keyword, const std::vector<Span>& parts) {
    if (parts.size() < 2) fail_at(keyword, "needs two faces: glue 0.0+ 1.1+ [perm=...] [flip=...]");
    SpecInterface in;
    in.a = face(parts[0], "the first");
    in.b = face(parts[1], "the second");
    in.source = source_of({keyword.begin, parts.back().end});
    const std::size_t n = spec_.rank();
    bool has_perm = false, has_flip = false;
    for (std::size_t k = 2; k < parts.size(); ++k) {
      const std::string_view w = view(parts[k]);
      const bool perm = w.starts_with("perm="), flip = w.starts_with("flip=");
      if (!perm && !flip) fail_at(parts[k], "is not perm= or flip= (a glue clause is two faces, then those)");
      if ((perm && has_perm) || (flip && has_flip)) fail_at(parts[k], "repeats a field of this glue clause");
      const std::vector<Span> entries = split({parts[k].begin + 5, parts[k].end}, ',');
      if (entries.size() != n)
        fail_at(parts[k], concat("has ", entries.size(), " entries; the blocks have ", n, " dimensions"));
      if (perm) {
        has_perm = true;
        std::vector<bool> seen(n, false);
        for (const Span e : entries) {
          const auto axis = static_cast<std::size_t>(integer(e, 0, static_cast<index_t>(n) - 1, "an axis"));
          if (seen[axis]) fail_at(parts[k], "is not a permutation of the axes (an axis repeats)");
          seen[axis] = true;
          in.perm.push_back(static_cast<int>(axis));
        }
      } else {
        has_flip = true;
        for (const Span e : entries) in.flip.push_back(integer(e, 0, 1, "a flip (0 or 1)") == 1);
      }
    }
    // Canonical: the identity and no flips are left out.
    bool identity = true;
    for (std::size_t d = 0; d < in.perm.size(); ++d) identity = identity && in.perm[d] == static_cast<int>(d);
    if (identity) in.perm.clear();
    if (std::none_of(in.flip.begin(), in.flip.end(), [](bool f) { return f; })) in.flip.clear();
    spec_.interfaces.push_back(std::move(in));
  }

  // ghosts= through parse_spec: the field kept where it stands, a domain of the blocks' rank
  // appended after the text (so an error names the field's own line and column).
  void parse_ghosts(Span field) {
    std::string text = masked(text_, field);
    text += " domain=1";
    for (std::size_t d = 1; d < spec_.rank(); ++d) text += "x1";
    spec_.ghosts = parse_spec(text);
    for (const SpecAxis& axis : spec_.ghosts.axes)
      if (axis.periodic)
        fail_at(field, "is periodic; over a multiblock domain a block is periodic by a glue clause with itself");
    spec_.ghosts.source = {};
    if (spec_.ghosts.no_ghosts()) spec_.ghosts = Spec{};  // canonical: no layer is no ghosts= at all
  }

  std::string_view text_;
  MultiblockSpec spec_;
  std::vector<std::pair<Span, std::vector<Span>>> glue_spans_;  // parsed once every block is known
};

std::string face_text(const SpecFace& f) {
  std::string out = concat(f.block, ".", f.axis, f.upper ? "+" : "-");
  if (f.lo.empty()) return out;
  out += '[';
  for (std::size_t d = 0; d < f.lo.size(); ++d) out += concat(d ? "x" : "", f.lo[d], ":", f.hi[d]);
  return out + ']';
}

}  // namespace

bool is_multiblock_spec(std::string_view text) {
  for (const Span w : detail::spec_words(text)) {
    const std::string_view word = text.substr(w.begin, w.size());
    if (word == "block") return true;
    if (!word.starts_with("width=") && !word.starts_with("ghosts=")) return false;
  }
  return false;
}

MultiblockSpec parse_multiblock_spec(std::string_view text) { return MultiblockParser(text).parse(); }

std::string to_string(const MultiblockSpec& spec) {
  std::ostringstream out;
  out << "width=" << spec.width;
  if (!spec.ghosts.axes.empty() && !spec.ghosts.no_ghosts()) {
    const std::string g = to_string(spec.ghosts);  // "domain=1x1 ghosts=..."
    const std::size_t at = g.find("ghosts=");
    out << ' ' << g.substr(at, g.find(' ', at) - at);
  }
  for (const Spec& b : spec.blocks) out << " block " << to_string(b);
  for (const SpecInterface& in : spec.interfaces) {
    out << " glue " << face_text(in.a) << ' ' << face_text(in.b);
    if (!in.perm.empty()) {
      out << " perm=";
      for (std::size_t d = 0; d < in.perm.size(); ++d) out << (d ? "," : "") << in.perm[d];
    }
    if (!in.flip.empty()) {
      out << " flip=";
      for (std::size_t d = 0; d < in.flip.size(); ++d) out << (d ? "," : "") << (in.flip[d] ? 1 : 0);
    }
  }
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const MultiblockSpec& spec) { return out << to_string(spec); }

void detail::fail_in_glue(const SpecInterface& in, std::size_t index, std::string_view cause) {
  if (in.source.line > 0)
    fail(ErrorCode::invalid_argument, "spec: ", spec_location(in.source.line, in.source.column), ", ",
         spec_excerpt(in.source.text), ": ", cause);
  fail(ErrorCode::invalid_argument, "multiblock spec, glue clause ", index, ": ", cause);
}

}  // namespace tessera
