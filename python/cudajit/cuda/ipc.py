"""CUDA IPC: sharing device memory with other processes on the same machine (numba.cuda's API).

The exporting process calls ``darr.get_ipc_handle()`` (an :class:`IpcArrayHandle`) or
``cuda.current_context().get_ipc_handle(memory)`` (an :class:`IpcHandle`), pickles it and sends it to another
process, which opens it: ``with handle as darr: ...`` or ``handle.open()`` / ``handle.close()``. The memory is shared,
not copied: writes on either side are seen by the other once the writer's work is complete (synchronize before
telling the other process). The exporter must keep the array alive while others have it open.

``handle.reserved`` holds the bytes that name the memory. For cudajit's own device memory, which comes from a
stream-ordered pool, they are cudajit's (the pool's export data, and the Unix socket on which the exporting process
hands out the pool: src/ipc.cpp); for ``cuMemAlloc`` memory (an EMM plugin's, another library's) they are a legacy
``CUipcMemHandle`` of 64 bytes, which ``cuda.open_ipc_array`` also opens when another library made it.

The CPU backend has no IPC: its device memory is the process's own heap (CudaSupportError, as numba-cuda's
simulator has none).
"""
import contextlib

import numpy as np

from .. import _backend, _core
from ..errors import CudaSupportError
from . import devicearray, devices


def _require_gpu(what):
    if _backend.current().is_cpu:
        raise CudaSupportError(f"{what}: CUDA IPC needs a GPU; under the CPU backend device memory is this "
                               f"process's own memory, which other processes cannot open")


def _handle_bytes(handle):
    """The handle's bytes from bytes, a bytearray, a sequence of ints (signed or not) or an object with
    ``.reserved`` (a CUipcMemHandle)."""
    raw = getattr(handle, "reserved", handle)
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw)
    try:
        if isinstance(raw, str):                # a str iterates into characters
            raise TypeError
        return bytes(int(b) & 0xFF for b in raw)
    except (TypeError, ValueError):
        raise TypeError(f"an IPC handle must be bytes or a sequence of byte values, not {type(handle).__name__}") \
            from None


class IpcMemHandle:
    """The bytes that name shared memory (numba-cuda's ``CUipcMemHandle``): ``reserved``."""

    __slots__ = ("reserved",)

    def __init__(self, reserved):
        self.reserved = _handle_bytes(reserved)

    def __eq__(self, other):
        return isinstance(other, IpcMemHandle) and other.reserved == self.reserved

    def __hash__(self):
        return hash(self.reserved)

    def __repr__(self):
        kind = "legacy" if _core.ipc_is_legacy(self.reserved) else "cudajit pool"
        return f"<IpcMemHandle ({kind}, {len(self.reserved)} bytes)>"


def _address(memory):
    """(address, bytes) of an allocation object: cudajit's DeviceBuffer, an EMM MemoryPointer, anything with a
    ``device_pointer`` and a ``size``, or another library's array (``__cuda_array_interface__``: the bytes it spans;
    what ``gpu_data`` is for an array made by ``cuda.as_cuda_array``)."""
    from .emm import _address as pointer_value
    if isinstance(memory, _core.DeviceBuffer):
        return memory.ptr, memory.nbytes
    if hasattr(memory, "device_pointer"):
        return pointer_value(memory.device_pointer), int(memory.size)
    cai = getattr(memory, "__cuda_array_interface__", None)   # another library's array owning the memory
    if cai is not None:
        from .interop import as_cuda_array
        view = as_cuda_array(memory)
        lo, hi = view._extent()
        return view._ptr + lo, hi - lo
    raise TypeError(f"get_ipc_handle: memory must be device memory (a DeviceBuffer or MemoryPointer), "
                    f"not {type(memory).__name__}")


def export(memory, context=None, ptr=None, size=None):
    """An :class:`IpcHandle` for ``size`` bytes at ``ptr`` (by default all of ``memory``), on ``context``'s device;
    ``memory`` is kept alive by the handle (its ``base``) in this process."""
    _require_gpu("get_ipc_handle")
    from .devices import current_context
    context = current_context() if context is None else context
    if ptr is None:
        ptr, size = _address(memory)
    device = getattr(memory, "device", None)
    device = device if isinstance(device, int) and device >= 0 else _core.pointer_device(ptr)
    if device < 0:
        raise ValueError("get_ipc_handle: the memory is not device memory of one GPU (managed or host memory "
                         "cannot be shared through CUDA IPC)")
    from .emm import MemoryPointer
    root = memory.owner if isinstance(memory, MemoryPointer) else memory     # a view's allocation
    own = isinstance(root, _core.DeviceBuffer) and root.external is None     # from cudajit's pool: its start
    raw, offset = _core.ipc_export(ptr, device, root.ptr if own else 0)
    from .devices import gpus
    return IpcHandle(memory, IpcMemHandle(raw), size, gpus[device].get_device_identity(), offset)


