"""``numba.cuda.random``: xoroshiro128+ generators for kernels, one state per thread.

``create_xoroshiro128p_states(n, seed)`` gives the same states as Numba for the same seed (SplitMix64 seeding,
states 2**64 steps apart), and the kernel functions give the same numbers. The states are a device array of
``xoroshiro128p_dtype`` (n records of two uint64 words); a kernel sees them as ``uint64[:, 2]``.
"""
import numpy as np

from .. import _core
from .kernelapi import Intrinsic

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

xoroshiro128p_next = Intrinsic("random.xoroshiro128p_next")
xoroshiro128p_uniform_float32 = Intrinsic("random.xoroshiro128p_uniform_float32")
xoroshiro128p_uniform_float64 = Intrinsic("random.xoroshiro128p_uniform_float64")
xoroshiro128p_normal_float32 = Intrinsic("random.xoroshiro128p_normal_float32")
xoroshiro128p_normal_float64 = Intrinsic("random.xoroshiro128p_normal_float64")


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Fill ``states`` (a device array of ``xoroshiro128p_dtype``) for ``seed``; generator i starts
    (subsequence_start + i) * 2**64 steps into the sequence."""
    if np.dtype(states.dtype) != xoroshiro128p_dtype or len(states.shape) != 1:
        raise TypeError("states must be a 1-d device array of cudajit.cuda.random.xoroshiro128p_dtype")
    host = np.empty(states.shape, dtype=xoroshiro128p_dtype)
    _core.xoroshiro128p_init(host, int(seed) % 2**64, int(subsequence_start))
    states.copy_to_device(host, stream=stream)


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
