#pragma once
// A patch of local storage as the C API's tessera_view (tessera_array_local,
// tessera_multiblock_array_local).

#include "convert.hpp"

namespace tessera::capi {

/// The view of `local` (patch `p` of an array of C type `type`); `first` is given in coordinates
/// shifted by `-origin` (a multiblock array's block offset; zero for an ordinary array).
template <class T, std::size_t N>
[[nodiscard]] tessera_view view_of(const LocalView<T, N>& local, const PatchLayout<N>& p, tessera_type type,
                                   const Point<N>& origin = Point<N>::filled(0)) {
  tessera_view view{};
  view.data = local.data;
  view.type = type;
  view.ndim = static_cast<int>(N);
  for (std::size_t d = 0; d < N; ++d) {
    const AxisMap& axis = p.axes[d];
    view.extents[d] = local.extents[d];
    view.strides[d] = local.strides[d];
    view.ghost_lo[d] = local.ghost_lo[d];
    view.count[d] = local.count[d];
    view.first[d] = (axis.is_interval() ? axis.first : axis.global(0)) - origin[d];
    view.contiguous[d] = axis.is_interval() ? 1 : 0;
  }
  return view;
}

}  // namespace tessera::capi
