"""Device management, as Numba documents it ("Device management", "CUDA Host API").

``gpus``, ``select_device``, ``get_current_device``, ``list_devices``, ``detect``, ``close``,
``current_context``, ``synchronize``. The selected device is per thread, as Numba's context ("associated with the
current thread"): 0 until ``select_device`` or ``with cuda.gpus[i]:`` chooses another. Compiled kernels, memory,
streams and events belong to the device current when they were made. Under the CPU backend there is one pseudo-device,
``b"cudajit CPU"`` with compute capability (9, 0) and the limits of an sm_90 GPU, so that code
which inspects the device before launching keeps working.
"""

import collections
import operator
import os
import sys
import threading

from cudajit import _backend, _core
from cudajit.errors import CudaSupportError

from . import emm

MemoryInfo = collections.namedtuple("MemoryInfo", ["free", "total"])
MemoryInfo.__doc__ = "Bytes of memory (free, total): what ``Context.get_memory_info()`` returns (numba.cuda's)."
_entered = threading.local()   # .stack: the devices current before each `with cuda.gpus[i]:` of this thread




class DeviceName(bytes):
    """A device's name: ``bytes`` like Numba's ``Device.name``, printed without ``b'...'``."""

    def __str__(self):
        return self.decode("utf-8", "replace")

    def __format__(self, spec):
        return format(str(self), spec)


# The CPU pseudo-device answers with an sm_90 GPU's limits (what the CPU launcher accepts too).
def _host_clock_khz():
    """The host CPU's clock in kHz (/proc/cpuinfo's first "cpu MHz"); 1 GHz where it does not say."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("cpu MHz"):
                    return int(float(line.split(":")[1]) * 1000)
    except (OSError, ValueError, IndexError):
        pass
    return 1000000


def _host_l2_bytes():
    """The host's L2 cache in bytes (sysconf, else sysfs); 1 MiB where neither says."""
    try:
        n = os.sysconf("SC_LEVEL2_CACHE_SIZE")
        if n > 0:
            return n
    except (ValueError, OSError):
        pass
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            text = f.read().strip().upper()
        return int(text.rstrip("KM")) << {"K": 10, "M": 20}.get(text[-1:], 0)
    except (OSError, ValueError):
        return 1 << 20


_CPU_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": 1024,
    "MAX_BLOCK_DIM_X": 1024,
    "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64,
    "MAX_GRID_DIM_X": 2**31 - 1,
    "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535,
    "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 228 * 1024,
    "TOTAL_CONSTANT_MEMORY": 64 * 1024,
    "WARP_SIZE": 32,
    "MAX_REGISTERS_PER_BLOCK": 65536,
    "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
    "MAX_THREADS_PER_MULTIPROCESSOR": 2048,
    "MAX_BLOCKS_PER_MULTIPROCESSOR": 32,
    "MULTIPROCESSOR_COUNT": os.cpu_count() or 1,
    "COMPUTE_CAPABILITY_MAJOR": 9,
    "COMPUTE_CAPABILITY_MINOR": 0,
    "CONCURRENT_KERNELS": 1,
    "UNIFIED_ADDRESSING": 1,
    "MANAGED_MEMORY": 1,
    "CAN_MAP_HOST_MEMORY": 1,
    "INTEGRATED": 1,
    "ECC_ENABLED": 0,
    "KERNEL_EXEC_TIMEOUT": 0,
    "PCI_BUS_ID": 0,
    "PCI_DEVICE_ID": 0,
    "PCI_DOMAIN_ID": 0,
    "ASYNC_ENGINE_COUNT": 0,
    "COOPERATIVE_LAUNCH": 0,
    "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO": 2,
    # The host's own clock and L2 where the OS says (a course's "print the device's clock" runs unchanged); the
    # memory's clock and bus width have no host equivalent, so those are the sm_90 device the backend models.
    "CLOCK_RATE": _host_clock_khz(),
    "MEMORY_CLOCK_RATE": 2619000,          # kHz
    "GLOBAL_MEMORY_BUS_WIDTH": 5120,       # bits
    "L2_CACHE_SIZE": _host_l2_bytes(),
    "MAX_PITCH": 2**31 - 1,
    "COMPUTE_MODE": 0,
    "COMPUTE_PREEMPTION_SUPPORTED": 1,
    "CONCURRENT_MANAGED_ACCESS": 1,
    "PAGEABLE_MEMORY_ACCESS": 1,
    "MEMORY_POOLS_SUPPORTED": 1,
    "STREAM_PRIORITIES_SUPPORTED": 1,
    "CLUSTER_LAUNCH": 0,
    "MULTI_GPU_BOARD": 0,
    "TCC_DRIVER": 0,
}


