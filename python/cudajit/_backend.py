"""Which backend runs kernels: the GPU (CUDA driver + device) or the CPU (host C++ compiler).

Chosen by ``CUDAJIT_BACKEND=gpu|cpu|auto`` (auto, the default, picks the GPU when a driver and a
device are present). Unless CUDAJIT_BACKEND names one, Numba's ``NUMBA_ENABLE_CUDASIM=1`` (run kernels on the CPU,
in Numba's simulator) picks the CPU backend, so a program or CI job set up for the simulator runs on the CPU here too. Tests and tools may switch at run time with ``use(name)``; arrays belong to
the backend they were made under.
"""
import contextlib
import os
import warnings

from . import settings
from .errors import CudaSupportError

_current = None       # "gpu" or "cpu" once decided
_when_set = []        # called each time the backend is set (when_set): upper layers hook in, none is imported here
_gpu_status = None    # (ok, reason), probed once

def gpu_status():
    """(ok, reason): whether the CUDA driver loads and reports a device. Never raises."""
    global _gpu_status
    if _gpu_status is None:
        from . import _core
        _gpu_status = tuple(_core.driver_status())
    return _gpu_status


class Backend:
    """One target kernels run on, and its rules: where arrays live (``core_id``, the C++ core's number), which device
    is current, the architecture the compiler targets, how streams and index checks behave. Two instances, ``GPU`` and
    ``CPU``; ``current()`` is the one in use. Upper layers ask it rather than compare names."""

    __slots__ = ()
    name = None
    core_id = None          # the core's backend number (set_backend; a DeviceNDArray's _backend)
    is_cpu = is_gpu = False
    checks_by_default = False   # whether index checks are on when neither boundscheck= nor debug= asks

    def device(self):
        """The current device's number."""
        raise NotImplementedError

    def arch(self):
        """The SM version kernels are compiled for: the current GPU's, or 90 on the CPU backend (which emulates what
        an sm_90 kernel may use; inspect_asm and compile_ptx build for it)."""
        raise NotImplementedError

    def compute_capability(self):
        """``arch()`` as numba's (major, minor)."""
        return divmod(self.arch(), 10)

    def device_count(self):
        raise NotImplementedError

    def check_device(self, devnum):
        """``devnum`` (an int), or CudaSupportError saying which devices there are."""
        if not 0 <= devnum < self.device_count():       # (the core takes a C int)
            raise CudaSupportError(f"device {devnum} does not exist: {self.devices_phrase()}")
        return devnum

    def devices_phrase(self):
        raise NotImplementedError

    def target(self):
        """Where a compiled specialization runs: "cpu", or ("gpu", device): a GPU module is loaded in one device's
        context, so each device has its own."""
        raise NotImplementedError

    def __repr__(self):
        return f"<cudajit {self.name} backend>"


class _Gpu(Backend):
    __slots__ = ()
    name, core_id, is_gpu = "gpu", 0, True

    def device(self):
        from . import _core
        return _core.current_device()

    def device_count(self):
        from . import _core
        return _core.device_count()

    def devices_phrase(self):
        return f"there are {self.device_count()} GPU(s)"

    def arch(self):
        from . import _core
        major, minor = _core.Device(_core.current_device()).compute_capability
        return major * 10 + minor

    def target(self):
        return ("gpu", self.device())


class _Cpu(Backend):
    __slots__ = ()
    name, core_id, is_cpu = "cpu", 1, True
    checks_by_default = True    # a stray index on the host corrupts the interpreter's heap, not a GPU's memory

    def device(self):
        return 0

    def device_count(self):
        return 1

    def devices_phrase(self):
        return "the CPU backend has one device, 0"

    def arch(self):
        return 90

    def target(self):
        return "cpu"


GPU, CPU = _Gpu(), _Cpu()
BACKENDS = {"gpu": GPU, "cpu": CPU}
BY_CORE_ID = {GPU.core_id: GPU, CPU.core_id: CPU}   # a DeviceNDArray's _backend -> its Backend


def current():
    """The :class:`Backend` in use, decided on first use (CUDAJIT_BACKEND, else the GPU when one is usable)."""
    if _current is None:
        want = settings.value("CUDAJIT_BACKEND")
        if want == "auto":
            want = "cpu" if _cudasim() else "gpu" if gpu_status()[0] else "cpu"
        _set(want)
    return BACKENDS[_current]


def name():
    """The backend in use: ``"gpu"`` or ``"cpu"``."""
    return current().name


def simulating():
    """Whether the backend is the CPU because NUMBA_ENABLE_CUDASIM asked for Numba's simulator (CUDAJIT_BACKEND
    unset or auto). Never raises; decides nothing."""
    if _current is not None and _current != "cpu":
        return False
    try:
        want = settings.value("CUDAJIT_BACKEND")
    except settings.SettingError:
        return False
    return want == "auto" and _cudasim()


def _cudasim():
    """Whether NUMBA_ENABLE_CUDASIM asks for the simulator (Numba reads it as an int: "1" yes, "0" or unset no)."""
    value = os.environ.get("NUMBA_ENABLE_CUDASIM", "").strip()
    if not value:
        return False
    try:
        return int(value) != 0
    except ValueError:
        warnings.warn(f"Environment variable 'NUMBA_ENABLE_CUDASIM' is defined but its associated value '{value}' "
                      "could not be parsed; the default (0) is used", RuntimeWarning, stacklevel=4)
        return False


def _set(backend):
    global _current
    from . import _core
    _core.set_backend(BACKENDS[backend].core_id)  # allocations and launches follow it
    _current = backend
    for fn in _when_set:
        fn()


def when_set(fn):
    """Calls ``fn()`` whenever the backend is set, and now if it is set already (an upper layer's hook: cuda/emm.py
    reads NUMBA_CUDA_MEMORY_MANAGER before the first allocation)."""
    _when_set.append(fn)
    if _current is not None:
        fn()
    return fn


def reason():
    """Why ``name()`` is what it is, in words (for ``python -m cudajit``). Never raises."""
    try:
        want = settings.value("CUDAJIT_BACKEND")
    except settings.SettingError as e:
        return str(e)
    if want != "auto":
        return f"CUDAJIT_BACKEND={want}"
    if _cudasim():
        return "NUMBA_ENABLE_CUDASIM asks for the simulator: kernels run on the CPU"
    ok, why = gpu_status()
    return "a CUDA driver and a GPU are present" if ok else f"no usable GPU: {why}"


def is_gpu():
    return current().is_gpu


def require_gpu(what):
    """Raise CudaSupportError unless the GPU backend is usable; ``what`` names the caller."""
    if not current().is_gpu:
        raise CudaSupportError(f"{what} needs the GPU backend, but the CPU backend is in use")
    ok, reason = gpu_status()
    if not ok:
        raise CudaSupportError(f"{what}: {reason}")


def available():
    """Backends usable on this machine, the CPU first."""
    return ["cpu"] + (["gpu"] if gpu_status()[0] else [])


@contextlib.contextmanager
def use(backend):
    """Run a block under another backend (tests run each kernel on every backend present)."""
    if backend not in ("gpu", "cpu"):
        raise ValueError(f"unknown backend {backend!r}")
    if backend == "gpu":
        ok, reason = gpu_status()
        if not ok:
            raise CudaSupportError(reason)
    saved = name()
    _set(backend)
    try:
        yield
    finally:
        _set(saved)
