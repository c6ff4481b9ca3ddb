"""``numba.cuda.random``: xoroshiro128+ generators for kernels, one state per thread.

``create_xoroshiro128p_states(n, seed)`` gives the same states as Numba for the same seed (SplitMix64 seeding,
states 2**64 steps apart), and the kernel functions give the same numbers. The states are a device array of
``xoroshiro128p_dtype`` (n records of two uint64 words); a kernel sees them as ``uint64[:, 2]``.
"""
import operator

import numpy as np

from .. import _core
from .kernelapi import Intrinsic

from .devicearray import xoroshiro128p_dtype  # noqa: F401  (cuda.random.xoroshiro128p_dtype; the array layer needs it)

_MASK = 2**64 - 1


class _HostAndKernel(Intrinsic):
    """A function kernels call as an intrinsic and host code as Python, as Numba's @jit ones in numba.cuda.random."""

    def __init__(self, path, host):
        super().__init__(path)
        self._host = host

    def __call__(self, *args, **kwargs):
        return self._host(*args, **kwargs)


def _unit_float64(x):
    return float((int(x) & _MASK) >> 11) * (1.0 / 2**53)


def _jump(states, index):
    """Numba's xoroshiro128p_jump on a host array of states: generator ``index`` advances 2**64 steps."""
    _check_states(states, "xoroshiro128p_jump", np.ndarray)
    _core.xoroshiro128p_jump(states, operator.index(index))


def _check_states(states, what, kind=None):
    if (kind is not None and not isinstance(states, kind)) or not hasattr(states, "dtype") \
            or np.dtype(states.dtype) != xoroshiro128p_dtype or len(states.shape) != 1:
        where = "NumPy" if kind is np.ndarray else "device"
        raise TypeError(f"{what}: states must be a 1-d {where} array of cudajit.cuda.random.xoroshiro128p_dtype, "
                        f"not {type(states).__name__} of {getattr(states, 'dtype', None)}")


uint64_to_unit_float64 = _HostAndKernel("random.uint64_to_unit_float64", _unit_float64)
uint64_to_unit_float32 = _HostAndKernel("random.uint64_to_unit_float32",
                                        lambda x: float(np.float32(_unit_float64(x))))
xoroshiro128p_jump = _HostAndKernel("random.xoroshiro128p_jump", _jump)
xoroshiro128p_next = Intrinsic("random.xoroshiro128p_next")
xoroshiro128p_uniform_float32 = Intrinsic("random.xoroshiro128p_uniform_float32")
xoroshiro128p_uniform_float64 = Intrinsic("random.xoroshiro128p_uniform_float64")
xoroshiro128p_normal_float32 = Intrinsic("random.xoroshiro128p_normal_float32")
xoroshiro128p_normal_float64 = Intrinsic("random.xoroshiro128p_normal_float64")


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Fill ``states`` (a device array of ``xoroshiro128p_dtype``) for ``seed``; generator i starts
    (subsequence_start + i) * 2**64 steps into the sequence."""
    _check_states(states, "init_xoroshiro128p_states")
    host = np.empty(states.shape, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(host, seed, subsequence_start)
    states.copy_to_device(host, stream=stream)


def init_xoroshiro128p_states_cpu(states, seed, subsequence_start):
    """Numba's host half of init_xoroshiro128p_states: fill the NumPy array ``states`` in place."""
    _check_states(states, "init_xoroshiro128p_states_cpu", np.ndarray)
    _core.xoroshiro128p_init(states, _uint64(seed, "seed"), _uint64(subsequence_start, "subsequence_start"))


def _uint64(value, what):
    """``value`` as numba-cuda takes it, ``uint64(value)`` (NumPy's conversion: a float truncates; a negative or
    too large int raises OverflowError), naming the argument (out of range it was a pybind11 dump, or wrapped)."""
    try:
        converted = np.uint64(value)
    except OverflowError:
        raise OverflowError(f"init_xoroshiro128p_states: {what} {value!r:.60} is out of range for uint64 "
                            f"[0, 2**64)") from None
    except (TypeError, ValueError) as e:
        raise type(e)(f"init_xoroshiro128p_states: {what} must be an integer in [0, 2**64), not "
                      f"{value!r:.60}: {e}") from None
    if np.ndim(converted):
        raise TypeError(f"init_xoroshiro128p_states: {what} must be an integer in [0, 2**64), not {value!r:.60}")
    return int(converted)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of ``n`` generator states for ``seed`` (Numba's function of the same name)."""
    from .arrays import device_array
    states = device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


def as_kernel_states(ary):
    """The uint64[:, 2] view a kernel takes of an array of ``xoroshiro128p_dtype`` (args.py calls this)."""
    from .devicearray import DeviceNDArray
    return DeviceNDArray._view_of(ary._ptr, (ary.shape[0], 2), (ary.strides[0], 8), np.dtype(np.uint64), ary,
                                  ary._backend, device=ary._device)


def _states_record_type():
    """numba-cuda's ``xoroshiro128p_type`` (``from_dtype(xoroshiro128p_dtype)``), for explicit signatures such as
    ``(float32[:], xoroshiro128p_type[:])``. Kernels see the states as ``uint64[:, 2]``, so an array of this record
    type is that view's type: ``[:]`` is ``uint64[:, :]`` (any layout, as Numba's ``[:]``), ``[::1]`` C-ordered."""
    from ..compiler import types as T

    class StatesRecord(T.Record):
        def __getitem__(self, spec):
            array = T.Scalar.__getitem__(self, spec)     # checks the slices, as for any type
            if array.ndim != 1:
                raise TypeError(f"xoroshiro128p_type{list(spec) if isinstance(spec, tuple) else [spec]}: the "
                                f"states are a 1-d array (xoroshiro128p_type[:])")
            return T.Array(T.uint64, 2, "C" if array.layout in "CF" else "A")

    return StatesRecord(xoroshiro128p_dtype)


def __getattr__(name):
    # made on first use: it needs the compiler's types, which ``import cudajit`` does not load
    if name == "xoroshiro128p_type":
        globals()[name] = _states_record_type()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