def _host_memory():
    page = os.sysconf("SC_PAGE_SIZE")
    return MemoryInfo(os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page)


class Device:
    """A device (Numba: ``numba.cuda.cudadrv.driver.Device``), as ``cuda.gpus[i]`` gives it.

    Attributes named like the driver's (``MAX_THREADS_PER_BLOCK``, ``WARP_SIZE``, ...) are
    read on use. As a context manager it selects the device for the ``with`` block.
    """

    def __init__(self, devnum):
        if isinstance(devnum, bool) or not hasattr(devnum, "__index__"):
            raise TypeError(f"Device: devnum must be an int, not {type(devnum).__name__} {devnum!r:.40}")
        devnum = operator.index(devnum)
        backend = _backend.current()
        self.id = backend.check_device(devnum)
        if backend.is_cpu:
            self._core = None
            self.name = DeviceName(b"cudajit CPU")
            self.compute_capability = (9, 0)
            self.uuid = "CPU-00000000-0000-0000-0000-000000000000"
            self.pci_bus_id = "0000:00:00.0"
        else:
            self._core = _core.Device(devnum)
            self.name = DeviceName(self._core.name.encode())
            self.compute_capability = self._core.compute_capability
            self.uuid = self._core.uuid
            self.pci_bus_id = self._core.pci_bus_id

    def __getattr__(self, attr):
        # Only reached for names not set in __init__: the driver's attributes, read lazily.
        if attr.startswith("_"):
            raise AttributeError(attr)
        if self._core is None:
            if attr in _CPU_ATTRIBUTES:
                return _CPU_ATTRIBUTES[attr]
        elif attr in _core.DEVICE_ATTRIBUTES:
            return self._core.get_attribute(_core.DEVICE_ATTRIBUTES[attr])
        raise AttributeError(f"{type(self).__name__!r} has no attribute {attr!r}")

    def get_attribute(self, code):
        """The driver's ``cuDeviceGetAttribute(code)``."""
        if self._core is None:
            for name, value in _core.DEVICE_ATTRIBUTES.items():
                if value == code and name in _CPU_ATTRIBUTES:
                    return _CPU_ATTRIBUTES[name]
            raise CudaSupportError(f"device attribute {code} has no CPU-backend value")
        return self._core.get_attribute(code)

    @property
    def total_memory(self):
        return _host_memory().total if self._core is None else self._core.total_memory

    @property
    def supports_float16(self):
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self):
        return self.compute_capability >= (8, 0)

    @property
    def supports_fp8(self):
        return self.compute_capability >= (8, 9)

    def reset(self):
        """Destroy every allocation and module of this device's primary context."""
        if self._core is not None:
            self._core.reset()

    def get_primary_context(self):
        return Context(self)

    def get_device_identity(self):
        """Where the device sits on this machine (numba-cuda's): its PCI domain, bus and device ids, the same in
        every process whatever CUDA_VISIBLE_DEVICES numbers it."""
        return {"pci_domain_id": self.PCI_DOMAIN_ID, "pci_bus_id": self.PCI_BUS_ID,
                "pci_device_id": self.PCI_DEVICE_ID}

    @classmethod
    def from_identity(cls, identity):
        """The device of this process with ``identity`` (get_device_identity()); RuntimeError when none has it."""
        for dev in gpus:
            if dev.get_device_identity() == identity:
                return dev
        raise RuntimeError(f"no device of this process has the identity {identity} (CUDA_VISIBLE_DEVICES may hide "
                           f"it)")

    def __enter__(self):
        """``with cuda.gpus[i]:`` makes device i current on this thread for the block, then the previous one."""
        stack = _entered.__dict__.setdefault("stack", [])
        stack.append(get_current_device().id)
        select_device(self.id)
        return self

    def __exit__(self, *exc):
        select_device(_entered.stack.pop())

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}'>"


class _DeviceList:
    """``cuda.gpus``: every device, indexable and iterable, plus ``current``."""

    def __init__(self):
        self._devices = {}  # per backend: the CPU's pseudo-device and the GPUs differ

    def _list(self):
        backend = _backend.current()
        if backend not in self._devices:
            self._devices[backend] = [Device(i) for i in range(backend.device_count())]
        return self._devices[backend]

    def __getitem__(self, devnum):
        devices = self._list()
        if isinstance(devnum, slice):
            return devices[devnum]
        if isinstance(devnum, bool) or not hasattr(devnum, "__index__"):
            raise TypeError(f"cuda.gpus: a device is indexed by an int, not {type(devnum).__name__} {devnum!r:.40}")
        devnum = operator.index(devnum)
        if not -len(devices) <= devnum < len(devices):     # list indexing, as numba-cuda's (an IndexError)
            raise IndexError(f"cuda.gpus[{devnum}]: there is no device {devnum}; "
                             f"{_backend.current().devices_phrase()}")
        return devices[devnum]

    def __iter__(self):
        return iter(self._list())

    def __len__(self):
        return len(self._list())

    def __str__(self):
        return ", ".join(str(d) for d in self._list())

    @property
    def current(self):
        """The selected device."""
        return self[_backend.current().device()]


