"""``cuda.profile_start()``, ``cuda.profile_stop()`` and ``cuda.profiling()``: mark the part of a program that a
profiler (Nsight Systems/Compute with capture range "cudaProfilerApi") records, as numba.cuda's functions do
through the driver's cuProfilerStart/Stop. Under the CPU backend there is no CUDA profiler: they do nothing."""
import contextlib
import ctypes

from .. import _backend
from ..errors import CudaAPIError


def _driver_call(name):
    from .devices import current_context
    current_context()                       # the driver's profiler calls act on the current context
    status = getattr(ctypes.CDLL("libcuda.so.1"), name)()
    if status != 0:
        raise CudaAPIError(f"{name} failed with CUDA error {status}", call=name, code=status)


def profile_start():
    """Start the profiler's capture (GPU backend; nothing under the CPU backend)."""
    if _backend.current().is_gpu:
        _driver_call("cuProfilerStart")


def profile_stop():
    """Stop the profiler's capture (GPU backend; nothing under the CPU backend)."""
    if _backend.current().is_gpu:
        _driver_call("cuProfilerStop")


@contextlib.contextmanager
def profiling():
    """``with cuda.profiling():`` captures the block."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()
