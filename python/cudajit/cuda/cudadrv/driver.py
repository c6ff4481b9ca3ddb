"""``numba.cuda.cudadrv.driver``: the driver-level classes, as cudajit has them (its driver is C++, so numba-cuda's
``driver`` object of ctypes entry points has no counterpart)."""
import ctypes as _ctypes

import numpy as np

from ... import _core as _core_mod
from ...errors import CudaAPIError  # noqa: F401
from ..devices import Context, Device, MemoryInfo  # noqa: F401
from ..emm import (BaseCUDAMemoryManager, HostOnlyCUDAMemoryManager,  # noqa: F401
                   ManagedMemory, MappedMemory, MemoryPointer, PinnedMemory, _address, _byte_value,
                   _check_not_freed, set_memory_manager)
from ..ipc import GetIpcHandleMixin, IpcHandle  # noqa: F401
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
    object, or an int (an address in [0, 2**64)). Memory that ``free()`` gave back raises ValueError."""
    if isinstance(obj, int):
        return _int_address(obj, "a device address")
    _check_not_freed(obj)
    if hasattr(obj, "device_ctypes_pointer"):
        return _address(obj.device_ctypes_pointer)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0]
    raise TypeError(f"{type(obj).__name__} is not device memory (a MemoryPointer, a device array or an int address)")


def _int_address(value, what):
    """An int used as an address: a TypeError for a bool, a ValueError outside [0, 2**64)."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not bool")
    if not 0 <= value < 1 << 64:
        raise ValueError(f"{what} must be a pointer value in [0, 2**64), not {value}")
    return value


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
    NumPy array: its data pointer, the address of its first element). Unless ``readonly``, the memory must be
    writable (as numba-cuda, which asks the buffer protocol for a writable buffer): a read-only array, a NumPy
    scalar or ``bytes`` raise TypeError."""
    if isinstance(obj, int):
        return _int_address(obj, "a host address")
    if isinstance(obj, _ctypes._SimpleCData) or isinstance(obj, (_ctypes.Structure, _ctypes.Union, _ctypes.Array)):
        return _ctypes.addressof(obj)
    if not readonly and (isinstance(obj, np.ndarray) and not obj.flags.writeable
                         or isinstance(obj, np.generic) and not isinstance(obj, np.void)):
        what = "NumPy scalar" if isinstance(obj, np.generic) else "read-only array"
        raise TypeError(f"the host buffer is read-only (a {what} cannot be copied into)")
    if hasattr(obj, "__array_interface__"):
        return obj.__array_interface__["data"][0]
    view = memoryview(obj)
    if not readonly and view.readonly:
        raise TypeError("the host buffer is read-only")
    return np.frombuffer(view, np.uint8).ctypes.data if view.nbytes else 0


def host_memory_extents(obj):
    """(first, one past the last) address of a host object's memory (an array with negative strides starts below
    its data pointer)."""
    start = host_pointer(obj, readonly=True)
    if isinstance(obj, np.ndarray) and obj.size:
        start += sum(min(0, (n - 1) * s) for n, s in zip(obj.shape, obj.strides))
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
    """The bytes that follow ``obj``'s pointer (None when not known: an int address). An array's end is its
    highest element's, so a view with negative strides has fewer bytes after its data pointer than it spans."""
    shape = getattr(obj, "shape", None)
    strides = getattr(obj, "strides", None)
    dtype = getattr(obj, "dtype", None)
    if (isinstance(obj, np.ndarray) or hasattr(obj, "__cuda_ndarray__")) and strides is not None:
        if any(n == 0 for n in shape):
            return 0
        return sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + np.dtype(dtype).itemsize
    try:
        return host_memory_size(obj) if host else device_memory_size(obj)
    except TypeError:
        return None


_NO_SOURCE = object()     # device_memset's copy has a destination only


def _operands(fn, dst, src, size, dst_host, src_host):
    """The addresses of a copy's operands after the checks: ``size`` within both (an int address: within memory
    the current backend knows, under the CPU backend this process's mapped pages), ``dst`` writable."""
    if not dst_host and getattr(dst, "_readonly", False):
        raise ValueError(f"{fn}: the destination is read-only (its producer exported it read-only: the "
                         f"__cuda_array_interface__ read-only flag or DLPack's)")
    operands = (("dst", dst, dst_host),) + ((("src", src, src_host),) if src is not _NO_SOURCE else ())
    size = _check_size(size, *((f"the {'destination' if role == 'dst' else 'source'}", _known_size(obj, host))
                               for role, obj, host in operands))
    out = []
    for role, obj, host in operands:
        addr = host_pointer(obj, readonly=role == "src") if host else device_pointer(obj)
        if isinstance(obj, int) and size:
            _core_mod.check_span_is_memory(addr, 0, size, f"{fn}: {role} address {addr:#x} with size {size}")
        out.append(addr)
    return size, out


def host_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from host object ``src`` to device memory ``dst`` (synchronous on stream 0)."""
    size, (d, s) = _operands("host_to_device", dst, src, size, False, True)
    _core_mod.copy_htod_ptr(d, s, size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)


def device_to_host(dst, src, size, stream=0):
    """Copy ``size`` bytes from device memory ``src`` to host object ``dst`` (synchronous on stream 0)."""
    size, (d, s) = _operands("device_to_host", dst, src, size, True, False)
    _core_mod.copy_dtoh_ptr(d, s, size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)


def device_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes between device memories (synchronous on stream 0)."""
    size, (d, s) = _operands("device_to_device", dst, src, size, False, False)
    _core_mod.copy_dtod(d, s, size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)


def device_memset(dst, val, size, stream=0):
    """Set ``size`` bytes of device memory ``dst`` to the byte ``val`` (synchronous on stream 0)."""
    val = _byte_value(val, "device_memset")
    size, (d,) = _operands("device_memset", dst, _NO_SOURCE, size, False, False)
    _core_mod.memset(d, val, size, _stream(stream))
    if not stream:
        _core_mod.stream_synchronize(0)
