"""numba-cuda's helper functions of its ``cuda.devicearray`` module (``auto_device``, ``is_cuda_ndarray``,
``sentry_contiguous`` ...), which libraries written for Numba call. They are found as attributes of
``cudajit.cuda.devicearray`` (numba-cuda's ``cuda.devicearray`` is its ``cudadrv.devicearray``: this module
installs them there, the layer below it) and of ``cudajit.cuda.cudadrv.devicearray``."""
import numpy as np

from . import devicearray as _devicearray
from .arrays import MappedNDArray
from .devicearray import DeviceNDArray, DeviceRecord
from .interop import as_cuda_array, is_cuda_array

DeviceNDArrayBase = DeviceNDArray    # numba-cuda's base class of its device arrays: isinstance checks hold

_NOT_CONTIGUOUS = ("Array contains non-contiguous buffer and cannot be transferred as a single memory region. "
                   "Please ensure contiguous buffer with numpy .ascontiguousarray()")


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialised device array with ``ary``'s shape, strides and dtype (or viewing ``gpu_data``)."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


def from_record_like(rec, stream=0, gpu_data=None):
    """An uninitialised DeviceRecord of ``rec``'s dtype (a NumPy record or a DeviceRecord), or viewing
    ``gpu_data``."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


def is_cuda_ndarray(obj):
    """True for Numba's own device arrays (cudajit's, and the mapped and managed arrays), which carry
    ``__cuda_ndarray__``; False for other libraries' CUDA arrays and for NumPy arrays."""
    return bool(getattr(obj, "__cuda_ndarray__", False)) or isinstance(obj, MappedNDArray)


def require_cuda_ndarray(obj):
    """ValueError unless ``is_cuda_ndarray(obj)``."""
    if not is_cuda_ndarray(obj):
        raise ValueError(f"require a CUDA ndarray object, not {type(obj).__name__}")


def verify_cuda_ndarray_interface(obj):
    """``require_cuda_ndarray``, then AttributeError unless ``obj`` has a tuple shape and strides, an np.dtype
    dtype and an int size."""
    require_cuda_ndarray(obj)
    for attr, kind in (("shape", tuple), ("strides", tuple), ("dtype", np.dtype), ("size", int)):
        if not hasattr(obj, attr):
            raise AttributeError(attr)
        if not isinstance(getattr(obj, attr), kind):
            raise AttributeError(f"{attr} must be of type {kind}")


def array_core(ary):
    """``ary`` without its broadcast axes (stride 0), each taken at index 0: the memory it really spans."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def is_contiguous(ary):
    """True when ``ary`` is C-contiguous once its axes of length 1 and its broadcast axes are left out."""
    expected = ary.dtype.itemsize
    for n, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if n > 1 and stride != 0:
            if stride != expected:
                return False
            expected *= n
    return True


def sentry_contiguous(ary):
    """ValueError unless ``array_core(ary)`` is C- or F-contiguous, so that one copy can move it."""
    core = array_core(ary)
    if not (core.flags["C_CONTIGUOUS"] or core.flags["F_CONTIGUOUS"]):
        raise ValueError(_NOT_CONTIGUOUS)


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """``(device array, copied)``: ``obj`` itself when it is device memory (``copied`` False), a view of another
    library's CUDA array, else a new device array made from ``np.asarray(obj)`` (a scalar gives a 0-d array) and,
    with ``copy``, holding its data (``copied`` True). ``user_explicit`` is accepted as numba-cuda's is."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if is_cuda_array(obj) and not isinstance(obj, np.ndarray):
        return as_cuda_array(obj), False
    if isinstance(obj, MappedNDArray):
        return as_cuda_array(obj), False
    if isinstance(obj, np.void) and obj.dtype.names is not None:
        device = from_record_like(obj, stream=stream)
        if copy:
            device.copy_to_device(obj, stream=stream)
        return device, True
    host = np.asarray(obj)
    sentry_contiguous(host)
    device = from_array_like(host, stream=stream)
    if copy:
        device.copy_to_device(host, stream=stream)
    return device, True


def check_array_compatibility(ary1, ary2):
    """TypeError for different dtypes, ValueError for different shapes or strides once axes of length 1 are
    squeezed out (strides only when there are elements): whether one array can be copied onto the other."""
    sq1, sq2 = ary1.squeeze(), ary2.squeeze()
    if ary1.dtype != ary2.dtype:
        raise TypeError(f"incompatible dtype: {ary1.dtype} vs. {ary2.dtype}")
    if sq1.shape != sq2.shape:
        raise ValueError(f"incompatible shape: {ary1.shape} vs. {ary2.shape}")
    if ary1.size and sq1.strides != sq2.strides:
        raise ValueError(f"incompatible strides: {ary1.strides} vs. {ary2.strides}")


for _name in _devicearray._NUMBA_HELPERS:        # installs them on cuda.devicearray
    setattr(_devicearray, _name, globals()[_name])
