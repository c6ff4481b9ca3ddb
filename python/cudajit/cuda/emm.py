"""numba.cuda's External Memory Management (EMM) plugin interface: ``cuda.set_memory_manager(Plugin)`` makes every
device allocation come from ``Plugin.memalloc`` (the plugin's pool, RMM-style), and pinned or mapped host memory from
``memhostalloc`` / ``mempin``. numba-cuda's documentation ("External Memory Management plugin interface") is the
specification; what differs here:

- cudajit's own temporaries (the staging of NumPy kernel arguments included) are device arrays, so they come from
  the plugin too; managed memory (``cuda.managed_array``) stays cudajit's, as numba-cuda's does.
- A plugin may be set at any time: arrays made before keep the memory they have, and later ones use the plugin.
  ``set_memory_manager(None)`` goes back to cudajit's pool.
- The memory a plugin hands out lives while any array over it does: ``MemoryPointer.own()`` is the pointer itself,
  and ``HostOnlyCUDAMemoryManager.reset()`` frees nothing that an array still uses.
- ``GetIpcHandleMixin`` (in cuda/ipc.py) gives a plugin ``get_ipc_handle``.

The hook itself is in the C++ core (src/external_alloc.*): while a plugin is set, each ``DeviceBuffer`` calls
``_allocate`` below and keeps the object it returns; dropping that object is the plugin's free.
"""
import contextlib
import ctypes
import importlib
import weakref
from abc import ABCMeta, abstractmethod

import numpy as np

from .. import _backend, _core, config
from .streams import stream_handle

SUPPORTED_INTERFACE_VERSION = 1

_plugin = None      # the class given to set_memory_manager
_managers = {}      # device ordinal -> the plugin's instance for it (made and initialized on first use)
_env_checked = False


def _address(pointer):
    """An int from what numba's EMM classes take as a pointer: an int, a ctypes pointer or integer (``.value``),
    or cuda-python's ``CUdeviceptr`` (``int()``)."""
    if isinstance(pointer, int):
        return pointer
    if pointer is None or isinstance(pointer, ctypes._SimpleCData):  # c_void_p(None).value is None
        return getattr(pointer, "value", None) or 0
    try:
        return int(pointer)
    except (TypeError, ValueError):
        raise TypeError(f"a memory pointer must be an int, a ctypes pointer or a CUdeviceptr, not "
                        f"{type(pointer).__name__}") from None


class MemoryPointer:
    """Device memory an EMM plugin hands out (numba.cuda's ``MemoryPointer``): ``pointer`` its address, ``size``
    its bytes, ``owner`` what keeps it alive, ``finalizer`` called once to free it, when the pointer is garbage
    collected or at ``free()``."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = pointer
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.handle = pointer
        self._owner = owner
        if finalizer is not None:
            self._finalizer = weakref.finalize(self, finalizer)

    @property
    def owner(self):
        """What keeps the memory alive: the ``owner`` given, or the pointer itself."""
        return self if self._owner is None else self._owner

    @property
    def ptr(self):
        """The address as an int (what ``DeviceNDArray(..., gpu_data=pointer)`` reads)."""
        return _address(self.device_pointer)

    @property
    def device_pointer_value(self):
        """The address as an int; None for a null pointer (Numba's)."""
        return _address(self.device_pointer) or None

    @property
    def device_ctypes_pointer(self):
        """The address as a ``ctypes.c_size_t``."""
        return ctypes.c_size_t(_address(self.device_pointer))

    def own(self):
        """The pointer itself: the memory lives as long as anything holds it."""
        return self

    def free(self):
        """Free the memory now (its finalizer); a second ``free`` raises RuntimeError, as in Numba. The driver's
        copies (``cudadrv.driver``), ``memset`` and ``view`` refuse freed memory."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise RuntimeError("Freeing dead memory")
            self._finalizer()
            self._freed = True

    def _check_alive(self, what):
        try:
            _check_not_freed(self)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None

    def memset(self, byte, count=None, stream=0):
        """Set ``count`` bytes (all by default) to ``byte``, on ``stream``."""
        byte = _byte_value(byte, "memset")
        count = self.size if count is None else _index(count, "memset: count")
        if not 0 <= count <= self.size:
            raise ValueError(f"memset: count {count} is outside this allocation of {self.size} bytes")
        self._check_alive("memset")
        _core.memset(_address(self.device_pointer), byte, count, stream_handle(stream))

    def view(self, start, stop=None):
        """A pointer to bytes [start, stop) of this memory, keeping it alive."""
        start = _index(start, "view: start")
        stop = self.size if stop is None else _index(stop, "view: stop")
        if not 0 <= start <= stop <= self.size:
            raise ValueError(f"view({start}, {stop}) is outside this allocation of {self.size} bytes")
        self._check_alive("view")
        return MemoryPointer(self.context, _address(self.device_pointer) + start, stop - start, owner=self.owner)


def _index(value, what):
    """An int argument (anything with ``__index__`` but a bool): a TypeError naming ``what`` otherwise."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return value.__index__()


def _byte_value(value, what):
    """The byte a memset writes: an int in [0, 255] (CUDA's cuMemsetD8 takes an unsigned char)."""
    if not hasattr(value, "__index__"):
        raise TypeError(f"{what}: the value must be an int byte in [0, 255], not {type(value).__name__}")
    value = value.__index__()
    if not 0 <= value <= 255:
        raise ValueError(f"{what}: the value must be a byte in [0, 255], not {value}")
    return value


class _HostBytes:
    """Memory the host reaches at ``host_pointer``: NumPy views its bytes (``np.asarray``), and on Python 3.12+ it is
    a writable buffer (``np.ndarray(buffer=mem)``, ``memoryview(mem)``)."""

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (_address(self.host_pointer), False),
                "version": 3}

    def __buffer__(self, flags):
        raw = (ctypes.c_ubyte * self.size).from_address(_address(self.host_pointer))
        raw.keep = self            # the view keeps the memory alive
        return memoryview(raw).cast("B")


