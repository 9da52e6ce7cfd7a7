// tessera_groups_*: disjoint groups of a communicator's ranks, each with a communicator of its own
// (tessera::ProcessorGroups, ZPL's disjoint grids), and the copies between two groups' arrays,
// tessera_copy_between_groups and tessera_copy_section_between_groups (array/group_copy.hpp).
// A file of its own, compiled fast: one dispatch over the element type and the source's dimension
// (18 instantiations), each side's array then taken with std::get_if of that same alternative.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace tessera::capi {

struct GroupsObject {
  static constexpr Kind kind = Kind::groups;
  GroupsObject(std::shared_ptr<CommObject> p, std::vector<std::vector<int>> lists)
      : parent(std::move(p)), groups(parent->comm, std::move(lists)) {}
  std::shared_ptr<CommObject> parent;  // declared first: the groups keep the parent's Communicator by address
  ProcessorGroups groups;
};

}  // namespace tessera::capi

namespace {

/// The lists of tessera_groups_create: group g holds sizes[g] ranks, the groups' lists one after
/// another in `ranks`. Malformed arguments throw here; bad lists are ProcessorGroups' to refuse.
std::vector<std::vector<int>> group_lists(const int* ranks, const int* sizes, int count) {
  if (count < 0) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'count' = ", count, " must be >= 0");
  if (count > 0) require_pointer("sizes", sizes);
  std::vector<std::vector<int>> lists(static_cast<std::size_t>(count));
  std::size_t at = 0;
  for (std::size_t g = 0; g < lists.size(); ++g) {
    if (sizes[g] < 0) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'sizes[", g, "]' = ", sizes[g], " must be >= 0");
    if (sizes[g] > 0) require_pointer("ranks", ranks);
    lists[g].assign(ranks + at, ranks + at + sizes[g]);
    at += static_cast<std::size_t>(sizes[g]);
  }
  return lists;
}

/// One side's array on this rank: null for a NULL handle (a rank outside the side's group), else
/// the array, which must hold `type` and N dimensions (CApiError otherwise). `keep` holds it alive.
template <class T, std::size_t N>
DistArray<T, N>* side_array(tessera_array handle, const char* argument, tessera_type type,
                            std::shared_ptr<ArrayObject>& keep) {
  if (handle == nullptr) return nullptr;
  keep = get<ArrayObject>(handle, argument);
  if (keep->type != type)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument '", argument, "' holds ", type_name(keep->type), ", but argument 'type' = ",
           type_name(type));
  auto* held = std::get_if<ArrayPtr<T, N>>(&keep->array);
  if (held == nullptr)
    fail_c(TESSERA_ERR_MISMATCH, "argument '", argument, "' is ", ndim_of(keep->domain->domain),
           "-dimensional, but the distributions are ", N, "-dimensional");
  return held->get();
}

/// What both copies share: the arguments resolved, a bad array handle on any rank agreed on over
/// the parent (ranks outside a group pass NULL, so the ranks' arrays differ), then the copy, of
/// `src_box` onto `dst_lo` when `src_box` is given.
void copy_groups(tessera_groups groups, tessera_type type, int from_group, tessera_dist from, tessera_array src,
                 const tessera_box* src_box, int to_group, tessera_dist to, tessera_array dst, const int64_t* dst_lo) {
  const auto g = get<GroupsObject>(groups, "groups");
  const auto f = get<DistObject>(from, "from");
  const auto t = get<DistObject>(to, "to");
  with_type(type, "type", [&](auto element) {
    using T = typename decltype(element)::type;
    std::visit(
        [&](const auto& from_dist) {
          constexpr std::size_t N = dims_v<decltype(from_dist)>;
          const Distribution<N>& to_dist = as_dim<N>(t->dist, "to", "distribution 'from'");
          std::optional<Error> refused;
          std::shared_ptr<ArrayObject> src_object, dst_object;
          DistArray<T, N>* s = nullptr;
          DistArray<T, N>* d = nullptr;
          try {
            s = side_array<T, N>(src, "src", type, src_object);
            d = side_array<T, N>(dst, "dst", type, dst_object);
          } catch (const CApiError& e) {
            refused = Error(ErrorCode::invalid_argument, e.what());
          }
          g->groups.parent().agree(refused);
          if (src_box == nullptr) return copy_between_groups<T, N>(g->groups, from_group, from_dist, s, to_group, to_dist, d);
          copy_section_between_groups<T, N>(g->groups, from_group, from_dist, s, to_box<N>(src_box, "src_box"), to_group,
                                            to_dist, d, to_point<N>(dst_lo, "dst_lo"));
        },
        f->dist);
  });
}

}  // namespace

