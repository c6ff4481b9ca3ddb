"""The shapes, strides and dtypes of device arrays, and the checks of a copy between a device array and a host
one: plain functions of tuples and NumPy dtypes that devicearray.py (DeviceNDArray), arrays.py, interop.py and
args.py share. Nothing here allocates, copies or knows a backend's state."""
import operator

import numpy as np

from .. import _core


def _c_strides(shape, itemsize):
    strides, s = [], itemsize
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return tuple(reversed(strides))


def _f_strides(shape, itemsize):
    strides, s = [], itemsize
    for n in shape:
        strides.append(s)
        s *= n
    return tuple(strides)


def _normalize_shape(shape, what="shape"):
    """A shape as a tuple of non-negative ints (TypeError/ValueError naming the bad entry)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    elif isinstance(shape, np.ndarray) and shape.ndim == 1 and shape.dtype.kind in "iu":
        shape = shape.tolist()                 # numba-cuda takes a NumPy array of ints as a shape
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{what} must be an int or a tuple of ints, not {type(shape).__name__}")
    out = []
    for d, n in enumerate(shape):
        if isinstance(n, (bool, np.bool_)):
            raise TypeError(f"{what}[{d}] must be an int, not bool")
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError(f"{what}[{d}] must be an int, not {type(n).__name__}") from None
        if n < 0:
            raise ValueError(f"{what}[{d}] = {n} is negative")
        out.append(n)
    return tuple(out)


def _check_dtype(dtype, what="dtype"):
    """The NumPy dtype of ``dtype``; arrays of Python objects cannot live in device memory."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{what}: {e}") from None
    if dtype.hasobject or dtype.itemsize == 0:
        raise TypeError(f"{what} {dtype} cannot be stored in device memory (Python objects or no size)")
    return dtype


def _core_typestr(dtype):
    """The typestr the core reads the item size from: NumPy's, but for unicode strings, whose '<U5' counts
    characters (4 bytes each), the bytes as a void ('|V20')."""
    return f"|V{dtype.itemsize}" if dtype.kind == "U" else dtype.str


def _axis(a, ndim):
    """Axis ``a`` of an array of ``ndim`` dimensions counted from 0 (a negative one from the end), as NumPy takes
    it: NumPy's AxisError (a ValueError and an IndexError) with its words where it is out of range."""
    if not -ndim <= a < ndim:
        raise getattr(np, "exceptions", np).AxisError(int(a), ndim)   # "axis 2 is out of bounds for array of dimension 2"
    return int(a) % ndim


def _span_bytes(shape, strides, itemsize):
    lo, hi = _span(shape, strides, itemsize)
    return hi - lo


def _span(shape, strides, itemsize):
    """The byte range [lo, hi) the elements cover, relative to the first element's address."""
    if any(n == 0 for n in shape):
        return 0, 0
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return lo, hi + itemsize


def _check_fits(gpu_data, lo, hi, shape, strides, dtype):
    """``DeviceNDArray(..., gpu_data=memory)``: the elements lie in ``memory`` (its pointer is the first
    element's), so kernels and copies stay inside it."""
    if not hasattr(gpu_data, "ptr"):
        raise TypeError(f"gpu_data must be device memory with a .ptr (a MemoryPointer, or a device array's "
                        f"gpu_data), not {type(gpu_data).__name__}")
    size = gpu_data.nbytes if isinstance(gpu_data, _core.DeviceBuffer) else getattr(gpu_data, "size", None)
    if hi == 0 or not isinstance(size, int):
        return
    if lo < 0 or hi > size:
        raise ValueError(f"an array of shape {shape}, strides {strides} and dtype {dtype} spans bytes [{lo}, {hi}) "
                         f"from its first element, which gpu_data's {size} bytes do not hold")


def _c_strides_skip1(shape, strides, itemsize):
    # Compare with C strides, ignoring axes of length 1 (their stride does not matter).
    want = _c_strides(shape, itemsize)
    return tuple(w if n != 1 else s for n, s, w in zip(shape, strides, want))


def _is_f_contig(shape, strides, itemsize):
    want = _f_strides(shape, itemsize)
    return all(n == 1 or s == w for n, s, w in zip(shape, strides, want))


def _same_layout(host, dev):
    return (tuple(host.shape) == tuple(dev.shape) and tuple(host.strides) == tuple(dev.strides)
            and np.dtype(host.dtype) == dev.dtype)


def _host_addr(ary):
    return ary.__array_interface__["data"][0]


def _normalize_strides(strides, shape):
    if not isinstance(strides, (tuple, list)):
        raise TypeError(f"strides must be a tuple of ints, not {type(strides).__name__}")
    if len(strides) != len(shape):
        raise ValueError(f"strides has {len(strides)} entries, but shape has {len(shape)}")
    try:
        return tuple(operator.index(s) for s in strides)
    except TypeError:
        raise TypeError(f"strides must be ints, got {strides!r}") from None


def _check_host_target(ary, dev):
    """copy_to_host(ary): a writable NumPy array of the device array's dtype and shape (axes of length 1 apart)."""
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"copy_to_host: ary must be a NumPy array, not {type(ary).__name__}")
    _check_compatible("copy_to_host", dev, ary, "destination")
    if not ary.flags.writeable:
        raise ValueError("copy_to_host: ary is read-only")


def _squeezed(shape):
    return tuple(n for n in shape if n != 1)


def _check_compatible(what, dev, other, role):
    """numba-cuda's check_array_compatibility for a copy between device array ``dev`` and ``other`` (its source or
    destination, ``role``): TypeError for another dtype, ValueError for another shape once axes of length 1 are
    left out, in numba-cuda's words (``incompatible shape: (2, 3) vs. (6,)``, ``dev``'s first). A copy never
    reshapes: an array of the same size and another shape is refused, as numba-cuda refuses it. Unlike numba-cuda,
    the layouts may differ (the copy goes through the host in ``dev``'s layout)."""
    if np.dtype(other.dtype) != dev.dtype:
        raise TypeError(f"{what}: incompatible dtype: {dev.dtype} vs. {other.dtype} (the device array's and the "
                        f"{role}'s)")
    if _squeezed(dev.shape) != _squeezed(other.shape):
        raise ValueError(f"{what}: incompatible shape: {tuple(dev.shape)} vs. {tuple(other.shape)} (the device "
                         f"array's and the {role}'s: they must be equal but for axes of length 1; reshape the "
                         f"{role} first)")


def _is_array_index(key):
    return False


def _check_one_value_per_element(dev, host, shared):
    """A device array whose axes ``shared`` have stride 0 (to_device of a broadcast array) holds one element for all
    positions along them: host data that differs along them would lose all but one value, so it is refused
    (numba-cuda refuses any source that is not such a broadcast itself)."""
    if host.size == 0 or host.dtype.itemsize == 0:
        return
    raw = np.ascontiguousarray(host)
    raw = raw.view(np.uint8).reshape(host.shape + (host.dtype.itemsize,))
    first = raw[tuple(slice(0, 1) if ax in shared else slice(None) for ax in range(host.ndim))]
    if not np.array_equal(raw, np.broadcast_to(first, raw.shape)):
        axes = ", ".join(map(str, shared))
        raise ValueError(f"cannot copy into a device array whose elements share memory along axis {axes} (strides "
                         f"{dev.strides}: to_device of a broadcast array keeps one copy of the repeated values): the "
                         f"source's values differ along that axis, and all but one would be lost; copy into "
                         f"cuda.device_array({tuple(dev.shape)!r}) instead")
