"""``cuda.reduce``: turn a binary function into a GPU reduction (numba.cuda's Reduce).

The order of the fold is numba-cuda's, so that results equal numba-cuda's bit for bit, also for operators that
are not associative or commutative (``a - b if b < 0 else a + b``):

* the input splits into ``n_full = n // 128 * 128`` elements and a tail of ``n % 128``;
* pass 1 runs ``min(n_full // 128, 64)`` blocks of 128 threads over the first part: thread ``g`` (global index)
  folds ``x[g], x[g + S], x[g + 2S], ...`` from the left (``S`` = 128 · blocks); each warp folds its 32 values as a
  halving tree (lane ``l`` takes ``l + 16``, then ``l + 8``, ...), then ``(w0 ∘ w2) ∘ (w1 ∘ w3)``; block ``b`` writes
  partial ``b``, and block 0 folds ``init`` into partial 0;
* the tail is folded as one block of ``n % 128`` threads (full warps as a tree, the last warp from the left,
  then the warps from the left) into the next partial (with ``init`` when there was no pass 1);
* the partials are folded the same way as the tail.

numba-cuda launches pass 1 with only 8192 threads (64 blocks, so 64 SMs), each folding a long strided sequence:
that order leaves little memory parallelism. On a GPU of compute capability 9.0 or later, for a contiguous input
whose data is 16-byte aligned, each pass-1 block gets 8 more warps ("producers", kernels/cudajit/reduce_ring.h)
that load whole rows with 16-byte vectors into a shared ring of two stages; the 128 fold threads fold them in the
same order (2^27 float32 on the H100: 0.24 ms a call, against 0.45 ms without producers and 2.3 ms for numba-cuda).
Elsewhere (the CPU backend, older GPUs, strided or unaligned views) each thread loads ``_BATCH`` elements of its
sequence ahead into registers and then folds them in order. A call is one launch: the last block to finish (a
ticket counter) folds the tail and the partials and writes the result to ``res`` or to mapped host memory, so no
copy follows the kernel; a thread's buffers for a stream are kept between calls. Everything runs as ordinary
cudajit kernels, so the CPU backend computes the same bits.
"""
import threading
import weakref

import numpy as np

from .. import _backend, _core
from ..compiler import types
from .arrays import device_array, mapped_array, to_device
from .devicearray import DeviceNDArray
from .dispatcher import jit, pickled_function, unpickled_function
from .interop import as_cuda_array, is_cuda_array
from .streams import Stream, stream_handle
from .kernelapi import Intrinsic, atomic, blockDim, blockIdx, gridDim, local, shared, syncthreads, syncwarp, threadfence, threadIdx  # noqa: F401,E501 (kernels' globals)

# cuda.reduce's own kernel-side names (compiler/intrinsics.py, "cuda._reduce.*"; not user API)
ring_init = Intrinsic("_reduce.ring_init")
ring_produce = Intrinsic("_reduce.ring_produce")
ring_take = Intrinsic("_reduce.ring_take")
ring_stage = Intrinsic("_reduce.ring_stage")
ring_release = Intrinsic("_reduce.ring_release")

_WARP = 32
_WARPS = 4
_BLOCK = _WARP * _WARPS          # numba-cuda's block of 4 warps
_MAX_BLOCKS = 2 * _WARP          # numba-cuda's cap on pass-1 blocks
_BATCH = 32                      # loads in flight per thread in pass 1 (order unchanged)
_PRODUCERS = 8                   # producer warps per pass-1 block on sm_90+ (kernels/cudajit/reduce_ring.h)


