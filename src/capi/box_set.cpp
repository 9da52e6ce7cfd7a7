// tessera_dist_from_boxes, tessera_assign_boxes, tessera_chop_boxes, tessera_incremental_box_step,
// tessera_dist_box_set: box-set distributions (tessera/layout/box_set.hpp, box_assignment.hpp, balance/box_balance.hpp)
// from C.
#include <algorithm>
#include <vector>

#include "convert.hpp"
#include "tessera/balance/box_balance.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

template <std::size_t N>
std::vector<Box<N>> to_boxes(const tessera_box* boxes, std::size_t count) {
  std::vector<Box<N>> out;
  if (count > 0) require_pointer("boxes", boxes);
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back(to_box<N>(boxes + i, "boxes"));
  return out;
}

BoxAssignment to_assignment(tessera_box_assignment policy) {
  switch (policy) {
    case TESSERA_ASSIGN_KNAPSACK: return BoxAssignment::knapsack;
    case TESSERA_ASSIGN_MORTON: return BoxAssignment::morton;
    case TESSERA_ASSIGN_HILBERT: return BoxAssignment::hilbert;
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'policy' = ", static_cast<int>(policy),
             " is not a tessera_box_assignment");
  }
}

}  // namespace

extern "C" {

tessera_status tessera_dist_from_boxes(int ndim, int comm_size, const tessera_box* domain, const tessera_box* boxes,
                                       size_t count, const int* owners, tessera_dist* out) {
  return guarded("tessera_dist_from_boxes", [&] {
    prepare_out(out);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      auto list = to_boxes<N>(boxes, count);
      auto who = to_vector(owners, count, "owners");
      const BoxSet<N> set = domain ? BoxSet<N>(to_box<N>(domain, "domain"), std::move(list), std::move(who), comm_size)
                                   : BoxSet<N>(std::move(list), std::move(who), comm_size);
      issue(std::make_shared<DistObject>(DistObject{Distribution<N>::from_box_set(set)}), out);
    });
  });
}

tessera_status tessera_assign_boxes(int ndim, int comm_size, const tessera_box* boxes, size_t count,
                                    tessera_box_assignment policy, const double* weights, int* owners) {
  return guarded("tessera_assign_boxes", [&] {
    const BoxAssignment how = to_assignment(policy);
    if (count > 0) require_pointer("owners", owners);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      const auto list = to_boxes<N>(boxes, count);
      const auto w = weights ? std::vector<double>(weights, weights + count) : std::vector<double>{};
      const auto assigned = assign_boxes<N>(list, comm_size, how, w);
      std::copy(assigned.begin(), assigned.end(), owners);
    });
  });
}

tessera_status tessera_chop_boxes(int ndim, const tessera_box* boxes, size_t count, const int64_t* max_extent,
                                  tessera_box* pieces, size_t capacity, size_t* piece_count) {
  return guarded("tessera_chop_boxes", [&] {
    require_pointer("piece_count", piece_count);
    if (capacity > 0) require_pointer("pieces", pieces);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      const auto chopped = chop_boxes<N>(to_boxes<N>(boxes, count), to_point<N>(max_extent, "max_extent"));
      // After every check: nothing written on a throw.
      *piece_count = chopped.size();
      for (std::size_t i = 0; i < chopped.size() && i < capacity; ++i) pieces[i] = from_box(chopped[i]);
    });
  });
}

tessera_status tessera_incremental_box_step(int ndim, int comm_size, const tessera_box* boxes, size_t count,
                                            const int* current, const int* target, double delta,
                                            const double* weights, int* owners, size_t* moved, uint64_t* cells,
                                            double* excess_before, double* excess_after) {
  return guarded("tessera_incremental_box_step", [&] {
    if (count > 0) require_pointer("owners", owners);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      const auto list = to_boxes<N>(boxes, count);
      const auto w = weights ? std::vector<double>(weights, weights + count) : std::vector<double>{};
      const IncrementalBoxStep step = incremental_box_step<N>(list, to_vector(current, count, "current"),
                                                              to_vector(target, count, "target"), comm_size, delta, w);
      std::copy(step.owners.begin(), step.owners.end(), owners);  // after every check: nothing written on a throw
      if (moved) *moved = step.moves.size();
      if (cells) *cells = step.cells;
      if (excess_before) *excess_before = step.excess_before;
      if (excess_after) *excess_after = step.excess_after;
    });
  });
}

tessera_status tessera_dist_box_set(tessera_dist dist, tessera_box* boxes, int* owners, size_t capacity,
                                    size_t* count) {
  return guarded("tessera_dist_box_set", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("count", count);
    std::visit(
        [&](const auto& x) {
          const auto* set = x.box_set();
          if (set == nullptr)
            fail_c(TESSERA_ERR_MISMATCH, "argument 'dist' is not a box set (tessera_dist_from_boxes makes one)");
          *count = set->size();
          for (std::size_t i = 0; i < set->size() && i < capacity; ++i) {
            if (boxes) boxes[i] = from_box(set->box(i));
            if (owners) owners[i] = set->owner(i);
          }
        },
        d->dist);
  });
}

}  // extern "C"