class _HostMemory(_HostBytes, MemoryPointer):
    """Page-locked host memory: ``host_pointer`` its address."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None, device_pointer=None):
        super().__init__(context, pointer if device_pointer is None else device_pointer, size, finalizer=finalizer)
        self.owned = owner
        self.host_pointer = pointer
        self.handle = pointer


class PinnedMemory(_HostMemory):
    """Pinned (page-locked) host memory from an EMM plugin (numba.cuda's ``PinnedMemory``)."""


class MappedMemory(_HostMemory):
    """Pinned host memory mapped into the device's address space (numba.cuda's ``MappedMemory``): kernels reach it
    at ``device_pointer``."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        super().__init__(context, pointer, size, owner, finalizer,
                         device_pointer=_core.host_device_pointer(_address(pointer)))


class ManagedMemory(_HostBytes, MemoryPointer):
    """Managed (unified) memory (numba.cuda's ``ManagedMemory``): the same address on the host and the device."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        super().__init__(context, pointer, size, owner=owner, finalizer=finalizer)
        self.host_pointer = pointer


def _freed_with(obj):
    """(holder, finalizer): a list holding ``obj`` and the call that drops it, so that ``free()`` frees it."""
    holder = [obj]
    return holder, holder.clear


def own_device_memory(context, size):
    """``size`` bytes of cudajit's device memory on ``context``'s device, as a MemoryPointer whose ``free()`` (or
    garbage collection) gives them back (``Context.memalloc`` without a plugin)."""
    size = _byte_count(size, "memalloc")
    with context.device:
        buffer = _core.DeviceBuffer(size)
    _, release = _freed_with(buffer)
    return MemoryPointer(context, buffer.ptr, size, finalizer=release)


def own_host_memory(context, size, mapped=False):
    """``size`` bytes of cudajit's page-locked host memory (mapped into every device when ``mapped``)."""
    size = _byte_count(size, "memhostalloc")
    buffer = _core.HostBuffer(size, "mapped" if mapped else "pinned")
    _, release = _freed_with(buffer)
    cls = MappedMemory if mapped else PinnedMemory
    return cls(context, buffer.host_ptr, size, owner=buffer, finalizer=release)


def own_managed_memory(context, size):
    """``size`` bytes of managed memory, reachable from the host and every device (``Context.memallocmanaged``)."""
    size = _byte_count(size, "memallocmanaged")
    buffer = _core.HostBuffer(size, "managed")
    _, release = _freed_with(buffer)
    return ManagedMemory(context, buffer.host_ptr, size, finalizer=release)


def pin_host_memory(context, owner, pointer, size, mapped=False):
    """Page-lock existing host memory until the returned object's ``free()`` or its garbage collection."""
    address, size = _address(pointer), _byte_count(size, "mempin")
    # under the CPU backend the pages must be this process's (a GPU registration fails on its own)
    _core.check_span_is_memory(address, 0, size, f"mempin: pointer {address:#x} with size {size}")
    registration = _core.HostRegistration(address, size, mapped)
    cls = MappedMemory if mapped else PinnedMemory
    return cls(context, pointer, size, owner=owner, finalizer=registration.release)


def _byte_count(size, what):
    if isinstance(size, bool) or not hasattr(size, "__index__"):
        raise TypeError(f"{what}: size must be an int number of bytes, not {type(size).__name__}")
    size = size.__index__()
    if size < 0:
        raise ValueError(f"{what}: size must not be negative, got {size}")
    if size >= 1 << 63:
        raise ValueError(f"{what}: size {size} is more bytes than any memory holds (2**63 or more)")
    return size


class BaseCUDAMemoryManager(metaclass=ABCMeta):
    """Abstract base class of EMM plugins (numba.cuda's). cudajit makes one instance per device, with
    ``context=`` that device's context, and calls ``initialize()`` before its first allocation."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abstractmethod
    def memalloc(self, size):
        """``size`` bytes of device memory in the current context, as a MemoryPointer that owns them."""

    @abstractmethod
    def memhostalloc(self, size, mapped, portable, wc):
        """``size`` bytes of pinned host memory: MappedMemory when ``mapped``, else PinnedMemory."""

    @abstractmethod
    def mempin(self, owner, pointer, size, mapped):
        """Pin the host memory at ``pointer`` (``size`` bytes, kept alive by ``owner``): MappedMemory or
        PinnedMemory, whose ``free()`` unpins it."""

    @abstractmethod
    def initialize(self):
        """Called once before the plugin's first allocation."""

    @abstractmethod
    def get_ipc_handle(self, memory):
        """An IPC handle (cuda/ipc.py's IpcHandle) for ``memory``, which this plugin allocated
        (``Context.get_ipc_handle`` and ``DeviceNDArray.get_ipc_handle`` call it while the plugin is set)."""

    @abstractmethod
    def get_memory_info(self):
        """``MemoryInfo(free, total)`` in bytes (``Context.get_memory_info`` returns it)."""

    @abstractmethod
    def reset(self):
        """Free what the plugin allocated in this context (``Context.reset`` calls it)."""

    @abstractmethod
    def defer_cleanup(self):
        """A context manager that holds frees back while it is active (``cuda.defer_cleanup``)."""

    @property
    @abstractmethod
    def interface_version(self):
        """The EMM interface version the plugin implements: 1."""


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Base class of plugins that manage device memory only: pinned and mapped host memory stay cudajit's. A
    subclass implements ``memalloc``, ``initialize``, ``get_ipc_handle``, ``get_memory_info`` and
    ``interface_version``; one that overrides ``reset`` or ``defer_cleanup`` calls ``super()``'s."""

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """cudajit's page-locked host memory (portable: every device reaches it), freed with the returned
        object."""
        return own_host_memory(self.context, size, mapped)

    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock existing host memory until the returned object's ``free()`` or its garbage collection."""
        return pin_host_memory(self.context, owner, pointer, size, mapped)

    def reset(self):
        """Host memory allocated here goes with the last array over it, so there is nothing to free early."""

    @contextlib.contextmanager
    def defer_cleanup(self):
        """cudajit never synchronizes to free host memory, so there is nothing to defer."""
        yield


def set_memory_manager(mm_plugin):
    """Make device allocations come from the EMM plugin class ``mm_plugin`` (numba.cuda's): a RuntimeError when
    its ``interface_version`` is not 1. ``None`` goes back to cudajit's own pool."""
    global _plugin
    if mm_plugin is None:
        _core.set_device_allocator(None)
        _plugin = None
        _managers.clear()
        return
    if not isinstance(mm_plugin, type):
        raise TypeError(f"set_memory_manager needs a class (a BaseCUDAMemoryManager subclass), not "
                        f"{type(mm_plugin).__name__}")
    try:
        version = mm_plugin(context=None).interface_version
    except (TypeError, AttributeError) as e:
        raise TypeError(f"set_memory_manager({mm_plugin.__name__}): not an EMM plugin class (one that implements "
                        f"BaseCUDAMemoryManager's methods): {e}") from e
    if version != SUPPORTED_INTERFACE_VERSION:
        raise RuntimeError(f"EMM Plugin interface has version {version} - version "
                           f"{SUPPORTED_INTERFACE_VERSION} required")
    _plugin = mm_plugin
    _managers.clear()
    _core.set_device_allocator(_allocate)


def set_from_environment():
    """NUMBA_CUDA_MEMORY_MANAGER (``config.CUDA_MEMORY_MANAGER``): the module whose ``_numba_memory_manager`` is the
    plugin, set once when the backend is decided, before the first allocation, unless a plugin is set already."""
    global _env_checked
    if _env_checked:
        return
    _env_checked = True
    name = config.CUDA_MEMORY_MANAGER
    if _plugin is not None or name in ("", "default"):
        return
    try:
        plugin = importlib.import_module(name)._numba_memory_manager
    except Exception as e:
        raise RuntimeError(f"Failed to use memory manager from {name} (NUMBA_CUDA_MEMORY_MANAGER): {e}") from e
    set_memory_manager(plugin)


_backend.when_set(set_from_environment)


def context_of(device):
    """The numba-style Context of device number ``device`` that a plugin is made with: devices.py, the layer above,
    installs it (this layer imports nothing above it)."""
    raise RuntimeError("cudajit.cuda.devices is not imported: no Context to give the memory manager")


def manager(device=None):
    """The plugin's instance for ``device`` (the current one by default), made and initialized on first use; None
    when no plugin is set."""
    if _plugin is None:
        return None
    if device is None:
        device = _backend.current().device()
    mgr = _managers.get(device)
    if mgr is None:
        mgr = _plugin(context=context_of(device))
        mgr.initialize()
        _managers[device] = mgr
    return mgr


def _allocate(nbytes, device):
    """The C++ core's allocator while a plugin is set: (address, the plugin's MemoryPointer)."""
    mgr = manager(max(device, 0))
    memory = mgr.memalloc(nbytes)
    address = _address(getattr(memory, "device_pointer", None))
    if not address:
        raise MemoryError(f"{type(mgr).__name__}.memalloc({nbytes}) returned {memory!r}, whose device_pointer is null")
    size = getattr(memory, "size", nbytes)
    if size < nbytes:
        raise MemoryError(f"{type(mgr).__name__}.memalloc({nbytes}) returned {size} bytes")
    return address, memory


def host_allocation(nbytes, mapped):
    """Pinned (or mapped) host memory from the plugin, as a uint8 NumPy array that keeps it alive; None when no
    plugin is set (cudajit's own HostBuffer then)."""
    mgr = manager()
    if mgr is None:
        return None
    memory = mgr.memhostalloc(nbytes, mapped, False, False)
    return np.asarray(_HostView(memory, mapped))


class _HostView:
    """What a mapped array's ``__cuda_array_interface__`` needs of the memory under it (``host_ptr``,
    ``device_ptr``), over an EMM plugin's PinnedMemory or MappedMemory."""

    def __init__(self, memory, mapped):
        self.memory = memory
        self.host_ptr = _address(memory.host_pointer)
        self.device_ptr = _address(memory.device_pointer) if mapped else 0
        self.__array_interface__ = {"shape": (memory.size,), "typestr": "|u1", "data": (self.host_ptr, False),
                                    "version": 3}


class Registration:
    """``cuda.pinned`` / ``cuda.mapped`` over a plugin's ``mempin``: what arrays.py asks of a core
    HostRegistration."""

    def __init__(self, mgr, owner, pointer, nbytes, mapped):
        from .. import _backend
        self.memory = mgr.mempin(owner, pointer, nbytes, mapped)
        self.device_ptr = _address(self.memory.device_pointer)
        self.registered = _backend.is_gpu()  # whether copies may be in flight: cuda.pinned's exit synchronizes

    def release(self):
        memory, self.memory = self.memory, None
        if memory is not None and getattr(memory, "is_managed", False):
            memory.free()


def _check_not_freed(obj):
    """A MemoryPointer (or a view of one) whose memory ``free()`` gave back is not memory any more: copying to it
    would write memory that may since belong to something else."""
    seen = 0
    while obj is not None and seen < 64:
        if getattr(obj, "_freed", False):
            raise ValueError(f"this {type(obj).__name__}'s memory was freed (MemoryPointer.free()): it cannot be "
                             f"copied to or from")
        owner = getattr(obj, "_owner", None)
        obj = owner if owner is not obj else None
        seen += 1


@contextlib.contextmanager
def defer_cleanup():
    """numba.cuda's ``with cuda.defer_cleanup():``. Numba queues frees and runs them later so that a free does not
    synchronize inside the block; cudajit's frees never synchronize (device memory goes back with cuMemFreeAsync
    when its last reference goes), so the block runs as it would without it. Nested blocks are fine. With an EMM
    plugin set (``cuda.set_memory_manager``), the block runs inside the plugin's ``defer_cleanup()``."""
    mgr = manager()
    if mgr is None:
        yield
        return
    with mgr.defer_cleanup():
        yield
