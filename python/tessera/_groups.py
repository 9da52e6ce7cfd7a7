"""Disjoint processor groups (ZPL's disjoint grids): ProcessorGroups splits a communicator into
groups with communicators of their own, and the copies between two groups' arrays, collective over
the parent communicator, dispatch on the element type and the number of dimensions to the
compiled functions _copy_between_groups_<dtype>_<N>D (a rank in neither group holds no array, so
the element type is an argument, as the C++ template argument is)."""
import numpy as np

from . import _tessera
from ._arrays import DTYPES
from ._layout import _box_lists
from ._tessera import ProcessorGroups  # noqa: F401  (re-exported by the package)


def _compiled_copy(dtype, dist):
    name = np.dtype(dtype).name
    if name not in DTYPES:
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(f"copy_between_groups: argument 'dtype' = {name} is not one of {', '.join(DTYPES)}")
    return getattr(_tessera, f"_copy_between_groups_{name}_{dist.ndim}D")


def copy_between_groups(groups, from_group, from_dist, src, to_group, to_dist, dst, dtype=np.float64):
    """Collective over the groups' parent communicator (every parent rank calls it, ranks in
    neither group too): dst := src, two arrays over the same box on two groups. `from_dist` and
    `to_dist` are the distributions (for each group's ranks: Distribution(..., size=groups.size(g)))
    that every rank passes alike; `src` is the source array on the ranks of `from_group` and None
    elsewhere, `dst` likewise; `dtype` their element type. Raises on every rank, before anything
    moves, for a bad group, an array missing or passed outside its group, another dtype or
    distribution than named, or distributions over different boxes."""
    _compiled_copy(dtype, from_dist)(groups, from_group, from_dist, src, to_group, to_dist, dst, None, None)


def copy_section_between_groups(groups, from_group, from_dist, src, box, to_group, to_dist, dst, dst_lo,
                                 dtype=np.float64):
    """As copy_between_groups, for `box` (a shape or ((lo...), (hi...))) of the source onto the box
    of equal extents at `dst_lo` in the destination (ZPL's B[R2] := A[R1] across grids)."""
    lo, hi = _box_lists(box)
    _compiled_copy(dtype, from_dist)(groups, from_group, from_dist, src, to_group, to_dist, dst, (lo, hi),
                                     list(dst_lo))
