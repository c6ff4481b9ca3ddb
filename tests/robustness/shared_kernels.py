"""Kernels and helpers many robustness cases share: one definition (one source file and line) per kernel, so
the disk cache compiles each specialization once per run, whichever case's child gets there first."""
import ctypes

import numpy as np

from cudajit import cuda


@cuda.jit
def noop():
    pass


@cuda.jit
def add_one(arr):
    i = cuda.grid(1)
    if i < arr.size:
        arr[i] += 1


@cuda.jit
def scale(out, src, factor):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = src[i] * factor


@cuda.jit
def write_index(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i


@cuda.jit
def write_index_2d(out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = i * 1000 + j


@cuda.jit
def add_2d(out, lhs, rhs):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = lhs[i, j] + rhs[i, j]


@cuda.jit
def store_scalar(out, value):
    out[0] = value


@cuda.jit
def sum_pair(out, pair):
    out[0] = pair[0] + pair[1]


@cuda.jit
def dynamic_shared_copy(out, src):
    buf = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    buf[t] = src[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


@cuda.jit
def block_sum(out, src):
    # One block: a shared-memory tree reduction (needs every thread at each barrier).
    buf = cuda.shared.array(256, dtype=np.float64)
    t = cuda.threadIdx.x
    buf[t] = src[t] if t < src.size else 0.0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[0] = buf[0]


@cuda.jit
def count_threads(counter):
    cuda.atomic.add(counter, 0, 1)


# --- foreign arrays ------------------------------------------------------------------------------------------------

class CAI:
    """An object exposing ``__cuda_array_interface__``: a real array's description with fields replaced
    (``shape=...``) or removed (``drop=("shape",)``). The array is kept alive with the object."""

    def __init__(self, base, drop=(), **fields):
        self.base = base
        desc = dict(base.__cuda_array_interface__)
        desc.setdefault("strides", None)
        desc.update(fields)
        for key in drop:
            desc.pop(key, None)
        self.__cuda_array_interface__ = desc


def device_pair(n=16, dtype=np.float64, seed=7):
    """(host, device) arrays holding the same random data."""
    host = np.random.default_rng(seed).standard_normal(n).astype(dtype)
    return host, cuda.to_device(host)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_KEEP = []   # crafted tensors must outlive the capsules that point at them (a case's process is short)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)


def dl_capsule(host=None, data=None, shape=None, strides=None, ndim=None, code=None, bits=None, lanes=1,
               device_type=1, device_id=0, byte_offset=0, null_shape=False, name=b"dltensor"):
    """A hand-made DLPack capsule: by default one describing ``host`` (a NumPy array) as CPU memory; any
    field may be overridden to describe a malformed tensor."""
    if host is not None:
        data = host.ctypes.data if data is None else data
        shape = host.shape if shape is None else shape
        if strides is None:
            strides = tuple(s // host.itemsize for s in host.strides)
        code = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}[host.dtype.kind] if code is None else code
        bits = host.dtype.itemsize * 8 if bits is None else bits
    shape = tuple(shape or ())
    ndim = len(shape) if ndim is None else ndim
    shape_arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    strides_arr = None if strides in (None, "null") else (ctypes.c_int64 * max(len(strides), 1))(*strides)
    t = _DLManagedTensor()
    t.dl_tensor.data = data or None
    t.dl_tensor.device = _DLDevice(device_type, device_id)
    t.dl_tensor.ndim = ndim
    t.dl_tensor.dtype = _DLDataType(code if code is not None else 2, bits if bits is not None else 64, lanes)
    t.dl_tensor.shape = None if null_shape else ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    t.dl_tensor.strides = None if strides_arr is None else ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    t.dl_tensor.byte_offset = byte_offset
    _KEEP.extend((t, shape_arr, strides_arr, host))
    return _capsule_new(ctypes.addressof(t), name, None)


class DLProducer:
    """An object with ``__dlpack__``/``__dlpack_device__`` handing out a given capsule."""

    def __init__(self, capsule, device=(1, 0)):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device
