"""DistArray: the Python face of DistArray<T, N>, dispatching on the element type and the number
of dimensions to the compiled classes DistArray_<dtype>_<N>D."""
import abc

import numpy as np

from . import _tessera
from ._layout import Ghosts

#: The element types the module has arrays of.
DTYPES = ("float32", "float64", "int32", "int64", "complex128")


def _dtype_name(where, dtype, allowed=DTYPES, argument="dtype"):
    """The NumPy name of `dtype`; InvalidArgumentError naming `where` and `argument` unless it is
    one of `allowed` (the types the compiled classes are instantiated for)."""
    name = np.dtype(dtype).name
    if name not in allowed:
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(f"{where}: argument '{argument}' = {name} is not one of {', '.join(allowed)}")
    return name


def _compiled_array(kind, domain, dtype, ghosts):
    """The compiled class `<kind>_<dtype>_<N>D` (DistArray, MultiblockArray) made over `domain`;
    InvalidArgumentError for a dtype the module does not instantiate."""
    name = _dtype_name(kind, dtype)
    lower, upper, periodic, corners = Ghosts.of(ghosts).lists(domain.ndim)
    return getattr(_tessera, f"{kind}_{name}_{domain.ndim}D")(domain, lower, upper, periodic, corners)


class DistArray(abc.ABC):
    """`DistArray(domain, dtype=np.float64, ghosts=None)`: an array over `domain` (every element
    zero), registered with it so that redistributions move it. `ghosts`: None, an int (that width
    on every side) or a Ghosts. Returns a DistArray_<dtype>_<N>D (an instance of this class)."""

    def __new__(cls, domain, dtype=np.float64, ghosts=None):
        return _compiled_array("DistArray", domain, dtype, ghosts)


for _name in DTYPES:
    for _n in (1, 2, 3):
        DistArray.register(getattr(_tessera, f"DistArray_{_name}_{_n}D"))
