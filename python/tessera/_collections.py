"""Sparse subdomains, associative domains and the arrays over them: the Python faces of
SparseDomain<N>, SparseArray<T, N>, AssociativeDomain<Key> and AssociativeArray<Key, T>,
dispatching on the number of dimensions, the key type and the element type to the compiled classes
SparseDomain<N>D, SparseArray_<dtype>_<N>D, AssociativeDomain_<key>, AssociativeArray_<key>_<dtype>."""
import abc

import numpy as np

from . import _tessera

#: The element types sparse and associative arrays have in the Python module.
COLLECTION_DTYPES = ("float64", "int64")
#: The key types of associative domains: int64 (batches as NumPy arrays) and str (lists of str).
KEY_TYPES = ("int64", "str")


def _dtype_name(dtype, what):
    name = np.dtype(dtype).name
    if name not in COLLECTION_DTYPES:
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(f"{what}: argument 'dtype' = {name} is not one of {', '.join(COLLECTION_DTYPES)}")
    return name


class SparseDomain(abc.ABC):
    """`SparseDomain(parent, points=None)`: a distributed sparse set of indices of the Domain
    `parent` (a region too), each held by the rank that owns it in `parent`; follows the parent's
    redistributions. `points` (shape (k, N), this rank's batch) are added collectively. Returns a
    SparseDomain1D/2D/3D."""

    def __new__(cls, parent, points=None):
        sparse = getattr(_tessera, f"SparseDomain{parent.ndim}D")(parent)
        if points is not None:
            sparse.add(points)
        return sparse


class SparseArray(abc.ABC):
    """`SparseArray(sparse, dtype=np.float64)`: a value per index of `sparse` (0 at first), float64
    or int64. Returns a SparseArray_<dtype>_<N>D."""

    def __new__(cls, sparse, dtype=np.float64):
        name = _dtype_name(dtype, "SparseArray")
        return getattr(_tessera, f"SparseArray_{name}_{sparse.ndim}D")(sparse)


class AssociativeDomain(abc.ABC):
    """`AssociativeDomain(comm=None, keys=None, key_type="int64")`: a distributed set of keys
    (`key_type` "int64" or "str", or the types int, np.int64, str) hashed over the ranks of an
    mpi4py communicator (MPI.COMM_WORLD by default); `keys` (this rank's batch) are inserted
    collectively. Returns an AssociativeDomain_<key_type>."""

    def __new__(cls, comm=None, keys=None, key_type="int64"):
        name = "str" if key_type in (str, "str") else "int64" if key_type in (int, np.int64, "int64") else None
        if name is None:
            from ._errors import InvalidArgumentError
            raise InvalidArgumentError(f"AssociativeDomain: argument 'key_type' = {key_type!r} is not one of "
                                       f"{', '.join(KEY_TYPES)}")
        domain = getattr(_tessera, f"AssociativeDomain_{name}")(comm)
        if keys is not None:
            domain.insert(keys)
        return domain


class AssociativeArray(abc.ABC):
    """`AssociativeArray(domain, dtype=np.float64)`: a value per key of `domain` (0 at first),
    float64 or int64. Returns an AssociativeArray_<key_type>_<dtype>."""

    def __new__(cls, domain, dtype=np.float64):
        name = _dtype_name(dtype, "AssociativeArray")
        return getattr(_tessera, f"AssociativeArray_{domain.key_type}_{name}")(domain)


for _key in KEY_TYPES:
    AssociativeDomain.register(getattr(_tessera, f"AssociativeDomain_{_key}"))
    for _name in COLLECTION_DTYPES:
        AssociativeArray.register(getattr(_tessera, f"AssociativeArray_{_key}_{_name}"))
for _name in COLLECTION_DTYPES:
    for _n in (1, 2, 3):
        SparseArray.register(getattr(_tessera, f"SparseArray_{_name}_{_n}D"))
for _n in (1, 2, 3):
    SparseDomain.register(getattr(_tessera, f"SparseDomain{_n}D"))