class IpcHandle:
    """A handle to device memory of another process (numba-cuda's ``IpcHandle``): ``handle.reserved`` its bytes,
    ``size`` the bytes shared, ``offset`` where they start in the allocation, ``source_info`` the device's identity.
    Picklable; in the process that made it, ``base`` keeps the memory alive (None once unpickled)."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle if isinstance(handle, IpcMemHandle) else IpcMemHandle(handle)
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened = None   # (device ordinal, staged copy or None) while open

    def _source_device(self):
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")
        from .devices import Device
        return Device.from_identity(self.source_info)

    def can_access_peer(self, context):
        """True when ``context``'s device is the memory's own."""
        return self.source_info is None or self.source_info == context.device.get_device_identity()

    def _check_closed(self):
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")

    def open_direct(self, context):
        """Map the memory into ``context``'s device; a MemoryPointer to the shared bytes."""
        from .emm import MemoryPointer
        _require_gpu("IpcHandle.open")
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        self._check_closed()
        device = context.device.id
        ptr = _core.ipc_open(self.handle.reserved, device)
        self._opened = (device, None)
        return MemoryPointer(context, ptr + self.offset, self.size, owner=self)

    def open_staged(self, context):
        """A copy of the memory on ``context``'s device, made through the device the memory is on (for a device
        that cannot map it). Writes to the copy are not seen by the other process."""
        _require_gpu("IpcHandle.open_staged")
        self._check_closed()
        source = self._source_device()
        with source:
            src = self.open_direct(source.get_primary_context())
            try:
                mem = context.memalloc(self.size)
                _core.copy_dtod(mem.device_pointer, src.device_pointer, self.size, 0, context.device.id, source.id)
                _core.stream_synchronize(0, context.device.id)
            finally:
                self.close()
        self._opened = (context.device.id, mem)
        return mem

    def open(self, context):
        """Open the handle for ``context``'s device: the memory itself where that device can map it, else a copy
        (``open_staged``). A MemoryPointer."""
        try:
            return self.open_direct(context)
        except CudaSupportError:
            raise
        except Exception:
            if self.can_access_peer(context):   # the memory's own device: nothing to stage through
                raise
            return self.open_staged(context)

    def open_array(self, context, shape, dtype, strides=None):
        """``open(context)`` as a DeviceNDArray of ``shape`` and ``dtype`` (C-contiguous unless ``strides``)."""
        from .devicearray import DeviceNDArray
        return DeviceNDArray(shape=shape, strides=strides, dtype=np.dtype(dtype), gpu_data=self.open(context))

    def close(self):
        """Unmap the memory (the last open handle to it in this process unmaps it)."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        device, staged = self._opened
        self._opened = None
        if staged is None:
            _core.ipc_close(self.handle.reserved, device)

    def __reduce__(self):
        return (_rebuild_handle, (self.handle.reserved, self.size, self.source_info, self.offset))


def _rebuild_handle(raw, size, source_info, offset):
    return IpcHandle(None, IpcMemHandle(raw), size, source_info, offset)


class IpcArrayHandle:
    """An array shared with other processes (numba-cuda's): pickle it to another process, then ``open()`` it there
    (a DeviceNDArray over the same memory) and ``close()`` it, or ``with handle as darr:``."""

    def __init__(self, ipc_handle, array_desc, first=0):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc
        self._first = first      # bytes from the lowest byte the array spans to its first element

    def open(self):
        """A DeviceNDArray over the shared memory; not in the process that made the handle."""
        from .devicearray import DeviceNDArray
        from .devices import current_context
        mem = self._ipc_handle.open(current_context())
        desc = self._array_desc
        dtype = np.dtype(desc["dtype"])
        return DeviceNDArray._view_of(mem.device_pointer + self._first, desc["shape"], desc["strides"], dtype,
                                      mem, 0, device=self._ipc_handle._opened[0])

    def close(self):
        """Close the shared memory; arrays from ``open()`` must not be used after."""
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def __reduce__(self):
        return (IpcArrayHandle, (self._ipc_handle, self._array_desc, self._first))


def array_handle(darr):
    """``darr.get_ipc_handle()``: an IpcArrayHandle for the bytes the array spans (the EMM plugin's handle where a
    plugin allocated the memory)."""
    _require_gpu("get_ipc_handle")
    from .devices import current_context, gpus
    lo_rel, hi_rel = darr._extent()         # bytes from the first element to the lowest and past the highest
    lo, size = darr._ptr + lo_rel, hi_rel - lo_rel
    context = gpus[darr._device].get_primary_context() if darr._device >= 0 else current_context()
    mem = darr._allocation()
    mgr = context.memory_manager
    if mgr is not None and not isinstance(mem, _core.DeviceBuffer) and hasattr(mem, "device_pointer"):
        handle = mgr.get_ipc_handle(mem)           # the plugin's handle to the whole allocation
        handle.offset += lo - _address(mem)[0]
        handle.size = size
    else:
        handle = export(mem, context, ptr=lo, size=size)
    handle.base = darr         # keeps the memory (and any foreign owner) alive
    desc = dict(shape=tuple(darr.shape), strides=tuple(darr.strides), dtype=darr.dtype)
    return IpcArrayHandle(handle, desc, -lo_rel)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """numba.cuda's ``open_ipc_array``: open an IPC handle's bytes (``bytes``, a sequence of ints, or a handle's
    ``reserved``: a legacy CUipcMemHandle from any library, or cudajit's) as a device array of ``shape`` and
    ``dtype`` (C-contiguous unless ``strides``) starting ``offset`` bytes into the allocation; closed when the
    block ends."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    from .devices import current_context
    ipch = IpcHandle(None, IpcMemHandle(handle), size, offset=offset)
    darr = ipch.open_array(current_context(), shape=shape, dtype=dtype, strides=strides)
    try:
        yield darr
    finally:
        ipch.close()


class GetIpcHandleMixin:
    """numba.cuda's mixin that gives a plugin ``get_ipc_handle``: a legacy CUDA IPC handle (cuIpcGetMemHandle) of
    the allocation under ``memory``, for plugins whose memory comes from cuMemAlloc."""

    def get_ipc_handle(self, memory):
        """An IpcHandle for ``memory`` (a MemoryPointer this plugin allocated)."""
        return export(memory, self.context)


devices.ipc_export = export                   # installs Context.get_ipc_handle's (devices.py is a layer below)
devicearray.ipc_array_handle = array_handle   # installs DeviceNDArray.get_ipc_handle's
