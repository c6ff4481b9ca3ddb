"""The user namespace: what ``numba.cuda`` offers, for ``from cudajit import cuda``."""
import importlib as _importlib

from .. import _backend, config
from ..errors import (CompileError, CudaAPIError, CudaSupportError, KernelRuntimeError, LaunchError,
                      StreamCaptureError, TypingError, UnsupportedError)
from .args import In, InOut, Out
from .arrays import (defer_cleanup, device_array, device_array_like, managed_array, mapped, mapped_array, mapped_array_like,
                     pinned, pinned_array, pinned_array_like, to_device)
from .devicearray import DeviceNDArray
from .devices import (MemoryInfo, close, current_context, detect, get_current_device, gpus, list_devices, select_device,
                      synchronize)
from .dispatcher import jit
from .emm import (BaseCUDAMemoryManager, HostOnlyCUDAMemoryManager, MappedMemory, MemoryPointer, PinnedMemory,
                  set_memory_manager)
from .ffi import LTOIR, Archive, Cubin, CUSource, Fatbin, Object, PTXSource, declare_device
from .graphs import Graph, graph
from .interop import as_cuda_array, from_cuda_array_interface, from_dlpack, is_cuda_array
from .ipc import GetIpcHandleMixin
from .kernels import transpose as _transpose  # noqa: F401  (installs DeviceNDArray.transpose's kernel)
from . import array_helpers as _array_helpers  # noqa: F401  (numba-cuda's helpers on cuda.devicearray)
from .kernelapi import *  # noqa: F401,F403  (threadIdx, grid, shared, atomic, syncthreads, …)
from .ptx import compile, compile_all, compile_for_current_device, compile_ptx, compile_ptx_for_current_device
from .profiling import profile_start, profile_stop, profiling
from .raw import RawKernel, RawModule
from .reduction import Reduce, reduce
from .vectorizers import guvectorize, vectorize
from .streams import (Event, Stream, default_stream, event, event_elapsed_time, external_stream,
                      legacy_default_stream, per_thread_default_stream, stream)

# Modules as in numba.cuda (``from cudajit.cuda.fp16 import hadd``); each replaces its namespace's placeholder and
# holds the same kernel-only names.
fp16 = _importlib.import_module(".fp16", __name__)
bf16 = _importlib.import_module(".bf16", __name__)
fp8 = _importlib.import_module(".fp8", __name__)
libdevice = _importlib.import_module(".libdevice", __name__)


def is_available():
    """True when a CUDA driver and a GPU are present (Numba's meaning), whichever backend runs the kernels; and True
    under NUMBA_ENABLE_CUDASIM=1, as Numba's simulator says (programs and test suites written for the simulator
    gate their kernels on it)."""
    if _backend.simulating():
        return True
    return bool(_backend.gpu_status()[0])


def is_supported_version():
    """True: cudajit supports any driver that loads (Numba checks the CUDA runtime version here)."""
    return True


class Runtime:
    """``cuda.runtime`` as in numba-cuda, whose "runtime" is NVRTC: the toolkit version kernels compile with."""

    def get_version(self):
        """NVRTC's version, ``(major, minor)``; a CudaSupportError when no NVRTC is found."""
        from .. import _core
        return tuple(_core.nvrtc_version())

    def is_supported_version(self):
        """True for the toolkits cudajit supports: CUDA 12 and 13."""
        return self.get_version()[0] in (12, 13)


runtime = Runtime()


def is_float16_supported():
    """True: float16 arrays, arithmetic and ``cuda.fp16`` work on every device and on the CPU backend."""
    return True


def is_bfloat16_supported():
    """Whether kernels may use bfloat16 (``cuda.bf16``), as numba-cuda answers: on the GPU backend, when the current
    device's compute capability is 8.0 or more; always on the CPU backend. (cudajit's bfloat16 needs no bf16
    instructions, so it also runs on older GPUs; numba-cuda's does not.)"""
    return _backend.current().is_cpu or get_current_device().supports_bfloat16


def is_fp8_supported():
    """Whether kernels may use the fp8 types (``cuda.fp8``, numba.cuda._internal.cuda_fp8), as numba-cuda answers: on
    the GPU backend, when the current device's compute capability is 8.9 or more; always on the CPU backend.
    (cudajit's fp8 conversions need no fp8 instructions, so they also run on older GPUs; numba-cuda's do not.)"""
    return _backend.current().is_cpu or get_current_device().supports_fp8


def require_context(fn):
    """Numba's decorator: ``fn`` runs with the current device's context made current first."""
    import functools

    @functools.wraps(fn)
    def with_context(*args, **kwargs):
        current_context()
        return fn(*args, **kwargs)
    return with_context


def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """numba.cuda's ``open_ipc_array``: a context manager that opens an IPC handle's bytes (a legacy
    CUipcMemHandle from any library, or a cudajit handle's ``reserved``) as a device array (cuda/ipc.py)."""
    from .ipc import open_ipc_array as _open
    return _open(handle, shape, dtype, strides, offset)


def __dir__():
    """What ``numba.cuda`` users find here (tab completion): the names above, and those loaded on first use."""
    from .. import _STAR_TYPES
    from ..compiler import types as _types
    lazy = ["cudadrv", "driver", "literal_unroll", "types"] + [n for n in _STAR_TYPES if hasattr(_types, n)]
    return sorted(set(globals()) | set(lazy))


def __getattr__(name):
    if name == "cudadrv":       # numba-cuda's driver-level import paths, on first use (they import nvJitLink's probe)
        return _importlib.import_module(".cudadrv", __name__)
    if name == "driver":        # numba.cuda.driver: the module numba.cuda.cudadrv.driver
        return _importlib.import_module(".cudadrv.driver", __name__)
    if name == "literal_unroll":                   # numba.cuda.literal_unroll, the same object as cudajit's
        from ..compiler.pyvalues import literal_unroll
        return literal_unroll
    # Type objects (``from cudajit.cuda import float32``) and ``cuda.types`` load on first use.
    from ..compiler import types as _types
    if name == "types":
        return _types
    if hasattr(_types, name) and not name.startswith("_"):
        return getattr(_types, name)
    raise AttributeError(f"module 'cudajit.cuda' has no attribute {name!r}")
