"""``cuda.reduce``: turn a binary function into a GPU reduction (numba.cuda's Reduce).

The function becomes a device function inside a two-pass kernel: each block reduces a
grid-stride slice of the input in registers, then in shared memory, and writes one partial; a
second launch of one block reduces the partials and folds in ``init``.
"""
import numpy as np

from .. import _backend
from .arrays import device_array, to_device
from .devicearray import DeviceNDArray
from .interop import as_cuda_array, is_cuda_array

_BLOCK = 256
_MAX_BLOCKS = 1024


def _make_kernel(fn, dtype):
    from . import jit, shared, syncthreads, threadIdx, blockIdx, gridDim   # noqa: F401 (the kernel's globals)
    from ..compiler import types
    nb_dtype = types.from_dtype(dtype)
    device_fn = jit(device=True)(fn) if not hasattr(fn, "__cudajit_pyfunc__") else fn
    block = _BLOCK

    def reduce_pass(src, dst, n, init, use_init):
        sm = shared.array(block, nb_dtype)
        tid = threadIdx.x
        i = blockIdx.x * block + tid
        stride = block * gridDim.x
        if i < n:
            acc = src[i]
            i += stride
            while i < n:
                acc = device_fn(acc, src[i])
                i += stride
            sm[tid] = acc
        syncthreads()
        valid = n - blockIdx.x * block
        if valid > block:
            valid = block
        s = block // 2
        while s > 0:
            if tid < s and tid + s < valid:
                sm[tid] = device_fn(sm[tid], sm[tid + s])
            syncthreads()
            s //= 2
        if tid == 0:
            if use_init:
                dst[blockIdx.x] = device_fn(sm[0], init)
            else:
                dst[blockIdx.x] = sm[0]

    return jit(reduce_pass)


class Reduce:
    """A reduction by a binary function, e.g. ``Reduce(lambda a, b: a + b)`` or ``@cuda.reduce``."""

    def __init__(self, functor):
        self._functor = functor
        self._kernels = {}

    def _kernel(self, dtype):
        key = (_backend.name(), np.dtype(dtype))
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = _make_kernel(self._functor, np.dtype(dtype))
        return k

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduce ``arr[:size]``; the result is returned, or written to device array ``res[0]``.

        ``init`` is folded in once, as Numba does; an empty input gives ``init``.
        """
        dev = _device_input(arr, stream)
        if dev.ndim != 1:
            dev = dev.ravel()
        n = dev.shape[0] if size is None else min(_count(size), dev.shape[0])
        if res is not None and not (is_cuda_array(res) and len(res.shape) >= 1 and res.shape[0] >= 1):
            raise TypeError(f"reduce: res must be a device array with at least one element, not {type(res).__name__}")
        dtype = dev.dtype
        init_value = np.array(init, dtype=dtype)[()]
        if n == 0:
            if res is not None:
                res[0] = init_value
                return None
            return init_value
        kernel = self._kernel(dtype)
        blocks = min(_MAX_BLOCKS, (n + _BLOCK - 1) // _BLOCK)
        partials = device_array(blocks, dtype, stream=stream)
        out = res if res is not None else device_array(1, dtype, stream=stream)
        if blocks == 1:
            kernel[1, _BLOCK, stream](dev, out, n, init_value, True)
        else:
            kernel[blocks, _BLOCK, stream](dev, partials, n, init_value, False)
            kernel[1, _BLOCK, stream](partials, out, blocks, init_value, True)
        if res is not None:
            return None
        return out.copy_to_host(stream=stream)[0]


def _device_input(arr, stream):
    """The array to reduce, on the device: numeric, given as a device, CUDA or host array."""
    if isinstance(arr, DeviceNDArray):
        dev = arr
    elif is_cuda_array(arr) and not isinstance(arr, np.ndarray):
        dev = as_cuda_array(arr)
    elif isinstance(arr, (np.ndarray, list, tuple)):
        dev = to_device(np.asarray(arr), stream)
    else:
        raise TypeError(f"reduce: arr must be an array (device, CUDA or NumPy), not {type(arr).__name__}")
    if dev.dtype.kind not in "biufc":
        raise TypeError(f"reduce: arr has dtype {dev.dtype}; only bool, integer, float and complex arrays reduce")
    return dev


def _count(size):
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"reduce: size must be an int, not {type(size).__name__}")
    if size < 0:
        raise ValueError(f"reduce: size must be >= 0, got {size}")
    return int(size)


def reduce(functor):
    """Numba's ``@cuda.reduce`` decorator."""
    return Reduce(functor)
