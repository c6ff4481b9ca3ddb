"""``numba.cuda.kernels.transpose.transpose(a, b=None)``: the transpose of a 2-d array into a new or given one.

What ``DeviceNDArray.T`` and ``.transpose()`` return, as in numba-cuda: a C-ordered copy, not a view. One kernel per
dtype, compiled on first use and kept: each block stages a TILE x TILE tile in shared memory (one row of padding
against bank conflicts), so that both the reads of ``a`` and the writes of ``b`` go along rows.
"""
import numpy as np

from .. import devicearray, kernelapi as cuda
from ..arrays import device_array
from ..dispatcher import jit
from ..interop import is_cuda_array

TILE = 32

_kernels = {}   # dtype -> the kernel for it


def _kernel(dtype):
    kernel = _kernels.get(dtype)
    if kernel is None:
        @jit
        def transpose_tile(src, dst):
            tile = cuda.shared.array((TILE, TILE + 1), dtype)
            tx = cuda.threadIdx.x
            ty = cuda.threadIdx.y
            row0 = cuda.blockIdx.y * TILE     # the tile's first row of src
            col0 = cuda.blockIdx.x * TILE     # and first column
            if row0 + ty < src.shape[0] and col0 + tx < src.shape[1]:
                tile[ty, tx] = src[row0 + ty, col0 + tx]
            cuda.syncthreads()
            if col0 + ty < dst.shape[0] and row0 + tx < dst.shape[1]:
                dst[col0 + ty, row0 + tx] = tile[tx, ty]

        kernel = _kernels[dtype] = transpose_tile
    return kernel


def transpose(a, b=None):
    """The transpose of the 2-d array ``a`` (a NumPy or device array), written into the device array ``b`` if given
    (of shape ``a.shape[::-1]`` and ``a``'s dtype), else into a new C-ordered device array; returns it. A device
    array's own stream is used, for the kernel and for the new array."""
    if not (isinstance(a, np.ndarray) or is_cuda_array(a)):
        raise TypeError(f"transpose: a must be a NumPy or device array, not {type(a).__name__}")
    if a.ndim != 2:
        raise NotImplementedError(f"transpose: a must have 2 dimensions, not {a.ndim}")
    stream = getattr(a, "stream", 0) if isinstance(a, devicearray.DeviceNDArray) else 0
    rows, cols = a.shape
    dtype = np.dtype(a.dtype)
    if b is None:
        b = device_array((cols, rows), dtype=dtype, stream=stream)
    else:
        if not is_cuda_array(b):
            raise TypeError(f"transpose: b must be a device array, not {type(b).__name__}")
        if tuple(b.shape) != (cols, rows):
            raise ValueError(f"transpose: b has shape {tuple(b.shape)}, the transpose of a has {(cols, rows)}")
        if np.dtype(b.dtype) != dtype:
            raise TypeError(f"transpose: b has dtype {np.dtype(b.dtype)}, a has {dtype}")
    if rows and cols:
        grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
        _kernel(dtype)[grid, (TILE, TILE), stream](a, b)
    return b


devicearray.transpose_2d = transpose     # installs DeviceNDArray.transpose's kernel (the array layer is below)
