"""Sparse subdomains, associative domains and the arrays over them: the Python faces of
SparseDomain<N>, SparseArray<T, N>, AssociativeDomain<int64> and AssociativeArray<int64, T>,
dispatching on the number of dimensions and the element type to the compiled classes
SparseDomain<N>D, SparseArray_<dtype>_<N>D, AssociativeDomain_int64, AssociativeArray_<dtype>."""
import abc

import numpy as np

from . import _tessera

#: The element types sparse and associative arrays have in the Python module.
COLLECTION_DTYPES = ("float64", "int64")


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
    """`AssociativeDomain(comm=None, keys=None)`: a distributed set of int64 keys hashed over the
    ranks of an mpi4py communicator (MPI.COMM_WORLD by default); `keys` (this rank's batch) are
    inserted collectively. Returns an AssociativeDomain_int64."""

    def __new__(cls, comm=None, keys=None):
        domain = _tessera.AssociativeDomain_int64(comm)
        if keys is not None:
            domain.insert(keys)
        return domain


class AssociativeArray(abc.ABC):
    """`AssociativeArray(domain, dtype=np.float64)`: a value per key of `domain` (0 at first),
    float64 or int64. Returns an AssociativeArray_<dtype>."""

    def __new__(cls, domain, dtype=np.float64):
        name = _dtype_name(dtype, "AssociativeArray")
        return getattr(_tessera, f"AssociativeArray_{name}")(domain)


AssociativeDomain.register(_tessera.AssociativeDomain_int64)
for _name in COLLECTION_DTYPES:
    AssociativeArray.register(getattr(_tessera, f"AssociativeArray_{_name}"))
    for _n in (1, 2, 3):
        SparseArray.register(getattr(_tessera, f"SparseArray_{_name}_{_n}D"))
for _n in (1, 2, 3):
    SparseDomain.register(getattr(_tessera, f"SparseDomain{_n}D"))
