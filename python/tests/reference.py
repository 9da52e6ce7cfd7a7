"""Serial NumPy references for the tests: a known value at every global index, and filling a
distributed array's owned part with it through its NumPy view."""
import numpy as np


def values(box, dtype):
    """The reference value at every index of box ((lo...), (hi...)): distinct integers from the
    global index (plus an imaginary part for complex), as an array of the box's shape."""
    lo, hi = box
    grids = np.meshgrid(*[np.arange(l, h) for l, h in zip(lo, hi)], indexing="ij")
    v = np.zeros([h - l for l, h in zip(lo, hi)], dtype=np.int64)
    for g in grids:
        v = v * 1000 + g + 1
    out = v.astype(dtype)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        out = out + 1j * (v % 7).astype(dtype)
    return out


def owned_index(a):
    """np.ix_ of the owned global indices, relative to the array's box lo."""
    lo = a.box[0]
    return np.ix_(*[np.asarray(a.global_indices(d), dtype=np.int64) - lo[d] for d in range(a.ndim)])


def fill(a, image):
    """Sets the owned part of `a` from the global image (row-major over a.box)."""
    local = a.local
    local[...] = image[owned_index(a)]
    del local