gpus = _DeviceList()


class _PendingDeallocations:
    """numba-cuda's ``Context.deallocations``, its queue of frees not yet done. cudajit frees device memory when
    its last reference goes (cuMemFreeAsync, no synchronization), so nothing is ever pending: ``clear()`` has
    nothing to flush and ``disable()`` is ``cuda.defer_cleanup()``."""

    def clear(self):
        """Flush the pending frees: there are none."""

    def disable(self):
        return emm.defer_cleanup()

    @property
    def is_disabled(self):
        return False

    def __len__(self):
        return 0


class Context:
    """The current device's primary context (Numba: ``numba.cuda.cudadrv.driver.Context``)."""

    def __init__(self, device):
        if not isinstance(device, Device):
            raise TypeError(f"Context: device must be a Device (cuda.gpus[i]), not {type(device).__name__} "
                            f"{device!r:.40}")
        self.device = device
        self.id = device.id
        self.deallocations = _PendingDeallocations()

    @property
    def memory_manager(self):
        """The EMM plugin's instance for this device (``cuda.set_memory_manager``); None for cudajit's own pool."""
        return emm.manager(self.id)

    def get_memory_info(self):
        """(free, total) bytes of the device; of host memory under the CPU backend. With an EMM plugin set, what
        its ``get_memory_info()`` says."""
        mgr = self.memory_manager
        if mgr is not None:
            return mgr.get_memory_info()
        if _backend.current().is_cpu:
            return _host_memory()
        with self.device:
            return MemoryInfo(*_core.mem_info())

    def can_access_peer(self, peer_device):
        """Whether this context's device can map the memory of device ``peer_device`` (an ordinal), as numba-cuda's
        ``Context.can_access_peer``: what the driver's cuDeviceCanAccessPeer answers. The CPU backend has one
        device and no peers: False."""
        if isinstance(peer_device, bool) or not hasattr(peer_device, "__index__"):
            raise TypeError(f"can_access_peer: peer_device must be a device ordinal (an int), not "
                            f"{type(peer_device).__name__} {peer_device!r:.40}")
        backend = _backend.current()
        peer = backend.check_device(operator.index(peer_device))
        if backend.is_cpu:
            return False
        return _core.device_can_access_peer(self.id, peer)

    # --- numba-cuda's memory and object API of a context (numba.cuda.cudadrv.driver.Context) ---------------
    def memalloc(self, size):
        """``size`` bytes of device memory as a MemoryPointer (the EMM plugin's when one is set), freed by its
        ``free()`` or when it is garbage collected."""
        mgr = self.memory_manager
        return mgr.memalloc(size) if mgr is not None else emm.own_device_memory(self, size)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """``size`` bytes of page-locked host memory: MappedMemory (reachable from kernels at its
        ``device_pointer``) when ``mapped``, else PinnedMemory. cudajit's is always portable."""
        mgr = self.memory_manager
        if mgr is not None:
            return mgr.memhostalloc(size, mapped, portable, wc)
        return emm.own_host_memory(self, size, mapped)

    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock the existing host memory at ``pointer`` (``size`` bytes, kept alive by ``owner``)."""
        mgr = self.memory_manager
        if mgr is not None:
            return mgr.mempin(owner, pointer, size, mapped)
        return emm.pin_host_memory(self, owner, pointer, size, mapped)

    def memallocmanaged(self, size, attach_global=True):
        """``size`` bytes of managed memory (ManagedMemory: one address on the host and every device)."""
        return emm.own_managed_memory(self, size)

    def memfree(self, pointer):
        """Free memory from ``memalloc`` now (its ``free()``)."""
        pointer.free()

    def get_ipc_handle(self, memory):
        """An IpcHandle (cuda/ipc.py) to share ``memory`` (a DeviceBuffer or MemoryPointer on this device) with
        another process on this machine; the EMM plugin's ``get_ipc_handle`` while one is set."""
        mgr = self.memory_manager
        if mgr is not None:
            return mgr.get_ipc_handle(memory)
        return ipc_export(memory, self)

    def create_stream(self):
        """A new stream on this context's device (``cuda.stream()``)."""
        from .streams import stream
        with self.device:
            return stream()

    def create_external_stream(self, ptr):
        """A stream made elsewhere (``cuda.external_stream``)."""
        from .streams import external_stream
        return external_stream(ptr)

    def get_default_stream(self):
        from .streams import default_stream
        return default_stream()

    def create_event(self, timing=True):
        """A new event (``cuda.event``)."""
        from .streams import event
        with self.device:
            return event(timing)

    def synchronize(self):
        """Wait for all work on this context's device."""
        if _backend.current().is_cpu:
            return
        with self.device:
            synchronize()

    def reset(self):
        """The EMM plugin's ``reset()`` (when one is set), then the device's."""
        mgr = self.memory_manager
        if mgr is not None:
            mgr.reset()
        self.device.reset()

    def __repr__(self):
        return f"<CUDA context of device {self.id}>"


