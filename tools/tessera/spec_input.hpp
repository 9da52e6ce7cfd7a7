#pragma once
// Reading a SPEC (docs/spec-format.md) from the command line, choosing the number of ranks it is
// laid out on, and calling a template with the spec's number of dimensions as a constant.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "exit_status.hpp"
#include "tessera/spec/multiblock_spec.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera_tool {

/// Ranks a spec is laid out on when it leaves the choice to the communicator (`grid=auto`) and
/// the user gives no --ranks: the 4 of `make demo`.
inline constexpr int default_ranks = 4;

/// A spec as the user wrote it and as parsed.
struct SpecArgument {
  std::string text;  ///< the text parsed (the words joined by one blank, or a file's contents)
  tessera::Spec spec;
};

/// A multiblock spec as the user wrote it and as parsed.
struct MultiblockArgument {
  std::string text;
  tessera::MultiblockSpec spec;
};

/// `message` (a spec error, `spec: at column 3, ...`) with the argument named instead of `spec`:
/// `FROM: at column 3, ...`.
[[nodiscard]] std::string name_spec_argument(std::string_view message, std::string_view what);

/// Parses the words of a SPEC argument, joined by single blanks (each field of a spec is one shell
/// word, so `tessera show domain=8x8 grid=2x2` works unquoted), or the contents of FILE for a
/// single word `@FILE`. `what` names the argument in messages (`SPEC`, `FROM`). Throws UsageError
/// for an empty argument or an unreadable file, and the parser's `tessera::Error`, prefixed with
/// `what`, for a bad spec.
/// A multiblock spec (docs/spec-format.md, "Multiblock") is refused with a UsageError: only
/// `tessera show` takes one (`read_spec_text`, then `read_multiblock_spec`).
[[nodiscard]] SpecArgument read_spec(const std::vector<std::string>& words, std::string_view what);
/// The text of a SPEC argument (the words joined, or @FILE's contents); UsageError if empty or unreadable.
[[nodiscard]] std::string read_spec_text(const std::vector<std::string>& words, std::string_view what);
/// Parses a multiblock spec's text; its errors are prefixed with `what` as read_spec's are.
[[nodiscard]] MultiblockArgument read_multiblock_spec(std::string text, std::string_view what);

/// The number of ranks the spec's grid places by itself: the product of explicit extents (written,
/// or fixed by cut/weights lists and collapsed axes), or K of `@K`; for a box set, the highest
/// owner + 1 or K of `assign=...@K`; 0 when the grid or the policy is chosen over the whole
/// communicator.
[[nodiscard]] int ranks_placed_by(const tessera::Spec& spec);

/// The communicator size to lay specs out on: `asked` (--ranks) if given, else the largest number
/// of ranks a spec places by itself, else `default_ranks`.
[[nodiscard]] int communicator_size(std::optional<int> asked, const std::vector<const tessera::Spec*>& specs);

/// The largest number of dimensions the pictures and plans handle (each is a template instance).
inline constexpr std::size_t max_tool_rank = 3;

/// Calls `f(std::integral_constant<std::size_t, N>{})` for N = `rank` in 1..max_tool_rank; throws
/// UsageError naming the argument `what` (SPEC, FROM) for any other number of dimensions.
template <class F>
decltype(auto) with_rank(std::size_t rank, std::string_view what, F&& f) {
  switch (rank) {
    case 1:
      return f(std::integral_constant<std::size_t, 1>{});
    case 2:
      return f(std::integral_constant<std::size_t, 2>{});
    case 3:
      return f(std::integral_constant<std::size_t, 3>{});
    default:
      throw UsageError(std::string(what) + ": the spec has " + std::to_string(rank) +
                       " dimensions; tessera draws and plans specs of 1, 2 and 3");
  }
}

}  // namespace tessera_tool
