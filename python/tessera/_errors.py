"""tessera's exceptions: one base class, one subclass per tessera::ErrorCode.

The compiled module raises these with the C++ message unchanged. A collective operation that fails
raises the same class with the same message on every rank (the library agrees on errors before
anything moves), so a program may catch them without the ranks falling out of step.
"""


class Error(Exception):
    """Base class of every error tessera raises. `code` is the C++ ErrorCode's number."""

    code = 0


class InvalidArgumentError(Error, ValueError):
    """An argument is malformed (non-monotone cuts, negative width, a bad spec text, ...)."""

    code = 1


class OutOfRangeError(Error, IndexError):
    """An index, rank, root, patch or box lies outside what it must lie in."""

    code = 2


class IndexOverflowError(Error, OverflowError):
    """A volume or offset does not fit in 64 bits."""

    code = 3


class MismatchError(Error, ValueError):
    """Objects that must match do not (shapes, domains, a checkpoint's datasets)."""

    code = 4


class MPIError(Error, RuntimeError):
    """MPI reported an error; the message carries MPI's error string."""

    code = 5


class FileIOError(Error, OSError):
    """A file could not be read or written, or a checkpoint failed its checksum."""

    code = 6


class InternalError(Error, RuntimeError):
    """A broken invariant inside tessera: a bug, please report it."""

    code = 7


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed, on every rank alike and before anything moved."""

    code = 8


class ViewsHeldError(Error, RuntimeError):
    """A redistribution or migration was refused because NumPy views of the storage it would free
    are alive on some rank (docs/python.md, "Views"). Raised on every rank; nothing moved."""

    code = 0


_BY_CODE = {cls.code: cls for cls in (InvalidArgumentError, OutOfRangeError, IndexOverflowError, MismatchError,
                                      MPIError, FileIOError, InternalError, OutOfMemoryError)}


def error_class(code):
    """The class for an ErrorCode number (the base class for a number tessera does not define)."""
    return _BY_CODE.get(code, Error)