extern "C" {

tessera_status tessera_groups_create(tessera_comm parent, const int* ranks, const int* sizes, int count,
                                     tessera_groups* out) {
  return guarded("tessera_groups_create", [&] {
    prepare_out(out);
    auto p = get<CommObject>(parent, "parent");
    // Malformed arguments on some ranks only must not leave the others in MPI_Comm_split.
    std::optional<Error> refused;
    std::vector<std::vector<int>> lists;
    try {
      lists = group_lists(ranks, sizes, count);
    } catch (const CApiError& e) {
      refused = Error(ErrorCode::invalid_argument, e.what());
    }
    p->comm.agree(refused);
    issue(std::make_shared<GroupsObject>(p, std::move(lists)), out);
  });
}

tessera_status tessera_groups_count(tessera_groups groups, int* count) {
  return guarded("tessera_groups_count", [&] {
    const auto g = get<GroupsObject>(groups, "groups");
    require_pointer("count", count);
    *count = g->groups.count();
  });
}

tessera_status tessera_groups_ranks(tessera_groups groups, int group, int* ranks, size_t capacity, size_t* size) {
  return guarded("tessera_groups_ranks", [&] {
    const auto g = get<GroupsObject>(groups, "groups");
    require_pointer("size", size);
    const std::vector<int>& list = g->groups.parent_ranks(group);
    *size = list.size();
    if (capacity == 0) return;
    require_pointer("ranks", ranks);
    if (capacity < list.size())
      fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'capacity' = ", capacity, " is less than the ", list.size(),
             " ranks of group ", group);
    std::copy(list.begin(), list.end(), ranks);
  });
}

tessera_status tessera_groups_group_of(tessera_groups groups, int parent_rank, int* group) {
  return guarded("tessera_groups_group_of", [&] {
    const auto g = get<GroupsObject>(groups, "groups");
    require_pointer("group", group);
    *group = g->groups.group_of(parent_rank).value_or(-1);
  });
}

tessera_status tessera_groups_my_group(tessera_groups groups, int* group) {
  return guarded("tessera_groups_my_group", [&] {
    const auto g = get<GroupsObject>(groups, "groups");
    require_pointer("group", group);
    *group = g->groups.my_group().value_or(-1);
  });
}

tessera_status tessera_groups_comm(tessera_groups groups, tessera_comm* out) {
  return guarded("tessera_groups_comm", [&] {
    prepare_out(out);
    const auto g = get<GroupsObject>(groups, "groups");
    // tessera's duplicate of the group's communicator: collective over the group.
    issue(std::make_shared<CommObject>(g->groups.communicator().raw()), out);
  });
}

tessera_status tessera_groups_free(tessera_groups* groups) {
  return guarded("tessera_groups_free", [&] { release<GroupsObject>(groups, "groups"); });
}

tessera_status tessera_copy_between_groups(tessera_groups groups, tessera_type type, int from_group, tessera_dist from,
                                           tessera_array src, int to_group, tessera_dist to, tessera_array dst) {
  return guarded("tessera_copy_between_groups",
                 [&] { copy_groups(groups, type, from_group, from, src, nullptr, to_group, to, dst, nullptr); });
}

tessera_status tessera_copy_section_between_groups(tessera_groups groups, tessera_type type, int from_group,
                                                   tessera_dist from, tessera_array src, const tessera_box* src_box,
                                                   int to_group, tessera_dist to, tessera_array dst,
                                                   const int64_t* dst_lo) {
  return guarded("tessera_copy_section_between_groups", [&] {
    require_pointer("src_box", src_box);
    copy_groups(groups, type, from_group, from, src, src_box, to_group, to, dst, dst_lo);
  });
}

}  // extern "C"
