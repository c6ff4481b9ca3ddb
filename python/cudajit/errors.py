"""cudajit's exceptions. Names and roles follow Numba's (numba.core.errors, numba.cuda.cudadrv.error).

The C++ core raises the driver, support, compile, launch and runtime errors through these classes
(module.cpp translates its C++ exceptions), so a user catches one hierarchy whatever raised it.
"""


class CudaJitError(Exception):
    """Base of every cudajit error."""


class CudaSupportError(CudaJitError, ImportError):
    """CUDA cannot be used here: no driver, no GPU, or a GPU-only feature under the CPU backend."""


class CudaAPIError(CudaJitError):
    """A CUDA driver call failed. ``call`` names it, ``code`` and ``name`` are the driver's."""

    def __init__(self, msg, call=None, code=None, name=None):
        super().__init__(msg)
        self.call, self.code, self.name = call, code, name


class CompileError(CudaJitError):
    """NVRTC or the host C++ compiler rejected the generated source (message: the log)."""


class LaunchError(CudaJitError, ValueError):
    """A launch configuration the device cannot run (grid, block, shared memory)."""


class KernelRuntimeError(CudaJitError, RuntimeError):
    """A kernel failed while running (CPU backend: barrier deadlock, out-of-range access)."""


class TypingError(CudaJitError, TypeError):
    """A kernel's Python could not be typed under Numba's rules (message names file:line)."""


class UnsupportedError(CudaJitError):
    """A Python construct that CUDA kernels do not support (message names file:line)."""


# Numba spells these names too; keep the aliases so `except NumbaError` style code ports.
NumbaError = CudaJitError
