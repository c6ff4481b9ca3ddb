"""``numba.cuda.cudadrv.driver``: the driver-level classes, as cudajit has them (its driver is C++, so numba-cuda's
``driver`` object of ctypes entry points has no counterpart)."""
import ctypes as _ctypes

import numpy as np

from ... import _core as _core_mod
from ...errors import CudaAPIError  # noqa: F401
from ..devices import Context, Device, MemoryInfo  # noqa: F401
from ..emm import (BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager,  # noqa: F401
                   ManagedMemory, MappedMemory, MemoryPointer, PinnedMemory, _address, set_memory_manager)
from ..ipc import IpcHandle  # noqa: F401
from ..streams import Event, Stream, event_elapsed_time  # noqa: F401


def _have_nvjitlink():
    """numba-cuda's test of whether LTO-IR can be linked: a bool (nvJitLink loads)."""
    from ..nvjitlink import available
    return available()[0]


# --- numba-cuda's memory functions (numba.cuda.cudadrv.driver): raw copies and sets of byte ranges ---------------

def is_device_memory(obj):
    """True for an object that is device memory (numba's ``__cuda_memory__`` marker: MemoryPointer, device
    arrays)."""
    return getattr(obj, "__cuda_memory__", False)


def require_device_memory(obj):
    """Raises if ``obj`` is not device memory."""
    if not is_device_memory(obj):
        raise Exception("Not a CUDA memory object.")


def device_pointer(obj):
    """The device address of ``obj`` as an int: a MemoryPointer, a device array, any ``__cuda_array_interface__``
    object, or an int."""
    if isinstance(obj, int):
        return obj
    if hasattr(obj, "device_ctypes_pointer"):
        return _address(obj.device_ctypes_pointer)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0]
    raise TypeError(f"{type(obj).__name__} is not device memory (a MemoryPointer, a device array or an int address)")


def device_ctypes_pointer(obj):
    """``device_pointer(obj)`` as a ``ctypes.c_void_p``."""
    return _ctypes.c_void_p(device_pointer(obj))


def device_memory_size(devmem):
    """The bytes of a device memory object (its ``size`` or ``nbytes``)."""
    size = getattr(devmem, "_cuda_memsize_", None)
    if size is None:
        size = getattr(devmem, "nbytes", None)
    if size is None:
        raise TypeError(f"the size of {type(devmem).__name__} is not known")
    return size


def device_extents(devmem):
    """(first, one past the last) device address of ``devmem``."""
    start = device_pointer(devmem)
    return start, start + device_memory_size(devmem)


def host_pointer(obj, readonly=False):
    """The address of a host object's memory: an int, a ctypes object, or anything with the buffer protocol (a
    NumPy array: its data pointer)."""
    if isinstance(obj, int):
        return obj
    if isinstance(obj, _ctypes._SimpleCData) or isinstance(obj, (_ctypes.Structure, _ctypes.Union, _ctypes.Array)):
        return _ctypes.addressof(obj)
    if hasattr(obj, "__array_interface__"):
        return obj.__array_interface__["data"][0]
    view = memoryview(obj)
    if not readonly and view.readonly:
        raise TypeError("the host buffer is read-only")
    return np.frombuffer(view, np.uint8).ctypes.data if view.nbytes else 0


def host_memory_extents(obj):
    """(first, one past the last) address of a host object's memory."""
    start = host_pointer(obj, readonly=True)
    return start, start + host_memory_size(obj)


def host_memory_size(obj):
    """The bytes of a host object's memory (an array's extent, a ctypes object's size, a buffer's bytes)."""
    if isinstance(obj, (_ctypes._SimpleCData, _ctypes.Structure, _ctypes.Union, _ctypes.Array)):
        return _ctypes.sizeof(obj)
    if isinstance(obj, np.ndarray):
        if obj.size == 0:
            return 0
        lo = sum(min(0, (n - 1) * s) for n, s in zip(obj.shape, obj.strides))
        hi = sum(max(0, (n - 1) * s) for n, s in zip(obj.shape, obj.strides)) + obj.itemsize
        return hi - lo
    return memoryview(obj).nbytes


def _stream(stream):
    from ..streams import stream_handle
    return stream_handle(stream)


def _check_size(size, *limits):
    if isinstance(size, bool) or not hasattr(size, "__index__") or size.__index__() < 0:
        raise ValueError(f"size must be a non-negative int number of bytes, not {size!r}")
    size = size.__index__()
    for what, n in limits:
        if n is not None and size > n:
            raise ValueError(f"size {size} is more than the {n} bytes of {what}")
    return size


def _known_size(obj, host):
    try:
        return host_memory_size(obj) if host else device_memory_size(obj)
    except TypeError:
        return None


def host_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from host object ``src`` to device memory ``dst`` (synchronous on stream 0)."""
    size = _check_size(size, ("the destination", _known_size(dst, False)), ("the source", _known_size(src, True)))
    _core_mod.copy_htod_ptr(device_pointer(dst), host_pointer(src, readonly=True), size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)


def device_to_host(dst, src, size, stream=0):
    """Copy ``size`` bytes from device memory ``src`` to host object ``dst`` (synchronous on stream 0)."""
    size = _check_size(size, ("the destination", _known_size(dst, True)), ("the source", _known_size(src, False)))
    _core_mod.copy_dtoh_ptr(host_pointer(dst), device_pointer(src), size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)


def device_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes between device memories (synchronous on stream 0)."""
    size = _check_size(size, ("the destination", _known_size(dst, False)), ("the source", _known_size(src, False)))
    _core_mod.copy_dtod(device_pointer(dst), device_pointer(src), size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)


def device_memset(dst, val, size, stream=0):
    """Set ``size`` bytes of device memory ``dst`` to the byte ``val`` (synchronous on stream 0)."""
    size = _check_size(size, ("the destination", _known_size(dst, False)))
    _core_mod.memset(device_pointer(dst), val, size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)
