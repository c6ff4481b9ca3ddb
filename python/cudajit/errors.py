"""cudajit's exceptions. Names and roles follow Numba's (numba.core.errors, numba.cuda.cudadrv.error).

The C++ core raises the driver, support, compile, launch and runtime errors through these classes
(module.cpp translates its C++ exceptions), so a user catches one hierarchy whatever raised it.

A compile error reaches the user with cudajit's own frames dropped from its traceback (its
message already names the kernel's file:line); ``CUDAJIT_FULL_TRACEBACK=1`` keeps every frame.
"""
import functools
import os
import types


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


class KernelRecursionError(KernelRuntimeError, RecursionError):
    """A recursive device function went deeper than its CUDA thread's stack holds (CPU backend; the message names
    the function, its file and line, and the depth). A RecursionError, as Python's own for the same program."""


class TypingError(CudaJitError, TypeError):
    """A kernel's Python could not be typed under Numba's rules (message names file:line)."""


class StreamCaptureError(CudaJitError, RuntimeError):
    """An operation that cannot be recorded into a CUDA graph while a stream is captured (cuda.graph)."""


class UnsupportedError(CudaJitError):
    """A Python construct that CUDA kernels do not support (message names file:line)."""


# Numba spells these names too; keep the aliases so `except NumbaError` style code ports.
NumbaError = CudaJitError


# The other numba.core.errors names that programs catch (``cudajit.core.errors`` re-exports them all). Each sits
# under the cudajit class that plays its part, so catching either name works.
class LiteralTypingError(TypingError):
    """Numba: an argument that must be a compile-time constant (a literal) is not one."""


class RequireLiteralValueError(TypingError):
    """Numba: a value needed as a literal (e.g. a shape or an ndim) is not known at compile time."""


class NumbaTypeError(TypingError):
    """Numba's TypeError raised while typing."""


class NumbaValueError(CudaJitError, ValueError):
    """Numba's ValueError raised while compiling."""


class NumbaNotImplementedError(UnsupportedError, NotImplementedError):
    """Numba: a feature that is not implemented."""


class DeprecationError(CudaJitError):
    """Numba: a feature that was removed (``cuda.jit(argtypes=...)``); the message says what replaces it."""


LoweringError = CompileError          # Numba's error of code generation: NVRTC or the host compiler here
NvrtcError = CompileError             # numba.cuda.cudadrv.error.NvrtcError


class NumbaWarning(Warning):
    """Base of Numba's warnings."""


class NumbaPerformanceWarning(NumbaWarning):
    """Numba: code that runs correctly but slowly (e.g. a grid too small for the device)."""


class NumbaDeprecationWarning(NumbaWarning, DeprecationWarning):
    """Numba: a feature that will go away."""


class NumbaPendingDeprecationWarning(NumbaWarning, PendingDeprecationWarning):
    """Numba: a feature that is planned to go away."""


class NumbaInvalidConfigWarning(NumbaWarning):
    """Numba: a setting (an environment variable, a ``cuda.jit`` option) that is not valid and was ignored."""


class NumbaDebugInfoWarning(NumbaWarning):
    """Numba: debug information that could not be emitted as asked."""


class NumbaExperimentalFeatureWarning(NumbaWarning):
    """Numba: a feature that is experimental."""


class NumbaSystemWarning(NumbaWarning):
    """Numba: something about the system (driver, toolkit) that may matter."""


class NumbaPedanticWarning(NumbaWarning):
    """Numba: a warning about how code is written."""


class NumbaTypeSafetyWarning(NumbaWarning):
    """Numba: an operation whose types may lose information."""


# Errors in the user's kernel, not in cudajit: their tracebacks hide cudajit's frames.
COMPILE_ERRORS = (TypingError, UnsupportedError, CompileError)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def full_traceback():
    """True when ``CUDAJIT_FULL_TRACEBACK=1`` asks for cudajit's own frames in tracebacks."""
    from . import settings
    return settings.value("CUDAJIT_FULL_TRACEBACK")


def _user_frames(tb):
    """The traceback ``tb`` without the frames of cudajit's own files."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def hide_internal_frames(fn):
    """Decorates a public entry point that compiles: a compile error leaves it with only the caller's
    frames (and this wrapper's one line) in its traceback. Launches do the same in C++ (bind_launch.cpp)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except COMPILE_ERRORS as e:
            if full_traceback():
                raise
            raise e.with_traceback(_user_frames(e.__traceback__))
    return call