def select_device(device_id):
    """Make device ``device_id`` current for the calling thread and return it (Numba: ``select_device``): kernels
    launched, arrays allocated and streams made by this thread go to it. A device that does not exist raises
    CudaSupportError naming it."""
    if isinstance(device_id, bool) or not hasattr(device_id, "__index__"):
        raise TypeError(f"select_device: device_id must be an int, not {type(device_id).__name__}")
    device_id = operator.index(device_id)
    if _backend.current().is_cpu:
        return gpus[_backend.CPU.check_device(device_id)]
    _core.select_device(device_id)
    return gpus[device_id]


def get_current_device():
    """This thread's selected device (a GPU, or the CPU pseudo-device under the CPU backend), as Numba's function."""
    return gpus.current


def list_devices():
    """All devices the backend offers, as a list (Numba's ``cuda.list_devices()``; each has ``.name`` and ``.id``)."""
    return list(gpus)


def current_context():
    """The current device's context."""
    return Context(get_current_device())


def get_context(devnum=None):
    """The context of device ``devnum``, or of the current device when None (numba.cuda.devices.get_context)."""
    return current_context() if devnum is None else Context(gpus[devnum])


def close():
    """Release this process's contexts (Numba: ``cuda.close()``); a no-op on the CPU."""
    if not _backend.current().is_cpu:
        _core.close()


def synchronize():
    """Wait for all work on this thread's current device to finish (releases the GIL)."""
    if _backend.current().is_cpu:
        _core.stream_synchronize(0)  # returns at once, or refuses while a stream is being captured (cuda.graph)
    else:
        _core.synchronize()


def detect(file=None):
    """Print the devices found, like Numba's ``cuda.detect()``; True when one is usable."""
    out = file or sys.stdout
    if _backend.current().is_cpu:
        print("cudajit is using its CPU backend: kernels run on the host's cores.", file=out)
        ok, why = _core.driver_status()
        if not ok:
            print(f"CUDA is not available: {why}", file=out)
        print("Found 1 CUDA device (the CPU pseudo-device)", file=out)
        print(f"id 0    {gpus[0].name}    [SUPPORTED]", file=out)
        print(f"{'Compute Capability':>40}: 9.0", file=out)
        return True
    ok, why = _core.driver_status()
    if not ok:
        print(f"CUDA is not available: {why}", file=out)
        return False
    devices = list_devices()
    print(f"Found {len(devices)} CUDA devices", file=out)
    # Supported means NVRTC can build for it: its oldest target (5.0 when NVRTC is missing).
    oldest = min(_core.nvrtc_supported_archs()) if _core.nvrtc_available()[0] else 50
    supported = 0
    for dev in devices:
        cc = dev.compute_capability
        usable = cc[0] * 10 + cc[1] >= oldest
        supported += usable
        tag = ("[SUPPORTED]" if usable else
               f"[NOT SUPPORTED] (compute capability < {oldest // 10}.{oldest % 10})")
        print(f"id {dev.id:<4} {str(dev.name):<40} {tag}", file=out)
        rows = [("Compute Capability", f"{cc[0]}.{cc[1]}"),
                ("PCI Device ID", dev.PCI_DEVICE_ID),
                ("PCI Bus ID", dev.PCI_BUS_ID),
                ("UUID", dev.uuid),
                ("Watchdog", "Enabled" if dev.KERNEL_EXEC_TIMEOUT else "Disabled"),
                ("FP32/FP64 Performance Ratio", dev.SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO)]
        for label, value in rows:
            print(f"{label:>40}: {value}", file=out)
    print("Summary:", file=out)
    print(f"\t{supported}/{len(devices)} devices are supported", file=out)
    return supported > 0


def ipc_export(memory, context):
    """``cuda/ipc.py``'s ``export``: ipc.py, a layer above this one, installs it when it is imported."""
    raise RuntimeError("cudajit.cuda.ipc is not imported: no IPC handles")


def _context_of(device):
    return Context(gpus[device])


emm.context_of = _context_of    # installs how the memory layer (below) makes an EMM plugin's Context
