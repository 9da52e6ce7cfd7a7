#pragma once
// The pieces of the spec parser that read values out of the text (private to src/spec): spans of
// the text, splitting at separators outside parentheses, integers and numbers, and errors that name
// a span. Shared by the parser of the grid fields (spec_parse.cpp) and of the box-set fields
// (spec_parse_boxes.cpp).

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/spec/spec.hpp"

namespace tessera::detail {

/// A part of the text, as byte offsets [begin, end).
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  [[nodiscard]] bool empty() const noexcept { return begin == end; }
  [[nodiscard]] std::size_t size() const noexcept { return end - begin; }
};

/// Reads values out of one spec text; every error names the span it is about.
class SpecReader {
 public:
  explicit SpecReader(std::string_view text) : text_(text) {}

  [[nodiscard]] std::string_view text() const noexcept { return text_; }
  [[nodiscard]] std::string_view view(Span s) const { return text_.substr(s.begin, s.size()); }
  /// Line, column and text of `s`, for messages and `Spec::source`.
  [[nodiscard]] SpecSource source_of(Span s) const;
  /// Throws `Error(invalid_argument)`: `spec: at column C, "text": why`.
  [[noreturn]] void fail_at(Span s, std::string_view why) const;
  /// The parts of `s` between the separators `sep`, outside parentheses. Parentheses must balance
  /// and not nest (no part of the grammar nests them); no part may be empty.
  [[nodiscard]] std::vector<Span> split(Span s, char sep) const;
  /// An integer in [min, max]: an optional '-' and decimal digits.
  [[nodiscard]] index_t integer(Span s, index_t min, index_t max, std::string_view what) const;
  /// A weight: a decimal number (digits, '.', exponent); no inf or nan spelling.
  [[nodiscard]] double number(Span s) const;
  /// A range `E` ([0, E), E >= 0) or `lo:hi` (lo <= hi), each bound at most 10^18 in magnitude.
  [[nodiscard]] std::pair<index_t, index_t> range(Span s) const;
  /// `s` without the lowercase name (letters and '_') it starts with: the name is [s.begin, result).
  [[nodiscard]] std::size_t name_end(Span s) const;

 private:
  std::string_view text_;
};

/// The words of a spec text: blank-separated spans; a word starting with '#' begins a comment that
/// runs to the end of the line (configuration files). Shared by parse_spec and the multiblock parser.
[[nodiscard]] std::vector<Span> spec_words(std::string_view text);

/// Parses the value of `boxes=` (domain already parsed): the boxes and their owners, checked to
/// be non-empty, inside the domain and disjoint. Returns the span of each box's entry.
std::vector<Span> parse_box_list(const SpecReader& reader, Span field, Span value, Spec& spec);
/// Parses the value of `assign=`: the policy, its `chop=` option and `@K`.
void parse_box_assignment(const SpecReader& reader, Span field, Span value, Spec& spec);
/// Checks that owners are given by the boxes or by `assign=`, not both and not neither (`assign`
/// is the span of the assign= field, or null).
void check_box_owners(const SpecReader& reader, const std::vector<Span>& boxes, const Span* assign, const Spec& spec);

}  // namespace tessera::detail