def _make_kernel(fn, dtype):
    nb_dtype = types.from_dtype(dtype)
    op = jit(device=True)(fn) if not hasattr(fn, "__cudajit_pyfunc__") else fn
    warp, block, batch = _WARP, _BLOCK, _BATCH
    row = _WARP + 1                # numba-cuda pads each warp's row by one

    @jit(device=True)
    def warp_tree(sm, w, lane):
        # The warp's 32 values are in sm[w, :]; lane l folds in l + width, width = 16, 8, 4, 2, 1.
        width = warp // 2
        while width:
            if lane < width:
                sm[w, lane] = op(sm[w, lane], sm[w, lane + width])
            syncwarp()
            width //= 2

    @jit(device=True)
    def fold_small(src, base, size, dst, slot, init, use_init, sm):
        # numba-cuda's block of `size` (< 128) threads over src[base:base + size]; this block has 128 threads, and
        # those past `size` only keep the barriers.
        tid = threadIdx.x
        w = tid // warp
        lane = tid % warp
        if tid < size:
            sm[w, lane] = src[base + tid]
        syncthreads()
        if (w + 1) * warp < size:
            warp_tree(sm, w, lane)
        elif lane == 0:
            for i in range(1, size - w * warp):
                sm[w, 0] = op(sm[w, 0], sm[w, i])
        syncthreads()
        if tid == 0:
            result = sm[0, 0]
            for i in range(1, (size + warp - 1) // warp):
                result = op(result, sm[i, 0])
            dst[slot] = result
            if use_init:
                dst[slot] = op(dst[slot], init)
        syncthreads()

    @jit(launch_bounds=_BLOCK + _WARP * _PRODUCERS)
    def reduce_all(src, partials, n_full, n_tail, init, done, out):
        sm = shared.array((_WARPS, row), nb_dtype)
        bars = shared.array(4, types.uint64)
        last = shared.array(1, types.int32)
        ring = shared.array(0, nb_dtype)
        tid = threadIdx.x
        if n_full:
            step = block * gridDim.x
            i = tid + block * blockIdx.x
            if blockDim.x == block:
                # numba-cuda's loop; each thread loads `batch` elements of its sequence ahead, then folds them in order
                acc = src[i]
                i += step
                ahead = local.array(batch, nb_dtype)
                while i + (batch - 1) * step < n_full:
                    for k in range(batch):
                        ahead[k] = src[i + k * step]
                    for k in range(batch):
                        acc = op(acc, ahead[k])
                    i += batch * step
                while i < n_full:
                    acc = op(acc, src[i])
                    i += step
            else:
                # producer warps (threads >= 128) bring the rows through a shared ring (kernels/cudajit/reduce_ring.h);
                # the fold threads fold them in numba-cuda's order, 8 loads ahead of the fold
                ring_init(bars)
                syncthreads()
                acc = src[i if tid < block else 0]
                if tid < block:
                    c = 0
                    n = ring_take(src, n_full, bars, c)
                    while n:
                        at = ring_stage(src, c) + tid
                        r = 0
                        while r + 8 <= n:
                            v0 = ring[at]
                            v1 = ring[at + block]
                            v2 = ring[at + 2 * block]
                            v3 = ring[at + 3 * block]
                            v4 = ring[at + 4 * block]
                            v5 = ring[at + 5 * block]
                            v6 = ring[at + 6 * block]
                            v7 = ring[at + 7 * block]
                            acc = op(op(op(op(op(op(op(op(acc, v0), v1), v2), v3), v4), v5), v6), v7)
                            r += 8
                            at += 8 * block
                        while r < n:
                            acc = op(acc, ring[at])
                            r += 1
                            at += block
                        ring_release(bars, c)
                        c += 1
                        n = ring_take(src, n_full, bars, c)
                else:
                    ring_produce(src, n_full, ring, bars)
            w = tid // warp
            lane = tid % warp
            syncthreads()
            if tid < block:
                sm[w, lane] = acc
                syncwarp()
                warp_tree(sm, w, lane)
            syncthreads()
            if tid < 2:
                sm[tid, 0] = op(sm[tid, 0], sm[tid + 2, 0])
            syncthreads()
            if tid == 0:
                partials[blockIdx.x] = op(sm[0, 0], sm[1, 0])
                if blockIdx.x == 0:
                    partials[0] = op(partials[0], init)
        # The last block to finish folds the tail and the partials (one launch a call): each block's partial is
        # stored before its fence and its ticket, so the block that draws the last ticket sees them all.
        if tid == 0:
            threadfence()
            last[0] = atomic.add(done, 0, 1) == gridDim.x - 1
        syncthreads()
        if last[0]:
            threadfence()
            n_blocks = gridDim.x if n_full else 0
            if n_tail:
                fold_small(src, n_full, n_tail, partials, n_blocks, init, n_blocks == 0, sm)
            count = n_blocks + (1 if n_tail else 0)
            if count > 1:
                fold_small(partials, 0, count, partials, 0, init, False, sm)
            if tid == 0:
                out[0] = partials[0]
                done[0] = 0          # ready for the next call on this stream

    return reduce_all


class Reduce:
    """A reduction by a binary function, e.g. ``Reduce(lambda a, b: a + b)`` or ``@cuda.reduce``.

    Follows numba-cuda: the function becomes a device function; results equal numba-cuda's for the same input
    (the same partition and fold order), whatever the operator."""

    def __init__(self, functor):
        if not hasattr(functor, "__cudajit_pyfunc__"):            # a device function is one already
            from ..jitoptions import python_function
            python_function(functor, "cuda.reduce")
        self._functor = functor
        self._kernels = {}
        self._launchers = {}      # launchers for the legacy stream (see _launcher)

    def __reduce__(self):
        # compiled again where it is unpickled (Dask's worker processes); a plain function travels with its
        # source, as a kernel's does (a device function carries its own)
        if hasattr(self._functor, "__cudajit_pyfunc__"):
            return Reduce, (self._functor,)
        return _rebuild_reduce, pickled_function(self._functor, self)

    def _kernel(self, dtype):
        key = (_backend.current(), dtype)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = _make_kernel(self._functor, dtype)
        return kernel

    def _launcher(self, dev, dtype, n_blocks, stream, handle):
        """``kernel[blocks, threads, stream, ring bytes]`` for pass 1's shape. Those for the legacy stream are kept
        (another stream's are not: a launcher holds its stream, and a stream's scratch goes with the stream)."""
        key = (_backend.current().target(), dtype, n_blocks,
               dev.strides[0] == dtype.itemsize and dev._ptr % 16 == 0)
        launcher = self._launchers.get(key) if handle == 0 else None
        if launcher is None:
            threads, ring_bytes = _pass1_shape(dev) if n_blocks else (_BLOCK, 0)
            launcher = self._kernel(dtype)[max(n_blocks, 1), threads, stream, ring_bytes]
            if handle == 0:
                if len(self._launchers) >= 256:
                    self._launchers.clear()
                self._launchers[key] = launcher
        return launcher

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduce ``arr[:size]``; the result is returned, or written to device array ``res[0]``.

        ``init`` is folded in once, where numba-cuda folds it; an empty input gives ``init``.
        """
        dev = _device_input(arr, stream)
        if dev.ndim != 1:
            raise TypeError(f"cuda.reduce takes a 1-d array, got {dev.ndim} dimensions (shape {dev.shape}); "
                            "pass arr.ravel()")
        n = dev.shape[0] if size is None else min(_count(size), dev.shape[0])
        dtype = dev.dtype
        if res is not None:
            res = _result_array(res, dtype)
        init_value = _init_value(init, dtype)
        if n == 0:
            if res is not None:
                res[0] = init_value
                return None
            return init_value
        n_full = n // _BLOCK * _BLOCK
        n_blocks = min(n_full // _BLOCK, _MAX_BLOCKS)
        table, key, scratch = _scratch(dev, dtype, stream)
        try:
            self._launcher(dev, dtype, n_blocks, stream, scratch.handle)(
                dev, scratch.partials, n_full, n - n_full, init_value, scratch.done,
                scratch.result if res is None else res)
            if res is not None:
                return None
            _core.stream_synchronize(scratch.handle, dev._device)
        except BaseException:
            if table is not None:              # a launch that failed part way may leave the ticket counter set
                table.pop(key, None)
            raise
        return scratch.host[0]


class _Scratch:
    """One thread's buffers for calls on one stream: the partials, the blocks' ticket counter (zero between calls)
    and the result, written by the last block into mapped host memory (no copy to issue after the kernel)."""

    def __init__(self, stream, handle, dtype):
        self.handle = handle
        self.epoch = _core.context_epoch()
        self.partials = device_array(_MAX_BLOCKS + 1, dtype, stream=stream)
        self.done = to_device(np.zeros(1, np.uint32), stream=stream)
        self.partials.stream = self.done.stream = 0   # they must not keep the stream alive (_scratch_table)
        self.host = mapped_array(1, dtype)
        buf = self.host._cudajit_buffer
        self.result = DeviceNDArray._view_of(buf.device_ptr, (1,), (dtype.itemsize,), dtype, buf,
                                             self.done._backend, device=-1)


_SCRATCH = threading.local()    # this thread's tables of _Scratch (see _scratch_table)


def _scratch_table(stream, handle):
    """This thread's {(backend, device, dtype): _Scratch} for ``stream``; None when its scratch is not kept.

    The legacy stream has one table whatever object names it (cuda.default_stream() makes a new one each call).
    A Stream's table is keyed by the object itself and goes with it: a destroyed stream's handle may be given to
    a new stream, which must never receive the old stream's buffers. Another object with a raw handle: not kept."""
    if handle == 0:
        table = getattr(_SCRATCH, "legacy", None)
        if table is None:
            table = _SCRATCH.legacy = {}
        return table
    if not isinstance(stream, Stream):
        return None
    streams = getattr(_SCRATCH, "streams", None)
    if streams is None:
        streams = _SCRATCH.streams = weakref.WeakKeyDictionary()
    table = streams.get(stream)
    if table is None:
        table = streams[stream] = {}
    return table


def _scratch(dev, dtype, stream):
    """This thread's scratch for a call on ``stream`` (launches on one stream run in order, so a call reuses the
    previous call's buffers; another thread or stream gets its own; none outlives its context), with the table
    that keeps it (None: not kept) and its key there."""
    handle = stream_handle(stream)
    table = _scratch_table(stream, handle)
    key = (_backend.current(), dev._device, dtype)
    scratch = table.get(key) if table is not None else None
    if scratch is None or scratch.epoch != _core.context_epoch():
        if table is not None:
            table.pop(key, None)           # dropped first: a closed context's buffers are not freed after it
        scratch = _Scratch(stream, handle, dtype)
        if table is not None:
            table[key] = scratch
    return table, key, scratch


def _result_array(res, dtype):
    if not (is_cuda_array(res) and len(res.shape) >= 1 and res.shape[0] >= 1):
        raise TypeError(f"reduce: res must be a device array with at least one element, not {type(res).__name__}")
    if not isinstance(res, DeviceNDArray):
        res = as_cuda_array(res)           # a CuPy/PyTorch array: written through its CUDA array interface
    res._check_writable("reduce: res")
    if res.dtype != dtype:
        raise TypeError(f"reduce: res has dtype {res.dtype}, the array reduced {dtype}; they must be the same")
    return res


def _ring_bytes(itemsize):
    """Dynamic shared memory of pass 1's ring (two stages), as kernels/cudajit/reduce_ring.h lays it out."""
    vec_per_lane = max(1, itemsize * 128 // 16 // _WARP)
    rows_per_warp = 16 // vec_per_lane
    return 2 * _PRODUCERS * rows_per_warp * _BLOCK * itemsize


def _pass1_shape(dev):
    """(threads per block, dynamic shared bytes) of pass 1: with producer warps on a GPU of compute capability 9.0
    or later, for a contiguous input whose data is 16-byte aligned; else numba-cuda's 128 threads."""
    itemsize = dev.dtype.itemsize
    if not _backend.current().is_gpu or itemsize not in (1, 2, 4, 8, 16) or dev.strides[0] != itemsize:
        return _BLOCK, 0
    if dev._ptr % 16:
        return _BLOCK, 0
    key = (_core.current_device(), itemsize)
    shape = _RING_SHAPES.get(key)
    if shape is None:
        from .devices import get_current_device
        gpu = get_current_device()
        ring = _ring_bytes(itemsize)
        fits = tuple(gpu.compute_capability) >= (9, 0) and gpu.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN >= ring + 4096
        shape = _RING_SHAPES[key] = (_BLOCK + _WARP * _PRODUCERS, ring) if fits else (_BLOCK, 0)
    return shape


_RING_SHAPES = {}      # (device id, itemsize) -> pass 1's shape for a contiguous aligned input


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


_ZEROS = {}    # dtype -> its zero, init's default


def _init_value(init, dtype):
    """``init`` as a scalar of the reduced dtype (NumPy's conversion, and its errors)."""
    if type(init) is int and init == 0:
        zero = _ZEROS.get(dtype)
        if zero is None:
            zero = _ZEROS[dtype] = np.array(0, dtype=dtype)[()]
        return zero
    try:
        value = np.array(init, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:      # NumPy's conversion, as numba-cuda's dtype.type(init)
        raise type(e)(f"reduce: init {init!r:.60} cannot be converted to the array's dtype {dtype}: {e}") from None
    if value.ndim:
        raise TypeError(f"reduce: init must be a scalar, not {type(init).__name__} {init!r:.60}")
    return value[()]


def _count(size):
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"reduce: size must be an int, not {type(size).__name__}")
    if size < 0:
        raise ValueError(f"reduce: size must be >= 0, got {size}")
    return int(size)


def reduce(functor):
    """Numba's ``@cuda.reduce`` decorator: ``@cuda.reduce def add(a, b): return a + b`` then ``add(arr)``."""
    return Reduce(functor)


def _rebuild_reduce(payload, source):
    return Reduce(unpickled_function(payload, source))
