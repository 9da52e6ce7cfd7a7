#include "request_checks.hpp"

#include <cstdint>
#include <iomanip>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <type_traits>
#include <variant>
#include <vector>

#include "collective_step.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::io::detail {

void check_names(std::string_view where, const std::string& path, const CheckpointRequest& request,
                 const Attributes* attributes) {
  if (path.empty()) fail_argument(where, "path", "\"\"", "must name a file");
  std::set<std::string_view> seen;
  for (const ArraySelection& a : request.arrays) {
    const std::string quoted = "\"" + a.name + "\"";
    if (a.name.empty() || a.name == ".")
      fail_argument(where, "name", quoted, "is not a dataset name (use a non-empty name other than \".\")");
    if (a.name.find('/') != std::string::npos || a.name.find('\0') != std::string::npos)
      fail_argument(where, "name", quoted, "must not contain '/' or NUL (datasets live in the file's root group)");
    if (!seen.insert(a.name).second) fail_argument(where, "name", quoted, "is given to two arrays");
  }
  if (!attributes) return;
  for (const auto& [name, value] : *attributes) {
    if (name.empty()) fail_argument(where, "attributes", "a name \"\"", "must be non-empty");
    if (name.starts_with(reserved_attribute_prefix))
      fail_argument(where, "attributes", "\"" + name + "\"",
                    tessera::detail::concat("starts with \"", reserved_attribute_prefix,
                                            "\", which is reserved for tessera's own attributes"));
  }
}

void check_same_on_every_rank(std::string_view where, const std::string& path, const CheckpointRequest& request,
                              const Attributes* attributes) {
  std::ostringstream text;
  text << std::setprecision(17) << path.size() << ':' << path << '\n';
  for (const ArraySelection& a : request.arrays) text << a.name.size() << ':' << a.name << ' ' << to_string(a.type) << '\n';
  if (attributes)
    for (const auto& [name, value] : *attributes) {
      text << name.size() << ':' << name << '=';
      std::visit([&](const auto& v) { text << v << (std::is_same_v<std::decay_t<decltype(v)>, double> ? 'd' : 'i'); },
                 value);
      text << '\n';
    }
  const std::string mine = text.str();
  const Communicator& comm = *request.comm;
  std::uint64_t length = mine.size();
  comm.bcast(std::span<std::uint64_t>(&length, 1), 0);
  std::string root(static_cast<std::size_t>(length), '\0');
  if (comm.rank() == 0) root = mine;
  comm.bcast(std::span<char>(root), 0);
  std::optional<Error> outcome;
  if (root != mine)
    outcome = Error(ErrorCode::mismatch,
                    tessera::detail::concat(where, ": rank ", comm.rank(), " passed another path, other dataset names ",
                                            "or element types, or other attributes than rank 0 (collective calls ",
                                            "must be made with the same arguments on every rank)"));
  agree(comm, outcome);
}

}  // namespace tessera::io::detail
