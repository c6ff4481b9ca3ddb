"""``typeof(value)``: the Numba type of a kernel launch argument (Numba's ``typeof`` for the CUDA target)."""
import enum

import numpy as np

from . import types as T
from ..errors import TypingError


def _layout(shape, strides, itemsize):
    """C if C-contiguous, else F if F-contiguous and ndim > 1, else A (1-d contiguous is C), as Numba."""
    if strides is None:
        return "C"
    def contiguous(order):
        expect = itemsize
        for n, s in order:
            if n > 1 and s != expect:
                return False
            expect *= n
        return True
    dims = list(zip(shape, strides))
    if any(n == 0 for n in shape) or contiguous(reversed(dims)):
        return "C"
    if len(shape) > 1 and contiguous(dims):
        return "F"
    return "A"


def _array_type(dtype, shape, strides, what, readonly):
    dt = T.from_dtype(dtype)
    if dt is None:
        raise TypingError(f"{what}: arrays of dtype {np.dtype(dtype)} are not supported in kernels")
    return T.Array(dt, len(shape), _layout(tuple(shape), None if strides is None else tuple(strides),
                                            np.dtype(dtype).itemsize), readonly=readonly)


def typeof(value, argname=None):
    """The Numba type of ``value``; raises TypingError naming the argument when it cannot be passed."""
    what = f"argument {argname!r}" if argname else f"value {type(value).__name__}"
    cached = getattr(type(value), "_cudajit_typeof", None)
    if cached is not None:                       # our DeviceNDArray may know its type without the CAI dict
        return cached(value)
    # Read-only data (a non-writeable NumPy array, CAI data marked read-only) types as Numba's readonly arrays.
    if isinstance(value, np.ndarray):
        return _array_type(value.dtype, value.shape, value.strides, what, not value.flags.writeable)
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        # A structured dtype's fields are not in the typestr ('|V12'): our device arrays keep the dtype itself.
        dtype = getattr(value, "dtype", None)
        dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(cai["typestr"])
        if getattr(value, "_record_scalar", False):        # one record argument (args.py)
            return T.from_dtype(dtype)
        return _array_type(dtype, cai["shape"], cai.get("strides"), what, bool(cai["data"][1]))
    if isinstance(value, (bool, np.bool_)):
        return T.boolean
    if isinstance(value, enum.IntEnum):
        return int_enum_type(type(value), what)
    if isinstance(value, int):
        return T.int64 if -2**63 <= value < 2**63 else T.uint64
    if isinstance(value, float):
        return T.float64
    if isinstance(value, complex):
        return T.complex128
    if isinstance(value, np.generic):                 # a number, or a record (np.void)
        t = T.from_dtype(value.dtype)
        if t is not None:
            return t
    if isinstance(value, tuple):                       # a namedtuple keeps its class (its fields' names)
        cls = type(value) if T.is_namedtuple_class(type(value)) else None
        return T.named_tuple([typeof(v, argname) for v in value], cls)
    raise TypingError(f"{what} of type {type(value).__name__} cannot be passed to a kernel "
                      f"(pass a NumPy array, a device array, a scalar or a tuple of scalars)")


def int_enum_type(cls, what="value"):
    """Numba's type of a member of IntEnum class ``cls``: ``IntEnumMember(cls, t)``, ``t`` the one type of its
    members' values (int64, or uint64 for values of 2**63 and up); members of both are Numba's "heterogeneous enum"
    error."""
    kinds = {typeof(m.value) for m in cls}
    if len(kinds) != 1:
        raise TypingError(f"{what}: cannot type heterogeneous enum {cls.__name__}: its values are "
                          f"{', '.join(sorted(map(str, kinds)))} (give its members values of one type)")
    return T.IntEnumMember(cls, kinds.pop())
