"""Exchange with other GPU array libraries: ``__cuda_array_interface__`` (v3) and DLPack.

``as_cuda_array`` views any object exposing the CUDA Array Interface (CuPy, PyTorch, JAX,
Numba) without a copy; ``from_dlpack`` does the same for DLPack producers.
"""
import numpy as np

from .. import _core
from .devicearray import DeviceNDArray, _backend_id


def is_cuda_array(obj):
    """True if ``obj`` exposes the CUDA Array Interface."""
    return hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A DeviceNDArray viewing the memory a CUDA Array Interface dict describes (no copy)."""
    if desc.get("mask") is not None:
        raise NotImplementedError("masked CUDA arrays are not supported")
    shape = tuple(desc["shape"])
    dtype = np.dtype(desc["typestr"])
    strides = desc.get("strides")
    if strides is None:
        from .devicearray import _c_strides
        strides = _c_strides(shape, dtype.itemsize)
    ptr, readonly = desc["data"]
    stream = desc.get("stream")
    if sync and stream not in (None, 0):
        # The producer's stream may still be writing: wait for it (CAI v3 semantics).
        _core.stream_synchronize(1 if stream == 1 else stream if stream != 2 else 2)
    view = DeviceNDArray._view_of(ptr or 0, shape, strides, dtype, owner, _backend_id())
    view._readonly = bool(readonly)              # kernels that write it do not compile (Numba's readonly arrays)
    return view


def as_cuda_array(obj, sync=True):
    """View ``obj`` (any ``__cuda_array_interface__`` exporter) as a DeviceNDArray, without a copy."""
    if isinstance(obj, DeviceNDArray):
        return obj
    if not is_cuda_array(obj):
        raise TypeError(f"{type(obj).__name__} does not expose __cuda_array_interface__")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


def from_dlpack(obj):
    """A DeviceNDArray sharing the memory of a DLPack producer (``__dlpack__``) or capsule."""
    if hasattr(obj, "__dlpack__"):
        capsule = obj.__dlpack__(stream=None) if _accepts_stream(obj) else obj.__dlpack__()
    else:
        capsule = obj
    ptr, shape, strides, typestr, dev_type, _dev_id, keep = _core.from_dlpack(capsule)
    if dev_type not in (1, 2, 3, 13):
        raise TypeError(f"DLPack device type {dev_type} is not a CUDA or CPU device")
    return DeviceNDArray._view_of(ptr, shape, strides, np.dtype(typestr), keep, _backend_id())


def _accepts_stream(obj):
    try:
        import inspect
        return "stream" in inspect.signature(obj.__dlpack__).parameters
    except (TypeError, ValueError):
        return True
