// Reading values out of a spec text: spans, lists, integers and numbers, errors that name a span.

#include "spec_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "spec_message.hpp"

namespace tessera::detail {

SpecSource SpecReader::source_of(Span s) const {
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

void SpecReader::fail_at(Span s, std::string_view why) const {
  const SpecSource source = source_of(s);
  fail(ErrorCode::invalid_argument, "spec: ", spec_location(source.line, source.column), ", ",
       spec_excerpt(source.text), ": ", why);
}

std::vector<Span> SpecReader::split(Span s, char sep) const {
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

index_t SpecReader::integer(Span s, index_t min, index_t max, std::string_view what) const {
  const std::string_view digits = view(s).substr(view(s).starts_with('-') ? 1 : 0);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    fail_at(s, concat("is not an integer (", what, ")"));
  index_t value = 0;
  const auto [end, ec] = std::from_chars(text_.data() + s.begin, text_.data() + s.end, value);
  if (ec != std::errc{} || end != text_.data() + s.end || value < -spec_limits::max_magnitude ||
      value > spec_limits::max_magnitude || value < min || value > max)
    fail_at(s, concat("is out of range: ", what, " must be in [", min, ", ", max, "]"));
  return value;
}

double SpecReader::number(Span s) const {
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

std::pair<index_t, index_t> SpecReader::range(Span s) const {
  constexpr index_t big = spec_limits::max_magnitude;
  const std::size_t colon = view(s).find(':');
  if (colon == std::string_view::npos) return {0, integer(s, 0, big, "an extent")};
  const index_t lo = integer({s.begin, s.begin + colon}, -big, big, "a low bound");
  const index_t hi = integer({s.begin + colon + 1, s.end}, -big, big, "a high bound");
  if (hi < lo) fail_at(s, "has hi < lo (a range is lo:hi, half-open)");
  return {lo, hi};
}

std::size_t SpecReader::name_end(Span s) const {
  std::size_t i = s.begin;
  while (i < s.end && ((text_[i] >= 'a' && text_[i] <= 'z') || text_[i] == '_')) ++i;
  return i;
}

std::vector<Span> spec_words(std::string_view text) {
  const auto is_blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  std::vector<Span> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_blank(text[i])) {
      ++i;
    } else if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      const std::size_t begin = i;
      while (i < text.size() && !is_blank(text[i])) ++i;
      out.push_back({begin, i});
    }
  }
  return out;
}

}  // namespace tessera::detail
